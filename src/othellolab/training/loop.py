"""The trainer loop: epochs of steps over a run directory, apart from what is trained.

``run_loop(run, trainer, options)`` drives any ``Trainer``: it asks for each epoch's batches,
takes a step on each, logs the mean losses every ``log_every_steps`` steps, checkpoints every
``checkpoint_every_steps`` steps and at every epoch's end, validates at the epoch's end, keeps
the best weights, stops early after ``patience`` epochs without improvement and exports every
``export_every_epochs`` epochs. Its own state (counters, the best loss, the loss window) goes
into the checkpoint's ``state.json`` beside what the trainer saves, so a killed run resumes at
the step it had checkpointed and, when the trainer's batches depend only on the epoch and its
random state is saved, ends exactly as an uninterrupted run.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from othellolab.core import ConfigError
from othellolab.core.progress import StepProgress
from othellolab.training.rundir import RunDir

__all__ = ["LoopOptions", "Trainer", "check_time_limit", "run_loop"]

STATE_VERSION = 1


class Trainer(Protocol):
    """What the loop needs from a trainer (supervised now, self-play next)."""

    rows: int
    """Training rows: a resumed run must see the same number."""
    steps_per_epoch: int
    """Batches the loop takes from each epoch's source (it stops the epoch there)."""

    def batches(self, epoch: int) -> Iterable[Any]:
        """The batch source: epoch ``epoch``'s batches, the same on every call."""
        ...

    def step(self, batch: Any, step: int) -> tuple[int, dict[str, float]]:
        """One optimisation step (``step`` counts from 0): samples seen and losses."""
        ...

    def learning_rate(self, step: int) -> float:
        """The learning rate of step ``step`` (logged with the loss window)."""
        ...

    def validate(self) -> tuple[float, dict[str, float]]:
        """Periodic evaluation: the loss that early stopping watches, and metrics to log."""
        ...

    def weights(self) -> dict[str, Any]:
        """A copy of the current weights (kept as the best so far)."""
        ...

    def save(self) -> tuple[dict[str, dict[str, Any]], dict[str, Any]]:
        """What a checkpoint holds besides the loop's state: safetensors files (name ->
        tensors) and JSON-ready entries for ``state.json``."""
        ...

    def restore(self, run: RunDir, state: dict[str, Any]) -> None:
        """Load what ``save`` wrote (files in ``run.state``, entries in ``state``)."""
        ...

    def export(self, state: dict[str, Any], metrics: dict[str, float]) -> Path:
        """Write a model directory of the current weights; returns its path."""
        ...

    def after_checkpoint(self, run: RunDir) -> None:
        """Anything to refresh once an epoch is checkpointed (plots)."""
        ...


@dataclass(frozen=True)
class LoopOptions:
    """How long the loop runs and how often it logs, checkpoints, exports and gives up.

    ``writer``: whether this process writes the run directory; the other processes of a
    distributed run (``training.distributed``) keep the same state and write nothing.
    ``stop``: asked after every step with the step count; ``True`` ends this start there with a
    checkpoint (a time limit: the next start resumes from that step as if never stopped).
    Internal plumbing, not a config table: each trainer builds it from its checked run config
    (``[train]``, ``[loop]``)."""

    name: str
    epochs: int
    patience: int = 0
    min_delta: float = 0.0
    log_every_steps: int = 0
    checkpoint_every_steps: int = 0
    export_every_epochs: int = 0
    progress: bool = True
    writer: bool = True
    stop: Callable[[int], bool] | None = None


@dataclass
class LoopResult:
    """The loop's final state, the last validation metrics, the best weights (if kept) and the
    last training window's record (step, samples, lr and the mean losses), so that a caller
    need not read the run's log back."""

    state: dict[str, Any]
    metrics: dict[str, float]
    best: dict[str, Any] | None
    stopped: bool = False
    train: dict[str, float] = field(default_factory=dict)


