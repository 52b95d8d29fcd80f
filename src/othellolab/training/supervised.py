"""Supervised training of a policy/value network from positions with the move played.

``SupervisedTrainer`` is what the trainer loop (``training.loop``) trains: batches of a
position source, one optimiser step, validation metrics, checkpoints of the model, optimiser
and random state, model exports. ``train_supervised`` freezes the config into its run
directory (``training.rundir``: ``run.toml``, ``config.json``, ``train/state/``,
``metrics.jsonl``, ``models/<name>-s<samples>-d<rows>/``, plus ``learning_curves.png`` here)
and runs the loop. A killed run resumes from its directory, repeats exactly the steps it lost
and ends with the same weights and metrics as one that was never interrupted (batches are
drawn from a generator seeded by ``(seed, epoch)``).
"""

from __future__ import annotations

import json
import math
import os
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import torch
import torch.nn.functional as F
from safetensors.torch import load_file

from othellolab.core.features import equivalent_actions
from othellolab.core.files import replacing
from othellolab.datasets.feeds import (
    ArraySource,
    DatasetSource,
    batch_plan,
    parse_years,
    positions_from_wthor,
    split_by_game,
    wthor_paths,
)
from othellolab.nn.config import ModelConfig
from othellolab.nn.io import ModelFileError, load_state, save_model, state_tensors
from othellolab.nn.models import PolicyValueNet, build_model
from othellolab.nn.precision import fast_bfloat16, training_layout
from othellolab.records.download import config_path
from othellolab.training.config import _TABLES, ConfigError, OptimConfig, SupervisedConfig
from othellolab.training.distributed import (
    Part,
    Ranks,
    config_hash,
    on_rank,
    split_batch,
    sync_batchnorm,
)
from othellolab.training.loop import LoopOptions, check_time_limit, run_loop
from othellolab.training.rundir import RunDir

__all__ = [
    "PositionSource",
    "RunResult",
    "SupervisedTrainer",
    "build_sources",
    "build_wthor_sources",
    "learning_rate",
    "train_supervised",
    "validation_metrics",
]

PLOT = "learning_curves.png"


class PositionSource(Protocol):
    """What the trainer reads: see ``datasets.feeds`` for the batch dictionary."""

    def __len__(self) -> int: ...

    def batches(
        self, batch_size: int, rng: np.random.Generator, *, augment: bool
    ) -> Iterator[dict[str, np.ndarray]]: ...

    def batch(
        self, index: np.ndarray, symmetries: np.ndarray | None = None
    ) -> dict[str, np.ndarray]:
        """The rows ``index`` under their symmetries (what a distributed trainer draws: each
        rank its part of the planned batch, ``datasets.feeds.batch_plan``)."""
        ...


@dataclass(frozen=True)
class RunResult:
    """How a run ended: its directory, the exported model, the last validation metrics."""

    run_dir: Path
    model_dir: Path
    steps: int
    samples: int
    epochs: int
    metrics: dict[str, float]
    stopped_early: bool
    time_limited: bool = False


def build_sources(
    cfg: SupervisedConfig,
) -> tuple[ArraySource, ArraySource] | tuple[DatasetSource, DatasetSource]:
    """Training and validation sources of ``cfg.data``: a built dataset directory when
    ``dataset`` is set, else WTHOR years."""
    d = cfg.data
    if not d.dataset.strip():
        return build_wthor_sources(cfg)
    planes = cfg.model.planes
    try:
        train = DatasetSource(d.dataset, "train", planes=planes, max_rows=d.max_rows)
        val = DatasetSource(d.dataset, d.val_split, planes=planes, max_rows=d.max_val_rows)
    except (OSError, ValueError) as e:
        raise ConfigError(f"[data] dataset {d.dataset!r}: {e}") from e
    if train.size != cfg.model.size:
        raise ConfigError(
            f"[data] dataset {d.dataset!r} holds {train.size}x{train.size} positions, "
            f"the model is {cfg.model.size}x{cfg.model.size}"
        )
    if len(train) == 0 or len(val) == 0:
        raise ConfigError(
            f"[data] dataset {d.dataset!r}: the train or {d.val_split!r} split has no rows"
        )
    return train, val


