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

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from othellolab.core import ConfigError
from othellolab.core.files import recover_dir, sha256_file, write_array_dir
from othellolab.core.values import NO_SCORE
from othellolab.training.labelled.generate import ARRAYS
from othellolab.training.positions import Positions
from othellolab.training.selfplay.shards import ShardError

__all__ = [
    "LABELS",
    "RUN_FILE",
    "SHARD_FILE",
    "LabelledShard",
    "LabelledShardError",
    "list_shards",
    "load_labelled",
    "read_run",
    "read_shard",
    "shard_name",
    "write_shard",
]

FORMAT = "othellolab.labelled-shard"
RUN_FORMAT = "othellolab.labelled-run"
FORMAT_VERSION = 1
RUN_FILE = "labelled.json"
SHARD_FILE = "shard.json"
SHARDS_DIR = "shards"
LABELS = ("final", "exact", "search")
"""The labels a run's positions carry (``load_labelled``'s ``label``)."""

_NAME = re.compile(r"s(\d{5,})")


class LabelledShardError(ShardError):
    """A labelled shard or run folder that is missing a file, fails a checksum, holds arrays
    of the wrong dtype or length, or belongs to another config."""


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
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "config_hash": config_hash,
        "index": index,
        "seed": seed,
        "first_game": first_game,
        "games": games,
        "positions": len(arrays["player"]),
        "stats": stats,
    }
    typed = {name: np.asarray(arrays[name], dtype=dtype) for name, dtype in ARRAYS.items()}
    return write_array_dir(folder, typed, meta, meta_file=SHARD_FILE)


@dataclass(frozen=True)
class LabelledShard:
    """A shard read back and checked: its ``meta`` (``shard.json``) and arrays by name."""

    path: Path
    meta: dict[str, Any]
    arrays: dict[str, np.ndarray]


def _json(path: Path, what: str) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        raise LabelledShardError(f"missing {path.name}: {what}", where=str(path.parent)) from None
    except (OSError, json.JSONDecodeError, UnicodeDecodeError) as e:
        raise LabelledShardError(f"unreadable JSON ({e})", where=str(path)) from None
    if not isinstance(data, dict):
        raise LabelledShardError("expected a JSON object", where=str(path))
    return data


def read_meta(folder: str | Path, *, config_hash: str | None = None) -> dict[str, Any]:
    """A shard's ``shard.json``, checked for format, version and (when given) config hash."""
    path = Path(folder) / SHARD_FILE
    meta = _json(path, "not a complete shard")
    if meta.get("format") != FORMAT:
        raise LabelledShardError(
            f"not a labelled shard (format is not {FORMAT!r})", where=str(path)
        )
    if meta.get("format_version") != FORMAT_VERSION:
        raise LabelledShardError(
            f"format_version {meta.get('format_version')!r} is not supported", where=str(path)
        )
    if config_hash is not None and meta.get("config_hash") != config_hash:
        raise LabelledShardError(
            f"a shard of another config (hash {str(meta.get('config_hash'))[:12]}, the run's "
            f"{config_hash[:12]})",
            where=str(path),
        )
    return meta


def read_shard(folder: str | Path, *, config_hash: str | None = None) -> LabelledShard:
    """Read one shard, checking every array's checksum, dtype and length."""
    folder = Path(folder)
    meta = read_meta(folder, config_hash=config_hash)
    sums = meta.get("sha256") or {}
    n = meta.get("positions")
    arrays = {}
    for name, dtype in ARRAYS.items():
        path = folder / f"{name}.npy"
        if not path.is_file():
            raise LabelledShardError("missing array file", where=str(path))
        if sums.get(name) != sha256_file(path):
            raise LabelledShardError(
                "checksum mismatch: the file is corrupt, truncated or was changed", where=str(path)
            )
        try:
            a = np.load(path, allow_pickle=False)
        except (ValueError, OSError) as e:
            raise LabelledShardError(f"not a readable .npy array ({e})", where=str(path)) from None
        if a.dtype != dtype or a.ndim != 1 or a.shape[0] != n:
            raise LabelledShardError(
                f"{a.dtype} array of shape {a.shape}; shard.json says {n} rows of "
                f"{np.dtype(dtype)}",
                where=str(path),
            )
        arrays[name] = a
    return LabelledShard(folder, meta, arrays)


def list_shards(root: str | Path) -> list[tuple[int, Path]]:
    """The complete shards of run folder ``root`` as ``(index, path)``, in order; leftovers of
    an interrupted write are cleaned up first."""
    folder = Path(root) / SHARDS_DIR
    if not folder.is_dir():
        return []
    out = []
    for path in sorted(folder.iterdir()):
        m = _NAME.fullmatch(path.name)
        if m is None:
            if path.name.endswith((".tmp", ".old")):
                recover_dir(folder / path.name.rsplit(".", 1)[0])
            continue
        if (path / SHARD_FILE).exists():
            out.append((int(m.group(1)), path))
    return out


def read_run(root: str | Path) -> dict[str, Any]:
    """A run folder's ``labelled.json``, checked for format."""
    path = Path(root) / RUN_FILE
    meta = _json(path, "not a labelled-position run folder")
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
                "generate the others (train patterns-data) or ask for fewer",
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
