"""The self-play engine: records that replay to the positions and results they claim, the
temperature schedule, playout-cap randomisation, forced playouts, resignation and its false-resignation count,
seeds, and the config's checks."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from othellolab.core import BLACK, WHITE, Board, ConfigError
from othellolab.core.games import get_game
from othellolab.players import RandomRolloutEvaluator, UniformEvaluator
from othellolab.players.evaluators import legal_priors
from othellolab.players.search.exact4 import Solution4
from othellolab.training.selfplay import NO_SCORE, SelfPlayConfig, SelfPlayRecords, play_games


def replay_check(records: SelfPlayRecords) -> None:
    """Each game's moves replay legally; its rows are the positions with a choice, in order,
    seen from the side to move, with the game's result from that side."""
    size = records.size
    for g in range(records.games):
        moves = records.moves[g, : records.length[g]].tolist()
        assert (records.moves[g, records.length[g] :] == -1).all()
        rows = np.flatnonzero(records.game == g)
        board = Board(size=size)
        expected = []
        for ply, move in enumerate(moves):
            if len(board.legal_actions()) > 1:
                expected.append((board.player, board.opponent, board.turn, ply))
            board = board.play(move)
        if records.resigned[g] >= 0:  # the position searched before resigning is a row too
            expected.append((board.player, board.opponent, board.turn, len(moves)))
        got = [
            (
                int(records.player[i]),
                int(records.opponent[i]),
                int(records.color[i]),
                int(records.ply[i]),
            )
            for i in rows
        ]
        assert got == expected
        if records.resigned[g] >= 0:
            loser = int(records.resigned[g])
            assert records.black_result[g] == (-1 if loser == BLACK else 1)
            assert records.black_score[g] == NO_SCORE and (records.score[rows] == NO_SCORE).all()
            assert records.resign_ply[g] == len(moves) and not board.is_game_over()
        else:
            assert board.is_game_over()
            black = board.score() if board.turn == BLACK else -board.score()
            assert records.black_score[g] == black and records.black_result[g] == np.sign(black)
            sign = np.where(records.color[rows] == BLACK, 1, -1)
            assert (records.score[rows] == sign * black).all()
        sign = np.where(records.color[rows] == BLACK, 1, -1)
        assert (records.result[rows] == sign * records.black_result[g]).all()
    legal = np.array(
        [
            Board.from_bitboards(int(p), int(o), size=size).legal_action_mask()
            for p, o in zip(records.player, records.opponent, strict=True)
        ]
    )
    assert np.allclose(records.policy.sum(axis=1), 1.0, atol=1e-5)
    assert not records.policy[~legal].any()
    assert (np.abs(records.value) <= 1).all()


@pytest.mark.parametrize("variant", ["puct", "gumbel"])
@pytest.mark.parametrize("size", [4, 6, 8])
def test_records_replay_to_their_positions_and_results(variant: str, size: int) -> None:
    config = SelfPlayConfig(
        simulations=12, leaves=4, parallel=5, variant=variant, seed=size, resign_threshold=-0.95
    )
    records = play_games(
        RandomRolloutEvaluator(seed=1), 7, game=get_game("othello", size=size), config=config
    )
    assert records.games == 7 and sorted(set(records.game.tolist())) == list(range(7))
    assert records.full_search.all() and records.evaluations > 0
    replay_check(records)


def test_seeds_reproduce() -> None:
    def run(seed: int) -> SelfPlayRecords:
        config = SelfPlayConfig(simulations=10, parallel=3, seed=seed)
        return play_games(UniformEvaluator(), 4, game=get_game("othello", size=6), config=config)

    a, b, c = run(1), run(1), run(2)
    assert a.moves.tolist() == b.moves.tolist() and np.array_equal(a.policy, b.policy)
    assert a.moves.tolist() != c.moves.tolist()


def test_seeded_games_keep_their_figures() -> None:
    """A regression guard on the order of random draws: with more games than slots (a slot
    starts game after game), playout caps and resignation, a seed gives the arrays it gave
    when the engine was written as nested closures (digest of that engine's records)."""
    config = SelfPlayConfig(
        simulations=8,
        parallel=2,
        resign_threshold=-0.2,
        resign_moves=1,
        no_resign_share=0.5,
        full_share=0.6,
        fast_simulations=3,
        seed=1,
    )
    records = play_games(
        RandomRolloutEvaluator(1, seed=1), 10, game=get_game("othello", size=4), config=config
    )
    h = hashlib.sha256()
    for name, a in {**records.position_arrays(), **records.game_arrays()}.items():
        h.update(name.encode())
        h.update(np.ascontiguousarray(a).tobytes())
    assert (records.resigned >= 0).any() and (records.would_resign >= 0).any()
    assert h.hexdigest()[:16] == "628376d5453ec950"
    replay_check(records)


