"""The rules as Numba kernels over unsigned 64-bit bitboards, in scalar and ``*_batch`` forms.

A position is ``(p, o)``: the discs of the side to move and of its opponent. Square ``i`` is
bit ``i`` with ``i = row * size + col``; sizes 8, 6 and 4 share the code, each board sitting in
the low ``size * size`` bits with a row stride of ``size``. Every kernel casts its bitboard
arguments to ``uint64`` first: Numba types a Python int below 2**63 as int64, whose ``>>`` is an
arithmetic shift, which would corrupt move masks whenever bit 63 (h8) is set.

Kernels compile lazily on first use and are cached on disk (``cache=True``), so importing this
module compiles nothing and a second process does not pay the JIT again.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np
from llvmlite import ir
from numba.core import cgutils
from numba.cpython.unsafe.numbers import trailing_zeros
from numba.extending import intrinsic

from othellolab.core.numba_kernel import kernel
from othellolab.core.values import disc_score

U64 = np.uint64
ZERO = U64(0)
ONE = U64(1)
_I32 = ir.IntType(32)
_I64 = ir.IntType(64)

# Per-size geometry, indexed by size (rows 4, 6 and 8 are used).
_FULL = np.zeros(9, dtype=np.uint64)
_INNER = np.zeros(9, dtype=np.uint64)
for _n in (4, 6, 8):
    _full = (1 << (_n * _n)) - 1
    _inner = 0
    for _sq in range(_n * _n):
        if 0 < _sq % _n < _n - 1:
            _inner |= 1 << _sq
    _FULL[_n] = _full
    _INNER[_n] = _inner
FULL8 = U64(_FULL[8])
INNER8 = U64(_INNER[8])


# ----------------------------------------------------------------------------------------------
# Bit utilities


@kernel
def popcount(x: int) -> int:
    """Number of set bits of a bitboard (LLVM turns this into one ``popcnt``)."""
    x = U64(x)
    x = x - ((x >> U64(1)) & U64(0x5555555555555555))
    x = (x & U64(0x3333333333333333)) + ((x >> U64(2)) & U64(0x3333333333333333))
    x = (x + (x >> U64(4))) & U64(0x0F0F0F0F0F0F0F0F)
    return np.int64((x * U64(0x0101010101010101)) >> U64(56))


@kernel
def lowest_square(x: int) -> int:
    """Index of the lowest set bit of a non-zero bitboard (-1 for zero)."""
    x = U64(x)
    if x == ZERO:
        return -1
    return np.int64(trailing_zeros(x))


# ----------------------------------------------------------------------------------------------
# Move generation


# The 8 directions run as two vectors of 4 lanes, one per line shift (E, S, SE, SW going up the
# bits, W, N, NW, NE going down): each lane floods along its direction in the same instructions
# (variable per-lane shifts, AVX2's ``vpsllvq``/``vpsrlvq``), three times fewer instructions than
# eight scalar rays. Numba has no vector type, so the kernels are written as LLVM IR.


def _splat(builder: Any, value: Any) -> Any:
    vec = ir.VectorType(_I64, 4)
    first = builder.insert_element(ir.Constant(vec, ir.Undefined), value, ir.Constant(_I32, 0))
    return builder.shuffle_vector(
        first, ir.Constant(vec, ir.Undefined), ir.Constant(ir.VectorType(_I32, 4), [0] * 4)
    )


def _vector_of(builder: Any, values: list[Any]) -> Any:
    vec = ir.Constant(ir.VectorType(_I64, 4), ir.Undefined)
    for i, value in enumerate(values):
        vec = builder.insert_element(vec, value, ir.Constant(_I32, i))
    return vec


def _flood(builder: Any, o: Any, seed: Any, inner: Any, n: Any) -> tuple[Any, Any, Any]:
    """IR: from the seed squares, the runs of opponent discs along each of the 8 directions
    (Kogge-Stone: two single steps, then two double steps cover the 6 discs a line can hold).
    The horizontal and diagonal lanes see only the opponent's discs off the edge columns, so a
    run never wraps from one row into the next. Returns the runs going up and going down, and
    the per-lane shifts."""
    one = ir.Constant(_I64, 1)
    shifts = _vector_of(builder, [one, n, builder.add(n, one), builder.sub(n, one)])
    doubled = builder.add(shifts, shifts)
    all_ones = ir.Constant(_I64, -1)
    om = builder.and_(_splat(builder, o), _vector_of(builder, [inner, all_ones, inner, inner]))
    seeds = _splat(builder, seed)
    runs = []
    for shift in (builder.shl, builder.lshr):
        run = builder.and_(shift(seeds, shifts), om)
        run = builder.or_(run, builder.and_(shift(run, shifts), om))
        pairs = builder.and_(om, shift(om, shifts))
        run = builder.or_(run, builder.and_(shift(run, doubled), pairs))
        run = builder.or_(run, builder.and_(shift(run, doubled), pairs))
        runs.append(run)
    return runs[0], runs[1], shifts


def _reduce_or(builder: Any, vec: Any) -> Any:
    fnty = ir.FunctionType(_I64, [vec.type])
    fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.vector.reduce.or.v4i64")
    return builder.call(fn, [vec])


def _bitboard_args(context: Any, builder: Any, sig: Any, args: Any) -> list[Any]:
    return [context.cast(builder, a, t, numba.uint64) for a, t in zip(args, sig.args, strict=True)]


@intrinsic
def _vector_legal(typingctx: Any, p: Any, o: Any, inner: Any, n: Any) -> Any:
    """``_vector_legal(p, o, inner, n)``: the squares (empty or not) that end a run of the
    opponent's discs starting next to one of ``p``'s, in any direction."""
    sig = numba.uint64(p, o, inner, n)

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        p, o, inner, n = _bitboard_args(context, builder, signature, args)
        up, down, shifts = _flood(builder, o, p, inner, n)
        ends = builder.or_(builder.shl(up, shifts), builder.lshr(down, shifts))
        return _reduce_or(builder, ends)

    return sig, codegen


@intrinsic
def _vector_flips(typingctx: Any, p: Any, o: Any, x: Any, inner: Any, n: Any) -> Any:
    """``_vector_flips(p, o, x, inner, n)``: the discs flipped by a disc on square ``x`` (a
    bitboard of one bit): each run of the opponent's discs from ``x`` that a disc of ``p``
    ends."""
    sig = numba.uint64(p, o, x, inner, n)

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        p, o, x, inner, n = _bitboard_args(context, builder, signature, args)
        up, down, shifts = _flood(builder, o, x, inner, n)
        vp = _splat(builder, p)
        zero = ir.Constant(ir.VectorType(_I64, 4), [ir.Constant(_I64, 0)] * 4)
        flips = zero
        for run, ends in ((up, builder.shl(up, shifts)), (down, builder.lshr(down, shifts))):
            closed = builder.icmp_unsigned("!=", builder.and_(ends, vp), zero)
            flips = builder.or_(flips, builder.select(closed, run, zero))
        return _reduce_or(builder, flips)

    return sig, codegen


@numba.njit(cache=True, inline="always")
def legal_squares(p: int, o: int, n: int, inner: int, full: int) -> int:
    """The moves of ``p`` against ``o`` on an ``n``-board (``inner``: its squares off the
    edge columns, ``full``: all its squares), emitted in place wherever a kernel calls it: as
    a call the compiler does not inline it, and a search generates moves several times a
    node. Constant arguments (an 8x8 caller's) specialise the shifts."""
    p = U64(p)
    o = U64(o)
    return _vector_legal(p, o, U64(inner), np.int64(n)) & ~(p | o) & U64(full)


@kernel
def _legal(p: int, o: int, n: int, inner: int, full: int) -> int:
    return legal_squares(p, o, n, inner, full)


@kernel
def legal_mask(p: int, o: int, size: int = 8) -> int:
    """Bitboard of the squares where the side to move (discs ``p``) may play."""
    if size == 8:
        return _legal(U64(p), U64(o), 8, INNER8, FULL8)
    if size == 6:
        return _legal(U64(p), U64(o), 6, _INNER[6], _FULL[6])
    if size == 4:
        return _legal(U64(p), U64(o), 4, _INNER[4], _FULL[4])
    raise ValueError("unsupported board size: expected 8, 6 or 4")


# _RAYS[size, sq, d]: the squares from ``sq`` (excluded) to the edge in direction ``d``; directions
# 0-3 go towards higher bit indices (E, S, SE, SW), 4-7 towards lower ones (W, N, NW, NE).
_RAYS = np.zeros((9, 64, 8), dtype=np.uint64)
for _n in (4, 6, 8):
    for _sq in range(_n * _n):
        for _d, (_dr, _dc) in enumerate(
            ((0, 1), (1, 0), (1, 1), (1, -1), (0, -1), (-1, 0), (-1, -1), (-1, 1))
        ):
            _r, _c, _ray_bits = _sq // _n + _dr, _sq % _n + _dc, 0
            while 0 <= _r < _n and 0 <= _c < _n:
                _ray_bits |= 1 << (_r * _n + _c)
                _r, _c = _r + _dr, _c + _dc
            _RAYS[_n, _sq, _d] = _ray_bits


@kernel
def _flips(p: int, o: int, sq: int, n: int) -> int:
    return _vector_flips(U64(p), U64(o), ONE << U64(sq), _INNER[n], np.int64(n))


@kernel
def flip_mask(p: int, o: int, sq: int, size: int = 8) -> int:
    """Discs of the opponent flipped when the side to move plays on empty square ``sq``.

    Zero means the move is illegal (every legal move flips at least one disc); the caller
    checks that ``sq`` is empty.
    """
    if size == 8:
        return _flips(U64(p), U64(o), sq, 8)
    if size == 6:
        return _flips(U64(p), U64(o), sq, 6)
    if size == 4:
        return _flips(U64(p), U64(o), sq, 4)
    raise ValueError("unsupported board size: expected 8, 6 or 4")


@kernel
def play(p: int, o: int, sq: int, size: int = 8) -> tuple[int, int]:
    """Position after the side to move plays ``sq``, seen from the new side to move.

    Returns ``(p', o')`` with ``p'`` the opponent's discs; the move must be legal (use
    ``flip_mask`` to check: a legal move flips at least one disc).
    """
    p = U64(p)
    o = U64(o)
    f = flip_mask(p, o, sq, size)
    return o & ~f, p | f | (ONE << U64(sq))


@kernel
def play_pass(p: int, o: int) -> tuple[int, int]:
    """Position after a pass: the same discs, the other side to move."""
    return U64(o), U64(p)


@kernel
def play_with_moves(p: int, o: int, sq: int, size: int = 8) -> tuple[int, int, int, int]:
    """Play a move, checking it, and return ``(p', o', legal', ok)`` in one call.

    ``legal'`` is the legal-move mask of the new side to move; ``ok`` is 0 when ``sq`` is
    occupied or flips nothing (then the other values are meaningless). One call instead of
    three keeps the Python-level ``Board.play`` fast.
    """
    p = U64(p)
    o = U64(o)
    bit = ONE << U64(sq)
    if (p | o) & bit:
        return p, o, ZERO, 0
    f = flip_mask(p, o, sq, size)
    if f == ZERO:
        return p, o, ZERO, 0
    np_ = o & ~f
    no = p | f | bit
    return np_, no, legal_mask(np_, no, size), 1


@kernel
def has_moves(p: int, o: int, size: int = 8) -> bool:
    """Whether the side to move has a placing move."""
    return legal_mask(p, o, size) != ZERO


@kernel
def is_game_over(p: int, o: int, size: int = 8) -> bool:
    """Whether neither side can place a disc."""
    return legal_mask(p, o, size) == ZERO and legal_mask(o, p, size) == ZERO


_disc_score = kernel(disc_score)


@kernel
def final_score(p: int, o: int, size: int = 8) -> int:
    """Disc difference for the side to move with the empty squares given to the winner
    (``core.values.disc_score``, compiled)."""
    p = U64(p)
    o = U64(o)
    own = popcount(p)
    other = popcount(o)
    return _disc_score(own, other, size * size - own - other)


# ----------------------------------------------------------------------------------------------
# Symmetries: the 8 elements of the dihedral group. Transform ``k`` maps a (row, col) grid ``A``
# to ``np.rot90(A, k)`` for k < 4 and to ``np.rot90(np.fliplr(A), k - 4)`` for k >= 4, so the
# same transform can be applied to planes with numpy.

SYMMETRY_NAMES = (
    "identity",
    "rot90",
    "rot180",
    "rot270",
    "flip_lr",
    "flip_lr_rot90",
    "flip_lr_rot180",
    "flip_lr_rot270",
)
INVERSE_SYMMETRY = np.array([0, 3, 2, 1, 4, 5, 6, 7], dtype=np.int64)


def transform_grid(a: np.ndarray, k: int) -> np.ndarray:
    """Apply symmetry ``k`` to the last two (row, col) axes of an array."""
    if k >= 4:
        a = np.flip(a, axis=-1)
    return np.rot90(a, k % 4, axes=(-2, -1))


# _SYM_DST[size, k, sq] = where square ``sq`` goes under symmetry ``k``.
_SYM_DST = np.zeros((9, 8, 64), dtype=np.int64)
for _n in (4, 6, 8):
    _idx = np.arange(_n * _n).reshape(_n, _n)
    for _k in range(8):
        _src = transform_grid(_idx, _k).ravel()
        _SYM_DST[_n, _k, _src] = np.arange(_n * _n)


@kernel
def transform_square(sq: int, k: int, size: int = 8) -> int:
    """Image of square ``sq`` under symmetry ``k``; the pass action maps to itself."""
    if sq == size * size:
        return sq
    return _SYM_DST[size, k, sq]


@kernel
def transform(x: int, k: int, size: int = 8) -> int:
    """Image of a bitboard under symmetry ``k``."""
    x = U64(x)
    out = ZERO
    while x:
        low = x & (~x + ONE)
        sq = np.int64(trailing_zeros(low))
        out |= ONE << U64(_SYM_DST[size, k, sq])
        x ^= low
    return out


# ----------------------------------------------------------------------------------------------
# Zobrist-style hashing: one random 64-bit key per (byte position, byte value) for each side.


def _splitmix64_table(seed: int, count: int) -> np.ndarray:
    out = np.empty(count, dtype=np.uint64)
    state = seed
    mask = (1 << 64) - 1
    for i in range(count):
        state = (state + 0x9E3779B97F4A7C15) & mask
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
        out[i] = z ^ (z >> 31)
    return out


_ZOBRIST = _splitmix64_table(0x07E1105EED, 16 * 256).reshape(16, 256)


@kernel
def hash_position(p: int, o: int) -> int:
    """64-bit Zobrist-style hash of a position (side to move, opponent), for tables and dedup."""
    p = U64(p)
    o = U64(o)
    h = ZERO
    for i in range(8):
        sh = U64(8 * i)
        h ^= _ZOBRIST[i, (p >> sh) & U64(0xFF)]
        h ^= _ZOBRIST[8 + i, (o >> sh) & U64(0xFF)]
    return h


# ----------------------------------------------------------------------------------------------
# Random numbers inside kernels: xorshift64*, state in a one-element uint64 array, so that
# kernels stay deterministic given a seed and never touch global random state.


@kernel
def rng_seed(seed: int) -> np.ndarray:
    """A kernel RNG state from an integer seed (mixed with splitmix64; never zero)."""
    z = U64(seed) + U64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> U64(30))) * U64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> U64(27))) * U64(0x94D049BB133111EB)
    z = z ^ (z >> U64(31))
    state = np.empty(1, dtype=np.uint64)
    state[0] = z if z != ZERO else U64(0x2545F4914F6CDD1D)
    return state


