"""The transposition table: one buffer of 16-byte entries (an 8-byte key, 8 bytes of payload)
that both searches use, the exact solver's probe and store rules, its table keys (symmetric near
the start), and the midgame search's entry format.

The exact solver keeps int8 disc bounds, the best move and the empties in the payload's first
four bytes (``data``), two slots per position in one cache line, and the position's hash XOR the
payload in the key (``tt_probe``), so that threads can share one table without locks. The
midgame search keeps its float32 bounds in the whole payload (``bounds``) and its move and depth
in the key's low 16 bits, which the slot (one per position, tables of at least 2**16 entries)
already implies.
"""

from __future__ import annotations

import numpy as np

from othellolab.core import ConfigError
from othellolab.core.jit import hot_kernel, prefetch
from othellolab.core.kernels import _SYM_DST, INVERSE_SYMMETRY, U64, ZERO, hash_position, transform
from othellolab.players.search.geometry import INF
from othellolab.players.search.simd import aligned_zeros

SYMMETRY_MAX_DISCS = 14
"""Positions with at most this many discs share one table entry with their 8 symmetric images
(the table key is the smallest hash of the eight): early positions of 6x6 and 4x4 solves are
symmetric transpositions of each other, and the start's four first moves are one."""

SELECTIVE = 64
"""Flag in a table entry's empties byte (at most 60 on 8x8): its bounds come from a selective
pre-search, which the exact search must not trust; its move is a good first guess all the same."""

# Transposition table: ``keys[i]`` is the position hash (0 = empty slot); ``data[i]`` holds the
# lower bound, the upper bound, the best move (-1 for none) and the number of empties.
ENTRY_LOWER, ENTRY_UPPER, ENTRY_MOVE, ENTRY_DEPTH = 0, 1, 2, 3


class TranspositionTable:
    """``2**bits`` entries of 16 bytes: ``keys`` (uint64) and, as views of the same payload,
    ``data`` (the solver's int8 lower bound, upper bound, best move and empties), ``bounds``
    (the midgame search's float32 lower and upper bounds) and ``payload`` (the same 8 bytes as
    one uint64, for a search that checks an entry read whole). A table serves one kind of
    search.

    The solver's entries are exact bounds, valid for any later solve, so one table can serve a
    whole game; ``clear`` frees nothing but forgets everything. All views are strided views of
    one 64-byte-aligned buffer, so that a probe of the two slots a position may use and the read
    of the entry found touch a single cache line.
    """

    def __init__(self, bits: int = 20) -> None:
        if isinstance(bits, bool) or not isinstance(bits, int) or not 4 <= bits <= 30:
            raise ConfigError(f"must be a whole number in 4..30, got {bits!r}", option="bits")
        self.bits = bits
        # 64-byte alignment keeps each pair of slots (i, i ^ 1) inside one cache line.
        entries = aligned_zeros((1 << bits, 16), np.uint8)
        self.keys = entries[:, :8].view(np.uint64)[:, 0]
        self.data = entries[:, 8:12].view(np.int8)
        self.bounds = entries[:, 8:16].view(np.float32)
        self.payload = entries[:, 8:16].view(np.uint64)[:, 0]

    def clear(self) -> None:
        """Forget every entry."""
        self.keys[:] = 0


@hot_kernel(inline="always")
def home_slot(keys: np.ndarray, h: int) -> int:
    """The first of the two slots (``i`` and ``i ^ 1``, one cache line) position ``h`` may use."""
    return np.int64(h & U64(keys.shape[0] - 1))


@hot_kernel(inline="always")
def tt_probe(keys: np.ndarray, payload: np.ndarray, h: int) -> tuple[int, int]:
    """The slot holding position ``h`` and its payload, read once (``-1, 0`` if none).

    A solver's slot keeps the hash XOR the payload, each written as one 8-byte word, and a
    reader checks the pair it read: an entry torn by two threads writing one slot (one's key,
    the other's payload) matches no position, so threads may share the table without a lock
    and never see another position's bounds. The caller reads the fields from the returned
    payload (``entry_lower`` ...), never from the table again."""
    i = home_slot(keys, h)
    e = payload[i]
    if keys[i] ^ e == h:
        return i, e
    e = payload[i ^ 1]
    if keys[i ^ 1] ^ e == h:
        return i ^ 1, e
    return -1, ZERO


@hot_kernel(inline="always")
def _entry_byte(e: int, shift: int) -> int:
    """Signed byte ``shift // 8`` of payload ``e`` (as the ``data`` view reads it)."""
    x = np.int64((U64(e) >> U64(shift)) & U64(255))
    return x - ((x & 128) << 1)


@hot_kernel(inline="always")
def entry_lower(e: int) -> int:
    """The lower bound kept in payload ``e``."""
    return _entry_byte(e, 8 * ENTRY_LOWER)


@hot_kernel(inline="always")
def entry_upper(e: int) -> int:
    """The upper bound kept in payload ``e``."""
    return _entry_byte(e, 8 * ENTRY_UPPER)


@hot_kernel(inline="always")
def entry_move(e: int) -> int:
    """The best move kept in payload ``e`` (-1 for none)."""
    return _entry_byte(e, 8 * ENTRY_MOVE)


@hot_kernel(inline="always")
def entry_depth(e: int) -> int:
    """The empties byte of payload ``e`` (with the ``SELECTIVE`` flag)."""
    return _entry_byte(e, 8 * ENTRY_DEPTH)


@hot_kernel(inline="always")
def pack_entry(lower: int, upper: int, move: int, depth: int) -> int:
    """The payload of an entry: its four bytes as ``data`` lays them out, the rest 0."""
    return (
        (U64(lower & 255) << U64(8 * ENTRY_LOWER))
        | (U64(upper & 255) << U64(8 * ENTRY_UPPER))
        | (U64(move & 255) << U64(8 * ENTRY_MOVE))
        | (U64(depth & 255) << U64(8 * ENTRY_DEPTH))
    )


