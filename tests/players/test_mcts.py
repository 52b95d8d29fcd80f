"""MCTS: conformance, optimal endgame moves against brute force, tree reuse, seeds, PUCT."""

from __future__ import annotations

import functools
import itertools

import numpy as np
import pytest

from othellolab import Board, Limit
from othellolab.core import ConfigError
from othellolab.core.games import get_game
from othellolab.players import (
    MCTS,
    MCTSPlayer,
    RandomPlayer,
    RandomRolloutEvaluator,
    UniformEvaluator,
    make_player,
)
from othellolab.players.evaluators import legal_priors
from othellolab.players.mcts import Forest
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
    assert search.solved  # every child is a finished game or one forced pass from it
    truth = {a: -_result(board.play(a)) for a in board.legal_actions()}
    assert search.exact[search.best_action()] == max(truth.values())
    for a in board.legal_actions():
        assert np.isnan(search.exact[a]) or search.exact[a] == truth[a]


def _negamax_score(board: Board) -> int:
    """Exact disc difference for the side to move: exhaustive negamax over ``Board`` (the
    independent oracle of the tree's proofs)."""
    actions = board.legal_actions()
    if not actions:
        return board.score()
    return max(-_negamax_score(board.play(a)) for a in actions)


@pytest.mark.parametrize("score_weight", [0.0, 0.5, 1.0])
def test_proofs_match_negamax(score_weight: float) -> None:
    """With enough simulations the tree proves positions of 5-7 empties: the exact value of
    every root action it proved equals exhaustive negamax's (``terminal_value`` of the disc
    score), the root's too, and the move it plays is a best one (a child shown to be no
    better than a proven one need not be proved itself, as in alpha-beta)."""
    boards = [
        b
        for s in range(40)
        for b in random_game(6, seed=s)
        if 5 <= b.num_empties <= 6 and len(b.legal_actions()) >= 2
    ][::5]
    assert len(boards) >= 8

    class Blind:
        """Uniform priors and value 0 under PUCT (which, unlike UCT, visits every sibling
        of a proven child polynomially often, so whole subtrees get proved)."""

        has_priors = True

        def evaluate(self, player, opponent, size):  # type: ignore[no-untyped-def]
            return legal_priors(player, opponent, size), np.zeros(len(player), np.float32)

    for board in boards:
        tree = MCTS(Blind(), seed=0, score_weight=score_weight)
        search = tree.search(board, simulations=300_000)
        assert search.solved, board.obf()
        truth = {
            a: get_game("othello", size=6).value(-_negamax_score(board.play(a)), score_weight)
            for a in board.legal_actions()
        }
        proved = {a: search.exact[a] for a in truth if not np.isnan(search.exact[a])}
        assert proved == pytest.approx({a: truth[a] for a in proved}, abs=1e-6)
        assert search.value == pytest.approx(max(truth.values()), abs=1e-6)
        assert truth[search.best_action()] == pytest.approx(max(truth.values()), abs=1e-6)
        assert search.simulations < 300_000  # the search stopped once the root was solved


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


# ----------------------------------------------------------------------------------------------
# The forest: many trees in one node array, on the same kernels.


class _HashEvaluator:
    """Deterministic network-like evaluator: priors and values from a hash of the position."""

    has_priors = True

    def evaluate(self, player, opponent, size):  # type: ignore[no-untyped-def]
        priors = legal_priors(player, opponent, size)
        h = (player * np.uint64(0x9E3779B97F4A7C15)) ^ (opponent * np.uint64(0xBF58476D1CE4E5B9))
        bumps = (
            (h[:, None] >> np.arange(priors.shape[1], dtype=np.uint64) % np.uint64(61))
            & np.uint64(7)
        ).astype(np.float32)
        priors = priors * (1 + bumps)
        total = priors.sum(axis=1, keepdims=True)
        priors = np.where(total > 0, priors / np.where(total > 0, total, 1), 0).astype(np.float32)
        values = ((h >> np.uint64(40)).astype(np.float64) / 2**24 * 2 - 1).astype(np.float32)
        return priors, values


def _forest_search(forest: Forest, trees: np.ndarray, sims: int, batch: int, evaluator) -> None:
    """What ``MCTS.search`` does, in every tree at once: the root first, then batches."""
    forest.step(evaluator, trees, np.ones(len(trees), dtype=np.int64), c=1.5, use_prior=True)
    done = 1
    while done < sims:
        step = min(batch, sims - done)
        forest.step(evaluator, trees, np.full(len(trees), step), c=1.5, use_prior=True)
        done += step


