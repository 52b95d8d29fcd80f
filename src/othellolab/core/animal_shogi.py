"""Animal shogi (dobutsu shogi): the rules as Numba kernels over two ``uint64`` words, and a
frozen ``AnimalShogi`` position for people.

>>> pos = AnimalShogi()
>>> pos.legal_moves()
['b3b2', 'b4a3', 'c4c3', 'b4c3']
>>> pos = pos.play("b3b2")
>>> pos.sfen()
'gle/1C1/3/ELG w C 2'

Rules
-----
The published rules of the Japan Shogi Association (Madoka Kitao's game). The board has 3
columns ``a``-``c`` (left to right from the first player) and 4 rows ``1``-``4`` (top to
bottom, row 1 on the second player's side). The first player (sente, ``b`` in SFEN) sits at the
bottom and moves first::

    1  g l e      second player: giraffe a1, lion b1, elephant c1, chick b2
    2  . c .
    3  . C .      first player: chick b3, elephant a4, lion b4, giraffe c4
    4  E L G

Each piece steps one square: the lion in any of the 8 directions, the giraffe orthogonally,
the elephant diagonally, the chick straight forward, the hen (a promoted chick) forward,
forward-diagonally, sideways and straight back. A piece may not move onto its own side's
piece; moving onto an opponent's piece captures it into the mover's hand (a hen goes to hand
as a chick). Instead of moving, a player may drop a chick, elephant or giraffe from hand onto
any empty square. A chick that moves onto the farthest row becomes a hen (mandatory). There is
no check rule: a lion may step onto an attacked square and be captured.

Where the rules vary or leave a gap, this module decides as follows:

- **Capture**: the side to move has *lost* when it has no lion on the board (its lion was
  captured on the last move).
- **Try**: a lion that moves onto its farthest row wins "if it is not captured next". This is
  checked at the start of a turn: the side to move has *won* when its own lion stands on its
  farthest row (it survived the opponent's reply). The capture check comes first. So the try
  wins one ply later than in lishogi and Fairy-Stockfish (whose "safe try" ends the game at
  once when the lion is not attacked there), and a lion that reaches the far row while attacked
  wins too if the opponent does not take it.
- **Drops**: a chick may be dropped on the farthest row; it can never move there and never
  promotes (promotion happens only by moving). Two chicks may share a column, and a drop may
  threaten the lion at once (no shogi drop restrictions).
- **Draw**: a game reaching ``DRAW_PLIES`` (300) plies, moves of both sides counted, is a draw
  (the tutorial's rule), unless the position is already won or lost by the rules above.
- **Repetition** (optional, off by default, Python level only): with ``repetition_draw=True``
  an ``AnimalShogi`` keeps the positions of its game and declares a draw on the third
  occurrence of the same position (board, hands and side to move), as pgx does.
- **No legal move**: a loss for the side to move. It needs an empty hand and, with the
  standard pieces, one of just two (mirror-image) shapes, such as ``"GE1/LGE/CCl/3 b - 1"``.

``result`` applies these in order: lion captured (-1), try (+1), 300 plies (0), no move (-1).

State encoding (the kernels)
----------------------------
A position is ``(p, o)``, seen from the side to move, the board turned 180 degrees after every
move as in the Othello kernels:

- Square ``i = row * 3 + col`` (0..11), row 0 the row farthest from the side to move, row 3 its
  own back row; the side to move moves "up", towards row 0.
- ``p`` bits ``4i .. 4i+3``: the piece on square ``i``: 0 empty, 1 chick, 2 elephant,
  3 giraffe, 4 lion, 5 hen of the side to move; 9..13 the same for the opponent (``8 + code``).
  Bits 48..53: the side to move's hand (2 bits each: chicks, elephants, giraffes, 0..2); bits
  54..59: the opponent's hand, same layout.
- ``o``: the ply counter (moves played so far); nothing else.
- The other side's view of the same position: square ``i`` goes to ``11 - i``, the owner bit
  flips, the hands swap (``rotate_state``).

Actions (the network's policy index)
------------------------------------
``N_ACTIONS = 132``: ``action = dest * 11 + k`` for the 12 destination squares. ``k`` in 0..7
is the direction the piece moved in (from the side to move's view): 0 up, 1 up-right, 2 right,
3 down-right, 4 down, 5 down-left, 6 left, 7 up-left (up = towards row 0, right = increasing
column); the source square is ``dest`` minus that step. ``k`` = 8, 9, 10 drops a chick, an
elephant, a giraffe on ``dest``.

Planes and symmetry
-------------------
``encode_batch`` gives ``PLANES = 17`` planes of shape (4, 3) from the side to move (named in
``PLANE_NAMES``): own chick, elephant, giraffe, lion, hen; the opponent's five; own hand
chick/elephant/giraffe count / 2 and the opponent's, each a constant plane; ply / DRAW_PLIES
(1 or more only in finished games).
The rules' one non-trivial symmetry is the left-right mirror (column ``c`` -> ``2 - c``,
directions mirrored, drops unchanged): ``SYMMETRIES = 2`` transforms, 0 identity, 1 mirror.

Notation
--------
SFEN-like position strings, ``"gle/1c1/1C1/ELG b - 1"`` (see ``AnimalShogi.from_sfen``); moves
``"b3b2"`` (from, to; ``"+"`` appended when a chick promotes) and ``"C*b2"`` for drops.
Squares are always named from the first player's side.
"""

from __future__ import annotations

import re

import numpy as np

from othellolab.core.errors import IllegalMoveError, InvalidMoveError, InvalidPositionError
from othellolab.core.numba_kernel import kernel

