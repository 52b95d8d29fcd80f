"""``othellolab serve``: starts uvicorn on 127.0.0.1, prints the URL, and checks its options."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from othellolab.cli import app
from othellolab.nn.pretrained import available_models, model_dir

from helpers import tiny_selfplay_config

runner = CliRunner()


@pytest.fixture(autouse=True)
def _games_db_in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``serve`` keeps its games in the data folder: a temporary one here, never the user's."""
    monkeypatch.setenv("OTHELLOLAB_DATA", str(tmp_path / "data"))


def said(output: str) -> str:
    """A CLI error's words, out of its box and with its lines joined."""
    return " ".join(output.replace("│", " ").split())


def test_serve_rejects_unknown_opponents_before_starting() -> None:
    result = runner.invoke(app, ["serve", "--opponent", "nosuchplayer"])
    assert result.exit_code != 0
    assert "unknown player 'nosuchplayer'" in said(result.output)
    result = runner.invoke(app, ["serve", "--opponent", "greedy:depth=2"])
    assert result.exit_code != 0 and "has no option depth" in said(result.output)


@contextmanager
def served(*args: str, cwd: Path | None = None) -> Iterator[tuple[str, str]]:
    """``othellolab serve --port 0 ARGS`` in a subprocess: yields its URL and what it printed
    up to it (the URL's line last); stopped with Ctrl+C."""
    proc = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "from othellolab.cli import main; main()",
            "serve",
            "--port",
            "0",
            *args,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, "DISPLAY": ""},
        cwd=cwd,
    )
    try:
        assert proc.stdout is not None
        deadline = time.monotonic() + 120
        lines = [""]
        while "http://" not in lines[-1]:
            assert time.monotonic() < deadline and proc.poll() is None, "".join(lines)
            lines.append(proc.stdout.readline())
        yield lines[-1].split()[3], "".join(lines)
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=30)


def test_serve_prints_the_url_and_answers_on_it() -> None:
    with served("--opponent", "greedy") as (url, line):
        assert url.startswith("http://127.0.0.1:") and "opponent greedy" in line
        assert "warning" not in line  # 127.0.0.1, the default host, serves this machine only
        players = httpx.get(url + "api/players", timeout=30).json()
        assert players["default_opponent"] == "greedy"
        assert 'id="board"' in httpx.get(url, timeout=30).text


@pytest.mark.parametrize(
    ("args", "option", "says"),
    [
        (["--host", "999.1.1.1"], "--host", "neither an IP address nor a host name"),
        (["--host", "not a host"], "--host", "neither an IP address nor a host name"),
        (["--rate-limit", "0"], "--rate-limit", "greater than or equal to 0.01"),
        (["--rate-limit", "nan"], "--rate-limit", "Invalid value"),
        (["--rate-limit", "1e9"], "--rate-limit", "less than or equal to 10000"),
        (["--rate-burst", "0"], "--rate-burst", "greater than or equal to 1"),
        (["--max-games-per-client", "0"], "--max-games-per-client", "greater than or equal"),
    ],
)
def test_serve_checks_its_host_and_per_client_limits(args: list[str], option: str, says: str):
    result = runner.invoke(app, ["serve", *args])
    assert result.exit_code == 2, result.output
    assert option in said(result.output) and says in said(result.output), result.output


def test_serve_beyond_localhost_warns_and_bounds_each_client() -> None:
    args = ["--host", "0.0.0.0", "--opponent", "greedy", "--rate-limit", "0.01", "--rate-burst"]
    with served(*args, "3") as (url, printed):
        assert url.startswith("http://127.0.0.1:")
        assert "warning: --host 0.0.0.0 serves the board beyond this machine" in printed
        assert "0.01 requests a second, bursts of 3" in printed
        page = httpx.get(url, timeout=30)
        assert "frame-ancestors 'none'" in page.headers["Content-Security-Policy"]
        assert [httpx.get(url + "api/players", timeout=30).status_code for _ in range(3)] == [
            200,
            200,
            429,
        ]


def fake_run(root: Path) -> Path:
    """A run folder (``config.json``, ``models/gen0000``, ``models/gen0001``) of copies of the
    shipped 6x6 model: enough for names and errors, no training."""
    root.mkdir(parents=True)
    (root / "config.json").write_text(json.dumps({"name": root.name}))
    for name in ("gen0000", "gen0001"):
        shutil.copytree(model_dir("az-6x6"), root / "models" / name)
    return root


