"""A truncated or corrupted checkpoint (issue 64, part 5): named in a warning and set aside for
the previous good one, which every checkpoint keeps (``train/state.prev``); with none, named in
the error; a kill between the swap's two renames loses nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

from othellolab.training.rundir import CheckpointError, CorruptCheckpointWarning, RunDir


def checkpoint(run: RunDir, step: int) -> None:
    run.write_checkpoint(
        {"model.safetensors": {"w": torch.full((64,), float(step))}}, {"step": step}
    )


def two_checkpoints(tmp_path: Path) -> RunDir:
    run = RunDir(tmp_path / "run")
    checkpoint(run, 1)
    checkpoint(run, 2)
    assert run.read_state() == {"step": 2}  # the checksums stay in the file
    assert set(json.loads((run.state / "state.json").read_text())["sha256"]) == {
        "model.safetensors"
    }
    assert json.loads((run.previous / "state.json").read_text())["step"] == 1
    return run


def truncate(path: Path) -> None:
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def flip_a_byte(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[-1] ^= 1
    path.write_bytes(bytes(data))


@pytest.mark.parametrize(
    ("name", "damage"),
    [
        ("model.safetensors", truncate),
        ("model.safetensors", flip_a_byte),
        ("state.json", truncate),
    ],
)
def test_a_damaged_checkpoint_is_named_and_the_previous_one_used(tmp_path, name, damage) -> None:
    run = two_checkpoints(tmp_path)
    damage(run.state / name)
    with pytest.warns(CorruptCheckpointWarning, match=rf"state/{name}: .*previous checkpoint"):
        run.recover()
    assert run.read_state() == {"step": 1}
    assert (run.state.with_name("state.corrupt") / name).exists()  # kept for a look
    checkpoint(run, 3)  # and the run goes on
    assert run.read_state() == {"step": 3}


def test_a_damaged_checkpoint_with_none_before_it_is_named_in_the_error(tmp_path) -> None:
    run = RunDir(tmp_path / "run")
    checkpoint(run, 1)
    truncate(run.state / "model.safetensors")
    run.recover()  # nothing to fall back to: left as it is
    with pytest.raises(CheckpointError, match=r"state/model.safetensors: its SHA-256 differs"):
        run.read_state()


def test_a_kill_between_the_two_renames_resumes_from_the_previous_checkpoint(tmp_path) -> None:
    run = two_checkpoints(tmp_path)
    # the new checkpoint was complete under state.tmp, the current one already moved aside
    run.state.rename(run.state.with_name("state.tmp"))
    run.recover()
    assert run.read_state() == {"step": 1}
    assert not run.state.with_name("state.tmp").exists()


def test_a_checkpoint_written_before_checksums_still_loads(tmp_path) -> None:
    run = RunDir(tmp_path / "run")
    run.state.mkdir(parents=True)
    (run.state / "state.json").write_text('{"step": 7}\n')
    run.recover()
    assert run.read_state() == {"step": 7}


class _Killed(Exception):
    pass


def test_supervised_training_resumes_past_a_corrupt_checkpoint_to_the_same_model(
    tmp_path: Path,
) -> None:
    """Stopped after its checkpoint at step 6, the newest checkpoint truncated: the run warns,
    goes on from step 3 and ends with the uninterrupted run's weights and records."""
    from othellolab.training.config import SupervisedConfig
    from othellolab.training.supervised import train_supervised

    from helpers import shared_file

    wthor = shared_file("wthor/WTH_2004.wtb").parent

    def config(name: str) -> SupervisedConfig:
        return SupervisedConfig.from_dict(
            {
                "name": name,
                "runs_dir": str(tmp_path / "runs"),
                "seed": 3,
                "model": {"preset": "resnet-b1c16"},
                "data": {"wthor_dir": str(wthor), "train_years": "2004", "max_games": 6},
                "train": {"epochs": 1, "batch_size": 32, "checkpoint_every_steps": 3},
            }
        )

    straight = train_supervised(config("a"), progress=False)

    def kill(step: int) -> None:
        if step == 8:
            raise _Killed

    with pytest.raises(_Killed):
        train_supervised(config("b"), progress=False, on_step=kill)
    run = RunDir(tmp_path / "runs/b")
    assert run.read_state()["step"] == 6
    truncate(run.state / "model.safetensors")
    with pytest.warns(CorruptCheckpointWarning, match="model.safetensors"):
        resumed = train_supervised(config("b"), progress=False)
    assert (resumed.steps, resumed.metrics) == (straight.steps, straight.metrics)
    assert (run.root / "metrics.jsonl").read_bytes() == (
        straight.run_dir / "metrics.jsonl"
    ).read_bytes()
    weights = "model.safetensors"
    assert (resumed.model_dir / weights).read_bytes() == (straight.model_dir / weights).read_bytes()


def test_a_finished_run_started_again_draws_its_curves(tmp_path: Path) -> None:
    """Killed after its last checkpoint but before the plot (make faults found the plot
    missing), a finished run started again draws it."""
    from othellolab.training.config import SupervisedConfig
    from othellolab.training.supervised import train_supervised

    from helpers import shared_file

    wthor = shared_file("wthor/WTH_2004.wtb").parent
    cfg = SupervisedConfig.from_dict(
        {
            "name": "p",
            "runs_dir": str(tmp_path / "runs"),
            "model": {"preset": "resnet-b1c16"},
            "data": {"wthor_dir": str(wthor), "train_years": "2004", "max_games": 3},
            "train": {"epochs": 1, "batch_size": 32},
        }
    )
    done = train_supervised(cfg, progress=False)
    plot = done.run_dir / "learning_curves.png"
    drawn = plot.read_bytes()
    plot.unlink()
    train_supervised(cfg, progress=False)
    assert plot.read_bytes() == drawn
