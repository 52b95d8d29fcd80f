"""``Board``: a frozen, hashable Othello position for people, over the bitboard kernels.

>>> board = Board()
>>> board.legal_moves
SquareSet(['d3', 'c4', 'f5', 'e6'])
>>> board = board.play("f5")
>>> board.turn == WHITE, len(board.legal_moves)
(True, 3)
"""

from __future__ import annotations

import os
import warnings
import zlib
from collections.abc import Iterable
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from othellolab.core._fast import rules as _k
from othellolab.core.errors import IllegalMoveError, InvalidMoveError, InvalidPositionError
from othellolab.core.squares import (
    BLACK,
    COLOR_NAMES,
    FILE_NAMES,
    WHITE,
    Bitboard,
    Color,
    check_size,
    parse_move,
    square_name,
)
from othellolab.core.squareset import _BYTE_SQUARES, SquareSet
from othellolab.core.values import Outcome

_SIZE_OF_CELLS = {64: 8, 36: 6, 16: 4}
_OBF_COLORS = {"X": BLACK, "O": WHITE}


def _load_fastboard() -> ModuleType | None:
    """The C fast path of the rules (``_fastboard.c``, built by ``pip install``), or ``None``
    when it is not built, is older than its source, or ``OTHELLOLAB_NO_C=1`` turns it off."""
    if os.environ.get("OTHELLOLAB_NO_C"):
        return None
    try:
        from othellolab.core import _fastboard  # type: ignore[attr-defined]
    except ImportError:
        return None
    source = Path(__file__).with_name("_fastboard.c")
    built_from = getattr(_fastboard, "SOURCE_CRC", None)
    if source.exists() and zlib.crc32(source.read_bytes()) != built_from:
        warnings.warn(
            "othellolab: the compiled _fastboard is older than _fastboard.c; using the Numba "
            "kernels (rebuild with `pip install -e .` or `python setup.py build_ext --inplace`)",
            stacklevel=2,
        )
        return None
    return _fastboard


_c = _load_fastboard()
_r: Any = _c if _c is not None else _k
"""Where ``Board`` takes ``legal_mask`` and ``flip_mask`` from: the C fast path when it is
built, else the Numba kernels (same contracts, same results)."""
USING_C = _c is not None
"""Whether ``Board`` plays through the C fast path (``_fastboard.c``)."""

_new = object.__new__
_play_with_moves = _k.play_with_moves
_T0, _T1, _T2, _T3, _T4, _T5, _T6, _T7 = _BYTE_SQUARES
_STARTS: dict[int, tuple[int, int, int]] = {}
"""(player, opponent, legal-move mask) of each size's start position, filled on first use (a
kernel call at import would compile the JIT kernels there when the AOT build is missing)."""


