"""The grading examples run end to end on tiny budgets: a DQN graded on the 4x4 solution, and
(with sb3-contrib installed) MaskablePPO graded on the solved 6x6 positions."""

from __future__ import annotations

import importlib.util
import sys

import pytest

from helpers import REPO

torch = pytest.importorskip("torch")


def load(name: str):
    path = REPO / "examples" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def test_dqn_is_graded_on_the_4x4_solution() -> None:
    torch.set_num_threads(1)
    ex = load("grade_dqn")
    dqn = ex.load_train_dqn()
    cfg = dqn.Config(
        size=4, transitions=2_000, learning_starts=500, eval_every=10**9, eval_games=20
    )
    net, _ = dqn.train(cfg, progress=False)
    grades = ex.grade(net, 4)
    assert 0.3 < grades["optimal_share"] <= 1.0
    # Perfect play holds Black to -10 and White to +10; no policy does better against it.
    assert grades["score_as_black"] <= -10 and grades["score_as_white"] <= 10


@pytest.mark.skipif(
    importlib.util.find_spec("sb3_contrib") is None,
    reason="sb3-contrib is not installed (optional extra: pip install -e '.[rl]')",
)
def test_maskable_ppo_is_graded_on_the_solved_6x6_positions() -> None:
    from othellolab.players.search.solved6 import grade_positions, load_solved_set

    torch.set_num_threads(1)
    ex = load("train_maskable_ppo")
    model = ex.make_model(0)
    grade = grade_positions(load_solved_set()[:30], ex.policy(model), games=2)
    assert grade.positions == 30 and 0.0 <= grade.optimal_share <= 1.0
    assert grade.mean_game_loss >= 0  # nothing plays better than the solver's value
    wins, draws = ex.win_rate(model, "random", 4, seed=0)
    assert 0.0 <= wins + draws <= 1.0
