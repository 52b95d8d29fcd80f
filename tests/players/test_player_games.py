"""Each player refuses, by name, a position of a game it does not play (``Player.games``)."""

from __future__ import annotations

import pytest

from othellolab.core import Board, ConfigError
from othellolab.core.animal_shogi import AnimalShogi
from othellolab.players import available_players, make_player


def _players() -> list[str]:
    return [entry.name for entry in available_players()]


@pytest.mark.parametrize("name", _players())
def test_a_position_of_another_game_is_refused_by_name(name: str) -> None:
    try:
        player = make_player(name)
    except ConfigError:
        pytest.skip(f"{name} needs options to be made (an engine command)")
    with player:
        for position, game in ((Board(), "othello"), (AnimalShogi(), "animal-shogi")):
            if game in player.games:
                try:
                    move = player.choose(position).move
                except ConfigError as e:  # a network of the other game, by default
                    assert f"not {game}" in str(e) and "option model" in str(e)
                else:
                    assert position.is_legal(move)
            else:
                with pytest.raises(ConfigError, match=f"only, not {game} positions") as e:
                    player.choose(position)
                assert f"player {player.name!r}" in str(e.value)