def test_temperature_schedule() -> None:
    """With a deterministic evaluator and no noise, games differ only by the sampled plies."""
    base = dict(simulations=16, parallel=6, dirichlet_alpha=0.0, resign_threshold=-1.0, seed=3)
    greedy = play_games(
        UniformEvaluator(),
        6,
        game=get_game("othello", size=6),
        config=SelfPlayConfig(**base, temperature_plies=0),
    )
    assert len({tuple(m) for m in greedy.moves.tolist()}) == 1
    sampled = play_games(
        UniformEvaluator(),
        6,
        game=get_game("othello", size=6),
        config=SelfPlayConfig(**base, temperature_plies=4),
    )
    assert len({tuple(m[:4]) for m in sampled.moves.tolist()}) > 1
    # After the sampled plies, the move is the most visited one.
    for i in np.flatnonzero(sampled.ply >= 4):
        g, ply = sampled.game[i], sampled.ply[i]
        move = sampled.moves[g, ply]
        assert sampled.policy[i, move] == sampled.policy[i].max()


@pytest.mark.parametrize("variant", ["puct", "gumbel"])
def test_playout_cap_randomisation(variant: str) -> None:
    config = SelfPlayConfig(
        simulations=24,
        fast_simulations=6,
        full_share=0.3,
        parallel=4,
        reuse=False,
        variant=variant,
        resign_threshold=-1.0,
        seed=0,
    )
    records = play_games(UniformEvaluator(), 6, game=get_game("othello", size=6), config=config)
    full = records.full_search
    assert 0.1 < full.mean() < 0.5
    open_ = ~records.solved  # a search that proves its root stops early
    assert (records.simulations[full & open_] == 24).all()
    assert (records.simulations[~full & open_] == 6).all()
    assert (records.simulations[full] <= 24).all() and (records.simulations[~full] <= 6).all()
    replay_check(records)


class Confident:
    """Every position is a near-certain win for its side to move: every searching side sees
    only losing moves (child values -0.99), so everyone would resign."""

    has_priors = True

    def evaluate(self, player, opponent, size):  # type: ignore[no-untyped-def]
        return legal_priors(player, opponent, size), np.full(len(player), 0.99, np.float32)


def test_resignation_and_false_resignations() -> None:
    base = dict(simulations=8, parallel=4, resign_threshold=-0.9, resign_moves=2, seed=0)
    resigning = play_games(
        Confident(),
        5,
        game=get_game("othello", size=6),
        config=SelfPlayConfig(**base, no_resign_share=0.0),
    )
    assert (resigning.resigned == BLACK).all() and (resigning.black_result == -1).all()
    # Black searches at plies 0 and 2 (each 6x6 opening move has a choice): it resigns at 2.
    assert (resigning.resign_ply == 2).all() and (resigning.length == 2).all()
    # The root value is the side to move's: every move leads to a position its opponent wins.
    assert np.allclose(resigning.value, -0.99)
    replay_check(resigning)
    played = play_games(
        Confident(),
        5,
        game=get_game("othello", size=6),
        config=SelfPlayConfig(**base, no_resign_share=1.0),
    )
    assert played.no_resign.all() and (played.resigned == -1).all()
    assert (played.would_resign == BLACK).all() and (played.would_resign_ply == 2).all()
    assert played.false_resignation.tolist() == (played.black_result >= 0).tolist()
    assert played.false_resignation_rate() == pytest.approx(np.mean(played.black_result >= 0))
    replay_check(played)
    never = play_games(
        Confident(),
        3,
        game=get_game("othello", size=6),
        config=SelfPlayConfig(**{**base, "resign_threshold": -1.0}),
    )
    assert (never.resigned == -1).all() and (never.would_resign == -1).all()
    assert never.false_resignation_rate() is None


