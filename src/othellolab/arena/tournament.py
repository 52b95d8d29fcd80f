"""Tournaments: round-robin or gauntlet, colour-swapped pairs on balanced openings, played by
``play_game`` in one or more worker processes, every finished game appended to a results file
so that a killed tournament resumes where it stopped and never plays a game twice.

An output folder holds ``tournament.json`` (the config of the latest run), ``results.jsonl``
(one JSON object per finished game, the record of truth) and ``games.ggf`` (the same games as
GGF, rewritten from the results at each start). A game is identified by its pairing (the two
labels, sorted), its round (the index of its opening) and the label playing black.

>>> config = TournamentConfig(
...     players=(Entrant("r", "random:seed=1"), Entrant("g", "greedy:seed=2")),
...     games=2, size=4, openings="none")
>>> [(job.black, job.white) for job in schedule(config)]
[('g', 'r'), ('r', 'g')]
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import time
import tomllib
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from othellolab.arena.match import MatchResult, play_game
from othellolab.arena.openings import opening_set
from othellolab.core import (
    SIZES,
    Board,
    ConfigError,
    Limit,
    OthelloError,
    PlayResult,
    format_transcript,
    parse_transcript,
)
from othellolab.players.base import Player
from othellolab.players.registry import make_player
from othellolab.records._stream import atomic_writer
from othellolab.records.game import Game
from othellolab.records.ggf import format_ggf

__all__ = [
    "Entrant",
    "GameJob",
    "ResultsFile",
    "TournamentConfig",
    "TournamentError",
    "load_config",
    "load_results",
    "pairing_results",
    "record_game",
    "run_tournament",
    "schedule",
]

RESULTS = "results.jsonl"
GAMES = "games.ggf"
CONFIG = "tournament.json"
MODES = ("round-robin", "gauntlet")
MAX_GAMES = 100_000
"""Most games per pairing a config may ask for."""
MAX_WORKERS = 256

_RECORD_VERSION = 1


class TournamentError(OthelloError):
    """A tournament that cannot go on: a locked or corrupt results file, results that disagree
    with the config, or a game that failed (its pairing, round and colours in ``where``)."""


@dataclass(frozen=True)
class Entrant:
    """A player in a tournament: a unique ``label`` (its name in results and ratings) and the
    player ``spec`` that builds it."""

    label: str
    spec: str


@dataclass(frozen=True)
class TournamentConfig:
    """What to play: entrants, ``mode`` (``round-robin``: every pair; ``gauntlet``: each label
    of ``gauntlet`` against every other entrant, and against each other when ``mutual``),
    ``games`` per pairing (even: colour-swapped
    pairs, one opening per pair), ``openings`` (a list file, ``random:N`` or ``none``, see
    ``opening_set``), board ``size``, a per-move ``limit`` passed to every player (``None``: each
    player's own settings) and ``workers`` (processes playing games at once)."""

    players: tuple[Entrant, ...]
    games: int = 2
    mode: str = "round-robin"
    gauntlet: tuple[str, ...] = ()
    mutual: bool = False
    openings: str = "none"
    seed: int = 0
    size: int = 8
    limit: Limit | None = None
    workers: int = 1
    name: str = "tournament"

    def __post_init__(self) -> None:
        where = f"tournament {self.name!r}"
        labels = [e.label for e in self.players]
        if len(labels) < 2:
            raise ConfigError("needs at least two players", where=where, option="players")
        for e in self.players:
            if not e.label.strip() or e.label != e.label.strip() or "\n" in e.label:
                raise ConfigError(f"bad label {e.label!r}", where=where, option="players")
            if not isinstance(e.spec, str) or not e.spec.strip():
                raise ConfigError(f"{e.label}: empty spec", where=where, option="players")
        dupes = sorted({x for x in labels if labels.count(x) > 1})
        if dupes:
            raise ConfigError(f"duplicate labels {dupes}", where=where, option="players")
        _check_int(self.games, 2, MAX_GAMES, where, "games")
        if self.games % 2:
            raise ConfigError(
                f"{self.games} is odd; games are played in colour-swapped pairs",
                where=where,
                option="games",
            )
        if self.mode not in MODES:
            raise ConfigError(
                f"{self.mode!r}", where=where, option="mode", allowed=" or ".join(MODES)
            )
        if self.mode == "gauntlet":
            unknown = sorted(set(self.gauntlet) - set(labels))
            if not self.gauntlet or unknown:
                raise ConfigError(
                    f"needs labels of the players under test, got {list(self.gauntlet)}"
                    + (f" ({unknown} unknown)" if unknown else ""),
                    where=where,
                    option="gauntlet",
                )
            if set(self.gauntlet) == set(labels):
                raise ConfigError("names every player: nobody left to play", where=where)
        elif self.gauntlet or self.mutual:
            option = "gauntlet" if self.gauntlet else "mutual"
            raise ConfigError("is only for mode = 'gauntlet'", where=where, option=option)
        if self.size not in SIZES:
            raise ConfigError(f"{self.size!r}", where=where, option="size", allowed="8, 6 or 4")
        _check_int(self.workers, 1, MAX_WORKERS, where, "workers")
        _check_int(self.seed, 0, 2**63 - 1, where, "seed")

    @property
    def labels(self) -> list[str]:
        return [e.label for e in self.players]

    def spec_of(self, label: str) -> str:
        return next(e.spec for e in self.players if e.label == label)

    def pairings(self) -> list[tuple[str, str]]:
        """Every pairing, each as its two labels sorted, in config order."""
        labels = self.labels
        if self.mode == "gauntlet":
            pairs = [(g, o) for g in self.gauntlet for o in labels if o not in self.gauntlet]
            if self.mutual:
                tested = [x for x in labels if x in self.gauntlet]
                pairs += [(a, b) for i, a in enumerate(tested) for b in tested[i + 1 :]]
        else:
            pairs = [(a, b) for i, a in enumerate(labels) for b in labels[i + 1 :]]
        return [(a, b) if a <= b else (b, a) for a, b in pairs]

    def to_dict(self) -> dict[str, Any]:
        """The config as plain JSON-able data (what ``tournament.json`` holds)."""
        out = asdict(self)
        out["players"] = {e.label: e.spec for e in self.players}
        out["gauntlet"] = list(self.gauntlet)
        out["limit"] = _limit_dict(self.limit)
        return out

    @classmethod
    def from_dict(
        cls, data: dict[str, Any], *, where: str = "tournament config"
    ) -> TournamentConfig:
        """A config from TOML/JSON data; unknown keys are rejected."""
        known = {f for f in cls.__dataclass_fields__}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ConfigError(
                f"unknown keys {unknown}", where=where, allowed=", ".join(sorted(known))
            )
        values = dict(data)
        players = values.pop("players", None)
        if not isinstance(players, dict):
            raise ConfigError('expected a table of LABEL = "SPEC"', where=where, option="players")
        entrants = []
        for label, spec in players.items():
            if not isinstance(spec, str):
                hint = (
                    " (a TOML key with a dot is a table: quote the label)"
                    if isinstance(spec, dict)
                    else ""
                )
                raise ConfigError(
                    f"{label}: spec must be a string{hint}", where=where, option="players"
                )
            entrants.append(Entrant(str(label), spec))
        limit = values.pop("limit", None)
        gauntlet = values.pop("gauntlet", ())
        if isinstance(gauntlet, str):
            gauntlet = (gauntlet,)
        for key, kind in (("games", int), ("seed", int), ("size", int), ("workers", int)):
            if key in values and (type(values[key]) is not kind):
                raise ConfigError(f"{values[key]!r} is not an integer", where=where, option=key)
        if "mutual" in values and type(values["mutual"]) is not bool:
            raise ConfigError(
                f"{values['mutual']!r} is not true or false", where=where, option="mutual"
            )
        for key in ("mode", "openings", "name"):
            if key in values and not isinstance(values[key], str):
                raise ConfigError(f"{values[key]!r} is not a string", where=where, option=key)
        return cls(
            players=tuple(entrants),
            gauntlet=tuple(str(g) for g in gauntlet),
            limit=_parse_limit(limit, where),
            **values,
        )


def _check_int(value: Any, lo: int, hi: int, where: str, option: str) -> None:
    if type(value) is not int or not lo <= value <= hi:
        raise ConfigError(
            f"{value!r} is not an integer in [{lo}, {hi}]", where=where, option=option
        )


_LIMIT_RANGES: dict[str, tuple[float, float, type]] = {
    "time": (0.001, 3600.0, float),
    "depth": (1, 60, int),
    "nodes": (1, 10**12, int),
    "simulations": (1, 10**9, int),
}


def _parse_limit(data: Any, where: str) -> Limit | None:
    """A per-move ``Limit`` from a table like ``{time = 0.5}``; every value range-checked."""
    if data is None or data == {}:
        return None
    if not isinstance(data, dict):
        raise ConfigError("expected a table like {time = 0.5}", where=where, option="limit")
    unknown = sorted(set(data) - set(_LIMIT_RANGES))
    if unknown:
        raise ConfigError(
            f"unknown keys {unknown}", where=where, option="limit", allowed=", ".join(_LIMIT_RANGES)
        )
    values: dict[str, Any] = {}
    for key, value in data.items():
        lo, hi, kind = _LIMIT_RANGES[key]
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        ok = ok and math.isfinite(value) and lo <= value <= hi
        if kind is int:
            ok = ok and float(value).is_integer()
        if not ok:
            raise ConfigError(
                f"{value!r} is not a finite number in [{lo}, {hi}]",
                where=where,
                option=f"limit.{key}",
            )
        values[key] = kind(value)
    return Limit(**values)


def _limit_dict(limit: Limit | None) -> dict[str, Any] | None:
    if limit is None:
        return None
    return {k: getattr(limit, k) for k in _LIMIT_RANGES if getattr(limit, k) is not None}


def load_config(path: str | Path, **overrides: Any) -> TournamentConfig:
    """Read a tournament config from TOML (see ``configs/ladder.toml``); ``overrides`` replace
    top-level keys (``workers=2``)."""
    p = Path(path)
    try:
        data = tomllib.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError("no such file", where=str(p)) from None
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"not valid TOML: {e}", where=str(p)) from None
    data.update({k: v for k, v in overrides.items() if v is not None})
    return TournamentConfig.from_dict(data, where=str(p))


