"""A third game defined here alone: tic-tac-toe, registered by this test, runs through the
search kernels, the MCTS player, batched self-play and the arena's match kernel, the network
players and the AlphaZero loop, with no edit anywhere else (the proof that the game protocol of
``core.games`` is the only way in).

Tic-tac-toe is solved: with perfect play it is a draw (Knuth's and every textbook's figure), and
from the position below the side to move wins at once by completing its row.
"""

from __future__ import annotations

import numpy as np
import pytest

from othellolab.core.games import (
    CHILDREN_SIGNATURE,
    RESULT_SIGNATURE,
    Game,
    GamePosition,
    game_names,
    get_game,
    position_game,
    register_game,
    rules_kernel,
    unregister_game,
)

LINES = np.array(
    [0b000000111, 0b000111000, 0b111000000, 0b001001001, 0b010010010, 0b100100100, 0b100010001,
     0b001010100],
    dtype=np.uint64,
)  # fmt: skip
FULL = 0b111111111


@rules_kernel(RESULT_SIGNATURE)
def ttt_result(param, p, o):  # type: ignore[no-untyped-def]
    """+1/-1 if the side to move / its opponent holds a line, 0 on a full board, NaN before."""
    for line in LINES:
        if p & line == line:
            return 1.0
        if o & line == line:
            return -1.0
    if (p | o) == np.uint64(FULL):
        return 0.0
    return np.nan


@rules_kernel(CHILDREN_SIGNATURE)
def ttt_children(param, p, o, actions, cp, co):  # type: ignore[no-untyped-def]
    """Every empty square while nobody has a line; the mover's mark goes in, then sides swap."""
    if not np.isnan(ttt_result(param, p, o)):
        return 0
    n = 0
    for sq in range(9):
        bit = np.uint64(1) << np.uint64(sq)
        if not (p | o) & bit:
            actions[n] = sq
            cp[n] = o
            co[n] = p | bit
            n += 1
    return n


