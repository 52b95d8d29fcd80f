"""Measure a policy/value network on held-out positions: move prediction by game phase,
calibration of the value head, and behaviour around passes.

``measure_model`` runs one network over ``EvalPositions`` in batches and ``summarise`` turns
its per-row predictions into the metrics that ``measure.report`` writes up. (The validation
metrics a trainer logs every epoch are ``training.supervised.validation_metrics``; a search's
evaluation function is ``players.search.evaluation``.)
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from othellolab.core import ConfigError
from othellolab.core import kernels as _k
from othellolab.core.features import equivalent_actions, symmetry_table, transform_planes
from othellolab.core.progress import StepProgress
from othellolab.datasets.feeds import ArraySource
from othellolab.datasets.heldout import EvalPositions

__all__ = ["ModelMeasurement", "check_symmetries", "measure_model", "resolve_model", "summarise"]

PHASE_WIDTH = 10
"""Empty squares per game-phase bucket (1-10, 11-20, ...)."""

CALIBRATION_BINS = 10
"""Equal-width bins of the predicted value over [-1, 1] for the reliability diagram."""


def resolve_model(spec: str | Path) -> Path:
    """A model directory from a path or the name of a shipped model; a ``ConfigError`` if
    neither."""
    from othellolab.nn.pretrained import resolve

    return resolve(spec)


def check_symmetries(symmetries: int) -> None:
    """A ``ConfigError`` naming the option unless ``symmetries`` is 1..8."""
    if isinstance(symmetries, bool) or symmetries not in range(1, 9):
        raise ConfigError(
            f"symmetries: expected 1..8 (the board's symmetries), got {symmetries!r}",
            option="symmetries",
        )


@dataclass
class ModelMeasurement:
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
        "mask_illegal": bool(cfg.mask_illegal),
    }


def measure_model(
    model_dir: str | Path,
    positions: EvalPositions,
    *,
    batch_size: int = 512,
    progress: bool = True,
    device: str = "cpu",
    symmetries: int = 1,
) -> ModelMeasurement:
    """Run the network of ``model_dir`` over every row and summarise (see ``summarise``).

    ``symmetries`` > 1 reads each position under that many of the board's 8 symmetries and
    averages what the network says, mapped back (as ``NetworkEvaluator(symmetries=N)`` does
    for the players): the legal-move priors, the raw policy (for the pass and illegal-move
    figures), the value and the score; the report names the model ``NAME-symN``.

    A predicted move counts as the expert's when a symmetry of the position maps one to the
    other (``core.features.equivalent_actions``): they are the same move. Top-k and the
    policy cross-entropy (of the equivalent moves' total probability) use that rule; without it
    every net scored a coin toss on the first move of every WTHOR game, all written from f5."""
    import torch

    from othellolab.nn.io import load_model

    model_dir = Path(model_dir)
    check_symmetries(symmetries)
    model, info = load_model(model_dir, device=device)
    if info.config.size != positions.size:
        raise ConfigError(
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
            legal = torch.from_numpy(b["legal"])
            raw, priors, values, scores = _read(
                model, b["planes"], legal, symmetries, info.config.score_head, device
            )
            logp = torch.log(priors.clamp_min(torch.finfo(torch.float32).tiny))
            sl = slice(start, start + k)
            # a move that a symmetry of the position maps to the expert's is the same move
            same = equivalent_actions(
                positions.player[sl], positions.opponent[sl], positions.move[sl], positions.size
            )
            hit = np.arange(k)[:, None]
            out["top1"][sl] = same[hit[:, 0], priors.argmax(dim=1).numpy()]
            top = priors.topk(min(3, area + 1), dim=1).indices.numpy()
            out["top3"][sl] = same[hit, top].any(axis=1)
            same_t = torch.from_numpy(same)
            out["ce"][sl] = (
                -torch.logsumexp(logp.masked_fill(~same_t, float("-inf")), dim=1).double().numpy()
            )
            out["value"][sl] = values.numpy()
            if out["score"] is not None:
                out["score"][sl] = scores.numpy() * area
            out["pass_prob"][sl] = raw[:, area].numpy()
            out["argmax_pass"][sl] = (raw.argmax(dim=1) == area).numpy()
            out["illegal_mass"][sl] = (raw * (~legal)).sum(dim=1).numpy()
            start += k
            bar.advance("")
    bar.close()
    seconds = time.perf_counter() - t0
    result = ModelMeasurement(
        name=model_dir.name if symmetries == 1 else f"{model_dir.name}-sym{symmetries}",
        path=str(model_dir),
        info=_model_info(model, info),
        seconds=seconds,
        **out,
    )
    result.metrics = summarise(result, positions)
    return result


def _read(
    model: Any, planes: np.ndarray, legal: Any, symmetries: int, score_head: bool, device: str
) -> tuple[Any, ...]:
    """The raw policy, the legal-move priors, the value and the score (zeros without a score
    head) of a batch of positions, each the mean over the first ``symmetries`` symmetries."""
    import torch
    import torch.nn.functional as F

    size = planes.shape[-1]
    table = torch.tensor(symmetry_table(size))
    raw = priors = values = scores = None
    for k in range(symmetries):
        x = planes if k == 0 else np.ascontiguousarray(transform_planes(planes, k))
        outputs = model(torch.from_numpy(x).to(device))
        # the policy of the transformed position, read at each action's image, is the
        # original position's
        logits = outputs[0].float().cpu()
        if k:
            logits = logits[:, table[k]]
        terms = (
            F.softmax(logits, dim=1),
            F.softmax(logits.masked_fill(~legal, float("-inf")), dim=1),
            outputs[1].float().cpu(),
            outputs[2].float().cpu() if score_head else torch.zeros(len(x)),
        )
        if k == 0:
            raw, priors, values, scores = terms
        else:
            raw, priors, values, scores = (
                a + t for a, t in zip((raw, priors, values, scores), terms, strict=True)
            )
    return tuple(t / symmetries for t in (raw, priors, values, scores))


def _phase_edges(size: int) -> list[tuple[int, int]]:
    most = size * size - 4
    return [(lo + 1, min(lo + PHASE_WIDTH, most)) for lo in range(0, most, PHASE_WIDTH)]


def _mean(x: np.ndarray) -> float | None:
    return float(np.mean(x)) if len(x) else None


def summarise(ev: ModelMeasurement, pos: EvalPositions) -> dict[str, Any]:
    """Move prediction (placing moves only), by phase, value calibration and pass behaviour."""
    area = pos.size * pos.size
    empties = pos.empties
    placing = pos.move < area
    legal = _k.legal_mask_batch(pos.player, pos.opponent, pos.size)
    n_legal = _k.popcount_batch(legal).astype(np.float64)
    # the uniform chooser's odds of a move equivalent to the expert's (see ``measure_model``)
    n_same = equivalent_actions(pos.player, pos.opponent, pos.move, pos.size).sum(axis=1)
    decided = pos.outcome != 0

    def block(sel: np.ndarray) -> dict[str, Any]:
        s = sel & placing
        d = {
            "positions": int(s.sum()),
            "top1": _mean(ev.top1[s]),
            "top3": _mean(ev.top3[s]),
            "policy_ce": _mean(ev.ce[s]),
            "uniform_top1": _mean(n_same[s] / n_legal[s]),
            "uniform_ce": _mean(np.log(n_legal[s] / n_same[s])),
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
        "mask_illegal": ev.info["mask_illegal"],
    }
    return {
        "model": {"name": ev.name, "path": ev.path, **ev.info},
        "positions_per_second": len(pos) / ev.seconds if ev.seconds > 0 else None,
        "overall": overall,
        "phases": phases,
        "calibration": {"bins": bins, "ece": ece},
        "passes": passes,
    }
