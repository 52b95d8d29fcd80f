"""PyTorch access to a built dataset: a memory-mapped ``Dataset`` that returns whole augmented
batches, and a ``DataLoader`` factory around it (needs the ``othellolab[nn]`` extra).

The sampler hands the dataset a batch of row indices with one symmetry each; the dataset
gathers and transforms them in Numba kernels (``datasets.batches``), so a batch costs one call,
not ``batch_size`` calls of ``__getitem__`` and a collate.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset, Sampler

from othellolab.core.features import FeatureSpec
from othellolab.datasets.batches import BatchSampler, DatasetSplit

__all__ = ["PositionDataset", "SymmetryBatchSampler", "make_loader"]


class PositionDataset(Dataset[dict[str, torch.Tensor]]):
    """One split of a dataset as torch tensors.

    ``dataset[i]`` is one example (identity symmetry); ``dataset[(indices, symmetries)]`` is a
    whole batch with symmetry ``symmetries[j]`` applied to row ``indices[j]``. Examples are
    dicts: ``planes`` float32 ``(C, N, N)``, ``move`` int64, ``policy`` float32 ``(N*N+1,)``,
    ``outcome``, ``score``, ``weight`` float32, ``symmetry`` int64 (batched: a leading ``B``).
    """

    def __init__(
        self,
        root: str | Path,
        split: str = "train",
        *,
        spec: FeatureSpec | None = None,
        policy: bool = True,
    ) -> None:
        self.root = Path(root)
        self.split = split
        self.spec = spec
        self.policy = policy
        self._arrays: DatasetSplit | None = DatasetSplit(root, split, spec=spec)
        self._len = len(self._arrays)

    @property
    def arrays(self) -> DatasetSplit:
        """The numpy view of the split (reopened after pickling into a worker process)."""
        if self._arrays is None:
            self._arrays = DatasetSplit(self.root, self.split, spec=self.spec)
        return self._arrays

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_arrays"] = None  # worker processes map the files themselves
        return state

    def __len__(self) -> int:
        return self._len

    def __getitem__(self, key: int | tuple[np.ndarray, np.ndarray]) -> dict[str, torch.Tensor]:
        if isinstance(key, tuple):
            indices, symmetries = key
            return self.batch(indices, symmetries)
        index = int(key)
        if not -self._len <= index < self._len:
            raise IndexError(f"index {index} out of range for {self._len} rows")
        one = self.batch(np.array([index % self._len]), np.zeros(1, dtype=np.int64))
        return {k: v[0] for k, v in one.items()}

    def batch(
        self, indices: np.ndarray, symmetries: np.ndarray | None = None
    ) -> dict[str, torch.Tensor]:
        """A batch of rows as tensors (zero-copy from the gathered numpy arrays)."""
        b = self.arrays.batch(indices, symmetries, policy=self.policy)
        return {k: torch.from_numpy(v) for k, v in b.as_dict().items()}


class SymmetryBatchSampler(Sampler[tuple[np.ndarray, np.ndarray]]):
    """A torch ``Sampler`` of ``(indices, symmetries)`` batches (see ``batches.BatchSampler``)."""

    def __init__(self, n: int, batch_size: int = 1024, **options: Any) -> None:
        self.inner = BatchSampler(n, batch_size, **options)

    def set_epoch(self, epoch: int) -> None:
        """Make the next iteration produce epoch ``epoch``'s batches."""
        self.inner.set_epoch(epoch)

    def __len__(self) -> int:
        return len(self.inner)

    def __iter__(self) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        return iter(self.inner)


def make_loader(
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
    num_workers: int = 0,
    pin_memory: bool = False,
) -> DataLoader[dict[str, torch.Tensor]]:
    """A ``DataLoader`` yielding dicts of batched tensors from one split.

    Shuffling and augmentation come from ``seed`` and the epoch (reproducible, and the same
    with any number of workers); each batch is gathered in one vectorised call.
    """
    dataset = PositionDataset(root, split, spec=spec, policy=policy)
    sampler = SymmetryBatchSampler(
        len(dataset), batch_size, shuffle=shuffle, augment=augment, drop_last=drop_last, seed=seed
    )
    return DataLoader(
        dataset,
        sampler=sampler,
        batch_size=None,
        num_workers=num_workers,
        pin_memory=pin_memory,
        persistent_workers=num_workers > 0,
    )
