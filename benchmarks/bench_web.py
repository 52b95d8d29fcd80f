"""The web board under load: 50 concurrent games of random moves against the greedy player,
through the HTTP API of a real ``othellolab serve`` process on localhost.

Figures come with ratios to baselines measured in the same run: the same clients only reading
their game's state (the cheapest request), and the same games played in-process through
``GameStore`` without HTTP. Run ``python benchmarks/bench_web.py --write docs/benchmarks.md``.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import os
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_core import machine, write_section

from othellolab.ui.web.games import GameStore
from othellolab.ui.web.models import NewGame


def start_server(max_games: int) -> tuple[subprocess.Popen[str], str]:
    """``othellolab serve`` on a free port, against greedy; returns the process and its URL."""
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
            "--hint",
            "greedy",
            "--max-games",
            str(max_games),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, "DISPLAY": ""},
    )
    assert proc.stdout is not None
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if "http://" in line:
            return proc, line.split()[3].rstrip("/")
        if proc.poll() is not None:
            break
    proc.kill()
    raise RuntimeError("othellolab serve did not start")


class Counter:
    """Requests, errors and latencies gathered from many client threads."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.latencies: list[float] = []
        self.errors: list[str] = []

    def add(self, seconds: float, error: str | None) -> None:
        with self.lock:
            self.latencies.append(seconds)
            if error:
                self.errors.append(error)


def http_game(url: str, seed: int, size: int, counter: Counter) -> str:
    """One game of random human moves against greedy over HTTP; returns its transcript."""
    rng = np.random.default_rng(seed)
    with httpx.Client(base_url=url, timeout=120) as http:

        def call(method: str, path: str, body: dict | None = None) -> dict:
            t0 = time.perf_counter()
            r = http.request(method, path, json=body)
            ok = r.status_code in (200, 201)
            counter.add(time.perf_counter() - t0, None if ok else f"{r.status_code} {r.text}")
            if not ok:
                raise RuntimeError(f"{method} {path}: {r.status_code} {r.text}")
            return r.json()

        state = call("POST", "/api/games", {"size": size, "opponent": f"greedy:seed={seed}"})
        path = f"/api/games/{state['id']}"
        while not state["game_over"]:
            if state["to_move"] == "ai":
                state = call("POST", path + "/ai-move")
            elif state["must_pass"]:
                state = call("POST", path + "/move", {"move": "pass"})
            else:
                legal = state["legal"]
                state = call("POST", path + "/move", {"move": legal[int(rng.integers(len(legal)))]})
        return state["transcript"]


def http_reads(url: str, seed: int, n: int, counter: Counter) -> None:
    """``n`` reads of one game's state: the cheapest request, as a baseline."""
    with httpx.Client(base_url=url, timeout=120) as http:
        game_id = http.post("/api/games", json={"seed": seed}).json()["id"]
        for _ in range(n):
            t0 = time.perf_counter()
            r = http.get(f"/api/games/{game_id}")
            counter.add(time.perf_counter() - t0, None if r.status_code == 200 else r.text)


def in_process_game(store: GameStore, seed: int, size: int) -> int:
    """The same game loop through ``GameStore`` without HTTP; returns the operations done."""
    rng = np.random.default_rng(seed)
    game = store.create(NewGame(size=size, opponent=f"greedy:seed={seed}"))
    ops = 1
    with game.lock:
        state = game.state()
    while not state.game_over:
        with game.lock:
            if state.to_move == "ai":
                if not game.pass_for_ai():
                    board, player, version = game.begin_think("ai")
                    game.finish_think("ai", version, player.choose(board, game.limit))
            elif state.must_pass:
                game.play_human("pass")
            else:
                game.play_human(state.legal[int(rng.integers(len(state.legal)))])
            state = game.state()
        ops += 1
    return ops


def run_concurrent(n: int, fn: Callable[[int], object]) -> tuple[float, list[object]]:
    t0 = time.perf_counter()
    with ThreadPoolExecutor(n) as pool:
        results = list(pool.map(fn, range(n)))
    return time.perf_counter() - t0, results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=50, help="concurrent games (default 50)")
    parser.add_argument("--size", type=int, default=8, choices=(8, 6, 4))
    parser.add_argument("--write", type=Path, help="write the figures to this markdown file")
    args = parser.parse_args()

    load = os.getloadavg()[0]
    proc, url = start_server(max_games=10 * args.games + 100)
    try:
        http_game(url, 10_000, args.size, Counter())  # warm up the server

        games = Counter()
        t_games, transcripts = run_concurrent(
            args.games, lambda i: http_game(url, i, args.size, games)
        )
        reads = Counter()
        per_client = max(1, len(games.latencies) // args.games)
        t_reads, _ = run_concurrent(args.games, lambda i: http_reads(url, i, per_client, reads))
    finally:
        proc.terminate()
        proc.wait(timeout=30)

    store = GameStore(default_opponent="greedy", hint_spec="greedy", max_games=10 * args.games)
    in_process_game(store, 10_000, args.size)  # warm up
    t0 = time.perf_counter()
    ops = sum(in_process_game(store, i, args.size) for i in range(args.games))
    t_local = time.perf_counter() - t0

    n_req = len(games.latencies)
    rps = n_req / t_games
    read_rps = len(reads.latencies) / t_reads
    local_ops = ops / t_local
    lat = sorted(games.latencies)
    p50 = statistics.median(lat) * 1e3
    p95 = lat[int(0.95 * (len(lat) - 1))] * 1e3
    errors = len(games.errors) + len(reads.errors)
    assert len(set(transcripts)) > 1
    rows = [
        (
            f"{args.games} concurrent {args.size}x{args.size} games vs greedy over HTTP",
            f"{rps:,.0f} requests/s ({n_req} requests, {args.games} games in {t_games:.1f} s, "
            f"{errors} errors; latency p50 {p50:.0f} ms, p95 {p95:.0f} ms)",
            f"{rps / read_rps:.2f}x the state-read baseline below; "
            f"{rps / local_ops:.2f}x the in-process loop",
        ),
        (
            f"{args.games} concurrent clients reading their game's state (baseline)",
            f"{read_rps:,.0f} requests/s",
            "1.00x",
        ),
        (
            "the same games through GameStore in-process, 1 thread, no HTTP (baseline)",
            f"{local_ops:,.0f} operations/s",
            f"{local_ops / read_rps:.1f}x the state-read rate over HTTP",
        ),
    ]
    stamp = _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        "| benchmark | figure | ratio to a baseline in the same run |",
        "|---|---|---|",
        *[f"| {a} | {b} | {c} |" for a, b, c in rows],
    ]
    table = "\n".join(lines)
    print(table)
    if errors:
        print(f"{errors} errors, first: {(games.errors + reads.errors)[0]}")
        sys.exit(1)
    if args.write:
        header = (
            "## Web board (benchmarks/bench_web.py)\n\n"
            f"Measured {stamp} on {machine()}, load average {load:.1f} when it started; "
            "server and clients share the machine "
            "(uvicorn, one worker, in its own process; clients are threads with keep-alive).\n\n"
        )
        args.write.parent.mkdir(parents=True, exist_ok=True)
        write_section(args.write, "web", header + table + "\n")


if __name__ == "__main__":
    main()
