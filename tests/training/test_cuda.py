"""The GPU path (``pytest -m cuda``): supervised training, evaluation, self-play and the
network players on ``device=cuda`` give what the CPU gives, and two GPUs train under torchrun
with NCCL. Every test here carries the ``cuda`` marker: it runs where torch sees a GPU and is
skipped with the reason elsewhere (``tests/conftest.py``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import numpy as np
import pytest

from helpers import shared_file

torch = pytest.importorskip("torch", reason="the nn extra (torch) is not installed")

from othellolab.core import Board  # noqa: E402
from othellolab.datasets.feeds import ArraySource, positions_from_wthor  # noqa: E402
from othellolab.nn.config import model_config  # noqa: E402
from othellolab.nn.io import load_model, save_model  # noqa: E402
from othellolab.nn.models import build_model  # noqa: E402
from othellolab.players import make_player  # noqa: E402
from othellolab.testing import check_player  # noqa: E402
from othellolab.training.config import SupervisedConfig  # noqa: E402
from othellolab.training.supervised import train_supervised, validation_metrics  # noqa: E402

pytestmark = pytest.mark.cuda

SRC = Path(__file__).resolve().parents[2] / "src"
# bfloat16 autocast on the GPU against float32 on the CPU: metrics of a tiny network agree
# to about 1e-2 (bfloat16 keeps 8 bits of mantissa); in float32 GPU and CPU agree to 1e-4
BF16_TOLERANCE = 2e-2
FP32_TOLERANCE = 1e-3


def _data(tmp_path: Path, name: str, **tables: dict) -> dict:
    wthor = shared_file("wthor/WTH_2004.wtb").parent
    data = {
        "name": name,
        "runs_dir": str(tmp_path / "runs"),
        "seed": 2,
        "model": {"preset": "resnet-b1c16", "planes": ["player", "opponent", "legal"]},
        "data": {
            "wthor_dir": str(wthor),
            "train_years": "2004",
            "max_games": 40,
            "val_years": "2005",
            "max_val_games": 10,
        },
        "optim": {"optimizer": "adamw", "lr": 0.002},
        "train": {"epochs": 2, "batch_size": 128},
        "runtime": {"device": "cuda", "mixed_precision": True},
    }
    for table, values in tables.items():
        data[table] = {**data.get(table, {}), **values}
    return data


def _config(tmp_path: Path, name: str, **tables: dict) -> SupervisedConfig:
    return SupervisedConfig.from_dict(_data(tmp_path, name, **tables))


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    torch.manual_seed(0)
    model = build_model(model_config("resnet-b1c8", size=8))
    return save_model(model.eval(), tmp_path_factory.mktemp("m"))


def test_supervised_training_on_the_gpu_learns_and_exports_a_cpu_model(tmp_path: Path) -> None:
    cfg = _config(tmp_path, "gpu")
    result = train_supervised(cfg, progress=False)
    m = result.metrics
    assert m["val_policy_ce"] < m["val_uniform_ce"], m
    state = json.loads((result.run_dir / "train/state/state.json").read_text())
    assert state["done"] and state["world_size"] == 1
    # the exported model loads on the CPU and measures there as on the GPU (bfloat16 training
    # does not leak into the float32 weights)
    model, _ = load_model(result.model_dir)
    assert all(p.device.type == "cpu" and p.dtype == torch.float32 for p in model.parameters())
    from othellolab.training.supervised import build_sources

    _, val = build_sources(cfg)
    cpu = validation_metrics(model, val)
    for key in ("val_top1", "val_policy_ce", "val_value_mse"):
        assert cpu[key] == pytest.approx(m[key], abs=BF16_TOLERANCE), key


def test_auto_device_picks_the_gpu_and_resumes_a_cpu_started_run(tmp_path: Path) -> None:
    class Stop(Exception):
        pass

    def stop(step: int) -> None:
        if step == 3:
            raise Stop

    cpu = _config(tmp_path, "moves", runtime={"device": "cpu"}, train={"checkpoint_every_steps": 2})
    with pytest.raises(Stop):
        train_supervised(cpu, progress=False, on_step=stop)
    auto = _config(
        tmp_path, "moves", runtime={"device": "auto"}, train={"checkpoint_every_steps": 2}
    )
    result = train_supervised(auto, progress=False)  # the runtime may change between starts
    assert result.epochs == 2 and result.metrics["val_policy_ce"] < result.metrics["val_uniform_ce"]


def test_evaluation_on_the_gpu_matches_the_cpu(model_dir: Path, tmp_path: Path) -> None:
    from othellolab.datasets.heldout import load_positions
    from othellolab.measure.model import measure_model

    rows = positions_from_wthor([shared_file("wthor/WTH_2005.wtb")], max_games=20)
    model, _ = load_model(model_dir)
    cpu = validation_metrics(model, ArraySource(rows, planes=model.config.planes))
    gpu = validation_metrics(
        model.to("cuda"), ArraySource(rows, planes=model.config.planes), device="cuda"
    )
    for key, value in cpu.items():
        assert gpu[key] == pytest.approx(value, abs=FP32_TOLERANCE), key
    positions = load_positions([shared_file("wthor/WTH_2005.wtb")], max_games=20)
    a = measure_model(model_dir, positions, progress=False, device="cpu").metrics
    b = measure_model(model_dir, positions, progress=False, device="cuda").metrics
    for key in ("top1", "top3", "policy_ce", "value_mse", "winner_accuracy"):
        assert b["overall"][key] == pytest.approx(a["overall"][key], abs=FP32_TOLERANCE), key


@pytest.mark.parametrize("spec", ["policy", "alphazero:sims=16,seed=1"])
def test_network_players_on_the_gpu(model_dir: Path, spec: str) -> None:
    sep = "," if ":" in spec else ":"
    gpu = make_player(f"{spec}{sep}model={model_dir},device=cuda")
    check_player(gpu, sizes=(8,), games=2, seed=4)
    cpu = make_player(f"{spec}{sep}model={model_dir},device=cpu")
    board = Board().play("f5").play("d6")
    a, b = cpu.choose(board), gpu.choose(board)
    assert a.policy is not None and b.policy is not None
    assert np.abs(np.asarray(a.policy) - np.asarray(b.policy)).max() < FP32_TOLERANCE * 10
    if spec == "policy":
        assert a.move == b.move


def test_selfplay_on_the_gpu_runs_a_generation(tmp_path: Path, monkeypatch) -> None:
    from othellolab.training.selfplay.pipeline import read_metrics, train_selfplay
    from othellolab.training.selfplay.runconfig import SelfPlayRunConfig

    text = """\