@kernel
def rng_next(state: np.ndarray) -> int:
    """Next 64-bit random number from a kernel RNG state (advances it)."""
    x = state[0]
    x ^= x >> U64(12)
    x ^= x << U64(25)
    x ^= x >> U64(27)
    state[0] = x
    return x * U64(0x2545F4914F6CDD1D)


@kernel
def rng_below(state: np.ndarray, n: int) -> int:
    """Uniform integer in ``[0, n)`` (multiply-shift on the high 32 bits; bias < 2**-32 * n)."""
    r = rng_next(state) >> U64(32)
    return int((r * U64(n)) >> U64(32))


@kernel
def random_square(mask: int, state: np.ndarray) -> int:
    """A uniformly random set square of a non-empty bitboard."""
    mask = U64(mask)
    k = rng_below(state, popcount(mask))
    for _ in range(k):
        mask &= mask - ONE
    return lowest_square(mask)


@kernel
def start_position(size: int = 8) -> tuple[int, int]:
    """``(p, o)`` of the start position: black to move on e4/d5 (8x8), white on d4/e5."""
    h = size // 2
    a = h - 1
    p = (ONE << U64(h * size + a)) | (ONE << U64(a * size + h))
    o = (ONE << U64(a * size + a)) | (ONE << U64(h * size + h))
    return p, o


