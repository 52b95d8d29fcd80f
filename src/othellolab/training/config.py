"""Typed, validated configs of a supervised run, read from TOML (unknown keys rejected).

Each TOML table maps to one frozen dataclass; ``configs/supervised-example.toml`` lists every
option with its default. ``SupervisedConfig.to_dict()`` is what a run directory freezes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from othellolab.config import (
    CheckedTable,
    Option,
    load_with_overrides,
    read_toml,
    refuse_unknown,
    run_name,
    whole_number,
)
from othellolab.core import ConfigError
from othellolab.nn.config import ModelConfig, ModelConfigError, model_config
from othellolab.records.download import check_data_value

__all__ = [
    "ConfigError",
    "DataConfig",
    "DistributedConfig",
    "OptimConfig",
    "RuntimeConfig",
    "ScheduleConfig",
    "SupervisedConfig",
    "TrainConfig",
    "load_config",
]


_MAX_INT = 10**12
"""Largest integer any run option takes (counts of rows, games, steps, epochs)."""


def _count(low: int, help: str) -> Option:
    """A whole-number option from ``low`` up to ``_MAX_INT``."""
    return Option(int, low, _MAX_INT, help=help)


@dataclass(frozen=True)
class DataConfig(CheckedTable):
    """Where positions come from: a dataset directory built by ``othellolab dataset build``
    (its ``train`` split and ``val_split``), or else WTHOR years (``"2001-2014"``) with
    validation by years or by a fraction of the training games; caps for quick runs (0 = all)."""

    dataset: str = ""
    val_split: str = "val"
    max_rows: int = 0
    max_val_rows: int = 0
    wthor_dir: str = "data:wthor"
    train_years: str = "2001-2014"
    val_years: str = ""
    val_fraction: float = 0.05
    max_games: int = 0
    max_val_games: int = 0
    include_passes: bool = False
    augment: bool = True

    TABLE: ClassVar[str] = "[data]"
    OPTIONS: ClassVar[dict[str, Option]] = {
        "dataset": Option(str, help="a dataset directory (its train split); '': WTHOR years"),
        "val_split": Option(
            str, choices=("train", "val", "test"), help="the dataset's split validated on"
        ),
        "max_rows": _count(0, "cap on the dataset's training rows (0: all)"),
        "max_val_rows": _count(0, "cap on the validation rows (0: all)"),
        "wthor_dir": Option(
            str,
            check=check_data_value,
            help="folder of the WTHOR files; data:wthor: the data folder's copy (`othellolab data path wthor`)",
        ),
        "train_years": Option(str, digits=True, help="WTHOR years trained on, e.g. 2001-2014"),
        "val_years": Option(
            str, digits=True, help="WTHOR years validated on ('': a fraction of the training games)"
        ),
        "val_fraction": Option(
            float, 0, 1, help="share of the training games held out to validate, in (0, 1)"
        ),
        "max_games": _count(0, "cap on the training games (0: all)"),
        "max_val_games": _count(0, "cap on the validation games (0: all)"),
        "include_passes": Option(bool, help="keep the positions where the side to move passes"),
        "augment": Option(bool, help="a random one of the 8 symmetries per sampled position"),
    }

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.dataset.strip():
            return
        if not self.train_years.strip():
            raise ConfigError("is empty", where=self.TABLE, option="train_years")
        if not self.val_years.strip() and not 0.0 < self.val_fraction < 1.0:
            raise ConfigError(
                f"give val_years, or a val_fraction in (0, 1), got {self.val_fraction}",
                where=self.TABLE,
                option="val_fraction",
            )


@dataclass(frozen=True)
class OptimConfig(CheckedTable):
    """The optimiser: ``adam``, ``adamw`` or ``sgd`` (with momentum, optionally Nesterov)."""

    optimizer: str = "adamw"
    lr: float = 1e-3
    weight_decay: float = 1e-4
    momentum: float = 0.9
    nesterov: bool = True
    grad_clip: float = 0.0

    TABLE: ClassVar[str] = "[optim]"
    OPTIONS: ClassVar[dict[str, Option]] = {
        "optimizer": Option(str, choices=("adam", "adamw", "sgd"), help="the optimiser"),
        "lr": Option(float, 1e-12, 1e6, help="learning rate"),
        "weight_decay": Option(float, 0, 1e6, help="weight decay"),
        "momentum": Option(float, 0, 1, help="sgd: momentum"),
        "nesterov": Option(bool, help="sgd: Nesterov momentum"),
        "grad_clip": Option(float, 0, 1e6, help="clip the gradient's norm to this (0: off)"),
    }


@dataclass(frozen=True)
class ScheduleConfig(CheckedTable):
    """Learning-rate schedule over optimiser steps: linear warm-up, then ``cosine`` (down to
    ``lr * min_lr_ratio``), ``step`` (times ``gamma`` every ``step_epochs`` epochs) or
    ``constant``."""

    kind: str = "cosine"
    warmup_steps: int = 0
    min_lr_ratio: float = 0.0
    step_epochs: int = 1
    gamma: float = 0.5

    TABLE: ClassVar[str] = "[schedule]"
    OPTIONS: ClassVar[dict[str, Option]] = {
        "kind": Option(
            str, choices=("cosine", "step", "constant"), help="the schedule after the warm-up"
        ),
        "warmup_steps": _count(0, "steps of the linear warm-up"),
        "min_lr_ratio": Option(float, 0, 1, help="cosine: the last lr over lr"),
        "step_epochs": _count(1, "step: epochs between two decays"),
        "gamma": Option(float, 1e-12, 1, help="step: the lr's factor at each decay"),
    }


@dataclass(frozen=True)
class TrainConfig(CheckedTable):
    """Batches, epochs, loss weights, checkpoints, early stopping and exports.

    ``steps_per_epoch`` (0: a pass over the data) cuts each epoch to that many batches of the
    epoch's own shuffle, so a run can be sized in steps (equal-time comparisons) and validated
    and exported along the way; the schedule is planned over ``epochs * steps_per_epoch``."""

    batch_size: int = 256
    epochs: int = 10
    value_weight: float = 1.0
    score_weight: float = 0.0
    mask_illegal: bool = True
    checkpoint_every_steps: int = 0
    log_every_steps: int = 50
    patience: int = 0
    min_delta: float = 0.0
    restore_best: bool = True
    export_every_epochs: int = 0
    steps_per_epoch: int = 0

    TABLE: ClassVar[str] = "[train]"
    OPTIONS: ClassVar[dict[str, Option]] = {
        "batch_size": Option(int, 1, 1 << 20, help="positions per optimiser step"),
        "epochs": _count(1, "passes over the data (or of steps_per_epoch batches)"),
        "value_weight": Option(float, 0, 1e6, help="weight of the value loss"),
        "score_weight": Option(float, 0, 1e6, help="weight of the score loss (a score head)"),
        "mask_illegal": Option(bool, help="the policy loss over legal moves only"),
        "checkpoint_every_steps": _count(0, "steps between checkpoints (0: each epoch)"),
        "log_every_steps": _count(0, "steps between metrics lines"),
        "patience": _count(0, "epochs without improvement before stopping (0: never stop)"),
        "min_delta": Option(float, -1e6, 1e6, help="smallest validation-loss drop that counts"),
        "restore_best": Option(bool, help="end with the best epoch's weights"),
        "export_every_epochs": _count(0, "epochs between model exports (0: at the end only)"),
        "steps_per_epoch": _count(0, "batches per epoch (0: a pass over the data)"),
    }


@dataclass(frozen=True)
class RuntimeConfig(CheckedTable):
    """Where and how fast: ``device`` (``cpu``, ``cuda`` or ``auto``), torch threads per
    process, ``mixed_precision``: bfloat16 autocast where the hardware does it fast (CUDA, or a
    CPU with AMX or AVX512-BF16; ``nn.precision``), ``torch.compile`` of the training forward
    pass. These may change when a run resumes."""

    device: str = "cpu"
    threads: int = 1
    mixed_precision: bool = True
    compile: bool = False

    TABLE: ClassVar[str] = "[runtime]"
    OPTIONS: ClassVar[dict[str, Option]] = {
        "device": Option(str, choices=("cpu", "cuda", "auto"), help="where the network trains"),
        "threads": Option(int, 1, 1024, help="torch threads per process"),
        "mixed_precision": Option(bool, help="bfloat16 autocast where the hardware is fast at it"),
        "compile": Option(bool, help="torch.compile the training forward pass"),
    }


@dataclass(frozen=True)
class DistributedConfig(CheckedTable):
    """How the processes of a ``torchrun`` run work together (``training.distributed``; a
    plain start ignores the table): ``backend`` (``auto``: NCCL on CUDA, gloo on CPUs),
    ``timeout_s``: how long a collective waits for a rank before the run ends with an error
    (a dead rank must not hang the others), ``sync_batchnorm``: batch-norm statistics over the
    global batch instead of each rank's share. These may change when a run resumes."""

    backend: str = "auto"
    timeout_s: float = 600.0
    sync_batchnorm: bool = False

    TABLE: ClassVar[str] = "[distributed]"
    OPTIONS: ClassVar[dict[str, Option]] = {
        "backend": Option(
            str,
            choices=("auto", "nccl", "gloo"),
            help="collective backend (auto: NCCL on CUDA, gloo on CPUs)",
        ),
        "timeout_s": Option(float, 0.001, 86400, help="seconds a collective waits for a rank"),
        "sync_batchnorm": Option(bool, help="batch-norm statistics over the global batch"),
    }


