"""The pattern evaluation against the hand-written heuristic: speed and accuracy.

- Evaluations per second of ``pattern_value`` and of ``heuristics.heuristic`` from scratch, in
  one compiled loop each over the same real positions (WTHOR 2023, 15-35 empties, in game
  order and shuffled), best of 5 interleaved runs; the ratio is the figure to compare.
- Mean absolute error against the final disc difference on all WTHOR 2023 positions (the
  held-out year), by empties bucket, for both.
- Against exact scores (the endgame solver's concern): MAE to the best score of Edax's
  ``hard-20.obf`` (276 positions, 20 empties) and of the FFO #1-#59 positions, and, on FFO
  where every move is scored, how often ordering the moves by the evaluation of the position
  after them puts a best move first.
- Strength: ``alphabeta:evaluation=patterns`` against ``alphabeta:evaluation=heuristic`` at
  equal fixed depth (4 and 6, exact from 12/14 empties), 80 games from 40 XOT openings,
  colours alternated.

``python benchmarks/bench_patterns.py --write docs/benchmarks.md`` (about a minute).
"""

from __future__ import annotations

import argparse
import datetime as _dt
import time
from pathlib import Path
from typing import Any

import numba
import numpy as np
from bench_core import machine, write_section

from othellolab.arena import play_match, read_openings
from othellolab.datasets.heldout import load_positions
from othellolab.fitting.patterns import Positions, held_out_errors
from othellolab.players import make_player
from othellolab.players.search.evaluation import EVAL_HEURISTIC, EVAL_PATTERNS, Evaluation, evaluate
from othellolab.players.search.heuristic import DEFAULT_WEIGHTS
from othellolab.players.search.patterns import load_pattern_weights
from othellolab.records.obf import read_obf

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"


@numba.njit  # not cached: Numba's cache does not notice edits of the kernels it inlines
def _sum_values(kind: int, weights: np.ndarray, p: np.ndarray, o: np.ndarray) -> float:
    s = 0.0
    for i in range(p.shape[0]):
        s += evaluate(kind, weights, p[i], o[i], 8)
    return s


def rates(p: np.ndarray, o: np.ndarray, table: np.ndarray, repeat: int = 5) -> tuple[float, float]:
    """Best evaluations/s of (patterns, heuristic) through the ``evaluate`` dispatch."""
    _sum_values(EVAL_PATTERNS, table, p[:10], o[:10])
    _sum_values(EVAL_HEURISTIC, DEFAULT_WEIGHTS, p[:10], o[:10])
    best = [np.inf, np.inf]
    for _ in range(repeat):
        for j, (kind, w) in enumerate(((EVAL_PATTERNS, table), (EVAL_HEURISTIC, DEFAULT_WEIGHTS))):
            t0 = time.perf_counter()
            _sum_values(kind, w, p, o)
            best[j] = min(best[j], time.perf_counter() - t0)
    return len(p) / best[0], len(p) / best[1]