@kernel
def random_playout(p: int, o: int, state: np.ndarray, size: int = 8) -> int:
    """Play uniformly random moves to the end; return the final score for the side to move now."""
    p = U64(p)
    o = U64(o)
    sign = 1  # +1 while (p, o) is seen from the side that was to move at the start
    while True:
        moves = legal_mask(p, o, size)
        if moves == ZERO:
            if legal_mask(o, p, size) == ZERO:
                break
            p, o = o, p
        else:
            sq = random_square(moves, state)
            f = flip_mask(p, o, sq, size)
            p, o = o & ~f, p | f | (ONE << U64(sq))
        sign = -sign
    return sign * final_score(p, o, size)


@kernel
def random_games(n_games: int, seed: int, size: int = 8) -> int:
    """Play ``n_games`` uniformly random games from the start; return the total moves played."""
    state = rng_seed(seed)
    total = 0
    for _ in range(n_games):
        p, o = start_position(size)
        while True:
            moves = legal_mask(p, o, size)
            if moves == ZERO:
                if legal_mask(o, p, size) == ZERO:
                    break
                p, o = o, p
            else:
                sq = random_square(moves, state)
                f = flip_mask(p, o, sq, size)
                p, o = o & ~f, p | f | (ONE << U64(sq))
                total += 1
    return total


