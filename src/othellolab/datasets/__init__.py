"""Records -> arrays: the feature encoder, dataset builds, and batch loading.

``features`` is the one encoder (board -> planes, move <-> policy index, symmetries) that
players reuse at play time; ``build`` turns game records into memory-mappable arrays with a
manifest; ``batches`` samples augmented batches from them; ``torch`` wraps that for PyTorch.
"""

from othellolab.datasets.batches import Batch, BatchSampler, DatasetSplit, iterate_batches
from othellolab.datasets.build import BuildOptions, BuildReport, build_dataset
from othellolab.datasets.features import (
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
