"""Random, symmetry-augmented batches from a built dataset, as numpy arrays (no torch needed).

``DatasetSplit`` opens one split memory-mapped; ``batch(indices, symmetries)`` gathers the
rows, applies one symmetry per row to boards, moves and policies together, and encodes the
planes, all in Numba kernels. ``BatchSampler`` draws shuffled ``(indices, symmetries)`` pairs
from an explicit seed; ``datasets.torch`` wraps both for PyTorch.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from othellolab.core import ConfigError
from othellolab.core.features import (
    DEFAULT_SPEC,
    FeatureSpec,
    _bit_ops,
    _fill_planes,
    _needs_legal,
    _sym8,
    _sym_table,
    symmetry_table,
)
from othellolab.core.kernels import ZERO, legal_mask
from othellolab.core.numba_kernel import kernel
from othellolab.datasets.shards import SPLITS, open_arrays, read_manifest


@kernel
def _gather(
    idx: np.ndarray,
    syms: np.ndarray,
    p: np.ndarray,
    o: np.ndarray,
    move: np.ndarray,
    outcome: np.ndarray,
    score: np.ndarray,
    count: np.ndarray,
    ops: np.ndarray,
    table: np.ndarray,
    size: int,
    codes: np.ndarray,
    planes: np.ndarray,
    out_move: np.ndarray,
    out_outcome: np.ndarray,
    out_score: np.ndarray,
    out_weight: np.ndarray,
) -> None:
    """Gather rows ``idx``, apply symmetry ``syms[i]`` to row ``i`` and encode its planes into
    ``planes`` (flat ``(B, C*N*N)``); ``count`` is empty when the rows are not deduplicated."""
    weighted = count.shape[0] > 0
    legal = _needs_legal(codes)
    for i in range(idx.shape[0]):
        r = idx[i]
        k = syms[i]
        if size == 8:
            pi = _sym8(p[r], ops[k, 0], ops[k, 1], ops[k, 2])
            oi = _sym8(o[r], ops[k, 0], ops[k, 1], ops[k, 2])
        else:
            pi = _sym_table(p[r], table[k])
            oi = _sym_table(o[r], table[k])
        mask = legal_mask(pi, oi, size) if legal else ZERO
        _fill_planes(pi, oi, mask, codes, size, planes, i)
        out_move[i] = table[k, move[r]]
        out_outcome[i] = outcome[r]
        out_score[i] = score[r]
        out_weight[i] = count[r] if weighted else 1.0


@kernel
def _gather_policy(
    idx: np.ndarray,
    syms: np.ndarray,
    out_move: np.ndarray,
    offsets: np.ndarray,
    pmoves: np.ndarray,
    pcounts: np.ndarray,
    table: np.ndarray,
    out: np.ndarray,
) -> None:
    """Policy targets: the (already transformed) move one-hot, or with ``offsets`` given the
    row's CSR move counts normalised and transformed."""
    dense = offsets.shape[0] > 0
    out[:] = 0.0
    for i in range(idx.shape[0]):
        if not dense:
            out[i, out_move[i]] = 1.0
            continue
        r = idx[i]
        k = syms[i]
        total = 0.0
        for j in range(offsets[r], offsets[r + 1]):
            total += pcounts[j]
        for j in range(offsets[r], offsets[r + 1]):
            out[i, table[k, pmoves[j]]] = pcounts[j] / total


@dataclass(frozen=True, eq=False)
class Batch:
    """A batch of training examples (numpy), all seen from the side to move.

    ``planes`` ``(B, C, N, N)`` float32; ``move`` ``(B,)`` int64 policy index of the move
    played (the most played one after dedup); ``policy`` ``(B, N*N+1)`` float32 target (the
    one-hot move, or the deduplicated move distribution), or ``None`` if not asked for;
    ``outcome`` and ``score`` ``(B,)`` float32 from the side to move; ``weight`` ``(B,)``
    float32 occurrence counts (1 without dedup); ``symmetry`` ``(B,)`` the symmetry applied.
    """

    planes: np.ndarray
    move: np.ndarray
    policy: np.ndarray | None
    outcome: np.ndarray
    score: np.ndarray
    weight: np.ndarray
    symmetry: np.ndarray

    def as_dict(self) -> dict[str, np.ndarray]:
        """The non-empty fields by name."""
        fields = ("planes", "move", "policy", "outcome", "score", "weight", "symmetry")
        return {k: getattr(self, k) for k in fields if getattr(self, k) is not None}


