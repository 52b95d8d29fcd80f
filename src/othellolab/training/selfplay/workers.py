"""Where self-play shards are played: in this process, in worker processes on this machine,
or as tasks on a Ray cluster. Every place runs the same ``play_shard`` on a ``ShardTask``;
the network travels as the bytes of its model directory (a few hundred kB), so a remote
worker needs no shared disk, and the head writes every shard.
"""

from __future__ import annotations

import os
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field, replace
from multiprocessing import get_context
from pathlib import Path
from typing import Any

from othellolab.core import ConfigError
from othellolab.training.selfplay.config import SelfPlayConfig
from othellolab.training.selfplay.records import SelfPlayRecords

__all__ = ["Executor", "ShardTask", "make_executor", "model_files", "play_shard"]


@dataclass(frozen=True)
class ShardTask:
    """One shard to play: ``games`` games of ``game`` (a registered name, made with
    ``game_params``: ``core.games.get_game(game, **game_params)``) by the model whose
    directory's files are ``model`` (name -> bytes), with ``config`` seeded by ``seed``, the
    network evaluated at ``precision`` (``nn.precision.PRECISIONS``) on ``device`` (``cpu``, or
    ``cuda``: every worker process sends its batches to the GPU)."""

    name: str
    generation: int
    index: int
    games: int
    seed: int
    config: dict[str, Any]
    model: dict[str, bytes]
    model_generation: int
    game: str = "othello"
    game_params: dict[str, int] = field(default_factory=dict)
    precision: str = "float32"
    device: str = "cpu"


def model_files(directory: Path) -> dict[str, bytes]:
    """The files of a model directory, to send to a worker."""
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
        config = replace(SelfPlayConfig.from_dict(task.config), seed=task.seed)
        with tempfile.TemporaryDirectory(prefix="othellolab-model-") as tmp:
            for name, data in task.model.items():
                Path(tmp, name).write_bytes(data)
            evaluator = NetworkEvaluator.from_dir(
                tmp,
                cache_size=0,
                precision=task.precision,
                device=task.device,
                **config.utility(),
            )
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


def _play_in_worker(task: ShardTask) -> tuple[SelfPlayRecords, dict[str, Any]]:
    return play_shard(task)


def _exit_with(parent: int, every: float = 0.5) -> None:
    """Worker initializer: end this process as soon as ``parent`` is gone (killed with
    ``kill -9``, say), so that no orphaned worker keeps a core busy with a shard nobody
    will read."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(every)
        os._exit(1)

    threading.Thread(target=watch, name="othellolab-parent-watch", daemon=True).start()


class Executor:
    """Plays shard tasks and yields ``(task, records, stats)`` as each one finishes."""

    def run(
        self, tasks: list[ShardTask], progress: Callable[[int], None]
    ) -> Iterator[tuple[ShardTask, SelfPlayRecords, dict[str, Any]]]:
        for task in tasks:
            done = [0]

            def each(finished: int, done: list[int] = done) -> None:
                progress(finished - done[0])
                done[0] = finished

            records, stats = play_shard(task, each)
            yield task, records, stats

    def close(self) -> None:
        return None


class ProcessExecutor(Executor):
    """Worker processes on this machine (spawned: each its own torch and Numba)."""

    def __init__(self, workers: int) -> None:
        self.pool = ProcessPoolExecutor(
            max_workers=workers,
            mp_context=get_context("spawn"),
            initializer=_exit_with,
            initargs=(os.getpid(),),
        )

    def run(
        self, tasks: list[ShardTask], progress: Callable[[int], None]
    ) -> Iterator[tuple[ShardTask, SelfPlayRecords, dict[str, Any]]]:
        futures = {self.pool.submit(_play_in_worker, t): t for t in tasks}
        try:
            for future in as_completed(futures):
                records, stats = future.result()
                progress(records.games)
                yield futures[future], records, stats
        finally:
            for future in futures:
                future.cancel()

    def close(self) -> None:
        self.pool.shutdown(wait=True, cancel_futures=True)


class RayExecutor(Executor):
    """Self-play tasks on a Ray cluster (``address``: ``auto``, ``local`` to start one here,
    or a cluster address); the records come back through Ray's object store."""

    def __init__(self, address: str, workers: int) -> None:
        try:
            import ray
        except ImportError:
            raise ConfigError(
                "the Ray path needs ray: pip install 'othellolab[distributed]'", option="ray"
            ) from None
        self.ray = ray
        if not ray.is_initialized():
            try:
                if address == "local":
                    ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False)
                else:
                    ray.init(address=address, log_to_driver=False)
            except Exception as e:  # ray raises its own types for a bad or unreachable address
                raise ConfigError(
                    f"cannot join the Ray cluster at {address[:200]!r}: {e}", option="ray"
                ) from None
        self.remote = ray.remote(num_cpus=1)(_play_in_worker)

    def run(
        self, tasks: list[ShardTask], progress: Callable[[int], None]
    ) -> Iterator[tuple[ShardTask, SelfPlayRecords, dict[str, Any]]]:
        pending = {self.remote.remote(t): t for t in tasks}
        try:
            while pending:
                ready, _ = self.ray.wait(list(pending), num_returns=1)
                for ref in ready:
                    task = pending.pop(ref)
                    records, stats = self.ray.get(ref)
                    progress(records.games)
                    yield task, records, stats
        finally:
            for ref in pending:
                self.ray.cancel(ref)


def make_executor(workers: int, ray: str | None = None) -> Executor:
    """This process (``workers == 1``), worker processes, or Ray when ``ray`` is given."""
    if ray is not None:
        if not ray.strip():
            raise ConfigError(
                "give auto, local or a cluster address, not an empty value", option="ray"
            )
        return RayExecutor(ray.strip(), workers)
    return ProcessExecutor(workers) if workers > 1 else Executor()
