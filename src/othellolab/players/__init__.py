"""Every way to choose a move, behind one ``Player`` interface, named by spec strings."""

from othellolab.players.alphabeta import AlphaBetaPlayer, SearchResult, search
from othellolab.players.base import Limit, Player, PlayResult, Score, uniform_policy
from othellolab.players.endgame import EndgamePlayer, SolveResult, solve
from othellolab.players.registry import (
    available_players,
    make_player,
    parse_spec,
    register_player,
    strongest_player_spec,
)
from othellolab.players.simple import GreedyPlayer, RandomPlayer

__all__ = [
    "AlphaBetaPlayer",
    "EndgamePlayer",
    "GreedyPlayer",
    "Limit",
    "PlayResult",
    "Player",
    "RandomPlayer",
    "Score",
    "SearchResult",
    "SolveResult",
    "available_players",
    "make_player",
    "parse_spec",
    "register_player",
    "search",
    "solve",
    "strongest_player_spec",
    "uniform_policy",
]
