"""GGF (Generic Game Format of the GGS server): 8x8, 6x6 and 4x4 games, any start board.

A game is ``(;`` ... ``;)`` holding ``KEY[value]`` properties (``PROPERTIES``); moves are
``B[f5/eval/time]`` and ``W[...]``, a pass ``PA`` or ``pass``. Files may put a match's game
count before a game (``1 (;GM[Othello]...;)``). ``RE`` is black's disc difference, possibly
with a suffix such as ``:r`` (resigned); in a komi game (``KM``) it is the disc difference minus
the komi. Properties the reader does not know are kept in the headers under their own key.

>>> game = next(parse_ggf("(;GM[Othello]PB[a]PW[b]TY[4]RE[-2]BO[4 ---- -O*- -*O- ---- *]"
...                       "B[a2]W[a1];)"))
>>> game.headers["black"], game.size, game.transcript(), game.recorded_score
('a', 4, 'a2a1', -2)
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import IO, Any

from othellolab.core import BLACK, WHITE, Board, OthelloError, parse_move, square_name
from othellolab.records._stream import atomic_writer, build_game, deliver, open_text
from othellolab.records.game import Game
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

_HEADER_OF = {k: h for k, (h, _) in PROPERTIES.items() if h is not None}
_KEY_OF = {h: k for k, h in _HEADER_OF.items()}
_PROP = re.compile(r"\s*([A-Za-z]+)\[((?:\\.|[^\]\\])*)\]", re.S)
_END = re.compile(r"\s*;\)")
_START = re.compile(r"\s*(?:(\d+)\s*)?\(;")
_RESULT = re.compile(r"^\s*([+-]?\d+(?:\.\d*)?)\s*(?::\s*(\w+))?\s*$")
_SIZE = re.compile(r"(\d+)")
_BLOCK = 1 << 20


class GgfError(RecordError):
    """A malformed GGF file; the message names the file, the game, the line and the move."""


def read_ggf(
    path: str | Path, *, lenient: bool = False, report: ReadReport | None = None
) -> Iterator[Game]:
    """Stream the games of a GGF file (gzip read transparently) as checked ``Game`` records.

    Headers: those of ``PROPERTIES``, unknown properties under their key, ``source``, ``game``
    (1-based) and ``line`` (where the game starts). Strict by default; ``lenient=True`` skips
    bad games and counts them in ``report``.
    """
    p = Path(path)
    return deliver(_items(_open_blocks(p), p), source=p, lenient=lenient, report=report)


def parse_ggf(text: str, *, source: str = "<string>") -> Iterator[Game]:
    """The games of GGF text, strictly."""
    return deliver(_items(iter([text]), source), source=source, lenient=False, report=None)


def _open_blocks(p: Path) -> Iterator[str]:
    with open_text(p, encoding="latin-1") as f:
        while block := f.read(_BLOCK):
            yield block


def _items(blocks: Iterator[str], source: str | Path) -> Iterator[Game | RecordError]:
    """Scan games out of text blocks; a syntax error ends the file (nothing after it is sure)."""
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

    def match(pattern: re.Pattern[str]) -> re.Match[str] | None:
        """Match at the current position, reading more text while the match could grow."""
        while True:
            m = pattern.match(state["buf"], state["pos"])
            if (m is None and len(state["buf"]) - state["pos"] > 64) or (
                m is not None and m.end() < len(state["buf"])
            ):
                return m
            if not fill():
                return m

    def skip_space() -> str:
        buf = state["buf"]
        rest = buf[state["pos"] :]
        advance(state["pos"] + len(rest) - len(rest.lstrip()))
        return state["buf"][state["pos"] : state["pos"] + 20]

    number = 0
    while True:
        m = match(_START)
        if m is None:
            ahead = skip_space()
            if ahead:
                yield GgfError(
                    f"expected '(;' to start a game, found {ahead!r}",
                    source=source,
                    game=number + 1,
                    line=state["line"],
                )
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
            if prop is None:
                ahead = skip_space()
                yield GgfError(
                    f"expected a property KEY[value] or ';)', found {ahead!r}"
                    if ahead
                    else "truncated game (the file ends before ';)')",
                    source=source,
                    game=number,
                    line=state["line"],
                )
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
) -> Game:
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
                raise err(f"GM[{value}]: not an Othello game")
        elif key in _HEADER_OF:
            headers[_HEADER_OF[key]] = value
        else:
            headers[key] = value
    type_size = _SIZE.search(headers.get("type", ""))
    if start is None:
        size = int(type_size.group(1)) if type_size else 8
        if size not in (4, 6, 8):
            raise err(f"TY[{headers['type']}]: board size {size} is not supported (8, 6 or 4)")
        start = Board(size=size)
    elif type_size and int(type_size.group(1)) != start.size:
        raise err(f"TY[{headers['type']}] disagrees with the {start.size}x{start.size} BO board")
    actions: list[str] = []
    for i, (colour, value) in enumerate(moves):
        to_move = "B" if start.turn ^ (i & 1) == BLACK else "W"
        token = value.split("/", 1)[0].strip()
        if colour != to_move:
            raise err(
                f"{colour}[{value}] but {'black' if to_move == 'B' else 'white'} is to move "
                "(GGF writes passes as PA)",
                move=i + 1,
            )
        actions.append("pass" if token.lower() in ("pa", "pass") else token)
    recorded = _recorded_score(headers, err)
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


def _parse_board(value: str, err: Any) -> Board:
    parts = value.split()
    if len(parts) < 3 or not parts[0].isdigit():
        raise err(f"BO[{value}]: expected a size, the rows and the side to move")
    size = int(parts[0])
    if size not in (4, 6, 8):
        raise err(f"BO[{value[:20]}...]: board size {size} is not supported (8, 6 or 4)")
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


def _recorded_score(headers: Mapping[str, Any], err: Any) -> int | None:
    """Black's disc difference from ``RE`` (and ``KM``), or None when it is not a whole number."""
    raw = headers.get("result")
    if raw is None or not raw.strip() or raw.strip() == "?":
        return None
    m = _RESULT.match(raw)
    if m is None:
        raise err(f"RE[{raw}]: expected black's disc difference like +12 or -4.000:r")
    value = float(m.group(1))
    komi = headers.get("komi")
    if komi:
        try:
            value += float(komi)
        except ValueError:
            raise err(f"KM[{komi}]: not a number") from None
    score = round(value)
    return score if abs(value - score) < 0.01 else None


def result_suffix(game: Game) -> str | None:
    """The suffix of a GGF result (``"r"`` resigned, ``"t"`` timeout, ...), if any."""
    m = _RESULT.match(str(game.headers.get("result", "")))
    return m.group(2) if m else None


# ----------------------------------------------------------------------------------------------
# Writer


def format_ggf(game: Game) -> str:
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


def write_ggf(path: str | Path, games: Iterable[Game], *, match_count: bool = False) -> int:
    """Write games as GGF, one per line (``1 (;...;)`` if ``match_count``), atomically (gzip if
    the name ends in ``.gz``); returns the number of games."""
    count = 0
    with atomic_writer(path) as f:
        count = _write(f, games, match_count)
    return count


def _write(f: IO[str], games: Iterable[Game], match_count: bool) -> int:
    count = 0
    for count, game in enumerate(games, 1):  # noqa: B007
        f.write(("1 " if match_count else "") + format_ggf(game) + "\n")
    return count
