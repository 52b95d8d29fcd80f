"""The DQN example learns: a shortened run beats a random agent on the same evaluation games."""

from __future__ import annotations

import importlib.util
import sys

import pytest

from helpers import REPO

torch = pytest.importorskip("torch")


def load_example():
    path = REPO / "examples" / "train_dqn.py"
    spec = importlib.util.spec_from_file_location("train_dqn", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["train_dqn"] = module
    spec.loader.exec_module(module)
    return module


def test_short_training_beats_the_random_baseline(tmp_path) -> None:
    ex = load_example()
    torch.set_num_threads(1)
    cfg = ex.Config(
        transitions=10_000, num_envs=32, learning_starts=1_000, eval_every=10**9, eval_games=200
    )
    _, result = ex.train(cfg, progress=False)
    baseline = ex.random_baseline(cfg, 200, seed=cfg.seed + 1_000_000)
    # A uniformly random agent wins about 45% of 6x6 games against the random opponent.
    assert 0.3 < baseline < 0.6
    assert result.win_rate >= baseline + 0.1, (result.win_rate, baseline)
    assert result.curve_train_win and result.transitions >= 10_000
    ex.plot(result, cfg, tmp_path / "curve.png")
    assert (tmp_path / "curve.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
