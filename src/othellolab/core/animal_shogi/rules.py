"""Animal shogi's rules as compiled kernels over the packed ``(p, o)`` state (the layout is in
the package docstring): the start position, move generation, ``step``, ``result``, legal
actions, their batched forms and perft.
"""

from __future__ import annotations

import numpy as np

from othellolab.core.numba_kernel import kernel

__all__ = [
    "COLOR_NAMES",
    "DRAW_PLIES",
    "GOTE",
    "MAX_LEGAL_ACTIONS",
    "N_ACTIONS",
    "ONGOING",
    "PIECE_NAMES",
    "SENTE",
    "legal_actions",
    "legal_mask_batch",
    "perft",
    "result",
    "result_batch",
    "rotate_state",
    "start_state",
    "step",
    "step_batch",
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

SENTE = 0
"""The first player (moves first, sits at the bottom, uppercase letters, ``b`` in SFEN)."""
GOTE = 1
"""The second player (lowercase letters, ``w`` in SFEN)."""
COLOR_NAMES = ("sente", "gote")

CHICK, ELEPHANT, GIRAFFE, LION, HEN = 1, 2, 3, 4, 5
OPPONENT = 8
"""Added to a piece code for the opponent's piece."""
PIECE_NAMES = ("", "chick", "elephant", "giraffe", "lion", "hen")

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


# ----------------------------------------------------------------------------------------------
# Scalar kernels


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


# ----------------------------------------------------------------------------------------------
# Batched kernels and perft


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
