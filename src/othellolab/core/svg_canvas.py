"""How a drawing of ``core.svg`` looks: the board's layout (squares, frame, coordinates, hands,
legend) and each thing painted on it, in the web board's look (``ui/web/static/style.css``):
a green board with shaded discs framed in wood, animal shogi's tiles with their step dots and
its hands, orange marks of the last move, the policy's yellow heat.

``Canvas`` paints what ``core.svg.board`` has read and checked; it knows the two kinds of
drawing a game's ``board_view`` can ask for (``discs`` and ``pieces``) and no game.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any
from xml.sax.saxutils import escape, quoteattr

import numpy as np

CELL = 50.0
"""A square's side in the drawing's own units (its ``viewBox``); ``size`` scales the whole."""
_GAP = 2.0  # the grid lines between squares
_PAD = 2.0  # the grid line around them
_BORDER = 6.0  # the wooden frame
_MARGIN = 20.0  # room for the coordinates

# The web board's colours (ui/web/static/style.css), so that both boards look alike.
_GREEN = "#1e7a46"
_LINE = "#0d3f22"
_FRAME = "#3b2a1a"
ACCENT = "#d9480f"
_COORD = "#44524a"
_SHOGI_SQUARE = "#e8cf9a"
_SHOGI_LINE = "#6b4a2b"
_HAND = "#d9c08c"
_HEAT = {1: "rgb(255,196,0)", -1: "rgb(51,154,240)"}
"""Heat of a positive value (the web board's policy yellow) and of a negative one (blue)."""

_STEPS = {
    "L": ((-1, -1), (0, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (0, 1), (1, 1)),
    "G": ((0, -1), (-1, 0), (1, 0), (0, 1)),
    "E": ((-1, -1), (1, -1), (-1, 1), (1, 1)),
    "C": ((0, -1),),
    "H": ((-1, -1), (0, -1), (1, -1), (-1, 0), (1, 0), (0, 1)),
}
"""Where each shogi-like piece steps (right, down from its owner's side): the dots on a tile."""
_PIECE_FILL = {"L": "#f6b26b", "G": "#c9a6e0", "E": "#9fc5e8", "C": "#d9ead3", "H": "#f4a6c8"}


def short(x: float) -> str:
    """A coordinate as short text (``12``, ``12.5``)."""
    return f"{x:.2f}".rstrip("0").rstrip(".")


def text_card(text: str) -> tuple[float, float, list[str]]:
    """A game without a drawing of its own: its text on a white card."""
    lines = text.splitlines() or [""]
    width = 20 + 8.5 * max(len(line) for line in lines)
    height = 20 + 18 * len(lines)
    parts = [f'<rect width="{short(width)}" height="{short(height)}" rx="6" fill="#fff"/>']
    for i, line in enumerate(lines):
        parts.append(
            f'<text x="10" y="{short(24 + 18 * i)}" font-family="ui-monospace, monospace" '
            f'font-size="14" fill="#1d1d1b" xml:space="preserve">{escape(line)}</text>'
        )
    return width, height, parts


class Canvas:
    """One board being painted: its layout and the SVG elements in painting order (``parts``);
    ``width`` and ``height`` are the drawing's size in its own units."""

    def __init__(
        self, view: Mapping[str, Any], side_names: Sequence[str], *, flipped: bool,
        coordinates: bool,
    ) -> None:  # fmt: skip
        self.view = view
        self.side_names = side_names
        self.rows, self.cols = int(view["rows"]), int(view["cols"])
        self.names = [str(s) for s in view["squares"]]
        self.pieces = view["kind"] == "pieces"
        self.flipped = flipped
        self.margin = _MARGIN if coordinates else 0.0
        self.hand_height = CELL * 0.75 + 16 if self.pieces else 0.0
        self.board_width = 2 * (_BORDER + _PAD) + self.cols * CELL + (self.cols - 1) * _GAP
        self.board_height = 2 * (_BORDER + _PAD) + self.rows * CELL + (self.rows - 1) * _GAP
        self.left = self.margin
        self.top = self.margin + (self.hand_height + 6 if self.pieces else 0.0)
        self.width = self.left + self.board_width + 2
        self.height = self.top + self.board_height + (self.hand_height + 6 if self.pieces else 0)
        self.parts: list[str] = []

    # geometry --------------------------------------------------------------------------------

    def corner(self, i: int) -> tuple[float, float]:
        """The top-left corner of square ``i`` (an index into the view's squares)."""
        r, c = divmod(i, self.cols)
        if self.flipped:
            r, c = self.rows - 1 - r, self.cols - 1 - c
        step = CELL + _GAP
        return (self.left + _BORDER + _PAD + c * step, self.top + _BORDER + _PAD + r * step)

    def centre(self, i: int) -> tuple[float, float]:
        """The centre of square ``i``."""
        x, y = self.corner(i)
        return x + CELL / 2, y + CELL / 2

    # the board and what stands on it ----------------------------------------------------

    def board(self) -> None:
        """The frame and the squares: one field of the squares' colour, ruled by grid lines."""
        self.parts.append(self.defs())
        self.frame()
        x0, y0 = self.corner(0) if not self.flipped else self.corner(len(self.names) - 1)
        width = self.cols * CELL + (self.cols - 1) * _GAP
        height = self.rows * CELL + (self.rows - 1) * _GAP
        fill = _SHOGI_SQUARE if self.pieces else _GREEN
        line = _SHOGI_LINE if self.pieces else _LINE
        rules = [
            f"M{short(x0 + k * (CELL + _GAP) - _GAP / 2)} {short(y0)}v{short(height)}"
            for k in range(1, self.cols)
        ]
        rules += [
            f"M{short(x0)} {short(y0 + k * (CELL + _GAP) - _GAP / 2)}h{short(width)}"
            for k in range(1, self.rows)
        ]
        self.parts.append(
            f'<rect x="{short(x0)}" y="{short(y0)}" width="{short(width)}" height="{short(height)}" '
            f'fill="{fill}"/><path d="{"".join(rules)}" stroke="{line}" '
            f'stroke-width="{short(_GAP)}"/>'
        )

    def men(self) -> None:
        """The discs or pieces standing on the squares."""
        for i, cell in enumerate(self.view["cells"]):
            if cell:
                self.piece(i, cell) if self.pieces else self.disc(i, cell)

    def defs(self) -> str:
        """The two discs, drawn once and placed on their squares by reference: the web
        board's radial shading and drop shadow."""
        if self.pieces:
            return ""
        stops = {
            "black": (("0", "#555"), ("0.45", "#111"), ("1", "#000")),
            "white": (("0", "#fff"), ("0.45", "#f1f1ee"), ("1", "#c9c9c3")),
        }
        r = short(CELL * 0.41)
        out = ["<defs>"]
        for name, colours in stops.items():
            out.append(f'<radialGradient id="@ID@-{name}-shade" cx="0.35" cy="0.3" r="0.75">')
            out += [f'<stop offset="{o}" stop-color="{c}"/>' for o, c in colours]
            out.append("</radialGradient>")
            out.append(
                f'<g id="@ID@-{name}"><circle cy="2" r="{r}" fill="#000" opacity="0.35"/>'
                f'<circle r="{r}" fill="url(#@ID@-{name}-shade)"/></g>'
            )
        out.append("</defs>")
        return "".join(out)

    def frame(self) -> None:
        """The board's wooden frame with its shadow, and the grid lines' colour inside it."""
        wood = _SHOGI_LINE if self.pieces else _FRAME
        line = _SHOGI_LINE if self.pieces else _LINE
        x, y, w, h = self.left, self.top, self.board_width, self.board_height
        self.parts.append(
            f'<rect x="{short(x + 1)}" y="{short(y + 4)}" width="{short(w)}" height="{short(h)}" rx="6" '
            f'fill="#000" opacity="0.2"/>'
            f'<rect x="{short(x)}" y="{short(y)}" width="{short(w)}" height="{short(h)}" rx="6" '
            f'fill="{wood}"/>'
            f'<rect x="{short(x + _BORDER)}" y="{short(y + _BORDER)}" width="{short(w - 2 * _BORDER)}" '
            f'height="{short(h - 2 * _BORDER)}" fill="{line}"/>'
        )

    # pieces ----------------------------------------------------------------------------------

    def disc(self, i: int, cell: int) -> None:
        """A disc of the view's colour ``cell`` (1 black, 2 white) on square ``i``."""
        colour = "black" if cell == 1 else "white"
        cx, cy = self.centre(i)
        self.parts.append(
            f'<use class="disc {colour}" data-square={quoteattr(self.names[i])} '
            f'href="#@ID@-{colour}" x="{short(cx)}" y="{short(cy)}"/>'
        )

    def piece(self, i: int, cell: Mapping[str, Any]) -> None:
        """The piece ``cell`` of the view (``letter``, ``name``, ``side``) on square ``i``."""
        x, y = self.corner(i)
        upside_down = (cell.get("side") == 1) != self.flipped
        self.parts.append(
            self.tile(
                x + CELL * 0.06, y + CELL * 0.06, CELL * 0.88, str(cell["letter"]),
                str(cell.get("name", cell["letter"])), upside_down, self.names[i],
            )
        )  # fmt: skip

    def tile(
        self, x: float, y: float, side: float, letter: str, name: str, upside_down: bool,
        square: str | None,
    ) -> str:  # fmt: skip
        """A shogi-like piece as the web board draws it, in a 100-unit box scaled to ``side``:
        its tile, the dots of its steps, its letter and name; the opponent's turned round."""
        k = side / 100
        where = "" if square is None else f" data-square={quoteattr(square)}"
        out = [
            f'<g class="piece" data-piece={quoteattr(letter)}{where} '
            f'transform="translate({short(x)} {short(y)}) scale({k:.4f})">'
            f"<title>{escape(name)}</title>"
            '<rect x="9" y="11" width="86" height="86" rx="12" fill="#000" opacity="0.25"/>'
        ]
        out.append('<g transform="rotate(180 50 50)">' if upside_down else "<g>")
        promoted = letter == "H"
        out.append(
            f'<rect x="7" y="7" width="86" height="86" rx="12" '
            f'fill="{_PIECE_FILL.get(letter, "#eee")}" '
            f'stroke="{"#b03070" if promoted else "#5b4630"}" '
            f'stroke-width="{5 if promoted else 3}"/>'
        )
        for dx, dy in _STEPS.get(letter, ()):
            out.append(f'<circle cx="{50 + dx * 33}" cy="{50 + dy * 33}" r="5.5" fill="#b22222"/>')
        font = 'font-family="system-ui, sans-serif" text-anchor="middle" fill="#2b1d0e"'
        out.append(
            f'<text x="50" y="56" {font} font-size="30" font-weight="700">{escape(letter)}</text>'
            f'<text x="50" y="76" {font} font-size="12" font-weight="600">{escape(name)}</text>'
        )
        out.append("</g></g>")
        return "".join(out)

    def hands(self) -> None:
        """Each side's hand beside the board: the second player's above, the first's below
        (swapped when flipped), as on the web board."""
        hands = self.view.get("hands") or [{}, {}]
        names = self.view.get("pieces", {})
        sides = (1, 0) if not self.flipped else (0, 1)
        for slot, side in enumerate(sides):
            y = self.margin if slot == 0 else self.top + self.board_height + 6
            x = self.left
            label = f"{self.side_names[side]}'s hand"
            self.parts.append(
                f'<rect class="hand" x="{short(x)}" y="{short(y)}" width="{short(self.board_width)}" '
                f'height="{short(self.hand_height)}" rx="6" fill="{_HAND}"/>'
                f'<text x="{short(x + 6)}" y="{short(y + 12)}" font-family="system-ui, sans-serif" '
                f'font-size="10" font-weight="700" fill="#4a3520">{escape(label)}</text>'
            )
            tile = CELL * 0.7
            px = x + 6
            shown = [(str(k), int(v)) for k, v in hands[side].items() if v]
            if not shown:
                self.parts.append(
                    f'<text x="{short(px)}" y="{short(y + 16 + tile / 2)}" font-family="system-ui, '
                    f'sans-serif" font-size="10" fill="#6b6b66">empty</text>'
                )
            for letter, count in shown:
                self.parts.append(
                    self.tile(
                        px, y + 14, tile, letter, str(names.get(letter, letter)),
                        slot == 0, None,
                    )
                )  # fmt: skip
                if count > 1:
                    self.parts.append(
                        f'<text class="hand-count" x="{short(px + tile)}" y="{short(y + 14 + tile)}" '
                        f'font-family="system-ui, sans-serif" font-size="11" font-weight="700" '
                        f'text-anchor="end" fill="#1d1d1b">\u00d7{count}</text>'
                    )
                px += tile + 6

    # marks -----------------------------------------------------------------------------------

    def coords(self) -> None:
        """Column letters above the board and row numbers to its left, from the squares'
        names (``a1``: column ``a``, row ``1``)."""
        font = (
            f'font-family="system-ui, sans-serif" font-size="13" font-weight="600" '
            f'fill="{_COORD}" text-anchor="middle"'
        )
        for c in range(self.cols):
            label = self.names[c].rstrip("0123456789")
            x, _ = self.centre(c)
            self.parts.append(
                f'<text class="coord" x="{short(x)}" y="{short(self.margin - 6)}" {font}>'
                f"{escape(label)}</text>"
            )
        for r in range(self.rows):
            label = self.names[r * self.cols].lstrip("abcdefghijklmnopqrstuvwxyz")
            _, y = self.centre(r * self.cols)
            self.parts.append(
                f'<text class="coord" x="{short(self.margin / 2)}" y="{short(y + 5)}" {font}>'
                f"{escape(label)}</text>"
            )

    # values ----------------------------------------------------------------------------------

    # marks ------------------------------------------------------------------------------

    def legal(self, targets: set[int]) -> None:
        """A dot on each of the ``targets`` squares that a legal move reaches: the web board's
        dark dot on Othello, its green target dot on a pieces board."""
        for i in sorted(targets):
            cx, cy = self.centre(i)
            name = quoteattr(self.names[i])
            if self.pieces:
                self.parts.append(
                    f'<circle class="legal" data-square={name} cx="{short(cx)}" cy="{short(cy)}" '
                    f'r="{short(CELL * 0.13)}" fill="rgb(30,122,70)" fill-opacity="0.75" '
                    f'stroke="#fff" stroke-width="2"/>'
                )
            else:
                self.parts.append(
                    f'<circle class="legal" data-square={name} cx="{short(cx)}" cy="{short(cy)}" '
                    f'r="{short(CELL * 0.11)}" fill="#000" fill-opacity="0.32"/>'
                )

    def last(self, frm: int | None, to: int | None) -> None:
        """The web board's marks of the last move: an orange frame on the square it reached
        (and a fainter one on the square a piece left), and a dot on a placed disc."""
        for i, strong in ((frm, False), (to, True)):
            if i is None:
                continue
            x, y = self.corner(i)
            width = 3.0 if self.pieces else 2.0
            opacity = 0.9 if strong else 0.45
            self.parts.append(
                f'<rect class="{"last" if strong else "last-from"}" '
                f'data-square={quoteattr(self.names[i])} x="{short(x + width / 2)}" '
                f'y="{short(y + width / 2)}" width="{short(CELL - width)}" height="{short(CELL - width)}" '
                f'fill="none" stroke="{ACCENT}" stroke-opacity="{opacity}" '
                f'stroke-width="{short(width)}"/>'
            )
        if to is not None and not self.pieces:
            cx, cy = self.centre(to)
            self.parts.append(
                f'<circle cx="{short(cx)}" cy="{short(cy)}" r="{short(CELL * 0.08)}" fill="{ACCENT}" '
                f'stroke="#fff" stroke-opacity="0.7" stroke-width="2"/>'
            )

    def arrow(self, tail: int, head: int, colour: str) -> None:
        """A thick arrow between square centres (python-chess's style), or a ring when the
        tail is the head."""
        x1, y1 = self.centre(tail)
        x2, y2 = self.centre(head)
        attrs = f'class="arrow" data-from={quoteattr(self.names[tail])} '
        attrs += f"data-to={quoteattr(self.names[head])}"
        if tail == head:
            self.parts.append(
                f'<circle {attrs} cx="{short(x1)}" cy="{short(y1)}" r="{short(CELL * 0.42)}" '
                f'fill="none" stroke="{colour}" stroke-opacity="0.8" '
                f'stroke-width="{short(CELL * 0.08)}"/>'
            )
            return
        length = math.hypot(x2 - x1, y2 - y1)
        ux, uy = (x2 - x1) / length, (y2 - y1) / length
        head_length, head_width, shaft = CELL * 0.4, CELL * 0.36, CELL * 0.15
        bx, by = x2 - ux * head_length, y2 - uy * head_length  # the base of the head
        px, py = -uy, ux
        points = [
            (x1 + px * shaft / 2, y1 + py * shaft / 2),
            (bx + px * shaft / 2, by + py * shaft / 2),
            (bx + px * head_width / 2, by + py * head_width / 2),
            (x2, y2),
            (bx - px * head_width / 2, by - py * head_width / 2),
            (bx - px * shaft / 2, by - py * shaft / 2),
            (x1 - px * shaft / 2, y1 - py * shaft / 2),
        ]
        text = " ".join(f"{short(x)},{short(y)}" for x, y in points)
        self.parts.append(f'<polygon {attrs} points="{text}" fill="{colour}" fill-opacity="0.75"/>')

    def heat_of(self, v: float, scale: float) -> tuple[str, float]:
        """The colour and opacity of value ``v`` on a scale of ``scale`` (the largest
        magnitude drawn), as the web board shades its policy."""
        return _HEAT[1 if v >= 0 else -1], 0.15 + 0.65 * min(abs(v) / scale, 1.0)

    def scale(self, heat: np.ndarray) -> float:
        """The largest magnitude among the values (1 when there is none but zeros)."""
        finite = np.abs(heat[~np.isnan(heat)])
        return float(finite.max()) if finite.size and finite.max() > 0 else 1.0

    def heat(self, heat: np.ndarray) -> None:
        """Each square with a value shaded by it, under the discs and pieces."""
        scale = self.scale(heat)
        for i, v in enumerate(heat):
            if np.isnan(v) or v == 0:
                continue
            x, y = self.corner(i)
            colour, opacity = self.heat_of(float(v), scale)
            self.parts.append(
                f'<rect class="heat" data-square={quoteattr(self.names[i])} x="{short(x)}" '
                f'y="{short(y)}" width="{short(CELL)}" height="{short(CELL)}" fill="{colour}" '
                f'fill-opacity="{opacity:.3f}"/>'
            )

    def heat_labels(self, heat: np.ndarray, fmt: Any) -> None:
        """Each value written in its square's corner, over the discs and pieces."""
        for i, v in enumerate(heat):
            text = "" if np.isnan(v) else fmt(float(v))
            if text:
                x, y = self.corner(i)
                name = quoteattr(self.names[i])
                self.parts.append(self.value_text(x + CELL - 3, y + CELL - 4, text, name))

    @staticmethod
    def value_text(x: float, y: float, text: str, name: str) -> str:
        """A value written on the board: pale bold text with a dark outline, readable on any
        square, disc or piece (the web board's heat labels)."""
        return (
            f'<text class="heat-label" data-square={name} x="{short(x)}" y="{short(y)}" '
            f'font-family="system-ui, sans-serif" font-size="11" font-weight="700" '
            f'text-anchor="end" fill="#fff8d6" stroke="#000" stroke-width="2" '
            f'stroke-opacity="0.8" paint-order="stroke">{escape(text)}</text>'
        )

    def legend(self, heat: np.ndarray, fmt: Any) -> None:
        """Five swatches below the board, each with its value, from zero (minus the largest
        magnitude when some values are negative) to the largest magnitude: the heat's scale."""
        scale = self.scale(heat)
        finite = heat[~np.isnan(heat)]
        low = -scale if finite.size and finite.min() < 0 else 0.0
        marks = [low + (scale - low) * k / 4 for k in range(5)]
        swatch, y = CELL * 0.5, self.height + 6
        step = (self.board_width - swatch) / 4
        background = _SHOGI_SQUARE if self.pieces else _GREEN
        write = fmt or (lambda v: f"{v:+.3g}")
        self.parts.append('<g class="legend">')
        for k, v in enumerate(marks):
            x = self.left + k * step
            colour, opacity = self.heat_of(v, scale)
            self.parts.append(
                f'<rect x="{short(x)}" y="{short(y)}" width="{short(swatch)}" height="{short(swatch)}" '
                f'fill="{background}"/>'
            )
            if v != 0:
                self.parts.append(
                    f'<rect x="{short(x)}" y="{short(y)}" width="{short(swatch)}" height="{short(swatch)}" '
                    f'fill="{colour}" fill-opacity="{opacity:.3f}"/>'
                )
            label = write(v) or "0%"
            self.parts.append(
                f'<text x="{short(x + swatch / 2)}" y="{short(y + swatch + 13)}" '
                f'font-family="system-ui, sans-serif" font-size="11" fill="{_COORD}" '
                f'text-anchor="middle">{escape(label)}</text>'
            )
        self.parts.append("</g>")
        self.height = y + swatch + 18