class Board:
    """An Othello position: the discs of both colours and whose turn it is.

    A ``Board`` never changes: ``play`` returns the next one. ``Board()`` is the start position
    of an 8x8 game; ``Board(size=6)`` and ``Board(size=4)`` start the small boards.
    """

    __slots__ = ("_legal", "_o", "_p", "_size", "_turn")

    _p: Bitboard
    _o: Bitboard
    _turn: Color
    _size: int
    _legal: int

    def __init__(self, *, size: int = 8) -> None:
        start = _STARTS.get(size) if type(size) is int else None
        if start is None:
            size = check_size(size)
            p, o = _start_masks(size)
            start = _STARTS[size] = (p, o, _r.legal_mask(p, o, size))
        self._p, self._o, self._legal = start
        self._turn = BLACK
        self._size = size

    @classmethod
    def _make(cls, p: int, o: int, turn: Color, size: int, legal: int = -1) -> Board:
        # Public attributes are read-only properties and __slots__ forbids new ones, so a Board
        # cannot be changed through its API; plain slot stores keep construction cheap.
        b = _new(cls)
        b._p = p
        b._o = o
        b._turn = turn
        b._size = size
        b._legal = legal
        return b

    def __reduce__(self) -> tuple[object, ...]:
        return (_unpickle_board, (self._p, self._o, self._turn, self._size))

    # ------------------------------------------------------------------------------------------
    # Construction

    @classmethod
    def from_bitboards(
        cls, player: Bitboard, opponent: Bitboard, turn: Color = BLACK, *, size: int = 8
    ) -> Board:
        """A board from the discs of the side to move and of its opponent."""
        size = check_size(size)
        player, opponent = int(player), int(opponent)
        full = (1 << size * size) - 1
        if turn not in (BLACK, WHITE):
            raise InvalidPositionError(f"turn must be BLACK (0) or WHITE (1), got {turn!r}")
        if player < 0 or opponent < 0 or (player | opponent) & ~full:
            raise InvalidPositionError(
                f"discs off a {size}x{size} board: {player:#x}, {opponent:#x}"
            )
        if player & opponent:
            both = SquareSet(player & opponent, size=size).names()
            raise InvalidPositionError(f"squares hold both colours at once: {', '.join(both)}")
        return cls._make(player, opponent, turn, size)

    @classmethod
    def from_discs(
        cls,
        black: Iterable[int | str] | Bitboard,
        white: Iterable[int | str] | Bitboard,
        turn: Color = BLACK,
        *,
        size: int = 8,
    ) -> Board:
        """A board from black's and white's discs (bitboards or squares) and the side to move."""
        b = SquareSet(black, size=size).mask
        w = SquareSet(white, size=size).mask
        return cls.from_bitboards(*((b, w) if turn == BLACK else (w, b)), turn, size=size)

    @classmethod
    def from_obf(cls, text: str) -> Board:
        """Parse a position line: cells a1, b1, ... (``X`` black, ``O`` white, ``-`` empty), a
        space, and the side to move. Anything after the side to move (scored moves) is ignored.

        The board size follows from the number of cells (64, 36 or 16).

        >>> Board.from_obf("-" * 27 + "OX------XO" + "-" * 27 + " X") == Board()
        True
        """
        line = text.strip()
        cells = line.split(None, 1)[0] if line else ""
        size = _SIZE_OF_CELLS.get(len(cells))
        if size is None:
            raise InvalidPositionError(
                f"position {text[:80]!r}: expected 64, 36 or 16 cells before the side to move, "
                f"found {len(cells)}"
            )
        black = white = 0
        for i, ch in enumerate(cells):
            c = ch.upper()
            if c in "X*B":
                black |= 1 << i
            elif c in "OW":
                white |= 1 << i
            elif c not in "-._":
                raise InvalidPositionError(
                    f"position {text[:80]!r}: invalid character {ch!r} at offset {i} "
                    f"(square {square_name(i, size)}); expected X, O or -"
                )
        rest = line[len(cells) :].split()
        if not rest:
            raise InvalidPositionError(
                f"position {text[:80]!r}: missing the side to move (X or O) after the {len(cells)} cells"
            )
        side = rest[0].rstrip(";").upper()
        if side not in _OBF_COLORS:
            raise InvalidPositionError(
                f"position {text[:80]!r}: invalid side to move {rest[0]!r} at offset "
                f"{line.index(rest[0], len(cells))}; expected X or O"
            )
        return cls.from_discs(black, white, _OBF_COLORS[side], size=size)

    def obf(self) -> str:
        """The position as an OBF line: cells a1..h8 and the side to move (``from_obf`` inverse)."""
        black, white = self.black, self.white
        cells = "".join(
            "X" if black >> i & 1 else "O" if white >> i & 1 else "-"
            for i in range(self._size * self._size)
        )
        return f"{cells} {'X' if self._turn == BLACK else 'O'}"

    @classmethod
    def from_transcript(
        cls, transcript: str, *, size: int = 8, start: Board | None = None
    ) -> Board:
        """The board after playing a transcript (``"f5d6c3"``; passes optional) from ``start``."""
        board = start if start is not None else cls(size=size)
        for move in parse_transcript(transcript, start=board):
            board = board.play(move)
        return board

    # ------------------------------------------------------------------------------------------
    # Facts

    @property
    def size(self) -> int:
        """Side length of the board (8, 6 or 4)."""
        return self._size

    @property
    def turn(self) -> Color:
        """Colour of the side to move (``BLACK`` or ``WHITE``)."""
        return self._turn

    @property
    def game(self) -> Any:
        """The game of this position (``core.games``: Othello on this board's size)."""
        from othellolab.core.games import get_game  # the registry imports this module

        return get_game("othello", self.size)

    @property
    def state(self) -> tuple[int, int]:
        """``(player, opponent)``: the position as the game protocol's two words."""
        return self.player, self.opponent

    @property
    def player(self) -> Bitboard:
        """Bitboard of the discs of the side to move."""
        return self._p

    @property
    def opponent(self) -> Bitboard:
        """Bitboard of the discs of the side not to move."""
        return self._o

    @property
    def black(self) -> Bitboard:
        """Bitboard of black's discs."""
        return self._p if self._turn == BLACK else self._o

    @property
    def white(self) -> Bitboard:
        """Bitboard of white's discs."""
        return self._o if self._turn == BLACK else self._p

    @property
    def pass_action(self) -> int:
        """The pass action of this board size (``size * size``)."""
        return self._size * self._size

    @property
    def n_actions(self) -> int:
        """How many actions there are (``size * size`` squares and pass): the length of a
        policy vector, as ``AnimalShogi.n_actions`` is for animal shogi."""
        return self._size * self._size + 1

    def discs(self, color: Color) -> SquareSet:
        """Squares holding ``color``'s discs."""
        return SquareSet._from_mask(self.black if color == BLACK else self.white, self._size)

    def disc_count(self, color: Color) -> int:
        """Number of ``color``'s discs on the board."""
        return (self.black if color == BLACK else self.white).bit_count()

    @property
    def empties(self) -> SquareSet:
        """The empty squares."""
        full = (1 << self._size * self._size) - 1
        return SquareSet._from_mask(full & ~(self._p | self._o), self._size)

    @property
    def num_empties(self) -> int:
        """Number of empty squares."""
        return self._size * self._size - (self._p | self._o).bit_count()

    def piece_at(self, square: int | str) -> Color | None:
        """Colour of the disc on a square, or ``None`` if it is empty."""
        sq = parse_move(square, self._size)
        if sq >= self._size * self._size:
            raise InvalidMoveError(f"{square!r} is not a square")
        if self.black >> sq & 1:
            return BLACK
        if self.white >> sq & 1:
            return WHITE
        return None

    # ------------------------------------------------------------------------------------------
    # Moves

    @property
    def legal_mask(self) -> Bitboard:
        """Bitboard of the squares the side to move may play."""
        m = self._legal
        if m < 0:
            m = _r.legal_mask(self._p, self._o, self._size)
            self._legal = m
        return m

    @property
    def legal_moves(self) -> SquareSet:
        """The squares the side to move may play (empty when it must pass or the game is over)."""
        return SquareSet._from_mask(self.legal_mask, self._size)

    def legal_actions(self) -> list[int]:
        """Legal actions in increasing order: the placing moves, or ``[pass]`` when forced."""
        m = self._legal
        if m < 0:
            m = self.legal_mask
        if m:
            # mask_squares inlined: this runs once a ply in every Python game loop
            b0, b1, b2, b3, b4, b5, b6, b7 = m.to_bytes(8, "little")
            return [*_T0[b0], *_T1[b1], *_T2[b2], *_T3[b3], *_T4[b4], *_T5[b5], *_T6[b6], *_T7[b7]]
        return [] if self.is_game_over() else [self._size * self._size]

    def legal_action_mask(self) -> np.ndarray:
        """Boolean vector over the ``size*size + 1`` actions (pass last), as environments use."""
        n = self._size * self._size
        out = np.zeros(n + 1, dtype=bool)
        for a in self.legal_actions():
            out[a] = True
        return out

    def must_pass(self) -> bool:
        """Whether the side to move has no placing move but the game goes on."""
        return not self.legal_mask and bool(_r.legal_mask(self._o, self._p, self._size))

    def is_game_over(self) -> bool:
        """Whether neither side can place a disc."""
        return not self.legal_mask and not _r.legal_mask(self._o, self._p, self._size)

    def is_legal(self, move: int | str) -> bool:
        """Whether ``move`` (name or action) is legal here; malformed moves are simply illegal."""
        try:
            a = parse_move(move, self._size)
        except InvalidMoveError:
            return False
        if a == self._size * self._size:
            return self.must_pass()
        return bool(self.legal_mask >> a & 1)

    def flips(self, move: int | str) -> SquareSet:
        """The opponent discs that ``move`` would flip (empty for an illegal move or pass)."""
        a = parse_move(move, self._size)
        if a == self._size * self._size or (self._p | self._o) >> a & 1:
            return SquareSet._from_mask(0, self._size)
        return SquareSet._from_mask(_r.flip_mask(self._p, self._o, a, self._size), self._size)

    def play(self, move: int | str) -> Board:
        """The board after the side to move plays ``move``: a square name like ``"f5"``, an
        action index, or a pass (the action ``size * size``, ``PASS`` on 8x8; ``"pass"``,
        ``"PA"``, ``"--"``).

        Raises ``IllegalMoveError`` (naming the move and the legal ones) if the rules forbid it.
        """
        size = self._size
        if type(move) is int and 0 <= move < size * size:
            p2, o2, legal2, ok = _play_with_moves(self._p, self._o, move, size)
            if ok:
                b = _new(Board)
                b._p = p2
                b._o = o2
                b._turn = 1 - self._turn
                b._size = size
                b._legal = legal2
                return b
            raise self._illegal(move)
        a = parse_move(move, size)
        if a == size * size:
            # the opponent's moves decide whether the pass is legal and are the next legal moves
            after = 0 if self.legal_mask else _r.legal_mask(self._o, self._p, size)
            if not after:
                raise self._illegal(a)
            return Board._make(self._o, self._p, 1 - self._turn, size, after)
        return self.play(a)

    def play_pass(self) -> Board:
        """The board after a forced pass."""
        return self.play(self._size * self._size)

    def _illegal(self, action: int) -> IllegalMoveError:
        name = square_name(action, self._size)
        legal = [square_name(a, self._size) for a in self.legal_actions()]
        who = COLOR_NAMES[self._turn]
        if self.is_game_over():
            why = "the game is over"
        elif action == self._size * self._size:
            why = f"{who} has legal moves, so may not pass"
        elif (self._p | self._o) >> action & 1:
            why = f"{name} is occupied"
        else:
            why = f"{name} flips no disc"
        legal_text = ", ".join(legal) if legal else "none"
        return IllegalMoveError(
            f"illegal move {name} for {who}: {why}; legal moves: {legal_text}",
            move=name,
            legal=tuple(legal),
        )

    # ------------------------------------------------------------------------------------------
    # Results

    def outcome(self) -> Outcome | None:
        """How the game ended, or ``None`` while it goes on."""
        if not self.is_game_over():
            return None
        b, w = self.black.bit_count(), self.white.bit_count()
        return Outcome(b, w, self._size * self._size - b - w)

    def score(self) -> int:
        """Disc difference for the side to move, empties to the winner (the final score once
        the game is over; the score if it stopped here otherwise)."""
        diff = self._p.bit_count() - self._o.bit_count()
        e = self.num_empties
        return diff + e if diff > 0 else diff - e if diff < 0 else 0

    def result(self) -> int:
        """+1, 0 or -1 for the side to move, as ``score`` would end it."""
        s = self.score()
        return (s > 0) - (s < 0)

    # ------------------------------------------------------------------------------------------
    # Symmetry and hashing

    def transform(self, k: int) -> Board:
        """The board under symmetry ``k`` (0 identity, 1-3 rotations, 4-7 reflections)."""
        if not 0 <= k < 8:
            raise ValueError(f"symmetry index must be 0..7, got {k}")
        s = self._size
        return Board._make(_k.transform(self._p, k, s), _k.transform(self._o, k, s), self._turn, s)

    def symmetries(self) -> list[Board]:
        """The 8 images of the board under the dihedral group, identity first."""
        return [self.transform(k) for k in range(8)]

    def zobrist_hash(self) -> int:
        """64-bit Zobrist-style hash of (side-to-move discs, opponent discs)."""
        return _k.hash_position(self._p, self._o)

    # ------------------------------------------------------------------------------------------
    # Dunder

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Board):
            return NotImplemented
        return (
            self._p == other._p
            and self._o == other._o
            and self._turn == other._turn
            and self._size == other._size
        )

    def __hash__(self) -> int:
        return hash((self._p, self._o, self._turn, self._size))

    def __repr__(self) -> str:
        if self == Board(size=self._size):
            return "Board()" if self._size == 8 else f"Board(size={self._size})"
        return f"Board.from_obf({self.obf()!r})"

    def __str__(self) -> str:
        return self.ascii()

    def _repr_svg_(self) -> str:
        """The board drawn in Jupyter: ``core.svg.board`` with the legal moves marked."""
        from othellolab.core.svg import board as draw  # drawing is loaded only when asked for

        return draw(self)

    def diagram(self, *, last: int | None = None, legal: bool = True) -> str:
        """A roomier text board for terminals and ``ansi`` renderers: ``X`` black, ``O`` white,
        ``*`` legal moves (when ``legal``), ``.`` empty, the ``last`` move in brackets, then the
        disc counts and whose turn it is."""
        n = self._size
        black, white = self.black, self.white
        moves = self.legal_mask if legal else 0
        lines = ["   " + "  ".join(FILE_NAMES[:n])]
        for r in range(n):
            cells = []
            for c in range(n):
                sq = r * n + c
                ch = (
                    "X"
                    if black >> sq & 1
                    else "O"
                    if white >> sq & 1
                    else "*"
                    if moves >> sq & 1
                    else "."
                )
                cells.append(f"[{ch}]" if sq == last else f" {ch} ")
            lines.append(f"{r + 1:>2}" + "".join(cells))
        status = "game over" if self.is_game_over() else f"{COLOR_NAMES[self._turn]} to move"
        b, w = black.bit_count(), white.bit_count()
        lines.append(f"   black (X) {b}  white (O) {w}  {status}")
        return "\n".join(lines)

    def ascii(self, *, legal: bool = True) -> str:
        """Text diagram: ``X`` black, ``O`` white, ``*`` legal moves (when ``legal``), ``.`` empty."""
        black, white = self.black, self.white
        moves = self.legal_mask if legal else 0
        n = self._size
        lines = ["  " + " ".join(FILE_NAMES[:n])]
        for r in range(n):
            cells = []
            for c in range(n):
                i = r * n + c
                bit = 1 << i
                cells.append(
                    "X" if black & bit else "O" if white & bit else "*" if moves & bit else "."
                )
            lines.append(f"{r + 1} " + " ".join(cells))
        b, w = black.bit_count(), white.bit_count()
        status = f"black {b} white {w}, "
        status += "game over" if self.is_game_over() else f"{COLOR_NAMES[self._turn]} to move"
        lines.append(status)
        return "\n".join(lines)


