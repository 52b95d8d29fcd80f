"""A tournament's results file: ``results.jsonl``, one JSON object per finished game appended as
it ends (the record of truth; a line cut short by a kill is dropped and its game replayed), with
``games.ggf`` rewritten beside it, a lock that keeps two runs out of one folder, and the check
that results already there were played under the same terms.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from othellolab.arena.tournament_config import (
    GAMES,
    RESULTS,
    GameJob,
    TournamentConfig,
    TournamentError,
    limit_dict,
    record_key,
)
from othellolab.core import (
    Board,
    format_transcript,
    parse_transcript,
)
from othellolab.core.files import atomic_writer
from othellolab.records.game import Game
from othellolab.records.ggf import format_ggf

# ----------------------------------------------------------------------------------------------
# The results file


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


def check_consistent(
    config: TournamentConfig, jobs: Sequence[GameJob], records: list[dict[str, Any]], folder: Path
) -> None:
    """Refuse to resume when the results already there were played under other terms."""
    by_key = {j.key: j for j in jobs}
    limit = limit_dict(config.limit)
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
