"""The architecture comparison of docs/supervised.md: move-prediction accuracy against training
CPU-hours, one curve per supervised run.

``collect`` gathers, for each run folder, the validation points of its ``metrics.jsonl`` (top-1
on the 2022 validation games after each epoch), its training time (the ``/usr/bin/time -v``
log of ``othellolab train supervised``: user + system seconds, wall seconds) and the held-out
figures of its exported model (the ``metrics.json`` that ``othellolab evaluate model`` wrote
for WTHOR 2023) into one JSON file; ``plot`` draws that file (top-1 against CPU-hours, the
2023 figure of each run as a marker at its end) and prints the markdown table of
docs/supervised.md. A point along a run is placed at ``samples / total samples`` of the run's
CPU time (the steps cost the same; validation and compilation are spread over the run)::

    python experiments/supervised-cpu/compare_supervised.py collect --out experiments/supervised-cpu/runs.json \\
        NAME=RUN_DIR,TIME_LOG|cpu=SECONDS,EVAL_DIR ...
    python experiments/supervised-cpu/compare_supervised.py plot experiments/supervised-cpu/runs.json \\
        --png experiments/supervised-cpu/accuracy-vs-cpu.png
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

from othellolab.core.files import write_json

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))  # bench_core
from bench_core import float_arg

_TIME = {
    "user": re.compile(r"User time \(seconds\): ([0-9.]+)"),
    "system": re.compile(r"System time \(seconds\): ([0-9.]+)"),
    "wall": re.compile(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): ([0-9:.]+)"),
}


def _clock(text: str) -> float:
    """Seconds of an ``h:mm:ss`` or ``m:ss.ss`` reading."""
    seconds = 0.0
    for part in text.split(":"):
        seconds = seconds * 60 + float(part)
    return seconds


def read_time_log(path: Path) -> dict[str, float]:
    """CPU (user + system) and wall seconds from a ``/usr/bin/time -v`` log."""
    try:
        text = path.read_text(errors="replace")
    except OSError as e:
        raise SystemExit(f"{path}: {e}") from None
    found = {k: pattern.search(text) for k, pattern in _TIME.items()}
    missing = [k for k, m in found.items() if m is None]
    if missing:
        raise SystemExit(f"{path}: no /usr/bin/time -v reading of {', '.join(missing)}")
    return {
        "cpu_seconds": float(found["user"].group(1)) + float(found["system"].group(1)),
        "wall_seconds": _clock(found["wall"].group(1)),
    }


def _read_json(path: Path) -> Any:
    """A JSON file a run or an evaluation wrote, or a usage error naming it."""
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError) as e:
        raise SystemExit(f"{path}: {e}") from None


def collect_run(name: str, run_dir: Path, time_log: str, eval_dir: Path) -> dict:
    """One run's curve, time and held-out figures. ``time_log`` is a ``/usr/bin/time -v`` log
    or, for a run timed otherwise, its CPU seconds (``cpu=4560``); ``eval_dir``'s report may
    hold several models: the one named ``name`` is taken, else the first."""
    metrics_file = run_dir / "metrics.jsonl"
    try:
        records = [json.loads(line) for line in metrics_file.read_text().splitlines()]
    except (OSError, ValueError) as e:
        raise SystemExit(f"{metrics_file}: {e}") from None
    val = [r for r in records if r.get("kind") == "val"]
    if not val:
        raise SystemExit(f"{metrics_file}: no validation record (has the run finished an epoch?)")
    config = _read_json(run_dir / "config.json")
    models = _read_json(eval_dir / "metrics.json")["models"]
    model = next((m for m in models if m["model"]["name"] == name), models[0])
    overall = model["overall"]
    opening = max(model["phases"], key=lambda p: p["empties"][1])
    if time_log.startswith("cpu="):
        try:
            cpu = float_arg(1.0, 1e9)(time_log[4:])
        except argparse.ArgumentTypeError as e:
            raise SystemExit(f"{name}: cpu=: {e}") from None
        timing: dict[str, float | None] = {"cpu_seconds": cpu, "wall_seconds": None}
    else:
        timing = dict(read_time_log(Path(time_log)))
    return {
        "name": name,
        "model": config["model"],
        "data": config["data"].get("dataset") or config["data"].get("train_years"),
        **timing,
        "samples": val[-1]["samples"],
        "curve": [
            {"samples": r["samples"], "val_top1": r["val_top1"], "val_top3": r["val_top3"]}
            for r in val
        ],
        "test": {
            "top1": overall["top1"],
            "top3": overall["top3"],
            "policy_ce": overall["policy_ce"],
            "value_mse": overall["value_mse"],
            "winner_accuracy": overall["winner_accuracy"],
            "first_ten_top1": opening["top1"],
        },
    }


def plot(runs: list[dict[str, Any]], png: Path) -> None:
    """Top-1 against training CPU-hours: validation curves, 2023 markers."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 5))
    for run in runs:
        hours = run["cpu_seconds"] / 3600
        xs = [hours * p["samples"] / run["samples"] for p in run["curve"]]
        ys = [p["val_top1"] for p in run["curve"]]
        (line,) = ax.plot(xs, ys, marker=".", label=run["name"])
        ax.plot([hours], [run["test"]["top1"]], marker="*", markersize=12, color=line.get_color())
    ax.axhline(0.57, color="grey", linestyle=":", linewidth=1)
    ax.text(0.0, 0.572, "published low end (57 %)", color="grey", fontsize=8)
    ax.set_xlabel("training CPU-hours (user + system)")
    ax.set_ylabel("top-1 (moves equal up to symmetry count as one)")
    ax.set_title("Move prediction: lines, 2022 validation after each epoch; stars, WTHOR 2023")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    png.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(png, dpi=110)
    plt.close(fig)


