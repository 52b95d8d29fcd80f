"""Policy/value networks: configs (no torch needed), models, model files, ONNX, inference.

Networks read the planes of ``core.features`` and mask with ``core.kernels``'
``action_mask_batch``; ``files`` checks a model file before it is trusted and ``io`` writes
one through ``core.files``.

Only the configs load here; ``othellolab.nn.models``, ``io``, ``inference`` and ``onnx``
import torch, so import them where a network is really used.
"""

from othellolab.nn.config import (
    FAMILIES,
    PLANE_NAMES,
    ModelConfig,
    ModelConfigError,
    model_config,
)

__all__ = ["FAMILIES", "PLANE_NAMES", "ModelConfig", "ModelConfigError", "model_config"]
