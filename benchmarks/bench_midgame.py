"""The midgame search's node rate and time to a fixed depth against a base commit's tree, runs
alternating in fresh processes (base, new, base, new, ...) because the machine is shared.

    git archive BASE src | tar -x -C /tmp/base   # plus the built core/*.so files
    python benchmarks/bench_midgame.py --base-src /tmp/base/src --runs 5

Each run searches the same WTHOR 2004 positions (``bench_search.midgame_positions``) with the
default player's evaluation (``patterns-r1``), to ``--depth`` with ProbCut 1.5 (its fit) and to
``--plain-depth`` without, a fresh 2^20 table each, and reports its CPU seconds (process time:
what another job on the machine takes does not count). The node counts, scores and moves must
be the base's: a speed-up is then speed, not pruning. The figure is the median over the runs;
the ratio is the median of each adjacent pair's ratio.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
_CHILD = "OTHELLOLAB_BENCH_MIDGAME_CHILD"


def child(
    depth: int, plain_depth: int, positions: int, fit_dir: str | None, weights: str | None
) -> None:
    """One run in this process (its ``othellolab`` is whichever ``PYTHONPATH`` gives): print
    a JSON line with, per setting, the CPU seconds and every search's nodes, score and move."""
    import time

    sys.path.insert(0, str(HERE))
    from bench_search import midgame_positions

    from othellolab import Board
    from othellolab.players.search import midgame
    from othellolab.players.search.evaluation import weights_evaluation
    from othellolab.players.search.patterns import pattern_weights_dir
    from othellolab.players.search.probcut import weights_probcut
    from othellolab.players.search.table import TranspositionTable

    evaluation = weights_evaluation(str(weights or "patterns-r1"))
    fit = weights_probcut(str(fit_dir or pattern_weights_dir("patterns-r1")))
    boards = midgame_positions(positions)
    midgame.search(Board(), depth=3, evaluation=evaluation)  # load the kernels untimed
    out = {}
    for name, kwargs in (
        ("probcut", {"depth": depth, "probcut": 1.5, "probcut_table": fit}),
        ("plain", {"depth": plain_depth}),
    ):
        results = []
        t0 = time.process_time()
        for _, board in boards:
            r = midgame.search(board, evaluation=evaluation, table=TranspositionTable(20), **kwargs)
            results.append((r.nodes, r.score, r.best_move))
        out[name] = {"seconds": time.process_time() - t0, "results": results}
    print(json.dumps(out), flush=True)


def run(src: Path, args: argparse.Namespace) -> dict:
    """One child run with ``src`` first on the path."""
    env = dict(os.environ, PYTHONPATH=str(src), **{_CHILD: "1"})
    cmd = [sys.executable, __file__, "--depth", str(args.depth)]
    cmd += ["--plain-depth", str(args.plain_depth), "--positions", str(args.positions)]
    if args.probcut_fit:
        cmd += ["--probcut-fit", str(args.probcut_fit)]
    if args.weights:
        cmd += ["--weights", str(args.weights)]
    done = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--base-src", type=Path, help="the base tree's src folder (required)")
    parser.add_argument("--new-src", type=Path, default=HERE.parent / "src")
    parser.add_argument("--depth", type=int, default=14, help="depth with ProbCut 1.5")
    parser.add_argument("--plain-depth", type=int, default=9, help="depth without ProbCut")
    parser.add_argument("--positions", type=int, default=20)
    parser.add_argument("--runs", type=int, default=5, help="alternating runs of each tree")
    parser.add_argument(
        "--probcut-fit",
        type=Path,
        help="a folder holding the probcut.json both trees use (default: each tree's own "
        "patterns-r1 fit; give the base's to compare trees across a refit at equal nodes)",
    )
    parser.add_argument(
        "--weights",
        type=Path,
        help="a pattern weights folder both trees evaluate with (default: each tree's own "
        "patterns-r1; give one to compare trees whose shipped weights differ at equal nodes)",
    )
    args = parser.parse_args()
    if os.environ.get(_CHILD):
        child(args.depth, args.plain_depth, args.positions, args.probcut_fit, args.weights)
        return
    for name, src in (("--base-src", args.base_src), ("--new-src", args.new_src)):
        if src is None or not (src / "othellolab" / "__init__.py").is_file():
            parser.error(f"{name} must be a src folder holding othellolab, got {src}")
    for name, folder, file in (
        ("--weights", args.weights, "config.json"),
        ("--probcut-fit", args.probcut_fit, "probcut.json"),
    ):
        if folder is not None and not (folder / file).is_file():
            parser.error(f"{name} must be a folder holding {file}, got {str(folder)!r}")
    if not (1 <= args.depth <= 30 and 1 <= args.plain_depth <= 30):
        parser.error("--depth and --plain-depth must be within 1-30")
    if args.runs < 1 or args.positions < 1:
        parser.error("--runs and --positions must be at least 1")
    seen: dict[str, list[dict]] = {"base": [], "new": []}
    for i in range(args.runs):
        for tree, src in (("base", args.base_src), ("new", args.new_src)):
            seen[tree].append(run(src, args))
            figures = ", ".join(f"{k} {v['seconds']:.2f} s" for k, v in seen[tree][-1].items())
            print(f"run {i + 1} {tree}: {figures}", flush=True)
    print(f"\nload average {os.getloadavg()[0]:.2f}; CPU seconds, median of {args.runs} runs:")
    print("| search | nodes | base s | new s | base k nodes/s | new k nodes/s | ratio | same |")
    print("|---|---|---|---|---|---|---|---|")
    for name, depth in (("probcut", args.depth), ("plain", args.plain_depth)):
        base = [r[name] for r in seen["base"]]
        new = [r[name] for r in seen["new"]]
        nodes = sum(n for n, _, _ in base[0]["results"])
        same = all(r["results"] == base[0]["results"] for r in base + new)
        b = statistics.median(r["seconds"] for r in base)
        m = statistics.median(r["seconds"] for r in new)
        pairs = sorted(x["seconds"] / y["seconds"] for x, y in zip(new, base, strict=True))
        label = f"ProbCut 1.5, depth {depth}" if name == "probcut" else f"no ProbCut, depth {depth}"
        print(
            f"| {label} | {nodes:,} | {b:.2f} | {m:.2f} | {nodes / b / 1e3:.0f} | "
            f"{nodes / m / 1e3:.0f} | {statistics.median(pairs):.3f} "
            f"({pairs[0]:.3f}-{pairs[-1]:.3f}) | {'yes' if same else 'NO'} |"
        )


if __name__ == "__main__":
    main()
