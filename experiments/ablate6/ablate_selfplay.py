"""Issue 41's ablation on 6x6: each of KataGo's changes alone against the base config, every run
from random weights for the same CPU time, graded against perfect play.

    python experiments/ablate6/ablate_selfplay.py run --cpu-hours 0.5 --out runs/ablate6
    python experiments/ablate6/ablate_selfplay.py run --only base,pool --out runs/ablate6   # some of them
    python experiments/ablate6/ablate_selfplay.py table runs/ablate6                         # the grades
    python experiments/ablate6/ablate_selfplay.py curve runs/ablate6 --only base,pool        # along time
    python experiments/ablate6/ablate_selfplay.py collect runs/ablate6 experiments/ablate6/bf16 # keep them

``run`` writes one config per variant (the base config with ``BEFORE_WINNERS`` and then the
variant's keys set, the stop at ``--cpu-hours``, the learning-rate decay scaled to it) into
``OUT/configs`` and trains them one after the other with ``othellolab train selfplay`` (each
resumes, so running the command again goes on where it stopped). ``table`` prints, per variant,
the best grade (optimal moves, and results kept) each search size reached within the CPU time
and the CPU-hours where it first did, as markdown. ``collect`` copies the finished runs'
``run.toml`` and ``metrics.jsonl`` (a few kB; the shards and models stay behind) into a folder
to commit, which ``table`` reads too.
"""

from __future__ import annotations

import argparse
import copy
import json
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))  # bench_core
from bench_core import float_arg, int_arg

BASE = Path(__file__).resolve().parents[2] / "configs" / "alphazero-6x6.toml"

BEFORE_WINNERS: dict[str, Any] = {
    "train.ownership_weight": 0.0,
    "selfplay.forced_playouts_k": 0.0,
    "selfplay.prune_policy_target": False,
}
"""Set in every variant before its own keys: the base config as the ablation measured it (and
as az-6x6 was trained), from before ``winners`` became its defaults, so that ``base`` and each
change alone mean what they meant in the kept tables."""

VARIANTS: dict[str, dict[str, Any]] = {
    "base": {},
    "ownership": {"train.ownership_weight": 1.0},
    "score": {"train.score_weight": 0.5},
    "opponent": {"train.opponent_policy_weight": 0.15},
    "aux": {
        "train.ownership_weight": 1.0,
        "train.score_weight": 0.5,
        "train.opponent_policy_weight": 0.15,
    },
    "pool": {"model.global_pool_every": 2},
    "b6c48": {"model.preset": "resnet-b6c48"},
    "b6c64": {"model.preset": "resnet-b6c64"},
    "b6c64-pool": {"model.preset": "resnet-b6c64", "model.global_pool_every": 2},
    "forced": {"selfplay.forced_playouts_k": 2.0, "selfplay.prune_policy_target": True},
    "utility": {"train.score_weight": 0.5, "selfplay.score_utility": 0.5},
    "batch1024": {"train.batch_size": 1024, "optim.lr": 0.004},
    "replay2": {"train.samples_per_position": 2.0},
    "replay8": {"train.samples_per_position": 8.0},
    "sims100": {"selfplay.simulations": 100},
    "cap100": {
        "selfplay.simulations": 100,
        "selfplay.full_share": 0.25,
        "selfplay.fast_simulations": 20,
    },
    "winners": {
        "train.ownership_weight": 1.0,
        "selfplay.forced_playouts_k": 2.0,
        "selfplay.prune_policy_target": True,
    },
}
"""Each change alone (issue 41, part 6): the auxiliary targets one by one and together, global
pooling, width and depth, forced playouts with policy-target pruning, the score utility (it
needs the score head), a larger batch, the replay ratio, and the self-play search's size
(100 simulations a move instead of 32, on every move or, KataGo's playout cap, on a quarter of
them with 20 on the rest). ``winners`` puts together what the half-hour runs favoured: the
ownership target (ahead at every grade) and forced playouts with pruned targets (the best raw
policy)."""


def _value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, list):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    return repr(v)


def to_toml(data: dict[str, Any]) -> str:
    """``data`` (top-level scalars and one level of tables) as TOML."""
    lines = [f"{k} = {_value(v)}" for k, v in data.items() if not isinstance(v, dict)]
    for name, table in data.items():
        if isinstance(table, dict):
            lines += ["", f"[{name}]", *(f"{k} = {_value(v)}" for k, v in table.items())]
    return "\n".join(lines) + "\n"