# ----------------------------------------------------------------------------------------------
# The schedule


@dataclass(frozen=True)
class GameJob:
    """One game to play: who plays which colour, from which opening, under which limit."""

    pairing: tuple[str, str]
    round: int
    black: str
    white: str
    black_spec: str
    white_spec: str
    opening: tuple[int, ...]
    size: int = 8
    limit: Limit | None = None
    tournament: str = "tournament"

    @property
    def key(self) -> tuple[str, str, int, str]:
        """What identifies the game in a results file: pairing, round, black's label."""
        return (self.pairing[0], self.pairing[1], self.round, self.black)

    def describe(self) -> str:
        return f"{self.black} (black) vs {self.white} (white), round {self.round + 1}"


def schedule(config: TournamentConfig) -> list[GameJob]:
    """Every game of the tournament, round by round: in round ``k`` each pairing plays opening
    ``k`` twice, colours swapped, so that a tournament stopped early is still balanced."""
    rounds = config.games // 2
    openings = opening_set(config.openings, rounds, size=config.size, seed=config.seed)
    jobs = []
    for k in range(rounds):
        for a, b in config.pairings():
            for black, white in ((a, b), (b, a)):
                jobs.append(
                    GameJob(
                        pairing=(a, b),
                        round=k,
                        black=black,
                        white=white,
                        black_spec=config.spec_of(black),
                        white_spec=config.spec_of(white),
                        opening=openings[k],
                        size=config.size,
                        limit=config.limit,
                        tournament=config.name,
                    )
                )
    return jobs


