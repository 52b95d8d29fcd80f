"""A third game defined here alone: tic-tac-toe, registered by this test, runs through the
search kernels, the MCTS player, batched self-play and the arena's match kernel with no edit
anywhere else (the proof that the game protocol of ``core.games`` is the only way in).

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
    records = play_games(UniformEvaluator(), 12, size=game, config=config)
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


class TicTacToePlanes(TicTacToe):
    """Tic-tac-toe with its two input planes (the marks of the side to move, then the other's)."""

    def encode(self, p, o, planes=None):  # type: ignore[no-untyped-def]
        bits = np.arange(9, dtype=np.uint64)
        words = np.stack([np.asarray(p, np.uint64), np.asarray(o, np.uint64)], axis=1)
        return ((words[:, :, None] >> bits) & np.uint64(1)).astype(np.float32).reshape(-1, 2, 3, 3)


@pytest.fixture()
def env_game():  # type: ignore[no-untyped-def]
    register_game("tic-tac-toe-planes", lambda size: TicTacToePlanes())
    yield "tic-tac-toe-planes"
    unregister_game("tic-tac-toe-planes")


def _random_move(position, rng):  # type: ignore[no-untyped-def]
    legal = position.legal_actions()
    return legal[int(rng.integers(len(legal)))]


def test_gymnasium_pettingzoo_and_vector_envs(env_game) -> None:  # type: ignore[no-untyped-def]
    from gymnasium.utils.env_checker import check_env
    from pettingzoo.test import api_test

    from othellolab.envs import GameEnv, GameVectorEnv
    from othellolab.envs.pettingzoo import env as aec_env

    env = GameEnv(env_game, opponent=_random_move, illegal_action_mode="lose", render_mode="ansi")
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

    api_test(aec_env(game=env_game), num_cycles=100)

    envs = GameVectorEnv(8, game=env_game, player_color="random", autoreset_mode="same_step")
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
