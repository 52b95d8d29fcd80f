"""Self-play: the batched engine that plays many games at once with one evaluator
(``engine``), its options (``config``), the batched searches it drives (``search``) and the
format of the records it produces (``records``)."""

from othellolab.training.selfplay.config import VARIANTS, SelfPlayConfig
from othellolab.training.selfplay.engine import SelfPlay, play_games
from othellolab.training.selfplay.records import NO_SCORE, SelfPlayRecords
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