def build_wthor_sources(cfg: SupervisedConfig) -> tuple[ArraySource, ArraySource]:
    """Training and validation sources from the WTHOR years of ``cfg.data``."""
    d = cfg.data
    max_games = d.max_games or None
    wthor = config_path(d.wthor_dir, where=d.TABLE, option="wthor_dir")
    train = positions_from_wthor(
        wthor_paths(wthor, parse_years(d.train_years)),
        max_games=max_games,
        include_passes=d.include_passes,
    )
    if d.val_years.strip():
        val = positions_from_wthor(
            wthor_paths(wthor, parse_years(d.val_years)),
            max_games=d.max_val_games or None,
            include_passes=d.include_passes,
            first_game=int(train.game.max()) + 1 if len(train) else 0,
        )
    else:
        train, val = split_by_game(train, d.val_fraction, np.random.default_rng([cfg.seed, 7]))
    if cfg.model.size != 8:
        raise ConfigError(f"[model] size {cfg.model.size}: WTHOR games are 8x8")
    planes = cfg.model.planes
    return ArraySource(train, planes=planes), ArraySource(val, planes=planes)


def learning_rate(cfg: SupervisedConfig, step: int, steps_per_epoch: int) -> float:
    """The learning rate of optimiser step ``step`` (0-based): warm-up, then the schedule."""
    s = cfg.schedule
    base = cfg.optim.lr
    if step < s.warmup_steps:
        return base * (step + 1) / s.warmup_steps
    if s.kind == "constant":
        return base
    if s.kind == "step":
        return base * s.gamma ** ((step // steps_per_epoch) // s.step_epochs)
    total = max(1, cfg.train.epochs * steps_per_epoch - s.warmup_steps)
    t = min(1.0, (step - s.warmup_steps) / total)
    return base * (s.min_lr_ratio + (1 - s.min_lr_ratio) * 0.5 * (1 + math.cos(math.pi * t)))


def make_optimizer(o: OptimConfig, model: torch.nn.Module) -> torch.optim.Optimizer:
    """The optimiser of an ``[optim]`` table over ``model``'s parameters."""
    params = model.parameters()
    if o.optimizer == "adam":
        return torch.optim.Adam(params, lr=o.lr, weight_decay=o.weight_decay)
    if o.optimizer == "adamw":
        return torch.optim.AdamW(params, lr=o.lr, weight_decay=o.weight_decay)
    return torch.optim.SGD(
        params, lr=o.lr, momentum=o.momentum, nesterov=o.nesterov, weight_decay=o.weight_decay
    )


def _masked_logits(logits: torch.Tensor, legal: torch.Tensor) -> torch.Tensor:
    return logits.float().masked_fill(~legal, -1e9)


def _has_score(out: tuple[torch.Tensor, ...]) -> bool:
    """Whether a forward's outputs hold the scalar score (third when present; the other
    optional heads give one row per position, ``nn.models``)."""
    return len(out) > 2 and out[2].dim() == 1


def _losses(
    cfg: SupervisedConfig, out: tuple[torch.Tensor, ...], batch: dict[str, torch.Tensor]
) -> dict[str, torch.Tensor]:
    logits = out[0].float()
    if cfg.train.mask_illegal:
        logits = _masked_logits(logits, batch["legal"])
    policy = -(batch["policy"] * F.log_softmax(logits, dim=1)).sum(dim=1).mean()
    value = F.mse_loss(out[1].float(), batch["value"])
    total = policy + cfg.train.value_weight * value
    losses = {"loss": total, "policy_loss": policy, "value_loss": value}
    if _has_score(out) and "score" in batch and cfg.train.score_weight > 0:
        score = F.mse_loss(out[2].float(), batch["score"])
        losses["score_loss"] = score
        losses["loss"] = total + cfg.train.score_weight * score
    return losses


def _to_device(batch: dict[str, np.ndarray], device: torch.device) -> dict[str, torch.Tensor]:
    return {k: torch.from_numpy(np.ascontiguousarray(v)).to(device) for k, v in batch.items()}


def _same_moves(planes: np.ndarray, played: np.ndarray) -> np.ndarray:
    """``equivalent_actions`` of Othello rows given as planes (the side to move's discs first,
    then the opponent's)."""
    size = planes.shape[-1]
    bits = np.uint64(1) << np.arange(size * size, dtype=np.uint64)
    p = ((planes[:, 0].reshape(len(planes), -1) > 0.5) * bits).sum(axis=1, dtype=np.uint64)
    o = ((planes[:, 1].reshape(len(planes), -1) > 0.5) * bits).sum(axis=1, dtype=np.uint64)
    return equivalent_actions(p, o, played, size)


def validation_metrics(
    model: PolicyValueNet,
    source: PositionSource,
    *,
    batch_size: int = 1024,
    device: str | torch.device = "cpu",
) -> dict[str, float]:
    """Validation metrics over a whole source, in order and without augmentation.

    ``val_top1``/``val_top3``: share of positions whose played move is the best / among the
    three best legal moves by the network (a move that a symmetry of the position maps to the
    played one counts as it, as in ``measure.model``); ``val_policy_ce``: cross-entropy of the played move
    under the network's policy over legal moves; ``val_uniform_ce``: the same for a uniform
    choice among legal moves (the baseline to beat); ``val_value_mse``: squared error of the
    value against the game's result (and ``val_score_mse`` with a score head).
    """
    rng = np.random.default_rng(0)
    sums, n = validation_sums(model, source.batches(batch_size, rng, augment=False), device)
    return {k: v / max(n, 1) for k, v in sums.items()}


def validation_sums(
    model: PolicyValueNet, batches: Iterable[dict[str, np.ndarray]], device: str | torch.device
) -> tuple[dict[str, float], int]:
    """The sums behind ``validation_metrics`` over ``batches``, and their row count (ranks of a
    distributed run add theirs up)."""
    device = torch.device(device)
    was_training = model.training
    model.eval()
    sums: dict[str, float] = {}
    n = 0
    with torch.inference_mode():
        for raw in batches:
            b = _to_device(raw, device)
            out = model(b["planes"])
            logits = _masked_logits(out[0], b["legal"])
            target = b["policy"].argmax(dim=1)
            logp = F.log_softmax(logits, dim=1)
            top3 = logits.topk(min(3, logits.shape[1]), dim=1).indices
            k = target.shape[0]
            same = _same_moves(raw["planes"], target.cpu().numpy())
            rows = np.arange(k)
            parts = {
                "val_policy_ce": -(b["policy"] * logp).sum(dim=1).sum(),
                "val_uniform_ce": torch.log(b["legal"].sum(dim=1).float()).sum(),
                "val_top1": float(same[rows, logits.argmax(dim=1).cpu().numpy()].sum()),
                "val_top3": float(same[rows[:, None], top3.cpu().numpy()].any(axis=1).sum()),
                "val_value_mse": ((out[1].float() - b["value"]) ** 2).sum(),
            }
            if _has_score(out) and "score" in b:
                parts["val_score_mse"] = ((out[2].float() - b["score"]) ** 2).sum()
            for key, v in parts.items():
                sums[key] = sums.get(key, 0.0) + float(v)
            n += k
    model.train(was_training)
    return sums, n


# ----------------------------------------------------------------------------------------------
# The trainer


def optimizer_to_files(
    opt: torch.optim.Optimizer,
) -> tuple[dict[str, torch.Tensor], dict[str, Any]]:
    """An optimiser's state as named tensors (for safetensors) and JSON-ready entries."""
    sd = opt.state_dict()
    tensors: dict[str, torch.Tensor] = {}
    scalars: dict[str, Any] = {}
    for idx, entry in sd["state"].items():
        for key, value in entry.items():
            name = f"state.{idx}.{key}"
            if isinstance(value, torch.Tensor):
                tensors[name] = value.detach().to("cpu").contiguous()
            else:
                scalars[name] = value
    return tensors, {"param_groups": sd["param_groups"], "scalars": scalars}


def optimizer_from_files(
    opt: torch.optim.Optimizer, tensors: dict[str, torch.Tensor], meta: dict[str, Any]
) -> None:
    """Load what ``optimizer_to_files`` wrote back into ``opt``."""
    state: dict[int, dict[str, Any]] = {}
    for name, t in tensors.items():
        _, idx, key = name.split(".", 2)
        state.setdefault(int(idx), {})[key] = t
    for name, v in meta["scalars"].items():
        _, idx, key = name.split(".", 2)
        state.setdefault(int(idx), {})[key] = v
    opt.load_state_dict({"state": state, "param_groups": meta["param_groups"]})


def network_checkpoint(
    model: torch.nn.Module, optimizer: torch.optim.Optimizer
) -> tuple[dict[str, dict[str, Any]], dict[str, Any]]:
    """What a network trainer's checkpoint holds: the weights, the optimiser's state and
    torch's random state (safetensors files), and the optimiser's scalars (for state.json)."""
    tensors, meta = optimizer_to_files(optimizer)
    files: dict[str, dict[str, Any]] = {
        "model.safetensors": state_tensors(model),
        "optimizer.safetensors": tensors,
        "rng.safetensors": {"torch": torch.get_rng_state()},
    }
    return files, {"optimizer": meta}


def load_optimizer(optimizer: torch.optim.Optimizer, folder: Path, meta: dict[str, Any]) -> None:
    """Load the optimiser's state that ``network_checkpoint`` wrote in ``folder``."""
    path = folder / "optimizer.safetensors"
    try:
        optimizer_from_files(optimizer, load_file(str(path)), meta)
    except (KeyError, ValueError, RuntimeError) as e:
        raise ModelFileError(f"cannot restore the optimiser ({e})", where=str(path)) from None


def restore_network_checkpoint(
    folder: Path, state: dict[str, Any], model: torch.nn.Module, optimizer: torch.optim.Optimizer
) -> None:
    """Load what ``network_checkpoint`` wrote in ``folder`` (``state``: its state.json)."""
    load_state(model, folder / "model.safetensors")
    load_optimizer(optimizer, folder, state["optimizer"])
    torch.set_rng_state(load_file(str(folder / "rng.safetensors"))["torch"])


def _plot(run: RunDir) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    records = [json.loads(line) for line in run.metric_lines() if line.strip()]
    train = [r for r in records if r["kind"] == "train"]
    val = [r for r in records if r["kind"] == "val"]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4))
    if train:
        ax1.plot(
            [r["samples"] for r in train],
            [r["policy_loss"] for r in train],
            label="train policy CE",
        )
        ax1.plot(
            [r["samples"] for r in train], [r["value_loss"] for r in train], label="train value MSE"
        )
    if val:
        xs = [r["samples"] for r in val]
        ax1.plot(xs, [r["val_policy_ce"] for r in val], "o-", label="val policy CE")
        ax1.plot(xs, [r["val_value_mse"] for r in val], "o-", label="val value MSE")
        ax1.plot(xs, [r["val_uniform_ce"] for r in val], ":", label="uniform policy CE")
        ax2.plot(xs, [r["val_top1"] for r in val], "o-", label="val top-1")
        ax2.plot(xs, [r["val_top3"] for r in val], "o-", label="val top-3")
    ax1.set_xlabel("training samples")
    ax1.set_title("losses")
    ax1.legend(fontsize=8)
    ax2.set_xlabel("training samples")
    ax2.set_title("move accuracy (legal moves)")
    ax2.legend(fontsize=8)
    fig.tight_layout()
    with replacing(run.root / PLOT) as tmp:
        fig.savefig(tmp, format="png", dpi=80)
    plt.close(fig)


