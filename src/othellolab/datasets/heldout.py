"""Held-out positions for measuring a model: one row per action played, in game order, with
the game's result and what happened around each row (a pass just before it, a pass it forces).

``load_positions`` reads them from a split of a dataset built by ``othellolab dataset build``,
a folder of WTHOR files with the years to take, or any game-record files; game records go
through the one records-to-rows path (``datasets.replay.positions_from_games``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from othellolab.core import ConfigError
from othellolab.core import kernels as _k
from othellolab.datasets.feeds import parse_years, wthor_paths
from othellolab.datasets.replay import PositionArrays, head, positions_from_games
from othellolab.datasets.shards import (
    MANIFEST,
    DatasetFormatError,
    MissingDataError,
    open_arrays,
    read_manifest,
)
from othellolab.datasets.sources import GameArrays, games_to_arrays, read_wtb_arrays
from othellolab.records import read_games

__all__ = ["EvalPositions", "load_positions"]


@dataclass(frozen=True)
class EvalPositions:
    """Positions to evaluate on, one row per action played, forced passes included where the
    data has them, with the game's result and what happened around the row.

    ``after_pass``: the opponent's last action was a pass, so the side to move plays twice.
    ``forces_pass``: the move played leaves the opponent without a legal move (not the end).
    """

    player: np.ndarray
    opponent: np.ndarray
    move: np.ndarray
    outcome: np.ndarray
    score: np.ndarray
    game: np.ndarray
    after_pass: np.ndarray
    forces_pass: np.ndarray
    size: int = 8
    description: str = ""
    notes: tuple[str, ...] = field(default=())

    def __len__(self) -> int:
        return len(self.player)

    @property
    def games(self) -> int:
        """Number of distinct games with rows."""
        return len(np.unique(self.game))

    @property
    def empties(self) -> np.ndarray:
        """Empty squares of each row's position."""
        return self.size * self.size - _k.popcount_batch(self.player | self.opponent)

    def arrays(self) -> PositionArrays:
        """The rows as the trainer's ``PositionArrays`` (for ``ArraySource`` batches)."""
        area = self.size * self.size
        return PositionArrays(
            self.player,
            self.opponent,
            self.move,
            self.outcome,
            (self.score / area).astype(np.float32),
            self.game,
            self.size,
        )


def _forces_pass(
    player: np.ndarray, opponent: np.ndarray, move: np.ndarray, size: int
) -> np.ndarray:
    """Whether playing ``move`` leaves the opponent no legal move while the game goes on."""
    out = np.zeros(len(move), dtype=bool)
    placing = np.flatnonzero(move < size * size)
    if len(placing):
        # after the move the opponent is to move: (nxt, cur) from its side
        nxt, cur = _k.play_batch(player[placing], opponent[placing], move[placing], size)
        stuck = _k.legal_mask_batch(nxt, cur, size) == 0
        out[placing] = stuck & (_k.legal_mask_batch(cur, nxt, size) != 0)
    return out


