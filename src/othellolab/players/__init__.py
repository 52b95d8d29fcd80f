"""Every way to choose a move, behind one ``Player`` interface, named by spec strings."""

from othellolab.players.base import Limit, Player, PlayResult, Score, uniform_policy
from othellolab.players.evaluators import Evaluator, RandomRolloutEvaluator, UniformEvaluator
from othellolab.players.mcts import MCTS, MCTSPlayer, SearchResult
from othellolab.players.montecarlo import MonteCarloPlayer
from othellolab.players.registry import (
    available_players,
    make_player,
    parse_spec,
    register_player,
    strongest_player_spec,
)
from othellolab.players.simple import GreedyPlayer, RandomPlayer

__all__ = [
    "MCTS",
    "Evaluator",
    "GreedyPlayer",
    "Limit",
    "MCTSPlayer",
    "MonteCarloPlayer",
    "PlayResult",
    "Player",
    "RandomPlayer",
    "RandomRolloutEvaluator",
    "Score",
    "SearchResult",
    "UniformEvaluator",
    "available_players",
    "make_player",
    "parse_spec",
    "register_player",
    "strongest_player_spec",
    "uniform_policy",
]