@pytest.mark.parametrize("batch", [1, 8])
def test_forest_trees_search_like_single_trees(batch: int) -> None:
    boards = [Board(size=6), Board.from_transcript("f5d6c3", size=8)]
    boards += [list(random_game(8, seed=s))[10] for s in range(3)]
    evaluator = _HashEvaluator()
    forests = {size: [b for b in boards if b.size == size] for size in (6, 8)}
    for size, group in forests.items():
        forest = Forest(
            len(group), get_game("othello", size=size), capacity=128
        )  # small: it must grow
        trees = np.arange(len(group))
        forest.plant(
            trees,
            np.array([b.player for b in group], np.uint64),
            np.array([b.opponent for b in group], np.uint64),
        )
        _forest_search(forest, trees, 300, batch, evaluator)
        assert forest.capacity > 128
        for t, board in enumerate(group):
            single = MCTS(evaluator, c=1.5, batch=batch).search(board, simulations=300)
            legal, visits, q, priors, value = forest.summary(t)
            assert visits.tolist() == single.visits.tolist()
            assert np.allclose(q, single.q, equal_nan=True) and value == pytest.approx(single.value)
            assert np.array_equal(priors, single.priors) and np.array_equal(legal, single.legal)
            assert not forest.tree(t)["vl"].any()


def _check_tree(nodes: np.ndarray, size: int) -> None:
    """Every node's children are its positions after each legal action, parents point back."""
    reached = {0}
    for i, nd in enumerate(nodes):
        if nd["first"] < 0:
            continue
        board = Board.from_bitboards(int(nd["p"]), int(nd["o"]), size=size)
        kids = nodes[nd["first"] : nd["first"] + nd["nchild"]]
        assert kids["parent"].tolist() == [i] * len(kids)
        assert sorted(kids["action"].tolist()) == board.legal_actions()
        for kid in kids:
            after = board.play(int(kid["action"]))
            assert (int(kid["p"]), int(kid["o"])) == (after.player, after.opponent)
        reached.update(range(nd["first"], nd["first"] + nd["nchild"]))
        assert nd["n"] == 1 + kids["n"].sum() or nd["n"] == kids["n"].sum()
    assert reached == set(range(len(nodes)))


def test_forest_advance_keeps_the_subtree() -> None:
    board = Board.from_transcript("f5d6", size=8)
    forest = Forest(2, get_game("othello", size=8), capacity=256)
    trees = np.arange(2)
    forest.plant(trees, np.full(2, board.player, np.uint64), np.full(2, board.opponent, np.uint64))
    _forest_search(forest, trees, 200, 4, _HashEvaluator())
    _, visits, _, _, _ = forest.summary(0)
    move = int(np.argmax(visits))
    forest.advance(np.array([0]), np.array([move]))
    child = board.play(move)
    root = forest.root(0)
    assert (int(root["p"]), int(root["o"])) == (child.player, child.opponent)
    assert root["n"] == visits[move] and root["parent"] == -1
    _check_tree(forest.tree(0), 8)
    _check_tree(forest.tree(1), 8)  # the other tree is untouched
    assert forest.summary(1)[1].tolist() == visits.tolist()
    # A root never expanded: the move makes a fresh root.
    fresh = Forest(1, get_game("othello", size=6))
    start = Board(size=6)
    fresh.plant(
        np.array([0]), np.array([start.player], np.uint64), np.array([start.opponent], np.uint64)
    )
    fresh.advance(np.array([0]), np.array([start.legal_actions()[0]]))
    after = start.play(start.legal_actions()[0])
    assert fresh.counters[0] == 1
    assert (int(fresh.root(0)["p"]), int(fresh.root(0)["o"])) == (after.player, after.opponent)


def test_forest_dedupes_the_positions_it_evaluates() -> None:
    class Counting(_HashEvaluator):
        def __init__(self) -> None:
            self.sizes: list[int] = []

        def evaluate(self, player, opponent, size):  # type: ignore[no-untyped-def]
            self.sizes.append(len(player))
            assert len({(int(p), int(o)) for p, o in zip(player, opponent, strict=True)}) == len(
                player
            )
            return super().evaluate(player, opponent, size)

    counting = Counting()
    forest = Forest(16, get_game("othello", size=6))
    trees = np.arange(16)
    start = Board(size=6)
    forest.plant(
        trees, np.full(16, start.player, np.uint64), np.full(16, start.opponent, np.uint64)
    )
    assert forest.step(counting, trees, np.ones(16), c=1.5, use_prior=True) == 16
    assert counting.sizes == [1]  # sixteen roots, one position
    plain = Forest(16, get_game("othello", size=6))
    plain.plant(trees, np.full(16, start.player, np.uint64), np.full(16, start.opponent, np.uint64))
    plain.step(_HashEvaluator(), trees, np.ones(16), c=1.5, use_prior=True, dedupe=False)
    for t in range(16):
        assert plain.summary(t)[3].tolist() == forest.summary(t)[3].tolist()


