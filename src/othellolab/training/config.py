"""Typed, validated configs of a supervised run, read from TOML (unknown keys rejected).

Each TOML table maps to one frozen dataclass; ``configs/supervised-example.toml`` lists every
option with its default. ``SupervisedConfig.to_dict()`` is what a run directory freezes.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from othellolab.config import read_toml, run_name
from othellolab.core import ConfigError
from othellolab.nn.config import ModelConfig, ModelConfigError, model_config

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
    "read_table",
]


_MAX_INT = 10**12
"""Largest integer any run option takes (counts of rows, games, steps, epochs)."""


def _check(cond: bool, where: str, message: str) -> None:
    if not cond:
        raise ConfigError(f"{where}: {message}")


@dataclass(frozen=True)
class DataConfig:
    """Where positions come from: a dataset directory built by ``othellolab dataset build``
    (its ``train`` split and ``val_split``), or else WTHOR years (``"2001-2014"``) with
    validation by years or by a fraction of the training games; caps for quick runs (0 = all)."""

    dataset: str = ""
    val_split: str = "val"
    max_rows: int = 0
    max_val_rows: int = 0
    wthor_dir: str = "../shared/data/wthor"
    train_years: str = "2001-2014"
    val_years: str = ""
    val_fraction: float = 0.05
    max_games: int = 0
    max_val_games: int = 0
    include_passes: bool = False
    augment: bool = True

    def validate(self, where: str) -> None:
        _check(self.max_rows >= 0 and self.max_val_rows >= 0, where, "max_rows must be >= 0")
        if self.dataset.strip():
            _check(
                self.val_split in ("train", "val", "test"),
                where,
                f"val_split {self.val_split!r}: expected train, val or test",
            )
            return
        _check(bool(self.train_years.strip()), where, "train_years is empty")
        _check(
            bool(self.val_years.strip()) or 0.0 < self.val_fraction < 1.0,
            where,
            "give val_years, or a val_fraction in (0, 1)",
        )
        _check(self.max_games >= 0 and self.max_val_games >= 0, where, "max_games must be >= 0")


@dataclass(frozen=True)
class OptimConfig:
    """The optimiser: ``adam``, ``adamw`` or ``sgd`` (with momentum, optionally Nesterov)."""

    optimizer: str = "adamw"
    lr: float = 1e-3
    weight_decay: float = 1e-4
    momentum: float = 0.9
    nesterov: bool = True
    grad_clip: float = 0.0

    def validate(self, where: str) -> None:
        _check(
            self.optimizer in ("adam", "adamw", "sgd"),
            where,
            f"optimizer={self.optimizer!r}; expected adam, adamw or sgd",
        )
        _check(self.lr > 0, where, f"lr={self.lr} must be positive")
        _check(
            self.weight_decay >= 0 and self.grad_clip >= 0,
            where,
            "weight_decay and grad_clip must be >= 0",
        )


@dataclass(frozen=True)
class ScheduleConfig:
    """Learning-rate schedule over optimiser steps: linear warm-up, then ``cosine`` (down to
    ``lr * min_lr_ratio``), ``step`` (times ``gamma`` every ``step_epochs`` epochs) or
    ``constant``."""

    kind: str = "cosine"
    warmup_steps: int = 0
    min_lr_ratio: float = 0.0
    step_epochs: int = 1
    gamma: float = 0.5

    def validate(self, where: str) -> None:
        _check(
            self.kind in ("cosine", "step", "constant"),
            where,
            f"kind={self.kind!r}; expected cosine, step or constant",
        )
        _check(
            self.warmup_steps >= 0 and self.step_epochs >= 1,
            where,
            "warmup_steps >= 0 and step_epochs >= 1",
        )
        _check(
            0 <= self.min_lr_ratio <= 1 and 0 < self.gamma <= 1,
            where,
            "min_lr_ratio in [0, 1], gamma in (0, 1]",
        )


@dataclass(frozen=True)
class TrainConfig:
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

    def validate(self, where: str) -> None:
        _check(
            self.batch_size >= 1 and self.epochs >= 1, where, "batch_size and epochs must be >= 1"
        )
        _check(self.batch_size <= 1 << 20, where, "batch_size must be at most 1048576")
        _check(
            self.value_weight >= 0 and self.score_weight >= 0, where, "loss weights must be >= 0"
        )
        for key in (
            "checkpoint_every_steps",
            "log_every_steps",
            "patience",
            "export_every_epochs",
            "steps_per_epoch",
        ):
            _check(getattr(self, key) >= 0, where, f"{key} must be >= 0")


@dataclass(frozen=True)
class RuntimeConfig:
    """Where and how fast: ``device`` (``cpu``, ``cuda`` or ``auto``), torch threads per
    process, ``mixed_precision``: bfloat16 autocast where the hardware does it fast (CUDA, or a
    CPU with AMX or AVX512-BF16; ``nn.precision``), ``torch.compile`` of the training forward
    pass. These may change when a run resumes."""

    device: str = "cpu"
    threads: int = 1
    mixed_precision: bool = True
    compile: bool = False

    def validate(self, where: str) -> None:
        _check(
            self.device in ("cpu", "cuda", "auto"),
            where,
            f"device={self.device!r}; expected cpu, cuda or auto",
        )
        _check(self.threads >= 1, where, "threads must be >= 1")


@dataclass(frozen=True)
class DistributedConfig:
    """How the processes of a ``torchrun`` run work together (``training.distributed``; a
    plain start ignores the table): ``backend`` (``auto``: NCCL on CUDA, gloo on CPUs),
    ``timeout_s``: how long a collective waits for a rank before the run ends with an error
    (a dead rank must not hang the others), ``sync_batchnorm``: batch-norm statistics over the
    global batch instead of each rank's share. These may change when a run resumes."""

    backend: str = "auto"
    timeout_s: float = 600.0
    sync_batchnorm: bool = False

    def validate(self, where: str) -> None:
        _check(
            self.backend in ("auto", "nccl", "gloo"),
            where,
            f"backend={self.backend!r}; expected auto, nccl or gloo",
        )
        _check(
            0 < self.timeout_s <= 86400, where, f"timeout_s={self.timeout_s} must be in (0, 86400]"
        )


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
            d[key] = asdict(getattr(self, key))
        return d

    @classmethod
    def from_dict(cls, data: dict[str, Any], *, where: str = "config") -> SupervisedConfig:
        """Build and validate, rejecting unknown tables and keys."""
        top = {"name", "seed", "runs_dir", "model", *_TABLES}
        unknown = sorted(set(data) - top)
        _check(
            not unknown,
            where,
            f"unknown key(s) {', '.join(unknown)}; known: {', '.join(sorted(top))}",
        )
        name = run_name(data.get("name"), where)
        seed = data.get("seed", 0)
        _check(
            isinstance(seed, int) and not isinstance(seed, bool), where, "seed must be an integer"
        )
        model = data.get("model")
        _check(
            model is not None, where, "a [model] table is required (e.g. preset = 'resnet-b6c64')"
        )
        try:
            if isinstance(model, str):
                mcfg = model_config(model)
            else:
                mcfg = ModelConfig.from_dict(model, where=f"{where}: [model]")
        except ModelConfigError as e:
            raise ConfigError(str(e)) from None
        tables = {
            key: read_table(klass, data.get(key, {}), f"{where}: [{key}]")
            for key, klass in _TABLES.items()
        }
        return cls(
            name=name, model=mcfg, seed=seed, runs_dir=str(data.get("runs_dir", "runs")), **tables
        )


