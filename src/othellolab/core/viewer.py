"""A game as a small HTML viewer with a move slider, for notebooks and documentation pages.

``game_html(start, moves)`` replays ``moves`` from ``start`` (any game's people's position:
``Board``, ``AnimalShogi``...) and writes one frame per position, each the SVG drawing of
``core.svg`` with the move that led to it marked and a caption, and a slider with buttons
that shows one frame at a time. The page is self-contained and works offline: the drawings are
inline, the script is a few lines in the controls' own attributes (so it runs where a notebook
or a documentation page inserts the HTML without running ``<script>`` elements), and nothing is
fetched: the output holds no http(s) address at all. Without JavaScript the final position
shows.

``GameRecord`` shows itself this way in Jupyter (``_repr_html_``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any
from xml.sax.saxutils import escape, quoteattr

from othellolab.core.errors import ConfigError, MoveError
from othellolab.core.games import Game, position_game
from othellolab.core.svg import board, check_flag, check_size

__all__ = ["game_html"]

_WHERE = "viewer.game_html"

_ID = re.compile(r"ol([0-9a-f]{10})-")
"""The ids of a drawing's definitions (``core.svg``)."""

_SHOW = (
    "var v=this.closest('.othellolab-game'),n=+this.value;"
    "v.querySelectorAll('.ol-frame').forEach(function(f,i){f.hidden=i!==n;});"
    "v.querySelector('.ol-at').textContent=n;"
)
"""The slider's ``oninput``: show frame ``n`` and its number."""
_STEP = (
    "var r=this.parentNode.querySelector('input');r.value=+r.value+({step});"
    "r.dispatchEvent(new Event('input'));"
)
"""A button's ``onclick``: move the slider by ``step`` (the slider keeps itself in range)."""


def game_html(
    start: Any,
    moves: Iterable[int | str],
    *,
    game: Game | None = None,
    title: str | None = None,
    size: float = 320,
    legal: bool = False,
    coordinates: bool = True,
) -> str:
    """The game of ``moves`` (actions or move names) played from ``start`` as an HTML fragment:
    one frame per position (the start and after each move), a slider and buttons to step
    through them, and the final position shown first.

    ``title`` heads the viewer; ``size`` is each board's width in pixels (``core.svg.
    SIZE_RANGE``); ``legal`` and ``coordinates`` are ``core.svg.board``'s. An illegal move
    raises the rules' ``MoveError`` naming its 1-based number; a bad option a ``ConfigError``
    naming it.
    """
    check_size(size, where=_WHERE)
    if size is None:
        raise ConfigError("must be a number of pixels, got None", where=_WHERE, option="size")
    legal = check_flag(legal, "legal", where=_WHERE)
    coordinates = check_flag(coordinates, "coordinates", where=_WHERE)
    if title is not None and not isinstance(title, str):
        raise ConfigError(f"must be text, got {title!r}", where=_WHERE, option="title")
    game = game if game is not None else position_game(start)
    frames = [(start, None, "start: " + _to_move(game, start))]
    position = start
    for number, move in enumerate(moves, 1):
        try:
            action = game.parse_move(position, move) if isinstance(move, str) else int(move)
            name = game.move_name(position, action)
            parts = game.move_parts(position, action)
            mover = game.side_names[position.turn]
            position = position.play(action)
        except MoveError as e:
            raise e.at(f"move {number}", number=number) from None
        caption = f"{number}. {name} ({mover}); " + _to_move(game, position)
        frames.append((position, parts, caption))
    last = len(frames) - 1
    body = []
    for i, (pos, parts, caption) in enumerate(frames):
        svg = board(
            pos, game=game, last=parts, legal=legal, coordinates=coordinates, size=size,
            inline=True,
        )  # fmt: skip
        # A position met twice draws the same ids: number them by frame, so that no frame's
        # discs point into another, hidden one.
        svg = _ID.sub(rf"ol\1f{i}-", svg)
        hidden = "" if i == last else " hidden"
        body.append(
            f'<div class="ol-frame"{hidden}>{svg}'
            f'<div style="font-size:0.9em;color:#44524a;margin-top:0.2em">{escape(caption)}</div>'
            "</div>"
        )
    first, previous = _button("\u23ee", -max(last, 1), "first"), _button("\u25c0", -1, "previous")
    following, final = _button("\u25b6", 1, "next"), _button("\u23ed", max(last, 1), "last")
    controls = (
        '<div style="display:flex;gap:0.3em;align-items:center;margin-top:0.3em">'
        f"{first}{previous}"
        f'<input type="range" min="0" max="{last}" value="{last}" step="1" '
        f'aria-label="position" oninput={quoteattr(_SHOW)} style="flex:1;min-width:6em">'
        f"{following}{final}"
        f'<span style="font-family:monospace"><span class="ol-at">{last}</span>/{last}</span>'
        "</div>"
    )
    heading = "" if not title else f'<div style="font-weight:600">{escape(title)}</div>'
    return (
        f'<div class="othellolab-game" style="display:inline-block;font-family:system-ui,'
        f'sans-serif;max-width:{size + 40:.0f}px">{heading}{"".join(body)}{controls}</div>'
    )


def _button(text: str, step: int, what: str) -> str:
    """A button that moves the slider by ``step`` positions."""
    return (
        f'<button type="button" title="{what}" onclick={quoteattr(_STEP.format(step=step))} '
        f'style="font:inherit;padding:0 0.5em">{text}</button>'
    )


def _to_move(game: Game, position: Any) -> str:
    """Who moves in ``position``, or how the game ended."""
    if position.is_game_over():
        return "game over: " + game.describe_end(position)
    return f"{game.side_names[position.turn]} to move"
