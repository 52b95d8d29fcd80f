"""Tournaments: round-robin or gauntlet, colour-swapped pairs on balanced openings, played by
``play_game`` in one or more worker processes, every finished game appended to a results file
so that a killed tournament resumes where it stopped and never plays a game twice.

An output folder holds ``tournament.json`` (the config of the latest run), ``results.jsonl``
(one JSON object per finished game, the record of truth) and, for Othello, ``games.ggf`` (the
same games as GGF, rewritten from the results at each start). A game is identified by its
pairing (the two labels, sorted), its round (the index of its opening) and the label playing
black (the first player, in any game). A folder holds the games of one game: Othello, or animal
shogi (records with ``"game": "animal-shogi"`` and moves as names, see ``results``).

The terms and the schedule are in ``tournament_config``, the results file in ``results``.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from othellolab.arena.match import MatchResult, play_game
from othellolab.arena.results import ResultsFile, check_consistent, format_moves
from othellolab.arena.tournament_config import (
    CONFIG,
    MAX_WORKERS,
    RECORD_VERSION,
    GameJob,
    TournamentConfig,
    TournamentError,
    check_int,
    limit_dict,
    record_game_name,
    record_key,
    schedule,
)
from othellolab.core import (
    Board,
    ConfigError,
    Limit,
    PlayResult,
)
from othellolab.core.files import atomic_writer
from othellolab.core.games import DEFAULT_GAME
from othellolab.core.progress import StepProgress
from othellolab.parallel import WorkerError, make_executor
from othellolab.players.base import Player
from othellolab.players.registry import get_entry, make_player, parse_spec

# ----------------------------------------------------------------------------------------------
# Playing one game


class _Timed(Player):
    """A player that counts its moves and thinking time (for the per-move time in results)."""

    def __init__(self, inner: Player) -> None:
        self.inner = inner
        self.name = inner.name
        self.games = inner.games
        self.plans_time = inner.plans_time  # the inner player gets a game clock as it would
        self.seconds = 0.0
        self.moves = 0

    def choose(self, board: Board, limit: Limit | None = None) -> PlayResult:
        t0 = time.perf_counter()
        try:
            return self.inner.choose(board, limit)
        finally:
            self.seconds += time.perf_counter() - t0
            self.moves += 1

    def reset(self) -> None:
        self.inner.reset()
        self.seconds = 0.0
        self.moves = 0

    def close(self) -> None:
        self.inner.close()


class PlayerCache:
    """The players of one process, built once per label, spec and game (``make_player``:
    a player that does not play the game is refused) and reused game after game.

    A player whose spec sets a ``seed`` is built again for each game with a seed drawn from
    its own and the game's key (``game_seed``), so that a game plays the same moves whichever
    process plays it, in whatever order, and after a resume: its random state does not run on
    from the games that process played before.
    """

    def __init__(self) -> None:
        self._cache: dict[tuple[str, str, str], _Timed] = {}
        self._seeded: dict[tuple[str, str, str], tuple[Any, _Timed]] = {}

    def get(self, label: str, spec: str, game: str = DEFAULT_GAME, key: Any = None) -> _Timed:
        """The player ``label`` plays as, for the game whose key is ``key`` (a ``GameJob.key``;
        None: a seeded player is not reseeded)."""
        cache_key = (label, spec, game)
        seed = None if key is None else _spec_seed(spec)
        if seed is None:
            if cache_key not in self._cache:
                self._cache[cache_key] = _Timed(make_player(spec, game))
            return self._cache[cache_key]
        held = self._seeded.get(cache_key)
        if held is not None and held[0] == key:
            return held[1]
        if held is not None:
            with contextlib.suppress(Exception):
                held[1].close()
        player = _Timed(make_player(spec, game, seed=game_seed(seed, key)))
        self._seeded[cache_key] = (key, player)
        return player

    def close(self) -> None:
        players = [*self._cache.values(), *(p for _, p in self._seeded.values())]
        for p in players:
            with contextlib.suppress(Exception):
                p.close()
        self._cache.clear()
        self._seeded.clear()


def _spec_seed(spec: str) -> int | None:
    """The ``seed`` a player spec sets (None: none, or not a whole number)."""
    seed = parse_spec(spec)[1].get("seed")
    return seed if isinstance(seed, int) and not isinstance(seed, bool) else None


def game_seed(seed: int, key: Any) -> int:
    """A player's seed for one game: the spec's ``seed`` and the game's key hashed together
    (SHA-256, so the same in every process and Python version), in the seed option's range."""
    text = json.dumps([seed, list(key)], separators=(",", ":"))
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") >> 1


