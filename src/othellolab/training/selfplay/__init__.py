"""Self-play: the batched engine that plays many games at once with one evaluator
(``engine``), its options (``config``) and the batched searches it drives (``search``)."""

from othellolab.training.selfplay.config import VARIANTS, SelfPlayConfig
from othellolab.training.selfplay.engine import NO_SCORE, SelfPlay, SelfPlayRecords, play_games
from othellolab.training.selfplay.search import BatchSearch, SearchOutcome, search_positions

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