# ----------------------------------------------------------------------------------------------
# Perft: count the leaves of the game tree, with bulk counting at the last ply (as Edax does).
# Convention: a pass consumes a ply; a finished game reached before the last ply is one leaf.


@kernel
def _perft8(p: int, o: int, depth: int) -> int:
    moves = _legal(p, o, 8, INNER8, FULL8)
    if moves == ZERO:
        if depth == 1 or _legal(o, p, 8, INNER8, FULL8) == ZERO:
            return 1
        return _perft8(o, p, depth - 1)
    if depth == 1:
        return popcount(moves)
    total = 0
    if depth == 2:
        # Bulk counting: a child with no move is one leaf (its pass, or the end of the game).
        while moves:
            sq = trailing_zeros(moves)
            low = moves & (~moves + ONE)
            f = _flips(p, o, sq, 8)
            m2 = _legal(o & ~f, p | f | low, 8, INNER8, FULL8)
            total += popcount(m2) + np.int64(m2 == ZERO)
            moves ^= low
        return total
    while moves:
        sq = trailing_zeros(moves)
        low = moves & (~moves + ONE)
        f = _flips(p, o, sq, 8)
        total += _perft8(o & ~f, p | f | low, depth - 1)
        moves ^= low
    return total


@kernel
def _perft_n(p: int, o: int, depth: int, size: int) -> int:
    moves = legal_mask(p, o, size)
    if moves == ZERO:
        if depth == 1 or legal_mask(o, p, size) == ZERO:
            return 1
        return _perft_n(o, p, depth - 1, size)
    if depth == 1:
        return popcount(moves)
    total = 0
    while moves:
        low = moves & (~moves + ONE)
        sq = np.int64(trailing_zeros(low))
        f = flip_mask(p, o, sq, size)
        total += _perft_n(o & ~f, p | f | low, depth - 1, size)
        moves ^= low
    return total


