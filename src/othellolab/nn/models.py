"""The three network families behind one interface: planes in, policy logits and values out.

``forward(x)`` takes float planes ``(B, C, size, size)`` and returns a tuple ``(policy_logits
(B, size*size+1), value (B,) in [-1, 1])``, then the outputs of the optional heads the config
has, in the order of ``ModelConfig.outputs``: ``score (B,)`` in [-1, 1] (final disc difference
/ size*size), ``ownership (B, cells)`` in [-1, 1], ``score_logits (B, score_bins)`` and
``opponent_policy_logits (B, actions)``. ``named_outputs`` names them. Values are from the
side to move's point of view.
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
    "named_outputs",
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


def named_outputs(config: ModelConfig, out: tuple[torch.Tensor, ...]) -> dict[str, torch.Tensor]:
    """A forward's outputs by name (``ModelConfig.outputs``)."""
    return dict(zip(config.outputs, out, strict=True))


def _policy_head(config: ModelConfig, filters: int, bn: bool) -> nn.Sequential:
    return nn.Sequential(
        *_conv_bn(filters, config.policy_channels, 1, bn),
        nn.ReLU(),
        nn.Flatten(),
        nn.Linear(config.policy_channels * config.cells, config.policy_size),
    )


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
        self.policy = _policy_head(config, filters, bn)
        self.value_trunk = nn.Sequential(
            *_conv_bn(filters, config.value_channels, 1, bn),
            nn.ReLU(),
            nn.Flatten(),
            nn.Linear(config.value_channels * n2, config.value_hidden),
            nn.ReLU(),
        )
        self.value = nn.Linear(config.value_hidden, 1)
        self.score = nn.Linear(config.value_hidden, 1) if config.score_head else None
        self.ownership = nn.Conv2d(filters, 1, 1) if config.ownership_head else None
        bins = config.score_bins if config.score_distribution else 0
        self.score_logits = nn.Linear(config.value_hidden, bins) if bins else None
        self.opponent_policy = (
            _policy_head(config, filters, bn) if config.opponent_policy_head else None
        )

    def forward(self, h: torch.Tensor) -> tuple[torch.Tensor, ...]:
        v = self.value_trunk(h)
        out = (self.policy(h), torch.tanh(self.value(v)).squeeze(-1))
        if self.score is not None:
            out = (*out, torch.tanh(self.score(v)).squeeze(-1))
        if self.ownership is not None:
            out = (*out, torch.tanh(torch.flatten(self.ownership(h), 1)))
        if self.score_logits is not None:
            out = (*out, self.score_logits(v))
        if self.opponent_policy is not None:
            out = (*out, self.opponent_policy(h))
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


class _GlobalPool(nn.Module):
    """KataGo's global pooling: channel biases from the mean and the maximum over the board of
    the first ``channels`` channels; zero at the start (the bias layer's weights are zero)."""

    def __init__(self, channels: int, filters: int) -> None:
        super().__init__()
        self.channels = channels
        self.bias = nn.Linear(2 * channels, filters)
        nn.init.zeros_(self.bias.weight)
        nn.init.zeros_(self.bias.bias)

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        part = h[:, : self.channels]
        pooled = torch.cat([part.mean(dim=(2, 3)), part.amax(dim=(2, 3))], dim=1)
        return h + self.bias(pooled)[:, :, None, None]


class _Block(nn.Module):
    """Two 3x3 convolutions and a skip; with ``pool``, global-pooling biases between them."""

    def __init__(self, filters: int, bn: bool, pool: int = 0) -> None:
        super().__init__()
        self.body = nn.Sequential(
            *_conv_bn(filters, filters, 3, bn),
            nn.ReLU(),
            *_conv_bn(filters, filters, 3, bn),
        )
        self.pool = _GlobalPool(pool, filters) if pool else None
        self._split = 3 if bn else 2

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.pool is None:
            return torch.relu(x + self.body(x))
        h = x
        for i, layer in enumerate(self.body):
            if i == self._split:
                h = self.pool(h)
            h = layer(h)
        return torch.relu(x + h)


class ResNet(PolicyValueNet):
    """A 3x3 stem, ``blocks`` residual blocks of two convolutions, and the shared heads."""

    def __init__(self, config: ModelConfig) -> None:
        super().__init__(config)
        bn = config.batch_norm
        self.stem = nn.Sequential(*_conv_bn(config.channels, config.filters, 3, bn), nn.ReLU())
        self.blocks = nn.Sequential(
            *(
                _Block(config.filters, bn, config.pool_channels if config.pools(b) else 0)
                for b in range(config.blocks)
            )
        )
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
        self.ownership = nn.Linear(width, n2) if config.ownership_head else None
        bins = config.score_bins if config.score_distribution else 0
        self.score_logits = nn.Linear(width, bins) if bins else None
        self.opponent_policy = (
            nn.Linear(width, config.policy_size) if config.opponent_policy_head else None
        )

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, ...]:
        planes = x
        if self.config.mlp_input == "board":
            x = x[:, 0] + 2.0 * x[:, 1]
        h = self.trunk(torch.flatten(x, 1))
        out = (self.policy(h), torch.tanh(self.value(h)).squeeze(-1))
        if self.score is not None:
            out = (*out, torch.tanh(self.score(h)).squeeze(-1))
        if self.ownership is not None:
            out = (*out, torch.tanh(self.ownership(h)))
        if self.score_logits is not None:
            out = (*out, self.score_logits(h))
        if self.opponent_policy is not None:
            out = (*out, self.opponent_policy(h))
        return self._masked(planes, out)


_FAMILIES: dict[str, type[PolicyValueNet]] = {"mlp": MLP, "cnn": CNN, "resnet": ResNet}


def build_model(config: ModelConfig) -> PolicyValueNet:
    """A freshly initialised network of the config's family (seed torch first for repeatability)."""
    return _FAMILIES[config.family](config)


def count_parameters(model: nn.Module) -> int:
    """Number of trainable parameters."""
    return sum(p.numel() for p in model.parameters() if p.requires_grad)
