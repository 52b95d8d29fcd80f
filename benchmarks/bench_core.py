"""Speed of the rules: perft, random games in the kernels and through the Board API, cold import.

Every figure comes with a ratio to a baseline measured in the same run, because the machine is
shared and noisy. Run ``python benchmarks/bench_core.py --write docs/benchmarks.md``.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import math
import os
import platform
import random
import subprocess
import sys
import time
from pathlib import Path

from othellolab import Board
from othellolab.core import board as board_module
from othellolab.core import kernels as k
from othellolab.core.parsing import NumberError, parse_int, parse_number


def machine() -> str:
    """CPU model, core count and Python version of this machine."""
    cpu = platform.processor() or "unknown CPU"
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        text = ""
    flags: set[str] = set()
    for line in text.splitlines():
        if line.startswith("model name") and cpu == (platform.processor() or "unknown CPU"):
            cpu = line.split(":", 1)[1].strip()
        elif line.startswith("flags") and not flags:
            flags = set(line.split(":", 1)[1].split())
    # what decides the networks' speed: AVX-512, and AMX tiles for bfloat16
    units = [name for flag, name in (("avx512f", "AVX-512"), ("amx_bf16", "AMX")) if flag in flags]
    if units:
        cpu += f" ({', '.join(units)})"
    return f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}, {platform.system()}"


WTHOR = Path(__file__).resolve().parents[2] / "shared" / "data" / "wthor"
"""The shared WTHOR folder, the data benchmarks read by default."""


def heldout_midgame(wthor: Path, count: int, seed: int = 1) -> list[Board]:
    """``count`` positions of WTHOR 2023 (held out from every training set) with 20-50 empties
    and a move to play, drawn with ``seed``: the search benchmarks' positions."""
    import numpy as np

    from othellolab.datasets.heldout import load_positions

    x = load_positions([wthor], years="2023", size=8)
    p, o = x.player.astype(np.uint64), x.opponent.astype(np.uint64)
    empties = 64 - k.popcount_batch(p | o)
    live = (empties >= 20) & (empties <= 50) & (k.legal_mask_batch(p, o, 8) != 0)
    rows = np.random.default_rng(seed).choice(np.flatnonzero(live), count, replace=False)
    return [Board.from_bitboards(int(p[i]), int(o[i])) for i in rows]


def best_of(fn, repeat: int = 3) -> float:
    """Smallest wall time of ``repeat`` calls (the least disturbed by other load)."""
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def python_perft(board: Board, depth: int) -> int:
    """Perft through the public Board API: the baseline the kernel is compared with."""
    if depth == 0:
        return 1
    actions = board.legal_actions()
    if not actions:
        return 1
    if depth == 1:
        return len(actions)
    return sum(python_perft(board.play(a), depth - 1) for a in actions)


def board_api_games(n: int, seed: int) -> int:
    """Random games through ``Board.legal_actions`` and ``Board.play`` with Python's RNG."""
    rng = random.Random(seed)
    choice = rng.choice
    plies = 0
    for _ in range(n):
        board = Board()
        actions = board.legal_actions()
        while actions:
            board = board.play(choice(actions))
            actions = board.legal_actions()
            plies += 1
    return plies


def board_api_rate(n: int) -> float:
    """Games per second of ``board_api_games`` (best of 3, after a warm-up)."""
    board_api_games(20, 0)
    return n / best_of(lambda: board_api_games(n, 1))


def numba_path_rate(n: int) -> float:
    """``board_api_rate`` with Board's C fast path off (``OTHELLOLAB_NO_C=1``, a fresh
    process): the Numba kernels' share of the speed."""
    code = (
        f"import sys; sys.path.insert(0, {str(Path(__file__).parent)!r}); "
        f"import bench_core; print(bench_core.board_api_rate({n}))"
    )
    env = {**os.environ, "OTHELLOLAB_NO_C": "1"}
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, check=True, capture_output=True, text=True
    )
    return float(out.stdout.split()[-1])


def openspiel_games(n: int, seed: int) -> float | None:
    """Games per second of OpenSpiel's Othello with Python's RNG, if open_spiel is installed."""
    try:
        import pyspiel  # type: ignore[import-not-found]
    except ImportError:
        return None
    game = pyspiel.load_game("othello")
    rng = random.Random(seed)

    def run() -> None:
        for _ in range(n):
            state = game.new_initial_state()
            while not state.is_terminal():
                state.apply_action(rng.choice(state.legal_actions()))

    return n / best_of(run, 2)


def rust_reversi_games(n: int, seed: int) -> float | None:
    """Games per second of rust-reversi's Board with Python's RNG, if it is installed."""
    try:
        from rust_reversi import Board as RBoard  # type: ignore[import-not-found]
    except ImportError:
        return None
    rng = random.Random(seed)

    def run() -> None:
        for _ in range(n):
            b = RBoard()
            while not b.is_game_over():
                if b.is_pass():
                    b.do_pass()
                else:
                    b.do_move(rng.choice(b.get_legal_moves_vec()))

    return n / best_of(run, 3)  # as many tries as the Board loop gets


