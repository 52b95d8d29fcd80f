"""Labelled-position shards on disk, and the reader that turns a run into the pattern fit's
``Positions``.

A run folder holds ``labelled.json`` (format, the config as plain data, its hash, the data
files read and their SHA-256), ``config.toml`` (the config file as given) and
``shards/sNNNNN/``: one ``.npy`` per array of ``generate.ARRAYS`` and ``shard.json`` (format
and version, the config hash, the shard's index, seed and first game, counts, statistics and
the SHA-256 of every array). A shard folder appears by one rename
(``core.files.replace_dir``), so it is there whole or not at all; reading checks every
checksum, dtype and length against ``shard.json`` and the config hash against the run's, so
a corrupt, truncated or foreign file is an error that names it (``LabelledShardError``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from othellolab.core import ConfigError
from othellolab.core.values import NO_SCORE
from othellolab.fitting.labelled.generate import ARRAYS
from othellolab.fitting.positions import Positions
from othellolab.shards import SHARD_FILE, Shard, ShardError, ShardFormat

__all__ = [
    "LABELS",
    "RUN_FILE",
    "SHARD_FILE",
    "LabelledShardError",
    "list_shards",
    "load_labelled",
    "read_run",
    "read_shard",
    "shard_name",
    "write_shard",
]

RUN_FORMAT = "othellolab.labelled-run"
FORMAT_VERSION = 1
RUN_FILE = "labelled.json"
SHARDS_DIR = "shards"
LABELS = ("final", "exact", "search")
"""The labels a run's positions carry (``load_labelled``'s ``label``)."""


class LabelledShardError(ShardError):
    """A labelled shard or run folder that is missing a file, fails a checksum, holds arrays
    of the wrong dtype or length, or belongs to another config."""


FORMAT = ShardFormat(
    "othellolab.labelled-shard",
    version=FORMAT_VERSION,
    readable=(FORMAT_VERSION,),
    pattern=r"s(\d{5,})",
    kind="labelled",
    error=LabelledShardError,
)


def shard_name(index: int) -> str:
    """The folder name of shard ``index``."""
    return f"s{index:05d}"


def write_shard(
    folder: str | Path,
    arrays: dict[str, np.ndarray],
    *,
    index: int,
    seed: int,
    first_game: int,
    games: int,
    config_hash: str,
    stats: dict[str, Any],
) -> Path:
    """Write one shard's ``arrays`` as ``folder`` (atomically, whole); returns its path."""
    meta = {
        "config_hash": config_hash,
        "index": index,
        "seed": seed,
        "first_game": first_game,
        "games": games,
        "positions": len(arrays["player"]),
        "stats": stats,
    }
    typed = {name: np.asarray(arrays[name], dtype=dtype) for name, dtype in ARRAYS.items()}
    return FORMAT.write(folder, typed, meta)


def read_meta(folder: str | Path, *, config_hash: str | None = None) -> dict[str, Any]:
    """A shard's ``shard.json``, checked for format, version and (when given) config hash."""
    path = Path(folder) / SHARD_FILE
    meta = FORMAT.read_meta(folder)
    if config_hash is not None and meta.get("config_hash") != config_hash:
        raise LabelledShardError(
            f"a shard of another config (hash {str(meta.get('config_hash'))[:12]}, the run's "
            f"{config_hash[:12]})",
            where=str(path),
        )
    return meta


def read_shard(folder: str | Path, *, config_hash: str | None = None) -> Shard:
    """Read one shard, checking every array's checksum, dtype and length."""
    folder = Path(folder)
    meta = read_meta(folder, config_hash=config_hash)
    n = meta.get("positions")
    arrays = {}
    for name, dtype in ARRAYS.items():
        a = FORMAT.read_array(folder, name, meta)
        if a.dtype != dtype or a.ndim != 1 or a.shape[0] != n:
            raise LabelledShardError(
                f"{a.dtype} array of shape {a.shape}; shard.json says {n} rows of "
                f"{np.dtype(dtype)}",
                where=str(folder / f"{name}.npy"),
            )
        arrays[name] = a
    return Shard(folder, meta, arrays)


def list_shards(root: str | Path) -> list[tuple[int, Path]]:
    """The complete shards of run folder ``root`` as ``(index, path)``, in order; leftovers of
    an interrupted write are cleaned up first."""
    return [(index, path) for (index,), path in FORMAT.list(Path(root) / SHARDS_DIR)]


def read_run(root: str | Path) -> dict[str, Any]:
    """A run folder's ``labelled.json``, checked for format."""
    path = Path(root) / RUN_FILE
    meta = FORMAT.read_json(path, "not a labelled-position run folder")
    if meta.get("format") != RUN_FORMAT or not isinstance(meta.get("config_hash"), str):
        raise LabelledShardError(
            f"not a labelled-position run (format {RUN_FORMAT!r})", where=str(path)
        )
    return meta


def _empties_range(empties: int | tuple[int, int] | None) -> tuple[int, int]:
    if empties is None:
        return 0, 64
    lo, hi = (empties, empties) if isinstance(empties, int) else empties
    if not (0 <= lo <= hi <= 64):
        raise ConfigError(
            f"need 0 <= low <= high <= 64 empty squares, got {empties!r}", option="empties"
        )
    return int(lo), int(hi)


def load_labelled(
    root: str | Path,
    *,
    label: str = "final",
    empties: int | tuple[int, int] | None = None,
    shards: int = 0,
) -> Positions:
    """The positions of run folder ``root`` with the target ``label`` (``final``, ``exact`` or
    ``search``; from the side to move), as the pattern fit's ``Positions``. ``empties`` (a
    number or an inclusive ``(low, high)`` range) keeps only those positions. Positions
    without the label (off the solved tail for ``exact``) are left out. ``shards`` > 0 reads
    shards ``0..shards-1`` only, all of which must be there (a fit reproducible while the run
    grows). Every shard is checked (``read_shard``) against the run's config hash."""
    if label not in LABELS:
        raise ConfigError(f"unknown label {label!r}", option="label", allowed=", ".join(LABELS))
    lo, hi = _empties_range(empties)
    run = read_run(root)
    if label == "search" and not run["config"]["labels"]["search_depth"]:
        raise ConfigError(
            f"{root}: the run has no search labels (search_depth = 0)", option="label"
        )
    parts: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    present = list_shards(root)
    if shards:
        present = [(i, path) for i, path in present if i < shards]
        if len(present) < shards:
            raise LabelledShardError(
                f"the first {shards} shards are asked for, {len(present)} of them are complete; "
                "generate the others (train engine-data) or ask for fewer",
                where=str(Path(root) / SHARDS_DIR),
            )
    for _, path in present:
        a = read_shard(path, config_hash=run["config_hash"]).arrays
        keep = (a["empties"] >= lo) & (a["empties"] <= hi)
        if label == "exact":
            keep &= a["exact"] != NO_SCORE
        if label == "search":
            keep &= np.isfinite(a["search"])
        parts.append((a["player"][keep], a["opponent"][keep], a[label][keep]))
    if not parts:
        raise LabelledShardError("no complete shard", where=str(Path(root) / SHARDS_DIR))
    return Positions.of(*(np.concatenate(x) for x in zip(*parts, strict=True)))