def _resolve_device(cfg: SupervisedConfig) -> torch.device:
    want = cfg.runtime.device
    if want == "auto":
        want = "cuda" if torch.cuda.is_available() else "cpu"
    if want == "cuda" and not torch.cuda.is_available():
        raise ConfigError("[runtime] device = 'cuda' but torch sees no CUDA device")
    return torch.device(want)


class SupervisedTrainer:
    """A network, its optimiser and its train/validation sources, as the loop trains them.

    With ``ranks`` (a ``torchrun`` start) the model trains under ``DistributedDataParallel``:
    each rank takes its part of every batch of the epoch's one plan, scales its loss so that
    the gradient is the global batch's mean, and validates its share of the validation
    batches; losses and metrics are summed over ranks, so every rank logs the same numbers."""

    def __init__(
        self,
        cfg: SupervisedConfig,
        run: RunDir,
        train: PositionSource,
        val: PositionSource,
        device: torch.device,
        ranks: Ranks | None = None,
    ) -> None:
        self.cfg = cfg
        self.run = run
        self.train = train
        self.val = val
        self.device = device
        self.ranks = ranks
        self.rows = len(train)
        self.steps_per_epoch = math.ceil(self.rows / cfg.train.batch_size)
        if cfg.train.steps_per_epoch:
            self.steps_per_epoch = min(self.steps_per_epoch, cfg.train.steps_per_epoch)
        self.autocast = cfg.runtime.mixed_precision and fast_bfloat16(device)
        torch.manual_seed(cfg.seed)
        self.model = build_model(cfg.model).to(device)
        if ranks is not None and cfg.distributed.sync_batchnorm:
            self.model = sync_batchnorm(self.model, device)
        self.channels_last = training_layout(self.model, device, self.autocast)
        self.optimizer = make_optimizer(cfg.optim, self.model)
        self.model.train()
        # the wrapped and compiled modules share the model's parameters; state is always
        # saved from ``model``
        forward: torch.nn.Module = self.model
        if ranks is not None:
            from torch.nn.parallel import DistributedDataParallel

            with ranks.collective("sharing rank 0's initial weights"):
                forward = DistributedDataParallel(
                    self.model,
                    device_ids=[device] if device.type == "cuda" else None,
                    find_unused_parameters=cfg.model.score_head,
                )
        self.forward = torch.compile(forward, dynamic=False) if cfg.runtime.compile else forward

    def batches(self, epoch: int) -> Iterator[dict[str, np.ndarray]] | Iterator[Part]:
        rng = np.random.default_rng([self.cfg.seed, epoch])
        size, augment = self.cfg.train.batch_size, self.cfg.data.augment
        if self.ranks is None:
            return self.train.batches(size, rng, augment=augment)
        return self._parts(batch_plan(self.rows, size, rng, augment=augment), self.ranks)

    def _parts(self, plan: Iterator[tuple[np.ndarray, np.ndarray]], ranks: Ranks) -> Iterator[Part]:
        for index, symmetries in plan:
            idx, syms, scale = split_batch(index, symmetries, ranks.rank, ranks.world)
            yield Part(self.train.batch(idx, syms), scale, len(index))

    def learning_rate(self, step: int) -> float:
        return learning_rate(self.cfg, step, self.steps_per_epoch)

    def step(self, batch: dict[str, np.ndarray] | Part, step: int) -> tuple[int, dict[str, float]]:
        if not isinstance(batch, Part):
            return self._step(batch, None, step)
        assert self.ranks is not None
        # DDP's collectives run in the forward pass (buffers) and the backward (gradients)
        with self.ranks.collective(f"step {step + 1}"):
            return self._step(batch.batch, batch, step)

    def _step(
        self, batch: dict[str, np.ndarray], part: Part | None, step: int
    ) -> tuple[int, dict[str, float]]:
        cfg = self.cfg
        for group in self.optimizer.param_groups:
            group["lr"] = self.learning_rate(step)
        b = _to_device(batch, self.device)
        if self.channels_last:
            b["planes"] = b["planes"].contiguous(memory_format=torch.channels_last)
        with torch.autocast(
            device_type=self.device.type, dtype=torch.bfloat16, enabled=self.autocast
        ):
            out = self.forward(b["planes"])
        losses = _losses(cfg, out, b)
        self.optimizer.zero_grad(set_to_none=True)
        (losses["loss"] if part is None else losses["loss"] * part.scale).backward()
        if cfg.optim.grad_clip > 0:
            torch.nn.utils.clip_grad_norm_(self.model.parameters(), cfg.optim.grad_clip)
        self.optimizer.step()
        if part is None or self.ranks is None:
            return len(batch["value"]), {k: float(v.detach()) for k, v in losses.items()}
        # the global batch's mean losses: each rank's mean weighted by its share of the rows
        names = sorted(losses)
        mine = torch.stack([losses[k].detach().double() for k in names]) * (
            part.scale / self.ranks.world
        )
        total = self.ranks.all_sum(mine, f"summing the losses of step {step + 1}")
        return part.rows, {k: float(v) for k, v in zip(names, total.tolist(), strict=True)}

    def validate(self, model: PolicyValueNet | None = None) -> tuple[float, dict[str, float]]:
        size = max(self.cfg.train.batch_size, 256)
        if self.ranks is None:
            m = validation_metrics(
                model or self.model, self.val, batch_size=size, device=self.device
            )
        else:
            m = self._validate_shared(model or self.model, size, self.ranks)
        return m["val_policy_ce"] + self.cfg.train.value_weight * m["val_value_mse"], m

    def _validate_shared(self, model: PolicyValueNet, size: int, ranks: Ranks) -> dict[str, float]:
        """``validation_metrics`` with each rank validating every ``world``-th batch of rank
        0's weights and batch-norm statistics, the sums added up over ranks."""
        if model is self.model:
            ranks.broadcast_buffers(self.model)
        plan = batch_plan(len(self.val), size, np.random.default_rng(0), augment=False)
        mine = (
            self.val.batch(idx, syms)
            for i, (idx, syms) in enumerate(plan)
            if i % ranks.world == ranks.rank
        )
        every = ranks.gather(validation_sums(model, mine, self.device), "summing validation")
        n = sum(count for _, count in every)
        keys = sorted({k for sums, _ in every for k in sums})
        return {k: sum(sums.get(k, 0.0) for sums, _ in every) / max(n, 1) for k in keys}

    def weights(self) -> dict[str, torch.Tensor]:
        return state_tensors(self.model)

    def save(self) -> tuple[dict[str, dict[str, Any]], dict[str, Any]]:
        files, entries = network_checkpoint(self.model, self.optimizer)
        entries["world_size"] = 1 if self.ranks is None else self.ranks.world
        return files, entries

    def restore(self, run: RunDir, state: dict[str, Any]) -> None:
        restore_network_checkpoint(run.state, state, self.model, self.optimizer)

    def export(
        self,
        state: dict[str, Any],
        metrics: dict[str, float],
        model: PolicyValueNet | None = None,
    ) -> Path:
        cfg = self.cfg
        training = {
            "run": cfg.name,
            "samples": state["samples"],
            "rows": self.rows,
            "steps": state["step"],
            "epochs": state["epoch"],
            "best_epoch": state["best_epoch"],
            "metrics": metrics,
            "data": asdict(cfg.data),
        }
        return save_model(model or self.model, self.model_dir(state), training=training)

    def model_dir(self, state: dict[str, Any]) -> Path:
        """Where ``export`` writes the model of the loop's ``state``."""
        return self.run.models / f"{self.cfg.name}-s{state['samples']}-d{self.rows}"

    def after_checkpoint(self, run: RunDir) -> None:
        _plot(run)