__all__ = [
    "COLOR_NAMES",
    "DRAW_PLIES",
    "GOTE",
    "MAX_LEGAL_ACTIONS",
    "MIRROR_ACTIONS",
    "N_ACTIONS",
    "ONGOING",
    "PIECE_NAMES",
    "PLANES",
    "PLANE_NAMES",
    "SENTE",
    "START_SFEN",
    "SYMMETRIES",
    "AnimalShogi",
    "encode_batch",
    "legal_actions",
    "legal_mask_batch",
    "mirror_action",
    "mirror_policy",
    "mirror_state",
    "parse_square",
    "perft",
    "perft_divide",
    "result",
    "result_batch",
    "rotate_state",
    "square_name",
    "start_state",
    "step",
    "step_batch",
    "transform_policies",
    "transform_states",
]

U64 = np.uint64
ZERO = U64(0)
ONE = U64(1)
NIBBLE = U64(15)
HAND_MASK = U64(63)
BOARD_MASK = U64((1 << 48) - 1)

N_ACTIONS = 132
"""12 destination squares x (8 directions + 3 drops)."""
DRAW_PLIES = 300
"""A position whose ply counter reaches this is a draw (unless already won or lost)."""
ONGOING = 2
"""``result`` of a position whose game goes on (not a value in {+1, 0, -1})."""
MAX_LEGAL_ACTIONS = 69
"""A bound on the number of legal actions, the length ``legal_actions`` needs for its ``out``:
at most 36 piece moves (lion 8, two hens 6 each, two giraffes and two elephants 4 each) plus
at most 33 drops (3 kinds on at most 11 empty squares: the side's own lion stands on one).
``N_ACTIONS`` is enough too."""
SYMMETRIES = 2
"""Transforms of the rules: 0 identity, 1 left-right mirror."""

SENTE = 0
"""The first player (moves first, sits at the bottom, uppercase letters, ``b`` in SFEN)."""
GOTE = 1
"""The second player (lowercase letters, ``w`` in SFEN)."""
COLOR_NAMES = ("sente", "gote")

CHICK, ELEPHANT, GIRAFFE, LION, HEN = 1, 2, 3, 4, 5
OPPONENT = 8
"""Added to a piece code for the opponent's piece."""
PIECE_NAMES = ("", "chick", "elephant", "giraffe", "lion", "hen")
_LETTERS = " CEGLH"
_DROP_LETTERS = "CEG"

START_SFEN = "gle/1c1/1C1/ELG b - 1"

PLANE_NAMES = (
    "own_chick",
    "own_elephant",
    "own_giraffe",
    "own_lion",
    "own_hen",
    "opponent_chick",
    "opponent_elephant",
    "opponent_giraffe",
    "opponent_lion",
    "opponent_hen",
    "own_hand_chick",
    "own_hand_elephant",
    "own_hand_giraffe",
    "opponent_hand_chick",
    "opponent_hand_elephant",
    "opponent_hand_giraffe",
    "ply",
)
PLANES = len(PLANE_NAMES)

# Direction k as (row step, column step) from the side to move's view (row 0 is "up").
_STEPS = ((-1, 0), (-1, 1), (0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1))

# _DIRS[code]: bit k set when the side to move's piece of that code moves in direction k.
_DIRS = np.zeros(16, dtype=np.int64)
_DIRS[CHICK] = 0b00000001  # up
_DIRS[ELEPHANT] = 0b10101010  # the four diagonals
_DIRS[GIRAFFE] = 0b01010101  # the four orthogonals
_DIRS[LION] = 0b11111111
_DIRS[HEN] = 0b11010111  # all but the two back diagonals (3 and 5)

# _SRC[dest, k]: the square a piece moving in direction k to dest came from (-1: off the board);
# _DST[src, k]: where a step in direction k from src lands (-1: off the board).
_SRC = np.full((12, 8), -1, dtype=np.int64)
_DST = np.full((12, 8), -1, dtype=np.int64)
for _sq in range(12):
    for _k, (_dr, _dc) in enumerate(_STEPS):
        _r, _c = divmod(_sq, 3)
        if 0 <= _r - _dr < 4 and 0 <= _c - _dc < 3:
            _SRC[_sq, _k] = (_r - _dr) * 3 + _c - _dc
        if 0 <= _r + _dr < 4 and 0 <= _c + _dc < 3:
            _DST[_sq, _k] = (_r + _dr) * 3 + _c + _dc