def record_key(record: dict[str, Any]) -> tuple[str, str, int, str]:
    """The key of a results record (see ``GameJob.key``)."""
    a, b = record["pairing"]
    return (a, b, int(record["round"]), record["black"])


# ----------------------------------------------------------------------------------------------
# Playing one game


class _Timed(Player):
    """A player that counts its moves and thinking time (for the per-move time in results)."""

    def __init__(self, inner: Player) -> None:
        self.inner = inner
        self.name = inner.name
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


class _Players:
    """The players of one process, built once per label and spec and reused game after game."""

    def __init__(self) -> None:
        self._cache: dict[tuple[str, str], _Timed] = {}

    def get(self, label: str, spec: str) -> _Timed:
        key = (label, spec)
        if key not in self._cache:
            self._cache[key] = _Timed(make_player(spec))
        return self._cache[key]

    def close(self) -> None:
        for p in self._cache.values():
            with contextlib.suppress(Exception):
                p.close()
        self._cache.clear()


def play_job(job: GameJob, players: _Players) -> dict[str, Any]:
    """Play one scheduled game and return its results record."""
    try:
        black = players.get(job.black, job.black_spec)
        white = players.get(job.white, job.white_spec)
        t0 = time.perf_counter()
        game = play_game(
            black, white, opening=job.opening, size=job.size, limit=job.limit,
            headers={"black": job.black, "white": job.white},
        )  # fmt: skip
    except Exception as e:  # a player's failure, named by the game it happened in
        raise TournamentError(f"{type(e).__name__}: {e}", where=job.describe()) from e
    seconds = time.perf_counter() - t0
    n = len(job.opening)
    return {
        "v": _RECORD_VERSION,
        "tournament": job.tournament,
        "pairing": list(job.pairing),
        "round": job.round,
        "black": job.black,
        "white": job.white,
        "black_spec": job.black_spec,
        "white_spec": job.white_spec,
        "size": job.size,
        "limit": _limit_dict(job.limit),
        "opening": format_transcript(job.opening, size=job.size, passes=True),
        "moves": format_transcript(game.moves[n:], size=job.size, passes=True),
        "score": game.score(),
        "seconds": round(seconds, 3),
        "black_time": round(black.seconds / max(black.moves, 1), 4),
        "white_time": round(white.seconds / max(white.moves, 1), 4),
        "finished": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
    }