def _fresh_state(rows: int) -> dict[str, Any]:
    return {
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


def check_time_limit(seconds: float | None) -> None:
    """A trainer's time limit (``--time-limit``): none, or a finite number of seconds above 0."""
    if seconds is not None and not (math.isfinite(seconds) and seconds > 0):
        raise ConfigError(
            f"time limit {seconds!r}: give a finite number of seconds above 0",
            option="--time-limit",
        )


def run_loop(
    run: RunDir,
    trainer: Trainer,
    options: LoopOptions,
    *,
    on_step: Callable[[int], None] | None = None,
) -> LoopResult:
    """Train (or resume) until the epochs are done or early stopping ends the run."""
    writer = options.writer
    if writer:
        run.root.mkdir(parents=True, exist_ok=True)
        run.recover()
    st = _fresh_state(trainer.rows)
    best: dict[str, Any] | None = None
    if run.has_checkpoint():
        st = run.read_state()
        if st.get("rows") != trainer.rows:
            raise ConfigError(
                f"{run.state}: the run was trained on {st.get('rows')} positions, the data now "
                f"has {trainer.rows}"
            )
        trainer.restore(run, st)
        if (run.state / "best.safetensors").exists():
            from safetensors.torch import load_file

            best = load_file(str(run.state / "best.safetensors"))
        if writer:
            run.keep_metrics(st["metrics_lines"])
    elif writer:
        run.clear_metrics()

    def checkpoint() -> None:
        if not writer:
            return
        files, entries = trainer.save()
        st.update(entries)
        st["metrics_lines"] = len(run.metric_lines())
        if best is not None:
            files["best.safetensors"] = best
        run.write_checkpoint(files, st)

    def log_window(epoch: int, lr: float) -> None:
        n = st["window_steps"]
        record = {"kind": "train", "epoch": epoch + 1, "step": st["step"]}
        record.update({"samples": st["samples"], "lr": lr})
        record.update({k: v / n for k, v in st["window"].items()})
        st["last_train"] = {k: v for k, v in record.items() if k not in ("kind", "epoch")}
        if writer:
            run.log(record)
        st["window"], st["window_steps"] = {}, 0

    total = options.epochs * trainer.steps_per_epoch
    bar = StepProgress(options.progress, total=total, done=st["step"], name=options.name)
    last: dict[str, float] = {}
    stopped = False
    finished_before = st["done"]
    try:
        while not st["done"] and st["epoch"] < options.epochs:
            epoch = st["epoch"]
            for i, batch in enumerate(trainer.batches(epoch)):
                if i >= trainer.steps_per_epoch:
                    break
                if i < st["step_in_epoch"]:
                    continue
                lr = trainer.learning_rate(st["step"])
                samples, losses = trainer.step(batch, st["step"])
                st["step"] += 1
                st["step_in_epoch"] = i + 1
                st["samples"] += samples
                for k, v in losses.items():
                    st["window"][k] = st["window"].get(k, 0.0) + v
                st["window_steps"] += 1
                every = options.log_every_steps
                if every and st["step"] % every == 0:
                    log_window(epoch, lr)
                every = options.checkpoint_every_steps
                if every and st["step"] % every == 0:
                    checkpoint()
                bar.advance(f"epoch {epoch + 1}/{options.epochs} loss {losses['loss']:.3f}")
                if on_step is not None:
                    on_step(st["step"])
                if options.stop is not None and options.stop(st["step"]):
                    stopped = True
                    break
            if stopped:
                checkpoint()  # the open log window is saved with it and goes on at the next start
                break
            if st["window_steps"]:
                log_window(epoch, trainer.learning_rate(max(0, st["step"] - 1)))
            val_loss, last = trainer.validate()
            record = {"kind": "val", "epoch": epoch + 1, "step": st["step"]}
            if writer:
                run.log({**record, "samples": st["samples"], "val_loss": val_loss, **last})
            if st["best"] is None or val_loss < st["best"] - options.min_delta:
                st["best"], st["best_epoch"], st["bad_epochs"] = val_loss, epoch + 1, 0
                best = trainer.weights()
            else:
                st["bad_epochs"] += 1
            st["epoch"], st["step_in_epoch"] = epoch + 1, 0
            if options.patience and st["bad_epochs"] >= options.patience:
                st["done"] = st["stopped_early"] = True
            if st["epoch"] >= options.epochs:
                st["done"] = True
            every = options.export_every_epochs
            if every and st["epoch"] % every == 0 and not st["done"] and writer:
                trainer.export(st, last)
            checkpoint()
            if writer:
                trainer.after_checkpoint(run)
        if finished_before and writer:
            trainer.after_checkpoint(
                run
            )  # a kill may have come between the last checkpoint and this
    finally:
        bar.close()
    return LoopResult(st, last, best, stopped, _last_train(run, st))


def _last_train(run: RunDir, st: dict[str, Any]) -> dict[str, float]:
    """The last training window's record: kept in the state since this loop wrote it, read
    from the log for a run whose checkpoint was written before."""
    if "last_train" in st:
        return dict(st["last_train"])
    train: dict[str, float] = {}
    for line in run.metric_lines():
        record = json.loads(line)
        if record.get("kind") == "train":
            train = {k: v for k, v in record.items() if k not in ("kind", "epoch")}
    return train
