"""Fast inference and training arithmetic: bfloat16 where the processor does it in hardware,
and an inference copy of a network with its batch norms folded into the convolutions.

On a CPU with AMX (Intel Sapphire Rapids and later) a batch of a thousand 6x6 positions runs
about 4-6 times faster in bfloat16 than in float32, and a training step about 2.3 times
(``benchmarks/bench_selfplay.py`` measures it); with AVX512-BF16 alone (AMD Zen 4) an 8x8
``resnet-b8c64`` training step runs 1.9 times channels-last float32 (2.4 times eager;
``benchmarks/bench_nn.py --variants``) and a batch of 256 evaluations 2 times; elsewhere
bfloat16 on the CPU is emulated and slower, so ``auto`` keeps float32 there. On CUDA bfloat16 is always fast.
"""

from __future__ import annotations

import copy
import functools
import platform
from pathlib import Path

import torch
from torch import nn

from othellolab.core import ConfigError

__all__ = [
    "PRECISIONS",
    "bf16_in_hardware",
    "check_precision",
    "fast_bfloat16",
    "inference_copy",
    "training_layout",
    "use_bfloat16",
]

PRECISIONS = ("auto", "float32", "bfloat16")
"""``float32``: the network as trained, exactly; ``bfloat16``: bfloat16 arithmetic (autocast)
on a folded copy; ``auto``: bfloat16 where the hardware does it (CUDA, or a CPU with AMX or
AVX512-BF16), the folded float32 copy elsewhere."""


def check_precision(value: object, option: str = "precision") -> str:
    """``value`` if it is one of ``PRECISIONS``, else a ``ConfigError`` naming ``option``."""
    if not isinstance(value, str) or value not in PRECISIONS:
        raise ConfigError(
            f"expected one of {', '.join(PRECISIONS)}, got {value!r}",
            option=option,
            allowed=", ".join(PRECISIONS),
        )
    return value


@functools.cache
def bf16_in_hardware() -> bool:
    """Whether this CPU multiplies bfloat16 in hardware (AMX tiles, or AVX512-BF16 dot products),
    where oneDNN's bfloat16 convolutions beat float32 (by several times with AMX)."""
    if platform.system() != "Linux" or not torch.backends.mkldnn.is_available():
        return False
    try:
        flags = Path("/proc/cpuinfo").read_text(errors="replace")
    except OSError:
        return False
    hardware = " amx_bf16" in flags or " avx512_bf16" in flags
    return hardware and bool(torch.ops.mkldnn._is_mkldnn_bf16_supported())


def fast_bfloat16(device: torch.device | str) -> bool:
    """Whether bfloat16 arithmetic is fast on ``device``: CUDA, or a CPU that does it in
    hardware (``bf16_in_hardware``)."""
    kind = torch.device(device).type
    return kind == "cuda" or (kind == "cpu" and bf16_in_hardware())


def use_bfloat16(precision: str, device: torch.device | str) -> bool:
    """Whether ``precision`` means bfloat16 arithmetic on ``device``."""
    return precision == "bfloat16" or (precision == "auto" and fast_bfloat16(device))


def training_layout(model: nn.Module, device: torch.device, autocast: bool) -> bool:
    """Put a convolutional ``model`` in channels-last memory when it trains on the CPU (oneDNN's
    fast layout there: training steps run 1.1-1.3 times faster in float32 and, under bfloat16
    autocast, a 6x6 ResNet step about 1.3 times; ``benchmarks/bench_nn.py --variants``) or
    under autocast on CUDA; returns whether its inputs should follow."""
    if device.type != "cpu" and not autocast:
        return False
    if not any(isinstance(m, nn.Conv2d) for m in model.modules()):
        return False
    model.to(memory_format=torch.channels_last)
    return True


def inference_copy(model: nn.Module) -> nn.Module:
    """An evaluation-mode copy of ``model`` with each batch norm that follows a convolution in
    a ``Sequential`` folded into it, in channels-last memory (faster on CPUs; the same
    function up to rounding)."""
    from torch.nn.utils.fusion import fuse_conv_bn_eval

    clone = copy.deepcopy(model).eval()
    for seq in clone.modules():
        if not isinstance(seq, nn.Sequential):
            continue
        for i in range(len(seq) - 1):
            conv, bn = seq[i], seq[i + 1]
            if isinstance(conv, nn.Conv2d) and isinstance(bn, nn.BatchNorm2d):
                seq[i] = fuse_conv_bn_eval(conv, bn)
                seq[i + 1] = nn.Identity()
    return clone.to(memory_format=torch.channels_last)
