"""A self-play run's metrics: ``metrics.jsonl`` is a view of the stage outputs (models,
shards, gates, grades, rates), rebuilt whole from them after each stage so that it never holds
a result twice; ``read_metrics`` reads it back for reports."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from othellolab.core import ConfigError
from othellolab.nn.io import read_model_info
from othellolab.training.selfplay.shards import ShardError, list_shards, read_meta


class StageOutputs(Protocol):
    """Where a run keeps its stage outputs (``pipeline.SelfPlayRun``)."""

    shards: Path

    def generations(self) -> list[int]: ...
    def model_dir(self, generation: int) -> Path: ...
    def record(self, folder: str, generation: int) -> Path: ...


__all__ = ["grade_rows", "read_metrics", "stage_records"]


def grade_rows(grades: dict[int, Any]) -> dict[str, dict[str, Any]]:
    """Grades by simulation count as JSON rows: optimal share, positions, mean loss, and the
    stages (6x6) or the worst-case scores as each colour (4x4)."""
    rows = {}
    for sims, g in grades.items():
        row = {"optimal_share": g.optimal_share, "positions": g.positions, "mean_loss": g.mean_loss}
        if hasattr(g, "outcome_share"):
            row["outcome_share"] = g.outcome_share
        if hasattr(g, "stages"):
            row["stages"] = [
                {
                    "empties": list(s.empties),
                    "optimal_share": s.optimal_share,
                    "outcome_share": s.outcome_share,
                    "positions": s.positions,
                }
                for s in g.stages
            ]
        else:
            row["score_as_black"], row["score_as_white"] = g.score_as_black, g.score_as_white
        rows[str(sims)] = row
    return rows


def stage_records(run: StageOutputs) -> Iterator[dict[str, Any]]:
    """One record per stage output, in the order the loop made them, with the learning CPU
    time so far (``cpu_hours``: self-play, training and gating, both cores counted)."""
    cpu = 0.0
    shards = {}
    for g, _k, path in list_shards(run.shards):
        try:
            meta = read_meta(path)
        except ShardError:  # reported by the training stage that reads it
            continue
        shards.setdefault(g, []).append(meta)
    for g in run.generations():
        if g > 0:
            info = read_model_info(run.model_dir(g)).training
            cpu += float(info.get("cpu_seconds", 0.0))
            yield {
                "kind": "train",
                "generation": g,
                "cpu_hours": cpu / 3600,
                **{k: v for k, v in info.items() if k not in ("window_shards",)},
            }
        for folder in ("gates", "grades", "rates"):
            path = run.record(folder, g)
            if path.exists():
                data = json.loads(path.read_text())
                if folder == "gates":
                    cpu += float(data.get("cpu_seconds", 0.0))
                yield {"kind": folder[:-1], "cpu_hours": cpu / 3600, **data}
        metas = shards.get(g, [])
        if metas:
            stats = [m["stats"] for m in metas]
            cpu += sum(float(s.get("cpu_seconds", 0.0)) for s in stats)
            wall = max(float(s.get("wall_seconds", 0.0)) for s in stats)
            games = sum(int(m["games"]) for m in metas)
            positions = sum(int(m["positions"]) for m in metas)
            yield {
                "kind": "selfplay",
                "generation": g,
                "cpu_hours": cpu / 3600,
                "shards": len(metas),
                "games": games,
                "positions": positions,
                "model_generation": stats[0].get("model_generation", g),
                "device": stats[0].get("device", "cpu"),
                "games_per_second": games / wall if wall else None,
                "positions_per_second": positions / wall if wall else None,
                "mean_length": float(np.mean([s["mean_length"] for s in stats])),
                "resigned_share": float(np.mean([s["resigned_share"] for s in stats])),
                "false_resignations": sum(int(s["false_resignations"]) for s in stats),
                "would_resign": sum(int(s["would_resign"]) for s in stats),
            }


def read_metrics(root: str | Path) -> list[dict[str, Any]]:
    """The records of a run's ``metrics.jsonl``."""
    path = Path(root) / "metrics.jsonl"
    if not path.exists():
        raise ConfigError(f"{root}: not a self-play run (no metrics.jsonl)")
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
