"""Shards: folders of ``.npy`` arrays with a JSON file of metadata and the SHA-256 of every
array, written whole by one rename and checked when read back.

A ``ShardFormat`` declares one kind (its format name and readable versions, the folder-name
pattern, the metadata file and its error class); self-play records and labelled positions are
formats of it. A long job writes its shards one by one and, after any kill, lists the complete
ones (``ShardFormat.list``, which also cleans up an interrupted write) to resume.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from othellolab.core import OthelloError
from othellolab.core.files import recover_dir, sha256_file, write_array_dir

__all__ = ["SHARD_FILE", "Shard", "ShardError", "ShardFormat"]

SHARD_FILE = "shard.json"


class ShardError(OthelloError):
    """A shard that is missing a file, fails its checksum or holds arrays of the wrong shape."""


@dataclass(frozen=True)
class Shard:
    """A shard read back and checked: its ``path``, its ``meta`` (``shard.json``) and its
    arrays by name."""

    path: Path
    meta: dict[str, Any]
    arrays: dict[str, np.ndarray]

    @property
    def positions(self) -> int:
        return int(self.meta["positions"])


@dataclass(frozen=True)
class ShardFormat:
    """One kind of shard: ``name`` is the ``format`` its metadata carries, ``version`` the one
    written and ``readable`` the ones read, ``pattern`` the folder names (its groups are the
    shard's numbers), ``kind`` the words errors use, ``error`` their class."""

    name: str
    version: int
    readable: tuple[int, ...]
    pattern: str
    kind: str
    error: type[ShardError] = ShardError
    meta_file: str = SHARD_FILE

    def write(
        self, folder: str | Path, arrays: dict[str, np.ndarray], meta: dict[str, Any]
    ) -> Path:
        """Write ``arrays`` and ``meta`` (format and version first) as ``folder``, whole."""
        meta = {"format": self.name, "format_version": self.version, **meta}
        return write_array_dir(Path(folder), arrays, meta, meta_file=self.meta_file)

    def read_json(self, path: Path, missing: str) -> dict[str, Any]:
        """A JSON object from ``path``; ``missing`` says what its absence means."""
        try:
            data = json.loads(path.read_text())
        except FileNotFoundError:
            raise self.error(f"missing {path.name}: {missing}", where=str(path.parent)) from None
        except (OSError, json.JSONDecodeError, UnicodeDecodeError) as e:
            raise self.error(f"invalid JSON ({e})", where=str(path)) from None
        if not isinstance(data, dict):
            raise self.error("expected a JSON object", where=str(path))
        return data

    def read_meta(self, folder: str | Path) -> dict[str, Any]:
        """A shard's metadata, checked for format and version."""
        path = Path(folder) / self.meta_file
        meta = self.read_json(path, "not a complete shard")
        if meta.get("format") != self.name:
            raise self.error(
                f"not a {self.kind} shard (format is not {self.name!r})", where=str(path)
            )
        if meta.get("format_version") not in self.readable:
            raise self.error(
                f"format_version {meta.get('format_version')!r} is not supported", where=str(path)
            )
        return meta

    def read_array(self, folder: Path, name: str, meta: dict[str, Any]) -> np.ndarray:
        """Array ``name`` of a shard, after its checksum (never unpickled)."""
        path = folder / f"{name}.npy"
        if not path.is_file():
            raise self.error("missing array file", where=str(path))
        if (meta.get("sha256") or {}).get(name) != sha256_file(path):
            raise self.error(
                "checksum mismatch: the file is corrupt, truncated or was changed", where=str(path)
            )
        try:
            return np.load(path, allow_pickle=False)
        except (ValueError, OSError) as e:
            raise self.error(f"not a readable .npy array ({e})", where=str(path)) from None

    def list(self, root: str | Path) -> list[tuple[tuple[int, ...], Path]]:
        """The complete shards in folder ``root`` as ``(numbers, path)`` in order of name;
        leftovers of an interrupted write are cleaned up first."""
        root = Path(root)
        if not root.is_dir():
            return []
        pattern = re.compile(self.pattern)
        out = []
        for path in sorted(root.iterdir()):
            m = pattern.fullmatch(path.name)
            if m is None:
                if path.name.endswith((".tmp", ".old")):
                    recover_dir(root / path.name.rsplit(".", 1)[0])
                continue
            if (path / self.meta_file).exists():
                out.append((tuple(int(g) for g in m.groups()), path))
        return out