@hot_kernel(inline="always")
def table_key(p: int, o: int, ne: int, n: int) -> tuple[int, int]:
    """The table key of a position and the symmetry that maps it to the form the entry is kept
    in (0 far from the start, where the key is the plain hash)."""
    h = hash_position(p, o)
    if n * n - ne > SYMMETRY_MAX_DISCS:
        return h, 0
    k = 0
    for t in range(1, 8):
        ht = hash_position(transform(p, t, n), transform(o, t, n))
        if ht < h:
            h = ht
            k = t
    return h, k


@hot_kernel(inline="always")
def prefetch_slot(keys: np.ndarray, p: int, o: int, ne: int, n: int) -> None:
    """Start loading the table slot of position ``(p, o)`` with ``ne`` empties (a parent does this
    for its children: their table probes come soon, and far more often miss the caches than
    hit them)."""
    prefetch(keys, home_slot(keys, table_key(p, o, ne, n)[0]))


@hot_kernel(inline="always")
def to_table(move: int, k: int, n: int) -> int:
    """A move of the searched position as kept in the entry (symmetry ``k`` applied)."""
    return _SYM_DST[n, k, move] if move >= 0 and k else move


@hot_kernel(inline="always")
def from_table(move: int, k: int, n: int) -> int:
    """A move kept in the entry as a move of the searched position."""
    return _SYM_DST[n, INVERSE_SYMMETRY[k], move] if move >= 0 and k else move


@hot_kernel(inline="always")
def bounds_usable(e: int, sel: int) -> bool:
    """Whether a search may cut on the bounds of payload ``e``: an exact entry's always, a
    pre-search's only in another pre-search (``sel > 0``)."""
    return sel > 0 or not entry_depth(e) & SELECTIVE


@hot_kernel(inline="always")
def tt_store(
    keys: np.ndarray,
    payload: np.ndarray,
    h: int,
    alpha: int,
    beta: int,
    score: int,
    move: int,
    ne: int,
    sel: bool,
) -> None:
    """Record what a search of window ``(alpha, beta)`` proved: a bound or the exact score.

    A position has two candidate slots; a new position takes the one holding fewer empties (an
    empty slot counts as none), so the costly entries far from the end survive the flood of
    entries near it. A pre-search (``sel``) result goes into a new or selective entry, flagged;
    into an exact entry it only gives a move if there was none. An exact result drops the
    bounds of a selective entry before it records its own. The new payload is built from the
    one read (``tt_probe``) and written whole, then the key: two threads storing at once may
    lose one's bounds, never mix them.
    """
    i, e = tt_probe(keys, payload, h)
    if i < 0:
        i = home_slot(keys, h)
        j = i ^ 1
        di = entry_depth(payload[i]) & (SELECTIVE - 1) if keys[i] != ZERO else -1
        dj = entry_depth(payload[j]) & (SELECTIVE - 1) if keys[j] != ZERO else -1
        if dj < di:
            i = j
        lower, upper, best, depth = -INF, INF, -1, ne | SELECTIVE if sel else ne
    else:
        lower, upper, best, depth = entry_lower(e), entry_upper(e), entry_move(e), entry_depth(e)
        if depth & SELECTIVE:
            if not sel:
                lower, upper, depth = -INF, INF, ne
        elif sel:
            if best >= 0:
                return
            e = pack_entry(lower, upper, move, depth)
            payload[i] = e
            keys[i] = U64(h) ^ e
            return
    if score > alpha and score >= lower:
        # The move proved this lower bound: it stays the move that achieves the lower bound, so
        # an exact entry (lower == upper) names a best move.
        lower = score
        best = move
    elif best < 0:
        best = move
    if score < beta and score < upper:
        upper = score
    e = pack_entry(lower, upper, best, depth)
    payload[i] = e
    keys[i] = U64(h) ^ e


def drop_selective(table: TranspositionTable) -> None:
    """Forget the bounds of every pre-search entry (keeping its move), re-keying it (a slot
    keeps the hash XOR the payload, ``tt_probe``). No search may use the table meanwhile."""
    selective = (table.data[:, ENTRY_DEPTH] & SELECTIVE) != 0
    selective &= table.keys != ZERO
    hashes = table.keys[selective] ^ table.payload[selective]
    table.data[selective, ENTRY_LOWER] = -INF
    table.data[selective, ENTRY_UPPER] = INF
    table.keys[selective] = hashes ^ table.payload[selective]


MIDGAME_MIN_BITS = 16
"""The midgame search's tables have at least ``2**16`` entries: its slot then implies the key's
low 16 bits, which hold the entry's move and depth instead."""

_LOW16 = U64(0xFFFF)


@hot_kernel(inline="always")
def midgame_pack(h: int, move: int, depth: int) -> int:
    """The key of a midgame entry: the hash's high 48 bits, the move (+1, so that none is 0)
    and the depth in the low 16."""
    return (U64(h) & ~_LOW16) | U64((move + 1) << 8) | U64(depth)


@hot_kernel(inline="always")
def midgame_match(key: int, h: int) -> bool:
    """Whether the midgame entry ``key`` is position ``h``'s."""
    return (U64(key) ^ U64(h)) >> U64(16) == ZERO


@hot_kernel(inline="always")
def midgame_move(key: int) -> int:
    """The best move kept in a midgame entry's key (-1 for none)."""
    return np.int64((U64(key) >> U64(8)) & U64(255)) - 1


@hot_kernel(inline="always")
def midgame_depth(key: int) -> int:
    """The depth kept in a midgame entry's key."""
    return np.int64(U64(key) & U64(255))
