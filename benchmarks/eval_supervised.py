"""Evaluate a trained policy/value network: move prediction on held-out games, speed, and
playing strength.

- Prediction on held-out games (by default all of WTHOR 2023; a dataset folder with
  ``--data DIR --split test`` works too), computed by ``othellolab.measure.model`` as
  ``othellolab evaluate model`` does: top-1/top-3 accuracy of the move played among legal
  moves, its cross-entropy against a uniform choice's, value MSE against the game result, and
  top-1 by game phase (10 empties per bucket).
- Inference positions/s through ``NetworkEvaluator`` (cache off) at batch 1 and 256.
- The ``policy`` player against random, greedy and ``alphabeta:depth=d,endgame=0`` on XOT
  openings, colours alternated.

``python benchmarks/eval_supervised.py --write docs/benchmarks.md`` (a few minutes).
"""

from __future__ import annotations

import argparse
import datetime as _dt
import time
from pathlib import Path

import numpy as np
import torch
from bench_core import int_arg, machine, write_section

from othellolab.arena import play_match, read_openings
from othellolab.core import ConfigError
from othellolab.core.games import get_game
from othellolab.datasets.heldout import load_positions
from othellolab.measure.model import measure_model
from othellolab.nn.inference import NetworkEvaluator
from othellolab.nn.pretrained import resolve
from othellolab.players import make_player

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
OPPONENTS = (
    "random:seed=1",
    "greedy:seed=1",
    "alphabeta:depth=1,endgame=0",
    "alphabeta:depth=2,endgame=0",
    "alphabeta:depth=3,endgame=0",
)


def infer_rate(evaluator: NetworkEvaluator, p: np.ndarray, o: np.ndarray, batch: int) -> float:
    """Positions per second through the evaluator at a fixed batch size, for ~3 s."""
    evaluator.evaluate(p[:batch], o[:batch], get_game("othello"))
    n, i, t0 = 0, 0, time.perf_counter()
    while time.perf_counter() - t0 < 3.0:
        j = (i * batch) % (len(p) - batch)
        evaluator.evaluate(p[j : j + batch], o[j : j + batch], get_game("othello"))
        n += batch
        i += 1
    return n / (time.perf_counter() - t0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--model", default=None, help="model dir or shipped name (default: the default model)"
    )
    parser.add_argument(
        "--data",
        type=Path,
        default=DATA / "wthor",
        help="a dataset folder (with --split) or a WTHOR folder (with --years)",
    )
    parser.add_argument("--split", default="test")
    parser.add_argument("--years", default="2023", help="held-out WTHOR years")
    parser.add_argument("--games", type=int_arg(1, 100_000), default=200, help="games per opponent")
    parser.add_argument("--openings", type=Path, default=DATA / "xot" / "openingssmall.txt")
    parser.add_argument("--write", type=Path, help="write a section into this markdown file")
    args = parser.parse_args()
    try:
        path = resolve(args.model)
    except ConfigError as e:
        parser.error(str(e))
    torch.set_num_threads(1)

    t0 = time.perf_counter()
    pos = load_positions([args.data], split=args.split, years=args.years)
    metrics = measure_model(path, pos, progress=False).metrics
    m = metrics["overall"]
    phases = [
        (p["empties"][0], p["empties"][1], p["positions"], p["top1"]) for p in metrics["phases"]
    ]
    is_dataset = (args.data / "manifest.json").is_file()
    held_out = f"{args.data.name}, {args.split} split" if is_dataset else f"WTHOR {args.years}"
    print(
        f"{m['positions']} positions of {pos.games} games: top-1 {m['top1']:.3f} "
        f"(uniform {m['uniform_top1']:.3f}) top-3 {m['top3']:.3f} CE {m['policy_ce']:.3f} "
        f"(uniform {m['uniform_ce']:.3f}) value MSE {m['value_mse']:.3f} "
        f"[{time.perf_counter() - t0:.0f} s]"
    )
    for lo, hi, k, acc in phases:
        print(f"  empties {lo:2d}-{hi:2d}: {k:7d} positions, top-1 {acc:.3f}")

    placing = pos.move < 64
    p, o = pos.player[placing][:20000], pos.opponent[placing][:20000]
    ev = NetworkEvaluator.from_dir(path, cache_size=0)
    b1, b256 = infer_rate(ev, p, o, 1), infer_rate(ev, p, o, 256)
    print(f"inference: batch 1 {b1:.0f} pos/s, batch 256 {b256:.0f} pos/s")

    openings = read_openings(args.openings)
    spec = f"policy:model={path}"
    matches = []
    for opp in OPPONENTS:
        t0 = time.perf_counter()
        r = play_match(make_player(spec), make_player(opp), games=args.games, openings=openings)
        secs = time.perf_counter() - t0
        score = (r.wins + 0.5 * r.draws) / args.games
        matches.append((opp, r.wins, r.draws, r.losses, score, r.disc_diff / args.games, secs))
        print(f"policy vs {opp}: +{r.wins} ={r.draws} -{r.losses} ({score:.1%}) [{secs:.0f} s]")

    if args.write:
        phase_rows = "".join(f"| {lo}-{hi} | {k:,} | {acc:.3f} |\n" for lo, hi, k, acc in phases)
        match_rows = "".join(
            f"| `{opp}` | {w} | {d} | {lo} | {s:.1%} | {dd:+.1f} |\n"
            for opp, w, d, lo, s, dd, _ in matches
        )
        body = (
            f"## Network `{path.name}`\n\n"
            f"{_dt.date.today()}, {machine()}, torch {torch.__version__}, 1 thread; "
            f"`python benchmarks/eval_supervised.py --write docs/benchmarks.md`.\n\n"
            f"Held-out games ({held_out}): {m['positions']:,} positions of "
            f"{pos.games:,} games. top-1 {m['top1']:.3f} (uniform among legal moves "
            f"{m['uniform_top1']:.3f}), top-3 {m['top3']:.3f}, policy CE {m['policy_ce']:.3f} "
            f"(uniform {m['uniform_ce']:.3f}), value MSE {m['value_mse']:.3f}.\n\n"
            "| empties | positions | top-1 |\n|---|---:|---:|\n" + phase_rows + "\n"
            f"Inference (`NetworkEvaluator`, cache off): batch 1 {b1:,.0f} positions/s, "
            f"batch 256 {b256:,.0f} positions/s.\n\n"
            f"`policy` (argmax) against each opponent, {args.games} games, XOT openings "
            f"(`{args.openings.name}`), colours alternated:\n\n"
            "| opponent | wins | draws | losses | score | mean disc diff |\n"
            "|---|---:|---:|---:|---:|---:|\n" + match_rows
        )
        write_section(args.write, f"supervised-eval-{path.name}", body)


if __name__ == "__main__":
    main()
