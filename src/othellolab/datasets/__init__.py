"""Records -> position rows -> arrays: the one feature encoder, dataset builds, batch loading.

``replay`` turns any reader's games (``sources``: WTHOR files in one go, or ``GameRecord`` values)
into position rows, the one path from records to rows (``positions_from_games`` and the
in-memory ``PositionArrays``); ``build`` writes them as a dataset folder of memory-mappable
arrays with a manifest (``shards``); ``batches`` samples augmented batches from a split
(``DatasetSplit``) and ``torch`` wraps that for PyTorch. ``features`` is the one encoder
(board -> planes, move <-> policy index, symmetries) that players and envs reuse.
"""

from othellolab.core.features import (
    PLANE_NAMES,
    FeatureSpec,
    encode_batch,
    encode_board,
    index_to_move,
    move_to_index,
    policy_size,
    transform_action,
    transform_actions,
    transform_bitboards,
    transform_planes,
    transform_policy,
)
from othellolab.datasets.batches import Batch, BatchSampler, DatasetSplit, iterate_batches
from othellolab.datasets.build import BuildOptions, BuildReport, build_dataset
from othellolab.datasets.replay import PositionArrays, positions_from_games

__all__ = [
    "PLANE_NAMES",
    "Batch",
    "BatchSampler",
    "BuildOptions",
    "BuildReport",
    "DatasetSplit",
    "FeatureSpec",
    "PositionArrays",
    "build_dataset",
    "encode_batch",
    "encode_board",
    "index_to_move",
    "iterate_batches",
    "move_to_index",
    "policy_size",
    "positions_from_games",
    "transform_action",
    "transform_actions",
    "transform_bitboards",
    "transform_planes",
    "transform_policy",
]