def train_supervised(
    cfg: SupervisedConfig,
    *,
    sources: tuple[PositionSource, PositionSource] | None = None,
    config_text: str | None = None,
    progress: bool = True,
    on_step: Callable[[int], None] | None = None,
    time_limit_s: float | None = None,
) -> RunResult:
    """Train (or resume) the run of ``cfg``; returns where it ended.

    ``sources`` (train, validation) replace the WTHOR builder of ``cfg.data``; ``on_step`` is
    called after every optimiser step with the step count (tests use it to kill a run).
    ``time_limit_s`` ends this start after that many seconds of training with a checkpoint and
    a model of the weights so far (``time_limited``); the next start goes on from there. Under
    ``torchrun`` every process calls this: they train one model together
    (``training.distributed``) and rank 0 writes the run directory.
    """
    check_time_limit(time_limit_s)
    if cfg.runtime.threads >= 2:
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    torch.set_num_threads(cfg.runtime.threads)
    device = _resolve_device(cfg)
    ranks = Ranks.from_env(cfg.distributed, device)
    ended = False
    try:
        result = _train(
            cfg,
            ranks,
            device if ranks is None else ranks.device,
            sources,
            config_text,
            progress,
            on_step,
            time_limit_s,
        )
        ended = True
        return result
    finally:
        if ranks is not None:
            ranks.close(wait=ended)


