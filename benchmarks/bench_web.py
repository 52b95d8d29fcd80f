"""The web board under load (issue 64's table): N simulated clients, each playing games against
the default 8x8 opponent through a real ``othellolab serve`` (a human move, then ``ai-move``,
and again), plus one reader polling a game's state every 0.1 s; the clients are one light
asyncio process. For each N: ``ai-move`` and plain GET latency (p50/p95/max), AI moves done
per minute, each search's time and node rate (median over the moves searched for 0.5 s or
more, not the book's) against the single-client figure, the mean depth, errors, 503s (the
client waits ``Retry-After`` and asks again), and the peak memory of the server and workers.

With ``--base-src DIR`` (a ``src`` folder of an older commit, e.g. from ``git archive``) the
same load runs against that server too, in the same run (``--base-args`` adds to its command
line). The simulated clients share one address, so this commit's server runs with the per-client
limits lifted (``LIFTS``); ``--server-args`` adds more (``--max-queue 20 --max-wait 5`` measures
the refusals). ``--soak MINUTES`` then plays ``--soak-clients`` clients for that long against
a server keeping its games in a SQLite file, sampling its memory every 10 s, and reports the
growth. ``--write docs/benchmarks.md`` writes the ``web`` section.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as _dt
import os
import re
import shlex
import statistics
import subprocess
import sys
import tempfile
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


LIFTS = ["--max-games-per-client", "10000", "--rate-limit", "10000", "--rate-burst", "100000"]
"""Per-client limits lifted: every simulated client comes from 127.0.0.1."""


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
        self.rates: list[float] = []
        self.searched: list[float] = []
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
                    ev = (r.json().get("evaluation") or {}) if r.status_code == 200 else {}
                    if ev.get("depth"):
                        figs.depths.append(ev["depth"])
                    if (
                        ev.get("nodes") and (ev.get("seconds") or 0) >= 0.5
                    ):  # a search, not the book
                        figs.rates.append(ev["nodes"] / ev["seconds"])
                        figs.searched.append(ev["seconds"])
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


def row(label: str, n: int, seconds: float, figs: Figures, rss: int, rate1: float | None) -> str:
    ai, get = figs.ai, figs.get
    depth = statistics.mean(figs.depths) if figs.depths else float("nan")
    rate = statistics.median(figs.rates) if figs.rates else float("nan")
    rel = f" ({rate / rate1:.2f}x 1 client)" if rate1 else ""
    return (
        f"| {label} | {n} | {pct(ai, 0.5):.2f} / {pct(ai, 0.95):.2f} / {max(ai, default=0):.2f} s "
        f"| {pct(get, 0.5) * 1e3:.0f} / {pct(get, 0.95) * 1e3:.0f} / "
        f"{max(get, default=0) * 1e3:.0f} ms | {len(ai) / seconds * 60:.0f} "
        f"| {pct(figs.searched, 0.5):.2f} s, {rate / 1e6:.2f} M nodes/s{rel} | {depth:.1f} "
        f"| {len(figs.errors)} | {figs.busy} of {len(ai) + figs.busy} | {rss / 2**30:.2f} GB |"
    )


def games_memory(games: int, workers: int) -> tuple[int, int]:
    """RSS of a fresh server (``workers`` search workers) before and after ``games`` games of 10
    moves each against greedy (the workers' default-opponent players preloaded)."""
    proc, url = start_server(
        None,
        ["--db", ":memory:", "--search-workers", str(workers), "--max-games", str(games), *LIFTS],
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


def soak(minutes: float, clients: int, extra: list[str]) -> str:
    """Play ``clients`` clients for ``minutes`` against a server that keeps its games in a SQLite
    file (default ``--max-games``), sampling the memory of the server and its workers every 10 s;
    the growth from the end of the first tenth of the time to the end, and the slope of a line
    fitted to the samples after that first tenth."""
    with tempfile.TemporaryDirectory() as folder:
        proc, url = start_server(None, ["--db", str(Path(folder) / "soak.sqlite3"), *extra])
        samples: list[tuple[float, int]] = []
        try:
            time.sleep(5)
            t0 = time.monotonic()

            async def run() -> Figures:
                figs, ids = Figures(), []
                limits = httpx.Limits(max_connections=clients + 10)
                async with httpx.AsyncClient(base_url=url, timeout=120, limits=limits) as http:
                    end = time.monotonic() + minutes * 60

                    async def memory() -> None:
                        while time.monotonic() < end:
                            samples.append((time.monotonic() - t0, tree_rss(proc.pid)))
                            print(
                                f"  soak {samples[-1][0] / 60:5.1f} min "
                                f"{samples[-1][1] / 2**20:6.0f} MB",
                                flush=True,
                            )
                            await asyncio.sleep(10.0)

                    await asyncio.gather(
                        *(client(http, i, end, figs, ids) for i in range(clients)),
                        reader(http, end, figs, ids),
                        memory(),
                    )
                return figs

            figs = asyncio.run(run())
        finally:
            proc.terminate()
            proc.wait(30)
    warm = [(t, m) for t, m in samples if t >= minutes * 6]
    ts = np.array([t for t, _ in warm]) / 600
    ms = np.array([m for _, m in warm]) / 2**20
    slope = float(np.polyfit(ts, ms, 1)[0]) if len(warm) > 2 else float("nan")
    return (
        f"A {minutes:g}-minute soak at {clients} clients (server and workers, games kept in a "
        f"SQLite file, default `--max-games`): {ms[0]:.0f} MB after {minutes * 6 / 60:.0f} min, "
        f"{ms[-1]:.0f} MB at the end, {ms.max():.0f} MB at most; a line through the samples "
        f"after the first tenth rises {slope:+.1f} MB per 10 minutes. {len(figs.ai)} AI moves, "
        f"GET p95 {pct(figs.get, 0.95) * 1e3:.0f} ms, {len(figs.errors)} errors, "
        f"{figs.busy} 503s."
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--clients", default="1,20,60", help="client counts (default 1,20,60)")
    parser.add_argument("--seconds", type=float, default=40.0, help="load time per count")
    parser.add_argument("--workers", type=int, default=None, help="--search-workers")
    parser.add_argument("--base-src", type=Path, help="the src folder of a base commit")
    parser.add_argument("--memory-games", type=int, default=100)
    parser.add_argument("--write", type=Path, help="write the figures to this markdown file")
    parser.add_argument("--server-args", default="", help="more `serve` options (this commit)")
    parser.add_argument("--base-args", default="", help="more `serve` options for the base")
    parser.add_argument(
        "--tight-args",
        default="",
        help="one more row at the largest client count with these `serve` options added "
        "(e.g. '--max-wait 10': the refusals)",
    )
    parser.add_argument("--soak", type=float, default=0.0, help="minutes of soak (0: none)")
    parser.add_argument("--soak-clients", type=int, default=60)
    args = parser.parse_args()
    counts = [int(c) for c in args.clients.split(",")]
    load_avg = os.getloadavg()[0]
    lines = []
    mine = ["--db", ":memory:", *LIFTS, *shlex.split(args.server_args)]
    if args.workers:
        mine += ["--search-workers", str(args.workers)]
    servers = [("this commit", None, mine)]
    if args.base_src:
        servers.append(("base", args.base_src, shlex.split(args.base_args)))
    if args.tight_args:
        tight = shlex.split(args.tight_args)
        servers.insert(1, (f"this commit, `{args.tight_args}`", None, [*mine, *tight]))
    rate1 = None
    for label, src, extra in servers:
        tight = label.startswith("this commit, ")
        rate1 = rate1 if tight else None  # the tight row compares with this commit's 1 client
        for n in counts[-1:] if tight else counts:
            proc, url = start_server(src, ["--max-games", "1000", *extra])
            try:
                time.sleep(5)  # workers and kernels load
                figs, rss = asyncio.run(load(url, n, args.seconds, proc.pid))
            finally:
                proc.terminate()
                proc.wait(30)
            if n == 1 and figs.rates:
                rate1 = statistics.median(figs.rates)
            lines.append(row(label, n, args.seconds, figs, rss, None if n == 1 else rate1))
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
    if args.soak:
        memory += "\n\n" + soak(
            args.soak, args.soak_clients, [*LIFTS, *shlex.split(args.server_args)]
        )
        print(memory)
    head = (
        "| server | clients | `ai-move` p50 / p95 / max | GET p50 / p95 / max | AI moves a "
        "minute | a search: median time, node rate | mean depth | errors | 503s of `ai-move` "
        "asks | peak memory |\n"
        "|---|---|---|---|---|---|---|---|---|---|"
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