class TicTacToe(Game):
    """Tic-tac-toe on the protocol: ``(p, o)`` the marks of the side to move and its opponent."""

    name = key = "tic-tac-toe"
    rows = cols = 3
    n_actions = 9
    max_children = 9
    plane_names = ("player", "opponent")
    children_kernel = ttt_children
    result_kernel = ttt_result

    def start(self) -> tuple[int, int]:
        return 0, 0

    def step(self, p: int, o: int, action: int) -> tuple[int, int]:
        return o, p | (1 << action)

    def action_name(self, action: int) -> str:
        return "abc"[action % 3] + str(action // 3 + 1)

    def encode(self, p, o, planes=None):  # type: ignore[no-untyped-def]
        """Two 3 x 3 planes: the marks of the side to move, then of its opponent."""
        self.check_planes(planes)
        bits = np.arange(9, dtype=np.uint64)

        def marks(x):  # type: ignore[no-untyped-def]
            column = np.asarray(x, dtype=np.uint64).reshape(-1, 1)
            return ((column >> bits) & np.uint64(1)).reshape(-1, 3, 3)

        return np.stack([marks(p), marks(o)], axis=1).astype(np.float32)

    def render(self, p: int, o: int, turn: int) -> str:
        x, y = (p, o) if turn == 0 else (o, p)
        return "\n".join(
            "".join("X" if x >> (3 * r + c) & 1 else "O" if y >> (3 * r + c) & 1 else "." for c in range(3))
            for r in range(3)
        )  # fmt: skip


@pytest.fixture(scope="module")
def game():  # type: ignore[no-untyped-def]
    the = TicTacToe()
    register_game("tic-tac-toe", lambda size: the)
    yield get_game("tic-tac-toe")
    unregister_game("tic-tac-toe")


def _solve(game: Game, p: int, o: int) -> int:
    r = game.result(p, o)
    if r is not None:
        return int(r)
    return max(-_solve(game, *game.step(p, o, a)) for a in game.legal_actions(p, o))


def test_the_rules_and_the_registry(game) -> None:  # type: ignore[no-untyped-def]
    assert get_game("tic-tac-toe") == game and "tic-tac-toe" in game_names()
    assert game.legal_actions(*game.start()) == list(range(9))
    assert _solve(game, *game.start()) == 0  # perfect play draws
    pos = game.new_position()
    assert isinstance(pos, GamePosition) and position_game(pos) is game
    for a in (0, 4, 1, 8):  # X a1, O b2, X b1, O c3: X to move, c1 completes the top row
        pos = pos.play(a)
    assert pos.turn == 0 and pos.legal_actions() == [2, 3, 5, 6, 7]
    assert pos.play("c1").is_game_over() and pos.play("c1").result() == -1  # X won
    with pytest.raises(Exception, match="illegal move b2"):
        pos.play(4)


def test_mcts_player_finds_the_win_and_the_forced_block(game) -> None:  # type: ignore[no-untyped-def]
    from othellolab.players import UniformEvaluator
    from othellolab.players.mcts import MCTSPlayer

    pos = game.new_position()
    for a in (0, 4, 1, 8):
        pos = pos.play(a)
    for player in (
        MCTSPlayer(sims=300, seed=1),
        MCTSPlayer(sims=300, evaluator=UniformEvaluator()),
    ):
        assert player.choose(pos).move == 2  # the win
        assert player.choose(pos.play(3)).move == 2  # O must block c1
    with pytest.raises(ValueError, match="game is over"):
        MCTSPlayer(sims=10).choose(pos.play(2))


def test_batched_self_play_and_the_arena(game) -> None:  # type: ignore[no-untyped-def]
    from othellolab.arena.match import play_game
    from othellolab.players.evaluators import UniformEvaluator
    from othellolab.players.mcts import MCTSPlayer
    from othellolab.training.selfplay import SelfPlayConfig, play_games

    config = SelfPlayConfig(
        simulations=200, temperature_plies=0, dirichlet_alpha=0, resign_threshold=-1, seed=3
    )
    records = play_games(UniformEvaluator(), 12, game=game, config=config)
    assert records.games == 12 and records.policy.shape[1] == 9
    assert set(np.unique(records.black_result)) <= {-1, 0, 1}
    # without noise, a 200-simulation search that sees the end keeps the solved draw
    assert (records.black_result == 0).mean() >= 0.75
    for i in range(len(records)):
        p, o = int(records.player[i]), int(records.opponent[i])
        legal = game.legal_actions(p, o)
        assert np.isclose(records.policy[i].sum(), 1) and records.policy[i][legal].sum() > 0.99
    record = play_game(MCTSPlayer(sims=400, seed=1), MCTSPlayer(sims=400, seed=2), game=game)
    assert record.game == "tic-tac-toe" and record.result == 0  # two searches draw


# ----------------------------------------------------------------------------------------------
# The environments: one class of each kind takes the game by its registered name.


def test_gymnasium_pettingzoo_and_vector_envs(game) -> None:  # type: ignore[no-untyped-def]
    from gymnasium.utils.env_checker import check_env
    from pettingzoo.test import api_test

    from othellolab.envs import GameEnv, GameVectorEnv
    from othellolab.envs.pettingzoo import env as aec_env

    env = GameEnv(game.name, opponent="random", illegal_action_mode="lose", render_mode="ansi")
    check_env(env, skip_render_check=False)
    rng = np.random.default_rng(0)
    results = set()
    for seed in range(12):
        obs, info = env.reset(seed=seed, options={"player_color": "random"})
        done = False
        while not done:
            pos, side = env.position, env.agent_color
            assert pos.turn == side and info["legal_actions"] == pos.legal_actions()
            mine, theirs = obs["observation"]  # the agent's marks, then the opponent's
            assert int(sum(2**i for i in np.flatnonzero(mine.ravel()))) == pos.player
            assert int(sum(2**i for i in np.flatnonzero(theirs.ravel()))) == pos.opponent
            legal = np.flatnonzero(obs["action_mask"])
            obs, reward, done, _, info = env.step(int(rng.choice(legal)))
        assert env.position.is_game_over() and reward == info["result"]
        results.add(reward)
    assert results == {-1.0, 0.0, 1.0}  # random play wins, draws and loses

    api_test(aec_env(game=game.name), num_cycles=100)

    envs = GameVectorEnv(8, game=game.name, player_color="random", autoreset_mode="same_step")
    obs, info = envs.reset(seed=1)
    ended = 0
    for _ in range(30):
        assert envs.observation_space.contains(obs)
        for pos, side in zip(envs.positions(), info["agent_color"], strict=True):
            assert pos.turn == side and not pos.is_game_over()  # same-step: always live
        actions = (rng.random(obs["action_mask"].shape) * obs["action_mask"]).argmax(axis=1)
        obs, reward, terminated, _, info = envs.step(actions)
        for i in np.flatnonzero(terminated):
            assert reward[i] in (-1.0, 0.0, 1.0) and not info["final_obs"]["action_mask"][i].any()
            ended += 1
    assert ended >= 8  # a game lasts at most 5 agent moves


def _tiny_network(game: Game, folder):  # type: ignore[no-untyped-def]
    """A one-block residual network for ``game`` through the normal model config, random
    weights (seeded)."""
    import torch

    from othellolab.nn.config import model_config
    from othellolab.nn.io import save_model
    from othellolab.nn.models import build_model

    torch.manual_seed(0)
    config = model_config("resnet-b1c8", game=game.name)
    assert config.policy_size == 9 and config.input_shape == (2, 3, 3)
    return save_model(build_model(config).eval(), folder)


def test_network_players_on_a_network_of_the_game(game, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The policy, value and alphazero players (PUCT and Gumbel roots) play a network trained
    for tic-tac-toe; the searches find the win that the rules alone prove."""
    pytest.importorskip("torch", reason="the nn extra (torch) is not installed")
    from othellolab.core import ConfigError
    from othellolab.players import make_player

    model = _tiny_network(game, tmp_path / "net")
    pos = game.new_position()
    for a in (0, 4, 1, 8):  # X to move, c1 (2) completes the top row
        pos = pos.play(a)
    policy = make_player(f"policy:model={model}").choose(pos)
    assert policy.move in pos.legal_actions() and policy.policy.shape == (9,)
    assert make_player(f"value:model={model},seed=0").choose(pos).move == 2
    for root in ("puct", "gumbel"):
        az = make_player(f"alphazero:model={model},sims=48,root={root},seed=1")
        result = az.choose(pos)
        assert result.move == 2, root
        assert result.policy[[0, 1, 4, 8]].sum() == 0 and result.policy.sum() == pytest.approx(1)
        assert az.choose(game.new_position()).move in range(9)
    with pytest.raises(ConfigError, match="no exact endgame"):
        make_player(f"alphazero:model={model},endgame=4")


def test_the_alphazero_loop_runs_generations(game, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Two generations of the self-play pipeline (self-play shards, training, rating against
    an MCTS player in the arena) on tic-tac-toe, ending with a model of the game."""
    pytest.importorskip("torch", reason="the nn extra (torch) is not installed")
    import json

    from othellolab.nn.io import read_model_info
    from othellolab.training.selfplay.pipeline import read_metrics, train_selfplay
    from othellolab.training.selfplay.runconfig import SelfPlayRunConfig
    from othellolab.training.selfplay.shards import list_shards, read_shard

    cfg = SelfPlayRunConfig.from_dict(
        {
            "name": "ttt",
            "game": "tic-tac-toe",
            "seed": 1,
            "runs_dir": str(tmp_path),
            "model": {"preset": "resnet-b1c8"},
            "selfplay": {"simulations": 8, "parallel": 16, "resign_threshold": -1.0},
            "loop": {"generations": 2, "games": 16, "shards": 1},
            "train": {"batch_size": 32, "samples_per_position": 1.0},
            "rate": {"every": 2, "games": 2, "simulations": 8, "opponents": ["mcts:sims=8"]},
        }
    )
    assert cfg.rules is game
    summary = train_selfplay(cfg, progress=False)
    root = tmp_path / "ttt"
    assert summary.generation == 2 and (root / "models/gen0002/model.safetensors").is_file()
    assert read_model_info(root / "models/gen0002").config.game == "tic-tac-toe"
    shards = list_shards(root / "shards")
    assert [(g, k) for g, k, _ in shards] == [(0, 0), (1, 0)]
    shard = read_shard(shards[-1][2], game=game, games=True)
    assert shard.meta["game"] == "tic-tac-toe" and shard.meta["game_params"] == {}
    assert shard.meta["games"] == 16 and set(shard.arrays["result"].tolist()) <= {-1, 0, 1}
    kinds = [r["kind"] for r in read_metrics(root)]
    assert kinds.count("train") == 2 and kinds.count("selfplay") == 2 and "grade" not in kinds
    rate = json.loads((root / "rates/gen0002.json").read_text())
    assert sum(rate["matches"][0][k] for k in ("wins", "draws", "losses")) == 2


def test_the_generic_alpha_beta_solves_it(game) -> None:  # type: ignore[no-untyped-def]
    """``negamax`` (``players.search.negamax``) plays tic-tac-toe through its rules kernels
    alone (no heuristic: 0 until the end): it takes the win, blocks, sees the solved draw from
    the start (``_solve`` above) and never loses to a weak search."""
    from othellolab.arena.match import play_match
    from othellolab.players import make_player
    from othellolab.players.mcts import MCTSPlayer
    from othellolab.players.search.negamax import WIN, search

    pos = game.new_position()
    for a in (0, 4, 1, 8):
        pos = pos.play(a)
    player = make_player("negamax:depth=9,seed=1", "tic-tac-toe")
    win = player.choose(pos)
    assert win.move == 2 and win.info["score"] == WIN - 1 and win.info["best_moves"] == ["c1"]
    assert win.score is not None and win.score.exact and win.score.value == 1.0
    block = game.new_position().play(0).play(4).play(1)  # X a1, O b2, X b1: O must block c1
    assert player.choose(block).info["best_moves"] == ["c1"]
    start = search(game.new_position(), depth=9)
    assert start.score == 0 and start.depth == 9 and len(start.best_moves) == 9  # all draw
    result = play_match(player, MCTSPlayer(sims=8, seed=2), games=20, game=game)
    assert result.losses == 0 and result.wins > 0, str(result)


def test_a_tournament_records_it_and_reads_it_back(game, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The arena's tournaments take the game by name alone: records name it by its
    ``record_fields``, hold its moves in ``format_moves`` (its action names), and replay."""
    from othellolab.arena.results import load_results, record_moves
    from othellolab.arena.tournament import pairing_results, run_tournament
    from othellolab.arena.tournament_config import Entrant, TournamentConfig

    config = TournamentConfig(
        players=(Entrant("deep", "negamax:depth=9,seed=1"), Entrant("one", "negamax:depth=1")),
        games=4, game="tic-tac-toe", openings="random:1",
    )  # fmt: skip
    assert run_tournament(config, tmp_path).complete
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        ".lock",
        "results.jsonl",
        "tournament.json",
    ]
    records = load_results(tmp_path)
    for r in records:
        assert r["game"] == "tic-tac-toe" and "size" not in r
        played = record_moves(r)
        end = game.new_position()
        for a in played.moves:
            end = end.play(a)
        assert (
            end.is_game_over()
            and " ".join(game.action_name(a) for a in played.moves[1:]) == r["moves"]
        )
    result = pairing_results(records)[("deep", "one")]
    assert result.n == 4 and result.losses == 0 and str(result).endswith("%)")
