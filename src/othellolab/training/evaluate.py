"""Evaluate policy/value networks on held-out positions: move prediction by game phase,
calibration of the value head, and behaviour around passes, written up as a report with plots.

``othellolab evaluate model MODEL... --data PATH`` is the command. ``load_positions`` reads the
data (a split of a dataset from ``othellolab dataset build``, a folder of WTHOR files with the
years to take, or any game-record files), ``evaluate_model`` runs one network over it in
batches, and ``write_report`` writes ``report.md``, ``metrics.json`` and the PNG plots into one
folder, atomically. Several models evaluated on the same positions share one report.
"""

from __future__ import annotations

import datetime as _dt
import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from othellolab.core import kernels as _k
from othellolab.core.files import replace_dir
from othellolab.datasets.replay import replay_games
from othellolab.datasets.shards import MANIFEST, open_arrays, read_manifest
from othellolab.datasets.sources import NO_SCORE, GameArrays, games_to_arrays, read_wtb_arrays
from othellolab.records import read_games
from othellolab.training.data import ArraySource, PositionArrays, parse_years, wthor_paths
from othellolab.training.progress import StepProgress

__all__ = [
    "EvalPositions",
    "ModelEvaluation",
    "evaluate_model",
    "load_positions",
    "resolve_model",
    "write_report",
]

PHASE_WIDTH = 10
"""Empty squares per game-phase bucket (1-10, 11-20, ...)."""

CALIBRATION_BINS = 10
"""Equal-width bins of the predicted value over [-1, 1] for the reliability diagram."""


@dataclass(frozen=True)
class EvalPositions:
    """Positions to evaluate on, one row per action played, forced passes included where the
    data has them, with the game's result and what happened around the row.

    ``after_pass``: the opponent's last action was a pass, so the side to move plays twice.
    ``forces_pass``: the move played leaves the opponent without a legal move (not the end).
    """

    player: np.ndarray
    opponent: np.ndarray
    move: np.ndarray
    outcome: np.ndarray
    score: np.ndarray
    game: np.ndarray
    after_pass: np.ndarray
    forces_pass: np.ndarray
    size: int = 8
    description: str = ""
    notes: tuple[str, ...] = field(default=())

    def __len__(self) -> int:
        return len(self.player)

    @property
    def games(self) -> int:
        """Number of distinct games with rows."""
        return len(np.unique(self.game))

    @property
    def empties(self) -> np.ndarray:
        """Empty squares of each row's position."""
        return self.size * self.size - _k.popcount_batch(self.player | self.opponent)

    def arrays(self) -> PositionArrays:
        """The rows as the trainer's ``PositionArrays`` (for ``ArraySource`` batches)."""
        area = self.size * self.size
        return PositionArrays(
            self.player,
            self.opponent,
            self.move,
            self.outcome,
            (self.score / area).astype(np.float32),
            self.game,
            self.size,
        )


def _forces_pass(
    player: np.ndarray, opponent: np.ndarray, move: np.ndarray, size: int
) -> np.ndarray:
    """Whether playing ``move`` leaves the opponent no legal move while the game goes on."""
    out = np.zeros(len(move), dtype=bool)
    placing = np.flatnonzero(move < size * size)
    if len(placing):
        # after the move the opponent is to move: (nxt, cur) from its side
        nxt, cur = _k.play_batch(player[placing], opponent[placing], move[placing], size)
        stuck = _k.legal_mask_batch(nxt, cur, size) == 0
        out[placing] = stuck & (_k.legal_mask_batch(cur, nxt, size) != 0)
    return out


