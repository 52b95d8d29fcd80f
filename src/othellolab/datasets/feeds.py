"""Position batch sources for the trainer: ``ArraySource`` over rows in memory (WTHOR years
through ``positions_from_wthor``) and ``DatasetSource`` over a built dataset's split, both
with symmetry augmentation.

A position batch source is any object with ``__len__`` and ``batches(batch_size, rng, *,
augment) -> Iterator[dict[str, np.ndarray]]`` yielding ``planes`` float32 ``(B, C, N, N)``,
``policy`` float32 ``(B, N*N+1)`` (one-hot of the played move, pass last), ``value`` float32
``(B,)`` (outcome for the side to move in {-1, 0, 1}), ``score`` float32 ``(B,)`` (final disc
difference / N*N, same point of view) and ``legal`` bool ``(B, N*N+1)``. The trainer needs
nothing else, so the datasets module's shards can replace this one.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

import numpy as np

from othellolab.core import ConfigError
from othellolab.core import kernels as _k
from othellolab.core.features import FeatureSpec, encode_batch, symmetry_table
from othellolab.core.kernels import action_mask_batch
from othellolab.datasets import batches as _ds
from othellolab.datasets.replay import PositionArrays, positions_from_games
from othellolab.datasets.shards import MissingDataError
from othellolab.datasets.sources import read_wtb_arrays

__all__ = [
    "ArraySource",
    "DatasetSource",
    "PositionArrays",
    "batch_plan",
    "parse_years",
    "positions_from_wthor",
    "split_by_game",
    "wthor_paths",
]


def parse_years(text: str | int | Sequence[int | str]) -> list[int]:
    """Years from ``"2001-2014,2016"``, ``2015`` or a list of such items, in order, no repeats."""
    items: Sequence[int | str] = [text] if isinstance(text, str | int) else text
    years: list[int] = []
    for item in items:
        for part in str(item).split(","):
            part = part.strip()
            if not part:
                continue
            lo, dash, hi = part.partition("-")
            try:
                a, b = int(lo), int(hi) if dash else int(lo)
            except ValueError:
                raise ConfigError(
                    f"years: {part!r} is not a year or a range like 2001-2014"
                ) from None
            if b < a:
                raise ConfigError(f"years: range {part!r} runs backwards")
            years += [y for y in range(a, b + 1) if y not in years]
    return years


def wthor_paths(wthor_dir: str | Path, years: Iterable[int]) -> list[Path]:
    """The ``WTH_<year>.wtb`` files of ``years`` in ``wthor_dir``; a missing year is an error."""
    d = Path(wthor_dir)
    out = []
    for y in years:
        path = d / f"WTH_{y}.wtb"
        if not path.exists():
            raise MissingDataError(f"{path}: no WTHOR file for year {y} in {d}")
        out.append(path)
    return out


def positions_from_wthor(
    paths: Iterable[str | Path],
    *,
    max_games: int | None = None,
    include_passes: bool = False,
    first_game: int = 0,
) -> PositionArrays:
    """Replay WTHOR games into positions (8x8), with each game's result, through the one
    records-to-rows path (``datasets.replay.positions_from_games``).

    The result is the replayed final score when the game reaches its end, else the stored
    final disc count (a few games were adjudicated early). Forced passes carry no choice and
    are left out unless ``include_passes``. An illegal move raises ``IllegalMoveError`` naming
    the file, the game and the move.
    """
    paths = [Path(p) for p in paths]
    return positions_from_games(
        (read_wtb_arrays(p) for p in paths),
        max_games=max_games or 0,
        passes=include_passes,
        first_game=first_game,
        names=tuple(str(p) for p in paths),
    )


def split_by_game(
    arrays: PositionArrays, val_fraction: float, rng: np.random.Generator
) -> tuple[PositionArrays, PositionArrays]:
    """Split into (train, validation), whole games on each side, ``val_fraction`` of games."""
    if not 0.0 < val_fraction < 1.0:
        raise ConfigError(f"split_by_game: val_fraction must be in (0, 1), got {val_fraction}")
    if arrays.game is None:
        raise ValueError("split_by_game: the arrays have no game numbers")
    games = np.unique(arrays.game)
    n_val = max(1, round(len(games) * val_fraction))
    val_games = rng.choice(games, size=n_val, replace=False)
    is_val = np.isin(arrays.game, val_games)
    return arrays.take(np.flatnonzero(~is_val)), arrays.take(np.flatnonzero(is_val))


def batch_plan(
    rows: int,
    batch_size: int,
    rng: np.random.Generator,
    *,
    augment: bool,
    shuffle: bool = True,
    drop_last: bool = False,
) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """The rows and symmetries of each batch of a pass over ``rows`` positions: a random
    order (or in order), a random symmetry per row with ``augment`` (else 0). All draws
    happen up front, so a given ``rng`` state always gives the same plan; every source draws
    its batches from it, and a distributed trainer splits each planned batch between ranks."""
    if batch_size < 1:
        raise ValueError(f"batches: batch_size must be positive, got {batch_size}")
    order = rng.permutation(rows) if shuffle else np.arange(rows)
    syms = rng.integers(0, 8, size=rows) if augment else np.zeros(rows, dtype=np.int64)
    for start in range(0, rows, batch_size):
        idx = order[start : start + batch_size]
        if drop_last and len(idx) < batch_size:
            break
        yield idx, syms[start : start + batch_size]


def _move_table(size: int) -> np.ndarray:
    """``table[k, a]``: action ``a`` under symmetry ``k`` (pass maps to itself)."""
    n = size * size + 1
    return np.array(
        [[_k.transform_square(a, k, size) for a in range(n)] for k in range(8)], dtype=np.int64
    )


class _PlannedSource:
    """What every position batch source shares: its batches follow ``batch_plan`` over its
    rows; a source gives ``__len__`` and ``batch``."""

    def __len__(self) -> int:
        raise NotImplementedError

    def batches(
        self,
        batch_size: int,
        rng: np.random.Generator,
        *,
        augment: bool,
        shuffle: bool = True,
        drop_last: bool = False,
    ) -> Iterator[dict[str, np.ndarray]]:
        """Batches in a random order (or in order, ``shuffle=False``), a random symmetry per
        row with ``augment`` and none without; all draws happen up front, so a given ``rng``
        state always yields the same batches."""
        for idx, ks in batch_plan(
            len(self), batch_size, rng, augment=augment, shuffle=shuffle, drop_last=drop_last
        ):
            yield self.batch(idx, ks if augment else None)

    def batch(
        self, index: np.ndarray, symmetries: np.ndarray | None = None
    ) -> dict[str, np.ndarray]:
        """The training arrays of the rows ``index``, each under its symmetry if given."""
        raise NotImplementedError


class ArraySource(_PlannedSource):
    """A position batch source over ``PositionArrays``; planes named as in a model config.

    With ``augment``, each position is drawn under one of the 8 symmetries chosen at random
    (the board, the move and so the policy target transform together).
    """

    def __init__(
        self, arrays: PositionArrays, *, planes: Sequence[str] = ("player", "opponent")
    ) -> None:
        self.arrays = arrays
        self.planes = tuple(planes)
        self.size = arrays.size
        self._table = _move_table(arrays.size)

    def __len__(self) -> int:
        return len(self.arrays)

    def batch(
        self, index: np.ndarray, symmetries: np.ndarray | None = None
    ) -> dict[str, np.ndarray]:
        """The training arrays of the rows ``index``, each under its symmetry if given."""
        a = self.arrays
        size = self.size
        p, o, mv = a.player[index], a.opponent[index], a.move[index]
        if symmetries is not None:
            p, o, mv = p.copy(), o.copy(), mv.copy()
            for k in np.unique(symmetries):
                if k == 0:
                    continue
                sel = symmetries == k
                p[sel] = _k.transform_batch(np.ascontiguousarray(p[sel]), int(k), size)
                o[sel] = _k.transform_batch(np.ascontiguousarray(o[sel]), int(k), size)
                mv[sel] = self._table[k, mv[sel]]
        policy = np.zeros((len(index), size * size + 1), dtype=np.float32)
        policy[np.arange(len(index)), mv] = 1.0
        out = {
            "planes": encode_batch(p, o, FeatureSpec(self.planes, size)),
            "policy": policy,
            "value": a.outcome[index],
            "legal": action_mask_batch(p, o, size),
        }
        if a.score is not None:
            out["score"] = a.score[index]
        return out


class DatasetSource(_PlannedSource):
    """A position batch source over one split of a dataset built by ``othellolab dataset
    build`` (memory-mapped, gathered and augmented by ``datasets.batches``).

    ``max_rows`` keeps the split's first rows only (0 = all; rows are in game order, so this
    keeps the first games). Deduplicated datasets give the played-move distribution as the
    policy target. Legal masks are computed on the stored boards and carried through the same
    symmetry as the planes.
    """

    def __init__(
        self,
        root: str | Path,
        split: str = "train",
        *,
        planes: Sequence[str] = ("player", "opponent"),
        max_rows: int = 0,
    ) -> None:
        if max_rows < 0:
            raise ConfigError(f"DatasetSource: max_rows must be >= 0, got {max_rows}")
        manifest = _ds.read_manifest(root)
        size = int(manifest["size"])
        self.arrays = _ds.DatasetSplit(root, split, spec=FeatureSpec(tuple(planes), size))
        self.size = size
        self.planes = tuple(planes)
        total = len(self.arrays)
        self.rows = total if max_rows == 0 else min(max_rows, total)
        self._table = symmetry_table(size).astype(np.int64)

    def __len__(self) -> int:
        return self.rows

    def __repr__(self) -> str:
        return f"<DatasetSource {self.arrays.root}/{self.arrays.split}: {self.rows} rows>"

    def batch(
        self, index: np.ndarray, symmetries: np.ndarray | None = None
    ) -> dict[str, np.ndarray]:
        """The training arrays of the rows ``index``, each under its symmetry if given."""
        index = np.asarray(index, dtype=np.int64)
        syms = (
            np.zeros(len(index), dtype=np.int64)
            if symmetries is None
            else np.asarray(symmetries, dtype=np.int64)
        )
        b = self.arrays.batch(index, syms)
        a = self.arrays.arrays
        plain = action_mask_batch(a["p"][index], a["o"][index], self.size)
        legal = np.zeros_like(plain)
        legal[np.arange(len(index))[:, None], self._table[syms]] = plain
        area = float(self.size * self.size)
        return {
            "planes": b.planes,
            "policy": b.policy,
            "value": b.outcome,
            "score": (b.score / area).astype(np.float32),
            "legal": legal,
        }