def test_perfect_evaluator_plays_4x4_perfectly() -> None:
    """With exact values and no exploration, self-play follows perfect play: White wins."""
    solution = Solution4.build()

    class Exact:
        has_priors = False

        def evaluate(self, player, opponent, size):  # type: ignore[no-untyped-def]
            values = np.sign(solution.values[solution.index(player, opponent)]).astype(np.float32)
            return legal_priors(player, opponent, size), values

    config = SelfPlayConfig(
        simulations=40, dirichlet_alpha=0.0, temperature_plies=0, resign_threshold=-1.0, seed=0
    )
    for variant in ("puct", "gumbel"):
        records = play_games(
            Exact(),
            3,
            game=get_game("othello", size=4),
            config=SelfPlayConfig(**{**config.to_dict(), "variant": variant}),
        )
        assert (records.black_result == -1).all(), variant
        # Each searched move keeps the exact result (a win stays a win, a loss cannot improve).
        for p, o, move in zip(
            records.player, records.opponent, records.moves[records.game, records.ply], strict=True
        ):
            board = Board.from_bitboards(int(p), int(o), size=4)
            best = max(
                np.sign(-solution.value_of(board.play(a)))
                if not board.play(a).must_pass()
                else np.sign(solution.value_of(board.play(a).play_pass()))
                for a in board.legal_actions()
            )
            after = board.play(int(move))
            got = (
                np.sign(solution.value_of(after.play_pass()))
                if after.must_pass()
                else np.sign(-solution.value_of(after))
            )
            assert got == best


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("simulations", 0),
        ("leaves", 1000),
        ("c_puct", float("inf")),
        ("variant", "mcts"),
        ("parallel", 0),
        ("dirichlet_alpha", -0.1),
        ("dirichlet_epsilon", 1.5),
        ("temperature", 0.0),
        ("temperature_plies", -1),
        ("reuse", "yes"),
        ("gumbel_actions", 0),
        ("gumbel_c_visit", float("nan")),
        ("gumbel_c_scale", -1.0),
        ("full_share", 2.0),
        ("fast_simulations", 0),
        ("resign_threshold", -2.0),
        ("resign_moves", 0),
        ("no_resign_share", -0.5),
        ("seed", 1.5),
    ],
)
def test_every_option_is_checked(option: str, value: object) -> None:
    with pytest.raises(ConfigError, match=f"option {option}:") as info:
        SelfPlayConfig(**{option: value})
    assert info.value.option == option


def test_config_round_trip_and_unknown_keys() -> None:
    config = SelfPlayConfig(simulations=32, variant="gumbel", full_share=0.25, seed=7)
    assert SelfPlayConfig.from_dict(config.to_dict()) == config
    with pytest.raises(ConfigError, match="unknown key"):
        SelfPlayConfig.from_dict({"sims": 3})
    with pytest.raises(ConfigError, match="option fast_simulations"):
        SelfPlayConfig(simulations=16, fast_simulations=16, full_share=0.5)
    with pytest.raises(ValueError, match="games"):
        play_games(UniformEvaluator(), 0, game=get_game("othello", size=6))
    assert WHITE == 1  # the colour codes the records use


def _negamax(board: Board) -> int:
    """Exact disc difference for the side to move by exhaustive negamax over ``Board`` (the
    independent oracle of the solver's scores)."""
    actions = board.legal_actions()
    if not actions:
        return board.score()
    return max(-_negamax(board.play(a)) for a in actions)


def test_exact_endgame() -> None:
    """With ``solve_empties = 7`` the positions of 7 or fewer empties are solved, not searched:
    their value is exhaustive negamax's disc difference, their policy uniform over exactly the
    moves that keep it, the move played is one of them, so each game ends on the exact score
    of its first solved position."""
    config = SelfPlayConfig(
        simulations=8, parallel=4, solve_empties=7, score_value=1.0, resign_threshold=-1.0, seed=3
    )
    records = play_games(UniformEvaluator(), 6, game=get_game("othello", size=6), config=config)
    replay_check(records)
    empties = np.array(
        [
            Board.from_bitboards(int(p), int(o), size=6).num_empties
            for p, o in zip(records.player, records.opponent, strict=True)
        ]
    )
    assert (records.solved == (empties <= 7)).all() and (empties <= 7).sum() >= 12
    assert (records.simulations[records.solved] == 0).all()
    for g in range(records.games):
        rows = np.flatnonzero((records.game == g) & records.solved)
        for k, i in enumerate(rows):
            board = Board.from_bitboards(int(records.player[i]), int(records.opponent[i]), size=6)
            scores = {a: -_negamax(board.play(a)) for a in board.legal_actions()}
            best = max(scores.values())
            assert records.value[i] == pytest.approx(best / 36)
            optimal = [a for a, s in scores.items() if s == best]
            assert np.flatnonzero(records.policy[i]).tolist() == sorted(optimal)
            assert records.policy[i, optimal] == pytest.approx(1 / len(optimal))
            if k == 0:
                assert records.score[i] == best  # played perfectly from here on