def _concat(parts: list[dict[str, np.ndarray]], size: int, description: str, notes: list[str]):
    if not parts or sum(len(p["player"]) for p in parts) == 0:
        raise ValueError(f"no positions to evaluate in {description}")
    cols = {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
    return EvalPositions(
        player=cols["player"].astype(np.uint64),
        opponent=cols["opponent"].astype(np.uint64),
        move=cols["move"].astype(np.int64),
        outcome=cols["outcome"].astype(np.float32),
        score=cols["score"].astype(np.int64),
        game=cols["game"].astype(np.int64),
        after_pass=cols["after_pass"].astype(bool),
        forces_pass=_forces_pass(cols["player"], cols["opponent"], cols["move"], size),
        size=size,
        description=description,
        notes=tuple(notes),
    )


def _after_pass(game: np.ndarray, color: np.ndarray, move: np.ndarray, size: int) -> np.ndarray:
    """Rows whose side to move also made the game's previous action, i.e. the opponent passed
    in between (whether or not the pass itself is a row)."""
    out = np.zeros(len(game), dtype=bool)
    out[1:] = (game[1:] == game[:-1]) & ((move[:-1] == size * size) | (color[1:] == color[:-1]))
    return out


def _from_dataset(root: Path, split: str, max_games: int, first_game: int) -> dict:
    manifest = read_manifest(root)
    options = manifest.get("options", {})
    if options.get("dedup") or options.get("symmetries"):
        raise ValueError(
            f"{root}: built with {'dedup' if options.get('dedup') else 'symmetries'}; evaluation "
            "needs one row per move played, in game order (build it without --dedup/--symmetries)"
        )
    a = open_arrays(root, split)
    game = np.asarray(a["game"], dtype=np.int64)
    if max_games:
        keep_games = np.unique(game)[:max_games]
        n = int(np.searchsorted(game, keep_games[-1], side="right")) if len(keep_games) else 0
    else:
        n = len(game)
    game = game[:n]
    move = np.asarray(a["move"][:n], dtype=np.int64)
    size = int(manifest["size"])
    _, renumbered = np.unique(game, return_inverse=True)
    return {
        "player": np.asarray(a["p"][:n]),
        "opponent": np.asarray(a["o"][:n]),
        "move": move,
        "outcome": np.asarray(a["outcome"][:n], dtype=np.float32),
        "score": np.asarray(a["score"][:n], dtype=np.int64),
        "game": renumbered.astype(np.int64) + first_game,
        "after_pass": _after_pass(game, np.asarray(a["color"][:n]), move, size),
    }, size


def _game_arrays(path: Path, size: int | None) -> tuple[GameArrays, int]:
    """One record file's games of board ``size`` (default: its first game's) as the replay
    kernel's arrays, and how many games of another size were left out."""
    if path.suffix.lower() == ".wtb":
        games = read_wtb_arrays(path)
        if size is None or games.size == size:
            return games, 0
        return _head(games, 0), games.n_games
    skipped = 0

    def same_size(records: Iterable[Any]) -> Iterable[Any]:
        nonlocal size, skipped
        for game in records:
            size = game.size if size is None else size
            if game.size == size:
                yield game
            else:
                skipped += 1

    return games_to_arrays(same_size(read_games(path)), name=path.name), skipped


def _head(games: GameArrays, count: int) -> GameArrays:
    """The first ``count`` games."""
    return replace(
        games,
        **{
            k: getattr(games, k)[:count]
            for k in ("moves", "start_p", "start_o", "start_color", "year", "recorded_score")
        },
    )


def _from_games(paths: Iterable[Path], max_games: int, first_game: int, size: int | None):
    """Replay game records with the datasets' replay kernel; returns the columns, the board
    size and notes on skipped games. A game's result is its replayed final score, or the
    recorded one for a game that stops early (as the trainer's ``positions_from_wthor``)."""
    parts: list[dict[str, np.ndarray]] = []
    skipped = 0
    taken = 0
    for path in paths:
        if max_games and taken >= max_games:
            break
        games, left_out = _game_arrays(Path(path), size)
        skipped += left_out
        if max_games:
            games = _head(games, max_games - taken)
        if games.n_games == 0:
            continue
        size = games.size
        r = replay_games(games)
        recorded = games.recorded_score.astype(np.int64)
        black = np.where(r.complete | (recorded == NO_SCORE), r.final_black, recorded)
        row_game = r.game.astype(np.int64)
        color = r.color.astype(np.int64)
        move = r.move.astype(np.int64)
        final = (1 - 2 * color) * black[row_game]
        parts.append(
            {
                "player": r.p,
                "opponent": r.o,
                "move": move,
                "outcome": np.sign(final).astype(np.float32),
                "score": final,
                "game": row_game + first_game + taken,
                "after_pass": _after_pass(row_game, color, move, size),
            }
        )
        taken += games.n_games
    notes = [f"skipped {skipped} games of another board size"] if skipped else []
    if not parts:
        return {"game": np.zeros(0, dtype=np.int64)}, size, notes
    return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}, size, notes


