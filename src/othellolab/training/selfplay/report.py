"""The report of a self-play run: ``report.md`` with PNG curves, from ``metrics.jsonl``.

Curves against the learning CPU-hours (self-play, training and gating, both cores counted):
the training losses and policy entropy, the share of optimal moves against perfect play for
each graded simulation count (6x6, 4x4), and the score against each fixed opponent (8x8
ratings) and in gating. A table lists every generation; the rated generations and the fixed
opponents get Elo ratings from those matches (``arena.ratings``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from othellolab.core.files import replacing, write_text
from othellolab.training.selfplay.metrics import read_metrics

__all__ = ["write_report"]


def _by_kind(records: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [r for r in records if r.get("kind") == kind]


def _save(fig: Any, ax: Any, title: str, path: Path) -> str:
    """Give ``ax`` its title, the CPU-hours axis every plot shares and a legend, write ``fig``
    to ``path`` and return the file's name."""
    import matplotlib.pyplot as plt

    ax.set_xlabel("CPU-hours (self-play + training)")
    ax.set_title(title)
    ax.legend(fontsize=8)
    fig.tight_layout()
    with replacing(path) as tmp:
        fig.savefig(tmp, format="png", dpi=80)
    plt.close(fig)
    return path.name


def _plots(root: Path, records: list[dict[str, Any]]) -> list[str]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = []
    train = _by_kind(records, "train")
    if train:
        fig, ax = plt.subplots(figsize=(7, 4))
        xs = [r["cpu_hours"] for r in train]
        for key, label in (
            ("policy_loss", "policy cross-entropy"),
            ("value_loss", "value MSE"),
            ("policy_entropy", "policy entropy"),
        ):
            ax.plot(xs, [r["losses"].get(key) for r in train], label=label)
        names.append(_save(fig, ax, "training losses per generation", root / "losses.png"))
    grades = _by_kind(records, "grade")
    if grades:
        fig, ax = plt.subplots(figsize=(7, 4))
        sims = sorted({int(s) for r in grades for s in r["simulations"]})
        for s in sims:
            pts = [
                (r["cpu_hours"], r["simulations"][str(s)]["optimal_share"])
                for r in grades
                if str(s) in r["simulations"]
            ]
            label = "raw policy" if s == 0 else f"network + {s} simulations"
            ax.plot([p[0] for p in pts], [100 * p[1] for p in pts], "o-", ms=3, label=label)
        for s in _assisted_sims(grades):
            pts = [(r["cpu_hours"], _assisted(r, s)) for r in grades if _assisted(r, s) is not None]
            empties = grades[-1]["exact_endgame"]["empties"]
            label = f"network + {s} simulations + exact at <= {empties} empties"
            ax.plot([p[0] for p in pts], [100 * p[1] for p in pts], "s--", ms=3, label=label)
        ax.axhline(95, color="grey", ls=":", label="goal 95%")
        ax.set_ylabel("optimal moves (%)")
        names.append(_save(fig, ax, "against perfect play", root / "optimal.png"))
    rates = _by_kind(records, "rate")
    gates = _by_kind(records, "gate")
    if rates or gates:
        fig, ax = plt.subplots(figsize=(7, 4))
        opponents = sorted({m["opponent"] for r in rates for m in r["matches"]})
        for opp in opponents:
            pts = [
                (r["cpu_hours"], m["score"])
                for r in rates
                for m in r["matches"]
                if m["opponent"] == opp
            ]
            ax.plot([p[0] for p in pts], [100 * p[1] for p in pts], "o-", ms=3, label=opp)
        if gates:
            ax.plot(
                [r["cpu_hours"] for r in gates],
                [100 * r["score"] for r in gates],
                "x",
                label="gate: new vs best",
            )
        ax.axhline(50, color="grey", ls=":")
        ax.set_ylabel("score (%)")
        names.append(_save(fig, ax, "strength", root / "strength.png"))
    return names


def _assisted_sims(grades: list[dict[str, Any]]) -> list[int]:
    """The simulation counts graded with the exact endgame solver (runs with
    ``solve_empties``)."""
    return sorted(
        {int(s) for r in grades for s in r.get("exact_endgame", {}).get("simulations", {})}
    )


def _assisted(grade: dict[str, Any], sims: int) -> float | None:
    """The optimal share of a grade with ``sims`` simulations and the exact endgame, if any."""
    row = grade.get("exact_endgame", {}).get("simulations", {}).get(str(sims))
    return None if row is None else float(row["optimal_share"])


