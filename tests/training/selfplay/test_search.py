"""Batched searches: each variant finds an outright win with few simulations, spends exactly its
budget, and a batch of searches agrees with searching the positions one by one."""

from __future__ import annotations

import functools

import numpy as np
import pytest

from othellolab.core import Board
from othellolab.core.games import get_game
from othellolab.players import UniformEvaluator
from othellolab.players.mcts.batch import SearchConfig
from othellolab.testing import random_game
from othellolab.training.selfplay import BatchSearch, search_positions


@functools.cache
def outright_wins(size: int, count: int) -> list[tuple[Board, int]]:
    """Positions from random games where exactly one of two or more moves ends the game with a
    win for the mover: a win that only the exact value of a finished game reveals."""
    out = []
    for seed in range(2000):
        for board in random_game(size, seed=seed):
            actions = board.legal_actions()
            if board.num_empties > 8 or len(actions) < 2 or board.must_pass():
                continue
            wins = []
            for a in actions:
                child = board.play(a)
                if child.is_game_over() and -child.result() == 1:
                    wins.append(a)
            if len(wins) == 1:
                out.append((board, wins[0]))
                break
        if len(out) == count:
            return out
    raise AssertionError("not enough positions")


CONFIGS = {
    "puct": SearchConfig(simulations=24, leaves=4),
    "gumbel": SearchConfig(simulations=16, leaves=4, variant="gumbel"),
    "gumbel few actions": SearchConfig(simulations=16, variant="gumbel", gumbel_actions=4),
}


@pytest.mark.parametrize("name", CONFIGS)
@pytest.mark.parametrize("size", [4, 6])
def test_every_variant_finds_an_outright_win(name: str, size: int) -> None:
    positions = outright_wins(size, 6)
    config = CONFIGS[name]
    if name == "gumbel few actions":
        # Four sampled actions may miss the win; with the prior on it they may not.
        class Knowing(UniformEvaluator):
            has_priors = True

            def evaluate(self, player, opponent, size):  # type: ignore[no-untyped-def]
                priors, values = super().evaluate(player, opponent, size)
                for b, win in positions:
                    here = (player == b.player) & (opponent == b.opponent)
                    priors[here] = 0.5 * priors[here]
                    priors[here, win] += 0.5
                return priors, values

        evaluator = Knowing()
    else:
        evaluator = UniformEvaluator()
    player = np.array([b.player for b, _ in positions], np.uint64)
    opponent = np.array([b.opponent for b, _ in positions], np.uint64)
    moves, targets, _ = search_positions(
        evaluator, player, opponent, get_game("othello", size=size), config
    )
    assert moves.tolist() == [w for _, w in positions]
    assert np.allclose(targets.sum(axis=1), 1.0)
    for (b, w), t in zip(positions, targets, strict=True):
        assert not t[~b.legal_action_mask()].any()
        assert t[w] == t.max()


