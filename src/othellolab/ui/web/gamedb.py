"""Every game of the web board kept in SQLite: one row per game (its record, settings, the AI's
evaluations and the analysis), written as each change is made and committed before the change
is answered, in WAL mode with full syncs, so a server killed between two requests loses
nothing it answered and a restarted one serves every game under its old id.

The file is ``web/games.sqlite3`` in the user's data folder (``records.download.data_home``:
``$OTHELLOLAB_DATA``, else the platform's, ``$XDG_DATA_HOME/othellolab/data`` on Linux);
``othellolab serve --db FILE`` names another, ``:memory:`` keeps games for the process only.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

from othellolab.core import ConfigError

MEMORY = ":memory:"
"""The database name that keeps games in memory, for this process only."""

SCHEMA_VERSION = 1

_COLUMNS = (
    "id",
    "game",
    "start",
    "human",
    "opponent",
    "hint",
    "think_time",
    "actions",
    "cursor",
    "evaluations",
    "analysis",
    "version",
    "result",
    "created",
    "updated",
)
_JSON = frozenset({"actions", "evaluations", "analysis"})


def default_db_path() -> Path:
    """Where ``othellolab serve`` keeps its games unless told otherwise."""
    from othellolab.records.download import data_home

    return data_home() / "web" / "games.sqlite3"


class GameDB:
    """The games database of one server (thread-safe: one connection behind a lock)."""

    def __init__(self, path: str | Path = MEMORY) -> None:
        self.path = str(path)
        if self.path != MEMORY:
            folder = Path(self.path).expanduser().parent
            try:
                folder.mkdir(parents=True, exist_ok=True)
            except OSError as e:
                raise ConfigError(
                    f"cannot create the folder {str(folder)!r}: {e}", option="db"
                ) from None
        try:
            self._db = sqlite3.connect(
                self.path if self.path == MEMORY else str(Path(self.path).expanduser()),
                check_same_thread=False,
                isolation_level=None,
            )
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute("PRAGMA busy_timeout=5000")
            self._create()
        except sqlite3.DatabaseError as e:
            raise ConfigError(
                f"{self.path!r} is not a usable games database: {e}", option="db"
            ) from None
        self._lock = threading.Lock()

    def _create(self) -> None:
        self._db.execute(
            """CREATE TABLE IF NOT EXISTS games (
                id TEXT PRIMARY KEY, game TEXT NOT NULL, start TEXT, human INTEGER,
                opponent TEXT NOT NULL, hint TEXT NOT NULL, think_time REAL,
                actions TEXT NOT NULL, cursor INTEGER NOT NULL, evaluations TEXT NOT NULL,
                analysis TEXT, version INTEGER NOT NULL, result TEXT,
                created REAL NOT NULL, updated REAL NOT NULL)"""
        )
        self._db.execute("CREATE INDEX IF NOT EXISTS games_updated ON games (updated)")
        found = self._db.execute("PRAGMA user_version").fetchone()[0]
        if found == 0:
            self._db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        elif found != SCHEMA_VERSION:
            raise ConfigError(
                f"{self.path!r} holds games database version {found}; this othellolab reads "
                f"version {SCHEMA_VERSION}",
                option="db",
            )

    def save(self, record: dict[str, Any]) -> None:
        """Write a game (``WebGame.record()``), committed when this returns."""
        now = time.time()
        values = {k: json.dumps(v) if k in _JSON else v for k, v in record.items()}
        with self._lock:
            self._db.execute(
                f"INSERT INTO games ({', '.join(_COLUMNS)}) VALUES "
                f"({', '.join(':' + c for c in _COLUMNS)}) "
                "ON CONFLICT(id) DO UPDATE SET "
                + ", ".join(f"{c} = excluded.{c}" for c in _COLUMNS if c not in ("id", "created")),
                {**values, "created": now, "updated": now},
            )

    def load(self, game_id: str) -> dict[str, Any] | None:
        """The row of a game, its JSON read; ``None`` when there is none."""
        with self._lock:
            cursor = self._db.execute(
                f"SELECT {', '.join(_COLUMNS)} FROM games WHERE id = ?", (game_id,)
            )
            row = cursor.fetchone()
        if row is None:
            return None
        return {
            c: json.loads(v) if c in _JSON and v is not None else v
            for c, v in zip(_COLUMNS, row, strict=True)
        }

    def delete(self, game_id: str) -> bool:
        """Forget a game; whether there was one."""
        with self._lock:
            return self._db.execute("DELETE FROM games WHERE id = ?", (game_id,)).rowcount > 0

    def list(self, *, limit: int = 100, offset: int = 0) -> tuple[list[dict[str, Any]], int]:
        """Summaries of the games (latest changed first) and how many there are."""
        with self._lock:
            rows = self._db.execute(
                "SELECT id, game, human, opponent, json_array_length(actions), result, created, "
                "updated FROM games ORDER BY updated DESC, id LIMIT ? OFFSET ?",
                (limit, offset),
            ).fetchall()
            total = self._db.execute("SELECT count(*) FROM games").fetchone()[0]
        keys = ("id", "game", "human", "opponent", "moves", "result", "created", "updated")
        return [dict(zip(keys, row, strict=True)) for row in rows], total

    def close(self) -> None:
        """Close the connection."""
        with self._lock:
            self._db.close()
