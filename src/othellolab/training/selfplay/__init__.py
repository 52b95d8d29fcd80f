"""Self-play: the batched engine that plays many games at once with one evaluator
(``engine``), its options (``config``), the exact endgame (``exact``) and the format of the
records it produces (``records``). The batched search it drives is the players'
(``players.mcts.batch``); its names are re-exported here."""

from othellolab.players.mcts.batch import BatchSearch, SearchOutcome, search_positions
from othellolab.training.selfplay.config import VARIANTS, SelfPlayConfig
from othellolab.training.selfplay.engine import SelfPlay, play_games
from othellolab.training.selfplay.records import NO_SCORE, SelfPlayRecords

__all__ = [
    "NO_SCORE",
    "VARIANTS",
    "BatchSearch",
    "SearchOutcome",
    "SelfPlay",
    "SelfPlayConfig",
    "SelfPlayRecords",
    "play_games",
    "search_positions",
]
