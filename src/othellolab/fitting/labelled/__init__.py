"""Search-labelled self-play positions for fitting the pattern evaluation.

The engine plays itself from XOT openings or WTHOR positions, its moves varied by a few random
plies or a softmax over shallow search scores, and every game is finished by the exact solver
from ``exact_empties`` on (Logistello's way). Each position is labelled with the game's final
score, its exact score where the solved tail gives one, and a shallow search score. ``config``
reads the TOML, ``openings`` draws the starts, ``generate`` plays and labels a shard,
``shards`` writes and reads shards (``load_labelled`` gives ``fitting.positions.Positions``),
``run`` drives a resumable run over worker processes or Ray.
"""

from othellolab.fitting.labelled.config import LabelledConfig, load_labelled_config
from othellolab.fitting.labelled.run import generate_labelled, summarise
from othellolab.fitting.labelled.shards import LabelledShardError, load_labelled

__all__ = [
    "LabelledConfig",
    "LabelledShardError",
    "generate_labelled",
    "load_labelled",
    "load_labelled_config",
    "summarise",
]
