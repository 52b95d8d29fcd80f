"""The one feature encoder: positions -> input planes, moves <-> policy indices, symmetries.

Training data and players at play time both encode positions here, so a network sees the same
planes in both. Planes are channel-first ``(C, size, size)``: plane 0 holds the discs of the
side to move, plane 1 the opponent's, further planes are named in a ``FeatureSpec``. The policy
index of an action is the action itself (``0 .. size*size-1`` place a disc, ``size*size`` is
pass), as in pgx and OpenSpiel.

>>> from othellolab import Board
>>> spec = FeatureSpec(planes=("player", "opponent", "legal"))
>>> planes = encode_board(Board(), spec)
>>> planes.shape, int(planes[2].sum())
((3, 8, 8), 4)
>>> transform_action(move_to_index("f5"), 4)
34
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np

from othellolab.core import kernels as _k
from othellolab.core.board import Board
from othellolab.core.errors import ConfigError
from othellolab.core.kernels import INVERSE_SYMMETRY, ONE, SYMMETRY_NAMES, U64, ZERO, transform_grid
from othellolab.core.numba_kernel import kernel
from othellolab.core.squares import num_actions, parse_move, square_name

__all__ = [
    "INVERSE_SYMMETRY",
    "PLANE_NAMES",
    "SYMMETRY_NAMES",
    "FeatureSpec",
    "encode_batch",
    "encode_board",
    "equivalent_actions",
    "index_to_move",
    "move_to_index",
    "policy_size",
    "symmetry_table",
    "transform_action",
    "transform_actions",
    "transform_bitboards",
    "transform_planes",
    "transform_policy",
]

PLANE_NAMES = ("player", "opponent", "legal", "empty", "ones")
"""Planes a ``FeatureSpec`` may name: discs of the side to move, of the opponent, the legal
moves of the side to move, the empty squares, and a constant plane of ones (which lets a
zero-padded convolution see the board's edge)."""

_PLANE_CODES = {name: i for i, name in enumerate(PLANE_NAMES)}


@dataclass(frozen=True)
class FeatureSpec:
    """Which planes a model reads, in order, and the board size; saved in model configs.

    The first two planes are always ``player`` and ``opponent`` (the project's convention).
    """

    planes: tuple[str, ...] = ("player", "opponent")
    size: int = 8

    def __post_init__(self) -> None:
        object.__setattr__(self, "planes", tuple(self.planes))
        if self.size not in (8, 6, 4):
            raise ConfigError(f"FeatureSpec: unsupported board size {self.size!r}")
        if self.planes[:2] != ("player", "opponent"):
            raise ConfigError(
                f"FeatureSpec: planes must start with 'player', 'opponent'; got {self.planes}"
            )
        unknown = [p for p in self.planes if p not in _PLANE_CODES]
        if unknown:
            raise ConfigError(
                f"FeatureSpec: unknown plane names {unknown}; known: {', '.join(PLANE_NAMES)}"
            )
        if len(set(self.planes)) != len(self.planes):
            raise ConfigError(f"FeatureSpec: repeated plane names in {self.planes}")

    @property
    def channels(self) -> int:
        """Number of input planes ``C``."""
        return len(self.planes)

    @property
    def shape(self) -> tuple[int, int, int]:
        """Shape ``(C, size, size)`` of one encoded position."""
        return (self.channels, self.size, self.size)

    @property
    def policy_size(self) -> int:
        """Length of a policy vector: every square, then pass."""
        return policy_size(self.size)

    def codes(self) -> np.ndarray:
        """Plane codes (indices into ``PLANE_NAMES``) for the kernels."""
        return np.array([_PLANE_CODES[p] for p in self.planes], dtype=np.int64)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (for manifests and model configs)."""
        return {"planes": list(self.planes), "size": self.size}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> FeatureSpec:
        """The spec saved by ``to_dict``; unknown keys are rejected."""
        extra = set(data) - {"planes", "size"}
        if extra:
            raise ConfigError(f"FeatureSpec: unknown keys {sorted(extra)}")
        return cls(
            planes=tuple(data.get("planes", ("player", "opponent"))), size=data.get("size", 8)
        )


DEFAULT_SPEC = FeatureSpec()


# ----------------------------------------------------------------------------------------------
# Moves and policy indices


def policy_size(size: int = 8) -> int:
    """Length of a policy vector on a ``size`` board: ``size*size`` squares, then pass."""
    return num_actions(size)


def move_to_index(move: int | str, size: int = 8) -> int:
    """Policy index of a move (``"f5"``, an action, or a pass spelling).

    >>> move_to_index("f5"), move_to_index("pass")
    (37, 64)
    """
    return parse_move(move, size)


def index_to_move(index: int, size: int = 8) -> str:
    """Name of the move at a policy index (``"pass"`` for the last one)."""
    if not 0 <= index < policy_size(size):
        raise ValueError(f"policy index {index} out of range 0..{policy_size(size) - 1}")
    return square_name(index, size)


# ----------------------------------------------------------------------------------------------
# Symmetries. Transform ``k`` acts on (row, col) grids as ``core.kernels.transform_grid``.


@cache
def symmetry_table(size: int = 8) -> np.ndarray:
    """``table[k, a]``: the image of action ``a`` under symmetry ``k`` (pass maps to pass).

    Shape ``(8, size*size + 1)``, int64; ``table[k]`` permutes a policy vector's indices.
    """
    n = size * size
    idx = np.arange(n).reshape(size, size)
    table = np.empty((8, n + 1), dtype=np.int64)
    for k in range(8):
        table[k, transform_grid(idx, k).ravel()] = np.arange(n)
        table[k, n] = n
    table.setflags(write=False)
    return table


def transform_action(action: int, k: int, size: int = 8) -> int:
    """Image of one action under symmetry ``k``."""
    return int(symmetry_table(size)[k, action])


def transform_actions(actions: np.ndarray, ks: np.ndarray | int, size: int = 8) -> np.ndarray:
    """Images of many actions, each under its own symmetry (or all under one ``k``)."""
    return symmetry_table(size)[np.asarray(ks), np.asarray(actions)]


def transform_planes(planes: np.ndarray, k: int) -> np.ndarray:
    """Apply symmetry ``k`` to the last two (row, col) axes of planes (any leading shape)."""
    return transform_grid(planes, k)


def transform_policy(policy: np.ndarray, k: int | np.ndarray, size: int = 8) -> np.ndarray:
    """Apply symmetry ``k`` to policy vectors (last axis ``size*size + 1``), pass kept last.

    ``k`` may be one symmetry or one per row of a ``(B, size*size + 1)`` batch.
    """
    policy = np.asarray(policy)
    table = symmetry_table(size)
    out = np.empty_like(policy)
    if np.ndim(k) == 0:
        out[..., table[int(k)]] = policy
        return out
    rows = np.arange(policy.shape[0])[:, None]
    out[rows, table[np.asarray(k)]] = policy
    return out


def _square_map(ops: tuple[int, int, int], size: int) -> np.ndarray:
    """Where each square goes under transpose^a, then vertical flip^b, then mirror^c."""
    r, c = np.divmod(np.arange(size * size), size)
    if ops[0]:
        r, c = c, r
    if ops[1]:
        r = size - 1 - r
    if ops[2]:
        c = size - 1 - c
    return r * size + c


@cache
def _bit_ops() -> np.ndarray:
    """``ops[k] = (transpose, flip_vertical, mirror)`` composing symmetry ``k`` on 8x8."""
    table = symmetry_table(8)[:, :64]
    ops = np.zeros((8, 3), dtype=np.int64)
    combos = [(a, b, c) for a in (0, 1) for b in (0, 1) for c in (0, 1)]
    for k in range(8):
        ops[k] = next(x for x in combos if np.array_equal(_square_map(x, 8), table[k]))
    return ops


@kernel
def _sym8(x: int, t: int, v: int, m: int) -> int:
    """An 8x8 bitboard under transpose (``t``), then vertical flip (``v``), then mirror (``m``)."""
    x = U64(x)
    if t:
        k1 = U64(0x5500550055005500)
        k2 = U64(0x3333000033330000)
        k4 = U64(0x0F0F0F0F00000000)
        s = k4 & (x ^ (x << U64(28)))
        x ^= s ^ (s >> U64(28))
        s = k2 & (x ^ (x << U64(14)))
        x ^= s ^ (s >> U64(14))
        s = k1 & (x ^ (x << U64(7)))
        x ^= s ^ (s >> U64(7))
    if v:
        x = ((x >> U64(8)) & U64(0x00FF00FF00FF00FF)) | ((x & U64(0x00FF00FF00FF00FF)) << U64(8))
        x = ((x >> U64(16)) & U64(0x0000FFFF0000FFFF)) | ((x & U64(0x0000FFFF0000FFFF)) << U64(16))
        x = (x >> U64(32)) | (x << U64(32))
    if m:
        x = ((x >> U64(1)) & U64(0x5555555555555555)) | ((x & U64(0x5555555555555555)) << U64(1))
        x = ((x >> U64(2)) & U64(0x3333333333333333)) | ((x & U64(0x3333333333333333)) << U64(2))
        x = ((x >> U64(4)) & U64(0x0F0F0F0F0F0F0F0F)) | ((x & U64(0x0F0F0F0F0F0F0F0F)) << U64(4))
    return x


@kernel
def _sym_table(x: int, dst: np.ndarray) -> int:
    """A bitboard under the square map ``dst`` (any board size)."""
    x = U64(x)
    out = ZERO
    while x:
        low = x & (~x + ONE)
        sq = _k.lowest_square(low)
        out |= ONE << U64(dst[sq])
        x ^= low
    return out


@kernel
def _transform_bitboards(
    x: np.ndarray, ks: np.ndarray, ops: np.ndarray, table: np.ndarray, size: int
) -> np.ndarray:
    out = np.empty(x.shape[0], dtype=np.uint64)
    for i in range(x.shape[0]):
        k = ks[i]
        if size == 8:
            out[i] = _sym8(x[i], ops[k, 0], ops[k, 1], ops[k, 2])
        else:
            out[i] = _sym_table(x[i], table[k])
    return out


def transform_bitboards(x: np.ndarray, ks: np.ndarray | int, size: int = 8) -> np.ndarray:
    """Images of many bitboards, each under its own symmetry (or all under one ``k``).

    On 8x8 this is a few shifts and masks per board (delta swaps), not a loop over discs.
    """
    x = np.ascontiguousarray(x, dtype=np.uint64)
    ks_arr = np.broadcast_to(np.asarray(ks, dtype=np.int64), x.shape).copy()
    if ks_arr.size and (ks_arr.min() < 0 or ks_arr.max() > 7):
        raise ValueError("symmetry indices must be in 0..7")
    return _transform_bitboards(x, ks_arr, _bit_ops(), symmetry_table(size), size)


def equivalent_actions(
    player: np.ndarray, opponent: np.ndarray, actions: np.ndarray, size: int = 8
) -> np.ndarray:
    """``(N, size*size + 1)`` bool: the actions that a symmetry of each position itself maps
    ``actions[i]`` to (the action alone when the position has no symmetry). They lead to the
    same position up to that symmetry, so a prediction among them is the same move: at the
    start of a game all four first moves are one (WTHOR writes every game from f5)."""
    p = np.ascontiguousarray(player, dtype=np.uint64)
    o = np.ascontiguousarray(opponent, dtype=np.uint64)
    a = np.asarray(actions, dtype=np.int64)
    table = symmetry_table(size)
    out = np.zeros((len(a), size * size + 1), dtype=bool)
    rows = np.arange(len(a))
    for k in range(8):
        fixed = (transform_bitboards(p, k, size) == p) & (transform_bitboards(o, k, size) == o)
        out[rows[fixed], table[k, a[fixed]]] = True
    return out


# ----------------------------------------------------------------------------------------------
# Planes


@kernel
def _needs_legal(codes: np.ndarray) -> bool:
    """Whether the planes ``codes`` include the legal moves."""
    return bool((codes == 2).any())


@kernel
def plane_bits(code: int, p: int, o: int, mask: int, size: int) -> int:
    """What plane ``code`` (an index into ``PLANE_NAMES``) shows of the position ``(p, o)``, as
    a bitboard: the side to move's discs, the opponent's, ``mask`` (the legal moves, as the
    caller knows them), the empty squares, or every square. The one definition of the planes:
    ``_fill_planes`` writes them as numbers of any dtype, the vector environment as bytes."""
    p = U64(p)
    o = U64(o)
    full = (ONE << U64(size * size)) - ONE if size < 8 else U64(0xFFFFFFFFFFFFFFFF)
    if code == 0:
        return p
    if code == 1:
        return o
    if code == 2:
        return U64(mask)
    if code == 3:
        return ~(p | o) & full
    return full


@kernel
def _fill_planes(
    p: int, o: int, mask: int, codes: np.ndarray, size: int, flat: np.ndarray, i: int
) -> None:
    """Write the planes of one position into row ``i`` of ``flat``, a ``(B, C*size*size)``
    view of the ``(B, C, size, size)`` output (a flat loop that LLVM vectorises); ``mask`` is
    what the ``legal`` plane shows (the side to move's legal moves, or none, as the caller
    knows them). Every batched and scalar entry point of the encoder writes here."""
    cells = size * size
    for c in range(codes.shape[0]):
        bits = np.int64(
            plane_bits(codes[c], p, o, mask, size)
        )  # signed shifts vectorise; bit 63 still reads as 1 after "& 1"
        base = c * cells
        for sq in range(cells):
            flat[i, base + sq] = (bits >> sq) & 1


@kernel
def _encode_batch(
    p: np.ndarray, o: np.ndarray, codes: np.ndarray, size: int, flat: np.ndarray
) -> None:
    legal = _needs_legal(codes)
    for i in range(p.shape[0]):
        mask = _k.legal_mask(p[i], o[i], size) if legal else ZERO
        _fill_planes(p[i], o[i], mask, codes, size, flat, i)


def encode_batch(
    p: np.ndarray,
    o: np.ndarray,
    spec: FeatureSpec = DEFAULT_SPEC,
    *,
    dtype: Any = np.float32,
    out: np.ndarray | None = None,
) -> np.ndarray:
    """Planes ``(B, C, size, size)`` of many positions given as bitboard arrays (side to move
    ``p``, opponent ``o``), encoded in one Numba kernel; fills ``out`` when given."""
    p = np.ascontiguousarray(p, dtype=np.uint64)
    o = np.ascontiguousarray(o, dtype=np.uint64)
    if p.shape != o.shape or p.ndim != 1:
        raise ValueError(
            f"encode_batch: p and o must be 1-D of equal length, got {p.shape}, {o.shape}"
        )
    shape = (p.shape[0], *spec.shape)
    if out is None:
        out = np.empty(shape, dtype=dtype)
    elif out.shape != shape or not out.flags.c_contiguous:
        raise ValueError(
            f"encode_batch: out must be C-contiguous of shape {shape}, got {out.shape}"
        )
    _encode_batch(p, o, spec.codes(), spec.size, out.reshape(out.shape[0], -1))
    return out


def encode_board(
    board: Board, spec: FeatureSpec | None = None, *, dtype: Any = np.float32
) -> np.ndarray:
    """Planes ``(C, size, size)`` of one board, from the side to move's point of view."""
    spec = spec or (DEFAULT_SPEC if board.size == 8 else FeatureSpec(size=board.size))
    if spec.size != board.size:
        raise ValueError(
            f"encode_board: a {board.size}x{board.size} board with a size-{spec.size} spec"
        )
    p = np.array([board.player], dtype=np.uint64)
    o = np.array([board.opponent], dtype=np.uint64)
    return encode_batch(p, o, spec, dtype=dtype)[0]