def table(runs: list[dict[str, Any]]) -> str:
    """The markdown table of docs/supervised.md."""
    lines = [
        "| run | CPU-hours | positions seen | 2023 top-1 | top-3 | policy CE | first ten moves top-1 | value: winner | positions per CPU-second |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in sorted(runs, key=lambda r: -r["test"]["top1"]):
        t, hours = r["test"], r["cpu_seconds"] / 3600
        lines.append(
            f"| {r['name']} | {hours:.2f} | {r['samples']:,} | {t['top1']:.3f} | {t['top3']:.3f} | "
            f"{t['policy_ce']:.3f} | {t['first_ten_top1']:.3f} | {t['winner_accuracy']:.3f} | "
            f"{r['samples'] / r['cpu_seconds']:,.0f} |"
        )
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("collect", help="gather runs into one JSON file")
    c.add_argument("runs", nargs="+", help="NAME=RUN_DIR,TIME_LOG|cpu=SECONDS,EVAL_DIR")
    c.add_argument("--out", type=Path, required=True)
    p = sub.add_parser("plot", help="draw the JSON file and print the table")
    p.add_argument("file", type=Path)
    p.add_argument("--png", type=Path, required=True)
    args = parser.parse_args()
    if args.command == "collect":
        runs = []
        for spec in args.runs:
            name, _, rest = spec.partition("=")
            parts = rest.split(",")
            if not name or len(parts) != 3 or not all(parts):
                raise SystemExit(
                    f"expected NAME=RUN_DIR,TIME_LOG|cpu=SECONDS,EVAL_DIR, got {spec!r}"
                )
            runs.append(collect_run(name, Path(parts[0]), parts[1], Path(parts[2])))
        args.out.parent.mkdir(parents=True, exist_ok=True)
        write_json(args.out, runs, indent=1)
        print(f"{args.out}: {len(runs)} runs")
    else:
        runs = _read_json(args.file)
        plot(runs, args.png)
        print(table(runs))


if __name__ == "__main__":
    main()
