"""Speed of dataset building and batch loading, with baselines measured in the same run.

- Full build of every WTHOR year (default options), and the replay kernel against a naive
  per-move replay through ``Board.play`` on a subset of the same games.
- A shuffled, symmetry-augmented batch of 1024 positions through ``DatasetSplit.batch``
  against a per-item loop (``Board`` -> ``encode_board`` -> ``transform_planes``).

Run ``python benchmarks/bench_datasets.py --write docs/benchmarks.md`` (section ``datasets``).
"""

from __future__ import annotations

import argparse
import datetime as _dt
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_core import best_of, machine, write_section

from othellolab import Board
from othellolab.core.features import (
    FeatureSpec,
    encode_board,
    policy_size,
    transform_action,
    transform_planes,
)
from othellolab.datasets.batches import BatchSampler, DatasetSplit
from othellolab.datasets.build import build_dataset
from othellolab.datasets.replay import replay_games
from othellolab.datasets.sources import read_wtb_arrays
from othellolab.records.wthor import read_wtb

DATA = (
    Path(
        os.environ.get(
            "OTHELLOLAB_DATA", Path(__file__).resolve().parent.parent.parent / "shared" / "data"
        )
    )
    / "wthor"
)


def naive_replay(games: list[tuple[int, ...]]) -> int:
    """Rows of the games replayed move by move through ``Board.play`` (the baseline)."""
    rows = 0
    for moves in games:
        board = Board()
        out = []
        for sq in moves:
            if board.must_pass():
                out.append((board.player, board.opponent, board.turn, 64))
                board = board.play_pass()
            out.append((board.player, board.opponent, board.turn, sq))
            board = board.play(sq)
        rows += len(out)
    return rows


def naive_batch(arrays: DatasetSplit, idx: np.ndarray, syms: np.ndarray, spec: FeatureSpec) -> None:
    """A batch built item by item: Board, planes, symmetry, one-hot policy, then stacked."""
    p, o, move = arrays.arrays["p"], arrays.arrays["o"], arrays.arrays["move"]
    planes, policies = [], []
    for i, s in zip(idx.tolist(), syms.tolist(), strict=True):
        board = Board.from_bitboards(int(p[i]), int(o[i]))
        planes.append(transform_planes(encode_board(board, spec), s))
        pol = np.zeros(policy_size(8), dtype=np.float32)
        pol[transform_action(int(move[i]), s)] = 1
        policies.append(pol)
    np.stack(planes)
    np.stack(policies)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--write", type=Path, help="write the figures to this markdown file")
    parser.add_argument("--data", type=Path, default=DATA, help="folder of WTH_*.wtb files")
    parser.add_argument("--quick", action="store_true", help="fewer repeats (smoke test)")
    args = parser.parse_args()
    files = sorted(args.data.glob("WTH_*.wtb"))
    if not files:
        sys.exit(f"no WTH_*.wtb files in {args.data}")
    rows: list[tuple[str, str, str]] = []
    work = Path(tempfile.mkdtemp(prefix="bench_datasets_"))
    try:
        # Warm the JIT caches with a tiny build so that the timings below exclude compilation.
        build_dataset(files[:1], work / "warm", progress=False)
        build_dataset(files[:1], work / "warm_d", dedup=True, symmetries=True, progress=False)

        t0 = time.perf_counter()
        report = build_dataset(files, work / "full", progress=False)
        t_full = time.perf_counter() - t0
        c = report.manifest["counts"]

        sample = args.data / "WTH_2004.wtb"
        ga = read_wtb_arrays(sample)
        t_kernel = best_of(lambda: replay_games(ga), 1 if args.quick else 3)
        kernel_rate = len(replay_games(ga).p) / t_kernel
        subset = [g.moves for g in list(read_wtb(sample))[: 300 if args.quick else 1500]]
        t_naive = best_of(lambda: naive_replay(subset), 1)
        naive_rate = naive_replay(subset) / t_naive
        rows.append(
            (
                f"full build, all {len(files)} WTHOR years, default options (hash split, passes)",
                f"{t_full:.1f} s for {c['games']:,} games, {c['rows']:,} rows "
                f"({c['rows'] / t_full / 1e6:.2f} M rows/s end to end)",
                f"naive Board.play replay alone would take ~{c['rows'] / naive_rate:.0f} s",
            )
        )
        rows.append(
            (
                "replay kernel (count + fill), WTH_2004.wtb",
                f"{kernel_rate / 1e6:.1f} M rows/s",
                f"{kernel_rate / naive_rate:.0f}x a per-move Board.play replay "
                f"({naive_rate / 1e3:.0f} k rows/s, {len(subset)} games)",
            )
        )

        t0 = time.perf_counter()
        dreport = build_dataset(files, work / "dedup", dedup=True, progress=False)
        t_dedup = time.perf_counter() - t0
        rows.append(
            (
                "full build with dedup",
                f"{t_dedup:.1f} s: {dreport.manifest['counts']['rows']:,} unique positions",
                f"{t_dedup / t_full:.1f}x the plain build",
            )
        )

        for planes in (("player", "opponent"), ("player", "opponent", "legal", "empty")):
            spec = FeatureSpec(planes=planes)
            arrays = DatasetSplit(work / "full", "train", spec=spec)
            sampler = BatchSampler(len(arrays), 1024, seed=0)
            batches = list(sampler)[:200]
            for a in arrays.arrays.values():
                a.sum()  # fault the memory-mapped pages in: the steady state of training
            arrays.batch(*batches[0])
            per_batch = []
            for idx, syms in batches:
                t0 = time.perf_counter()
                arrays.batch(idx, syms)
                per_batch.append(time.perf_counter() - t0)
            t_batch = float(np.median(per_batch))
            t_min = float(np.min(per_batch))
            n_naive = 3 if args.quick else 10
            naive_batch(arrays, *batches[0], spec)
            t0 = time.perf_counter()
            for idx, syms in batches[:n_naive]:
                naive_batch(arrays, idx, syms, spec)
            t_nb = (time.perf_counter() - t0) / n_naive
            rows.append(
                (
                    f"shuffled augmented batch of 1024, {len(planes)} planes + policy, "
                    f"{len(arrays):,}-row memory-mapped split",
                    f"{t_batch * 1e3:.3f} ms/batch median of {len(batches)} "
                    f"(best {t_min * 1e3:.3f} ms)",
                    f"{t_nb / t_batch:.0f}x a per-item Board/encode_board/transform loop "
                    f"({t_nb * 1e3:.0f} ms)",
                )
            )
    finally:
        shutil.rmtree(work, ignore_errors=True)

    stamp = _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    table = "\n".join(
        [
            "| benchmark | figure | ratio to a baseline in the same run |",
            "|---|---|---|",
            *[f"| {a} | {b} | {c} |" for a, b, c in rows],
        ]
    )
    print(table)
    if args.write:
        header = (
            "## Datasets (benchmarks/bench_datasets.py)\n\n"
            f"Measured {stamp} on {machine()} (machine shared with other jobs).\n\n"
        )
        args.write.parent.mkdir(parents=True, exist_ok=True)
        write_section(args.write, "datasets", header + table + "\n")


if __name__ == "__main__":
    main()