def play_job(job: GameJob, players: PlayerCache) -> dict[str, Any]:
    """Play one scheduled game and return its results record, its game named by the game's
    ``record_fields`` (an Othello record has the board ``size``, another game's its ``game``
    name) and its moves in the game's ``format_moves``."""
    rules = job.rules
    try:
        black = players.get(job.black, job.black_spec, job.game, job.key)
        white = players.get(job.white, job.white_spec, job.game, job.key)
        t0 = time.perf_counter()
        game = play_game(
            black, white, opening=job.opening, size=job.size, limit=job.limit,
            headers={"black": job.black, "white": job.white}, game=rules,
        )  # fmt: skip
    except Exception as e:  # a player's failure, named by the game it happened in
        raise TournamentError(f"{type(e).__name__}: {e}", where=job.describe()) from e
    seconds = time.perf_counter() - t0
    n = len(job.opening)
    board = rules.record_fields()
    return {
        "v": RECORD_VERSION,
        "tournament": job.tournament,
        "pairing": list(job.pairing),
        "round": job.round,
        "black": job.black,
        "white": job.white,
        "black_spec": job.black_spec,
        "white_spec": job.white_spec,
        **board,
        "limit": limit_dict(job.limit),
        "opening": format_moves(rules, job.opening),
        "moves": format_moves(rules, game.moves[n:], start=job.opening),
        "score": game.score,
        "seconds": round(seconds, 3),
        "black_time": round(black.seconds / max(black.moves, 1), 4),
        "white_time": round(white.seconds / max(white.moves, 1), 4),
        "finished": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
    }


# ----------------------------------------------------------------------------------------------
# Running


@dataclass
class TournamentRun:
    """What ``run_tournament`` did: the records in the folder, and how many games it played."""

    config: TournamentConfig
    folder: Path
    records: list[dict[str, Any]] = field(default_factory=list)
    played: int = 0
    seconds: float = 0.0

    @property
    def complete(self) -> bool:
        keys = {record_key(r) for r in self.records}
        return all(j.key in keys for j in schedule(self.config))


def run_tournament(
    config: TournamentConfig,
    folder: str | Path,
    *,
    workers: int | None = None,
    progress: bool = False,
    max_games: int | None = None,
    on_record: Callable[[dict[str, Any]], None] | None = None,
    ray: str | None = None,
) -> TournamentRun:
    """Play every scheduled game that ``folder`` does not hold yet and append each to its
    results as it finishes; returns all the records. ``workers`` (default: the config's)
    processes play at once, or tasks on the Ray cluster at ``ray``; ``max_games`` stops after
    that many new games."""
    out = Path(folder)
    workers = config.workers if workers is None else workers
    check_int(workers, 1, MAX_WORKERS, f"tournament {config.name!r}", "workers")
    check_entrants(config)
    jobs = schedule(config)
    run = TournamentRun(config, out)
    t0 = time.perf_counter()
    with ResultsFile(out, game=config.game) as results:
        check_consistent(config, jobs, results.records, out)
        with atomic_writer(out / CONFIG) as f:
            json.dump(config.to_dict(), f, indent=2)
            f.write("\n")
        done = {record_key(r) for r in results.records}
        todo = [j for j in jobs if j.key not in done]
        bar = StepProgress(
            progress,
            total=len(jobs),
            done=len(jobs) - len(todo),
            name=config.name,
            unit="games",
        )
        if max_games is not None:
            todo = todo[:max_games]
        try:
            for record in _play_all(todo, workers, ray):
                results.append(record)
                run.played += 1
                bar.advance(f"{record['black']} {record['score']:+d} {record['white']}")
                if on_record is not None:
                    on_record(record)
        finally:
            bar.close()
        run.records = list(results.records)
    run.seconds = time.perf_counter() - t0
    return run


