"""Distributed supervised training on this CPU: two gloo processes under ``torchrun`` train
the model one process trains at the same global batch, a dead rank ends the run with an
error and the run resumes on any number of processes, ranks that disagree are refused."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from helpers import shared_file

torch = pytest.importorskip("torch", reason="the nn extra (torch) is not installed")

from othellolab.core import ConfigError  # noqa: E402
from othellolab.nn.io import load_model  # noqa: E402
from othellolab.training.config import SupervisedConfig  # noqa: E402
from othellolab.training.distributed import env_world, split_batch  # noqa: E402
from othellolab.training.supervised import train_supervised  # noqa: E402

SRC = Path(__file__).resolve().parents[2] / "src"
WORKER = Path(__file__).resolve().parent / "ddp_worker.py"
TORCH_ENV = ("RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT")

# Two ranks with synchronised batch norm compute the one-process step up to the order of
# floating-point sums; after a dozen Adam steps the weights stay this close (measured: about
# 1e-6 at most, Adam's normalised steps being lr = 0.003 each).
WEIGHT_TOLERANCE = 1e-4
METRIC_TOLERANCE = 1e-4


def _data(tmp_path: Path, name: str, **tables: dict) -> dict:
    wthor = shared_file("wthor/WTH_2004.wtb").parent
    data = {
        "name": name,
        "runs_dir": str(tmp_path / "runs"),
        "seed": 5,
        "model": {"preset": "resnet-b1c16"},
        "data": {
            "wthor_dir": str(wthor),
            "train_years": "2004",
            "max_games": 6,
            "val_years": "2005",
            "max_val_games": 4,
        },
        "optim": {"lr": 0.003},
        "train": {"epochs": 2, "batch_size": 64, "checkpoint_every_steps": 3},
        "runtime": {"mixed_precision": False},
        "distributed": {"sync_batchnorm": True, "timeout_s": 60.0},
    }
    for table, values in tables.items():
        data[table] = {**data.get(table, {}), **values}
    return data


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in TORCH_ENV}
    env["PYTHONPATH"] = os.pathsep.join([str(SRC), env.get("PYTHONPATH", "")])
    env["OMP_NUM_THREADS"] = "1"
    return env


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _ranks(configs: list[dict], tmp_path: Path, *kill: int) -> list[tuple[int, dict]]:
    """Start one worker per config as the ranks of one world (no torchrun: the test plays
    its part), wait for all, and return each rank's exit code and report."""
    port = _free_port()
    procs = []
    for rank, data in enumerate(configs):
        path = tmp_path / f"config-{rank}.json"
        path.write_text(json.dumps(data))
        env = _env() | {
            "RANK": str(rank),
            "WORLD_SIZE": str(len(configs)),
            "LOCAL_RANK": str(rank),
            "MASTER_ADDR": "127.0.0.1",
            "MASTER_PORT": str(port),
        }
        args = [sys.executable, str(WORKER), str(path), str(tmp_path / "out"), *map(str, kill)]
        procs.append(subprocess.Popen(args, env=env))
    codes = [p.wait(timeout=120) for p in procs]
    reports = []
    for rank in range(len(configs)):
        out = tmp_path / f"out-{rank}.json"
        reports.append(json.loads(out.read_text()) if out.exists() else {})
    return list(zip(codes, reports, strict=True))


def _weights(model_dir: Path) -> dict:
    model, _ = load_model(model_dir)
    return model.state_dict()


def _max_difference(a: dict, b: dict) -> float:
    assert a.keys() == b.keys()
    return max(float((a[k].double() - b[k].double()).abs().max()) for k in a)