def _train(
    cfg: SupervisedConfig,
    ranks: Ranks | None,
    device: torch.device,
    sources: tuple[PositionSource, PositionSource] | None,
    config_text: str | None,
    progress: bool,
    on_step: Callable[[int], None] | None,
    time_limit_s: float | None = None,
) -> RunResult:
    run = RunDir(Path(cfg.runs_dir) / cfg.name)
    defaults = {table: asdict(cls()) for table, cls in _TABLES.items()}
    defaults["model"] = ModelConfig.defaults()
    # where the run lives and how it runs may change between starts (train --resume RUN)
    free = ("runtime", "distributed", "runs_dir")
    writer = ranks is None or ranks.writer
    if ranks is not None:
        every = "hash of all but [runtime], [distributed] and runs_dir"
        ranks.agree({f"the config ({every})": config_hash(cfg.to_dict(), free)})

    def freeze() -> None:
        run.freeze(cfg.to_dict(), text=config_text, defaults=defaults, ignore=free)
        run.recover()

    on_rank(ranks, freeze, "rank 0 preparing the run directory")
    if not writer:
        run.freeze(cfg.to_dict(), defaults=defaults, ignore=free)  # only compares: it exists
    train_src, val_src = sources if sources is not None else build_sources(cfg)
    if len(train_src) == 0 or len(val_src) == 0:
        raise ConfigError(
            f"{cfg.name}: no training or validation positions ({len(train_src)}, {len(val_src)})"
        )
    if ranks is not None:
        if ranks.world > cfg.train.batch_size:
            raise ConfigError(
                f"{ranks.world} processes (WORLD_SIZE) for a global [train] batch_size of "
                f"{cfg.train.batch_size}: every rank needs rows of each batch"
            )
        ranks.agree(
            {
                "the training rows": len(train_src),
                "the validation rows": len(val_src),
                "the checkpoint's step": run.read_state()["step"] if run.has_checkpoint() else None,
            }
        )
    trainer = SupervisedTrainer(cfg, run, train_src, val_src, device, ranks)
    t = cfg.train
    options = LoopOptions(
        name=cfg.name,
        epochs=t.epochs,
        patience=t.patience,
        min_delta=t.min_delta,
        log_every_steps=t.log_every_steps,
        checkpoint_every_steps=t.checkpoint_every_steps,
        export_every_epochs=t.export_every_epochs,
        progress=progress and writer,
        writer=writer,
        stop=None if time_limit_s is None else _deadline(time_limit_s, ranks),
    )
    ended = run_loop(run, trainer, options, on_step=on_step)
    st, last_val = ended.state, ended.metrics
    final = build_model(cfg.model).to(device)
    # a start stopped by its time limit exports the weights it stopped with
    weights = (
        ended.best if t.restore_best and ended.best is not None and not ended.stopped else None
    )
    final.load_state_dict(weights if weights is not None else trainer.model.state_dict())
    if not last_val or weights is not None:
        last_val = trainer.validate(final)[1]
    model_dir = trainer.export(st, last_val, final) if writer else trainer.model_dir(st)
    return RunResult(
        run.root,
        model_dir,
        st["step"],
        st["samples"],
        st["epoch"],
        last_val,
        st["stopped_early"],
        ended.stopped,
    )


def _deadline(seconds: float, ranks: Ranks | None) -> Callable[[int], bool]:
    """The loop's ``stop`` for a time limit from now. Ranks decide together every 20 steps
    (their clocks differ: one stopping alone would leave the others waiting in a collective)."""
    end = time.monotonic() + seconds
    if ranks is None:
        return lambda step: time.monotonic() >= end

    def stop(step: int) -> bool:
        if step % 20:
            return False
        late = torch.tensor([1.0 if time.monotonic() >= end else 0.0])
        return bool(ranks.all_sum(late, "agreeing on the time limit").item() > 0)

    return stop
