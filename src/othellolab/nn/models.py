"""The three network families behind one interface: planes in, policy logits and values out.

``forward(x)`` takes float planes ``(B, C, size, size)`` and returns a tuple ``(policy_logits
(B, size*size+1), value (B,) in [-1, 1])``, plus ``score (B,)`` in [-1, 1] (final disc
difference / size*size) when the config has a score head. Values are from the side to move's
point of view.
"""

from __future__ import annotations

import torch
from torch import nn

from othellolab.nn.config import ModelConfig

__all__ = [
    "CNN",
    "ILLEGAL_LOGIT",
    "MLP",
    "PolicyValueNet",
    "ResNet",
    "build_model",
    "count_parameters",
]

ILLEGAL_LOGIT = -1.0e4
"""The logit a masking model gives an illegal action: finite (no NaN in a loss or in bfloat16),
and far enough below any legal logit that its probability is zero."""


class PolicyValueNet(nn.Module):
    """Base of every family: holds the config so that saving and loading need nothing else."""

    config: ModelConfig

    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        self.config = config
        self._legal = config.planes.index("legal") if config.mask_illegal else -1

    def _masked(self, x: torch.Tensor, out: tuple[torch.Tensor, ...]) -> tuple[torch.Tensor, ...]:
        """With ``mask_illegal``: the policy logits of illegal actions set to ``ILLEGAL_LOGIT``
        by the input's ``legal`` plane (the pass is legal when no square is)."""
        if self._legal < 0:
            return out
        legal = torch.flatten(x[:, self._legal], 1) > 0.5
        legal = torch.cat([legal, ~legal.any(dim=1, keepdim=True)], dim=1)
        return (out[0].masked_fill(~legal, ILLEGAL_LOGIT), *out[1:])


def _conv_bn(cin: int, cout: int, k: int, bn: bool) -> list[nn.Module]:
    layers: list[nn.Module] = [nn.Conv2d(cin, cout, k, padding=k // 2, bias=not bn)]
    if bn:
        layers.append(nn.BatchNorm2d(cout))
    return layers


class _Heads(nn.Module):
    """AlphaZero-style heads over a convolutional trunk: 1x1 convolutions, then dense layers."""

    def __init__(self, config: ModelConfig, filters: int, bn: bool) -> None:
        super().__init__()
        n2 = config.cells
        self.policy = nn.Sequential(
            *_conv_bn(filters, config.policy_channels, 1, bn),
            nn.ReLU(),
            nn.Flatten(),
            nn.Linear(config.policy_channels * n2, config.policy_size),
        )
        self.value_trunk = nn.Sequential(
            *_conv_bn(filters, config.value_channels, 1, bn),
            nn.ReLU(),
            nn.Flatten(),
            nn.Linear(config.value_channels * n2, config.value_hidden),
            nn.ReLU(),
        )
        self.value = nn.Linear(config.value_hidden, 1)
        self.score = nn.Linear(config.value_hidden, 1) if config.score_head else None

    def forward(self, h: torch.Tensor) -> tuple[torch.Tensor, ...]:
        v = self.value_trunk(h)
        out = (self.policy(h), torch.tanh(self.value(v)).squeeze(-1))
        if self.score is not None:
            out = (*out, torch.tanh(self.score(v)).squeeze(-1))
        return out


class CNN(PolicyValueNet):
    """A plain stack of ``layers`` 3x3 convolutions of ``filters`` channels with ReLU."""

    def __init__(self, config: ModelConfig) -> None:
        super().__init__(config)
        bn = config.batch_norm
        layers: list[nn.Module] = []
        cin = config.channels
        for _ in range(config.layers):
            layers += [*_conv_bn(cin, config.filters, 3, bn), nn.ReLU()]
            cin = config.filters
        self.trunk = nn.Sequential(*layers)
        self.heads = _Heads(config, config.filters, bn)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, ...]:
        return self._masked(x, self.heads(self.trunk(x)))


class _Block(nn.Module):
    def __init__(self, filters: int, bn: bool) -> None:
        super().__init__()
        self.body = nn.Sequential(
            *_conv_bn(filters, filters, 3, bn),
            nn.ReLU(),
            *_conv_bn(filters, filters, 3, bn),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x + self.body(x))


class ResNet(PolicyValueNet):
    """A 3x3 stem, ``blocks`` residual blocks of two convolutions, and the shared heads."""

    def __init__(self, config: ModelConfig) -> None:
        super().__init__(config)
        bn = config.batch_norm
        self.stem = nn.Sequential(*_conv_bn(config.channels, config.filters, 3, bn), nn.ReLU())
        self.blocks = nn.Sequential(*(_Block(config.filters, bn) for _ in range(config.blocks)))
        self.heads = _Heads(config, config.filters, bn)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, ...]:
        return self._masked(x, self.heads(self.blocks(self.stem(x))))


class MLP(PolicyValueNet):
    """Dense layers over the flattened planes, or over one 0/1/2 value per square
    (``mlp_input="board"``: the classic 64-100-100-65 network with a value output added)."""

    def __init__(self, config: ModelConfig) -> None:
        super().__init__(config)
        n2 = config.cells
        width = n2 if config.mlp_input == "board" else config.channels * n2
        layers: list[nn.Module] = []
        for h in config.hidden:
            layers += [nn.Linear(width, h), nn.ReLU()]
            width = h
        self.trunk = nn.Sequential(*layers)
        self.policy = nn.Linear(width, config.policy_size)
        self.value = nn.Linear(width, 1)
        self.score = nn.Linear(width, 1) if config.score_head else None

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, ...]:
        planes = x
        if self.config.mlp_input == "board":
            x = x[:, 0] + 2.0 * x[:, 1]
        h = self.trunk(torch.flatten(x, 1))
        out = (self.policy(h), torch.tanh(self.value(h)).squeeze(-1))
        if self.score is not None:
            out = (*out, torch.tanh(self.score(h)).squeeze(-1))
        return self._masked(planes, out)


_FAMILIES: dict[str, type[PolicyValueNet]] = {"mlp": MLP, "cnn": CNN, "resnet": ResNet}


def build_model(config: ModelConfig) -> PolicyValueNet:
    """A freshly initialised network of the config's family (seed torch first for repeatability)."""
    return _FAMILIES[config.family](config)


def count_parameters(model: nn.Module) -> int:
    """Number of trainable parameters."""
    return sum(p.numel() for p in model.parameters() if p.requires_grad)
