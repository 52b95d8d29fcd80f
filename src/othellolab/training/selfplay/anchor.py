"""Expert positions mixed into self-play training (``[train] anchor``): rows in the window's
format, the expert's move as a one-hot policy target (a full search, so it trains the policy)
and the game's result as the value.

A run that starts from a supervised network learns, in its first generations, from a few
thousand self-play games; a share of each batch from the games the network was trained on
keeps what those taught while self-play adds what the search finds (as AlphaStar kept its
supervised policy in view). The auxiliary targets have no anchor rows (their masks are 0).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from othellolab.core import ConfigError
from othellolab.core.games import Game
from othellolab.training.selfplay.records import POSITION_DTYPES, TARGET_DTYPES
from othellolab.training.selfplay.runconfig import SelfPlayTrainConfig
from othellolab.training.selfplay.trainer import Window

__all__ = ["load_anchor"]


def load_anchor(train: SelfPlayTrainConfig, game: Game, seed: int) -> Window:
    """``train.anchor_positions`` positions of ``train.anchor`` (drawn with ``seed``; moves
    only, no forced passes) as a ``Window`` of expert rows for ``game`` (Othello, its size)."""
    from othellolab.datasets.heldout import load_positions

    path = Path(train.anchor)
    if path.is_dir() and any(path.glob("WTH_*.wtb")) and not train.anchor_years:
        raise ConfigError(
            f"{path} is a folder of WTHOR files: name the years to mix in with anchor_years "
            "(e.g. '1977-2021', the years the supervised network trained on)",
            option="anchor_years",
        )
    try:
        pos = load_positions(
            [path], split="train", years=train.anchor_years or None, size=game.rows
        )
    except ConfigError as e:
        raise ConfigError(e.what, where=e.where, option="anchor") from None
    area = game.rows * game.cols
    rows = np.flatnonzero(pos.move < area)
    if not len(rows):
        raise ConfigError(f"{path}: no positions to mix in", option="anchor")
    if train.anchor_positions < len(rows):
        pick = np.random.default_rng([seed, 41]).choice(
            len(rows), train.anchor_positions, replace=False
        )
        rows = rows[np.sort(pick)]
    n = len(rows)
    policy = np.zeros((n, game.n_actions), dtype=POSITION_DTYPES["policy"])
    policy[np.arange(n), pos.move[rows]] = 1.0
    outcome = pos.outcome[rows].astype(np.float32)
    arrays = {
        "player": pos.player[rows].astype(POSITION_DTYPES["player"]),
        "opponent": pos.opponent[rows].astype(POSITION_DTYPES["opponent"]),
        "policy": policy,
        "value": outcome,
        "result": np.sign(outcome).astype(POSITION_DTYPES["result"]),
        "score": np.clip(pos.score[rows], -area, area).astype(POSITION_DTYPES["score"]),
        "full_search": np.ones(n, dtype=POSITION_DTYPES["full_search"]),
        "final_player": np.zeros(n, dtype=TARGET_DTYPES["final_player"]),
        "final_opponent": np.zeros(n, dtype=TARGET_DTYPES["final_opponent"]),
        "final_side": np.zeros(n, dtype=TARGET_DTYPES["final_side"]),
        "next_action": np.full(n, -1, dtype=TARGET_DTYPES["next_action"]),
    }
    window = Window.from_arrays(arrays, game)
    window.description = f"{n:,} positions of {pos.description}"
    return window
