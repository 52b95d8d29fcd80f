"""Policy/value networks: configs (no torch needed), models, safetensors IO, ONNX, inference.

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