def load_positions(
    sources: Sequence[str | Path],
    *,
    split: str = "test",
    years: str | None = None,
    max_games: int = 0,
    size: int | None = None,
) -> EvalPositions:
    """The positions of ``sources``, each one of: a dataset folder (its ``split``), a folder
    of WTHOR ``.wtb`` files (the ``years`` given, e.g. ``"2023"``), or a game-record file of
    any format ``records.read_games`` reads. ``max_games`` caps the games per source (0 = all);
    games of another board size than ``size`` (default: the first game's) are skipped."""
    if not sources:
        raise ValueError("no data: give at least one --data path")
    parts: list[dict[str, np.ndarray]] = []
    described: list[str] = []
    notes: list[str] = []
    first_game = 0
    for source in sources:
        path = Path(source)
        if not path.exists():
            raise FileNotFoundError(f"{path}: no such file or folder")
        if path.is_dir() and (path / MANIFEST).is_file():
            cols, s = _from_dataset(path, split, max_games, first_game)
            if size is not None and s != size:
                raise ValueError(f"{path}: a {s}x{s} dataset, the model plays {size}x{size}")
            size = s
            described.append(f"{path.name} ({split} split)")
        elif path.is_dir():
            available = sorted(p.stem.split("_")[-1] for p in path.glob("WTH_*.wtb"))
            if not available:
                raise ValueError(f"{path}: neither a dataset folder nor a folder of WTHOR files")
            if not years:
                raise ValueError(
                    f"{path}: a folder of WTHOR files needs --years (held-out years to evaluate "
                    f"on; available {available[0]}-{available[-1]})"
                )
            files = wthor_paths(path, parse_years(years))
            cols, size, skipped = _from_games(files, max_games, first_game, size)
            notes += skipped
            described.append(f"WTHOR {years}")
        else:
            cols, size, skipped = _from_games([path], max_games, first_game, size)
            notes += [f"{path.name}: {s}" for s in skipped]
            described.append(path.name)
        if len(cols["game"]):
            parts.append(cols)
            first_game = int(cols["game"].max()) + 1
    assert size is not None
    return _concat(parts, size, ", ".join(described), notes)


def resolve_model(spec: str | Path) -> Path:
    """A model directory from a path or the name of a shipped model; a ``ConfigError`` if
    neither."""
    from othellolab.nn.pretrained import resolve

    return resolve(spec)


@dataclass
class ModelEvaluation:
    """One model's per-row predictions over ``EvalPositions`` and the summary ``metrics``."""

    name: str
    path: str
    info: dict[str, Any]
    top1: np.ndarray
    top3: np.ndarray
    ce: np.ndarray
    value: np.ndarray
    score: np.ndarray | None
    pass_prob: np.ndarray
    argmax_pass: np.ndarray
    illegal_mass: np.ndarray
    seconds: float
    metrics: dict[str, Any] = field(default_factory=dict)


def _model_info(model: Any, info: Any) -> dict[str, Any]:
    from othellolab.nn.models import count_parameters

    cfg = info.config
    training = info.training or {}
    data = training.get("data", {}) or {}
    return {
        "family": cfg.family,
        "size": cfg.size,
        "planes": list(cfg.planes),
        "parameters": count_parameters(model),
        "score_head": bool(cfg.score_head),
        "run": training.get("run"),
        "samples": training.get("samples"),
        "train_data": data.get("dataset") or data.get("train_years"),
        "trained_on_passes": bool(data.get("include_passes", False)),
    }