def exact_figures(path: Path, evaluations: dict[str, Evaluation]) -> dict[str, Any]:
    """MAE to the best exact score and best-move-first rate (when all moves are scored)."""
    entries = list(read_obf(path, lenient=True))
    out: dict[str, Any] = {"file": path.name, "positions": len(entries)}
    for name, ev in evaluations.items():
        errors, first = [], []
        for e in entries:
            best = e.moves[0][1]
            errors.append(abs(ev(e.board) - best))
            scored = [(m, s) for m, s in e.moves if m != e.board.size**2]
            if len(scored) == len(e.board.legal_actions()) and len(scored) > 1:
                top = max(s for _, s in scored)
                pick = max(scored, key=lambda ms: -ev(e.board.play(ms[0])))
                first.append(pick[1] == top)
        out[name] = (float(np.mean(errors)), float(np.mean(first)) if first else None)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--weights", default=None, help="weights dir (default: shipped)")
    parser.add_argument("--wthor", type=Path, default=DATA / "wthor", help="WTHOR folder")
    parser.add_argument("--write", type=Path, default=None, help="update this markdown file")
    args = parser.parse_args()

    table = load_pattern_weights(args.weights).table
    held = load_positions([args.wthor / "WTH_2023.wtb"], size=8)
    positions = Positions.of(held.player, held.opponent, held.score)
    p, o = positions.p, positions.o
    mid = (positions.empties >= 15) & (positions.empties <= 35)
    order = np.random.default_rng(0).permutation(int(mid.sum()))
    speed = []
    for label, (pp, oo) in (
        ("game order", (p[mid], o[mid])),
        ("shuffled", (p[mid][order], o[mid][order])),
    ):
        r_pat, r_heu = rates(np.ascontiguousarray(pp), np.ascontiguousarray(oo), table)
        speed.append((label, r_pat, r_heu))
        print(
            f"{label:>10}: patterns {r_pat / 1e6:.2f} M eval/s, heuristic {r_heu / 1e6:.2f} M/s, "
            f"patterns cost {r_heu / r_pat:.2f}x heuristic"
        )
    rows = held_out_errors(positions, table)
    for r in rows:
        print(
            f"{r['empties']:>6} empties: MAE patterns {r['patterns_mae']:.2f}, "
            f"heuristic {r['heuristic_mae']:.2f} ({r['positions']:,} positions)"
        )
    evaluations = {"patterns": Evaluation(EVAL_PATTERNS, table), "heuristic": Evaluation()}
    exact = []
    for path in (
        DATA / "edax_problems" / "hard-20.obf",
        *sorted((DATA / "ffo").glob("fforum-*.obf")),
    ):
        if path.exists():
            exact.append(exact_figures(path, evaluations))
            f = exact[-1]
            print(
                f"{f['file']}: MAE to exact patterns {f['patterns'][0]:.2f}, heuristic "
                f"{f['heuristic'][0]:.2f}; best move first "
                f"{f['patterns'][1]}, {f['heuristic'][1]}"
            )
    matches = []
    openings = read_openings(DATA / "xot" / "openingssmall.txt")[:40]
    for depth, endgame in ((4, 12), (6, 14)):
        a = make_player(f"alphabeta:evaluation=patterns,depth={depth},endgame={endgame}")
        b = make_player(f"alphabeta:evaluation=heuristic,depth={depth},endgame={endgame}")
        r = play_match(a, b, games=80, openings=openings)
        matches.append((depth, endgame, r))
        print(f"depth {depth}, exact from {endgame} empties: patterns vs heuristic {r}")
    if args.write:
        header = (
            f"## Pattern evaluation ({_dt.date.today().isoformat()})\n\n"
            f"Machine: {machine()}. `python benchmarks/bench_patterns.py`. Evaluation from "
            "scratch through `heuristics.evaluate`, WTHOR 2023 positions with 15-35 empties "
            f"({int(mid.sum()):,}), best of 5; MAE against the final disc difference on all "
            f"WTHOR 2023 positions (held out of training).\n\n"
            "| positions | patterns M eval/s | heuristic M eval/s | cost ratio patterns/heuristic |\n"
            "|---|---|---|---|\n"
        )
        table_speed = "".join(
            f"| {label} | {a / 1e6:.2f} | {b / 1e6:.2f} | {b / a:.2f}x |\n" for label, a, b in speed
        )
        table_mae = (
            "\n| empties | positions | MAE patterns | MAE heuristic |\n|---|---|---|---|\n"
            + "".join(
                f"| {r['empties']} | {r['positions']:,} | {r['patterns_mae']:.2f} | "
                f"{r['heuristic_mae']:.2f} |\n"
                for r in rows
            )
        )
        table_exact = (
            "\n| exact scores | positions | MAE patterns | MAE heuristic | best move first: "
            "patterns | heuristic |\n|---|---|---|---|---|---|\n"
            + "".join(
                f"| {f['file']} | {f['positions']} | {f['patterns'][0]:.2f} | "
                f"{f['heuristic'][0]:.2f} | {_pct(f['patterns'][1])} | {_pct(f['heuristic'][1])} |\n"
                for f in exact
            )
        )
        table_match = (
            "\n| alpha-beta, patterns vs heuristic | games | wins | draws | losses | score |\n"
            "|---|---|---|---|---|---|\n"
            + "".join(
                f"| depth {d}, exact from {e} empties | {r.n} | {r.wins} | {r.draws} | "
                f"{r.losses} | {100 * r.score:.1f}% |\n"
                for d, e, r in matches
            )
        )
        body = header + table_speed + table_mae + table_exact + table_match
        write_section(args.write, "patterns", body)


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.0f}%"


if __name__ == "__main__":
    main()
