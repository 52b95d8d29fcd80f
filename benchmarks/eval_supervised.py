"""Evaluate a trained policy/value network: move prediction on held-out games, speed, and
playing strength.

- Prediction on a dataset split (by default the 2023 test split of
  ``othellolab dataset build ../shared/data/wthor --out datasets/wthor-y2023 --split year
  --split-years train=1977-2021,val=2022,test=2023 --no-passes``): top-1/top-3 accuracy of the
  move played among legal moves, its cross-entropy against a uniform choice's, value MSE
  against the game result, and top-1 by game phase (10 empties per bucket).
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
import torch.nn.functional as F
from bench_core import machine, write_section

from othellolab.arena import play_match, read_openings
from othellolab.core import kernels as _k
from othellolab.datasets.shards import open_arrays
from othellolab.nn.inference import NetworkEvaluator
from othellolab.nn.io import load_model
from othellolab.nn.pretrained import model_dir
from othellolab.players import make_player
from othellolab.training.data import DatasetSource

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
OPPONENTS = (
    "random",
    "greedy",
    "alphabeta:depth=1,endgame=0",
    "alphabeta:depth=2,endgame=0",
    "alphabeta:depth=3,endgame=0",
)


def prediction(model_path: Path, dataset: Path, split: str, rows: int) -> dict:
    """Top-1/top-3, cross-entropies and value MSE over the split, and top-1 per phase."""
    model, info = load_model(model_path)
    model.eval()
    src = DatasetSource(dataset, split, planes=info.config.planes, max_rows=rows)
    raw = open_arrays(dataset, split)
    n = len(src)
    empties = 64 - _k.popcount_batch(raw["p"][:n] | raw["o"][:n])
    hit1 = np.zeros(n, dtype=bool)
    hit3 = np.zeros(n, dtype=bool)
    ce = np.zeros(n)
    uni = np.zeros(n)
    sq = np.zeros(n)
    start = 0
    with torch.inference_mode():
        for b in src.batches(1024, np.random.default_rng(0), augment=False, shuffle=False):
            k = len(b["value"])
            logits, value = model(torch.from_numpy(b["planes"]))[:2]
            legal = torch.from_numpy(b["legal"])
            logits = logits.masked_fill(~legal, float("-inf"))
            target = torch.from_numpy(b["policy"]).argmax(dim=1)
            sl = slice(start, start + k)
            hit1[sl] = (logits.argmax(dim=1) == target).numpy()
            hit3[sl] = (logits.topk(3, dim=1).indices == target[:, None]).any(dim=1).numpy()
            logp = F.log_softmax(logits, dim=1)
            ce[sl] = -logp.gather(1, target[:, None])[:, 0].numpy()
            uni[sl] = np.log(b["legal"].sum(axis=1))
            sq[sl] = (value.float().numpy() - b["value"]) ** 2
            start += k
    phases = []
    for lo in range(0, 60, 10):
        sel = (empties > lo) & (empties <= lo + 10)
        if sel.any():
            phases.append((lo + 1, lo + 10, int(sel.sum()), float(hit1[sel].mean())))
    games = len(np.unique(np.asarray(raw["game"][:n])))
    return {
        "rows": n,
        "games": games,
        "top1": float(hit1.mean()),
        "top3": float(hit3.mean()),
        "ce": float(ce.mean()),
        "uniform_ce": float(uni.mean()),
        "uniform_top1": float(np.mean(1.0 / np.asarray(src.batch(np.arange(n))["legal"]).sum(1))),
        "value_mse": float(sq.mean()),
        "phases": phases,
    }


def infer_rate(evaluator: NetworkEvaluator, p: np.ndarray, o: np.ndarray, batch: int) -> float:
    """Positions per second through the evaluator at a fixed batch size, for ~3 s."""
    evaluator.evaluate(p[:batch], o[:batch], 8)
    n, i, t0 = 0, 0, time.perf_counter()
    while time.perf_counter() - t0 < 3.0:
        j = (i * batch) % (len(p) - batch)
        evaluator.evaluate(p[j : j + batch], o[j : j + batch], 8)
        n += batch
        i += 1
    return n / (time.perf_counter() - t0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, default=None, help="model dir (default: shipped)")
    parser.add_argument("--dataset", type=Path, default=ROOT / "datasets" / "wthor-y2023")
    parser.add_argument("--split", default="test")
    parser.add_argument("--rows", type=int, default=0, help="cap on rows (0 = all)")
    parser.add_argument("--games", type=int, default=200, help="games per opponent")
    parser.add_argument("--openings", type=Path, default=DATA / "xot" / "openingssmall.txt")
    parser.add_argument("--write", type=Path, help="write a section into this markdown file")
    args = parser.parse_args()
    torch.set_num_threads(1)
    path = args.model or model_dir()

    t0 = time.perf_counter()
    m = prediction(path, args.dataset, args.split, args.rows)
    print(
        f"{m['rows']} positions of {m['games']} games ({args.split}): top-1 {m['top1']:.3f} "
        f"(uniform {m['uniform_top1']:.3f}) top-3 {m['top3']:.3f} CE {m['ce']:.3f} "
        f"(uniform {m['uniform_ce']:.3f}) value MSE {m['value_mse']:.3f} "
        f"[{time.perf_counter() - t0:.0f} s]"
    )
    for lo, hi, k, acc in m["phases"]:
        print(f"  empties {lo:2d}-{hi:2d}: {k:7d} positions, top-1 {acc:.3f}")

    raw = open_arrays(args.dataset, args.split)
    p = np.ascontiguousarray(raw["p"][:20000])
    o = np.ascontiguousarray(raw["o"][:20000])
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
        phase_rows = "".join(
            f"| {lo}-{hi} | {k:,} | {acc:.3f} |\n" for lo, hi, k, acc in m["phases"]
        )
        match_rows = "".join(
            f"| `{opp}` | {w} | {d} | {lo} | {s:.1%} | {dd:+.1f} |\n"
            for opp, w, d, lo, s, dd, _ in matches
        )
        body = (
            f"## Shipped network (`{path.name}`)\n\n"
            f"{_dt.date.today()}, {machine()}, torch {torch.__version__}, 1 thread; "
            f"`python benchmarks/eval_supervised.py --write docs/benchmarks.md`.\n\n"
            f"Held-out {args.split} split of `{args.dataset.name}`: {m['rows']:,} positions of "
            f"{m['games']:,} games. top-1 {m['top1']:.3f} (uniform among legal moves "
            f"{m['uniform_top1']:.3f}), top-3 {m['top3']:.3f}, policy CE {m['ce']:.3f} "
            f"(uniform {m['uniform_ce']:.3f}), value MSE {m['value_mse']:.3f}.\n\n"
            "| empties | positions | top-1 |\n|---|---:|---:|\n" + phase_rows + "\n"
            f"Inference (`NetworkEvaluator`, cache off): batch 1 {b1:,.0f} positions/s, "
            f"batch 256 {b256:,.0f} positions/s.\n\n"
            f"`policy` (argmax) against each opponent, {args.games} games, XOT openings "
            f"(`{args.openings.name}`), colours alternated:\n\n"
            "| opponent | wins | draws | losses | score | mean disc diff |\n"
            "|---|---:|---:|---:|---:|---:|\n" + match_rows
        )
        write_section(args.write, "supervised-eval", body)


if __name__ == "__main__":
    main()
