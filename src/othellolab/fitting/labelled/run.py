"""Generate a labelled-position run: the shards a config asks for that its folder lacks, in
this process, in worker processes or on Ray (``othellolab.parallel``), then a
summary of what the whole folder holds.

A first start writes ``labelled.json`` and ``config.toml``; a later start with the same config
(``shards`` may grow) resumes, after any kill, ``kill -9`` included: a shard is written whole
by one rename, and shard ``i`` is a function of the config and ``i`` alone, so the resumed run
holds the very shards an uninterrupted one would. A different config, or changed data files,
is refused with the keys or files that differ.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import numpy as np

from othellolab.core import ConfigError
from othellolab.core.files import sha256_file, write_json, write_text
from othellolab.core.progress import StepProgress
from othellolab.fitting.labelled.config import LabelledConfig, differences
from othellolab.fitting.labelled.generate import LabelTask, label_shard
from othellolab.fitting.labelled.openings import source_checksums
from othellolab.fitting.labelled.shards import (
    FORMAT_VERSION,
    RUN_FILE,
    RUN_FORMAT,
    SHARDS_DIR,
    list_shards,
    read_meta,
    read_run,
    shard_name,
    write_shard,
)
from othellolab.parallel import make_executor
from othellolab.players.search.evaluation import EVALUATION_NAMES
from othellolab.players.search.patterns import available_pattern_sets, pattern_weights_dir

__all__ = ["generate_labelled", "summarise"]

SUMMARY_FILE = "summary.json"


def _sources(cfg: LabelledConfig) -> dict[str, str]:
    """SHA-256 of every file the run's data depends on, by path: the openings' data files, and
    the weights when ``[search] evaluation`` names a folder of fitted weights (a shipped set or
    a built-in evaluation is named by the config itself)."""
    sources = source_checksums(cfg.openings)
    name = cfg.search.evaluation
    if name != "auto" and name not in EVALUATION_NAMES and name not in available_pattern_sets():
        for path in sorted(pattern_weights_dir(name).iterdir()):
            if path.name in ("config.json", "weights.safetensors"):
                sources[str(path)] = sha256_file(path)
    return sources


def _open_run(cfg: LabelledConfig, out: Path, text: str) -> None:
    """Start the run folder, or check that it is this config's (on the same data files and
    weights)."""
    sources = _sources(cfg)
    if (out / RUN_FILE).exists():
        run = read_run(out)
        if run["config_hash"] != cfg.config_hash:
            changed = differences(run.get("identity", {}), cfg.identity())
            raise ConfigError(
                f"{out} holds a run of another config; changed: {'; '.join(changed) or 'the generator'}"
                ". Give another --out, or the config it was started with",
                option="--config",
            )
        moved = sorted(
            p
            for p in set(sources) | set(run.get("sources", {}))
            if sources.get(p) != run.get("sources", {}).get(p)
        )
        if moved:
            raise ConfigError(
                f"{out}: the data files or weights changed since the run started: "
                f"{', '.join(moved)}",
                option="--config",
            )
        if run["config"].get("shards") != cfg.shards:
            write_json(out / RUN_FILE, {**run, "config": cfg.to_dict()})
        return
    out.mkdir(parents=True, exist_ok=True)
    write_text(out / "config.toml", text)
    write_json(
        out / RUN_FILE,
        {
            "format": RUN_FORMAT,
            "format_version": FORMAT_VERSION,
            "config_hash": cfg.config_hash,
            "config": cfg.to_dict(),
            "identity": cfg.identity(),
            "sources": sources,
        },
    )


def generate_labelled(
    cfg: LabelledConfig,
    out: str | Path,
    *,
    text: str = "",
    workers: int = 1,
    ray: str | None = None,
    progress: bool = True,
) -> dict[str, Any]:
    """Generate the shards of ``cfg`` that ``out`` lacks (resuming a run there) with
    ``workers`` processes (or on Ray at address ``ray``), and return ``summarise(out)``.
    ``text`` is the config file's text, kept in the run folder."""
    if not 1 <= workers <= 1024 or isinstance(workers, bool):
        raise ConfigError(f"need 1..1024 workers, got {workers!r}", option="--workers")
    out = Path(out)
    _open_run(cfg, out, text)
    done = set()
    for index, path in list_shards(out):
        read_meta(path, config_hash=cfg.config_hash)
        done.add(index)
    gps = cfg.games_per_shard
    tasks = [
        LabelTask(i, cfg.shard_seed(i), i * gps, cfg) for i in range(cfg.shards) if i not in done
    ]
    if tasks:
        wall, made, positions = time.perf_counter(), 0, 0
        bar = StepProgress(
            progress,
            total=cfg.shards * gps,
            done=(cfg.shards - len(tasks)) * gps,
            name="labelled positions",
            unit="games",
        )
        status = [""]
        executor = make_executor(workers, ray)
        try:
            for task, (arrays, stats) in executor.map(
                label_shard,
                tasks,
                progress=lambda k: bar.advance(status[0], k),
                units=lambda task, _: task.config.games_per_shard,
            ):
                write_shard(
                    out / SHARDS_DIR / shard_name(task.index),
                    arrays,
                    index=task.index,
                    seed=task.seed,
                    first_game=task.first_game,
                    games=gps,
                    config_hash=cfg.config_hash,
                    stats=stats,
                )
                made += 1
                positions += len(arrays["player"])
                rate = positions / max(1e-9, time.perf_counter() - wall)
                status[0] = f"{made} shards, {positions:,} positions, {rate:,.0f}/s"
                bar.advance(status[0], 0)
        finally:
            executor.close()
            bar.close()
    summary = summarise(out)
    write_json(out / SUMMARY_FILE, summary)
    return summary