def variant_config(
    base: dict[str, Any],
    name: str,
    cpu_hours: float,
    seed: int,
    decay_generations: int = 0,
    grade_every: int = 0,
) -> dict[str, Any]:
    """The base config, then ``BEFORE_WINNERS``, then variant ``name``'s keys, stopped at
    ``cpu_hours``; the learning rate decays over ``decay_generations`` when given (the
    generations the machine reaches in that time), else over the base's scaled to the time;
    ``grade_every`` > 0 replaces the base's."""
    cfg = copy.deepcopy(base)
    cfg["name"] = f"ablate-{name}-s{seed}"
    cfg["seed"] = seed
    loop = cfg.setdefault("loop", {})
    scale = cpu_hours / float(loop.get("cpu_hours") or cpu_hours)
    loop["cpu_hours"] = cpu_hours
    train = cfg.setdefault("train", {})
    if decay_generations > 0:
        train["lr_decay_generations"] = decay_generations
    elif train.get("lr_decay_generations"):
        train["lr_decay_generations"] = max(1, round(train["lr_decay_generations"] * scale))
    if train.get("lr_decay_generations"):
        loop["generations"] = max(loop.get("generations", 0), train["lr_decay_generations"] * 2)
    if grade_every > 0:
        cfg.setdefault("grade", {})["every"] = grade_every
    for key, value in {**BEFORE_WINNERS, **VARIANTS[name]}.items():
        table, _, field = key.partition(".")
        cfg.setdefault(table, {})[field] = value
    return cfg


def run(args: argparse.Namespace) -> None:
    try:
        base = tomllib.loads(Path(args.base).read_text())
    except (OSError, tomllib.TOMLDecodeError) as e:
        sys.exit(f"--base {args.base}: not a readable TOML config ({e})")
    names = list(VARIANTS) if not args.only else [n.strip() for n in args.only.split(",")]
    unknown = [n for n in names if n not in VARIANTS]
    if unknown:
        sys.exit(f"unknown variant(s) {', '.join(unknown)}; known: {', '.join(VARIANTS)}")
    out = Path(args.out)
    (out / "configs").mkdir(parents=True, exist_ok=True)
    for name in names:
        cfg = variant_config(
            base, name, args.cpu_hours, args.seed, args.decay_generations, args.grade_every
        )
        cfg["runs_dir"] = str(out / "runs")
        path = out / "configs" / f"{cfg['name']}.toml"
        path.write_text(to_toml(cfg))
        print(f"== {name}: {path}", flush=True)
        cmd = [sys.executable, "-m", "othellolab.cli", "train", "selfplay", str(path)]
        subprocess.run([*cmd, "--quiet"] if args.quiet else cmd, check=True)


def best_grades(run_dir: Path) -> dict[str, tuple[float, float, float]]:
    """Per search size: the best optimal share any graded generation reached, the CPU-hours of
    the first generation that reached it, and its share of positions whose result it kept."""
    from othellolab.training.selfplay.pipeline import read_metrics

    best: dict[str, tuple[float, float, float]] = {}
    for g in read_metrics(run_dir):
        if g.get("kind") != "grade":
            continue
        for sims, row in g["simulations"].items():
            share = row["optimal_share"]
            if sims not in best or share > best[sims][0]:
                kept = float(row.get("outcome_share", float("nan")))
                best[sims] = (share, float(g["cpu_hours"]), kept)
    return best


def run_dirs(folder: Path) -> list[Path]:
    """The runs of ``folder``: the ``runs`` folder that ``run`` fills, or one that ``collect``
    wrote (a folder per run, each with its ``metrics.jsonl``)."""
    root = folder / "runs" if (folder / "runs").is_dir() else folder
    if not root.is_dir():
        sys.exit(f"{folder}: no such folder")
    return sorted(p for p in root.iterdir() if (p / "metrics.jsonl").is_file())


def finished(run_dir: Path) -> bool:
    """Whether the run reached its CPU-hours (or its last generation)."""
    from othellolab.training.selfplay.pipeline import read_metrics

    try:
        loop = tomllib.loads((run_dir / "run.toml").read_text()).get("loop", {})
    except (OSError, tomllib.TOMLDecodeError) as e:
        sys.exit(f"{run_dir}: no readable run.toml ({e})")
    records = read_metrics(run_dir)
    hours = max((float(r.get("cpu_hours", 0.0)) for r in records), default=0.0)
    generation = max((int(r.get("generation", 0)) for r in records), default=0)
    limit, last = float(loop.get("cpu_hours") or 0), int(loop.get("generations") or 0)
    return (limit > 0 and hours >= limit) or (last > 0 and generation >= last)


def table(args: argparse.Namespace) -> None:
    rows = {r.name: best_grades(r) for r in run_dirs(Path(args.out))}
    sims = sorted({s for b in rows.values() for s in b}, key=int)
    head = " | ".join("raw policy" if s == "0" else f"+ {s} simulations" for s in sims)
    print("Per search size: the best share of optimal moves (results kept) and the CPU-hours")
    print("where the run first reached it.\n")
    print(f"| run | {head} |")
    print("|---|" + "---|" * len(sims))
    for name, b in rows.items():
        cells = " | ".join(
            f"{b[s][0]:.1%} ({b[s][2]:.1%}) at {b[s][1]:.2f} h" if s in b else "-" for s in sims
        )
        print(f"| {name} | {cells} |")


