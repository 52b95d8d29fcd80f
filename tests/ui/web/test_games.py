"""``GameStore`` and ``WebGame`` directly: idle games leaving memory on a fake clock (and
coming back from the games database), the cap on games in memory, and the turn/undo rules the
API relies on."""

from __future__ import annotations

import pytest

from othellolab import Board
from othellolab.core import PlayResult
from othellolab.players import GreedyPlayer
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


def test_idle_games_leave_memory_after_the_ttl_and_come_back_from_the_database() -> None:
    store, clock = make_store(ttl=60)
    idle = store.create(NewGame())
    with idle.lock:
        idle.play_human("f5")
        store.save(idle)
    used = store.create(NewGame())
    clock.now += 45
    store.get(used.id)
    clock.now += 30  # idle: 75 s since creation; used: 30 s since its last request
    assert store.expire() == 1 and len(store) == 1
    back = store.get(idle.id)
    assert back is not idle and back.actions == idle.actions and back.cursor == 1
    assert store.get(used.id) is used
    store.delete(idle.id)
    with pytest.raises(GameNotFound, match="unknown or deleted"):
        store.get(idle.id)


def test_a_thinking_game_does_not_expire() -> None:
    store, clock = make_store(ttl=10)
    game = store.create(NewGame(human="white"))
    with game.lock:
        board, version = game.begin_think("ai")
    clock.now += 100
    assert store.expire() == 0
    with game.lock:
        game.finish_think("ai", version, GreedyPlayer(seed=1).choose(board))
    assert store.get(game.id).cursor == 1


def test_the_games_cap_drops_the_least_recently_used_idle_game_from_memory_only() -> None:
    store, clock = make_store(ttl=600, max_games=2)
    first = store.create(NewGame())
    clock.now += 1
    second = store.create(NewGame())
    clock.now += 1
    store.get(first.id)  # now the second is the least recently used
    clock.now += 1
    store.create(NewGame())
    assert len(store) == 2 and store.get(first.id) is first
    assert store.get(second.id) is not second  # read back from the database
    # Every game held thinking: no room, a clear 503.
    for game in list(store._games.values()):
        with game.lock:
            game.begin_think("hint")
    with pytest.raises(TooManyGames, match="maximum of 2 games in memory and every one is"):
        store.create(NewGame())


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
        board, version = game.begin_think("ai")
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