def _per_hour(count: int, seconds: float) -> float | None:
    return round(3600.0 * count / seconds) if seconds > 0 else None


def summarise(root: str | Path, *, first: int = 0) -> dict[str, Any]:
    """What a run folder holds (its shards ``0..first-1`` only, when ``first`` is given), from
    the shards' ``shard.json``: shards, games, positions per phase (with and without an exact
    label), and throughput in positions per CPU-hour for each label kind: ``final`` costs the
    games' play and solves, ``exact`` the solves (its positions are the solved tails),
    ``search`` its own searches."""
    root = Path(root)
    run = read_run(root)
    shards = [
        read_meta(path, config_hash=run["config_hash"])
        for index, path in list_shards(root)
        if not first or index < first
    ]
    phases = np.zeros(12, dtype=np.int64)
    exact = np.zeros(12, dtype=np.int64)
    seconds = {"play": 0.0, "solve": 0.0, "search": 0.0}
    cpu = 0.0
    for meta in shards:
        s = meta["stats"]
        phases += s["positions_per_phase"]
        exact += s["exact_per_phase"]
        cpu += s["cpu_seconds"]
        for part in seconds:
            seconds[part] += s["seconds"][part]
    n, n_exact = int(phases.sum()), int(exact.sum())
    searched = n if run["config"]["labels"]["search_depth"] else 0
    return {
        "root": str(root),
        "shards": len(shards),
        "shards_wanted": run["config"]["shards"],
        "games": sum(m["games"] for m in shards),
        "positions": n,
        "exact_positions": n_exact,
        "phases": [
            {
                "empties": f"{5 * k + 1 if k else 0}-{5 * k + 5}",
                "positions": int(phases[k]),
                "exact": int(exact[k]),
            }
            for k in range(12)
        ],
        "cpu_seconds": {"total": round(cpu, 1), **{k: round(v, 1) for k, v in seconds.items()}},
        "positions_per_cpu_hour": {
            "final": _per_hour(n, seconds["play"] + seconds["solve"]),
            "exact": _per_hour(n_exact, seconds["solve"]),
            "search": _per_hour(searched, seconds["search"]),
            "all labels": _per_hour(n, cpu),
        },
    }