def record_game(record: dict[str, Any]) -> Game:
    """The ``Game`` of a results record (opening and moves replayed and checked), with its
    players, date and score as headers, as ``games.ggf`` writes it."""
    size = int(record["size"])
    moves = parse_transcript(record["opening"] + record["moves"], size=size)
    return Game(
        tuple(moves),
        Board(size=size),
        {
            "black": record["black"],
            "white": record["white"],
            "date": record.get("finished", ""),
            "place": f"othellolab arena {record.get('tournament', '')}".strip(),
        },
        recorded_score=int(record["score"]),
    )


# ----------------------------------------------------------------------------------------------
# The results file


class ResultsFile:
    """An append-only ``results.jsonl`` in a folder, with ``games.ggf`` kept beside it.

    Opening it takes an exclusive lock on the folder (one writer at a time), drops a last line
    cut short by a kill (the game is played again) and rewrites ``games.ggf`` from the records.
    Each record is appended with one write and flushed to disk before the next game starts.
    """

    def __init__(self, folder: str | Path) -> None:
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.path = self.folder / RESULTS
        self.ggf_path = self.folder / GAMES
        self._lock_fd = _lock(self.folder)
        self.records = _read_records(self.path, repair=True)
        self._write_ggf()
        self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        self._ggf = self.ggf_path.open("a", encoding="utf-8")

    def _write_ggf(self) -> None:
        with atomic_writer(self.ggf_path) as f:
            for record in self.records:
                f.write(format_ggf(record_game(record)) + "\n")

    def append(self, record: dict[str, Any]) -> None:
        """Add one finished game: its JSON line (durably), then its GGF line."""
        line = (json.dumps(record, separators=(",", ":")) + "\n").encode("utf-8")
        os.write(self._fd, line)
        os.fsync(self._fd)
        self.records.append(record)
        self._ggf.write(format_ggf(record_game(record)) + "\n")
        self._ggf.flush()

    def close(self) -> None:
        with contextlib.suppress(OSError):
            os.close(self._fd)
        self._ggf.close()
        _unlock(self._lock_fd)

    def __enter__(self) -> ResultsFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _lock(folder: Path) -> int | None:
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows: no advisory lock
        return None
    fd = os.open(folder / ".lock", os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        raise TournamentError("another tournament is writing here", where=str(folder)) from None
    return fd


def _unlock(fd: int | None) -> None:
    if fd is not None:
        os.close(fd)  # closing the descriptor releases the lock


def _read_records(path: Path, *, repair: bool) -> list[dict[str, Any]]:
    """The records of a results file; a last line cut short is dropped (and, with ``repair``,
    cut off the file); a bad line elsewhere is an error naming it."""
    if not path.exists():
        return []
    data = path.read_bytes()
    lines = data.split(b"\n")
    keep = len(data)
    if lines and lines[-1]:  # no newline at the end: the last write was cut short
        keep -= len(lines[-1])
        lines[-1] = b""
    records = []
    for number, raw in enumerate(lines[:-1], 1):
        if not raw.strip():
            continue
        try:
            record = json.loads(raw)
            record_key(record)
        except (ValueError, KeyError, TypeError) as e:
            if number == len(lines) - 1:  # a complete but garbled last line: also cut short
                keep -= len(raw) + 1
                break
            raise TournamentError(
                f"line {number} is not a results record ({e})", where=str(path)
            ) from None
        records.append(record)
    if repair and keep < len(data):
        with path.open("r+b") as f:
            f.truncate(keep)
    return records


def load_results(*paths: str | Path) -> list[dict[str, Any]]:
    """Every record of one or more results files (or folders holding ``results.jsonl``)."""
    out: list[dict[str, Any]] = []
    for p in paths:
        path = Path(p)
        if path.is_dir():
            path = path / RESULTS
        if not path.exists():
            raise TournamentError("no such results file", where=str(path))
        out.extend(_read_records(path, repair=False))
    return out


def _check_consistent(
    config: TournamentConfig, jobs: Sequence[GameJob], records: list[dict[str, Any]], folder: Path
) -> None:
    """Refuse to resume when the results already there were played under other terms."""
    by_key = {j.key: j for j in jobs}
    limit = _limit_dict(config.limit)
    for record in records:
        where = f"{folder / RESULTS}, game {record['black']} vs {record['white']} round {record['round'] + 1}"
        for label, spec in (
            (record["black"], record["black_spec"]),
            (record["white"], record["white_spec"]),
        ):
            if label in config.labels and config.spec_of(label) != spec:
                raise TournamentError(
                    f"{label} was played as {spec!r}, the config says {config.spec_of(label)!r}; "
                    "give it a new label or use a new output folder",
                    where=where,
                )
        if int(record["size"]) != config.size or record.get("limit") != limit:
            raise TournamentError(
                f"played on {record['size']}x{record['size']} with limit {record.get('limit')}, "
                f"the config says {config.size}x{config.size} with limit {limit}; use a new output folder",
                where=where,
            )
        job = by_key.get(record_key(record))
        if job is not None:
            opening = format_transcript(job.opening, size=job.size, passes=True)
            if record["opening"] != opening:
                raise TournamentError(
                    f"opening {record['opening']} differs from the scheduled {opening} (other "
                    "openings or seed); use a new output folder",
                    where=where,
                )


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
) -> TournamentRun:
    """Play every scheduled game that ``folder`` does not hold yet and append each to its
    results as it finishes; returns all the records. ``workers`` (default: the config's)
    processes play at once; ``max_games`` stops after that many new games."""
    out = Path(folder)
    workers = config.workers if workers is None else workers
    _check_int(workers, 1, MAX_WORKERS, f"tournament {config.name!r}", "workers")
    jobs = schedule(config)
    run = TournamentRun(config, out)
    t0 = time.perf_counter()
    with ResultsFile(out) as results:
        _check_consistent(config, jobs, results.records, out)
        with atomic_writer(out / CONFIG) as f:
            json.dump(config.to_dict(), f, indent=2)
            f.write("\n")
        done = {record_key(r) for r in results.records}
        todo = [j for j in jobs if j.key not in done]
        bar = _Progress(progress, total=len(jobs), done=len(jobs) - len(todo), name=config.name)
        if max_games is not None:
            todo = todo[:max_games]
        try:
            for record in _play_all(todo, workers):
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


