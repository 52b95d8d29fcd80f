"""Supervised training of a policy/value network from positions with the move played.

A run lives in ``<runs_dir>/<name>/``::

    run.toml            the config file as given (when started from a file)
    config.json         the resolved config, frozen: a resumed run must match it
    train/state/        model, optimiser and best weights (safetensors) + state.json
    metrics.jsonl       one line per log interval ("train") and per epoch ("val")
    learning_curves.png losses and accuracies so far
    models/<name>-s<samples>-d<rows>/   exported model directories (nn.io format)

The state is written as a whole directory and swapped in, at the end of every epoch and every
``checkpoint_every_steps`` steps, so a killed run resumes from its directory; a resumed run
repeats exactly the steps it lost and ends with the same weights and metrics as one that was
never interrupted (batches are drawn from a generator seeded by ``(seed, epoch)``).
"""

from __future__ import annotations

import json
import math
import os
import shutil
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import torch
import torch.nn.functional as F
from safetensors.torch import load_file, save_file

from othellolab.core.files import replacing, write_text
from othellolab.nn.io import ModelFileError, load_state, save_model, state_tensors
from othellolab.nn.models import PolicyValueNet, build_model
from othellolab.training.config import _TABLES, ConfigError, SupervisedConfig
from othellolab.training.data import (
    ArraySource,
    DatasetSource,
    parse_years,
    positions_from_wthor,
    split_by_game,
    wthor_paths,
)
from othellolab.training.progress import StepProgress

__all__ = [
    "PositionSource",
    "RunResult",
    "build_sources",
    "build_wthor_sources",
    "evaluate_source",
    "learning_rate",
    "train_supervised",
]

STATE_VERSION = 1


