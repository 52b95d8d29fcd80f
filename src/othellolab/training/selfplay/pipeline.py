"""The AlphaZero loop as stages with files between them (``othellolab train selfplay``).

A run directory (``training.rundir.RunDir``) holds::

    run.toml, config.json       the config as given, and frozen (a resume must match it)
    models/genNNNN/             the generations (nn.io model directories); gen0000 is the start
    shards/gNNNN-KKK/           self-play games played by generation NNNN (``shards``)
    train/genNNNN/              the checkpoint of the generation being trained (run_loop's)
    gates/genNNNN.json          gating: generation NNNN against the best, and the verdict
    grades/genNNNN.json         grades against perfect play (a game with exact grading:
                                Othello's 6x6 set and 4x4 solution)
    rates/genNNNN.json          matches against fixed players
    metrics.jsonl               one line per stage result, rebuilt from the files above

Each stage's output appears by one rename, and a stage whose output exists is done; so a run
killed at any moment and started again redoes at most the unfinished shard, the training
steps since its last checkpoint, or the unfinished gate, grade or rating, and numbers its
generations the same. ``metrics.jsonl`` is a view of the outputs, rewritten whole after each
stage, so it never counts a result twice.

One generation: ``selfplay`` (the best generation plays ``loop.games`` games into
``loop.shards`` shards, seeded per shard), ``train`` (the newest generation, trained on the
window of the last ``loop.window`` generations' shards, becomes the next), then ``gate``,
``grade`` and ``rate`` as configured.

A time limit (``train_selfplay(time_limit_s=)``, ``train selfplay --time-limit``) ends a start
at the first boundary after it: no shard is started after it (the shards under way finish and
are kept), training stops with a checkpoint at the next step, and no gate, grade or rating
starts; the newest model is the last whole generation, and the next start goes on from there.
"""

from __future__ import annotations

import json
import math
import shutil
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import torch

from othellolab.core import ConfigError
from othellolab.core.files import replace_dir, write_json, write_text
from othellolab.core.progress import StepProgress
from othellolab.nn.config import AUX_HEADS, ModelConfig
from othellolab.nn.io import load_matching, load_model, read_model_info, save_model
from othellolab.nn.models import build_model
from othellolab.parallel import Executor, make_executor
from othellolab.training.loop import LoopOptions, check_time_limit, run_loop
from othellolab.training.rundir import RunDir
from othellolab.training.selfplay.metrics import grade_rows, read_metrics, stage_records
from othellolab.training.selfplay.runconfig import SelfPlayRunConfig, rate_openings
from othellolab.training.selfplay.shards import (
    ShardError,
    list_shards,
    read_shard,
    shard_name,
    write_shard,
)
from othellolab.training.selfplay.trainer import Window, WindowTrainer
from othellolab.training.selfplay.workers import ShardTask, model_files, play_shards

__all__ = ["SelfPlayRun", "generation_name", "read_metrics", "train_selfplay"]

MAY_CHANGE = (
    "runs_dir",
    "runtime",
    "grade",
    "rate",
    "loop.generations",
    "loop.cpu_hours",
    "loop.workers",
    "loop.skip_corrupt",
)
"""Tables and options that may change when a run resumes: they measure the run, say where it
runs or when it stops, not what it learns (shards are seeded one by one, so the number of
workers does not change them; a generation graded later is graded as if on time).
``loop.skip_corrupt`` is how a run goes on past a corrupt shard, as the ``ShardError`` says
(the train record lists the skipped shard)."""


def generation_name(generation: int) -> str:
    """The folder name of a generation (``gen0007``): zero-padded so that folders sort in order."""
    return f"gen{generation:04d}"


def _seed(*parts: int) -> int:
    return int(
        np.random.SeedSequence(list(parts)).generate_state(2, np.uint32).view(np.uint64)[0] >> 1
    )