def evaluate_model(
    model_dir: str | Path,
    positions: EvalPositions,
    *,
    batch_size: int = 512,
    progress: bool = True,
    device: str = "cpu",
) -> ModelEvaluation:
    """Run the network of ``model_dir`` over every row and summarise (see ``summarise``)."""
    import time

    import torch
    import torch.nn.functional as F

    from othellolab.nn.io import load_model

    model_dir = Path(model_dir)
    model, info = load_model(model_dir, device=device)
    if info.config.size != positions.size:
        raise ValueError(
            f"{model_dir}: a {info.config.size}x{info.config.size} model, the data is "
            f"{positions.size}x{positions.size}"
        )
    n = len(positions)
    area = positions.size * positions.size
    out = {
        "top1": np.zeros(n, dtype=bool),
        "top3": np.zeros(n, dtype=bool),
        "ce": np.zeros(n, dtype=np.float64),
        "value": np.zeros(n, dtype=np.float32),
        "score": np.zeros(n, dtype=np.float32) if info.config.score_head else None,
        "pass_prob": np.zeros(n, dtype=np.float32),
        "argmax_pass": np.zeros(n, dtype=bool),
        "illegal_mass": np.zeros(n, dtype=np.float32),
    }
    source = ArraySource(positions.arrays(), planes=info.config.planes)
    batches = source.batches(batch_size, np.random.default_rng(0), augment=False, shuffle=False)
    bar = StepProgress(progress, total=math.ceil(n / batch_size), done=0, name=model_dir.name)
    t0 = time.perf_counter()
    start = 0
    with torch.inference_mode():
        for b in batches:
            k = len(b["value"])
            outputs = model(torch.from_numpy(b["planes"]).to(device))
            logits = outputs[0].float().cpu()
            legal = torch.from_numpy(b["legal"])
            target = torch.from_numpy(positions.move[start : start + k])
            raw = F.softmax(logits, dim=1)
            masked = logits.masked_fill(~legal, float("-inf"))
            logp = F.log_softmax(masked, dim=1)
            sl = slice(start, start + k)
            out["top1"][sl] = (masked.argmax(dim=1) == target).numpy()
            top = masked.topk(min(3, area + 1), dim=1).indices
            out["top3"][sl] = (top == target[:, None]).any(dim=1).numpy()
            out["ce"][sl] = -logp.gather(1, target[:, None])[:, 0].double().numpy()
            out["value"][sl] = outputs[1].float().cpu().numpy()
            if out["score"] is not None:
                out["score"][sl] = outputs[2].float().cpu().numpy() * area
            out["pass_prob"][sl] = raw[:, area].numpy()
            out["argmax_pass"][sl] = (raw.argmax(dim=1) == area).numpy()
            out["illegal_mass"][sl] = (raw * (~legal)).sum(dim=1).numpy()
            start += k
            bar.advance("")
    bar.close()
    seconds = time.perf_counter() - t0
    result = ModelEvaluation(
        name=model_dir.name,
        path=str(model_dir),
        info=_model_info(model, info),
        seconds=seconds,
        **out,
    )
    result.metrics = summarise(result, positions)
    return result


def _phase_edges(size: int) -> list[tuple[int, int]]:
    most = size * size - 4
    return [(lo + 1, min(lo + PHASE_WIDTH, most)) for lo in range(0, most, PHASE_WIDTH)]


def _mean(x: np.ndarray) -> float | None:
    return float(np.mean(x)) if len(x) else None


