"""The real server (``othellolab serve`` in a subprocess, uvicorn as users run it) under the
slowest opponents a client may ask for: every move arrives by the server's deadline plus a
margin, another game is served meanwhile, and SIGTERM stops the server promptly even while a
search runs."""

from __future__ import annotations

import signal
import threading
import time
from typing import Any

import httpx
import pytest

from helpers import serve_subprocess

MARGIN = 1.5
"""Seconds allowed beyond the deadline: the search's last node, the reply, a loaded CI machine."""

SLOWEST = [
    "endgame:max_empties=60",  # an exact solve of the whole game
    "alphabeta:depth=60,endgame=60",
    "mcts:sims=10000000,playouts=100",
    "montecarlo:playouts=1000000",
]


def othellolab_serve(*args: str) -> Any:
    """``othellolab serve --port 0 --db :memory: ARGS`` in a subprocess; yields its URL and the
    process."""
    return serve_subprocess("--db", ":memory:", *args)


def ai_move(http: httpx.Client, opponent: str) -> tuple[float, httpx.Response]:
    game = http.post("/api/games", json={"human": "white", "opponent": opponent})
    assert game.status_code == 201, game.text
    t0 = time.monotonic()
    r = http.post(f"/api/games/{game.json()['id']}/ai-move")
    return time.monotonic() - t0, r


@pytest.mark.slow
def test_the_slowest_opponents_answer_by_the_deadline_and_sigterm_stops_the_server() -> None:
    deadline = 1.0
    with (
        othellolab_serve("--max-think-time", str(deadline)) as (url, proc),
        httpx.Client(base_url=url, timeout=60) as http,
    ):
        ai_move(http, SLOWEST[0])  # the first search loads the compiled kernels
        for spec in SLOWEST:
            seconds, r = ai_move(http, spec)
            assert r.status_code == 200, r.text
            assert r.json()["ply"] == 1
            assert seconds < deadline + MARGIN, f"{spec}: {seconds:.2f} s"

        # A tiny think time asked by the client is honoured too.
        game = http.post(
            "/api/games", json={"human": "white", "opponent": SLOWEST[1], "think_time": 0.05}
        ).json()
        t0 = time.monotonic()
        assert http.post(f"/api/games/{game['id']}/ai-move").status_code == 200
        assert time.monotonic() - t0 < 0.05 + MARGIN

        # While one search runs, another game is created, played and read without waiting.
        slow: dict[str, float] = {}
        thread = threading.Thread(target=lambda: slow.update(t=ai_move(http, SLOWEST[0])[0]))
        thread.start()
        time.sleep(0.2)
        t0 = time.monotonic()
        other = http.post("/api/games", json={"opponent": "greedy"})
        assert other.status_code == 201
        moved = http.post(f"/api/games/{other.json()['id']}/move", json={"move": "f5"})
        assert moved.status_code == 200
        assert time.monotonic() - t0 < 0.5 * deadline
        thread.join()
        assert slow["t"] < deadline + MARGIN

    # SIGTERM in the middle of a long search: the server stops within about a second.
    with (
        othellolab_serve("--max-think-time", "60") as (url, proc),
        httpx.Client(base_url=url, timeout=60) as http,
    ):
        ai_move(http, "greedy")
        thread = threading.Thread(target=lambda: ai_move(http, SLOWEST[0]), daemon=True)
        thread.start()
        time.sleep(1.0)
        assert proc.poll() is None
        t0 = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        proc.wait(30)
        assert time.monotonic() - t0 < 1.0 + MARGIN


def test_a_server_refuses_a_think_time_over_its_maximum() -> None:
    from fastapi.testclient import TestClient

    from othellolab.ui.web import create_app

    with TestClient(create_app(opponent="greedy", max_think_time=2)) as client:
        r = client.post("/api/games", json={"think_time": 3})
        assert r.status_code == 422
        assert "over this server's maximum of 2 s" in r.json()["detail"]
        limits = client.get("/api/players").json()["limits"]
        assert limits["max_think_time"] == 2 and "b6c48-wthor" in limits["models"]