@kernel
def perft(p: int, o: int, depth: int, size: int = 8) -> int:
    """Leaf count of the game tree ``depth`` plies deep (passes count as plies)."""
    if depth <= 0:
        return 1
    if size == 8:
        return _perft8(U64(p), U64(o), depth)
    return _perft_n(U64(p), U64(o), depth, size)


# ----------------------------------------------------------------------------------------------
# Batched forms over arrays of positions (uint64 arrays of equal length).


@kernel
def legal_mask_batch(p: np.ndarray, o: np.ndarray, size: int = 8) -> np.ndarray:
    """Legal-move masks of many positions."""
    out = np.empty(p.shape[0], dtype=np.uint64)
    for i in range(p.shape[0]):
        out[i] = legal_mask(p[i], o[i], size)
    return out


@kernel
def write_action_mask(
    mask: int, live: bool, cells: int, rows: np.ndarray, i: int, value: float = 1
) -> None:
    """The legal actions into ``rows[i, :cells + 1]`` (pass last; 0 where illegal): the squares
    of ``mask``, the side to move's placing moves (each set to ``value``: 1 for a mask, a
    share for uniform priors), or pass alone (1) when there are none and the game goes on
    (``live``). The one legal-action mask: the batched form below, the vector environment's
    observations and the uniform priors all write theirs here. A hot loop in another module
    compiles its own copy of this source (``write_action_mask.py_func``): Numba does not
    inline a kernel of another module, and the call cost the vector env 7%."""
    for a in range(cells):
        rows[i, a] = 0
    m = mask
    while m:
        low = m & (~m + ONE)
        rows[i, trailing_zeros(low)] = value
        m ^= low
    rows[i, cells] = 1 if live and mask == ZERO else 0