def grade_at(run_dir: Path, sims: str, hours: float) -> tuple[float, float] | None:
    """The optimal and results-kept shares with ``sims`` simulations of the graded generation
    nearest ``hours`` CPU-hours (within 0.05 h), or None."""
    from othellolab.training.selfplay.pipeline import read_metrics

    grades = [
        g for g in read_metrics(run_dir) if g.get("kind") == "grade" and sims in g["simulations"]
    ]
    if not grades:
        return None
    g = min(grades, key=lambda g: abs(float(g["cpu_hours"]) - hours))
    if abs(float(g["cpu_hours"]) - hours) > 0.05:
        return None
    row = g["simulations"][sims]
    return row["optimal_share"], float(row.get("outcome_share", float("nan")))


def curve(args: argparse.Namespace) -> None:
    runs = run_dirs(Path(args.out))
    names = [n.strip() for n in args.only.split(",")] if args.only else None
    if names:
        runs = [r for n in names for r in runs if r.name in (n, f"ablate-{n}-s{args.seed}")]
    print(f"Optimal moves (results kept) with {args.sims} simulations, the graded generation")
    print("nearest each time.\n")
    print("| CPU-hours | " + " | ".join(r.name for r in runs) + " |")
    print("|---|" + "---|" * len(runs))
    steps = round(args.hours / args.step)
    for i in range(1, steps + 1):
        hours = i * args.step
        cells = []
        for r in runs:
            got = grade_at(r, args.sims, hours)
            cells.append("-" if got is None else f"{got[0]:.1%} ({got[1]:.1%})")
        print(f"| {hours:g} | " + " | ".join(cells) + " |")


def collect(args: argparse.Namespace) -> None:
    dest = Path(args.dest)
    for run_dir in run_dirs(Path(args.out)):
        if not finished(run_dir):
            print(f"{run_dir.name}: not finished, left out", flush=True)
            continue
        target = dest / run_dir.name
        target.mkdir(parents=True, exist_ok=True)
        for name in ("run.toml", "metrics.jsonl"):
            tmp = target / f".{name}.tmp"
            shutil.copyfile(run_dir / name, tmp)
            tmp.replace(target / name)
        print(f"{run_dir.name}: {target}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run", help="train the variants one after the other (resumable)")
    r.add_argument(
        "--base", default=str(BASE), help="the base config (BEFORE_WINNERS is set in it first)"
    )
    r.add_argument("--cpu-hours", type=float_arg(0.001, 1e6), default=0.5, help="CPU-hours per run")
    r.add_argument("--seed", type=int_arg(0, 2**63 - 1), default=0, help="the runs' seed")
    r.add_argument("--only", default="", help="comma-separated variants (default: all)")
    r.add_argument(
        "--decay-generations",
        type=int_arg(0, 50_000),  # the loop runs twice as many: [loop] generations <= 100,000
        default=0,
        help="decay the learning rate over this many generations (default: the base's, scaled"
        " to --cpu-hours); set it to what the machine reaches in that time",
    )
    r.add_argument(
        "--grade-every", type=int_arg(0, 100_000), default=0, help="grade every N generations"
    )
    r.add_argument("--out", required=True, help="folder of the configs and runs")
    r.add_argument("--quiet", action="store_true", help="no progress bars")
    t = sub.add_parser("table", help="the best grades of each run, as markdown")
    t.add_argument("out", help="the folder given to run --out, or one collect wrote")
    v = sub.add_parser("curve", help="the grades along each run at one search size, as markdown")
    v.add_argument("out", help="the folder given to run --out, or one collect wrote")
    v.add_argument("--sims", default="100", help="search size (0: the raw policy)")
    v.add_argument("--only", default="", help="comma-separated variants or runs, in order")
    v.add_argument("--seed", type=int_arg(0, 2**63 - 1), default=0, help="the runs' seed")
    v.add_argument(
        "--hours", type=float_arg(0.001, 1e6), default=0.5, help="up to this many CPU-hours"
    )
    v.add_argument(
        "--step", type=float_arg(0.001, 1e6), default=0.1, help="a row every this many CPU-hours"
    )
    c = sub.add_parser("collect", help="copy the finished runs' config and metrics to commit")
    c.add_argument("out", help="the folder given to run --out")
    c.add_argument("dest", help="where to copy them (a folder per run)")
    args = parser.parse_args()
    {"run": run, "table": table, "curve": curve, "collect": collect}[args.command](args)


if __name__ == "__main__":
    main()
