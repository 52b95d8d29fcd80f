"""``othellolab serve``: starts uvicorn on 127.0.0.1, prints the URL, and checks its options."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import httpx
from typer.testing import CliRunner

from othellolab.cli import app

runner = CliRunner()


def test_serve_rejects_unknown_opponents_before_starting() -> None:
    result = runner.invoke(app, ["serve", "--opponent", "nosuchplayer"])
    assert result.exit_code != 0
    assert "unknown player 'nosuchplayer'" in result.output
    result = runner.invoke(app, ["serve", "--opponent", "greedy:depth=2"])
    assert result.exit_code != 0 and "has no option depth" in result.output


def test_serve_prints_the_url_and_answers_on_it() -> None:
    proc = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "from othellolab.cli import main; main()",
            "serve",
            "--port",
            "0",
            "--opponent",
            "greedy",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, "DISPLAY": ""},
    )
    try:
        assert proc.stdout is not None
        deadline = time.monotonic() + 120
        line = ""
        while "http://" not in line:
            assert time.monotonic() < deadline and proc.poll() is None, line
            line = proc.stdout.readline()
        url = line.split()[3]
        assert url.startswith("http://127.0.0.1:") and "opponent greedy" in line
        players = httpx.get(url + "api/players", timeout=30).json()
        assert players["default_opponent"] == "greedy"
        assert 'id="board"' in httpx.get(url, timeout=30).text
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=30)