@pytest.mark.parametrize("variant", ["puct", "gumbel"])
@pytest.mark.parametrize("sims", [1, 7, 50])
def test_a_search_spends_exactly_its_budget(variant: str, sims: int) -> None:
    boards = [
        Board(size=6),
        Board.from_transcript("f5d6c3d3c4"),
        *list(random_game(8, seed=3))[20:23],
    ]
    for board in boards:
        config = SearchConfig(simulations=sims, leaves=3, variant=variant, seed=0)
        search = BatchSearch(
            UniformEvaluator(),
            get_game("othello", size=board.size),
            1,
            config,
            np.random.default_rng(0),
        )
        search.forest.plant(
            np.array([0]),
            np.array([board.player], np.uint64),
            np.array([board.opponent], np.uint64),
        )
        search.start(0, sims, noise=False)
        steps = 0
        while search.active():
            search.step()
            steps += 1
        out = search.outcome(0)
        assert out.visits.sum() == sims == out.simulations
        assert steps <= 1 + sims  # the root's evaluation, then at most one step per simulation
        if variant == "puct":
            assert steps == 1 + -(-sims // 3)
        assert out.target.sum() == pytest.approx(1.0)
        assert board.legal_action_mask()[out.move]


def test_gumbel_visits_only_sampled_actions_and_halves_them() -> None:
    board = Board()  # 4 legal moves
    config = SearchConfig(simulations=40, variant="gumbel", gumbel_actions=2, seed=0)
    search = BatchSearch(UniformEvaluator(), "othello8", 1, config, np.random.default_rng(5))
    search.forest.plant(
        np.array([0]), np.array([board.player], np.uint64), np.array([board.opponent], np.uint64)
    )
    search.start(0, 40, noise=False)
    while search.active():
        search.step()
    out = search.outcome(0)
    assert (out.visits > 0).sum() == 2 and out.visits.sum() == 40
    # The improved policy still covers every legal action (unvisited: completed by the value).
    assert (out.target[board.legal_action_mask()] > 0).all()


def test_a_batch_of_searches_matches_searching_one_by_one() -> None:
    boards = [list(random_game(6, seed=s))[8] for s in range(6)]
    boards = [b for b in boards if len(b.legal_actions()) > 1]
    player = np.array([b.player for b in boards], np.uint64)
    opponent = np.array([b.opponent for b in boards], np.uint64)
    for variant in ("puct", "gumbel"):
        config = SearchConfig(simulations=30, leaves=4, variant=variant, parallel=4)
        together = search_positions(
            UniformEvaluator(), player, opponent, get_game("othello", size=6), config
        )
        for i in range(len(boards)):
            alone = search_positions(
                UniformEvaluator(), player[i : i + 1], opponent[i : i + 1], "othello6", config
            )
            assert alone[0][0] == together[0][i]
            assert np.array_equal(alone[1][0], together[1][i])


def test_forced_and_finished_positions() -> None:
    forced = next(b for s in range(100) for b in random_game(6, seed=s) if b.must_pass())
    moves, targets, _ = search_positions(
        UniformEvaluator(),
        np.array([forced.player], np.uint64),
        np.array([forced.opponent], np.uint64),
        "othello6",
    )
    assert moves[0] == 36 and targets[0, 36] == 1.0
    over = next(b for b in random_game(4, seed=0) if b.is_game_over())
    with pytest.raises(ValueError, match="finished game"):
        search_positions(
            UniformEvaluator(),
            np.array([over.player], np.uint64),
            np.array([over.opponent], np.uint64),
            "othello4",
        )


def test_dirichlet_noise_and_tree_reuse() -> None:
    board = Board.from_transcript("f5d6c3")
    config = SearchConfig(simulations=60, leaves=4, dirichlet_alpha=0.3, seed=0)
    search = BatchSearch(UniformEvaluator(), "othello8", 2, config, np.random.default_rng(0))
    trees = np.arange(2)
    search.forest.plant(
        trees, np.full(2, board.player, np.uint64), np.full(2, board.opponent, np.uint64)
    )
    search.start(0, 60, noise=True)
    search.start(1, 60, noise=False)
    while search.active():
        search.step()
    noisy, quiet = search.forest.root_children(0)["prior"], search.forest.root_children(1)["prior"]
    assert quiet.tolist() == pytest.approx([1 / len(quiet)] * len(quiet))
    assert noisy.sum() == pytest.approx(1.0) and not np.allclose(noisy, quiet)
    out = search.outcome(0)
    # Reuse: the subtree of the move played keeps its visits, and counts towards the next budget.
    kept = int(out.visits[out.move])
    search.forest.advance(np.array([0]), np.array([out.move]))
    search.start(0, 60, noise=False)
    while search.active():
        search.step()
    again = search.outcome(0)
    assert again.simulations == max(60 - (kept - 1), 1)
    assert again.visits.sum() == max(60, kept - 1 + 1)


def test_gumbel_plays_without_its_noise_at_temperature_zero() -> None:
    """With a uniform evaluator every action ties on logits and sigma, so the noisy winner is
    the action of highest Gumbel draw among the most visited, and without the noise the first
    of them (argmax takes the first of equal scores): the two differ for some seed."""
    board = Board()
    config = SearchConfig(simulations=8, variant="gumbel", gumbel_actions=4)
    differ = 0
    for seed in range(20):
        moves = []
        for temperature in (1.0, 0.0):
            search = BatchSearch(
                UniformEvaluator(), "othello8", 1, config, np.random.default_rng(seed)
            )
            search.forest.plant(
                np.array([0]),
                np.array([board.player], np.uint64),
                np.array([board.opponent], np.uint64),
            )
            search.start(0, 8, noise=True)
            while search.active():
                search.step()
            root = search.roots[0]
            assert root is not None
            top = root.actions[
                np.flatnonzero(
                    search.forest.root_children(0)["n"] == max(search.forest.root_children(0)["n"])
                )
            ]
            out = search.outcome(0, temperature=temperature)
            assert out.move in top
            if temperature == 0:
                assert out.move == top[0]
            moves.append(out.move)
        differ += moves[0] != moves[1]
    assert differ > 0


def test_root_noise_only_when_asked() -> None:
    """``noise=True`` mixes Dirichlet noise into each root as self-play's full searches do (a
    uniform prior's visits then vary with the seed); the default searches stay noise-free."""
    boards = [b for b in list(random_game(8, seed=3))[:20] if len(b.legal_actions()) >= 4][:4]
    player = np.array([b.player for b in boards], np.uint64)
    opponent = np.array([b.opponent for b in boards], np.uint64)

    class WithPriors(UniformEvaluator):  # noise goes into priors; a uniform one has none
        has_priors = True

    def targets(noise: bool, seed: int) -> np.ndarray:
        config = SearchConfig(simulations=32, leaves=1, dirichlet_epsilon=0.5, seed=seed)
        found = search_positions(WithPriors(), player, opponent, "othello8", config, noise=noise)
        return found[1]

    assert np.array_equal(targets(False, 1), targets(False, 2))
    assert not np.array_equal(targets(True, 1), targets(True, 2))
    for t, b in zip(targets(True, 1), boards, strict=True):
        assert np.isclose(t.sum(), 1.0) and not t[~b.legal_action_mask()].any()
