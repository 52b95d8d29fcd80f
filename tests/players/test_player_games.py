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
            if player.games is None or game in player.games:  # None: any game
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


def test_a_tree_search_plays_the_games_of_its_evaluator() -> None:
    from othellolab.nn.inference import NetworkEvaluator
    from othellolab.nn.pretrained import resolve
    from othellolab.players.mcts import MCTSPlayer

    assert MCTSPlayer(sims=4).games is None  # random rollouts play any game
    assert AnimalShogi().is_legal(MCTSPlayer(sims=16, seed=1).choose(AnimalShogi()).move)
    shogi = MCTSPlayer(sims=4, evaluator=NetworkEvaluator.from_dir(resolve("az-animal-shogi")))
    assert shogi.games == ("animal-shogi",)
    assert AnimalShogi().is_legal(shogi.choose(AnimalShogi()).move)
    with pytest.raises(ConfigError, match="animal-shogi only, not othello positions"):
        shogi.choose(Board())
    player = make_player("alphazero:model=az-animal-shogi,sims=4")
    assert AnimalShogi().is_legal(player.choose(AnimalShogi()).move)
