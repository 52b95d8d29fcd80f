"""MCTS: conformance, optimal endgame moves against brute force, tree reuse, seeds, PUCT."""

from __future__ import annotations

import functools
import itertools

import numpy as np
import pytest

from othellolab import Board, Limit
from othellolab.players import (
    MCTS,
    MCTSPlayer,
    RandomPlayer,
    RandomRolloutEvaluator,
    UniformEvaluator,
    make_player,
)
from othellolab.players.evaluators import legal_priors
from othellolab.records.wthor import read_wtb
from othellolab.testing import check_player, random_game

from helpers import shared_file


def _result(board: Board) -> int:
    """Perfect-play result (+1/0/-1) for the side to move: exhaustive negamax over ``Board``."""
    actions = board.legal_actions()
    if not actions:
        return board.result()
    best = -1
    for a in actions:
        best = max(best, -_result(board.play(a)))
        if best == 1:
            break
    return best


def _move_results(board: Board) -> dict[int, int]:
    return {a: -_result(board.play(a)) for a in board.legal_actions()}


def _decisive_positions(boards, count: int) -> list[tuple[Board, dict[int, int]]]:
    """Positions where the moves do not all lead to the same result (a wrong choice costs)."""
    out = []
    for board in boards:
        if board.is_game_over() or len(board.legal_actions()) < 2:
            continue
        results = _move_results(board)
        if len(set(results.values())) > 1:
            out.append((board, results))
            if len(out) == count:
                break
    return out


def _at_empties(boards, empties: int) -> Board | None:
    return next((b for b in boards if b.num_empties == empties), None)


@functools.cache
def _random_endgames() -> list[tuple[Board, dict[int, int]]]:
    """Decisive positions with 8 empties (the first 3) and 7 empties (3 more) of random games."""
    out = []
    for empties in (8, 7):
        boards = (_at_empties(random_game(8, seed=s), empties) for s in range(200))
        out += _decisive_positions(boards, 3)
    return out


def _wthor_endgames() -> list[tuple[Board, dict[int, int]]]:
    """Positions with 8 empties from real games of the WTHOR 2004 file."""
    path = shared_file("wthor/WTH_2004.wtb")

    def positions():
        for game in itertools.islice(read_wtb(path), 300):
            board = Board()
            for sq in game.moves:
                if board.num_empties == 8:
                    yield board
                    break
                if board.must_pass():
                    board = board.play_pass()
                board = board.play(sq)

    return _decisive_positions(positions(), 4)


def test_conforms_on_every_size() -> None:
    check_player(MCTSPlayer(sims=60, seed=1), games=2)
    check_player(MCTSPlayer(sims=60, batch=8, seed=2), games=1)
    check_player(MCTSPlayer(sims=40, evaluator=UniformEvaluator(), seed=3), games=1)


def test_registry_names_and_options() -> None:
    player = make_player("uct:sims=50,c=2,seed=1,playouts=2,batch=4,time=0.5")
    assert isinstance(player, MCTSPlayer)
    assert (player.sims, player.time, player.tree.c, player.tree.batch) == (50, 0.5, 2.0, 4)
    assert player.tree.evaluator.playouts == 2  # type: ignore[attr-defined]
    assert isinstance(make_player("mcts"), MCTSPlayer)
    with pytest.raises(ValueError, match=r"option sims: must be a whole number in 1\.\."):
        make_player("mcts:sims=0")
    with pytest.raises(ValueError, match=r"option batch: must be a whole number in 1\.\.4096"):
        make_player("mcts:batch=0")
    with pytest.raises(TypeError, match="is not an Evaluator"):
        MCTSPlayer(evaluator="net")  # type: ignore[arg-type]


@pytest.mark.parametrize("index", range(6))
def test_finds_the_optimal_result_with_8_empties(index: int) -> None:
    board, results = _random_endgames()[index]
    move = MCTSPlayer(sims=4000, seed=index).choose(board).move
    assert results[move] == max(results.values()), (board.obf(), results, move)