def test_serve_checks_model_names_after_loading_models_and_lists_them(tmp_path: Path) -> None:
    run = fake_run(tmp_path / "runs" / "my-az")
    result = runner.invoke(
        app, ["serve", "--models", str(run / "models"), "--opponent", "alphazero:model=gen0001"]
    )
    assert result.exit_code == 2
    text = said(result.output)
    assert "--opponent" in text and "is not one of this server's models" in text
    for name in (*available_models(), "my-az/gen0000", "my-az/gen0001"):
        assert name in text
    assert "did you mean 'my-az/gen0001'?" in text
    result = runner.invoke(app, ["serve", "--hint", "policy:model=nope"])
    assert result.exit_code == 2 and "--hint" in said(result.output)
    assert "az-6x6" in said(result.output)
    result = runner.invoke(app, ["serve", "--models", str(tmp_path / "missing")])
    assert result.exit_code == 2 and "--models" in said(result.output)
    assert "missing: no such folder" in said(result.output)
    twin = fake_run(tmp_path / "elsewhere" / "my-az")
    result = runner.invoke(app, ["serve", "--models", str(run), "--models", str(twin)])
    assert result.exit_code == 2 and "--models" in result.output
    assert "would be named 'my-az/gen0000'" in said(result.output)


def test_players_lists_the_models_a_spec_may_name(tmp_path: Path) -> None:
    run = fake_run(tmp_path / "runs" / "my-az")
    result = runner.invoke(app, ["players", "--models", str(tmp_path / "runs")])
    assert result.exit_code == 0, result.output
    listing, models = result.output.split("models that model=NAME")
    model_lines = [line for line in listing.splitlines() if line.startswith("    model ")]
    assert len(model_lines) == 3  # policy, alphazero, value
    for line in model_lines:
        assert "my-az/gen0001" in line and "(default b8c64-all)" in line
    assert "my-az/gen0001            othello6" in models
    assert "b8c64-all                othello8" in models
    assert run.is_dir()


def test_serve_plays_a_freshly_trained_runs_model_as_the_docs_say(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/web.md: ``othellolab serve --models runs/my-az/models --opponent
    alphazero:model=my-az/gen0001``, after a one-generation 4x4 self-play run."""
    pytest.importorskip("torch", reason="the nn extra (torch) is not installed")
    from othellolab.training.selfplay.pipeline import train_selfplay
    from othellolab.training.selfplay.runconfig import SelfPlayRunConfig

    monkeypatch.chdir(tmp_path)
    train_selfplay(SelfPlayRunConfig.from_dict(tiny_selfplay_config("my-az")), progress=False)
    assert (tmp_path / "runs/my-az/models/gen0001/config.json").is_file()
    spec = "alphazero:model=my-az/gen0001,sims=8"
    with served("--models", "runs/my-az/models", "--opponent", spec, cwd=tmp_path) as (url, _):
        players = httpx.get(url + "api/players?game=othello&size=4", timeout=30).json()
        az = next(p for p in players["players"] if p["name"] == "alphazero")
        assert az["models"] == ["my-az/gen0000", "my-az/gen0001"]
        assert az["options"]["model"] == "b8c64-all" and "my-az/gen0001" in az["ranges"]["model"]
        assert "my-az/gen0001" in players["limits"]["models"]
        game = httpx.post(url + "api/games", json={"size": 4, "human": "second"}, timeout=60).json()
        assert game["opponent"] == spec and game["to_move"] == "ai", game
        after = httpx.post(url + f"api/games/{game['id']}/ai-move", timeout=120).json()
        assert len(after["moves"]) == 1 and after["to_move"] == "human", after
        assert after["evaluation"]["simulations"] is not None, after["evaluation"]
        unknown = httpx.post(
            url + "api/games", json={"size": 4, "opponent": "alphazero:model=gen0001"}, timeout=60
        )
        assert unknown.status_code == 422
        assert "did you mean 'my-az/gen0001'?" in unknown.json()["detail"]
        assert "az-6x6" in unknown.json()["detail"]
