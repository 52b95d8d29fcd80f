"""Every way to choose a move, behind one ``Player`` interface, named by spec strings.

The search algorithms live in ``players.search`` (the exact solver, alpha-beta, the
evaluations) and ``players.mcts``; the players are thin adapters over them.
"""

from othellolab.players.alphabeta import AlphaBetaPlayer
from othellolab.players.base import Limit, Player, PlayResult, Score, uniform_policy
from othellolab.players.endgame import EndgamePlayer
from othellolab.players.evaluators import Evaluator, RandomRolloutEvaluator, UniformEvaluator
from othellolab.players.mcts import MCTS, MCTSPlayer
from othellolab.players.montecarlo import MonteCarloPlayer
from othellolab.players.registry import (
    available_players,
    make_player,
    parse_spec,
    register_player,
    strongest_player_spec,
)
from othellolab.players.search import SolveResult, solve
from othellolab.players.shogi_alphabeta import ShogiAlphaBetaPlayer
from othellolab.players.simple import GreedyPlayer, RandomPlayer

__all__ = [
    "MCTS",
    "AlphaBetaPlayer",
    "EndgamePlayer",
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
    "ShogiAlphaBetaPlayer",
    "SolveResult",
    "UniformEvaluator",
    "available_players",
    "make_player",
    "parse_spec",
    "register_player",
    "solve",
    "strongest_player_spec",
    "uniform_policy",
]
