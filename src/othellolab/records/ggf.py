"""GGF (Generic Game Format of the GGS server): 8x8, 6x6 and 4x4 games, any start board.

A game is ``(;`` ... ``;)`` holding ``KEY[value]`` properties (``PROPERTIES``); moves are
``B[f5/eval/time]`` and ``W[...]``, a pass ``PA`` or ``pass``. Files may put a match's game
count before a game (``1 (;GM[Othello]...;)``). ``RE`` is black's disc difference, possibly
with a suffix such as ``:r`` (resigned); in a komi game (``KM``) it is the disc difference minus
the komi. Properties the reader does not know are kept in the headers under their own key.

Numbers are ASCII digits (``core.parsing``): the board size of ``TY`` and ``BO`` is 8, 6 or 4,
``KM`` a decimal within ``-MAX_KOMI..MAX_KOMI``, and ``RE`` plus ``KM`` a disc difference within
the board's ``-size*size..size*size``. A property value holds at most ``MAX_VALUE_LENGTH``
characters. Any other value is a ``GgfError`` naming the file, the game and the property.

>>> game = next(parse_ggf("(;GM[Othello]PB[a]PW[b]TY[4]RE[-2]BO[4 ---- -O*- -*O- ---- *]"
...                       "B[a2]W[a1];)"))
>>> game.headers["black"], game.size, game.transcript(), game.recorded_score
('a', 4, 'a2a1', -2)
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from othellolab.core import BLACK, SIZES, WHITE, Board, OthelloError, parse_move, square_name
from othellolab.core.parsing import NumberError, clip, parse_decimal, parse_int
from othellolab.records._stream import build_game, deliver, text_blocks, write_lines
from othellolab.records.game import GameRecord
from othellolab.records.report import ReadReport, RecordError

PROPERTIES: dict[str, tuple[str | None, str]] = {
    "GM": (None, "game name; must be Othello"),
    "PC": ("place", "place (server)"),
    "DT": ("date", "date"),
    "PB": ("black", "black player"),
    "PW": ("white", "white player"),
    "RB": ("black_rating", "black's rating"),
    "RW": ("white_rating", "white's rating"),
    "TI": ("time_control", "clock"),
    "TY": ("type", "game type: board size, then flags (k komi, r random start)"),
    "KM": ("komi", "komi"),
    "RE": ("result", "black's disc difference (minus komi), optional :suffix"),
    "BO": (None, "start board: size, rows, side to move"),
    "B": (None, "black move: square or PA/pass, then /eval/time"),
    "W": (None, "white move: square or PA/pass, then /eval/time"),
}
"""The properties the reader understands: key -> (header it fills, meaning)."""

WRITE_ORDER = ("PC", "DT", "PB", "PW", "RB", "RW", "TI", "TY", "KM", "RE")
"""Header properties in the order the writer puts them (after GM, before BO and the moves)."""

BOARD_CELLS = {"*": BLACK, "O": WHITE, "-": None}
"""Cells of ``BO``: black, white, empty; the side to move is ``*`` or ``O``."""

PASS_TOKENS = ("PA", "pass")
"""How a pass is written in a move property (the writer uses the first)."""

MAX_KOMI = 64
"""Largest komi (``KM``) in absolute value: a komi beyond the disc range means nothing."""

MAX_VALUE_LENGTH = 1 << 16
"""Longest property value in characters (a GGF game is a few kilobytes)."""

_HEADER_OF = {k: h for k, (h, _) in PROPERTIES.items() if h is not None}
_KEY_OF = {h: k for k, h in _HEADER_OF.items()}
_PROP = re.compile(r"\s*([A-Za-z]+)\[((?:\\.|[^\]\\])*)\]", re.S)
_OPEN_PROP = re.compile(r"([A-Za-z]+)\[")
_END = re.compile(r"\s*;\)")
_START = re.compile(r"\s*(?:[0-9]+\s*)?\(;")
_SPACE = re.compile(r"\s*")
_RESULT = re.compile(r"^\s*([+-]?[0-9]+(?:\.[0-9]*)?)\s*(?::\s*(\w+))?\s*$")
_SIZE = re.compile(r"[0-9]+")
_TYPE_NUMBER = re.compile(r"\d+")  # any Unicode digits: a non-ASCII size is an error, not a flag
_BLOCK = 1 << 20
_LOOKAHEAD = 2 * MAX_VALUE_LENGTH


class GgfError(RecordError):
    """A malformed GGF file; the message names the file, the game, the line and the move."""


def read_ggf(
    path: str | Path, *, lenient: bool = False, report: ReadReport | None = None
) -> Iterator[GameRecord]:
    """Stream the games of a GGF file (gzip read transparently) as checked ``GameRecord`` records.

    Headers: those of ``PROPERTIES``, unknown properties under their key, ``source``, ``game``
    (1-based) and ``line`` (where the game starts). Strict by default; ``lenient=True`` skips
    bad games and counts them in ``report``.
    """
    p = Path(path)
    return deliver(_items(_open_blocks(p), p), source=p, lenient=lenient, report=report)


def parse_ggf(text: str, *, source: str = "<string>") -> Iterator[GameRecord]:
    """The games of GGF text, strictly."""
    return deliver(_items(iter([text]), source), source=source, lenient=False, report=None)


def _open_blocks(p: Path) -> Iterator[str]:
    return text_blocks(p, encoding="latin-1", size=_BLOCK, error=GgfError)


def _items(blocks: Iterator[str], source: str | Path) -> Iterator[GameRecord | RecordError]:
    """Scan games out of text blocks; a syntax error ends the file (nothing after it is sure).

    The scanner keeps ``_LOOKAHEAD`` characters ahead of its position in its buffer (or the rest
    of the file), so that a property is matched whole even where it crosses a block boundary.
    """
    name = Path(source).name
    state = {"buf": "", "pos": 0, "line": 1}

    def fill() -> bool:
        block = next(blocks, None)
        if block is None:
            return False
        state["buf"] = state["buf"][state["pos"] :] + block
        state["pos"] = 0
        return True

    def advance(new_pos: int) -> None:
        state["line"] += state["buf"].count("\n", state["pos"], new_pos)
        state["pos"] = new_pos

    def skip_space() -> bool:
        """Step over white space, reading past the buffer's end; whether there was any. The
        patterns skip white space themselves: this is for a run longer than the lookahead."""
        skipped = False
        while True:
            pos = state["pos"]
            end = _SPACE.match(state["buf"], pos).end()  # type: ignore[union-attr]
            if end > pos:
                skipped = True
                advance(end)
            if end < len(state["buf"]) or not fill():
                return skipped

    def match(pattern: re.Pattern[str]) -> re.Match[str] | None:
        """Match with the lookahead (or the rest of the file) in the buffer."""
        if len(state["buf"]) - state["pos"] < _LOOKAHEAD:
            while len(state["buf"]) - state["pos"] < _LOOKAHEAD and fill():
                pass
        return pattern.match(state["buf"], state["pos"])

    def ahead() -> str:
        return state["buf"][state["pos"] : state["pos"] + 20]

    def syntax_error(message: str, game: int) -> GgfError:
        return GgfError(message, source=source, game=game, line=state["line"])

    number = 0
    while True:
        m = match(_START)
        if m is None:
            if skip_space():
                continue
            if ahead():
                yield syntax_error(f"expected '(;' to start a game, found {ahead()!r}", number + 1)
            return
        number += 1
        advance(state["buf"].index("(;", m.start()))
        start_line = state["line"]
        advance(m.end())
        props: list[tuple[str, str]] = []
        while True:
            end = match(_END)
            if end is not None:
                advance(end.end())
                break
            prop = match(_PROP)
            if prop is None or len(prop.group(2)) > MAX_VALUE_LENGTH:
                if skip_space() and prop is None:
                    continue
                key = _OPEN_PROP.match(state["buf"], state["pos"])
                rest = len(state["buf"]) - state["pos"]
                if key is not None and (prop is not None or rest >= _LOOKAHEAD):
                    message = (
                        f"property {key.group(1)[:20]}[...] is longer than {MAX_VALUE_LENGTH} "
                        "characters (or its ']' is missing)"
                    )
                elif key is not None:
                    message = f"truncated game (the file ends inside {key.group(1)[:20]}[...])"
                elif ahead():
                    message = f"expected a property KEY[value] or ';)', found {ahead()!r}"
                else:
                    message = "truncated game (the file ends before ';)')"
                yield syntax_error(message, number)
                return
            advance(prop.end())
            props.append((prop.group(1).upper(), _unescape(prop.group(2))))
        try:
            yield _game(props, source, number, start_line, name)
        except RecordError as e:
            yield e


def _unescape(value: str) -> str:
    return re.sub(r"\\(.)", r"\1", value) if "\\" in value else value


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace("]", "\\]")


def _game(
    props: list[tuple[str, str]], source: str | Path, number: int, line: int, name: str
) -> GameRecord:
    headers: dict[str, Any] = {}
    start: Board | None = None
    moves: list[tuple[str, str]] = []

    def err(message: str, move: int | None = None) -> GgfError:
        return GgfError(message, source=source, game=number, line=line, move=move)

    for key, value in props:
        if key in ("B", "W"):
            moves.append((key, value))
        elif key == "BO":
            start = _parse_board(value, err)
        elif key == "GM":
            if value.strip().lower() != "othello":
                raise err(f"GM[{clip(value)}]: not an Othello game")
        elif key in _HEADER_OF:
            headers[_HEADER_OF[key]] = value
        else:
            headers[key] = value
    type_size = _type_size(headers.get("type"), err)
    if start is None:
        start = Board(size=type_size or 8)
    elif type_size and type_size != start.size:
        raise err(
            f"TY[{clip(headers['type'])}] disagrees with the {start.size}x{start.size} BO board"
        )
    actions: list[str] = []
    for i, (colour, value) in enumerate(moves):
        to_move = "B" if start.turn ^ (i & 1) == BLACK else "W"
        token = value.split("/", 1)[0].strip()
        if colour != to_move:
            raise err(
                f"{colour}[{clip(value)}] but {'black' if to_move == 'B' else 'white'} is to move "
                "(GGF writes passes as PA)",
                move=i + 1,
            )
        actions.append("pass" if token.lower() in ("pa", "pass") else token)
    recorded = _recorded_score(headers, err, start.size)
    headers.update(source=name, game=number, line=line)
    game = build_game(
        actions, source=source, game=number, line=line, start=start, headers=headers,
        recorded_score=recorded, error=GgfError,
    )  # fmt: skip
    if len(game.moves) != len(actions):
        given = [parse_move(a, start.size) for a in actions]
        k = next(i for i, (a, b) in enumerate(zip(game.moves, given, strict=False)) if a != b)
        raise err("a forced pass is missing here (GGF writes passes as PA)", move=k + 1)
    return game


def _type_size(value: str | None, err: Any) -> int | None:
    """The board size that ``TY`` gives (its first number: ``8``, ``s8r20``), if any."""
    m = _TYPE_NUMBER.search(value) if value else None
    if m is None:
        return None
    return _board_size(m.group(), f"TY[{clip(value)}]", err)


def _board_size(text: str, field: str, err: Any) -> int:
    """A supported board size written as ASCII digits, else an error naming ``field``."""
    try:
        size = parse_int(text, lo=0, hi=99, what="board size")
    except NumberError as e:
        if _SIZE.fullmatch(text):  # digits, but too many of them
            raise err(f"{field}: board size {clip(text)} is not supported (8, 6 or 4)") from None
        raise err(f"{field}: {e.what}") from None
    if size not in SIZES:
        raise err(f"{field}: board size {size} is not supported (8, 6 or 4)")
    return size


def _parse_board(value: str, err: Any) -> Board:
    parts = value.split()
    if len(parts) < 3:
        raise err(f"BO[{clip(value)}]: expected a size, the rows and the side to move")
    size = _board_size(parts[0], f"BO[{clip(value, 20)}]", err)
    cells = "".join(parts[1:-1])
    side = parts[-1]
    if len(cells) != size * size:
        raise err(f"BO: {len(cells)} cells for a {size}x{size} board (expected {size * size})")
    black, white = [], []
    for i, c in enumerate(cells):
        if c not in BOARD_CELLS:
            raise err(
                f"BO: invalid cell {c!r} at square {square_name(i, size)}; expected *, O or -"
            )
        if BOARD_CELLS[c] == BLACK:
            black.append(i)
        elif BOARD_CELLS[c] == WHITE:
            white.append(i)
    if side not in ("*", "O"):
        raise err(f"BO: invalid side to move {side!r}; expected * or O")
    try:
        return Board.from_discs(black, white, BLACK if side == "*" else WHITE, size=size)
    except OthelloError as e:
        raise err(f"BO: {e}") from None


def _recorded_score(headers: Mapping[str, Any], err: Any, size: int) -> int | None:
    """Black's disc difference from ``RE`` (and ``KM``), or None when it is not a whole number.

    ``KM`` must be a decimal within ``-MAX_KOMI..MAX_KOMI`` and ``RE`` plus ``KM`` a disc
    difference within ``-size*size..size*size``."""
    komi_text = headers.get("komi")
    komi = 0.0
    if komi_text is not None and komi_text.strip():
        try:
            komi = parse_decimal(komi_text, lo=-MAX_KOMI, hi=MAX_KOMI, what="komi")
        except NumberError as e:
            raise err(f"KM[{clip(komi_text)}]: {e.what}") from None
    raw = headers.get("result")
    if raw is None or not raw.strip() or raw.strip() == "?":
        return None
    m = _RESULT.match(raw)
    if m is None:
        raise err(f"RE[{clip(raw)}]: expected black's disc difference like +12 or -4.000:r")
    n = size * size

    def off_range(shown: str) -> GgfError:
        with_komi = f" with KM[{komi_text}]" if komi else ""
        return err(  # type: ignore[no-any-return]
            f"RE[{clip(raw)}]{with_komi}: black's disc difference {shown} is off the "
            f"-{n}..{n} range of a {size}x{size} board"
        )

    try:
        value = parse_decimal(m.group(1), lo=-n - MAX_KOMI, hi=n + MAX_KOMI, what="result")
    except NumberError as e:
        if e.out_of_range:
            raise off_range(clip(m.group(1))) from None
        raise err(f"RE[{clip(raw)}]: {e.what}") from None
    value += komi
    if not -n <= value <= n:
        raise off_range(f"{value:+g}")
    score = round(value)
    return score if abs(value - score) < 0.01 else None


def result_suffix(game: GameRecord) -> str | None:
    """The suffix of a GGF result (``"r"`` resigned, ``"t"`` timeout, ...), if any."""
    m = _RESULT.match(str(game.headers.get("result", "")))
    return m.group(2) if m else None


# ----------------------------------------------------------------------------------------------
# Writer


def format_ggf(game: GameRecord) -> str:
    """One game as a GGF string ``(;GM[Othello]...;)``.

    ``RE`` is the ``result`` header if present, else the recorded score, else nothing;
    ``TY`` defaults to the board size; moves are written ``B[f5]``, passes ``B[PA]``.
    """
    h = game.headers
    size = game.size
    out = ["(;GM[Othello]"]
    values = {k: h[_HEADER_OF[k]] for k in WRITE_ORDER if h.get(_HEADER_OF[k]) is not None}
    values.setdefault("TY", str(size))
    if "RE" not in values and game.recorded_score is not None:
        values["RE"] = f"{game.recorded_score:+d}"
    for key in WRITE_ORDER:
        if key in values:
            out.append(f"{key}[{_escape(str(values[key]))}]")
    for key, value in h.items():
        if key.isupper() and key not in PROPERTIES:
            out.append(f"{key}[{_escape(str(value))}]")
    out.append(f"BO[{_format_board(game.start)}]")
    turn = game.start.turn
    n = size * size
    for a in game.moves:
        colour = "B" if turn == BLACK else "W"
        out.append(f"{colour}[{PASS_TOKENS[0] if a == n else square_name(a, size)}]")
        turn = 1 - turn
    out.append(";)")
    return "".join(out)


def _format_board(board: Board) -> str:
    size = board.size
    black, white = board.black, board.white
    rows = []
    for r in range(size):
        rows.append(
            "".join(
                "*" if black >> (r * size + c) & 1 else "O" if white >> (r * size + c) & 1 else "-"
                for c in range(size)
            )
        )
    return f"{size} {' '.join(rows)} {'*' if board.turn == BLACK else 'O'}"


def write_ggf(path: str | Path, games: Iterable[GameRecord], *, match_count: bool = False) -> int:
    """Write games as GGF, one per line (``1 (;...;)`` if ``match_count``), atomically (gzip if
    the name ends in ``.gz``); returns the number of games."""
    prefix = "1 " if match_count else ""
    return write_lines(path, games, lambda game: prefix + format_ggf(game))