def _play_all(jobs: Sequence[GameJob], workers: int) -> Iterator[dict[str, Any]]:
    """Records of ``jobs`` as they finish: in this process, or in ``workers`` processes."""
    if not jobs:
        return
    if workers == 1:
        players = _Players()
        try:
            for job in jobs:
                yield play_job(job, players)
        finally:
            players.close()
        return
    import multiprocessing

    ctx = multiprocessing.get_context("spawn")  # fork would copy Numba and torch thread pools
    pending: dict[Future[dict[str, Any]], GameJob] = {}
    it = iter(jobs)
    with ProcessPoolExecutor(workers, mp_context=ctx, initializer=_init_worker) as pool:
        try:

            def submit() -> None:
                job = next(it, None)
                if job is not None:
                    pending[pool.submit(_worker_play, job)] = job

            for _ in range(2 * workers):
                submit()
            while pending:
                finished, _ = wait(pending, return_when=FIRST_COMPLETED)
                for future in finished:
                    job = pending.pop(future)
                    try:
                        record = future.result()
                    except BrokenProcessPool:
                        raise TournamentError(
                            "a worker process died (out of memory, or killed); the finished "
                            "games are kept: run the same command again to resume",
                            where=job.describe(),
                        ) from None
                    submit()
                    yield record
        finally:
            for future in pending:
                future.cancel()
            pool.shutdown(wait=True, cancel_futures=True)