def cold_import_seconds() -> tuple[float, float]:
    """(othellolab import + first legal_moves, bare ``import numpy``) in fresh processes."""
    code = "from othellolab import Board; Board().legal_moves"
    subprocess.run([sys.executable, "-c", code], check=True)  # warm the on-disk cache

    def fresh(stmt: str) -> float:
        return best_of(lambda: subprocess.run([sys.executable, "-c", stmt], check=True), 5)

    return fresh(code), fresh("import numpy")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--write", type=Path, help="write the figures to this markdown file")
    parser.add_argument("--quick", action="store_true", help="smaller workloads (smoke test)")
    args = parser.parse_args()

    p, o = k.start_position(8)
    k.perft(p, o, 2)
    k.random_games(1, 0)
    rows: list[tuple[str, str, str]] = []

    # Perft with bulk counting at the last ply, baseline: perft through the Board API.
    depths = (9,) if args.quick else (10, 11)
    base_depth = 4 if args.quick else 5
    python_perft(Board(), 3)
    t_base = best_of(lambda: python_perft(Board(), base_depth), 1)
    base_rate = python_perft(Board(), base_depth) / t_base
    for d in depths:
        leaves = k.perft(p, o, d)
        t = best_of(lambda d=d: k.perft(p, o, d), 1 if d >= 11 else 3)
        rate = leaves / t
        rows.append(
            (
                f"perft({d}), bulk-counted last ply, 1 core",
                f"{rate / 1e6:.0f} M leaves/s ({leaves} leaves in {t:.2f} s)",
                f"{rate / base_rate:,.0f}x perft({base_depth}) through the Board API "
                f"({base_rate / 1e3:.0f} k leaves/s); Edax's C perft ~390 M/s here",
            )
        )

    # Random games in the kernels vs through the Board API.
    n_kernel = 20_000 if args.quick else 200_000
    t = best_of(lambda: k.random_games(n_kernel, 1))
    kernel_rate = n_kernel / t
    n_api = 500 if args.quick else 3_000
    api_rate = board_api_rate(n_api)
    rows.append(
        (
            "random games inside the kernels, 1 core",
            f"{kernel_rate:,.0f} games/s",
            f"{kernel_rate / api_rate:.0f}x the Board API loop below",
        )
    )
    extra = []
    if board_module.USING_C:
        numba_rate = numba_path_rate(n_api)
        extra.append(f"{api_rate / numba_rate:.1f}x the Numba path ({numba_rate:,.0f}/s)")
    os_rate = openspiel_games(max(50, n_api // 10), 1)
    if os_rate:
        extra.append(f"{api_rate / os_rate:.1f}x OpenSpiel ({os_rate:,.0f}/s)")
    rr_rate = rust_reversi_games(n_api, 1)
    if rr_rate:
        extra.append(f"{api_rate / rr_rate:.2f}x rust-reversi ({rr_rate:,.0f}/s)")
    rows.append(
        (
            "random games through Board.legal_actions/play, Python RNG, "
            + ("C fast path" if board_module.USING_C else "Numba path (no C build)"),
            f"{api_rate:,.0f} games/s",
            ", ".join(extra)
            or "OpenSpiel and rust-reversi not installed (pip install -e '.[bench]')",
        )
    )

    cold, numpy_only = cold_import_seconds()
    rows.append(
        (
            "cold import + first Board().legal_moves, warm cache",
            f"{cold:.2f} s",
            f"{cold / numpy_only:.1f}x a bare `import numpy` ({numpy_only:.2f} s)",
        )
    )

    stamp = _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        "| benchmark | figure | ratio to a baseline in the same run |",
        "|---|---|---|",
        *[f"| {a} | {b} | {c} |" for a, b, c in rows],
    ]
    table = "\n".join(lines)
    print(table)
    if args.write:
        header = (
            f"## Core rules (`make bench`, benchmarks/bench_core.py)\n\n"
            f"Measured {stamp} on {machine()}.\n\n"
        )
        write_section(args.write, "core", header + table + "\n")


def int_arg(lo: int, hi: int):
    """An argparse ``type`` reading a whole number in ``lo..hi`` (``core.parsing.parse_int``);
    anything else is a usage error naming the option, not a traceback."""

    def read(text: str) -> int:
        try:
            return parse_int(text, lo=lo, hi=hi, what="value")
        except NumberError as e:
            raise argparse.ArgumentTypeError(str(e)) from None

    return read


def float_arg(lo: float, hi: float):
    """An argparse ``type`` reading a finite number in ``lo..hi`` (nan, inf and other scripts'
    digits refused)."""

    def read(text: str) -> float:
        value = parse_number(text)
        if value is None or not math.isfinite(value) or not lo <= value <= hi:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number in {lo:g}..{hi:g}")
        return float(value)

    return read


def write_section(path: Path, name: str, body: str) -> None:
    """Replace (or append) the section between ``<!-- bench:NAME -->`` markers, atomically."""
    start, end = f"<!-- bench:{name} -->", f"<!-- /bench:{name} -->"
    text = (
        path.read_text()
        if path.exists()
        else "# Benchmarks\n\nLatest figures; every figure has a ratio to a baseline measured in the same run.\n"
    )
    block = f"{start}\n{body}{end}"
    if start in text and end in text:
        before, rest = text.split(start, 1)
        text = before + block + rest.split(end, 1)[1]
    else:
        text = text.rstrip("\n") + "\n\n" + block + "\n"
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


if __name__ == "__main__":
    main()