def test_finds_the_optimal_result_in_real_game_endgames() -> None:
    positions = _wthor_endgames()
    assert len(positions) >= 3
    for board, results in positions:
        move = MCTSPlayer(sims=4000, batch=4, seed=7).choose(board).move
        assert results[move] == max(results.values()), (board.obf(), results, move)


def test_plays_4x4_endgames_perfectly() -> None:
    """On 4x4, where the brute-force oracle solves the whole game, every choice is optimal."""
    # 4x4 Othello is solved as a win for the second player, white (Wikipedia, "Computer
    # Othello"): the oracle must agree before it may judge the search.
    assert _result(Board(size=4)) == -1
    boards = (b for s in range(200) for b in random_game(4, seed=s) if b.num_empties <= 8)
    positions = _decisive_positions(boards, 12)
    assert len(positions) == 12
    for i, (board, results) in enumerate(positions):
        move = MCTSPlayer(sims=1500, batch=2, seed=i).choose(board).move
        assert results[move] == max(results.values()), (board.obf(), results, move)


def test_puct_overcomes_misleading_priors() -> None:
    """A network-like evaluator that puts its prior on the worst move must not fool PUCT."""
    board, results = _random_endgames()[0]
    worst = min(results, key=lambda a: results[a])

    class Misleading:
        has_priors = True

        def __init__(self) -> None:
            self.calls = 0

        def evaluate(self, player, opponent, size):  # type: ignore[no-untyped-def]
            self.calls += 1
            priors = legal_priors(player, opponent, size)
            root = (player == board.player) & (opponent == board.opponent)
            priors[root] = 0.0
            priors[root, worst] = 1.0
            return priors, np.zeros(len(player), dtype=np.float32)

    evaluator = Misleading()
    tree = MCTS(evaluator, batch=8, seed=0)
    result = tree.search(board, simulations=20_000)
    assert result.priors[worst] == 1.0
    assert results[result.best_action()] == max(results.values())
    assert evaluator.calls < 20_000 / 8 + 2  # leaves were evaluated in batches


def test_evaluator_output_is_checked() -> None:
    class Broken:
        has_priors = True

        def evaluate(self, player, opponent, size):  # type: ignore[no-untyped-def]
            return legal_priors(player, opponent, size), np.zeros((len(player), 1))

    with pytest.raises(ValueError, match=r"returned priors of shape \(1, 65\) and values of shape"):
        MCTS(Broken()).search(Board(), simulations=5)


def test_beats_random_on_6x6() -> None:
    wins = 0
    for g in range(10):
        mcts, rnd = MCTSPlayer(sims=300, seed=g), RandomPlayer(seed=500 + g)
        color, board = g % 2, Board(size=6)
        while not board.is_game_over():
            board = board.play((mcts if board.turn == color else rnd).choose(board).move)
        wins += board.outcome().result(color) == 1  # type: ignore[union-attr]
    assert wins >= 9


def test_tree_reuse_keeps_visit_counts() -> None:
    board = Board.from_transcript("f5d6c3d3c4")
    tree = MCTS(seed=1)
    first = tree.search(board, simulations=800)
    assert not first.info["reused"] and first.visits.sum() == 800 - 1
    ours = first.best_action()
    after_ours = board.play(ours)
    second = tree.search(after_ours, simulations=300)  # the same tree used for both sides
    assert second.info["reused"] and second.info["reused_visits"] == first.visits[ours]
    assert second.visits.sum() == first.visits[ours] - 1 + 300
    reply = second.best_action()
    third = tree.search(after_ours.play(reply), simulations=100)
    assert third.info["reused_visits"] == second.visits[reply]
    # Two plies at once: our move and the opponent's reply.
    player = MCTSPlayer(sims=500, seed=2)
    r1 = player.choose(board)
    child = board.play(r1.move)
    reply = child.legal_actions()[0]
    r2 = player.choose(child.play(reply))
    assert r2.info["reused"] and r2.info["reused_visits"] > 0
    assert r2.info["root_visits"] == r2.info["reused_visits"] - 1 + 500
    assert not player.tree.nodes["vl"].any()  # no virtual loss left behind
    # Without reuse, or after reset, the tree starts afresh.
    fresh = MCTSPlayer(sims=500, seed=2, reuse=False)
    fresh.choose(board)
    assert fresh.choose(child.play(reply)).info["reused_visits"] == 0
    player.reset()
    assert not player.choose(board).info["reused"]


