"""A Griffe extension for the site's API reference: the doctest examples of a docstring
(``>>>`` lines and the output under them) shown as Python console blocks, not read as Markdown
(where ``['f5', 'd6']`` would be taken for a link)."""

from __future__ import annotations

from typing import Any

import griffe


def fence_doctests(text: str) -> str:
    """``text`` with each run of ``>>>``/``...`` lines and their output in a ``pycon`` fence."""
    out: list[str] = []
    block: list[str] = []
    indent = ""
    for line in [*text.splitlines(), ""]:
        stripped = line.strip()
        if stripped.startswith(">>>") and not block:
            indent = line[: len(line) - len(line.lstrip())]
            block = [line[len(indent) :]]
        elif block and stripped:
            block.append(line[len(indent) :] if line.startswith(indent) else stripped)
        else:
            if block:
                out += [f"{indent}```pycon", *(indent + b for b in block), f"{indent}```"]
                block = []
            out.append(line)
    return "\n".join(out[:-1])


class FenceDoctests(griffe.Extension):
    """Fences the doctests of every docstring the reference renders."""

    def on_object(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None and ">>>" in obj.docstring.value:
            obj.docstring.value = fence_doctests(obj.docstring.value)