class TimeUp(Exception):
    """The start's time limit passed: the stage stopped at a boundary it resumes from."""


@dataclass
class RunSummary:
    """Where a call of ``train_selfplay`` left the run (``stopped``: ``generations``,
    ``cpu_hours`` or ``time_limit``)."""

    root: Path
    generation: int
    best: int
    cpu_hours: float
    stopped: str


class SelfPlayRun:
    """The stages of one run over its directory (see the module docstring)."""

    def __init__(
        self,
        cfg: SelfPlayRunConfig,
        *,
        text: str | None = None,
        progress: bool = True,
        ray: str | None = None,
        log: Any = None,
        time_limit_s: float | None = None,
    ) -> None:
        check_time_limit(time_limit_s)
        self.deadline = None if time_limit_s is None else time.monotonic() + time_limit_s
        self.cfg = cfg
        self.root = cfg.run_dir
        self.run = RunDir(self.root)
        self.run.freeze(cfg.to_dict(), text=text, defaults=cfg.defaults(), ignore=MAY_CHANGE)
        self.shards = self.root / "shards"
        self.train_root = self.root / "train"
        self.progress = progress
        self.ray = ray
        self.log = log or (lambda message: None)
        self._executor: Executor | None = None
        self._anchor: Window | None = None
        if cfg.runtime.device == "cuda" and not torch.cuda.is_available():
            raise ConfigError("[runtime] device = 'cuda' but torch sees no CUDA device")
        want = cfg.runtime.device
        self.device = torch.device(
            ("cuda" if torch.cuda.is_available() else "cpu") if want == "auto" else want
        )
        self.precision = "auto" if cfg.runtime.mixed_precision else "float32"
        """How self-play and grading evaluate the network (``nn.precision``): bfloat16 where
        the hardware is fast at it, unless ``[runtime] mixed_precision = false``."""

    def time_up(self) -> bool:
        """Whether this start's time limit has passed."""
        return self.deadline is not None and time.monotonic() >= self.deadline

    def _check_time(self) -> None:
        if self.time_up():
            raise TimeUp

    # ---- files -------------------------------------------------------------------------

    def model_dir(self, generation: int) -> Path:
        return self.run.models / generation_name(generation)

    def generations(self) -> list[int]:
        """The complete generations, in order."""
        if not self.run.models.is_dir():
            return []
        out = []
        for p in self.run.models.iterdir():
            if p.name.startswith("gen") and p.name[3:].isdigit() and (p / "config.json").exists():
                out.append(int(p.name[3:]))
        return sorted(out)

    def record(self, folder: str, generation: int) -> Path:
        (self.root / folder).mkdir(parents=True, exist_ok=True)
        return self.root / folder / f"{generation_name(generation)}.json"

    def best(self, latest: int) -> int:
        """The generation self-play uses: the newest, or with gating the last promoted."""
        if self.cfg.gate.games == 0:
            return latest
        best = 0
        for g in range(1, latest + 1):
            path = self.record("gates", g)
            if path.exists() and json.loads(path.read_text()).get("promoted"):
                best = g
        return best

    def start_value(self, generation: int) -> float:
        """The value generation ``generation`` gives the start position, for the side to move
        (the first player): where self-play believes the game goes (6x6 Othello is a 4-disc
        loss, -4/36 by discs; animal shogi a loss for the first player)."""
        from othellolab.nn.inference import NetworkEvaluator

        evaluator = NetworkEvaluator.from_dir(self.model_dir(generation), cache_size=0)
        p, o = self.cfg.rules.start()
        _, values = evaluator.evaluate(
            np.array([p], np.uint64), np.array([o], np.uint64), self.cfg.rules
        )
        return float(values[0])

    def player(self, generation: int, simulations: int, *, seed: int) -> Any:
        """Generation ``generation`` as an ``alphazero`` player named after it."""
        from othellolab.players.network import AlphaZeroPlayer

        player = AlphaZeroPlayer(model=str(self.model_dir(generation)), sims=simulations, seed=seed)
        player.name = generation_name(generation)
        return player

    # ---- stages ------------------------------------------------------------------------

    def start(self) -> None:
        """Generation 0: random weights (seeded) or the ``loop.init`` network, extended with
        the auxiliary heads and global pooling of ``[model]`` that it lacks (initialised
        fresh, seeded; the log and gen0's ``training.init_new`` name them)."""
        if self.model_dir(0).joinpath("config.json").exists():
            return
        cfg = self.cfg
        if cfg.loop.init:
            from othellolab.nn.pretrained import resolve

            init = resolve(cfg.loop.init)
            info = read_model_info(init)
            if info.config.rules != cfg.rules:
                raise ConfigError(
                    f"the model in {cfg.loop.init} plays {info.config.rules.label}, "
                    f"this run is {cfg.rules.label}",
                    option="loop.init",
                )
            torch.manual_seed(cfg.seed)
            model = build_model(extended_config(info.config, cfg.model))
            loaded, new = load_matching(model, init)
            self.log(
                f"{generation_name(0)} from {cfg.loop.init}: {len(loaded)} tensors loaded, "
                f"{len(new)} new" + (f" ({', '.join(new)})" if new else "")
            )
            meta = {"run": cfg.name, "generation": 0, "init": str(cfg.loop.init)}
            meta["init_loaded"], meta["init_new"] = len(loaded), new
            meta["score_value"] = cfg.selfplay.score_value
        else:
            torch.manual_seed(cfg.seed)
            model = build_model(cfg.model)
            meta = {"run": cfg.name, "generation": 0, "init": "random"}
            meta["score_value"] = cfg.selfplay.score_value
        with replace_dir(self.model_dir(0), overwrite=True) as tmp:
            save_model(model, tmp, training=meta)

    def selfplay(self, generation: int) -> None:
        """Play the shards of ``generation`` that are not on disk yet."""
        cfg = self.cfg
        have = {(g, k) for g, k, _ in list_shards(self.shards)}
        n = cfg.loop.shards
        sizes = [cfg.loop.games // n + (1 if k < cfg.loop.games % n else 0) for k in range(n)]
        todo = [k for k in range(n) if (generation, k) not in have and sizes[k] > 0]
        if not todo:
            return
        player = self.best(generation)
        executor = self._executors()
        if executor.in_process:
            model: Any = load_model(self.model_dir(player), device="cpu")[0]
        else:
            model = model_files(self.model_dir(player))
        tasks = [
            ShardTask(
                name=shard_name(generation, k),
                generation=generation,
                index=k,
                games=sizes[k],
                seed=_seed(cfg.seed, generation, k),
                config=cfg.selfplay,
                model=model,
                model_generation=player,
                game=cfg.rules.name,
                game_params=cfg.rules.params,
                precision=self.precision,
                device=self.device.type,
            )
            for k in todo
        ]
        done = cfg.loop.games - sum(sizes[k] for k in todo)
        bar = StepProgress(
            self.progress,
            total=cfg.loop.games,
            done=done,
            name=f"self-play {generation_name(generation)}",
            unit="games",
        )
        started = (task for task in tasks if not self.time_up())
        try:
            for task, (records, stats) in play_shards(
                executor, started, lambda k: bar.advance("", k)
            ):
                write_shard(
                    self.shards / task.name,
                    records,
                    generation=generation,
                    index=task.index,
                    seed=task.seed,
                    stats=stats,
                )
        finally:
            bar.close()
        self._check_time()

    def _executors(self) -> Executor:
        if self._executor is None:
            self._executor = make_executor(self.cfg.loop.workers, self.ray)
        return self._executor

    def window(self, generation: int) -> Window:
        """The positions that train generation ``generation + 1``: the shards of the last
        ``window`` generations up to ``generation`` (growing from ``min_window``)."""
        cfg = self.cfg
        width = max(cfg.loop.min_window, min(cfg.loop.window, generation + 1))
        shards = []
        skipped = []
        for g, _k, path in list_shards(self.shards):
            if generation - width < g <= generation:
                try:
                    shards.append(read_shard(path, game=cfg.rules))
                except ShardError as e:
                    if not cfg.loop.skip_corrupt:
                        raise ShardError(
                            f"{e.what} (run again with skip_corrupt = true in [loop] to train "
                            "without it)",
                            where=e.where,
                        ) from None
                    skipped.append(str(e))
                    self.log(f"skipped a corrupt shard: {e}")
        if not shards:
            raise ShardError("no self-play shard to train on", where=str(self.shards))
        window = Window(shards, cfg.rules)
        window.new_positions = sum(
            s.positions for s in shards if s.meta["generation"] == generation
        )
        window.skipped = skipped
        return window

    def anchor(self) -> Window | None:
        """The expert rows of ``[train] anchor`` (read once a process), or None."""
        t = self.cfg.train
        if t.anchor_rows() == 0:
            return None
        if self._anchor is None:
            from othellolab.training.selfplay.anchor import load_anchor

            self._anchor = load_anchor(t, self.cfg.rules, self.cfg.seed)
            self.log(
                f"anchor: {self._anchor.description}, {t.anchor_rows()} of each batch of "
                f"{t.batch_size}"
            )
        return self._anchor

    def train(self, generation: int) -> None:
        """Train generation ``generation + 1`` from ``generation`` on the window."""
        cfg = self.cfg
        target = generation + 1
        wall, cpu = time.perf_counter(), time.process_time()
        window = self.window(generation)
        model, _ = load_model(self.model_dir(generation), device=str(self.device))
        previous = self.train_root / generation_name(generation) / "train" / "state"
        trainer = WindowTrainer(
            cfg,
            model,
            window,
            generation=target,
            previous_state=previous if previous.exists() else None,
            device=self.device,
            target=self.model_dir(target),
            anchor=self.anchor(),
        )
        sub = RunDir(self.train_root / generation_name(target))
        options = LoopOptions(
            name=f"train {generation_name(target)}",
            epochs=1,
            checkpoint_every_steps=max(1, trainer.steps_per_epoch // 4),
            progress=self.progress,
            stop=None if self.deadline is None else lambda step: self.time_up(),
        )
        result = run_loop(sub, trainer, options)
        if result.stopped:
            raise TimeUp
        trainer.meta = {
            "run": cfg.name,
            "parent": generation,
            "losses": result.train,
            "wall_seconds": time.perf_counter() - wall,
            "cpu_seconds": time.process_time() - cpu,
        }
        trainer.export(result.state, result.metrics)
        for old in self.train_root.iterdir():
            name = old.name.removesuffix(".tmp").removesuffix(".old")
            if name[3:].isdigit() and int(name[3:]) < generation:
                shutil.rmtree(old)

    def gate(self, generation: int) -> None:
        """Play generation ``generation`` against the best so far; promote it if it wins."""
        from othellolab.arena.match import play_match
        from othellolab.arena.openings import random_openings

        cfg, path = self.cfg, self.record("gates", generation)
        if cfg.gate.games == 0 or path.exists():
            return
        wall, cpu = time.perf_counter(), time.process_time()
        best = self.best(generation - 1)
        rng = np.random.default_rng([cfg.seed, generation, 7])
        openings = random_openings(
            math.ceil(cfg.gate.games / 2),
            cfg.gate.opening_plies,
            rng=rng,
            game=cfg.rules,
        )

        result = play_match(
            self.player(generation, cfg.gate.simulations, seed=generation),
            self.player(best, cfg.gate.simulations, seed=best),
            games=cfg.gate.games,
            openings=openings,
            game=cfg.rules,
        )
        write_json(
            path,
            {
                "generation": generation,
                "against": best,
                "wins": result.wins,
                "draws": result.draws,
                "losses": result.losses,
                "score": result.score,
                "promoted": result.score > cfg.gate.threshold,
                "wall_seconds": time.perf_counter() - wall,
                "cpu_seconds": time.process_time() - cpu,
            },
        )

    def grade(self, generation: int) -> None:
        """Grade generation ``generation`` against perfect play (a game whose perfect play
        the graders know, ``Game.has_exact_grading``)."""
        from othellolab.nn.inference import NetworkEvaluator
        from othellolab.training.selfplay.grading import grade_evaluator, graded_entries

        cfg, path = self.cfg, self.record("grades", generation)
        every = cfg.grade.every
        game = cfg.rules
        if every == 0 or generation % every or not game.has_exact_grading or path.exists():
            return
        wall, cpu = time.perf_counter(), time.process_time()
        evaluator = NetworkEvaluator.from_dir(
            self.model_dir(generation),
            cache_size=0,
            precision=self.precision,
            **cfg.selfplay.utility(),
        )
        entries = graded_entries(game, cfg.grade.positions)
        config = replace(cfg.selfplay, seed=0, solve_empties=0)
        searched = tuple(s for s in cfg.grade.simulations if s > 0)
        assisting = bool(cfg.selfplay.solve_empties)
        where = f"{len(entries)} graded positions" if entries else "the whole solution"
        bar = StepProgress(
            self.progress,
            total=len(cfg.grade.simulations) + (len(searched) if assisting else 0),
            done=0,
            name=f"grade {generation_name(generation)}",
            unit="grades",
        )

        def graded(sims: int, how: str = "") -> None:
            bar.advance(f"{'raw policy' if sims == 0 else f'{sims} simulations'}{how}, {where}")

        try:
            grades = grade_evaluator(
                evaluator,
                game,
                simulations=cfg.grade.simulations,
                config=config,
                entries=entries,
                progress=graded,
            )
            out: dict[str, Any] = {"generation": generation, "simulations": grade_rows(grades)}
            if assisting:
                assisted = grade_evaluator(
                    evaluator,
                    game,
                    simulations=searched,
                    config=replace(
                        config, solve_empties=cfg.selfplay.solve_empties, solve_leaves=True
                    ),
                    entries=entries,
                    progress=lambda sims: graded(sims, " with the exact endgame"),
                )
                out["exact_endgame"] = {
                    "empties": cfg.selfplay.solve_empties,
                    "simulations": grade_rows(assisted),
                }
        finally:
            bar.close()
        out["wall_seconds"] = time.perf_counter() - wall
        out["cpu_seconds"] = time.process_time() - cpu
        write_json(path, out)

    def rating_openings(self, generation: int) -> list[tuple[int, ...]]:
        """The openings generation ``generation`` is rated on, each played twice with colours
        swapped (``[rate] openings`` and ``fresh_openings``)."""
        from othellolab.arena.openings import random_openings

        cfg, r = self.cfg, self.cfg.rate
        count = math.ceil(r.games / 2)
        key = [cfg.seed, 11, generation] if r.fresh_openings else [cfg.seed, 11]
        if not r.openings:
            rng = np.random.default_rng(key)
            return random_openings(count, r.opening_plies, rng=rng, game=cfg.rules)
        return rate_openings(r, count, seed=key, game=cfg.rules)

    def rate(self, generation: int) -> None:
        """Matches of generation ``generation`` against the fixed opponents of ``[rate]``."""
        from othellolab.arena.match import play_match
        from othellolab.players.registry import make_player

        cfg, path = self.cfg, self.record("rates", generation)
        r = cfg.rate
        if r.every == 0 or generation % r.every or not r.opponents or path.exists():
            return
        wall, cpu = time.perf_counter(), time.process_time()
        openings = self.rating_openings(generation)
        me = self.player(generation, r.simulations, seed=0)
        matches = []
        for spec in r.opponents:
            result = play_match(
                me,
                make_player(spec),
                games=r.games,
                openings=openings,
                game=cfg.rules,
            )
            matches.append(
                {
                    "opponent": spec,
                    "wins": result.wins,
                    "draws": result.draws,
                    "losses": result.losses,
                    "score": result.score,
                    "disc_diff": result.disc_diff / max(result.n, 1),
                }
            )
        write_json(
            path,
            {
                "generation": generation,
                "simulations": r.simulations,
                "openings": r.openings or f"random:{r.opening_plies}",
                "fresh_openings": r.fresh_openings,
                "start_value": self.start_value(generation),
                "matches": matches,
                "wall_seconds": time.perf_counter() - wall,
                "cpu_seconds": time.process_time() - cpu,
            },
        )

    # ---- the loop ----------------------------------------------------------------------

    def write_metrics(self) -> list[dict[str, Any]]:
        """Rebuild ``metrics.jsonl`` from the stage outputs; returns its records."""
        records = list(stage_records(self))
        text = "".join(json.dumps(r) + "\n" for r in records)
        write_text(self.run.metrics, text)
        return records

    def learning_cpu_hours(self) -> float:
        records = list(stage_records(self))
        return records[-1]["cpu_hours"] if records else 0.0

    def loop(self) -> RunSummary:
        """Run stages until ``loop.generations`` or the CPU budget is reached."""
        cfg = self.cfg
        if cfg.rate.every and cfg.rate.opponents:
            self.rating_openings(0)  # a missing or malformed list fails now, not hours later
        self.start()
        stopped = "generations"
        try:
            while True:
                done = self.generations()
                latest = done[-1]
                self._check_time()
                self.gate(latest)
                for g in done:
                    self._check_time()
                    self.grade(g)
                    self._check_time()
                    self.rate(g)
                self.write_metrics()
                if cfg.loop.generations and latest >= cfg.loop.generations:
                    break
                if cfg.loop.cpu_hours and self.learning_cpu_hours() >= cfg.loop.cpu_hours:
                    stopped = "cpu_hours"
                    break
                self._check_time()
                self.selfplay(latest)
                self.write_metrics()
                self._check_time()
                self.train(latest)
                self.log(f"{generation_name(latest + 1)} trained")
        except TimeUp:
            stopped = "time_limit"
            self.write_metrics()
        finally:
            if self._executor is not None:
                self._executor.close()
        latest = self.generations()[-1]
        return RunSummary(self.root, latest, self.best(latest), self.learning_cpu_hours(), stopped)


def extended_config(init: ModelConfig, run: ModelConfig) -> ModelConfig:
    """The network a run starts from ``init`` with: ``init``'s shape, plus the auxiliary heads
    and global pooling that the run's ``[model]`` asks for and ``init`` lacks."""
    extra: dict[str, Any] = {k: True for k in AUX_HEADS if getattr(run, k)}
    if run.global_pool_every and not init.global_pool_every:
        extra["global_pool_every"] = run.global_pool_every
    return replace(init, **extra) if extra else init


def train_selfplay(
    cfg: SelfPlayRunConfig,
    *,
    text: str | None = None,
    progress: bool = True,
    ray: str | None = None,
    log: Any = None,
    time_limit_s: float | None = None,
) -> RunSummary:
    """Start or resume the self-play run of ``cfg`` and run it to its end, or until
    ``time_limit_s`` seconds of wall clock have passed (then it stops at the next stage
    boundary, see the module docstring; the next start goes on)."""
    if cfg.runtime.threads >= 1:
        torch.set_num_threads(cfg.runtime.threads)
    run = SelfPlayRun(
        cfg, text=text, progress=progress, ray=ray, log=log, time_limit_s=time_limit_s
    )
    return run.loop()
