"""Positions drawn as SVG for notebooks, documentation and reports (like python-chess's
``chess.svg``).

``board(position, ...)`` draws a position of any game from what the game says to draw,
``Game.board_view`` (the description the web board draws: ``discs`` for Othello, ``pieces``
and hands for animal shogi, ``text`` for a game without a drawing of its own) and
``Game.move_parts`` (where a move acts), so no game is named here and a new game draws itself
through those two methods. The look is the web board's (``ui/web/static/style.css``): a green
board with shaded discs framed in wood, animal shogi's tiles with their step dots. On top of the
position it marks the last move, the legal moves, coordinates, a value per square (a heat map of
a policy or of scores, the values written on the squares and a legend) and arrows.

>>> from othellolab.core import Board
>>> picture = board(Board(), arrows=[("d3", "d5")], size=240)
>>> picture.startswith("<svg") and picture.count('class="legal"')
4

``Board`` and ``AnimalShogi`` draw themselves in Jupyter through ``_repr_svg_``, which calls
``board``; ``core.viewer`` strings the drawings of a game together into a page with a slider.
The module lives in ``core`` so that those classes, and ``records`` above them, can draw
without importing a higher layer.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any
from xml.sax.saxutils import escape

import numpy as np

from othellolab.core.errors import ConfigError
from othellolab.core.games import Game, position_game
from othellolab.core.svg_canvas import ACCENT, Canvas, short, text_card

__all__ = ["SIZE_RANGE", "Arrow", "board"]

SIZE_RANGE = (32.0, 4096.0)
"""The width in pixels that ``size`` may ask for (inclusive)."""

_WHERE = "svg.board"
_COLOUR_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789#(),.% ")
"""What a colour given to an arrow may be written with (it goes into an attribute)."""


@dataclass(frozen=True)
class Arrow:
    """An arrow from ``tail`` to ``head``: square names (``"d3"``) or indices into the squares
    of the game's ``board_view``, in ``color`` (a CSS colour: ``#d9480f``, ``green``,
    ``rgba(0,0,0,0.5)``). An arrow whose tail is its head rings that square."""

    tail: int | str
    head: int | str
    color: str = ACCENT


def board(
    position: Any,
    *,
    last: Any = None,
    legal: bool = True,
    coordinates: bool = True,
    values: Any = None,
    labels: bool = True,
    value_format: str | None = None,
    legend: bool = True,
    arrows: Iterable[Arrow | tuple[int | str, int | str]] = (),
    size: float | None = None,
    flipped: bool = False,
    game: Game | None = None,
    inline: bool = False,
) -> str:
    """``position`` drawn as an SVG document (a string).

    - ``last``: where the last move acted: a square (name or index), a ``(from, to)`` pair
      (either may be ``None``), or the dict of ``Game.move_parts``; ``None``: not marked.
    - ``legal``: mark the squares the side to move can move to (Othello: a dot on each legal
      square; animal shogi: a dot on each destination of a move or drop).
    - ``coordinates``: column letters above and row numbers beside the board.
    - ``values``: a value per square drawn as a heat map (yellow for positive, blue for
      negative, stronger for larger magnitudes): an array of shape ``(rows, cols)`` or
      ``(rows * cols,)`` in the order of the game's squares, a mapping from square to value,
      or a policy over the game's ``n_actions`` (summed over each legal move's destination
      square, as the web board does). NaN leaves a square blank; infinities are refused.
      ``labels`` writes each value on its square (``value_format``: a format spec such as
      ``".0%"`` or ``"+.1f"``; by default percentages for values in [0, 1], else signed
      numbers), ``legend`` adds a scale below the board.
    - ``arrows``: ``Arrow`` objects or ``(from, to)`` pairs of squares.
    - ``size``: the drawing's width in pixels, in ``SIZE_RANGE``; ``None``: its natural size
      (50 pixels a square).
    - ``flipped``: the board turned round (the second player's view).
    - ``game``: the game of ``position`` when it cannot be told from the position itself.
    - ``inline``: leave out the ``xmlns`` attribute, which an SVG written into an HTML page
      does not need (``core.viewer``'s pages then hold no http address at all).

    A bad option raises ``ConfigError`` naming it.
    """
    return _draw(
        position, last=last, legal=legal, coordinates=coordinates, values=values,
        labels=labels, value_format=value_format, legend=legend, arrows=arrows, size=size,
        flipped=flipped, game=game, inline=inline,
    )  # fmt: skip


def check_size(size: Any, *, where: str = _WHERE) -> float | None:
    """``size`` as a width in pixels (``None`` kept), or a ``ConfigError`` naming the option."""
    if size is None:
        return None
    low, high = SIZE_RANGE
    if (
        isinstance(size, bool)
        or not isinstance(size, int | float | np.integer | np.floating)
        or not math.isfinite(size)
        or not low <= size <= high
    ):
        raise ConfigError(
            f"must be a finite number of pixels in [{low:g}, {high:g}], got {size!r}",
            where=where,
            option="size",
        )
    return float(size)


def check_flag(value: Any, option: str, *, where: str = _WHERE) -> bool:
    """``value`` as a bool, or a ``ConfigError`` naming ``option``."""
    if not isinstance(value, bool | np.bool_):
        raise ConfigError(f"must be true or false, got {value!r}", where=where, option=option)
    return bool(value)


def _draw(position: Any, *, game: Game | None, **options: Any) -> str:
    """``board``'s drawing, its options checked first."""
    if game is None:
        game = position_game(position)
    size = check_size(options["size"])
    flags = {k: check_flag(options[k], k) for k in ("legal", "coordinates", "labels", "legend")}
    flipped = check_flag(options["flipped"], "flipped")
    inline = check_flag(options["inline"], "inline")
    view = game.board_view(position)
    if view["kind"] in ("discs", "pieces"):
        canvas = Canvas(view, game.side_names, flipped=flipped, coordinates=flags["coordinates"])
        _Reader(game, position, canvas.names).paint(canvas, flags, options)
        width, height, body = canvas.width, canvas.height, canvas.parts
    else:
        for option in ("last", "values", "arrows"):
            if options[option] is not None and (option != "arrows" or list(options[option])):
                raise ConfigError(
                    f"{game.label} is drawn as text, without squares to mark",
                    where=_WHERE, option=option,
                )  # fmt: skip
        width, height, body = text_card(str(view.get("text", position)))
    shown = (width, height) if size is None else (size, size * height / width)
    head = "<svg" if inline else '<svg xmlns="http://www.w3.org/2000/svg"'
    head += (
        f' viewBox="0 0 {short(width)} {short(height)}" width="{short(shown[0])}"'
        f' height="{short(shown[1])}" role="img">'
    )
    title = f"<title>{escape(str(position))}</title>"
    svg = "".join([head, title, *body, "</svg>"])
    # Gradient ids unique to the drawing, yet the same for the same drawing: several boards
    # on one page (a notebook, the game viewer) never take each other's definitions.
    digest = hashlib.sha1(svg.encode()).hexdigest()[:10]
    return svg.replace("@ID@", f"ol{digest}")


class _Reader:
    """The options of ``board`` read against one position's squares and checked, each error
    naming its option; ``paint`` then puts them on a ``Canvas`` in painting order."""

    def __init__(self, game: Game, position: Any, names: list[str]) -> None:
        self.game, self.position, self.names = game, position, names
        self.index = {name.lower(): i for i, name in enumerate(names)}
        self.rows, self.cols = game.rows, game.cols

    def paint(self, canvas: Canvas, flags: dict[str, bool], options: dict[str, Any]) -> None:
        """Every option read and checked first, then painted: the board, the heat, the discs
        or pieces, the legal moves, the last move, the arrows, coordinates, hands, legend."""
        self.rows, self.cols = canvas.rows, canvas.cols
        last = self.last_squares(options["last"])
        heat = self.values(options["values"])
        fmt = self.formatter(heat, options["value_format"])
        scale_fmt = fmt if options["value_format"] is not None else self.scale_formatter(heat)
        arrows = self.arrows(options["arrows"])
        canvas.board()
        if heat is not None:
            canvas.heat(heat)
        canvas.men()
        if flags["legal"]:
            canvas.legal(self.legal_targets())
        if heat is not None and flags["labels"]:
            canvas.heat_labels(heat, fmt)
        canvas.last(*last)
        for arrow in arrows:
            canvas.arrow(*arrow)
        if flags["coordinates"]:
            canvas.coords()
        if canvas.pieces:
            canvas.hands()
        if heat is not None and flags["legend"]:
            canvas.legend(heat, scale_fmt)

    def legal_targets(self) -> set[int]:
        """The squares the legal moves reach (a placing move's square, a moving piece's or a
        drop's destination), from the game's ``move_parts``."""
        p, o = self.position.state
        targets: set[int] = set()
        for action in self.game.legal_actions(p, o):
            to = self.game.move_parts(self.position, action).get("to")
            if to is not None:
                targets.add(self.square(to, "legal"))
        return targets

    def square(self, s: Any, option: str) -> int:
        """Square ``s`` (a name or an index into the view's squares) as an index."""
        if isinstance(s, str) and s.strip().lower() in self.index:
            return self.index[s.strip().lower()]
        if isinstance(s, int | np.integer) and not isinstance(s, bool) and 0 <= s < len(self.names):
            return int(s)
        raise ConfigError(
            f"unknown square {s!r}; the squares are {self.names[0]}..{self.names[-1]}",
            where=_WHERE,
            option=option,
        )

    def last_squares(self, last: Any) -> tuple[int | None, int | None]:
        """``(from, to)`` of the ``last`` option as square indices (``None`` where absent)."""
        if last is None:
            return None, None
        if isinstance(last, Mapping):
            pair = (last.get("from"), last.get("to"))
        elif isinstance(last, tuple | list):
            if len(last) != 2:
                raise ConfigError(
                    f"must be a square, a (from, to) pair or a move's parts, got {last!r}",
                    where=_WHERE,
                    option="last",
                )
            pair = (last[0], last[1])
        else:
            pair = (None, last)
        frm, to = (None if s is None else self.square(s, "last") for s in pair)
        return frm, to

    def arrows(self, arrows: Any) -> list[tuple[int, int, str]]:
        """The ``arrows`` option checked: ``(tail, head, colour)`` each."""
        if isinstance(arrows, str | bytes) or not isinstance(arrows, Iterable):
            raise ConfigError(
                f"must be a list of Arrow or (from, to) pairs, got {arrows!r}",
                where=_WHERE,
                option="arrows",
            )
        out = []
        for item in arrows:
            if isinstance(item, Arrow):
                tail, head, colour = item.tail, item.head, item.color
            elif isinstance(item, tuple | list) and len(item) == 2:
                (tail, head), colour = item, ACCENT
            else:
                raise ConfigError(
                    f"each arrow must be an Arrow or a (from, to) pair, got {item!r}",
                    where=_WHERE,
                    option="arrows",
                )
            if not isinstance(colour, str) or not colour or not set(colour) <= _COLOUR_CHARS:
                raise ConfigError(
                    f"an arrow's colour must be a CSS colour such as '#d9480f' or 'green', "
                    f"got {colour!r}",
                    where=_WHERE,
                    option="arrows",
                )
            out.append((self.square(tail, "arrows"), self.square(head, "arrows"), colour))
        return out

    def values(self, values: Any) -> np.ndarray | None:
        """The ``values`` option as one float per square (NaN: none), checked."""
        if values is None:
            return None
        n = len(self.names)
        out = np.full(n, np.nan)
        if isinstance(values, Mapping):
            for key, value in values.items():
                out[self.square(key, "values")] = self.number(value)
            return self.checked(out)
        try:
            array = np.asarray(values, dtype=np.float64)
        except (TypeError, ValueError):
            raise ConfigError(
                f"must be an array of numbers or a mapping from square to number, got "
                f"{type(values).__name__}",
                where=_WHERE,
                option="values",
            ) from None
        n_actions = int(self.game.n_actions)
        if array.shape in ((self.rows, self.cols), (n,)):
            return self.checked(array.reshape(n).copy())
        if array.shape == (n_actions,):
            self.checked(array)
            p, o = self.position.state
            for action in self.game.legal_actions(p, o):
                to = self.game.move_parts(self.position, action).get("to")
                if to is None or np.isnan(array[action]):
                    continue
                i = self.square(to, "values")
                out[i] = array[action] if np.isnan(out[i]) else out[i] + array[action]
            return out
        raise ConfigError(
            f"has shape {array.shape}; expected ({self.rows}, {self.cols}) or ({n},), one value "
            f"per square, or ({n_actions},), a policy",
            where=_WHERE,
            option="values",
        )

    @staticmethod
    def number(value: Any) -> float:
        """One value of a mapping given as ``values``, as a float."""
        try:
            return float(value)
        except (TypeError, ValueError):
            raise ConfigError(
                f"must be a number, got {value!r}", where=_WHERE, option="values"
            ) from None

    @staticmethod
    def checked(array: np.ndarray) -> np.ndarray:
        """``array`` itself, once it holds no infinity (NaN is allowed: no value)."""
        if np.isinf(array).any():
            raise ConfigError(
                "must be finite (NaN leaves a square blank), got an infinity",
                where=_WHERE,
                option="values",
            )
        return array

    def formatter(self, heat: np.ndarray | None, value_format: Any) -> Any:
        """How a value is written: ``value_format``'s spec, or by default a percentage for
        values in [0, 1] (a policy; those under 0.5% left out, as on the web board), else a
        signed number."""
        if value_format is not None:
            if not isinstance(value_format, str):
                raise ConfigError(
                    f"must be a format spec such as '.0%' or '+.1f', got {value_format!r}",
                    where=_WHERE,
                    option="value_format",
                )
            try:
                format(0.5, value_format)
            except ValueError as e:
                raise ConfigError(
                    f"is not a format spec for numbers ({e}): {value_format!r}",
                    where=_WHERE,
                    option="value_format",
                ) from None
            return lambda v: format(v, value_format)
        if heat is None:
            return None
        finite = heat[~np.isnan(heat)]
        if finite.size and finite.min() >= 0 and finite.max() <= 1:
            return lambda v: f"{round(v * 100)}%" if v >= 0.005 else ""
        if finite.size and np.all(finite == np.round(finite)):
            return lambda v: f"{int(v):+d}" if v else "0"
        return lambda v: f"{v:+.3g}"

    @staticmethod
    def scale_formatter(heat: np.ndarray | None) -> Any:
        """How the legend writes its marks by default: percentages for values in [0, 1], else
        signed numbers (the marks fall between the values drawn, so not always on integers)."""
        finite = np.array([]) if heat is None else heat[~np.isnan(heat)]
        if finite.size and finite.min() >= 0 and finite.max() <= 1:
            return lambda v: f"{round(v * 100)}%"
        return lambda v: f"{v:+.3g}" if v else "0"