def summarise(ev: ModelEvaluation, pos: EvalPositions) -> dict[str, Any]:
    """Move prediction (placing moves only), by phase, value calibration and pass behaviour."""
    area = pos.size * pos.size
    empties = pos.empties
    placing = pos.move < area
    legal = _k.legal_mask_batch(pos.player, pos.opponent, pos.size)
    n_legal = _k.popcount_batch(legal).astype(np.float64)
    decided = pos.outcome != 0

    def block(sel: np.ndarray) -> dict[str, Any]:
        s = sel & placing
        d = {
            "positions": int(s.sum()),
            "top1": _mean(ev.top1[s]),
            "top3": _mean(ev.top3[s]),
            "policy_ce": _mean(ev.ce[s]),
            "uniform_top1": _mean(1.0 / n_legal[s]),
            "uniform_ce": _mean(np.log(n_legal[s])),
            "value_mse": _mean((ev.value[s] - pos.outcome[s]) ** 2),
            "winner_accuracy": _mean(
                (np.sign(ev.value[s & decided]) == pos.outcome[s & decided]).astype(float)
            ),
        }
        if ev.score is not None:
            d["score_mae"] = _mean(np.abs(ev.score[s] - pos.score[s]))
        return d

    everything = np.ones(len(pos), dtype=bool)
    overall = block(everything)
    overall["illegal_mass"] = _mean(ev.illegal_mass[placing])
    phases = []
    for lo, hi in _phase_edges(pos.size):
        sel = (empties >= lo) & (empties <= hi)
        if sel.any():
            phases.append({"empties": [lo, hi], **block(sel)})

    edges = np.linspace(-1.0, 1.0, CALIBRATION_BINS + 1)
    values, results = ev.value[placing], pos.outcome[placing]
    which = np.clip(np.digitize(values, edges[1:-1]), 0, CALIBRATION_BINS - 1)
    bins = []
    ece = 0.0
    for b in range(CALIBRATION_BINS):
        sel = which == b
        count = int(sel.sum())
        mean_pred = _mean(values[sel])
        mean_out = _mean(results[sel])
        bins.append(
            {
                "range": [float(edges[b]), float(edges[b + 1])],
                "positions": count,
                "mean_value": mean_pred,
                "mean_outcome": mean_out,
            }
        )
        if count:
            ece += count / len(values) * abs(mean_pred - mean_out)

    forced = pos.move == area
    passes = {
        "forced_pass_positions": int(forced.sum()),
        "confusion": {
            "forced_pass": {
                "network_pass": int((forced & ev.argmax_pass).sum()),
                "network_move": int((forced & ~ev.argmax_pass).sum()),
            },
            "has_moves": {
                "network_pass": int((placing & ev.argmax_pass).sum()),
                "network_move": int((placing & ~ev.argmax_pass).sum()),
            },
        },
        "pass_prob_when_forced": _mean(ev.pass_prob[forced]),
        "pass_prob_with_moves": _mean(ev.pass_prob[placing]),
        "after_pass": block(pos.after_pass),
        "forces_pass": block(pos.forces_pass),
        "trained_on_passes": ev.info["trained_on_passes"],
    }
    return {
        "model": {"name": ev.name, "path": ev.path, **ev.info},
        "positions_per_second": len(pos) / ev.seconds if ev.seconds > 0 else None,
        "overall": overall,
        "phases": phases,
        "calibration": {"bins": bins, "ece": ece},
        "passes": passes,
    }


def _fmt(x: float | None, spec: str = ".3f") -> str:
    return "-" if x is None else format(x, spec)


def _plot_phases(evals: list[ModelEvaluation], path: Path) -> None:
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


def _plot_calibration(evals: list[ModelEvaluation], pos: EvalPositions, path: Path) -> None:
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


def _markdown(evals: list[ModelEvaluation], pos: EvalPositions) -> str:
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
        f"`{n}` top-1 | top-3 | value MSE" for n in names
    )
    lines += [phase_head + " |", "|---|---:|" + "---:|" * (3 * len(names))]
    for i, ph in enumerate(evals[0].metrics["phases"]):
        cells = []
        for e in evals:
            p = e.metrics["phases"][i]
            cells += [_fmt(p["top1"]), _fmt(p["top3"]), _fmt(p["value_mse"])]
        lines.append(
            f"| {ph['empties'][0]}-{ph['empties'][1]} | {ph['positions']:,} | "
            + " | ".join(cells)
            + " |"
        )
    lines += [
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
        "positions has never been taught the pass output). *After a pass*: the opponent just "
        "passed and the side to move plays twice. *Forcing a pass*: the expert's move left the "
        "opponent without a legal move.",
        "",
        head,
    ]
    ps = [e.metrics["passes"] for e in evals]
    row("trained on forced-pass positions", ("yes" if p["trained_on_passes"] else "no" for p in ps))
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
    evals: Sequence[ModelEvaluation], positions: EvalPositions, out: str | Path
) -> Path:
    """Write ``report.md``, ``metrics.json``, ``phases.png`` and ``calibration.png`` into
    ``out`` (replaced whole, atomically); returns the report's path."""
    if not evals:
        raise ValueError("write_report: no evaluations")
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
