"""What every subcommand shares: errors located at the command the user typed, and help text
made from docstrings."""

from __future__ import annotations

import contextlib
import copy
import inspect
import re
from collections.abc import Iterator
from typing import Any

from othellolab.core import ConfigError


@contextlib.contextmanager
def as_command(command: str, *internal: str) -> Iterator[None]:
    """Errors that the library locates at one of the ``internal`` places (``train_agent``,
    ``tournament 'a-vs-b'``, ``epsilon schedule``) are about what the user typed on the
    ``command`` line: re-raise them located at the command (``rl maze``, ``arena match``).
    A place further in (``tournament 'a-vs-b', player 'x'``) keeps its inner part."""
    try:
        yield
    except ConfigError as e:
        where = e.where or ""
        inner = next(
            (
                where[len(name) :]
                for name in internal
                if where == name or where.startswith(name + ", ")
            ),
            None,
        )
        if inner is None:
            raise
        moved = copy.copy(e)
        moved.where = None  # ``at`` then places it at the command alone
        raise moved.at(command + inner) from None


_ITEM = re.compile(r"\n(?=\s*(?:[-*|]|\d+\.)\s)")
"""A line break before a list item or table row: kept, where other breaks are reflowed."""


def help_text(doc: str | None) -> str:
    """A docstring or option help as help text: each paragraph on one line, for the terminal
    to wrap (typer keeps a docstring's line breaks, which break the text mid-line in a narrow
    terminal), list items on their own lines, and reST literals shown plainly (````x````
    becomes ``'x'``)."""
    text = inspect.cleandoc(doc or "")
    text = re.sub(r"``(.+?)``", r"'\1'", text, flags=re.S)
    paragraphs = []
    for paragraph in re.split(r"\n\s*\n", text):
        if paragraph.strip():
            lines = _ITEM.split(paragraph)
            paragraphs.append("\n".join(" ".join(line.split()) for line in lines))
    return "\n\n".join(paragraphs)


def reflow_help(command: Any) -> None:
    """Turn the help of ``command``, its options and (for a group) every subcommand under it
    into ``help_text``: one place for every command's help."""
    if command.help:
        command.help = help_text(command.help)
    if command.short_help:
        command.short_help = help_text(command.short_help)
    for param in command.params:
        if getattr(param, "help", None):
            param.help = help_text(param.help)
    for sub in getattr(command, "commands", {}).values():
        reflow_help(sub)