def _concat(parts: list[dict[str, np.ndarray]], size: int, description: str, notes: list[str]):
    if not parts or sum(len(p["player"]) for p in parts) == 0:
        raise ConfigError(f"no positions to evaluate in {description}")
    cols = {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
    return EvalPositions(
        player=cols["player"].astype(np.uint64),
        opponent=cols["opponent"].astype(np.uint64),
        move=cols["move"].astype(np.int64),
        outcome=cols["outcome"].astype(np.float32),
        score=cols["score"].astype(np.int64),
        game=cols["game"].astype(np.int64),
        after_pass=cols["after_pass"].astype(bool),
        forces_pass=_forces_pass(cols["player"], cols["opponent"], cols["move"], size),
        size=size,
        description=description,
        notes=tuple(notes),
    )


def _after_pass(game: np.ndarray, color: np.ndarray, move: np.ndarray, size: int) -> np.ndarray:
    """Rows whose side to move also made the game's previous action, i.e. the opponent passed
    in between (whether or not the pass itself is a row)."""
    out = np.zeros(len(game), dtype=bool)
    out[1:] = (game[1:] == game[:-1]) & ((move[:-1] == size * size) | (color[1:] == color[:-1]))
    return out


def _from_dataset(root: Path, split: str, max_games: int, first_game: int) -> dict:
    manifest = read_manifest(root)
    options = manifest.get("options", {})
    if options.get("dedup") or options.get("symmetries"):
        raise DatasetFormatError(
            f"{root}: built with {'dedup' if options.get('dedup') else 'symmetries'}; evaluation "
            "needs one row per move played, in game order (build it without --dedup/--symmetries)"
        )
    a = open_arrays(root, split)
    game = np.asarray(a["game"], dtype=np.int64)
    if max_games:
        keep_games = np.unique(game)[:max_games]
        n = int(np.searchsorted(game, keep_games[-1], side="right")) if len(keep_games) else 0
    else:
        n = len(game)
    game = game[:n]
    move = np.asarray(a["move"][:n], dtype=np.int64)
    size = int(manifest["size"])
    _, renumbered = np.unique(game, return_inverse=True)
    return {
        "player": np.asarray(a["p"][:n]),
        "opponent": np.asarray(a["o"][:n]),
        "move": move,
        "outcome": np.asarray(a["outcome"][:n], dtype=np.float32),
        "score": np.asarray(a["score"][:n], dtype=np.int64),
        "game": renumbered.astype(np.int64) + first_game,
        "after_pass": _after_pass(game, np.asarray(a["color"][:n]), move, size),
    }, size


def _game_arrays(path: Path, size: int | None) -> tuple[GameArrays, int]:
    """One record file's games of board ``size`` (default: its first game's) as the replay
    kernel's arrays, and how many games of another size were left out."""
    if path.suffix.lower() == ".wtb":
        games = read_wtb_arrays(path)
        if size is None or games.size == size:
            return games, 0
        return head(games, 0), games.n_games
    skipped = 0

    def same_size(records: Iterable[Any]) -> Iterable[Any]:
        nonlocal size, skipped
        for game in records:
            size = game.size if size is None else size
            if game.size == size:
                yield game
            else:
                skipped += 1

    return games_to_arrays(same_size(read_games(path)), name=path.name), skipped


def _from_games(paths: Iterable[Path], max_games: int, first_game: int, size: int | None):
    """Replay game records through ``positions_from_games``; returns the columns, the board
    size and notes on skipped games. A game's result is its replayed final score, or the
    recorded one for a game that stops early (the ``finished`` rule, as the trainer's)."""
    skipped = 0

    def sources() -> Iterator[GameArrays]:
        nonlocal size, skipped
        for path in paths:
            games, left_out = _game_arrays(Path(path), size)
            skipped += left_out
            if games.n_games:
                size = games.size
            yield games

    rows = positions_from_games(sources(), max_games=max_games, first_game=first_game)
    notes = [f"skipped {skipped} games of another board size"] if skipped else []
    if not len(rows):
        return {"game": np.zeros(0, dtype=np.int64)}, size, notes
    assert rows.color is not None and rows.score is not None and rows.game is not None
    area = rows.size * rows.size
    return (
        {
            "player": rows.player,
            "opponent": rows.opponent,
            "move": rows.move,
            "outcome": rows.outcome,
            "score": np.rint(rows.score.astype(np.float64) * area).astype(np.int64),
            "game": rows.game,
            "after_pass": _after_pass(rows.game, rows.color, rows.move, rows.size),
        },
        size,
        notes,
    )


def load_positions(
    sources: Sequence[str | Path],
    *,
    split: str = "test",
    years: str | None = None,
    max_games: int = 0,
    size: int | None = None,
) -> EvalPositions:
    """The positions of ``sources``, each one of: a dataset folder (its ``split``), a folder
    of WTHOR ``.wtb`` files (the ``years`` given, e.g. ``"2023"``), or a game-record file of
    any format ``records.read_games`` reads. ``max_games`` caps the games per source (0 = all);
    games of another board size than ``size`` (default: the first game's) are skipped."""
    if not sources:
        raise ConfigError("no data: give at least one --data path")
    parts: list[dict[str, np.ndarray]] = []
    described: list[str] = []
    notes: list[str] = []
    first_game = 0
    for source in sources:
        path = Path(source)
        if not path.exists():
            raise MissingDataError(f"{path}: no such file or folder")
        if path.is_dir() and (path / MANIFEST).is_file():
            cols, s = _from_dataset(path, split, max_games, first_game)
            if size is not None and s != size:
                raise ConfigError(f"{path}: a {s}x{s} dataset, the model plays {size}x{size}")
            size = s
            described.append(f"{path.name} ({split} split)")
        elif path.is_dir():
            available = sorted(p.stem.split("_")[-1] for p in path.glob("WTH_*.wtb"))
            if not available:
                raise MissingDataError(
                    f"{path}: neither a dataset folder nor a folder of WTHOR files"
                )
            if not years:
                raise ConfigError(
                    f"{path}: a folder of WTHOR files needs --years (held-out years to evaluate "
                    f"on; available {available[0]}-{available[-1]})"
                )
            files = wthor_paths(path, parse_years(years))
            cols, size, skipped = _from_games(files, max_games, first_game, size)
            notes += skipped
            described.append(f"WTHOR {years}")
        else:
            cols, size, skipped = _from_games([path], max_games, first_game, size)
            notes += [f"{path.name}: {s}" for s in skipped]
            described.append(path.name)
        if len(cols["game"]):
            parts.append(cols)
            first_game = int(cols["game"].max()) + 1
    assert size is not None
    return _concat(parts, size, ", ".join(described), notes)
