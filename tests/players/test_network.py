"""Network players: conformance on every board size, spec strings, lazy torch import."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="the nn extra (torch) is not installed")

from othellolab.core import Board, ConfigError, Limit  # noqa: E402
from othellolab.nn.config import model_config  # noqa: E402
from othellolab.nn.io import save_model  # noqa: E402
from othellolab.nn.models import build_model  # noqa: E402
from othellolab.players import make_player  # noqa: E402
from othellolab.testing import check_player, random_game  # noqa: E402


@pytest.fixture(scope="module")
def model_dirs(tmp_path_factory: pytest.TempPathFactory) -> dict[int, Path]:
    out = {}
    for size in (8, 6, 4):
        torch.manual_seed(size)
        model = build_model(model_config("resnet-b1c8", size=size, score_head=size == 6))
        out[size] = save_model(model.eval(), tmp_path_factory.mktemp(f"m{size}"))
    return out


@pytest.mark.parametrize(
    "spec",
    ["policy", "policy:temperature=1.0,seed=2", "value:seed=1", "alphazero:sims=8,seed=3"],
)
@pytest.mark.parametrize("size", [8, 6, 4])
def test_check_player(model_dirs: dict[int, Path], spec: str, size: int) -> None:
    sep = "," if ":" in spec else ":"
    player = make_player(f"{spec}{sep}model={model_dirs[size]}")
    check_player(player, sizes=(size,), games=2, seed=size)


def test_argmax_policy_plays_the_most_probable_legal_move(model_dirs: dict[int, Path]) -> None:
    player = make_player(f"policy:model={model_dirs[8]}")
    board = Board().play("f5")
    result = player.choose(board)
    legal = board.legal_actions()
    assert result.move == legal[int(np.argmax(result.policy[legal]))]
    assert result.score is not None and 0 <= result.score.win_prob <= 1


def test_sampling_spreads_over_legal_moves_only(model_dirs: dict[int, Path]) -> None:
    player = make_player(f"policy:model={model_dirs[8]},temperature=5.0,seed=0")
    board = Board().play("f5")
    moves = {player.choose(board).move for _ in range(60)}
    assert moves <= set(board.legal_actions()) and len(moves) >= 2


def test_value_player_takes_a_move_that_wins_at_once(model_dirs: dict[int, Path]) -> None:
    # Positions (from random 4x4 games) where some move ends the game with a win for the
    # mover: that move is worth exactly +1, any unfinished position less, so it must be chosen.
    player = make_player(f"value:model={model_dirs[4]}")
    found = 0
    for seed in range(150):
        for board in random_game(4, seed=seed):
            legal = board.legal_actions()
            wins = [a for a in legal if board.play(a).is_game_over() and board.play(a).score() < 0]
            if wins and any(not board.play(a).is_game_over() for a in legal):
                assert player.choose(board).move in wins, board.obf()
                found += 1
    assert found >= 3


def test_a_missing_model_directory_is_an_error() -> None:
    with pytest.raises(ValueError, match="not a model directory"):
        make_player("value:model=/nonexistent/model")


def test_importing_players_does_not_import_torch() -> None:
    code = (
        "import sys, othellolab, othellolab.players, othellolab.players.network, othellolab.nn\n"
        "from othellolab.players import available_players\n"
        "names = [e.name for e in available_players()]\n"
        "assert 'policy' in names and 'value' in names, names\n"
        "assert 'torch' not in sys.modules, 'torch was imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_a_model_of_another_board_size_is_refused(model_dirs: dict[int, Path]) -> None:
    for spec in ("policy", "value", "alphazero:sims=4"):
        player = make_player(f"{spec}{',' if ':' in spec else ':'}model={model_dirs[6]}")
        with pytest.raises(ConfigError, match=r"plays 6x6 boards, not 8x8") as info:
            player.choose(Board())
        assert info.value.option == "model" and str(model_dirs[6]) not in str(info.value)


def test_alphazero_finds_the_move_that_wins_at_once(model_dirs: dict[int, Path]) -> None:
    """Whatever an untrained network says, the search sees the finished games below the root:
    on 4x4, a position where one move wins outright (its value is exact) gets the visits."""
    board = Board.from_obf("----XXXO-XOO-OOO O")
    wins = [a for a in board.legal_actions() if board.play(a).outcome() is not None
            and board.play(a).outcome().result(board.turn) == 1]  # fmt: skip
    assert wins, "the test position must have a move that wins at once"
    player = make_player(f"alphazero:sims=200,model={model_dirs[4]}")
    assert player.choose(board).move in wins


def test_alphazero_solves_the_endgame_when_asked() -> None:
    """``endgame=K``: within K empties the move is the exact solver's (an optimal one, the
    score exact), whatever the network thinks."""
    from othellolab.players.search import solve
    from othellolab.players.search.solved6 import move_scores
    from othellolab.testing import random_game

    player = make_player("alphazero:model=az-6x6,sims=2,endgame=10")
    boards = [b for s in range(8) for b in random_game(6, seed=s) if b.num_empties == 9]
    boards = [b for b in boards if len(b.legal_actions()) >= 2][:6]
    assert boards
    for board in boards:
        result = player.choose(board)
        scores = dict(move_scores(board))
        assert scores[result.move] == max(scores.values())
        assert result.score.exact and result.score.value == solve(board).score


def test_alphazero_with_a_gumbel_root(model_dirs: dict[int, Path]) -> None:
    """With one simulation a Gumbel root plays the policy head's choice (the policy player's);
    with more it searches and returns the improved policy over the legal moves."""
    for board in list(random_game(6, seed=4))[2:8]:
        if len(board.legal_actions()) < 2:
            continue
        policy = make_player(f"policy:model={model_dirs[6]}").choose(board).move
        az = make_player(f"alphazero:model={model_dirs[6]},root=gumbel,sims=1")
        assert az.choose(board).move == policy
    deep = make_player(f"alphazero:model={model_dirs[6]},root=gumbel,sims=24,seed=1")
    result = deep.choose(Board(size=6))
    assert result.info["root"] == "gumbel" and result.info["simulations"] == 24
    assert result.policy[~Board(size=6).legal_action_mask()].sum() == 0
    with pytest.raises(ConfigError, match="option root"):
        make_player(f"alphazero:model={model_dirs[6]},root=best")


def test_alphazero_backs_up_the_score_utility_when_asked(model_dirs: dict[int, Path]) -> None:
    """``score_utility`` reaches the evaluator (its values become ``nn.inference.utility`` of
    the value and score heads); a model without a score output, or a bad number, is refused by
    the option's name."""
    from othellolab.nn.inference import utility

    board = Board(size=6)
    p, o = np.array([board.player], np.uint64), np.array([board.opponent], np.uint64)
    plain = make_player(f"alphazero:model={model_dirs[6]},sims=8")
    mixed = make_player(f"alphazero:model={model_dirs[6]},sims=8,score_utility=0.5")
    full = mixed.evaluator.evaluate_full(p, o)
    _, values = mixed.evaluator.evaluate(p, o, mixed.evaluator.config.rules)
    assert values == pytest.approx(utility(full.values, full.scores, 0.5, 0.25))
    assert values != pytest.approx(plain.evaluator.evaluate(p, o, plain.evaluator.config.rules)[1])
    assert mixed.choose(board).move in board.legal_actions()
    with pytest.raises(ConfigError, match="score_utility"):
        make_player(f"alphazero:model={model_dirs[8]},score_utility=0.5")  # no score head
    with pytest.raises(ConfigError, match="score_utility"):
        make_player(f"alphazero:model={model_dirs[6]},score_utility=nan")