def read_table(klass: type, section: Any, where: str) -> Any:
    """One table of a run config as its dataclass: unknown keys, wrong types, non-finite or
    out-of-range numbers are errors naming the table and key (``where``)."""
    _check(isinstance(section, dict), where, "expected a table")
    known = {f.name: f for f in fields(klass)}
    bad = sorted(set(section) - set(known))
    _check(not bad, where, f"unknown key(s) {', '.join(bad)}; known: {', '.join(known)}")
    for k, v in section.items():
        want = type(getattr(klass(), k))
        ok = isinstance(v, want) or (want is float and isinstance(v, int))
        _check(
            ok and not (want is not bool and isinstance(v, bool)),
            where,
            f"{k}={v!r} should be a {want.__name__}",
        )
        _check(
            not isinstance(v, float) or math.isfinite(v),
            where,
            f"{k}={v!r} should be a finite number",
        )
        _check(
            not isinstance(v, int) or abs(v) <= _MAX_INT,
            where,
            f"{k}={v!r} is out of range (at most {_MAX_INT:,})",
        )
    obj = klass(
        **{k: (float(v) if type(getattr(klass(), k)) is float else v) for k, v in section.items()}
    )
    obj.validate(where)
    return obj


def load_config(path: str | Path) -> SupervisedConfig:
    """Read and validate a TOML run config."""
    data, _ = read_toml(path)
    return SupervisedConfig.from_dict(data, where=str(path))
