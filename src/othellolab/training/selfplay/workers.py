"""Self-play shards as tasks for the executor (``othellolab.parallel``): in this process, in
worker processes on this machine, or as tasks on a Ray cluster. Every place runs the same
``play_shard`` on a ``ShardTask``. In this process the task holds the config and the loaded
network as objects; only across a process or machine boundary does the network travel as the
bytes of its model directory (a few hundred kB), so a remote worker needs no shared disk, and
the head writes every shard.
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from othellolab.parallel import Executor
from othellolab.training.selfplay.config import SelfPlayConfig
from othellolab.training.selfplay.records import SelfPlayRecords

if TYPE_CHECKING:
    from othellolab.nn.model import PolicyValueNet

__all__ = ["ShardTask", "model_files", "play_shard", "play_shards"]


@dataclass(frozen=True)
class ShardTask:
    """One shard to play: ``games`` games of ``game`` (a registered name, made with
    ``game_params``: ``core.games.get_game(game, **game_params)``) by ``model`` (the network
    itself in this process, the files of its directory, name -> bytes, for another process or
    machine: ``model_files``), with ``config`` seeded by ``seed``, the
    network evaluated at ``precision`` (``nn.precision.PRECISIONS``) on ``device`` (``cpu``, or
    ``cuda``: every worker process sends its batches to the GPU)."""

    name: str
    generation: int
    index: int
    games: int
    seed: int
    config: SelfPlayConfig
    model: PolicyValueNet | dict[str, bytes]
    model_generation: int
    game: str = "othello"
    game_params: dict[str, int] = field(default_factory=dict)
    precision: str = "float32"
    device: str = "cpu"


def model_files(directory: Path) -> dict[str, bytes]:
    """The files of a model directory, to send to a worker in another process or machine."""
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir()) if p.is_file()}


def play_shard(
    task: ShardTask, progress: Callable[[int], None] | None = None
) -> tuple[SelfPlayRecords, dict[str, Any]]:
    """Play one shard's games (one torch thread); returns the records and their statistics
    (wall and CPU seconds of this process included)."""
    import torch

    from othellolab.core.games import get_game
    from othellolab.nn.inference import NetworkEvaluator
    from othellolab.training.selfplay.engine import play_games

    wall, cpu = time.perf_counter(), time.process_time()
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        config = replace(task.config, seed=task.seed)
        options = dict(cache_size=0, precision=task.precision, device=task.device)
        if isinstance(task.model, dict):
            with tempfile.TemporaryDirectory(prefix="othellolab-model-") as tmp:
                for name, data in task.model.items():
                    Path(tmp, name).write_bytes(data)
                evaluator = NetworkEvaluator.from_dir(tmp, **options, **config.utility())
        else:
            evaluator = NetworkEvaluator(task.model, **options, **config.utility())
        game = get_game(task.game, **task.game_params)
        records = play_games(evaluator, task.games, game=game, config=config, progress=progress)
    finally:
        torch.set_num_threads(threads)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    resigned = records.resigned >= 0
    stats = {
        "model_generation": task.model_generation,
        "device": task.device,
        "evaluations": records.evaluations,
        "wall_seconds": wall,
        "cpu_seconds": cpu,
        "games_per_second": records.games / wall,
        "positions_per_second": len(records) / wall,
        "mean_length": float(records.length.mean()),
        "black_score": float(
            (records.black_result == 1).mean() + 0.5 * (records.black_result == 0).mean()
        ),
        "resigned_share": float(resigned.mean()),
        "false_resignations": int(records.false_resignation[records.no_resign].sum()),
        "would_resign": int((records.no_resign & (records.would_resign >= 0)).sum()),
        "worker_pid": os.getpid(),
    }
    return records, stats


def play_shards(
    executor: Executor, tasks: Iterable[ShardTask], progress: Callable[[int], None]
) -> Iterator[tuple[ShardTask, tuple[SelfPlayRecords, dict[str, Any]]]]:
    """Play ``tasks`` where ``executor`` runs them, yielding ``(task, (records, stats))`` as
    each finishes; ``progress`` hears games done (game by game in this process)."""
    return executor.map(
        play_shard, tasks, progress=progress, units=lambda _, result: result[0].games
    )
