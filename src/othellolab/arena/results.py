"""A tournament's results file: ``results.jsonl``, one JSON object per finished game appended as
it ends (the record of truth; a line cut short by a kill is dropped and its game replayed), with
the games in their game's ``record_format`` rewritten beside it (Othello's ``games.ggf``), a lock that keeps two runs out of one folder, and
the check that results already there were played under the same terms (the same game first).

A record's moves are text in the game's ``format_moves``: an Othello transcript (passes as
``PA``), or another game's move names separated by spaces (``parse_moves`` reads them).
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO, Any

from othellolab.arena.match import MoveRecord
from othellolab.arena.tournament_config import (
    GAMES,
    RESULTS,
    GameJob,
    TournamentConfig,
    TournamentError,
    limit_dict,
    record_game_name,
    record_key,
    record_rules,
)
from othellolab.core.files import atomic_writer
from othellolab.core.games import DEFAULT_GAME, get_game
from othellolab.core.games import Game as Rules
from othellolab.records.game import GameRecord
from othellolab.records.ggf import format_ggf

# ----------------------------------------------------------------------------------------------
# Moves as text


def format_moves(rules: Rules, actions: Sequence[int], *, start: Sequence[int] = ()) -> str:
    """``actions``, played after ``start`` from the game's start position, as a record writes
    them (``Game.format_moves``: an Othello transcript with passes as ``PA``, ``"f5d6PA"``; the
    move names of another game separated by spaces, animal shogi's ``"b3b2 b2b1+ C*b3"``)."""
    return rules.format_moves(actions, start=start)


def parse_moves(rules: Rules, text: str, *, start: Sequence[int] = ()) -> list[int]:
    """The actions of ``format_moves``'s text, checked against the rules after ``start``; a
    bad move raises the game's ``MoveError`` with its 1-based number."""
    return rules.parse_moves(text, start=start)


# ----------------------------------------------------------------------------------------------
# The results file


def record_game(record: dict[str, Any]) -> GameRecord:
    """The ``GameRecord`` of a results record of a game recorded as GGF (Othello; opening and
    moves replayed and checked), with its players, date and score as headers, as ``games.ggf``
    writes it."""
    rules = record_rules(record)
    opening = parse_moves(rules, record["opening"])
    moves = parse_moves(rules, record["moves"], start=opening)
    return GameRecord(
        (*opening, *moves),
        rules.new_position(),
        {
            "black": record["black"],
            "white": record["white"],
            "date": record.get("finished", ""),
            "place": f"othellolab arena {record.get('tournament', '')}".strip(),
        },
        recorded_score=int(record["score"]),
    )


def record_moves(record: dict[str, Any]) -> MoveRecord:
    """The ``MoveRecord`` of a results record (opening and moves replayed and checked), with its
    players, date and score (the first player's result; Othello's: black's disc difference)."""
    rules = record_rules(record)
    opening = parse_moves(rules, record["opening"])
    moves = parse_moves(rules, record["moves"], start=opening)
    return MoveRecord(
        rules.key,
        (*opening, *moves),
        int(record["score"]),
        {
            "black": record["black"],
            "white": record["white"],
            "date": record.get("finished", ""),
            "place": f"othellolab arena {record.get('tournament', '')}".strip(),
        },
    )


def _ggf_line(record: dict[str, Any]) -> str:
    return format_ggf(record_game(record))


_RECORD_FILES: dict[str, tuple[str, Callable[[dict[str, Any]], str]]] = {"ggf": (GAMES, _ggf_line)}
"""The file a tournament keeps beside its results, and the line of a record in it, by the
game's ``record_format``."""


class ResultsFile:
    """An append-only ``results.jsonl`` in a folder, of the games of ``game`` (a
    ``core.games`` name), with the games also in their game's ``record_format`` beside it
    (Othello's ``games.ggf``).

    Opening it takes an exclusive lock on the folder (one writer at a time), drops a last line
    cut short by a kill (the game is played again), refuses records of another game and
    rewrites that file (``ggf_path``) from the records. Each record is appended with one write and flushed
    to disk before the next game starts.
    """

    def __init__(self, folder: str | Path, *, game: str = DEFAULT_GAME) -> None:
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.path = self.folder / RESULTS
        self.game = game
        kept = _RECORD_FILES.get(get_game(game).record_format or "")
        self.ggf_path = None if kept is None else self.folder / kept[0]
        self._line = None if kept is None else kept[1]
        self._lock_fd = _lock(self.folder)
        try:  # a refusal leaves the folder unlocked, as it found it
            self.records = _read_records(self.path, repair=True)
            check_game(self.records, game, self.path)
            self._write_ggf()
            self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        except BaseException:
            _unlock(self._lock_fd)
            raise
        self._ggf: IO[str] | None = None
        if self.ggf_path is not None:
            self._ggf = self.ggf_path.open("a", encoding="utf-8")

    def _write_ggf(self) -> None:
        if self.ggf_path is None or self._line is None:
            return
        with atomic_writer(self.ggf_path) as f:
            for record in self.records:
                f.write(self._line(record) + "\n")

    def append(self, record: dict[str, Any]) -> None:
        """Add one finished game: its JSON line (durably), then its line in the game's own
        format (GGF for Othello)."""
        line = (json.dumps(record, separators=(",", ":")) + "\n").encode("utf-8")
        os.write(self._fd, line)
        os.fsync(self._fd)
        self.records.append(record)
        if self._ggf is not None and self._line is not None:
            self._ggf.write(self._line(record) + "\n")
            self._ggf.flush()

    def close(self) -> None:
        with contextlib.suppress(OSError):
            os.close(self._fd)
        if self._ggf is not None:
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


def _where(path: Path, record: dict[str, Any]) -> str:
    return f"{path}, game {record['black']} vs {record['white']} round {record['round'] + 1}"


def check_game(records: Sequence[dict[str, Any]], game: str, path: Path) -> None:
    """Refuse results of another game than ``game`` (a ``core.games`` name), naming the first."""
    for record in records:
        played = record_game_name(record)
        if played != game:
            raise TournamentError(
                f"played {played}, the config plays {game}; use a new output folder",
                where=_where(path, record),
            )


def check_consistent(
    config: TournamentConfig, jobs: Sequence[GameJob], records: list[dict[str, Any]], folder: Path
) -> None:
    """Refuse to resume when the results already there were played under other terms."""
    check_game(records, config.game, folder / RESULTS)
    by_key = {j.key: j for j in jobs}
    limit = limit_dict(config.limit)
    rules = config.rules
    for record in records:
        where = _where(folder / RESULTS, record)
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
        played = record_rules(record)
        if played != rules or record.get("limit") != limit:
            raise TournamentError(
                f"played {played.key} with limit {record.get('limit')}, the config says "
                f"{rules.key} with limit {limit}; use a new output folder",
                where=where,
            )
        job = by_key.get(record_key(record))
        if job is not None:
            opening = format_moves(job.rules, job.opening)
            if record["opening"] != opening:
                raise TournamentError(
                    f"opening {record['opening']} differs from the scheduled {opening} (other "
                    "openings or seed); use a new output folder",
                    where=where,
                )