@kernel
def action_mask_batch(p: np.ndarray, o: np.ndarray, size: int = 8) -> np.ndarray:
    """Boolean ``(N, size*size + 1)`` legal actions of many positions (pass last)."""
    cells = size * size
    out = np.empty((p.shape[0], cells + 1), dtype=np.bool_)
    for i in range(p.shape[0]):
        own = legal_mask(p[i], o[i], size)
        live = own != ZERO or legal_mask(o[i], p[i], size) != ZERO
        write_action_mask(own, live, cells, out, i)
    return out


@kernel
def play_batch(
    p: np.ndarray, o: np.ndarray, actions: np.ndarray, size: int = 8
) -> tuple[np.ndarray, np.ndarray]:
    """Apply one action per position (``size*size`` = pass); returns the new ``(p, o)`` arrays.

    Actions must be legal; an illegal placing action raises ``ValueError``.
    """
    n = p.shape[0]
    np_ = np.empty(n, dtype=np.uint64)
    no = np.empty(n, dtype=np.uint64)
    npass = size * size
    for i in range(n):
        a = actions[i]
        if a == npass:
            np_[i] = o[i]
            no[i] = p[i]
            continue
        bit = ONE << U64(a)
        f = flip_mask(p[i], o[i], a, size)
        if f == ZERO or (p[i] | o[i]) & bit:
            raise ValueError("play_batch: illegal action")
        np_[i] = o[i] & ~f
        no[i] = p[i] | f | bit
    return np_, no


@kernel
def flip_mask_batch(p: np.ndarray, o: np.ndarray, squares: np.ndarray, size: int = 8) -> np.ndarray:
    """Flip masks of one square per position (0 where the move is illegal)."""
    out = np.empty(p.shape[0], dtype=np.uint64)
    for i in range(p.shape[0]):
        out[i] = flip_mask(p[i], o[i], squares[i], size)
    return out


@kernel
def is_game_over_batch(p: np.ndarray, o: np.ndarray, size: int = 8) -> np.ndarray:
    """Whether each position is finished."""
    out = np.empty(p.shape[0], dtype=np.bool_)
    for i in range(p.shape[0]):
        out[i] = is_game_over(p[i], o[i], size)
    return out


@kernel
def final_score_batch(p: np.ndarray, o: np.ndarray, size: int = 8) -> np.ndarray:
    """Final scores (side to move, empties to the winner) of many positions."""
    out = np.empty(p.shape[0], dtype=np.int64)
    for i in range(p.shape[0]):
        out[i] = final_score(p[i], o[i], size)
    return out


@kernel
def popcount_batch(x: np.ndarray) -> np.ndarray:
    """Set-bit counts of many bitboards."""
    out = np.empty(x.shape[0], dtype=np.int64)
    for i in range(x.shape[0]):
        out[i] = popcount(x[i])
    return out


@kernel
def transform_batch(x: np.ndarray, k: int, size: int = 8) -> np.ndarray:
    """Images of many bitboards under symmetry ``k``."""
    out = np.empty(x.shape[0], dtype=np.uint64)
    for i in range(x.shape[0]):
        out[i] = transform(x[i], k, size)
    return out


@kernel
def hash_position_batch(p: np.ndarray, o: np.ndarray) -> np.ndarray:
    """Zobrist-style hashes of many positions."""
    out = np.empty(p.shape[0], dtype=np.uint64)
    for i in range(p.shape[0]):
        out[i] = hash_position(p[i], o[i])
    return out


@kernel
def to_planes_batch(p: np.ndarray, o: np.ndarray, size: int = 8) -> np.ndarray:
    """Planes ``(N, 2, size, size)`` uint8: side to move, then opponent."""
    n = p.shape[0]
    out = np.zeros((n, 2, size, size), dtype=np.uint8)
    for i in range(n):
        for sq in range(size * size):
            bit = ONE << U64(sq)
            r = sq // size
            c = sq % size
            if p[i] & bit:
                out[i, 0, r, c] = 1
            elif o[i] & bit:
                out[i, 1, r, c] = 1
    return out
