"""The trainer loop and the run directory with a toy trainer (no torch): resume, early stop."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from othellolab.core import ConfigError
from othellolab.training.loop import LoopOptions, run_loop
from othellolab.training.rundir import RunDir


class Toy:
    """Fits one number to a target by steps of a fixed size; batches are the epoch's steps."""

    def __init__(self, target: float, val_losses: list[float] | None = None) -> None:
        self.x = 0.0
        self.target = target
        self.rows = 4
        self.steps_per_epoch = 4
        self.val_losses = val_losses
        self.exported: list[int] = []

    def batches(self, epoch: int) -> list[float]:
        return [0.25] * self.steps_per_epoch

    def step(self, batch: float, step: int) -> tuple[int, dict[str, float]]:
        self.x += batch if self.x < self.target else -batch
        return 1, {"loss": abs(self.x - self.target)}

    def learning_rate(self, step: int) -> float:
        return 0.1

    def validate(self) -> tuple[float, dict[str, float]]:
        loss = self.val_losses.pop(0) if self.val_losses else abs(self.x - self.target)
        return loss, {"val_x": self.x}

    def weights(self) -> dict[str, Any]:
        import torch

        return {"x": torch.tensor([self.x])}

    def save(self) -> tuple[dict[str, dict[str, Any]], dict[str, Any]]:
        return {}, {"x": self.x}

    def restore(self, run: RunDir, state: dict[str, Any]) -> None:
        self.x = state["x"]

    def export(self, state: dict[str, Any], metrics: dict[str, float]) -> Path:
        self.exported.append(state["epoch"])
        return Path("unused")

    def after_checkpoint(self, run: RunDir) -> None:
        pass


class Killed(Exception):
    pass


def test_a_killed_run_resumes_to_the_same_end(tmp_path: Path) -> None:
    pytest.importorskip("safetensors")
    options = LoopOptions(name="toy", epochs=3, log_every_steps=2, checkpoint_every_steps=3,
                          progress=False)  # fmt: skip
    whole = run_loop(RunDir(tmp_path / "a"), Toy(2.0), options)

    def kill(step: int) -> None:
        if step == 7:
            raise Killed

    run = RunDir(tmp_path / "b")
    with pytest.raises(Killed):
        run_loop(run, Toy(2.0), options, on_step=kill)
    resumed = run_loop(run, Toy(2.0), options)
    assert resumed.state == whole.state and resumed.metrics == whole.metrics
    assert run.metric_lines() == RunDir(tmp_path / "a").metric_lines()
    kinds = [json.loads(line)["kind"] for line in run.metric_lines()]
    assert kinds.count("val") == 3 and kinds.count("train") == 6


def test_patience_stops_early_and_exports_on_schedule(tmp_path: Path) -> None:
    pytest.importorskip("safetensors")
    toy = Toy(2.0, val_losses=[1.0, 2.0, 2.0, 2.0])
    options = LoopOptions(name="toy", epochs=4, patience=2, export_every_epochs=1,
                          progress=False)  # fmt: skip
    end = run_loop(RunDir(tmp_path), toy, options)
    assert end.state["stopped_early"] and end.state["epoch"] == 3 and end.state["best_epoch"] == 1
    assert toy.exported == [1, 2]
    assert np.isclose(float(end.best["x"][0]), 1.0)


def test_a_resumed_run_must_keep_its_config(tmp_path: Path) -> None:
    run = RunDir(tmp_path)
    run.freeze({"optim": {"lr": 0.1}, "runtime": {"threads": 1}}, text="x = 1\n")
    run.freeze({"optim": {"lr": 0.1}, "runtime": {"threads": 4}})
    run.freeze({"optim": {"lr": 0.1, "new": 3}}, defaults={"optim": {"new": 3}})
    with pytest.raises(ConfigError, match=r"optim\.lr differ"):
        run.freeze({"optim": {"lr": 0.2}})
    assert (tmp_path / "run.toml").read_text() == "x = 1\n"
