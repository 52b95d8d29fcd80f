"""What a game gives a learner beyond its result: the final ownership of each cell and the
range of its final score (KataGo's auxiliary targets), with generic defaults.

``Game`` inherits ``LearningTargets``: a game without ownership (animal shogi, a game defined
in a test) keeps ``ownership`` returning ``None``, and a network trained on it gets no
ownership head; a game whose final scores are whole numbers in ``-score_scale ..
score_scale`` (the default ``score_range``) gets a score distribution over them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["LearningTargets"]


class LearningTargets:
    """Auxiliary training targets of a finished game (mixed into ``core.games.Game``)."""

    score_scale: float = 1.0
    rows: int = 0
    cols: int = 0

    def start(self) -> tuple[int, int]:
        raise NotImplementedError

    def ownership(self, p: int, o: int) -> np.ndarray | None:
        """Float32 ``(rows * cols,)`` of a final position ``(p, o)``: +1 for a cell the side
        to move owns at the end, -1 for one its opponent owns, 0 for neither; ``None`` for a
        game without ownership (the default)."""
        return None

    def ownership_batch(self, p: np.ndarray, o: np.ndarray) -> np.ndarray:
        """``ownership`` of ``N`` final positions, float32 ``(N, rows * cols)`` (a game with
        ownership only; a faster batched form may override this one)."""
        out = np.zeros((len(p), self.rows * self.cols), dtype=np.float32)
        for i, (a, b) in enumerate(zip(np.asarray(p), np.asarray(o), strict=True)):
            found = self.ownership(int(a), int(b))
            if found is None:
                raise ValueError(f"{self!r} has no ownership of its cells")
            out[i] = found
        return out

    @property
    def has_ownership(self) -> bool:
        """Whether the game gives ownership targets (``ownership`` is not ``None``)."""
        return self.ownership(*self.start()) is not None

    @property
    def score_range(self) -> tuple[int, int] | None:
        """``(lo, hi)``: every final score is a whole number in ``lo .. hi``, the bins of a
        network's score distribution; by default ``-score_scale .. score_scale`` when the
        scale is a whole number (Othello's disc differences, a result +1/0/-1), else
        ``None`` (no score distribution)."""
        scale: Any = self.score_scale
        if float(scale).is_integer() and 1 <= scale <= 1024:
            return -int(scale), int(scale)
        return None
