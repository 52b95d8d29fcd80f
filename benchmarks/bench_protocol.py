"""What the game protocol costs Othello's self-play: this tree against a commit from before it.

The protocol (``core.games``) hands the search kernels a game's rules as the addresses of
its compiled kernels (one indirect call per expansion) and sends the self-play engine's rules
through a ``Game``. This benchmark checks out the baseline
commit (default: the one before the protocol) into a temporary git worktree and plays the
same self-play workload with both trees in alternating subprocesses (the same Python, the
same installed packages, one core each, the best of ``--rounds``): the ratio of their
positions per second is the protocol's cost. Two workloads: the blind ``UniformEvaluator``
(the engine and tree alone, the worst case) and an untrained b4c32 network at its float32
precision (the cost as self-play sees it).

Run ``python benchmarks/bench_protocol.py --write docs/benchmarks.md`` on a quiet machine.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from bench_core import machine, write_section

BASELINE = "91cb003"
"""The last commit before the game protocol."""

WORKLOAD = r"""
import json, sys, time
import torch
torch.set_num_threads(1)
from othellolab.players.evaluators import UniformEvaluator
from othellolab.training.selfplay import SelfPlayConfig, play_games
kind, games = sys.argv[1], int(sys.argv[2])
if kind == "network":
    from othellolab.nn.config import model_config
    from othellolab.nn.inference import NetworkEvaluator
    from othellolab.nn.models import build_model
    torch.manual_seed(0)
    ev = NetworkEvaluator(build_model(model_config("resnet-b4c32", size=6)), cache_size=0)
else:
    ev = UniformEvaluator()
cfg = SelfPlayConfig(simulations=32, parallel=128, resign_threshold=-1.0, seed=0, score_value=1.0)
play_games(ev, 8, game="othello6", config=SelfPlayConfig(simulations=4, seed=1))
t = time.perf_counter()
r = play_games(ev, games, game="othello6", config=cfg)
print(json.dumps({"positions": len(r), "seconds": time.perf_counter() - t}))
"""


def run(tree: Path, kind: str, games: int) -> float:
    """Positions per second of one workload in a fresh process importing ``tree``."""
    env = {**os.environ, "PYTHONPATH": str(tree / "src"), "OMP_NUM_THREADS": "1"}
    out = subprocess.run(
        [sys.executable, "-c", WORKLOAD, kind, str(games)],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    data = json.loads(out.strip().splitlines()[-1])
    return data["positions"] / data["seconds"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--baseline", default=BASELINE, help="commit to compare with")
    parser.add_argument("--rounds", type=int, default=5, help="alternations (best of)")
    parser.add_argument("--write", type=Path, help="write the figures to this markdown file")
    args = parser.parse_args()
    here = Path(__file__).resolve().parent.parent
    rows = []
    with tempfile.TemporaryDirectory(prefix="othellolab-baseline-") as tmp:
        base = Path(tmp) / "tree"
        subprocess.run(
            ["git", "-C", str(here), "worktree", "add", "--detach", str(base), args.baseline],
            check=True,
            capture_output=True,
        )
        try:
            for kind, games in (("uniform", 128), ("network", 128)):
                best = {"baseline": 0.0, "protocol": 0.0}
                for _ in range(args.rounds):
                    best["baseline"] = max(best["baseline"], run(base, kind, games))
                    best["protocol"] = max(best["protocol"], run(here, kind, games))
                ratio = best["protocol"] / best["baseline"]
                rows.append(
                    (
                        f"Othello 6x6 self-play, 32 simulations, {kind} evaluator",
                        f"{best['protocol']:,.0f} positions/s through the protocol",
                        f"{ratio:.3f}x the baseline {args.baseline} "
                        f"({best['baseline']:,.0f} positions/s), best of {args.rounds}",
                    )
                )
                print(rows[-1], flush=True)
        finally:
            subprocess.run(
                ["git", "-C", str(here), "worktree", "remove", "--force", str(base)],
                check=False,
                capture_output=True,
            )
    table = "\n".join(
        [
            "| benchmark | figure | ratio to the baseline in the same run |",
            "|---|---|---|",
            *[f"| {a} | {b} | {c} |" for a, b, c in rows],
        ]
    )
    print(table)
    if args.write:
        stamp = _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
        header = (
            "## The game protocol's cost (benchmarks/bench_protocol.py)\n\n"
            f"Measured {stamp} on {machine()}, one core per process, alternating processes.\n\n"
        )
        write_section(args.write, "protocol", header + table + "\n")


if __name__ == "__main__":
    main()