_TABLES: dict[str, type] = {
    "data": DataConfig,
    "optim": OptimConfig,
    "schedule": ScheduleConfig,
    "train": TrainConfig,
    "runtime": RuntimeConfig,
    "distributed": DistributedConfig,
}


@dataclass(frozen=True)
class SupervisedConfig:
    """A whole supervised run: its name and seed, the model, and one dataclass per table."""

    name: str
    model: ModelConfig
    seed: int = 0
    runs_dir: str = "runs"
    data: DataConfig = field(default_factory=DataConfig)
    optim: OptimConfig = field(default_factory=OptimConfig)
    schedule: ScheduleConfig = field(default_factory=ScheduleConfig)
    train: TrainConfig = field(default_factory=TrainConfig)
    runtime: RuntimeConfig = field(default_factory=RuntimeConfig)
    distributed: DistributedConfig = field(default_factory=DistributedConfig)

    def to_dict(self) -> dict[str, Any]:
        """Plain data (the model as its full config, not its preset name)."""
        d: dict[str, Any] = {"name": self.name, "seed": self.seed, "runs_dir": self.runs_dir}
        d["model"] = self.model.to_dict()
        for key in _TABLES:
            d[key] = getattr(self, key).to_dict()
        return d

    @classmethod
    def from_dict(cls, data: dict[str, Any], *, where: str = "config") -> SupervisedConfig:
        """Build and validate, rejecting unknown tables and keys."""
        top = {"name", "seed", "runs_dir", "model", *_TABLES}
        refuse_unknown(data, sorted(top), where)
        name = run_name(data.get("name"), where)
        seed = data.get("seed", 0)
        if not whole_number(seed):
            raise ConfigError(f"must be a whole number, got {seed!r}", where=where, option="seed")
        model = data.get("model")
        if model is None:
            raise ConfigError(
                "a [model] table is required (e.g. preset = 'resnet-b6c64')", where=where
            )
        try:
            if isinstance(model, str):
                mcfg = model_config(model)
            else:
                mcfg = ModelConfig.from_dict(model, where=f"{where}: [model]")
        except ModelConfigError as e:
            raise ConfigError(str(e)) from None
        tables = {
            key: klass.from_dict(data.get(key, {}), where=f"{where}: [{key}]")
            for key, klass in _TABLES.items()
        }
        return cls(
            name=name, model=mcfg, seed=seed, runs_dir=str(data.get("runs_dir", "runs")), **tables
        )


def load_config(path: str | Path, overrides: Mapping[str, Any] | None = None) -> SupervisedConfig:
    """Read and validate a TOML run config, with ``overrides`` (table -> key -> value, as
    ``config.parse_overrides`` makes them) merged over its tables first."""
    data, _ = read_toml(path)
    return load_with_overrides(
        lambda d: SupervisedConfig.from_dict(d, where=str(path)), data, overrides
    )