class PositionSource(Protocol):
    """What the trainer reads: see ``training.data`` for the batch dictionary."""

    def __len__(self) -> int: ...

    def batches(
        self, batch_size: int, rng: np.random.Generator, *, augment: bool
    ) -> Iterator[dict[str, np.ndarray]]: ...


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
    train = positions_from_wthor(
        wthor_paths(d.wthor_dir, parse_years(d.train_years)),
        max_games=max_games,
        include_passes=d.include_passes,
    )
    if d.val_years.strip():
        val = positions_from_wthor(
            wthor_paths(d.wthor_dir, parse_years(d.val_years)),
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


def _make_optimizer(cfg: SupervisedConfig, model: torch.nn.Module) -> torch.optim.Optimizer:
    o = cfg.optim
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
    if len(out) > 2 and "score" in batch and cfg.train.score_weight > 0:
        score = F.mse_loss(out[2].float(), batch["score"])
        losses["score_loss"] = score
        losses["loss"] = total + cfg.train.score_weight * score
    return losses


def _to_device(batch: dict[str, np.ndarray], device: torch.device) -> dict[str, torch.Tensor]:
    return {k: torch.from_numpy(np.ascontiguousarray(v)).to(device) for k, v in batch.items()}


def evaluate_source(
    model: PolicyValueNet,
    source: PositionSource,
    *,
    batch_size: int = 1024,
    device: str | torch.device = "cpu",
) -> dict[str, float]:
    """Validation metrics over a whole source, in order and without augmentation.

    ``val_top1``/``val_top3``: share of positions whose played move is the best / among the
    three best legal moves by the network; ``val_policy_ce``: cross-entropy of the played move
    under the network's policy over legal moves; ``val_uniform_ce``: the same for a uniform
    choice among legal moves (the baseline to beat); ``val_value_mse``: squared error of the
    value against the game's result (and ``val_score_mse`` with a score head).
    """
    device = torch.device(device)
    was_training = model.training
    model.eval()
    sums: dict[str, float] = {}
    n = 0
    rng = np.random.default_rng(0)
    with torch.inference_mode():
        for raw in source.batches(batch_size, rng, augment=False):
            b = _to_device(raw, device)
            out = model(b["planes"])
            logits = _masked_logits(out[0], b["legal"])
            target = b["policy"].argmax(dim=1)
            logp = F.log_softmax(logits, dim=1)
            top3 = logits.topk(min(3, logits.shape[1]), dim=1).indices
            k = target.shape[0]
            parts = {
                "val_policy_ce": -(b["policy"] * logp).sum(dim=1).sum(),
                "val_uniform_ce": torch.log(b["legal"].sum(dim=1).float()).sum(),
                "val_top1": (logits.argmax(dim=1) == target).float().sum(),
                "val_top3": (top3 == target[:, None]).any(dim=1).float().sum(),
                "val_value_mse": ((out[1].float() - b["value"]) ** 2).sum(),
            }
            if len(out) > 2 and "score" in b:
                parts["val_score_mse"] = ((out[2].float() - b["score"]) ** 2).sum()
            for key, v in parts.items():
                sums[key] = sums.get(key, 0.0) + float(v)
            n += k
    model.train(was_training)
    return {k: v / max(n, 1) for k, v in sums.items()}


# ----------------------------------------------------------------------------------------------
# Run directory and state


def _optimizer_to_files(
    opt: torch.optim.Optimizer,
) -> tuple[dict[str, torch.Tensor], dict[str, Any]]:
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


def _optimizer_from_files(
    opt: torch.optim.Optimizer, tensors: dict[str, torch.Tensor], meta: dict[str, Any]
) -> None:
    state: dict[int, dict[str, Any]] = {}
    for name, t in tensors.items():
        _, idx, key = name.split(".", 2)
        state.setdefault(int(idx), {})[key] = t
    for name, v in meta["scalars"].items():
        _, idx, key = name.split(".", 2)
        state.setdefault(int(idx), {})[key] = v
    opt.load_state_dict({"state": state, "param_groups": meta["param_groups"]})


class _RunDir:
    """Paths of a run directory and its atomic state swaps."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.train = root / "train"
        self.state = self.train / "state"
        self.metrics = root / "metrics.jsonl"
        self.plot = root / "learning_curves.png"
        self.models = root / "models"

    def recover(self) -> None:
        """Finish or undo a state swap that a kill interrupted."""
        new, old = self.train / "state.new", self.train / "state.old"
        if not self.state.exists() and old.exists():
            old.rename(self.state)
        for d in (new, old):
            if d.exists():
                shutil.rmtree(d)

    def write_state(self, files: dict[str, dict[str, torch.Tensor]], state: dict[str, Any]) -> None:
        new, old = self.train / "state.new", self.train / "state.old"
        if new.exists():
            shutil.rmtree(new)
        new.mkdir(parents=True)
        for name, tensors in files.items():
            save_file(tensors, str(new / name))
        (new / "state.json").write_text(json.dumps(state, indent=1) + "\n")
        if self.state.exists():
            self.state.rename(old)
        new.rename(self.state)
        if old.exists():
            shutil.rmtree(old)

    def metric_lines(self) -> list[str]:
        return self.metrics.read_text().splitlines() if self.metrics.exists() else []


def _freeze_config(run: _RunDir, cfg: SupervisedConfig, config_text: str | None) -> None:
    frozen = run.root / "config.json"
    want = cfg.to_dict()
    if frozen.exists():
        have = json.loads(frozen.read_text())
        diffs = []
        for table, value in want.items():
            if table == "runtime":
                continue
            if isinstance(value, dict) and isinstance(have.get(table), dict):
                # An option added after the run started counts as unchanged at its default.
                defaults = asdict(_TABLES[table]()) if table in _TABLES else {}
                diffs += [
                    f"{table}.{k}"
                    for k in value
                    if have[table].get(k, defaults.get(k, None)) != value[k]
                ]
            elif have.get(table) != value:
                diffs.append(table)
        if diffs:
            raise ConfigError(
                f"{frozen}: the run was started with a different config ({', '.join(diffs)} "
                f"differ); use a new run name, or delete {run.root} to start over"
            )
        return
    run.root.mkdir(parents=True, exist_ok=True)
    if config_text is not None:
        write_text(run.root / "run.toml", config_text)
    write_text(frozen, json.dumps(want, indent=2) + "\n")


def _plot(run: _RunDir) -> None:
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
    with replacing(run.plot) as tmp:
        fig.savefig(tmp, format="png", dpi=80)
    plt.close(fig)


def _resolve_device(cfg: SupervisedConfig) -> torch.device:
    want = cfg.runtime.device
    if want == "auto":
        want = "cuda" if torch.cuda.is_available() else "cpu"
    if want == "cuda" and not torch.cuda.is_available():
        raise ConfigError("[runtime] device = 'cuda' but torch sees no CUDA device")
    return torch.device(want)


# ----------------------------------------------------------------------------------------------
# The trainer


def train_supervised(
    cfg: SupervisedConfig,
    *,
    sources: tuple[PositionSource, PositionSource] | None = None,
    config_text: str | None = None,
    progress: bool = True,
    on_step: Callable[[int], None] | None = None,
) -> RunResult:
    """Train (or resume) the run of ``cfg``; returns where it ended.

    ``sources`` (train, validation) replace the WTHOR builder of ``cfg.data``; ``on_step`` is
    called after every optimiser step with the step count (tests use it to kill a run).
    """
    if cfg.runtime.threads >= 2:
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    torch.set_num_threads(cfg.runtime.threads)
    run = _RunDir(Path(cfg.runs_dir) / cfg.name)
    _freeze_config(run, cfg, config_text)
    run.recover()
    device = _resolve_device(cfg)
    autocast = device.type == "cuda" and cfg.runtime.mixed_precision

    train_src, val_src = sources if sources is not None else build_sources(cfg)
    rows = len(train_src)
    if rows == 0 or len(val_src) == 0:
        raise ConfigError(
            f"{cfg.name}: no training or validation positions ({rows}, {len(val_src)})"
        )
    bs = cfg.train.batch_size
    steps_per_epoch = math.ceil(rows / bs)

    torch.manual_seed(cfg.seed)
    model = build_model(cfg.model).to(device)
    opt = _make_optimizer(cfg, model)
    st: dict[str, Any] = {
        "version": STATE_VERSION,
        "epoch": 0,
        "step_in_epoch": 0,
        "step": 0,
        "samples": 0,
        "best": None,
        "best_epoch": None,
        "bad_epochs": 0,
        "done": False,
        "stopped_early": False,
        "window": {},
        "window_steps": 0,
        "metrics_lines": 0,
        "rows": rows,
    }
    best_weights: dict[str, torch.Tensor] | None = None
    if (run.state / "state.json").exists():
        st = json.loads((run.state / "state.json").read_text())
        if st.get("rows") != rows:
            raise ConfigError(
                f"{run.state}: the run was trained on {st.get('rows')} positions, the data now has {rows}"
            )
        load_state(model, run.state / "model.safetensors")
        try:
            _optimizer_from_files(
                opt, load_file(str(run.state / "optimizer.safetensors")), st["optimizer"]
            )
        except (KeyError, ValueError, RuntimeError) as e:
            raise ModelFileError(
                f"{run.state / 'optimizer.safetensors'}: cannot restore ({e})"
            ) from None
        torch.set_rng_state(load_file(str(run.state / "rng.safetensors"))["torch"])
        if (run.state / "best.safetensors").exists():
            best_weights = load_file(str(run.state / "best.safetensors"))
        lines = run.metric_lines()[: st["metrics_lines"]]
        write_text(run.metrics, "".join(line + "\n" for line in lines))
    elif run.metrics.exists():
        run.metrics.unlink()

    def checkpoint() -> None:
        tensors, meta = _optimizer_to_files(opt)
        st["optimizer"] = meta
        st["metrics_lines"] = len(run.metric_lines())
        files = {
            "model.safetensors": state_tensors(model),
            "optimizer.safetensors": tensors,
            "rng.safetensors": {"torch": torch.get_rng_state()},
        }
        if best_weights is not None:
            files["best.safetensors"] = best_weights
        run.write_state(files, st)

    def log(record: dict[str, Any]) -> None:
        with run.metrics.open("a") as f:
            f.write(json.dumps(record) + "\n")

    bar = StepProgress(
        progress, total=cfg.train.epochs * steps_per_epoch, done=st["step"], name=cfg.name
    )
    model.train()
    # the compiled module shares the model's parameters; state is always saved from ``model``
    forward = torch.compile(model, dynamic=False) if cfg.runtime.compile else model
    last_val: dict[str, float] = {}
    try:
        while not st["done"] and st["epoch"] < cfg.train.epochs:
            epoch = st["epoch"]
            rng = np.random.default_rng([cfg.seed, epoch])
            batches = train_src.batches(bs, rng, augment=cfg.data.augment)
            for i, raw in enumerate(batches):
                if i < st["step_in_epoch"]:
                    continue
                lr = learning_rate(cfg, st["step"], steps_per_epoch)
                for group in opt.param_groups:
                    group["lr"] = lr
                b = _to_device(raw, device)
                with torch.autocast(
                    device_type=device.type, dtype=torch.bfloat16, enabled=autocast
                ):
                    out = forward(b["planes"])
                losses = _losses(cfg, out, b)
                opt.zero_grad(set_to_none=True)
                losses["loss"].backward()
                if cfg.optim.grad_clip > 0:
                    torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.optim.grad_clip)
                opt.step()
                st["step"] += 1
                st["step_in_epoch"] = i + 1
                st["samples"] += len(raw["value"])
                for k, v in losses.items():
                    st["window"][k] = st["window"].get(k, 0.0) + float(v.detach())
                st["window_steps"] += 1
                every = cfg.train.log_every_steps
                if every and st["step"] % every == 0:
                    _log_window(st, log, epoch, lr)
                if (
                    cfg.train.checkpoint_every_steps
                    and st["step"] % cfg.train.checkpoint_every_steps == 0
                ):
                    checkpoint()
                bar.advance(
                    f"epoch {epoch + 1}/{cfg.train.epochs} loss {float(losses['loss'].detach()):.3f}"
                )
                if on_step is not None:
                    on_step(st["step"])
            if st["window_steps"]:
                _log_window(
                    st, log, epoch, learning_rate(cfg, max(0, st["step"] - 1), steps_per_epoch)
                )
            last_val = evaluate_source(model, val_src, batch_size=max(bs, 256), device=device)
            val_loss = (
                last_val["val_policy_ce"] + cfg.train.value_weight * last_val["val_value_mse"]
            )
            log(
                {
                    "kind": "val",
                    "epoch": epoch + 1,
                    "step": st["step"],
                    "samples": st["samples"],
                    "val_loss": val_loss,
                    **last_val,
                }
            )
            if st["best"] is None or val_loss < st["best"] - cfg.train.min_delta:
                st["best"], st["best_epoch"], st["bad_epochs"] = val_loss, epoch + 1, 0
                best_weights = state_tensors(model)
            else:
                st["bad_epochs"] += 1
            st["epoch"], st["step_in_epoch"] = epoch + 1, 0
            if cfg.train.patience and st["bad_epochs"] >= cfg.train.patience:
                st["done"] = st["stopped_early"] = True
            if st["epoch"] >= cfg.train.epochs:
                st["done"] = True
            every = cfg.train.export_every_epochs
            if every and st["epoch"] % every == 0 and not st["done"]:
                _export(run, cfg, model, st, rows, last_val)
            checkpoint()
            _plot(run)
    finally:
        bar.close()

    final = build_model(cfg.model).to(device)
    weights = best_weights if cfg.train.restore_best and best_weights is not None else None
    final.load_state_dict(weights if weights is not None else model.state_dict())
    if not last_val or weights is not None:
        last_val = evaluate_source(final, val_src, batch_size=max(bs, 256), device=device)
    model_dir = _export(run, cfg, final, st, rows, last_val)
    return RunResult(
        run.root, model_dir, st["step"], st["samples"], st["epoch"], last_val, st["stopped_early"]
    )


def _log_window(
    st: dict[str, Any], log: Callable[[dict[str, Any]], None], epoch: int, lr: float
) -> None:
    n = st["window_steps"]
    record = {
        "kind": "train",
        "epoch": epoch + 1,
        "step": st["step"],
        "samples": st["samples"],
        "lr": lr,
    }
    record.update({k: v / n for k, v in st["window"].items()})
    log(record)
    st["window"], st["window_steps"] = {}, 0


def _export(
    run: _RunDir,
    cfg: SupervisedConfig,
    model: PolicyValueNet,
    st: dict[str, Any],
    rows: int,
    metrics: dict[str, float],
) -> Path:
    name = f"{cfg.name}-s{st['samples']}-d{rows}"
    training = {
        "run": cfg.name,
        "samples": st["samples"],
        "rows": rows,
        "steps": st["step"],
        "epochs": st["epoch"],
        "best_epoch": st["best_epoch"],
        "metrics": metrics,
        "data": asdict(cfg.data),
    }
    return save_model(model, run.models / name, training=training)
