"""The on-disk dataset format: one folder per split of named ``.npy`` arrays, plus a manifest;
and the build's cache of replayed sources. Both are schemas of ``othellolab.shards``.

A dataset folder holds ``manifest.json`` and ``train/``, ``val/``, ``test/``, each with one
``NAME.npy`` per array, all of the same length (the rows of that split) except the policy
arrays of a deduplicated dataset. Arrays open memory-mapped and are checked against the
manifest's dtype and shape (a dataset is read every epoch: its sources' checksums, not its
arrays', are what the manifest keeps); nothing is ever unpickled. Folders are written whole
through ``core.files.replace_dir``, so a reader never sees a half-written dataset. A replayed
source in the build's cache is a checksummed shard (``REPLAYED``): a corrupt one is replayed
again, and a cache folder of the first layout (a ``done`` file, no checksums) still loads.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from othellolab.core import OthelloError
from othellolab.shards import SHARD_FILE, ShardError, ShardFormat

FORMAT = "othellolab.positions"
FORMAT_VERSION = 1
MANIFEST = "manifest.json"
SPLITS = ("train", "val", "test")


class DatasetFormatError(ShardError):
    """A dataset folder that is missing, incomplete or of another format; names the path."""


DATASET = ShardFormat(
    name=FORMAT,
    version=FORMAT_VERSION,
    readable=(FORMAT_VERSION,),
    pattern="|".join(SPLITS),
    kind="dataset",
    error=DatasetFormatError,
    meta_file=MANIFEST,
)
"""A dataset folder: its manifest (format, version, options, sources and each split's
arrays) at the root, a folder of arrays per split."""

REPLAYED = ShardFormat(
    name="othellolab.replayed",
    version=1,
    readable=(1,),
    pattern=r"[0-9a-f]{32}-(?:strict|lenient)-v[0-9]+",
    kind="replayed source",
    error=DatasetFormatError,
)
"""One source's replay in a build's cache: its rows' arrays, checksummed."""


class DatasetExistsError(DatasetFormatError, FileExistsError):
    """The output folder of a build holds something else (another dataset, other files) and
    ``overwrite`` was not given."""


class MissingDataError(OthelloError, FileNotFoundError):
    """Data a user named that is not there: a record file, a folder with no records in it, a
    WTHOR year missing from a folder."""


def write_arrays(folder: Path, arrays: dict[str, np.ndarray]) -> dict[str, dict[str, Any]]:
    """Save each array as ``folder/NAME.npy``; return ``{name: {dtype, shape}}`` for manifests."""
    folder.mkdir(parents=True, exist_ok=True)
    described = {}
    for name, a in arrays.items():
        np.save(folder / f"{name}.npy", np.ascontiguousarray(a), allow_pickle=False)
        described[name] = {"dtype": a.dtype.str, "shape": list(a.shape)}
    return described


def read_manifest(root: str | Path) -> dict[str, Any]:
    """The manifest of a dataset folder, checked for format and version."""
    if not (Path(root) / MANIFEST).is_file():
        raise DatasetFormatError(f"not a dataset folder (no {MANIFEST})", where=str(root))
    try:
        return DATASET.read_meta(root)
    except DatasetFormatError as e:
        if "format_version" in e.what:
            raise DatasetFormatError(
                f"{e.what}: this othellolab reads version {FORMAT_VERSION} (rebuild the dataset)",
                where=e.where,
            ) from None
        raise


def save_replayed(folder: Path, arrays: dict[str, np.ndarray]) -> None:
    """Cache one source's replay as a checksummed shard, swapped in whole."""
    REPLAYED.write(folder, arrays, {"arrays": sorted(arrays)})


def load_replayed(folder: Path) -> dict[str, np.ndarray] | None:
    """A source's cached replay, or None when there is none or it does not check out (the
    build replays the source again)."""
    if (folder / SHARD_FILE).is_file():
        try:
            meta = REPLAYED.read_meta(folder)
            return {name: REPLAYED.read_array(folder, name, meta) for name in meta["arrays"]}
        except (ShardError, KeyError, TypeError):
            return None
    if not (folder / "done").is_file():
        return None
    try:
        return {f.stem: np.load(f, allow_pickle=False) for f in folder.glob("*.npy")}
    except (OSError, ValueError):
        return None


def open_arrays(root: str | Path, split: str, *, mmap: bool = True) -> dict[str, np.ndarray]:
    """The named arrays of one split, memory-mapped read-only unless ``mmap`` is false."""
    manifest = read_manifest(root)
    if split not in manifest["splits"]:
        raise DatasetFormatError(
            f"{root}: no split {split!r}; splits: {', '.join(manifest['splits'])}"
        )
    folder = Path(root) / split
    arrays = {}
    for name, desc in manifest["splits"][split]["arrays"].items():
        path = folder / f"{name}.npy"
        if not path.is_file():
            raise DatasetFormatError(f"{path}: missing array file")
        a = np.load(path, mmap_mode="r" if mmap else None, allow_pickle=False)
        if a.dtype.str != desc["dtype"] or list(a.shape) != desc["shape"]:
            raise DatasetFormatError(
                f"{path}: {a.dtype.str} {list(a.shape)}, manifest says {desc['dtype']} {desc['shape']}"
            )
        arrays[name] = a
    return arrays