def test_searches_solve_their_leaves_near_the_end() -> None:
    """With ``solve_leaves`` a search of a position one ply before ``solve_empties`` proves
    every child by the solver, so it plays a best move (exhaustive negamax decides) with a blind
    evaluator and a handful of simulations; without it, the blind search often does not."""
    from othellolab.testing import random_game
    from othellolab.training.selfplay import search_positions
    from othellolab.training.selfplay.exact import ExactEndgame, leaf_solver

    boards = [
        b
        for s in range(30)
        for b in random_game(6, seed=s)
        if b.num_empties == 7 and len(b.legal_actions()) >= 3
    ]
    assert len(boards) >= 10
    p = np.array([b.player for b in boards], np.uint64)
    o = np.array([b.opponent for b in boards], np.uint64)
    scores = [{a: -_negamax(b.play(a)) for a in b.legal_actions()} for b in boards]

    game = get_game("othello", size=6)

    def optimal(config: SelfPlayConfig) -> float:
        moves, _, _ = search_positions(
            UniformEvaluator(),
            p,
            o,
            game,
            config.search,
            exact=ExactEndgame(game, config.solve_empties),
            leaf_values=leaf_solver(game, config),
        )
        return np.mean([s[m] == max(s.values()) for s, m in zip(scores, moves, strict=True)])

    base = dict(simulations=12, score_value=1.0, seed=0)
    assert optimal(SelfPlayConfig(**base, solve_empties=6, solve_leaves=True)) == 1.0
    assert optimal(SelfPlayConfig(**base)) < 0.9


class PriorsEvaluator(UniformEvaluator):
    """Uniform priors taken as a network's (PUCT, not UCT)."""

    has_priors = True


def test_forced_playouts_and_pruning() -> None:
    """KataGo's forced playouts with a pruned target, in the full searches of playout-cap
    randomisation (``players.mcts.forced``; its tests check the counts and the pruning)."""
    config = SelfPlayConfig(
        simulations=24,
        fast_simulations=6,
        full_share=0.5,
        forced_playouts_k=2.0,
        prune_policy_target=True,
        parallel=4,
        resign_threshold=-1.0,
        seed=0,
    )
    records = play_games(PriorsEvaluator(), 4, game=get_game("othello", size=6), config=config)
    replay_check(records)
    assert records.full_search.any() and not records.full_search.all()
    again = play_games(PriorsEvaluator(), 4, game=get_game("othello", size=6), config=config)
    assert (again.policy == records.policy).all()


@pytest.mark.parametrize(
    ("option", "value", "match"),
    [
        ("forced_playouts_k", float("nan"), "finite"),
        ("forced_playouts_k", -1.0, "0..100"),
        ("forced_playouts_k", "2", "number"),
        ("prune_policy_target", 1, "true or false"),
    ],
)
def test_forced_playout_options_are_checked(option: str, value: object, match: str) -> None:
    with pytest.raises(ConfigError, match=f"option {option}:.*{match}") as info:
        SelfPlayConfig(**{option: value})
    assert info.value.option == option


def test_forced_playout_options_need_the_puct_root() -> None:
    for option, value in (("forced_playouts_k", 2.0), ("prune_policy_target", True)):
        with pytest.raises(ConfigError, match="puct") as info:
            SelfPlayConfig(**{"variant": "gumbel", option: value})
        assert info.value.option == option
    with pytest.raises(ConfigError, match="forced_playouts_k > 0") as info:
        SelfPlayConfig(prune_policy_target=True)
    assert info.value.option == "prune_policy_target"
    config = SelfPlayConfig(forced_playouts_k=2.0, prune_policy_target=True)
    assert SelfPlayConfig.from_dict(config.to_dict()) == config
    assert config.forced_for(True) == 2.0 and config.forced_for(False) == 0.0
