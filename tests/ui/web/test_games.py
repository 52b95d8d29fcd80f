"""``GameStore`` and ``WebGame`` directly: expiry of idle games on a fake clock, the games cap,
and the turn/undo rules the API relies on."""

from __future__ import annotations

import pytest

from othellolab import Board
from othellolab.core import PlayResult
from othellolab.ui.web.errors import (
    Conflict,
    GameNotFound,
    PlayerFailed,
    TooManyGames,
    Unprocessable,
)
from othellolab.ui.web.models import NewGame
from othellolab.ui.web.store import GameStore


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def make_store(**kwargs) -> tuple[GameStore, Clock]:
    clock = Clock()
    store = GameStore(
        default_opponent="greedy:seed=1", hint_spec="random:seed=1", clock=clock, **kwargs
    )
    return store, clock


def test_idle_games_expire_after_the_ttl_and_used_ones_do_not() -> None:
    store, clock = make_store(ttl=60)
    idle = store.create(NewGame())
    used = store.create(NewGame())
    clock.now += 45
    store.get(used.id)
    clock.now += 30  # idle: 75 s since creation; used: 30 s since its last request
    with pytest.raises(GameNotFound, match="unknown or expired"):
        store.get(idle.id)
    assert store.get(used.id) is used
    clock.now += 61
    assert store.expire() == 1 and len(store) == 0


def test_a_thinking_game_does_not_expire() -> None:
    store, clock = make_store(ttl=10)
    game = store.create(NewGame(human="white"))
    with game.lock:
        board, player, version = game.begin_think("ai")
    clock.now += 100
    assert store.expire() == 0
    with game.lock:
        game.finish_think("ai", version, player.choose(board))
    assert store.get(game.id).cursor == 1


def test_the_games_cap_refuses_new_games_until_old_ones_expire() -> None:
    store, clock = make_store(ttl=60, max_games=2)
    store.create(NewGame())
    store.create(NewGame())
    with pytest.raises(TooManyGames, match="maximum of 2 games"):
        store.create(NewGame())
    clock.now += 61
    store.create(NewGame())
    assert len(store) == 1


def test_store_options_are_checked() -> None:
    with pytest.raises(ValueError, match="ttl: must be a positive finite number"):
        make_store(ttl=0)
    with pytest.raises(ValueError, match="ttl: must be a positive finite number"):
        make_store(ttl=float("nan"))
    with pytest.raises(ValueError, match="max_games"):
        make_store(max_games=0)
    with pytest.raises(ValueError, match="think_time: 9 s is over the server's max_think_time"):
        make_store(think_time=9, max_think_time=5)


def test_an_illegal_answer_from_the_player_is_a_server_fault_and_frees_the_game() -> None:
    store, _ = make_store()
    game = store.create(NewGame(human="white"))
    with game.lock:
        board, _, version = game.begin_think("ai")
        with pytest.raises(Conflict, match="thinking"):
            game.play_human("f5")
        with pytest.raises(PlayerFailed, match="answered 0, not a legal move"):
            game.finish_think("ai", version, PlayResult(0))
        assert game.busy is None and game.cursor == 0
    assert board == Board()


def test_undo_returns_to_the_humans_turn_skipping_forced_passes() -> None:
    """4x4: after 'b1 c1 d3 a1' (found by a search with the engine) black must pass."""
    store, _ = make_store()
    moves = "b1c1d3a1"
    game = store.create(NewGame(size=4, human="both", record=moves))
    assert game.board.must_pass()
    store2, _ = make_store()
    vs_ai = store2.create(NewGame(size=4, human="black", record=moves + "pass"))
    # Black's pass position is skipped: undo goes to black's last real choice.
    with vs_ai.lock:
        vs_ai.undo()
        assert vs_ai.cursor == 2 and vs_ai.board.legal_mask
    with pytest.raises(Unprocessable, match="outside the recorded game"), game.lock:
        game.goto(99)