def rating_table(rates: list[dict[str, Any]]) -> str | None:
    """Elo ratings (maximum likelihood, ``random`` at 0 when it played) of the rated
    generations and their fixed opponents, from the rate records' wins, draws and losses
    (colours are not recorded there, so not modelled); None without matches."""
    from othellolab.arena.ratings import RatingError, fit_ratings

    games = []
    for r in rates:
        me = f"gen{int(r['generation']):04d}"
        for m in r["matches"]:
            for score, count in ((1, m["wins"]), (0, m["draws"]), (-1, m["losses"])):
                games += [(me, m["opponent"], score)] * int(count)
    if not games:
        return None
    try:
        ratings = fit_ratings(games, colour=False)
    except RatingError:  # e.g. a generation that only ever won: no finite rating
        return None
    return ratings.table() + "\n\n" + ratings.summary()


def _fmt(x: Any, spec: str = ".3f") -> str:
    return "-" if x is None else format(x, spec)


def write_report(run: str | Path) -> Path:
    """Write ``RUN/report.md`` and its PNGs; returns the report's path."""
    root = Path(run)
    records = read_metrics(root)
    plots = _plots(root, records)
    grades = {r["generation"]: r for r in _by_kind(records, "grade")}
    selfplay = {r["generation"]: r for r in _by_kind(records, "selfplay")}
    rates = {r["generation"]: r for r in _by_kind(records, "rate")}
    gates = {r["generation"]: r for r in _by_kind(records, "gate")}
    train = {r["generation"]: r for r in _by_kind(records, "train")}
    sims = sorted({int(s) for r in grades.values() for s in r["simulations"]})
    assisted = _assisted_sims(list(grades.values()))
    opponents = sorted({m["opponent"] for r in rates.values() for m in r["matches"]})
    gens = sorted(set(train) | set(grades) | set(selfplay) | {0})
    head = ["generation", "CPU-hours", "positions played", "policy loss", "value loss"]
    head += ["optimal, raw policy" if s == 0 else f"optimal, {s} sims" for s in sims]
    head += [f"optimal, {s} sims + exact endgame" for s in assisted]
    head += [f"vs {o}" for o in opponents]
    starts = any("start_value" in r for r in rates.values())
    head += ["value of the start"] if starts else []
    head += ["gate"] if gates else []
    lines = [
        f"# Self-play run {root.name}",
        "",
        "CPU-hours count self-play, training and gating (both cores); grading and rating "
        "measure the run and are not counted.",
        "",
        *[f"![{p}]({p})" for p in plots],
        "",
        "| " + " | ".join(head) + " |",
        "|" + "---|" * len(head),
    ]
    for g in gens:
        t, s = train.get(g, {}), selfplay.get(g, {})
        cpu = t.get("cpu_hours", s.get("cpu_hours", grades.get(g, {}).get("cpu_hours")))
        row = [str(g), _fmt(cpu, ".3f"), str(s.get("positions", "-"))]
        row += [
            _fmt(t.get("losses", {}).get("policy_loss")),
            _fmt(t.get("losses", {}).get("value_loss")),
        ]
        for sm in sims:
            grade = grades.get(g, {}).get("simulations", {}).get(str(sm))
            row.append("-" if grade is None else f"{100 * grade['optimal_share']:.1f}%")
        for sm in assisted:
            share = _assisted(grades[g], sm) if g in grades else None
            row.append("-" if share is None else f"{100 * share:.1f}%")
        for o in opponents:
            match = next(
                (m for m in rates.get(g, {}).get("matches", []) if m["opponent"] == o), None
            )
            row.append("-" if match is None else f"{100 * match['score']:.0f}%")
        if starts:
            row.append(_fmt(rates.get(g, {}).get("start_value"), "+.3f"))
        if gates:
            gate = gates.get(g)
            row.append(
                "-"
                if gate is None
                else f"{100 * gate['score']:.0f}% {'promoted' if gate['promoted'] else 'kept'}"
            )
        lines.append("| " + " | ".join(row) + " |")
    ratings = rating_table(list(rates.values()))
    if ratings:
        lines += ["", "## Ratings", "", ratings]
    path = root / "report.md"
    write_text(path, "\n".join(lines) + "\n")
    return path
