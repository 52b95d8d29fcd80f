"""Self-play shards: one folder of ``.npy`` arrays per batch of games, written whole.

``shards/gNNNN-KKK/`` holds the per-position arrays of ``SelfPlayRecords`` (``player.npy``,
``policy.npy``, ..., and the auxiliary targets' ``final_player.npy``, ...; their names and dtypes are the format of ``records``, stored as they are),
the per-game arrays under the names ``game_<name>.npy``, and ``shard.json``: format and
version, the game (its registered ``game`` name and the ``game_params`` that make it, as
``core.games.get_game(game, **game_params)`` reads them), the generation of the model that
played the games, the shard's index and seed, counts, the self-play statistics, and the
SHA-256 of every array. Version 1 named the game by its key (``othello6``) beside an Othello
board ``size``, or by ``size`` alone; it reads the same. The folder appears by
one rename (``core.files.replace_dir``), so a shard is there whole or not at all; reading
checks every checksum, so a corrupt or truncated file is an error that names it
(``ShardError``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from othellolab.core import ConfigError
from othellolab.core.games import Game, get_game
from othellolab.shards import SHARD_FILE, Shard, ShardError, ShardFormat
from othellolab.training.selfplay.records import (
    GAME_FIELDS,
    POSITION_DTYPES,
    POSITION_FIELDS,
    TARGET_DTYPES,
    TARGET_FIELDS,
    SelfPlayRecords,
)

__all__ = [
    "SHARD_FILE",
    "Shard",
    "ShardError",
    "list_shards",
    "read_shard",
    "shard_game",
    "shard_name",
    "write_shard",
]

FORMAT = ShardFormat(
    "othellolab.selfplay-shard",
    version=2,
    readable=(1, 2),
    pattern=r"g(\d{4,})-(\d{3,})",
    kind="self-play",
)
OPTIONAL = {
    "solved": 0,
    "final_player": 0,
    "final_opponent": 0,
    "final_side": 0,
    "next_action": -1,
}
"""Position arrays added after format version 1 was first written, and the value a shard
without one reads in each row: ``solved`` 0 (no search proved its root), ``final_side`` 0 and
``next_action`` -1 (no final position, no reply: the auxiliary losses skip those rows)."""


def shard_name(generation: int, index: int) -> str:
    """The folder name of shard ``index`` of the games played by ``generation``."""
    return f"g{generation:04d}-{index:03d}"


def write_shard(
    folder: str | Path,
    records: SelfPlayRecords,
    *,
    generation: int,
    index: int,
    seed: int,
    stats: dict[str, Any],
) -> Path:
    """Write ``records`` as the shard ``folder`` (atomically, whole); returns its path."""
    folder = Path(folder)
    game = get_game(records.game_key) if records.game_key else get_game("othello", records.size)
    arrays = {**records.position_arrays(), **records.target_arrays()}
    arrays.update({f"game_{name}": a for name, a in records.game_arrays().items()})
    meta = {
        "game": game.name,
        "game_params": game.params,
        "generation": generation,
        "index": index,
        "seed": seed,
        "games": records.games,
        "positions": len(records),
        "stats": stats,
    }
    return FORMAT.write(folder, arrays, meta)


def read_meta(folder: str | Path) -> dict[str, Any]:
    """A shard's ``shard.json``, checked for format and version."""
    return FORMAT.read_meta(folder)


def shard_game(meta: dict[str, Any], where: str = "shard") -> Game:
    """The game a shard's ``meta`` names: ``game`` and ``game_params`` (version 2), a game's
    key (version 1: ``othello6``, ``animal-shogi``), or Othello on ``size`` alone (the first
    shards); a ``ShardError`` when it is not a registered game."""
    name = meta.get("game") or f"othello{meta.get('size')}"
    params = meta.get("game_params") or {}
    if not isinstance(name, str) or not isinstance(params, dict):
        raise ShardError(f"game {name!r} with {params!r} is not a game's name", where=where)
    try:
        return get_game(name, **params)
    except (ConfigError, TypeError) as e:
        raise ShardError(f"the shard's game {name!r} {params or ''}: {e}", where=where) from None


def read_shard(folder: str | Path, *, game: str | Game, games: bool = False) -> Shard:
    """Read and check a shard: every position array (and the game arrays when ``games``)
    against its checksum, dtype-agnostic shapes against the counts, the game (a
    ``core.games.Game`` or a registry name)."""
    folder = Path(folder)
    meta = read_meta(folder)
    where = str(folder / SHARD_FILE)
    game = get_game(game)
    mine = shard_game(meta, where)
    if mine != game:
        raise ShardError(f"the shard is {mine.key}, the run {game.key}", where=where)
    names = [*POSITION_FIELDS, *TARGET_FIELDS, *(f"game_{n}" for n in GAME_FIELDS if games)]
    sums = meta.get("sha256") or {}
    arrays = {}
    n = meta.get("positions")
    for name in names:
        if name in OPTIONAL and name not in sums and not (folder / f"{name}.npy").exists():
            dtype = {**POSITION_DTYPES, **TARGET_DTYPES}[name]
            arrays[name] = np.full(int(n or 0), OPTIONAL[name], dtype=dtype)
            continue
        a = FORMAT.read_array(folder, name, meta)
        if not name.startswith("game_") and (a.ndim < 1 or a.shape[0] != n):
            raise ShardError(
                f"{a.shape[0] if a.ndim else 0} rows, shard.json says {n}",
                where=str(folder / f"{name}.npy"),
            )
        arrays[name] = a
    if arrays["policy"].shape[1:] != (game.n_actions,):
        raise ShardError(
            f"policy of shape {arrays['policy'].shape}", where=str(folder / "policy.npy")
        )
    return Shard(folder, meta, arrays)


def list_shards(root: str | Path) -> list[tuple[int, int, Path]]:
    """The complete shards under ``root`` as ``(generation, index, path)``, in order; leftovers
    of an interrupted write are cleaned up first."""
    return [(generation, index, path) for (generation, index), path in FORMAT.list(root)]