# The mirror: square (r, c) -> (r, 2 - c), direction k -> (8 - k) % 8, drops unchanged.
_MIRROR_SQUARE = np.array([(s // 3) * 3 + 2 - s % 3 for s in range(12)], dtype=np.int64)
MIRROR_ACTIONS = np.array(
    [
        _MIRROR_SQUARE[a // 11] * 11 + ((8 - a % 11) % 8 if a % 11 < 8 else a % 11)
        for a in range(N_ACTIONS)
    ],
    dtype=np.int64,
)
"""``MIRROR_ACTIONS[a]``: the image of action ``a`` under the mirror (an involution)."""


# ----------------------------------------------------------------------------------------------
# Kernels


@kernel
def start_state() -> tuple[int, int]:
    """``(p, o)`` of the start position, the first player to move, ply 0."""
    p = ZERO
    # Row 0 (the opponent's back row, seen from the first player): giraffe, lion, elephant.
    p |= U64(OPPONENT + GIRAFFE) << U64(0)
    p |= U64(OPPONENT + LION) << U64(4)
    p |= U64(OPPONENT + ELEPHANT) << U64(8)
    p |= U64(OPPONENT + CHICK) << U64(16)  # square 4 (b2)
    p |= U64(CHICK) << U64(28)  # square 7 (b3)
    p |= U64(ELEPHANT) << U64(36)  # square 9 (a4)
    p |= U64(LION) << U64(40)
    p |= U64(GIRAFFE) << U64(44)
    return p, ZERO


@kernel
def rotate_state(p: int, o: int) -> tuple[int, int]:
    """The same position seen from the other side: square ``i`` -> ``11 - i``, owners swapped,
    hands swapped; the ply counter is kept."""
    p = U64(p)
    out = ZERO
    for i in range(12):
        piece = (p >> U64(4 * i)) & NIBBLE
        if piece != ZERO:
            out |= (piece ^ U64(OPPONENT)) << U64(4 * (11 - i))
    out |= ((p >> U64(54)) & HAND_MASK) << U64(48)
    out |= ((p >> U64(48)) & HAND_MASK) << U64(54)
    return out, U64(o)


@kernel
def _lion_square(p: int) -> int:
    """The square of the side to move's lion, or -1."""
    p = U64(p)
    for i in range(12):
        if (p >> U64(4 * i)) & NIBBLE == U64(LION):
            return i
    return -1


@kernel
def _generate(p: int, out: np.ndarray) -> int:
    """The pseudo-legal actions (every move the pieces and hand allow) in increasing order."""
    p = U64(p)
    hand = p >> U64(48)
    chicks = hand & U64(3)
    elephants = (hand >> U64(2)) & U64(3)
    giraffes = (hand >> U64(4)) & U64(3)
    n = 0
    for dest in range(12):
        target = (p >> U64(4 * dest)) & NIBBLE
        if target != ZERO and target < U64(OPPONENT):
            continue  # the side to move's own piece
        for k in range(8):
            src = _SRC[dest, k]
            if src >= 0:
                piece = (p >> U64(4 * src)) & NIBBLE
                if piece != ZERO and piece < U64(OPPONENT) and (_DIRS[piece] >> k) & 1:
                    out[n] = dest * 11 + k
                    n += 1
        if target == ZERO:
            if chicks != ZERO:
                out[n] = dest * 11 + 8
                n += 1
            if elephants != ZERO:
                out[n] = dest * 11 + 9
                n += 1
            if giraffes != ZERO:
                out[n] = dest * 11 + 10
                n += 1
    return n


@kernel
def _has_move(p: int) -> bool:
    p = U64(p)
    has_hand = (p >> U64(48)) & HAND_MASK != ZERO
    for sq in range(12):
        piece = (p >> U64(4 * sq)) & NIBBLE
        if piece == ZERO:
            if has_hand:
                return True
        elif piece < U64(OPPONENT):
            for k in range(8):
                dest = _DST[sq, k]
                if dest >= 0 and (_DIRS[piece] >> k) & 1:
                    target = (p >> U64(4 * dest)) & NIBBLE
                    if target == ZERO or target >= U64(OPPONENT):
                        return True
    return False


@kernel
def _decided(p: int, o: int) -> int:
    """``result`` without the no-legal-move check: lion captured, try, ply limit."""
    lion = _lion_square(p)
    if lion < 0:
        return -1
    if lion < 3:
        return 1
    if U64(o) >= U64(DRAW_PLIES):
        return 0
    return ONGOING


@kernel
def result(p: int, o: int) -> int:
    """The result for the side to move: +1 won, 0 draw, -1 lost, or ``ONGOING``.

    In this order: no lion of its own on the board (captured) is a loss; its lion on its
    farthest row (the try survived the opponent's reply) is a win; ``DRAW_PLIES`` plies is a
    draw; no legal move is a loss."""
    r = _decided(p, o)
    if r != ONGOING:
        return r
    if not _has_move(p):
        return -1
    return ONGOING


@kernel
def legal_actions(p: int, o: int, out: np.ndarray) -> int:
    """Write the legal actions in increasing order into ``out`` (an int64 array of length at
    least ``MAX_LEGAL_ACTIONS``) and return how many; 0 when the game is over."""
    if _decided(p, o) != ONGOING:
        return 0
    return _generate(p, out)


@kernel
def step(p: int, o: int, action: int) -> tuple[int, int]:
    """The position after the side to move plays a legal ``action``, from the next player's view
    (rotated, ply + 1). Undefined for an illegal action (``AnimalShogi.play`` checks)."""
    p = U64(p)
    dest = action // 11
    k = action % 11
    dshift = U64(4 * dest)
    if k < 8:
        src = _SRC[dest, k]
        sshift = U64(4 * src)
        piece = (p >> sshift) & NIBBLE
        taken = ((p >> dshift) & NIBBLE) & U64(7)
        if taken == U64(CHICK) or taken == U64(HEN):
            p += ONE << U64(48)
        elif taken == U64(ELEPHANT):
            p += ONE << U64(50)
        elif taken == U64(GIRAFFE):
            p += ONE << U64(52)
        # A captured lion goes nowhere: the opponent, to move next, has lost.
        if piece == U64(CHICK) and dest < 3:
            piece = U64(HEN)
        p &= ~((NIBBLE << sshift) | (NIBBLE << dshift))
        p |= piece << dshift
    else:
        p -= ONE << U64(48 + 2 * (k - 8))
        p |= U64(k - 7) << dshift
    q, _ = rotate_state(p, ZERO)
    return q, U64(o) + ONE


@kernel
def mirror_action(action: int) -> int:
    """The image of an action under the left-right mirror."""
    return MIRROR_ACTIONS[action]


@kernel
def mirror_state(p: int, o: int) -> tuple[int, int]:
    """The left-right mirror of a position (column ``c`` -> ``2 - c``); hands and ply kept."""
    p = U64(p)
    out = p & ~BOARD_MASK
    for r in range(4):
        left = U64(4 * (3 * r))
        middle = U64(4 * (3 * r + 1))
        right = U64(4 * (3 * r + 2))
        out |= ((p >> left) & NIBBLE) << right
        out |= ((p >> middle) & NIBBLE) << middle
        out |= ((p >> right) & NIBBLE) << left
    return out, U64(o)


@kernel
def mirror_policy(policy: np.ndarray) -> np.ndarray:
    """A policy vector over the 132 actions, mirrored: ``out[mirror(a)] = policy[a]``."""
    out = np.empty_like(policy)
    for a in range(N_ACTIONS):
        out[MIRROR_ACTIONS[a]] = policy[a]
    return out


@kernel
def transform_states(
    p_arr: np.ndarray, o_arr: np.ndarray, ks: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Symmetry ``ks[i]`` (0 identity, 1 mirror) applied to each position ``i``."""
    n = p_arr.shape[0]
    p_out = np.empty(n, dtype=np.uint64)
    o_out = np.empty(n, dtype=np.uint64)
    for i in range(n):
        if ks[i] == 1:
            p2, o2 = mirror_state(p_arr[i], o_arr[i])
            p_out[i] = p2
            o_out[i] = o2
        else:
            p_out[i] = p_arr[i]
            o_out[i] = o_arr[i]
    return p_out, o_out


@kernel
def transform_policies(policy: np.ndarray, ks: np.ndarray) -> np.ndarray:
    """Symmetry ``ks[i]`` (0 identity, 1 mirror) applied to each row of an (N, 132) policy."""
    out = np.empty_like(policy)
    for i in range(policy.shape[0]):
        if ks[i] == 1:
            for a in range(N_ACTIONS):
                out[i, MIRROR_ACTIONS[a]] = policy[i, a]
        else:
            for a in range(N_ACTIONS):
                out[i, a] = policy[i, a]
    return out


@kernel
def legal_mask_batch(p_arr: np.ndarray, o_arr: np.ndarray) -> np.ndarray:
    """Boolean ``(N, 132)`` legal actions of many positions (all false where the game is over)."""
    n = p_arr.shape[0]
    out = np.zeros((n, N_ACTIONS), dtype=np.bool_)
    buf = np.empty(MAX_LEGAL_ACTIONS, dtype=np.int64)
    for i in range(n):
        m = legal_actions(p_arr[i], o_arr[i], buf)
        for j in range(m):
            out[i, buf[j]] = True
    return out


@kernel
def step_batch(
    p_arr: np.ndarray, o_arr: np.ndarray, actions: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """``step`` on many positions, one legal action each."""
    n = p_arr.shape[0]
    p_out = np.empty(n, dtype=np.uint64)
    o_out = np.empty(n, dtype=np.uint64)
    for i in range(n):
        p2, o2 = step(p_arr[i], o_arr[i], actions[i])
        p_out[i] = p2
        o_out[i] = o2
    return p_out, o_out


@kernel
def result_batch(p_arr: np.ndarray, o_arr: np.ndarray) -> np.ndarray:
    """``result`` of many positions (int64; ``ONGOING`` where the game goes on)."""
    n = p_arr.shape[0]
    out = np.empty(n, dtype=np.int64)
    for i in range(n):
        out[i] = result(p_arr[i], o_arr[i])
    return out


@kernel
def encode_batch(p_arr: np.ndarray, o_arr: np.ndarray) -> np.ndarray:
    """Network planes ``(N, 17, 4, 3)`` float32 from the side to move (see ``PLANE_NAMES``)."""
    n = p_arr.shape[0]
    out = np.zeros((n, PLANES, 4, 3), dtype=np.float32)
    for i in range(n):
        p = U64(p_arr[i])
        for sq in range(12):
            piece = np.int64((p >> U64(4 * sq)) & NIBBLE)
            if piece != 0:
                plane = piece - 1 if piece < OPPONENT else piece - OPPONENT + 4
                out[i, plane, sq // 3, sq % 3] = 1.0
        for h in range(6):
            count = np.int64((p >> U64(48 + 2 * h)) & U64(3))
            if count != 0:
                out[i, 10 + h, :, :] = np.float32(count / 2.0)
        out[i, 16, :, :] = np.float32(np.float64(o_arr[i]) / DRAW_PLIES)
    return out


@kernel
def _perft(p: int, o: int, depth: int, buf: np.ndarray) -> int:
    n = legal_actions(p, o, buf[depth])
    if depth == 1:
        return n
    total = 0
    for j in range(n):
        p2, o2 = step(p, o, buf[depth, j])
        total += _perft(p2, o2, depth - 1, buf)
    return total


@kernel
def perft(p: int, o: int, depth: int) -> int:
    """Leaf count of the game tree ``depth`` plies deep; a game that ends earlier adds no leaf
    (the chess convention, which published dobutsu shogi counts use)."""
    if depth <= 0:
        return 1
    buf = np.empty((depth + 1, MAX_LEGAL_ACTIONS), dtype=np.int64)
    return _perft(U64(p), U64(o), depth, buf)


# ----------------------------------------------------------------------------------------------
# Names of squares and moves (always from the first player's side)

_FILES = "abc"
_SQUARE_RE = r"[a-c][1-4]"
_MOVE_RE = re.compile(rf"({_SQUARE_RE})({_SQUARE_RE})(\+?)")
_DROP_RE = re.compile(rf"([CEGceg])\*({_SQUARE_RE})")
_DIRECTION_OF = {step: k for k, step in enumerate(_STEPS)}


def _view_square(square: int, turn: int) -> int:
    """A board square (a1 = 0, row-major from the first player's side) as the side to move
    sees it, or back: the map is its own inverse."""
    return square if turn == SENTE else 11 - square


def square_name(square: int) -> str:
    """The name of board square ``square`` (0 = a1 .. 11 = c4, from the first player's side)."""
    return f"{_FILES[square % 3]}{square // 3 + 1}"


def parse_square(name: str) -> int:
    """The board square named ``name`` (``"a1"`` = 0 .. ``"c4"`` = 11)."""
    if not re.fullmatch(_SQUARE_RE, name):
        raise InvalidMoveError(f"invalid square name {name!r}: expected a1..c4", move=name)
    return (int(name[1]) - 1) * 3 + _FILES.index(name[0])


# ----------------------------------------------------------------------------------------------
# The position for people

_new = object.__new__
_KEY_BITS = 60


class AnimalShogi:
    """An animal shogi position: pieces, hands, whose turn it is and the ply counter.

    An ``AnimalShogi`` never changes: ``play`` returns the next one. ``AnimalShogi()`` is the
    start position. With ``repetition_draw=True`` the position also carries the game's history
    and a position seen for the third time (same board, hands and side to move) is a draw; the
    history is bookkeeping, not identity: ``==`` and ``hash`` look at the position only.
    """

    __slots__ = ("_history", "_o", "_p", "_turn")

    _p: int
    _o: int
    _turn: int
    _history: tuple[int, ...] | None

    def __init__(self, *, repetition_draw: bool = False) -> None:
        p, o = start_state()
        self._p, self._o, self._turn = int(p), int(o), SENTE
        self._history = (self._key(),) if repetition_draw else None

    @classmethod
    def start(cls, *, repetition_draw: bool = False) -> AnimalShogi:
        """The start position (the first player to move, ply 0)."""
        return cls(repetition_draw=repetition_draw)

    @classmethod
    def _make(cls, p: int, o: int, turn: int, history: tuple[int, ...] | None) -> AnimalShogi:
        pos = _new(cls)
        pos._p = p
        pos._o = o
        pos._turn = turn
        pos._history = history
        return pos

    @classmethod
    def from_state(
        cls, p: int, o: int, turn: int = SENTE, *, repetition_draw: bool = False
    ) -> AnimalShogi:
        """A position from the kernels' ``(p, o)`` and the side to move (checked as
        ``from_sfen`` checks a position)."""
        if turn not in (SENTE, GOTE):
            raise InvalidPositionError(f"turn must be SENTE (0) or GOTE (1), got {turn!r}")
        p, o = int(p), int(o)
        if not 0 <= p < 1 << 60:
            raise InvalidPositionError(f"state p={p:#x} has bits above bit 59")
        if not 0 <= o < 1 << 32:
            raise InvalidPositionError(f"ply counter o={o} out of range")
        board = [p >> 4 * i & 15 for i in range(12)]
        for sq, code in enumerate(board):
            if code & 7 not in range(1, 6) and code != 0:
                raise InvalidPositionError(
                    f"state p={p:#x}: invalid piece code {code} on view square {sq}"
                )
        where = f"state p={p:#x}"
        if any(p >> 48 + 2 * i & 3 > 2 for i in range(6)):
            raise InvalidPositionError("a hand holds more than 2 pieces of a kind", where=where)
        pos = cls._make(p, o, turn, None)
        pos._check(where)
        if repetition_draw:
            pos._history = (pos._key(),)
        return pos

    @classmethod
    def from_sfen(cls, text: str, *, repetition_draw: bool = False) -> AnimalShogi:
        """Parse a position: ``"<board> <side> <hands> [<move number>]"``.

        - board: the rows from row 1 (the second player's back row) to row 4, separated by
          ``/``, each giving columns a..c with letters for pieces (``L`` lion, ``G`` giraffe,
          ``E`` elephant, ``C`` chick, ``H`` hen; uppercase the first player's, lowercase the
          second player's) and digits 1..3 for runs of empty squares;
        - side: ``b`` (the first player, sente) or ``w`` (the second player) to move;
        - hands: ``-`` for none, else piece letters (``C``, ``E``, ``G``; uppercase the first
          player's), each preceded by ``2`` when two are held: ``"C2e"``;
        - move number: the 1-based number of the next move, ``ply + 1`` (optional, default 1).

        Each side has at most one lion, and the side not to move has one (the side to move may
        lack its lion: the game ended by its capture); at most 2 chicks (hens included), 2
        elephants, 2 giraffes are in play, board and hands together. Raises
        ``InvalidPositionError`` naming what is wrong.

        >>> AnimalShogi.from_sfen("gle/1c1/1C1/ELG b - 1") == AnimalShogi()
        True
        """
        where = f"position {text[:60]!r}"
        fields = text.split()
        if len(fields) not in (3, 4):
            raise InvalidPositionError(
                f"expected 3 or 4 fields (board, side to move, hands, move number), "
                f"found {len(fields)}",
                where=where,
            )
        rows = fields[0].split("/")
        if len(rows) != 4:
            raise InvalidPositionError(
                f"board {fields[0]!r}: expected 4 rows separated by '/', found {len(rows)}",
                where=where,
            )
        # codes[square] from the first player's view (square 0 = a1): own = sente.
        codes: list[int] = []
        for r, row in enumerate(rows, 1):
            cells: list[int] = []
            for i, ch in enumerate(row):
                if ch in "123":
                    if i and row[i - 1] in "123":
                        raise InvalidPositionError(
                            f"row {r} {row!r}: two digits in a row; write one run of empties",
                            where=where,
                        )
                    cells += [0] * int(ch)
                elif ch.upper() in "LGECH":
                    code = _LETTERS.index(ch.upper())
                    cells.append(code if ch.isupper() else code + OPPONENT)
                else:
                    raise InvalidPositionError(
                        f"row {r} {row!r}: invalid character {ch!r}; expected L, G, E, C, H "
                        "(uppercase first player, lowercase second player) or a digit 1-3",
                        where=where,
                    )
            if len(cells) != 3:
                raise InvalidPositionError(
                    f"row {r} {row!r}: describes {len(cells)} squares, expected 3", where=where
                )
            codes += cells
        side = fields[1]
        if side not in ("b", "w"):
            raise InvalidPositionError(
                f"invalid side to move {side!r}: expected 'b' (first player) or 'w'",
                where=where,
            )
        turn = SENTE if side == "b" else GOTE
        hands = _parse_hands(fields[2], where)
        ply = 0
        if len(fields) == 4:
            number = fields[3]
            if not number.isdigit() or int(number) < 1:
                raise InvalidPositionError(
                    f"invalid move number {number!r}: expected a positive integer", where=where
                )
            ply = int(number) - 1
            if ply >= 1 << 32:
                raise InvalidPositionError(f"move number {number} is too large", where=where)
        p = 0
        for sq, code in enumerate(codes):
            p |= code << 4 * sq
        for i, count in enumerate(hands[SENTE] + hands[GOTE]):
            p |= count << 48 + 2 * i
        if turn == GOTE:
            p = int(rotate_state(p, 0)[0])
        pos = cls._make(p, ply, turn, None)
        pos._check(where)
        if repetition_draw:
            pos._history = (pos._key(),)
        return pos

    def _check(self, where: str) -> None:
        """Raise ``InvalidPositionError`` unless the position could arise in a game (of a
        subset of the pieces)."""
        counts = {name: 0 for name in ("chick", "elephant", "giraffe")}
        lions = [0, 0]
        for sq in range(12):
            owner, code = self._owner_code(sq)
            if code == LION:
                lions[owner] += 1
            elif code:
                counts["chick" if code == HEN else PIECE_NAMES[code]] += 1
        for color in (SENTE, GOTE):
            for name, count in self.hand(color).items():
                counts[name] += count
        for name, count in counts.items():
            if count > 2:
                raise InvalidPositionError(
                    f"{count} {name}s in play (board and hands); at most 2"
                    + (" (hens count as chicks)" if name == "chick" else ""),
                    where=where,
                )
        for color in (SENTE, GOTE):
            if lions[color] > 1:
                raise InvalidPositionError(
                    f"{COLOR_NAMES[color]} has {lions[color]} lions; at most 1", where=where
                )
        waiting = 1 - self._turn
        if lions[waiting] == 0:
            raise InvalidPositionError(
                f"{COLOR_NAMES[waiting]}, not to move, has no lion", where=where
            )

    def sfen(self) -> str:
        """The position as an SFEN-like string (``from_sfen``'s inverse)."""
        rows = []
        for r in range(4):
            row, empty = "", 0
            for c in range(3):
                owner, code = self._owner_code(r * 3 + c)
                if not code:
                    empty += 1
                    continue
                if empty:
                    row += str(empty)
                    empty = 0
                row += _LETTERS[code] if owner == SENTE else _LETTERS[code].lower()
            rows.append(row + (str(empty) if empty else ""))
        return f"{'/'.join(rows)} {'bw'[self._turn]} {self._hands_sfen()} {self._o + 1}"

    def _hands_sfen(self) -> str:
        out = ""
        for color in (SENTE, GOTE):
            for letter, count in zip(_DROP_LETTERS, self.hand(color).values(), strict=True):
                letter = letter if color == SENTE else letter.lower()
                out += "" if count == 0 else letter if count == 1 else f"{count}{letter}"
        return out or "-"

    # ------------------------------------------------------------------------------------------
    # Facts

    @property
    def n_actions(self) -> int:
        """How many actions there are (``N_ACTIONS``): the length of a policy vector."""
        return N_ACTIONS

    @property
    def turn(self) -> int:
        """The side to move: ``SENTE`` (0, the first player) or ``GOTE`` (1)."""
        return self._turn

    @property
    def ply(self) -> int:
        """Moves played so far."""
        return self._o

    @property
    def move_number(self) -> int:
        """The 1-based number of the next move (``ply + 1``), as in SFEN."""
        return self._o + 1

    @property
    def state(self) -> tuple[int, int]:
        """The kernels' ``(p, o)``: the position seen from the side to move."""
        return self._p, self._o

    @property
    def repetition_draw(self) -> bool:
        """Whether this position keeps its game's history for the repetition rule."""
        return self._history is not None

    def _owner_code(self, square: int) -> tuple[int, int]:
        """(owner, piece code 0..5) on a board square (a1 = 0); code 0 for empty."""
        code = self._p >> 4 * _view_square(square, self._turn) & 15
        if not code:
            return SENTE, 0
        return (self._turn if code < OPPONENT else 1 - self._turn), code & 7

    def piece_at(self, square: int | str) -> str | None:
        """The SFEN letter of the piece on a square (``"L"`` the first player's lion, ``"c"``
        the second player's chick), or ``None`` if it is empty."""
        sq = parse_square(square) if isinstance(square, str) else square
        if not 0 <= sq < 12:
            raise InvalidMoveError(f"square {square!r} out of range 0..11")
        owner, code = self._owner_code(sq)
        if not code:
            return None
        return _LETTERS[code] if owner == SENTE else _LETTERS[code].lower()

    def hand(self, color: int) -> dict[str, int]:
        """The pieces ``color`` holds: ``{"chick": n, "elephant": n, "giraffe": n}``."""
        base = 48 if color == self._turn else 54
        return {
            name: self._p >> base + 2 * i & 3
            for i, name in enumerate(("chick", "elephant", "giraffe"))
        }

    # ------------------------------------------------------------------------------------------
    # Moves

    def legal_actions(self) -> list[int]:
        """The legal actions in increasing order (empty when the game is over)."""
        if self._is_repetition():
            return []
        buf = np.empty(MAX_LEGAL_ACTIONS, dtype=np.int64)
        n = legal_actions(self._p, self._o, buf)
        return [int(a) for a in buf[:n]]

    def legal_action_mask(self) -> np.ndarray:
        """Boolean vector over the ``N_ACTIONS`` actions."""
        out = np.zeros(N_ACTIONS, dtype=bool)
        out[self.legal_actions()] = True
        return out

    def legal_moves(self) -> list[str]:
        """The legal moves' names, in action order."""
        return [self.move_name(a) for a in self.legal_actions()]

    def is_legal(self, move: int | str) -> bool:
        """Whether ``move`` (name or action) is legal here; malformed moves are simply illegal."""
        try:
            a = self.parse_move(move)
        except InvalidMoveError:
            return False
        return a in self.legal_actions()

    def move_name(self, action: int) -> str:
        """The name of an action here: ``"b3b2"``, ``"b2b1+"`` for a promotion, ``"C*b2"`` for a
        drop; squares named from the first player's side."""
        if isinstance(action, bool) or not isinstance(action, int | np.integer):
            raise InvalidMoveError(f"action must be an int, got {action!r}")
        action = int(action)
        if not 0 <= action < N_ACTIONS:
            raise InvalidMoveError(
                f"action {action} out of range 0..{N_ACTIONS - 1}", move=str(action)
            )
        dest, k = divmod(action, 11)
        to = square_name(_view_square(dest, self._turn))
        if k >= 8:
            return f"{_DROP_LETTERS[k - 8]}*{to}"
        src = int(_SRC[dest, k])
        if src < 0:
            raise InvalidMoveError(
                f"action {action} moves a piece from off the board", move=str(action)
            )
        code = self._p >> 4 * src & 15
        promotes = code == CHICK and dest < 3
        return f"{square_name(_view_square(src, self._turn))}{to}{'+' if promotes else ''}"

    def parse_move(self, move: int | str) -> int:
        """The action of a move name (``"b3b2"``, ``"b2b1+"``, ``"C*b2"``) or an action index.

        The promotion mark is optional (promotion is mandatory) but may only mark a chick moving
        onto the farthest row. Raises ``InvalidMoveError`` for a malformed name or an action out
        of range; legality is ``play``'s business.
        """
        if not isinstance(move, str):
            if isinstance(move, bool) or not isinstance(move, int | np.integer):
                raise InvalidMoveError(f"a move is a name or an action, got {move!r}")
            if not 0 <= move < N_ACTIONS:
                raise InvalidMoveError(
                    f"action {move} out of range 0..{N_ACTIONS - 1}", move=str(move)
                )
            return int(move)
        text = move.strip()
        if m := _DROP_RE.fullmatch(text):
            dest = _view_square(parse_square(m.group(2)), self._turn)
            return dest * 11 + 8 + _DROP_LETTERS.index(m.group(1).upper())
        m = _MOVE_RE.fullmatch(text)
        if not m:
            raise InvalidMoveError(
                f"invalid move {move!r}: expected a move like 'b3b2' (or 'b2b1+') or a drop "
                "like 'C*b2'",
                move=move,
            )
        src = _view_square(parse_square(m.group(1)), self._turn)
        dest = _view_square(parse_square(m.group(2)), self._turn)
        step_ = (dest // 3 - src // 3, dest % 3 - src % 3)
        k = _DIRECTION_OF.get(step_)
        if k is None:
            raise InvalidMoveError(
                f"invalid move {move!r}: every piece moves one square to a neighbour",
                move=move,
            )
        if m.group(3) and not (self._p >> 4 * src & 15 == CHICK and dest < 3):
            raise InvalidMoveError(
                f"invalid move {move!r}: '+' marks only a chick moving onto the farthest row",
                move=move,
            )
        return dest * 11 + k

    def play(self, move: int | str) -> AnimalShogi:
        """The position after the side to move plays ``move`` (a name like ``"b3b2"`` or
        ``"C*b2"``, or an action index).

        Raises ``IllegalMoveError`` (naming the move and the legal ones) if the rules forbid it.
        """
        a = self.parse_move(move)
        if a not in self.legal_actions():
            raise self._illegal(a)
        p2, o2 = step(self._p, self._o, a)
        pos = AnimalShogi._make(int(p2), int(o2), 1 - self._turn, None)
        if self._history is not None:
            pos._history = (*self._history, pos._key())
        return pos

    def _illegal(self, action: int) -> IllegalMoveError:
        who = COLOR_NAMES[self._turn]
        dest, k = divmod(action, 11)
        try:
            name = self.move_name(action)
        except InvalidMoveError:
            name = str(action)
        to = square_name(_view_square(dest, self._turn))
        target = self._p >> 4 * dest & 15
        if self.is_game_over():
            why = f"the game is over ({self.termination()})"
        elif k >= 8:
            kind = PIECE_NAMES[k - 7]
            why = f"{to} is occupied" if target else f"{who} has no {kind} in hand"
        else:
            src = int(_SRC[dest, k])
            code = self._p >> 4 * src & 15 if src >= 0 else 0
            frm = square_name(_view_square(src, self._turn)) if src >= 0 else "off the board"
            if src < 0 or not code or code >= OPPONENT:
                why = f"{who} has no piece on {frm}"
            elif not _DIRS[code] >> k & 1:
                why = f"the {PIECE_NAMES[code]} on {frm} cannot move to {to}"
            else:
                why = f"{to} holds {who}'s own {PIECE_NAMES[target & 7]}"
        legal = tuple(self.legal_moves())
        return IllegalMoveError(
            f"illegal move {name} for {who}: {why}; legal moves: {', '.join(legal) or 'none'}",
            move=name,
            legal=legal,
        )

    # ------------------------------------------------------------------------------------------
    # Results

    def _key(self) -> int:
        return self._p | self._turn << _KEY_BITS

    def _is_repetition(self) -> bool:
        h = self._history
        return h is not None and h.count(self._key()) >= 3

    def result(self) -> int | None:
        """+1, 0 or -1 for the side to move once the game is over (won, drawn, lost), else
        ``None``."""
        r = int(result(self._p, self._o))
        if r != ONGOING:
            return r
        return 0 if self._is_repetition() else None

    def is_game_over(self) -> bool:
        """Whether the game has ended (lion captured, try, no move, ply limit, repetition)."""
        return self.result() is not None

    @property
    def winner(self) -> int | None:
        """``SENTE`` or ``GOTE`` once one has won; ``None`` while the game goes on or drawn."""
        r = self.result()
        if not r:
            return None
        return self._turn if r > 0 else 1 - self._turn

    def termination(self) -> str | None:
        """Why the game ended: ``"lion captured"``, ``"try"``, ``"ply limit"``, ``"repetition"``
        or ``"no legal move"``; ``None`` while it goes on."""
        lion = int(_lion_square(self._p))
        if lion < 0:
            return "lion captured"
        if lion < 3:
            return "try"
        if self._o >= DRAW_PLIES:
            return "ply limit"
        if int(result(self._p, self._o)) != ONGOING:
            return "no legal move"
        if self._is_repetition():
            return "repetition"
        return None

    # ------------------------------------------------------------------------------------------
    # Symmetry

    def mirror(self) -> AnimalShogi:
        """The left-right mirror image (columns a and c swapped), the rules' one symmetry."""
        p, o = mirror_state(self._p, self._o)
        history = self._history
        if history is not None:
            history = tuple(
                int(mirror_state(key & ((1 << _KEY_BITS) - 1), 0)[0])
                | key >> _KEY_BITS << _KEY_BITS
                for key in history
            )
        return AnimalShogi._make(int(p), int(o), self._turn, history)

    # ------------------------------------------------------------------------------------------
    # Dunder

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, AnimalShogi):
            return NotImplemented
        return self._p == other._p and self._o == other._o and self._turn == other._turn

    def __hash__(self) -> int:
        return hash((self._p, self._o, self._turn))

    def __repr__(self) -> str:
        return f"AnimalShogi.from_sfen({self.sfen()!r})"

    def __str__(self) -> str:
        """The board from the first player's side, the second player's hand above it and the
        first player's below, then the side to move (or how the game ended)."""
        lines = [f"gote hand:  {self._hand_text(GOTE)}", "   a b c"]
        for r in range(4):
            cells = [self.piece_at(r * 3 + c) or "." for c in range(3)]
            lines.append(f"{r + 1}  " + " ".join(cells))
        lines.append(f"sente hand: {self._hand_text(SENTE)}")
        why = self.termination()
        if why is None:
            lines.append(f"{COLOR_NAMES[self._turn]} to move, move {self.move_number}")
        else:
            winner = self.winner
            verdict = "draw" if winner is None else f"{COLOR_NAMES[winner]} wins"
            plies = "ply" if self._o == 1 else "plies"
            lines.append(f"game over after {self._o} {plies}: {verdict} ({why})")
        return "\n".join(lines)

    def _hand_text(self, color: int) -> str:
        letters = [
            letter if color == SENTE else letter.lower()
            for letter, count in zip(_DROP_LETTERS, self.hand(color).values(), strict=True)
            for _ in range(count)
        ]
        return " ".join(letters) or "-"


def _parse_hands(text: str, where: str) -> tuple[list[int], list[int]]:
    """``(sente, gote)`` hand counts (chick, elephant, giraffe) from the SFEN hands field."""
    hands = ([0, 0, 0], [0, 0, 0])
    if text == "-":
        return hands
    i = 0
    seen: set[str] = set()
    while i < len(text):
        count = 1
        if text[i].isdigit():
            if text[i] != "2":
                raise InvalidPositionError(
                    f"hands {text!r}: invalid count {text[i]!r} at offset {i}; write 2 before "
                    "a letter for two pieces, nothing for one",
                    where=where,
                )
            count = 2
            i += 1
        if i >= len(text) or text[i].upper() not in _DROP_LETTERS:
            found = repr(text[i]) if i < len(text) else "the end"
            raise InvalidPositionError(
                f"hands {text!r}: expected C, E or G (uppercase first player, lowercase second) "
                f"at offset {i}, found {found}",
                where=where,
            )
        letter = text[i]
        if letter in seen:
            raise InvalidPositionError(
                f"hands {text!r}: {letter!r} appears twice; write 2{letter} for two",
                where=where,
            )
        seen.add(letter)
        hands[SENTE if letter.isupper() else GOTE][_DROP_LETTERS.index(letter.upper())] = count
        i += 1
    return hands


def perft_divide(pos: AnimalShogi, depth: int) -> dict[str, int]:
    """Perft split by first move (each legal move's name and its leaf count ``depth`` plies
    deep, the move included): the way to find where two move generators disagree."""
    out = {}
    for a in pos.legal_actions():
        p, o = step(pos.state[0], pos.state[1], a)
        out[pos.move_name(a)] = int(perft(p, o, depth - 1))
    return out
