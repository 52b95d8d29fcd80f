"""The write-up of model measurements: ``report.md``, ``metrics.json`` and two plots (by game
phase, value calibration) in one folder, replaced whole. Several models measured on the same
positions share one report.
"""

from __future__ import annotations

import datetime as _dt
import json
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

from othellolab.core import ConfigError
from othellolab.core.files import replace_dir
from othellolab.datasets.heldout import EvalPositions
from othellolab.measure.model import ModelMeasurement

__all__ = ["write_report"]


def _fmt(x: float | None, spec: str = ".3f") -> str:
    return "-" if x is None else format(x, spec)


def _plot_phases(evals: list[ModelMeasurement], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4))
    labels = [f"{p['empties'][0]}-{p['empties'][1]}" for p in evals[0].metrics["phases"]]
    x = np.arange(len(labels))
    width = 0.8 / len(evals)
    for i, ev in enumerate(evals):
        ph = ev.metrics["phases"]
        ax1.bar(x + i * width, [p["top1"] or 0 for p in ph], width, label=f"{ev.name} top-1")
        ax1.plot(x + i * width, [p["top3"] or 0 for p in ph], "o--", label=f"{ev.name} top-3")
        ax2.plot(labels, [p["value_mse"] or 0 for p in ph], "o-", label=ev.name)
    uni = [p["uniform_top1"] or 0 for p in evals[0].metrics["phases"]]
    ax1.plot(x + 0.4 - width / 2, uni, "k:", label="uniform top-1")
    ax1.set_xticks(x + 0.4 - width / 2, labels)
    ax1.set_xlabel("empty squares")
    ax1.set_ylabel("accuracy of the move played")
    ax1.set_ylim(0, 1)
    ax1.legend(fontsize=7)
    ax1.set_title("move prediction by game phase")
    ax2.set_xlabel("empty squares")
    ax2.set_ylabel("value MSE against the result")
    ax2.set_title("value head by game phase")
    ax2.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def _plot_calibration(evals: list[ModelMeasurement], pos: EvalPositions, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4))
    ax1.plot([-1, 1], [-1, 1], "k:", label="perfect calibration")
    for ev in evals:
        bins = [b for b in ev.metrics["calibration"]["bins"] if b["positions"]]
        ax1.plot(
            [b["mean_value"] for b in bins],
            [b["mean_outcome"] for b in bins],
            "o-",
            label=f"{ev.name} (ECE {ev.metrics['calibration']['ece']:.3f})",
        )
        ax2.hist(
            ev.value[pos.move < pos.size**2], bins=40, range=(-1, 1), histtype="step", label=ev.name
        )
    ax1.set_xlabel("predicted value (side to move)")
    ax1.set_ylabel("mean result (+1 win, 0 draw, -1 loss)")
    ax1.set_title("value calibration")
    ax1.legend(fontsize=7)
    ax2.set_xlabel("predicted value")
    ax2.set_ylabel("positions")
    ax2.set_title(f"predicted values over {int((pos.move < pos.size**2).sum()):,} positions")
    ax2.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def _markdown(evals: list[ModelMeasurement], pos: EvalPositions) -> str:
    names = [e.name for e in evals]
    head = "| | " + " | ".join(f"`{n}`" for n in names) + " |\n|---|" + "---:|" * len(names)
    lines = [
        f"# Model evaluation: {', '.join(names)}",
        "",
        f"{_dt.datetime.now(_dt.UTC):%Y-%m-%d %H:%M} UTC. Data: {pos.description}: "
        f"{len(pos):,} positions of {pos.games:,} games "
        f"({int((pos.move < pos.size**2).sum()):,} placing moves, "
        f"{int((pos.move == pos.size**2).sum()):,} forced passes).",
    ]
    lines += [f"Note: {n}." for n in pos.notes]
    lines += ["", "## Models", "", head]

    def row(label: str, values: Iterable[str]) -> None:
        lines.append(f"| {label} | " + " | ".join(values) + " |")

    row("family", (e.info["family"] for e in evals))
    row("parameters", (f"{e.info['parameters']:,}" for e in evals))
    row("input planes", (", ".join(e.info["planes"]) for e in evals))
    row("trained on", (str(e.info["train_data"] or "-") for e in evals))
    row("positions/s here", (_fmt(e.metrics["positions_per_second"], ",.0f") for e in evals))
    lines += [
        "",
        "## Move prediction",
        "",
        "Over placing moves, among legal moves only (forced passes are left out). Uniform: a "
        "uniform choice among the legal moves.",
        "",
        head,
    ]
    o = [e.metrics["overall"] for e in evals]
    row("top-1", (_fmt(m["top1"]) for m in o))
    row("top-3", (_fmt(m["top3"]) for m in o))
    row("policy cross-entropy", (_fmt(m["policy_ce"]) for m in o))
    row(
        "uniform top-1 / cross-entropy",
        (f"{_fmt(m['uniform_top1'])} / {_fmt(m['uniform_ce'])}" for m in o),
    )
    row("probability on illegal moves (unmasked)", (_fmt(m["illegal_mass"], ".4f") for m in o))
    lines += ["", "### By game phase", "", "![phases](phases.png)", ""]
    phase_head = "| empties | positions | " + " | ".join(
        f"`{n}` top-1 | top-3 | value MSE | winner" for n in names
    )
    lines += [phase_head + " |", "|---|---:|" + "---:|" * (4 * len(names))]
    for i, ph in enumerate(evals[0].metrics["phases"]):
        cells = []
        for e in evals:
            p = e.metrics["phases"][i]
            cells += [
                _fmt(p["top1"]),
                _fmt(p["top3"]),
                _fmt(p["value_mse"]),
                _fmt(p["winner_accuracy"]),
            ]
        lines.append(
            f"| {ph['empties'][0]}-{ph['empties'][1]} | {ph['positions']:,} | "
            + " | ".join(cells)
            + " |"
        )
    lines += [
        "",
        "*winner*: how often the sign of the value names the side that went on to win, over the "
        "positions of decided games (the value head's accuracy on won and lost positions).",
        "",
        "## Value head",
        "",
        "Over placing moves. The value predicts the game's result for the side to move (+1 win, "
        "0 draw, -1 loss). "
        "Calibration: positions binned by predicted value; a calibrated head's mean result in "
        "each bin equals its mean prediction. ECE: the positions-weighted mean gap.",
        "",
        head,
    ]
    row("value MSE", (_fmt(m["value_mse"]) for m in o))
    row("winner predicted (decided games)", (_fmt(m["winner_accuracy"]) for m in o))
    row("calibration error (ECE)", (_fmt(e.metrics["calibration"]["ece"]) for e in evals))
    if any(e.score is not None for e in evals):
        row("score MAE (discs)", (_fmt(m.get("score_mae"), ".2f") for m in o))
    lines += ["", "![calibration](calibration.png)", "", "| predicted value | "]
    lines[-1] += " | ".join(f"`{n}` positions | mean value | mean result" for n in names) + " |"
    lines.append("|---|" + "---:|" * (3 * len(names)))
    for i, b in enumerate(evals[0].metrics["calibration"]["bins"]):
        cells = []
        for e in evals:
            bb = e.metrics["calibration"]["bins"][i]
            cells += [
                f"{bb['positions']:,}",
                _fmt(bb["mean_value"], "+.3f"),
                _fmt(bb["mean_outcome"], "+.3f"),
            ]
        lines.append(
            f"| {b['range'][0]:+.1f} .. {b['range'][1]:+.1f} | " + " | ".join(cells) + " |"
        )
    lines += [
        "",
        "## Around passes",
        "",
        "A forced pass is the only legal action, so a player masks it in; the unmasked policy "
        "shows whether the network itself expects a pass (a network trained without pass "
        "positions has never been taught the pass output, unless its forward masks illegal "
        "actions: then the pass is its only action when no square is legal). *After a pass*: the opponent just "
        "passed and the side to move plays twice. *Forcing a pass*: the expert's move left the "
        "opponent without a legal move.",
        "",
        head,
    ]
    ps = [e.metrics["passes"] for e in evals]
    row("trained on forced-pass positions", ("yes" if p["trained_on_passes"] else "no" for p in ps))
    row(
        "masks illegal actions in its forward",
        ("yes" if p.get("mask_illegal") else "no" for p in ps),
    )
    row(
        "forced passes: network's unmasked choice is pass",
        (
            f"{p['confusion']['forced_pass']['network_pass']:,} of {p['forced_pass_positions']:,}"
            for p in ps
        ),
    )
    row(
        "positions with moves: unmasked choice is pass",
        (
            f"{p['confusion']['has_moves']['network_pass']:,} of "
            f"{p['confusion']['has_moves']['network_pass'] + p['confusion']['has_moves']['network_move']:,}"
            for p in ps
        ),
    )
    row(
        "mean pass probability, forced / with moves",
        (
            f"{_fmt(p['pass_prob_when_forced'], '.4f')} / {_fmt(p['pass_prob_with_moves'], '.4f')}"
            for p in ps
        ),
    )
    row(
        "after a pass: positions, top-1",
        (f"{p['after_pass']['positions']:,}, {_fmt(p['after_pass']['top1'])}" for p in ps),
    )
    row("after a pass: value MSE", (_fmt(p["after_pass"]["value_mse"]) for p in ps))
    row(
        "forcing a pass: positions, top-1",
        (f"{p['forces_pass']['positions']:,}, {_fmt(p['forces_pass']['top1'])}" for p in ps),
    )
    row("all placing moves: top-1", (_fmt(m["top1"]) for m in o))
    lines.append("")
    return "\n".join(lines)


def write_report(
    evals: Sequence[ModelMeasurement], positions: EvalPositions, out: str | Path
) -> Path:
    """Write ``report.md``, ``metrics.json``, ``phases.png`` and ``calibration.png`` into
    ``out`` (replaced whole, atomically); returns the report's path."""
    if not evals:
        raise ConfigError("write_report: no evaluations")
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    data = {
        "data": {
            "description": positions.description,
            "positions": len(positions),
            "games": positions.games,
            "size": positions.size,
            "notes": list(positions.notes),
        },
        "models": [e.metrics for e in evals],
    }
    with replace_dir(out, overwrite=True) as tmp:
        (tmp / "metrics.json").write_text(json.dumps(data, indent=2) + "\n")
        _plot_phases(list(evals), tmp / "phases.png")
        _plot_calibration(list(evals), positions, tmp / "calibration.png")
        (tmp / "report.md").write_text(_markdown(list(evals), positions))
    return out / "report.md"