def check_entrants(config: TournamentConfig) -> None:
    """Refuse, before any game is played, an entrant that is unknown or does not play the
    config's game, with ``make_player``'s message located at the entrant's label. Nothing
    is built here (a player's other failures stop the tournament at its first game)."""
    for e in config.players:
        try:
            name, _ = parse_spec(e.spec)
            if config.game not in get_entry(name).games():
                make_player(e.spec, config.game).close()  # refused before it is built
        except ConfigError as error:
            raise error.at(f"tournament {config.name!r}, player {e.label!r}") from None


def _play_all(
    jobs: Sequence[GameJob], workers: int, ray: str | None = None
) -> Iterator[dict[str, Any]]:
    """Records of ``jobs`` as they finish: in this process, in ``workers`` processes, or on
    the Ray cluster at ``ray`` (``othellolab.parallel``)."""
    if not jobs:
        return
    if workers == 1 and ray is None:
        players = PlayerCache()
        try:
            with _one_compute_thread():
                for job in jobs:
                    yield play_job(job, players)
        finally:
            players.close()
        return
    executor = make_executor(workers, ray, initializer=_init_worker)
    try:
        for _, record in executor.map(_worker_play, jobs):
            yield record
    except WorkerError as e:
        raise TournamentError(e.what, where=e.task.describe()) from None
    finally:
        executor.close()


_WORKER_PLAYERS: PlayerCache | None = None
_THREAD_VARS = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS")


@contextlib.contextmanager
def _one_compute_thread() -> Iterator[None]:
    """Games played in this process get one compute thread, as a worker process does: a network
    player must not take a second core that its timed opponent does not have. Restored after."""
    saved = {var: os.environ.get(var) for var in _THREAD_VARS}
    torch = sys.modules.get("torch")
    threads = torch.get_num_threads() if torch is not None else None
    for var in _THREAD_VARS:
        os.environ[var] = "1"
    if torch is not None:
        torch.set_num_threads(1)
    try:
        yield
    finally:
        for var, value in saved.items():
            if value is None:
                os.environ.pop(var, None)
            else:
                os.environ[var] = value
        if torch is not None and threads is not None:
            torch.set_num_threads(threads)


def _init_worker() -> None:
    """One compute thread per worker process: the workers are the parallelism."""
    global _WORKER_PLAYERS
    for var in _THREAD_VARS:
        os.environ[var] = "1"
    _WORKER_PLAYERS = PlayerCache()
    import atexit

    atexit.register(_WORKER_PLAYERS.close)


def _worker_play(job: GameJob) -> dict[str, Any]:
    if _WORKER_PLAYERS is None:  # a Ray worker: no start hook ran
        _init_worker()
    assert _WORKER_PLAYERS is not None
    return play_job(job, _WORKER_PLAYERS)


# ----------------------------------------------------------------------------------------------
# Summaries


def pairing_results(records: Sequence[dict[str, Any]]) -> dict[tuple[str, str], MatchResult]:
    """Wins, draws and losses of each pairing (from the first label's point of view, labels
    in sorted order), with the sum of its disc differences (of its results, in animal
    shogi)."""
    out: dict[tuple[str, str], MatchResult] = {}
    for r in records:
        a, b = sorted((r["black"], r["white"]))
        m = out.setdefault((a, b), MatchResult(a, b, game=record_game_name(r)))
        m.add(int(r["score"]) if r["black"] == a else -int(r["score"]))
    return out