def test_two_gloo_processes_under_torchrun_train_the_one_process_model(tmp_path: Path) -> None:
    one = train_supervised(SupervisedConfig.from_dict(_data(tmp_path, "one")), progress=False)
    config = tmp_path / "two.toml"
    data = _data(tmp_path, "two")
    lines = [f'name = "two"\nruns_dir = "{data["runs_dir"]}"\nseed = 5']
    for table in ("model", "data", "optim", "train", "runtime", "distributed"):
        lines.append(f"[{table}]")
        lines += [f"{k} = {json.dumps(v)}" for k, v in data[table].items()]
    config.write_text("\n".join(lines) + "\n")  # JSON's scalars and arrays are TOML's too
    torchrun = [sys.executable, "-m", "torch.distributed.run", "--standalone"]
    args = ["--nproc_per_node", "2", "-m", "othellolab.cli", "train", "supervised"]
    done = subprocess.run(
        [*torchrun, *args, str(config), "--quiet"],
        env=_env(),
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count("model: ") == 1, done.stdout  # rank 0 alone reports
    run = tmp_path / "runs" / "two"
    models = sorted((run / "models").iterdir())
    # one model, trained on as many samples
    assert [m.name for m in models] == [one.model_dir.name.replace("one", "two", 1)]
    ours = (run / "metrics.jsonl").read_text().splitlines()
    theirs = (one.run_dir / "metrics.jsonl").read_text().splitlines()
    assert len(ours) == len(theirs)  # one writer: no line twice
    for a, b in zip(map(json.loads, ours), map(json.loads, theirs), strict=True):
        assert a.keys() == b.keys() and (a["step"], a["samples"]) == (b["step"], b["samples"])
        for key in a:
            if isinstance(a[key], float):
                assert a[key] == pytest.approx(b[key], abs=METRIC_TOLERANCE), key
    difference = _max_difference(_weights(models[0]), _weights(one.model_dir))
    print(f"max weight difference, 2 ranks vs 1 process: {difference:.2e}")
    assert difference < WEIGHT_TOLERANCE
    state = json.loads((run / "train/state/state.json").read_text())
    assert state["world_size"] == 2 and state["done"]


def test_a_dead_rank_ends_the_run_which_resumes_on_one_process(tmp_path: Path) -> None:
    data = _data(tmp_path, "dies")
    # rank 1 dies at step 8, after the checkpoint of step 6 (checkpoints every 3 steps)
    (code0, report0), (code1, report1) = _ranks([data, data], tmp_path, 1, 8)
    assert code1 == 3 and not report1  # the crash
    assert code0 == 2 and report0["error"] == "RankError", report0  # raised, did not hang
    assert report0["message"].startswith("rank 0: step ") and "resume" in report0["message"]
    state = json.loads((tmp_path / "runs/dies/train/state/state.json").read_text())
    assert (state["step"], state["world_size"]) == (6, 2)
    # the run goes on in one plain process from the global position it had reached
    resumed = train_supervised(SupervisedConfig.from_dict(data), progress=False)
    straight = train_supervised(SupervisedConfig.from_dict(_data(tmp_path, "s")), progress=False)
    assert (resumed.steps, resumed.samples) == (straight.steps, straight.samples) == (12, 718)
    for key, value in straight.metrics.items():
        assert resumed.metrics[key] == pytest.approx(value, abs=METRIC_TOLERANCE), key
    difference = _max_difference(_weights(resumed.model_dir), _weights(straight.model_dir))
    assert difference < WEIGHT_TOLERANCE


def test_ranks_that_disagree_are_refused_by_name(tmp_path: Path) -> None:
    data = _data(tmp_path, "odd")
    other = _data(tmp_path, "odd", optim={"lr": 0.002})
    for code, report in _ranks([data, other], tmp_path):
        assert code == 2 and report["error"] == "ConfigError", report
        assert "the ranks of this run disagree on the config" in report["message"]
    # a world larger than the global batch is refused before any work
    small = _data(tmp_path, "small", train={"batch_size": 1})
    for code, report in _ranks([small, small], tmp_path):
        assert code == 2 and "2 processes (WORLD_SIZE)" in report["message"], report


@pytest.mark.parametrize(("rows", "world"), [(64, 2), (65, 2), (7, 3), (1, 2), (3, 4)])
def test_split_batch_gives_each_rank_a_disjoint_part_and_the_global_mean(
    rows: int, world: int
) -> None:
    index = np.arange(100, 100 + rows)
    syms = index % 8
    parts = [split_batch(index, syms, rank, world) for rank in range(world)]
    real = [(idx, ks) for idx, ks, scale in parts if scale > 0]
    assert sorted(np.concatenate([idx for idx, _ in real]).tolist()) == index.tolist()
    for idx, ks in real:
        assert (ks == idx % 8).all()
    # DDP averages the ranks' gradients: scales of mean losses that sum to the world size
    # make that average the global batch's mean (each rank's share is rows_here / rows)
    assert sum(scale for _, _, scale in parts) == pytest.approx(world)
    assert len(real) == min(rows, world)
    for idx, _, scale in parts:
        assert len(idx) >= 1  # a rank without rows still takes one, weighted 0, to join in
        assert scale == 0 or scale == pytest.approx(len(idx) * world / rows)


def test_the_environment_torchrun_sets_is_read_or_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in TORCH_ENV:
        monkeypatch.delenv(name, raising=False)
    assert env_world() is None  # a plain start
    monkeypatch.setenv("RANK", "1")
    with pytest.raises(
        ConfigError, match="WORLD_SIZE, LOCAL_RANK, MASTER_ADDR, MASTER_PORT missing"
    ):
        env_world()
    env = {"WORLD_SIZE": "2", "LOCAL_RANK": "1", "MASTER_ADDR": "h", "MASTER_PORT": "1"}
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert env_world() == (1, 2, 1)
    monkeypatch.setenv("RANK", "2")
    with pytest.raises(ConfigError, match="0 <= RANK < WORLD_SIZE"):
        env_world()
    monkeypatch.setenv("RANK", "one")
    with pytest.raises(ConfigError, match="RANK='one' is not an integer"):
        env_world()