name = "gpu4"
size = 4
seed = 1
runs_dir = "runs"
[model]
preset = "resnet-b2c16"
[selfplay]
simulations = 16
parallel = 64
[loop]
generations = 1
games = 64
shards = 1
workers = 1
[train]
batch_size = 64
samples_per_position = 2.0
[grade]
simulations = [0]
[runtime]
device = "cuda"
"""
    monkeypatch.chdir(tmp_path)
    cfg = SelfPlayRunConfig.from_dict(tomllib.loads(text))
    summary = train_selfplay(cfg, text=text, progress=False)
    assert summary.generation == 1
    model, _ = load_model(summary.root / "models" / "gen0001")
    start, _ = load_model(summary.root / "models" / "gen0000")
    assert all(torch.isfinite(p).all() for p in model.parameters())
    moved = [
        not torch.equal(a, b) for a, b in zip(model.parameters(), start.parameters(), strict=True)
    ]
    assert any(moved)  # the GPU trained the generation
    played = [r for r in read_metrics(summary.root) if r["kind"] == "selfplay"]
    assert played and all(r["device"] == "cuda" for r in played)  # and evaluated its games


def test_two_gpus_train_under_torchrun_with_nccl(tmp_path: Path) -> None:
    if torch.cuda.device_count() < 2:
        pytest.skip(f"needs 2 GPUs, torch sees {torch.cuda.device_count()}")
    path = tmp_path / "nccl.json"
    path.write_text(json.dumps(_data(tmp_path, "nccl", distributed={"sync_batchnorm": True})))
    worker = Path(__file__).resolve().parent / "ddp_worker.py"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")]))
    torchrun = [
        sys.executable,
        "-m",
        "torch.distributed.run",
        "--standalone",
        "--nproc_per_node",
        "2",
    ]
    done = subprocess.run(
        [*torchrun, str(worker), str(path), str(tmp_path / "out")],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    reports = [json.loads((tmp_path / f"out-{r}.json").read_text()) for r in range(2)]
    assert reports[0] == reports[1]  # every rank ends with the same metrics
    assert len(list((tmp_path / "runs/nccl/models").iterdir())) == 1