def test_alphazero_with_a_solve_plans_its_game_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """With ``endgame=K`` the player spends a game clock itself, as ``alphabeta`` does: before
    the solve MCTS gets ``players.clock.plan``'s share (never the clock itself); a solve that
    runs out leaves the search an even share of what is left, and a per-move time the rest of
    that time, so a move never takes the solve's time twice."""
    import othellolab.players.search as search
    from othellolab.players.clock import plan
    from othellolab.testing import random_game

    player = make_player("alphazero:model=az-6x6,sims=2,endgame=10")
    assert player.plans_time and not make_player("alphazero:model=az-6x6,sims=2").plans_time
    seen: list[Limit] = []
    inner = player.search.choose
    monkeypatch.setattr(player.search, "choose", lambda b, lim: seen.append(lim) or inner(b))
    boards = list(random_game(6, seed=3))
    early = next(b for b in boards if b.num_empties == 20 and b.legal_actions())
    player.choose(early, Limit(clock=6.0))
    share = plan(6.0, 20, endgame=10)
    assert seen[-1].clock is None
    assert seen[-1].time == pytest.approx(share.target) and seen[-1].max_time == share.cap

    def out_of_time(*args: object, **kwargs: object) -> None:
        raise search.SolveAborted("time")

    monkeypatch.setattr(search, "solve", out_of_time)
    late = next(b for b in boards if b.num_empties == 8 and len(b.legal_actions()) >= 2)
    player.choose(late, Limit(clock=2.0))
    assert seen[-1].clock is None and 0 < seen[-1].time <= 2.0 / 4
    player.choose(late, Limit(time=0.5))
    assert 0.01 <= seen[-1].time < 0.5
    timed = make_player("alphazero:model=az-6x6,time=0.4,endgame=10")
    inner = timed.search.choose
    monkeypatch.setattr(timed.search, "choose", lambda b, lim: seen.append(lim) or inner(b))
    timed.choose(late)  # its own time per move, less what the failed solve spent
    assert 0.01 <= seen[-1].time < 0.4


def test_symmetries_average_the_network_in_every_player() -> None:
    """``symmetries=8`` gives the 4 first moves (one move up to symmetry) the same prior, and
    is refused beyond the game's symmetries (animal shogi has 2)."""
    from othellolab.core import ConfigError

    r = make_player("policy:model=b6c48-all,symmetries=8").choose(Board())
    assert np.allclose(r.policy[Board().legal_actions()], 0.25, atol=1e-6)
    assert make_player("alphazero:model=b6c48-all,sims=16,symmetries=2").choose(Board()).move in (
        Board().legal_actions()
    )
    with pytest.raises(ConfigError, match="player 'value'.*symmetries.*animal shogi has 2"):
        make_player("value:model=az-animal-shogi,symmetries=8")