_WORKER_PLAYERS: _Players | None = None


def _init_worker() -> None:
    """One compute thread per worker process: the workers are the parallelism."""
    global _WORKER_PLAYERS
    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
        os.environ[var] = "1"
    _WORKER_PLAYERS = _Players()
    import atexit

    atexit.register(_WORKER_PLAYERS.close)


def _worker_play(job: GameJob) -> dict[str, Any]:
    assert _WORKER_PLAYERS is not None
    return play_job(job, _WORKER_PLAYERS)


class _Progress:
    """A rich progress bar over the games of a tournament (silent when disabled)."""

    def __init__(self, enabled: bool, *, total: int, done: int, name: str) -> None:
        self._bar: Any = None
        if enabled:
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )

            self._bar = Progress(
                TextColumn(f"[bold]{name}[/]"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("games"),
                TimeElapsedColumn(),
                TimeRemainingColumn(),
                TextColumn("{task.description}"),
            )
            self._bar.start()
            self._task = self._bar.add_task("", total=total, completed=done)

    def advance(self, description: str) -> None:
        if self._bar is not None:
            self._bar.update(self._task, advance=1, description=description)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.stop()


# ----------------------------------------------------------------------------------------------
# Summaries


def pairing_results(records: Sequence[dict[str, Any]]) -> dict[tuple[str, str], MatchResult]:
    """Wins, draws and losses of each pairing (from the first label's point of view, labels
    in sorted order), with the sum of its disc differences."""
    out: dict[tuple[str, str], MatchResult] = {}
    for r in records:
        a, b = sorted((r["black"], r["white"]))
        m = out.setdefault((a, b), MatchResult(a, b))
        m.add(int(r["score"]) if r["black"] == a else -int(r["score"]))
    return out