if _c is not None:
    # Board.play and Board.legal_actions become C methods: their fast path (a legal square
    # index; a known, non-empty legal-move mask) saves the Python call, and anything else goes
    # to the Python methods above
    _c.bind(Board)


def _unpickle_board(p: int, o: int, turn: Color, size: int) -> Board:
    return Board.from_bitboards(p, o, turn, size=size)


def _start_masks(size: int) -> tuple[int, int]:
    h = size // 2
    a = h - 1
    return (1 << (h * size + a)) | (1 << (a * size + h)), (1 << (a * size + a)) | (
        1 << (h * size + h)
    )


def parse_transcript(text: str, *, start: Board | None = None, size: int = 8) -> list[int]:
    """Actions of a transcript like ``"f5d6c3"`` or ``"F5 D6 PA C3"``, with implied passes made
    explicit, checked against the rules from ``start`` (default: the start position).

    Raises ``IllegalMoveError`` naming the move number (1-based) of the first bad move.

    >>> [square_name(a) for a in parse_transcript("f5d6")]
    ['f5', 'd6']
    """
    board = start if start is not None else Board(size=size)
    tokens = _tokenize(text)
    out: list[int] = []
    pass_action = board.size * board.size
    for number, token in enumerate(tokens, 1):
        try:
            a = parse_move(token, board.size)
        except InvalidMoveError as e:
            raise e.at(f"transcript move {number} {token!r}") from None
        if a != pass_action and board.must_pass():
            out.append(pass_action)
            board = board.play(pass_action)
        try:
            board = board.play(a)
        except IllegalMoveError as e:
            raise e.at(f"transcript move {number}", number=number) from None
        out.append(a)
    return out


def _tokenize(text: str) -> list[str]:
    """Split a transcript into two-character moves and pass tokens (``pass`` before ``pa``)."""
    s = "".join(text.split()).replace(",", "")
    tokens = []
    i = 0
    while i < len(s):
        n = 4 if s[i : i + 4].lower() == "pass" else 2
        tokens.append(s[i : i + n])
        i += n
    return tokens


def format_transcript(actions: Iterable[int], *, size: int = 8, passes: bool = False) -> str:
    """A transcript of actions: ``"f5d6c3"``; passes are omitted unless ``passes``, then ``"PA"``.

    >>> format_transcript([37, 43, 64, 18], passes=True)
    'f5d6PAc3'
    """
    n = size * size
    return "".join(("PA" if passes else "") if a == n else square_name(a, size) for a in actions)
