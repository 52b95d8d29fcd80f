"""A tiny supervised run on real WTHOR positions: it learns, resumes exactly, and exports."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from helpers import shared_file

torch = pytest.importorskip("torch", reason="the nn extra (torch) is not installed")

from typer.testing import CliRunner  # noqa: E402

from othellolab.cli import app  # noqa: E402
from othellolab.nn.io import load_model  # noqa: E402
from othellolab.training.config import ConfigError, SupervisedConfig  # noqa: E402
from othellolab.training.supervised import learning_rate, train_supervised  # noqa: E402


def _config(tmp_path: Path, name: str, **tables) -> SupervisedConfig:
    wthor = shared_file("wthor/WTH_2004.wtb").parent
    data = {
        "name": name,
        "runs_dir": str(tmp_path / "runs"),
        "seed": 3,
        "model": {"preset": "resnet-b1c16"},
        "data": {
            "wthor_dir": str(wthor),
            "train_years": "2004",
            "max_games": 10,
            "val_years": "2005",
            "max_val_games": 10,
        },
        "optim": {"lr": 0.003},
        "train": {"epochs": 4, "batch_size": 64, "log_every_steps": 5},
    }
    for table, values in tables.items():
        data[table] = {**data.get(table, {}), **values}
    return SupervisedConfig.from_dict(data)


def _records(run_dir: Path) -> list[dict]:
    return [json.loads(line) for line in (run_dir / "metrics.jsonl").read_text().splitlines()]


def test_tiny_run_learns_and_beats_a_uniform_policy(tmp_path: Path) -> None:
    # 10 games of 2004 (~600 positions) to train, 10 games of 2005 held out
    result = train_supervised(_config(tmp_path, "tiny"), progress=False)
    records = _records(result.run_dir)
    train = [r for r in records if r["kind"] == "train"]
    val = [r for r in records if r["kind"] == "val"]
    assert len(val) == 4 and result.epochs == 4
    assert np.mean([r["policy_loss"] for r in train[-3:]]) < np.mean(
        [r["policy_loss"] for r in train[:3]]
    )
    m = result.metrics
    assert m["val_policy_ce"] < m["val_uniform_ce"] - 0.03, m
    assert 0 < m["val_top1"] <= m["val_top3"] <= 1
    # the run directory holds everything the docs promise
    for rel in (
        "config.json",
        "train/state/state.json",
        "train/state/model.safetensors",
        "learning_curves.png",
    ):
        assert (result.run_dir / rel).exists(), rel
    assert result.model_dir.name == f"tiny-s{result.samples}-d{train[-1]['samples'] // 4}"
    _, info = load_model(result.model_dir)
    assert info.training["run"] == "tiny" and info.config.name == "resnet-b1c16"
    assert (result.run_dir / "learning_curves.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


class _Killed(Exception):
    pass


def test_interrupted_run_resumes_to_the_same_result(tmp_path: Path) -> None:
    tables = {
        "train": {"epochs": 2, "batch_size": 32, "checkpoint_every_steps": 4, "log_every_steps": 3},
        "data": {"max_games": 5},
    }
    straight = train_supervised(_config(tmp_path, "a", **tables), progress=False)
    per_epoch = straight.steps // 2
    assert 8 <= per_epoch < 15 < straight.steps

    def kill(step: int) -> None:
        if step == 15:  # between checkpoints (12 and 16), in the second epoch
            raise _Killed

    cfg = _config(tmp_path, "b", **tables)
    with pytest.raises(_Killed):
        train_supervised(cfg, progress=False, on_step=kill)
    state = json.loads((tmp_path / "runs/b/train/state/state.json").read_text())
    assert state["step"] == max(12, per_epoch) and not state["done"]
    resumed = train_supervised(cfg, progress=False)
    assert resumed.metrics == straight.metrics
    assert (resumed.steps, resumed.samples) == (straight.steps, straight.samples)
    assert _records(resumed.run_dir) == _records(straight.run_dir)
    a, _ = load_model(straight.model_dir)
    b, _ = load_model(resumed.model_dir)
    for (k, x), y in zip(a.state_dict().items(), b.state_dict().values(), strict=True):
        assert torch.equal(x, y), k
    # a finished run asked again does no more work
    again = train_supervised(cfg, progress=False)
    assert again.steps == straight.steps and again.metrics == straight.metrics


def test_steps_per_epoch_cuts_epochs_and_resumes_to_the_same_result(tmp_path: Path) -> None:
    # 5 games (~300 positions, 10 batches of 32) cut to epochs of 4 batches, each its own shuffle
    tables = {
        "train": {
            "epochs": 3,
            "batch_size": 32,
            "steps_per_epoch": 4,
            "checkpoint_every_steps": 3,
            "log_every_steps": 2,
        },
        "data": {"max_games": 5},
    }
    straight = train_supervised(_config(tmp_path, "cut", **tables), progress=False)
    assert (straight.steps, straight.epochs, straight.samples) == (12, 3, 12 * 32)
    val = [r for r in _records(straight.run_dir) if r["kind"] == "val"]
    assert [(r["epoch"], r["step"]) for r in val] == [(1, 4), (2, 8), (3, 12)]

    def kill(step: int) -> None:
        if step == 7:  # mid-epoch, after the checkpoint at step 6
            raise _Killed

    cfg = _config(tmp_path, "cut2", **tables)
    with pytest.raises(_Killed):
        train_supervised(cfg, progress=False, on_step=kill)
    resumed = train_supervised(cfg, progress=False)
    assert resumed.metrics == straight.metrics and resumed.steps == 12
    a, _ = load_model(straight.model_dir)
    b, _ = load_model(resumed.model_dir)
    for (k, x), y in zip(a.state_dict().items(), b.state_dict().values(), strict=True):
        assert torch.equal(x, y), k
    # the cosine schedule is planned over the cut epochs: it ends at its floor, not a third down
    assert learning_rate(cfg, 11, 4) < 0.1 * cfg.optim.lr
    with pytest.raises(ConfigError, match="steps_per_epoch"):
        _config(tmp_path, "bad", train={"steps_per_epoch": -1})


def test_resume_refuses_a_changed_config(tmp_path: Path) -> None:
    tables = {"train": {"epochs": 1}, "data": {"max_games": 3, "max_val_games": 3}}
    train_supervised(_config(tmp_path, "c", **tables), progress=False)
    with pytest.raises(ConfigError, match=r"different config \(optim\.lr differ\)"):
        train_supervised(_config(tmp_path, "c", optim={"lr": 0.01}, **tables), progress=False)
    # a run frozen before model.game existed resumes (its default is assumed)
    frozen = tmp_path / "runs" / "c" / "config.json"
    data = json.loads(frozen.read_text())
    del data["model"]["game"]
    frozen.write_text(json.dumps(data))
    train_supervised(_config(tmp_path, "c", **tables), progress=False)


def test_learning_rate_schedules(tmp_path: Path) -> None:
    cos = _config(tmp_path, "s", schedule={"warmup_steps": 10}, train={"epochs": 2})
    assert learning_rate(cos, 0, 55) == pytest.approx(0.0003)
    assert learning_rate(cos, 9, 55) == pytest.approx(0.003)
    assert learning_rate(cos, 10 + 50, 55) == pytest.approx(0.0015)  # half-way down the cosine
    step = _config(tmp_path, "s", schedule={"kind": "step", "gamma": 0.1, "step_epochs": 1})
    assert learning_rate(step, 54, 55) == pytest.approx(0.003)
    assert learning_rate(step, 55, 55) == pytest.approx(0.0003)


def test_time_limit_stops_with_a_model_and_resumes_to_the_same_result(tmp_path: Path) -> None:
    tables = {
        "train": {"epochs": 2, "batch_size": 32, "log_every_steps": 3},
        "data": {"max_games": 5},
    }
    straight = train_supervised(_config(tmp_path, "a", **tables), progress=False)
    cfg = _config(tmp_path, "b", **tables)
    limited = train_supervised(cfg, progress=False, time_limit_s=1e-9)  # stops after one step
    assert limited.time_limited and not straight.time_limited
    assert (limited.steps, limited.epochs) == (1, 0)
    state = json.loads((tmp_path / "runs/b/train/state/state.json").read_text())
    assert state["step"] == 1 and not state["done"]
    _, info = load_model(limited.model_dir)  # the weights so far, playable at once
    assert info.training["run"] == "b" and 0 < limited.metrics["val_top1"] <= 1
    resumed = train_supervised(cfg, progress=False)
    assert not resumed.time_limited
    assert (resumed.steps, resumed.samples) == (straight.steps, straight.samples)
    assert resumed.metrics == straight.metrics
    assert _records(resumed.run_dir) == _records(straight.run_dir)
    for bad in (0.0, -1.0, float("nan"), float("inf")):
        with pytest.raises(ConfigError, match="time-limit"):
            train_supervised(cfg, progress=False, time_limit_s=bad)


def test_ranks_agree_on_the_time_limit_every_20_steps() -> None:
    from othellolab.training.supervised import _deadline

    class TwoRanks:  # rank 0's clock is past the limit, the other's is not
        calls = 0

        def all_sum(self, values, what: str):
            TwoRanks.calls += 1
            return values + 0.0

    stop = _deadline(1e-9, TwoRanks())  # type: ignore[arg-type]
    assert [step for step in range(1, 45) if stop(step)] == [20, 40]
    assert TwoRanks.calls == 2  # no collective between the agreed steps
    assert not _deadline(3600.0, None)(1)


def test_cli_trains_from_a_toml_file(tmp_path: Path) -> None:
    wthor = shared_file("wthor/WTH_2004.wtb").parent
    path = tmp_path / "run.toml"
    path.write_text(
        f'name = "cli"\nruns_dir = "{tmp_path / "runs"}"\nmodel = "mlp-classic"\n'
        f'[data]\nwthor_dir = "{wthor}"\ntrain_years = "2004"\nmax_games = 3\nval_fraction = 0.34\n'
        "[train]\nepochs = 1\nbatch_size = 32\n"
    )
    result = CliRunner().invoke(app, ["train", "supervised", str(path), "--quiet"])
    assert result.exit_code == 0, result.output
    assert "val top-1" in result.output and "model: " in result.output
    assert (tmp_path / "runs/cli/run.toml").read_text() == path.read_text()
    # a run folder as CONFIG goes on from the run's own run.toml, from another folder and path
    moved = tmp_path / "elsewhere"
    (tmp_path / "runs").rename(moved)
    before = (moved / "cli/metrics.jsonl").read_text()
    result = CliRunner().invoke(app, ["train", "supervised", str(moved / "cli"), "--quiet"])
    assert result.exit_code == 0, result.output
    assert "1 epochs" in result.output and str(moved / "cli") in result.output
    assert not (tmp_path / "runs").exists()  # nothing written where the run started
    assert (moved / "cli/metrics.jsonl").read_text() == before  # finished: nothing more to do
    for args, says in (
        ([str(moved)], "not a run folder"),
        ([str(tmp_path)], "names the run 'cli', not the folder"),
        ([str(tmp_path / "nope.toml")], "no such config file or run folder"),
        ([], "Missing argument 'CONFIG'"),
        ([str(path), "--set", "train.epochs"], "expected KEY=VALUE"),
    ):
        result = CliRunner().invoke(app, ["train", "supervised", *args])
        assert result.exit_code != 0 and says in result.output, result.output
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "cli"\nmodel = "mlp-classic"\n[train]\nepoch = 1\n')
    result = CliRunner().invoke(app, ["train", "supervised", str(bad)])
    assert result.exit_code != 0 and "epoch" in result.output


def test_cli_overrides_keys_and_the_run_folder_keeps_them(tmp_path: Path) -> None:
    """``--set`` changes the run's config, and its run.toml holds the overridden config, so
    going on with the run folder alone reads the same config (a file as given would not)."""
    import tomllib

    wthor = shared_file("wthor/WTH_2004.wtb").parent
    path = tmp_path / "run.toml"
    path.write_text(
        f'name = "cli"\nruns_dir = "{tmp_path / "runs"}"\nmodel = "mlp-classic"\n'
        f'[data]\nwthor_dir = "{wthor}"\ntrain_years = "2004"\nmax_games = 3\nval_fraction = 0.34\n'
        "[train]\nepochs = 3\nbatch_size = 32\n"
    )
    args = ["train", "supervised", str(path), "--set", "train.epochs=1", "--quiet"]
    result = CliRunner().invoke(app, [*args, "--set", "name=over"])
    assert result.exit_code == 0, result.output
    assert "over: 1 epochs" in result.output
    kept = tomllib.loads((tmp_path / "runs/over/run.toml").read_text())
    assert kept["train"] == {"epochs": 1, "batch_size": 32} and kept["name"] == "over"
    again = CliRunner().invoke(app, ["train", "supervised", str(tmp_path / "runs/over"), "-q"])
    assert again.exit_code == 0, again.output
    assert "over: 1 epochs" in again.output
    zero = ["train", "supervised", str(path), "--set", "train.epochs=0", "--set", "name=x"]
    refused = CliRunner().invoke(app, zero)
    assert refused.exit_code == 1
    assert "epochs" in refused.output and "override of train.epochs" in refused.output


def test_trains_from_a_built_dataset_directory(tmp_path: Path) -> None:
    from othellolab.datasets.build import build_dataset

    ds = tmp_path / "ds"
    build_dataset([shared_file("wthor/WTH_2005.wtb")], ds, passes=False, progress=False)
    cfg = _config(
        tmp_path,
        "ds",
        data={"dataset": str(ds), "max_rows": 1500, "max_val_rows": 600},
        train={"epochs": 2},
    )
    result = train_supervised(cfg, progress=False)
    _, info = load_model(result.model_dir)
    assert info.training["data"]["dataset"] == str(ds)
    assert result.samples == 2 * 1500
    assert result.metrics["val_policy_ce"] < result.metrics["val_uniform_ce"], result.metrics
    with pytest.raises(ConfigError, match="not a dataset folder"):
        bad = _config(tmp_path, "bad", data={"dataset": str(tmp_path / "none")})
        train_supervised(bad, progress=False)


def test_resume_accepts_a_run_frozen_before_the_dataset_options(tmp_path: Path) -> None:
    tables = {"train": {"epochs": 1}, "data": {"max_games": 3, "max_val_games": 3}}
    first = train_supervised(_config(tmp_path, "old", **tables), progress=False)
    frozen = first.run_dir / "config.json"
    config = json.loads(frozen.read_text())
    for key in ("dataset", "val_split", "max_rows", "max_val_rows"):
        del config["data"][key]
    frozen.write_text(json.dumps(config))
    again = train_supervised(_config(tmp_path, "old", **tables), progress=False)
    assert again.steps == first.steps
    with pytest.raises(ConfigError, match=r"data\.dataset differ"):
        changed = {**tables, "data": {**tables["data"], "dataset": "elsewhere"}}
        train_supervised(_config(tmp_path, "old", **changed), progress=False)


@pytest.mark.slow
def test_compiled_forward_trains_the_same_model(tmp_path: Path) -> None:
    # [runtime] compile = true runs the training forward through torch.compile: the same
    # parameters learn the same thing, up to floating-point reordering (in float32: bfloat16's
    # rounding, on a CPU with AMX, differs with the order of fused operations)
    exact = {"mixed_precision": False}
    plain = train_supervised(
        _config(tmp_path, "eager", train={"epochs": 1}, runtime=exact), progress=False
    )
    compiled = train_supervised(
        _config(tmp_path, "compiled", train={"epochs": 1}, runtime={"compile": True, **exact}),
        progress=False,
    )
    a, _ = load_model(plain.model_dir)
    b, _ = load_model(compiled.model_dir)
    for (name, x), (_, y) in zip(a.state_dict().items(), b.state_dict().items(), strict=True):
        torch.testing.assert_close(x, y, rtol=1e-3, atol=1e-3, msg=name)
    assert compiled.metrics["val_top1"] == pytest.approx(plain.metrics["val_top1"], abs=0.01)


def test_validation_counts_a_move_equal_up_to_symmetry_as_the_played_one() -> None:
    from othellolab.core import Board
    from othellolab.datasets.feeds import ArraySource
    from othellolab.datasets.replay import PositionArrays
    from othellolab.nn.config import model_config
    from othellolab.nn.models import build_model
    from othellolab.training.supervised import validation_metrics

    start = Board()
    mid = start.play(37).play(45)  # f5 f6: the diagonal opening; no symmetry maps e6 to d3
    rows = PositionArrays(
        player=np.array([start.player, mid.player], dtype=np.uint64),
        opponent=np.array([start.opponent, mid.opponent], dtype=np.uint64),
        move=np.array([37, 44]),  # f5 (every WTHOR game's first move), then e6
        outcome=np.zeros(2, dtype=np.int8),
    )
    model = build_model(model_config("mlp-1x8"))
    with torch.no_grad():  # a policy that prefers d3 (19) wherever it is legal
        model.policy.weight.zero_()
        model.policy.bias.zero_()
        model.policy.bias[19] = 5.0
    assert 19 in start.legal_actions() and 19 in mid.legal_actions()
    m = validation_metrics(model, ArraySource(rows))
    # d3 is f5 up to a symmetry of the start, not e6 after f5 f6
    assert m["val_top1"] == pytest.approx(0.5)
