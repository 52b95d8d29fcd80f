"""Positions with targets for the pattern fit: the value type every source becomes (WTHOR
replays, search-labelled runs, ``.npz`` files) and the ``.npz`` reader. Its own module so that
the sources (``fitting.labelled``) and the fit (``fitting.patterns``) both import it."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from othellolab.core import ConfigError
from othellolab.core.kernels import popcount_batch

__all__ = ["Positions", "read_positions"]


@dataclass(frozen=True, eq=False)
class Positions:
    """Positions with their targets: bitboards, empties, final disc difference (side to move),
    and each position's weight in a fit (``None``: all 1)."""

    p: np.ndarray
    o: np.ndarray
    empties: np.ndarray
    score: np.ndarray
    weight: np.ndarray | None = None

    @classmethod
    def of(cls, player: np.ndarray, opponent: np.ndarray, score: np.ndarray) -> Positions:
        """Positions from bitboards and final scores, in the dtypes the kernels take."""
        p = np.asarray(player).astype(np.uint64)
        o = np.asarray(opponent).astype(np.uint64)
        if not (p.ndim == 1 and p.shape == o.shape == np.shape(score)):
            raise ValueError(
                f"player, opponent and score must be 1-D arrays of one length, got shapes "
                f"{p.shape}, {o.shape}, {np.shape(score)}"
            )
        if (p & o).any():
            raise ValueError(f"position {int(np.flatnonzero(p & o)[0])}: a square holds both sides")
        empties = 64 - popcount_batch(p | o).astype(np.int64)
        return cls(p, o, empties, np.asarray(score).astype(np.float64))

    def __len__(self) -> int:
        return len(self.score)

    def weighted(self, weight: float) -> Positions:
        """These positions, each counted ``weight`` times in a fit."""
        return replace(self, weight=np.full(len(self.score), float(weight)))


def read_positions(path: str | Path) -> Positions:
    """Positions from an ``.npz`` file of 1-D arrays ``player`` and ``opponent`` (bitboards of
    the side to move and the other) and the target from the side to move, ``score`` (or
    ``exact``, as ``experiments/exact-labels/exact_labels.py`` writes); a file that is not one is a
    ``ConfigError`` naming it."""
    import zipfile

    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"{path}: no such positions file")
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {k: data[k] for k in data.files}
    except (OSError, ValueError, zipfile.BadZipFile, EOFError) as e:
        raise ConfigError(f"{path}: not a readable .npz positions file ({e})") from None
    targets = [k for k in ("score", "exact") if k in arrays]
    missing = [k for k in ("player", "opponent") if k not in arrays] + (
        [] if targets else ["score"]
    )
    if missing or len(targets) > 1:
        raise ConfigError(
            f"{path}: a positions file holds arrays player, opponent and one of score/exact; "
            f"it has {', '.join(sorted(arrays)) or 'none'}"
        )
    score = arrays[targets[0]]
    if (
        score.dtype.kind not in "iuf"
        or not np.isfinite(score).all()
        or np.abs(score).max(initial=0) > 64
    ):
        raise ConfigError(f"{path}: {targets[0]} must be finite disc differences in -64..64")
    if arrays["player"].dtype.kind not in "iu" or arrays["opponent"].dtype.kind not in "iu":
        raise ConfigError(f"{path}: player and opponent must be integer bitboards")
    try:
        return Positions.of(arrays["player"], arrays["opponent"], score)
    except ValueError as e:
        raise ConfigError(f"{path}: {e}") from None
