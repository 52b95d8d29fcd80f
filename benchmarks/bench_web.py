"""The web board under load (issue 64's table): N simulated clients, each playing games against
the default 8x8 opponent through a real ``othellolab serve`` (a human move, then ``ai-move``,
and again), plus one reader polling a game's state every 0.1 s; the clients are one light
asyncio process. For each N: ``ai-move`` and plain GET latency (p50/p95/max), AI moves done
per minute, errors, 503s (the client waits ``Retry-After`` and asks again), the depth the AI
reached against the single-client figure, and the peak memory of the server and its workers.

With ``--base-src DIR`` (a ``src`` folder of an older commit, e.g. from ``git archive``) the
same load runs against that server too, in the same run. ``--write docs/benchmarks.md`` writes
the ``web`` section.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as _dt
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

import httpx
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_core import machine, write_section


def start_server(src: Path | None, args: list[str]) -> tuple[subprocess.Popen[str], str]:
    """``othellolab serve`` on a free port (from ``src`` when given); its process and URL."""
    env = {**os.environ, "DISPLAY": "", "PYTHONUNBUFFERED": "1"}
    if src is not None:
        env["PYTHONPATH"] = str(src)
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
        env=env,
    )
    assert proc.stdout is not None
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        found = re.search(r"http://127\.0\.0\.1:\d+", line)
        if found:
            return proc, found.group(0)
        if proc.poll() is not None:
            break
    proc.kill()
    raise RuntimeError("othellolab serve did not start")


def tree_rss(pid: int) -> int:
    """Resident bytes of a process and all its descendants (Linux /proc)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            children.setdefault(ppid, []).append(int(entry))
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        todo += children.get(p, [])
        try:
            for line in Path(f"/proc/{p}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) * 1024
        except OSError:
            pass
    return total


class Figures:
    """What the clients saw."""

    def __init__(self) -> None:
        self.ai: list[float] = []
        self.get: list[float] = []
        self.depths: list[int] = []
        self.errors: list[str] = []
        self.busy = 0


async def client(http: httpx.AsyncClient, seed: int, end: float, figs: Figures, ids: list) -> None:
    """Games against the default opponent until ``end``: a random human move, then the AI's."""
    rng = np.random.default_rng(seed)
    while time.monotonic() < end:
        r = await http.post("/api/games", json={"human": "black"})
        if r.status_code != 201:
            figs.errors.append(f"new game {r.status_code}")
            await asyncio.sleep(1)
            continue
        state = r.json()
        ids.append(state["id"])
        path = f"/api/games/{state['id']}"
        while not state["game_over"] and time.monotonic() < end:
            try:
                if state["to_move"] == "ai":
                    t0 = time.monotonic()
                    r = await http.post(path + "/ai-move")
                    if r.status_code == 503:
                        figs.busy += 1
                        wait = float(r.headers.get("Retry-After", "1"))
                        await asyncio.sleep(min(wait, max(0.0, end - time.monotonic())))
                        continue
                    figs.ai.append(time.monotonic() - t0)
                    if r.status_code == 200 and (r.json().get("evaluation") or {}).get("depth"):
                        figs.depths.append(r.json()["evaluation"]["depth"])
                else:
                    move = "pass" if state["must_pass"] else str(rng.choice(state["legal"]))
                    r = await http.post(path + "/move", json={"move": move})
            except httpx.HTTPError as e:
                figs.errors.append(f"{type(e).__name__}: {e}")
                break
            if r.status_code != 200:
                figs.errors.append(f"{r.status_code} {r.text[:100]}")
                break
            state = r.json()


async def reader(http: httpx.AsyncClient, end: float, figs: Figures, ids: list) -> None:
    """One client reading a game's state every 0.1 s."""
    while not ids and time.monotonic() < end:
        await asyncio.sleep(0.1)
    while time.monotonic() < end:
        t0 = time.monotonic()
        try:
            r = await http.get(f"/api/games/{ids[0]}")
            figs.get.append(time.monotonic() - t0)
            if r.status_code != 200:
                figs.errors.append(f"GET {r.status_code}")
        except httpx.HTTPError as e:
            figs.errors.append(f"GET {type(e).__name__}")
        await asyncio.sleep(0.1)


async def load(url: str, clients: int, seconds: float, pid: int) -> tuple[Figures, int]:
    figs, ids = Figures(), []
    limits = httpx.Limits(max_connections=clients + 10)
    async with httpx.AsyncClient(base_url=url, timeout=120, limits=limits) as http:
        end = time.monotonic() + seconds
        peak = 0

        async def memory() -> None:
            nonlocal peak
            while time.monotonic() < end:
                peak = max(peak, tree_rss(pid))
                await asyncio.sleep(1.0)

        await asyncio.gather(
            *(client(http, i, end, figs, ids) for i in range(clients)),
            reader(http, end, figs, ids),
            memory(),
        )
    return figs, max(peak, tree_rss(pid))


def pct(values: list[float], q: float) -> float:
    v = sorted(values)
    return v[min(len(v) - 1, int(q * (len(v) - 1) + 0.5))] if v else float("nan")


def row(label: str, n: int, seconds: float, figs: Figures, rss: int, depth1: float | None) -> str:
    ai, get = figs.ai, figs.get
    depth = statistics.mean(figs.depths) if figs.depths else float("nan")
    rel = f" ({depth / depth1:.2f}x 1 client)" if depth1 else ""
    return (
        f"| {label} | {n} | {pct(ai, 0.5):.2f} / {pct(ai, 0.95):.2f} / {max(ai, default=0):.2f} s "
        f"| {pct(get, 0.5) * 1e3:.0f} / {pct(get, 0.95) * 1e3:.0f} / "
        f"{max(get, default=0) * 1e3:.0f} ms | {len(ai) / seconds * 60:.0f} "
        f"| {depth:.1f}{rel} | {len(figs.errors)} | {figs.busy} of {len(ai) + figs.busy} "
        f"| {rss / 2**30:.2f} GB |"
    )


def games_memory(games: int, workers: int) -> tuple[int, int]:
    """RSS of a fresh server (``workers`` search workers) before and after ``games`` games of 10
    moves each against greedy (the workers' default-opponent players preloaded)."""
    proc, url = start_server(
        None, ["--db", ":memory:", "--search-workers", str(workers), "--max-games", str(games)]
    )
    try:
        with httpx.Client(base_url=url, timeout=120) as http:
            http.get("/api/players")
            time.sleep(5)  # the workers load their players
            before = tree_rss(proc.pid)
            rng = np.random.default_rng(0)
            for _ in range(games):
                state = http.post("/api/games", json={"opponent": "greedy"}).json()
                path = f"/api/games/{state['id']}"
                for _ in range(5):
                    if state["game_over"]:
                        break
                    move = "pass" if state["must_pass"] else str(rng.choice(state["legal"]))
                    state = http.post(path + "/move", json={"move": move}).json()
                    if state["to_move"] == "ai":
                        state = http.post(path + "/ai-move").json()
            return before, tree_rss(proc.pid)
    finally:
        proc.terminate()
        proc.wait(30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--clients", default="1,20,60", help="client counts (default 1,20,60)")
    parser.add_argument("--seconds", type=float, default=40.0, help="load time per count")
    parser.add_argument("--workers", type=int, default=None, help="--search-workers")
    parser.add_argument("--base-src", type=Path, help="the src folder of a base commit")
    parser.add_argument("--memory-games", type=int, default=100)
    parser.add_argument("--write", type=Path, help="write the figures to this markdown file")
    args = parser.parse_args()
    counts = [int(c) for c in args.clients.split(",")]
    load_avg = os.getloadavg()[0]
    lines = []
    servers = [("this commit", None, ["--db", ":memory:"])]
    if args.workers:
        servers[0][2].extend(["--search-workers", str(args.workers)])
    if args.base_src:
        servers.append(("base", args.base_src, []))
    for label, src, extra in servers:
        depth1 = None
        for n in counts:
            proc, url = start_server(src, ["--max-games", "1000", *extra])
            try:
                time.sleep(5)  # workers and kernels load
                figs, rss = asyncio.run(load(url, n, args.seconds, proc.pid))
            finally:
                proc.terminate()
                proc.wait(30)
            if n == 1 and figs.depths:
                depth1 = statistics.mean(figs.depths)
            lines.append(row(label, n, args.seconds, figs, rss, None if n == 1 else depth1))
            print(lines[-1], flush=True)
            if figs.errors:
                print("  first errors:", figs.errors[:3], flush=True)
    before, after = games_memory(args.memory_games, args.workers or os.cpu_count() or 1)
    memory = (
        f"Memory at {args.memory_games} games (this commit, server and search workers): "
        f"{before / 2**20:.0f} MB with no game, {after / 2**20:.0f} MB after "
        f"{args.memory_games} games of 10 moves ({(after - before) / args.memory_games / 2**10:.0f}"
        " KB a game)."
    )
    print(memory)
    head = (
        "| server | clients | `ai-move` p50 / p95 / max | GET p50 / p95 / max | AI moves a "
        "minute | mean depth | errors | 503s of `ai-move` asks | peak memory |\n"
        "|---|---|---|---|---|---|---|---|---|"
    )
    table = head + "\n" + "\n".join(lines)
    if args.write:
        stamp = _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
        text = (
            "## Web board (benchmarks/bench_web.py)\n\n"
            f"Measured {stamp} on {machine()} (a shared 2-core development machine, load "
            f"average {load_avg:.1f} at the start; server, workers and clients share it), "
            f"{args.seconds:g} s of load per row, against the default 8x8 opponent.\n\n"
            + table
            + "\n\n"
            + memory
            + "\n"
        )
        write_section(args.write, "web", text)


if __name__ == "__main__":
    main()