def test_policy_is_the_visit_distribution() -> None:
    board = Board.from_transcript("f5f6e6f4")
    result = MCTSPlayer(sims=400, seed=5).choose(board)
    policy = result.policy
    assert policy is not None and policy.sum() == pytest.approx(1.0)
    legal = board.legal_action_mask()
    assert not policy[~legal].any() and (policy[legal] > 0).all()
    assert policy[result.move] == policy.max()
    assert result.info["visits"] == round(policy[result.move] * result.info["root_visits"])
    assert result.score is not None and -1 <= result.score.value <= 1


def test_temperature_and_search_result_policy() -> None:
    board = Board.from_transcript("f5f6e6f4")
    result = MCTS(seed=1).search(board, simulations=300)
    greedy = result.policy(0)
    assert greedy[result.best_action()] == 1.0 and greedy.sum() == 1.0
    flat = result.policy(1e6)
    assert np.allclose(flat[result.legal], 1 / result.legal.sum(), atol=1e-3)
    moves = {MCTSPlayer(sims=100, temperature=5.0, seed=s).choose(board).move for s in range(12)}
    assert len(moves) > 1  # sampling from the visits varies the move


def test_seeds_reproduce() -> None:
    board = Board.from_transcript("f5d6c3")

    def visits(seed: int, batch: int = 1) -> list[int]:
        return MCTS(seed=seed, batch=batch).search(board, simulations=500).visits.tolist()

    assert visits(3) == visits(3) and visits(3) != visits(4)
    assert visits(3, 8) == visits(3, 8)


def test_dirichlet_noise_at_the_root() -> None:
    board = Board()
    quiet = MCTS(UniformEvaluator(), seed=1).search(board, simulations=50)
    assert np.allclose(quiet.priors[quiet.legal], 0.25)
    noisy = MCTS(UniformEvaluator(), dirichlet_alpha=0.3, seed=1).search(board, simulations=50)
    again = MCTS(UniformEvaluator(), dirichlet_alpha=0.3, seed=1).search(board, simulations=50)
    assert noisy.priors.sum() == pytest.approx(1.0) and not noisy.priors[~noisy.legal].any()
    assert not np.allclose(noisy.priors[noisy.legal], 0.25)
    assert noisy.priors.tolist() == again.priors.tolist()


def test_passes_and_terminal_nodes() -> None:
    """A forced pass is played at once; a position one move from a won end is valued exactly."""
    forced = next(b for s in range(100) for b in random_game(8, seed=s) if b.must_pass())
    result = MCTSPlayer(sims=50, seed=0).choose(forced)
    assert result.move == forced.pass_action
    board = next(
        b
        for s in range(100)
        for b in random_game(6, seed=s)
        if b.num_empties == 1 and b.legal_actions() and b.legal_actions() != [b.pass_action]
    )
    search = MCTS(UniformEvaluator(), seed=0).search(board, simulations=20)
    for a in board.legal_actions():
        # The child is terminal (or one forced reply away): its value is exact.
        assert search.q[a] == -_result(board.play(a))


def test_time_limit() -> None:
    result = MCTSPlayer(seed=0).choose(Board(), Limit(time=0.05))
    assert result.info["simulations"] > 10 and result.info["seconds"] < 2
    assert (
        MCTSPlayer(sims=10_000, seed=0).choose(Board(), Limit(simulations=30)).info["simulations"]
        == 30
    )
    with pytest.raises(ValueError, match="the game is over"):
        MCTS(RandomRolloutEvaluator(seed=0)).search(
            next(b for b in random_game(4, seed=0) if b.is_game_over())
        )