def test_every_expansion_gets_its_own_evaluation() -> None:
    """Each expanded node's children carry the priors the evaluator gave for that node's own
    position, even in batches where a leaf chosen twice is proven by its first expansion (a
    row of the batch must not shift onto the next leaf)."""

    class Keyed:
        """Priors that depend on the position (its bits scramble the legal actions' weights)."""

        has_priors = True

        def evaluate(self, player, opponent, size):  # type: ignore[no-untyped-def]
            priors = legal_priors(player, opponent, size).astype(np.float64)
            key = (player.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15)) ^ opponent
            for sq in range(priors.shape[1]):
                priors[:, sq] *= 1 + ((key >> np.uint64(sq % 61)) & np.uint64(7)).astype(float)
            priors /= np.maximum(priors.sum(axis=1, keepdims=True), 1e-12)
            return priors.astype(np.float32), np.zeros(len(player), np.float32)

    ev = Keyed()
    boards = [b for s in range(6) for b in random_game(6, seed=s) if 6 <= b.num_empties <= 9]
    checked = 0
    for board in boards[::3]:
        tree = MCTS(ev, batch=8, seed=0, score_weight=1.0)
        tree.search(board, simulations=400)
        nodes = tree.nodes
        for i in np.flatnonzero(nodes["first"] >= 0):
            first, k = nodes["first"][i], nodes["nchild"][i]
            if k < 2:
                continue
            want, _ = ev.evaluate(nodes["p"][i : i + 1], nodes["o"][i : i + 1], board.game)
            kids = nodes[first : first + k]
            got = kids["prior"] / kids["prior"].sum()
            assert got == pytest.approx(want[0, kids["action"].astype(int)], rel=1e-5)
            checked += 1
    assert checked > 100


class _Leaning(UniformEvaluator):
    """Uniform priors except at the start of 8x8, where the prior leans on f5 (37) and then
    e6 (44): the moves a one-simulation Gumbel root must follow."""

    has_priors = True

    def evaluate(self, player, opponent, game):  # type: ignore[no-untyped-def]
        priors, values = super().evaluate(player, opponent, game)
        start = Board()
        here = (player == start.player) & (opponent == start.opponent)
        priors[here] = 0.0
        priors[here, 37], priors[here, 44], priors[here, 19], priors[here, 26] = 0.5, 0.3, 0.1, 0.1
        return priors, values


def test_gumbel_root_with_one_simulation_plays_the_priors_best_move() -> None:
    player = MCTSPlayer(sims=1, root="gumbel", evaluator=_Leaning())
    result = player.choose(Board())
    assert result.move == 37 and result.info["simulations"] == 1
    assert result.policy.sum() == pytest.approx(1.0) and result.policy.argmax() == 37
    check_player(MCTSPlayer(sims=16, root="gumbel", seed=1), sizes=(6,), games=2, seed=1)


def test_gumbel_root_finds_the_win_and_spends_its_budget() -> None:
    boards = [b for s in range(40) for b in random_game(6, seed=s) if b.num_empties == 3]
    wins = [b for b in boards if _result(b) == 1 and len(b.legal_actions()) >= 2][:5]
    assert wins
    for board in wins:
        result = make_player("mcts:root=gumbel,sims=64,seed=3").choose(board)
        assert -_result(board.play(result.move)) == 1
    result = MCTSPlayer(sims=40, root="gumbel", gumbel_actions=2, seed=0).choose(Board())
    assert result.info["root_visits"] == 40 and result.info["simulations"] == 40


def test_gumbel_root_options_are_checked() -> None:
    with pytest.raises(ConfigError, match="option root"):
        make_player("mcts:root=uct")
    with pytest.raises(ConfigError, match="option gumbel_actions"):
        make_player("mcts:root=gumbel,gumbel_actions=0")
    with pytest.raises(ConfigError, match="option dirichlet"):
        make_player("mcts:root=gumbel,dirichlet=0.3")
    with pytest.raises(ConfigError, match="option batch"):
        make_player("mcts:root=gumbel,batch=300")