class DatasetSplit:
    """One split of a dataset, memory-mapped, with vectorised augmented batch gathering.

    >>> # arrays = DatasetSplit("datasets/wthor", "train")
    >>> # batch = arrays.batch(np.arange(1024), np.zeros(1024, dtype=np.int64))
    """

    def __init__(
        self, root: str | Path, split: str = "train", *, spec: FeatureSpec | None = None
    ) -> None:
        if split not in SPLITS:
            raise ConfigError(f"unknown split {split!r}: expected one of {SPLITS}", option="split")
        self.root = Path(root)
        self.split = split
        self.manifest = read_manifest(self.root)
        self.size = int(self.manifest["size"])
        self.spec = spec or (DEFAULT_SPEC if self.size == 8 else FeatureSpec(size=self.size))
        if self.spec.size != self.size:
            raise ValueError(
                f"{root}: a {self.size}x{self.size} dataset read with a size-{self.spec.size} spec"
            )
        arrays = open_arrays(self.root, split)
        self.arrays: dict[str, np.ndarray] = {k: np.asarray(v) for k, v in arrays.items()}
        self.deduplicated = "policy_offsets" in self.arrays
        self._table = symmetry_table(self.size)
        self._ops = _bit_ops()
        self._codes = self.spec.codes()
        self._empty_u8 = np.zeros(0, dtype=np.uint8)
        self._empty_i64 = np.zeros(0, dtype=np.int64)
        self._empty_u32 = np.zeros(0, dtype=np.uint32)

    def __len__(self) -> int:
        return int(self.arrays["p"].shape[0])

    def __repr__(self) -> str:
        return (
            f"<DatasetSplit {self.root}/{self.split}: {len(self)} rows, dedup={self.deduplicated}>"
        )

    def batch(
        self, indices: np.ndarray, symmetries: np.ndarray | None = None, *, policy: bool = True
    ) -> Batch:
        """Rows ``indices`` with symmetry ``symmetries[i]`` applied to row ``i`` (identity if
        ``None``): planes, move and policy transformed together."""
        idx = np.ascontiguousarray(indices, dtype=np.int64)
        n = len(self)
        if idx.size and (idx.min() < 0 or idx.max() >= n):
            raise IndexError(f"row indices out of range 0..{n - 1} in {self!r}")
        syms = (
            np.zeros(idx.shape[0], dtype=np.int64)
            if symmetries is None
            else np.ascontiguousarray(symmetries, dtype=np.int64)
        )
        if syms.shape != idx.shape or (syms.size and (syms.min() < 0 or syms.max() > 7)):
            raise ValueError("symmetries must be one value in 0..7 per index")
        a = self.arrays
        b = idx.shape[0]
        planes = np.empty((b, *self.spec.shape), dtype=np.float32)
        move = np.empty(b, dtype=np.int64)
        outcome = np.empty(b, dtype=np.float32)
        score = np.empty(b, dtype=np.float32)
        weight = np.empty(b, dtype=np.float32)
        count = a["count"] if self.deduplicated else self._empty_u32
        _gather(idx, syms, a["p"], a["o"], a["move"], a["outcome"], a["score"], count,
                self._ops, self._table, self.size, self._codes, planes.reshape(b, -1),
                move, outcome, score, weight)  # fmt: skip
        pol = None
        if policy:
            pol = np.empty((b, self.size * self.size + 1), dtype=np.float32)
            if self.deduplicated:
                _gather_policy(idx, syms, move, a["policy_offsets"], a["policy_moves"],
                               a["policy_counts"], self._table, pol)  # fmt: skip
            else:
                _gather_policy(idx, syms, move, self._empty_i64, self._empty_u8,
                               self._empty_u32, self._table, pol)  # fmt: skip
        return Batch(
            planes=planes,
            move=move,
            policy=pol,
            outcome=outcome,
            score=score,
            weight=weight,
            symmetry=syms,
        )


class BatchSampler:
    """Shuffled batches of ``(indices, symmetries)`` over ``n`` rows, reproducible from a seed.

    Each epoch is a new permutation (from ``seed`` and the epoch number); with ``augment``
    every row gets a uniformly random symmetry, else the identity. Set ``epoch`` (or call
    ``set_epoch``) to resume mid-run.
    """

    def __init__(
        self,
        n: int,
        batch_size: int = 1024,
        *,
        shuffle: bool = True,
        augment: bool = True,
        drop_last: bool = False,
        seed: int = 0,
    ) -> None:
        if batch_size < 1:
            raise ValueError(f"batch_size must be positive, got {batch_size}")
        self.n = n
        self.batch_size = batch_size
        self.shuffle = shuffle
        self.augment = augment
        self.drop_last = drop_last
        self.seed = seed
        self.epoch = 0

    def set_epoch(self, epoch: int) -> None:
        """Make the next iteration produce epoch ``epoch``'s batches."""
        self.epoch = epoch

    def __len__(self) -> int:
        if self.drop_last:
            return self.n // self.batch_size
        return -(-self.n // self.batch_size)

    def __iter__(self) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        rng = np.random.default_rng([self.seed, self.epoch])
        self.epoch += 1
        order = rng.permutation(self.n) if self.shuffle else np.arange(self.n)
        syms = (
            rng.integers(0, 8, size=self.n, dtype=np.int64)
            if self.augment
            else np.zeros(self.n, dtype=np.int64)
        )
        for b in range(len(self)):
            sl = slice(b * self.batch_size, min((b + 1) * self.batch_size, self.n))
            yield order[sl], syms[sl]


def iterate_batches(
    root: str | Path,
    split: str = "train",
    *,
    batch_size: int = 1024,
    spec: FeatureSpec | None = None,
    shuffle: bool = True,
    augment: bool = True,
    drop_last: bool = False,
    seed: int = 0,
    policy: bool = True,
) -> Iterator[Batch]:
    """One epoch of batches of a split, numpy only (see ``datasets.torch`` for PyTorch)."""
    arrays = DatasetSplit(root, split, spec=spec)
    sampler = BatchSampler(
        len(arrays), batch_size, shuffle=shuffle, augment=augment, drop_last=drop_last, seed=seed
    )
    for idx, syms in sampler:
        yield arrays.batch(idx, syms, policy=policy)


def describe(root: str | Path) -> dict[str, Any]:
    """The manifest's summary: rows and games per split, options, counts."""
    m = read_manifest(root)
    return {
        "splits": {k: {"rows": v["rows"], "games": v["games"]} for k, v in m["splits"].items()},
        "options": m["options"],
        "counts": m["counts"],
    }
