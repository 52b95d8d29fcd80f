"""The on-disk dataset format: one folder per split of named ``.npy`` arrays, plus a manifest.

A dataset folder holds ``manifest.json`` and ``train/``, ``val/``, ``test/``, each with one
``NAME.npy`` per array, all of the same length (the rows of that split) except the policy
arrays of a deduplicated dataset. Arrays open memory-mapped; nothing is ever unpickled.
Folders are written whole through ``core.files.replace_dir``, so a reader never sees a
half-written dataset.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from othellolab.core import OthelloError

FORMAT = "othellolab.positions"
FORMAT_VERSION = 1
MANIFEST = "manifest.json"
SPLITS = ("train", "val", "test")


class DatasetFormatError(OthelloError):
    """A dataset folder that is missing, incomplete or of another format; names the path."""


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
    path = Path(root) / MANIFEST
    if not path.is_file():
        raise DatasetFormatError(f"{root}: not a dataset folder (no {MANIFEST})")
    try:
        manifest = json.loads(path.read_text())
    except json.JSONDecodeError as e:
        raise DatasetFormatError(f"{path}: invalid JSON: {e}") from None
    if manifest.get("format") != FORMAT:
        raise DatasetFormatError(f"{path}: format {manifest.get('format')!r}, expected {FORMAT!r}")
    if manifest.get("format_version") != FORMAT_VERSION:
        raise DatasetFormatError(
            f"{path}: format version {manifest.get('format_version')!r}; this othellolab reads "
            f"version {FORMAT_VERSION} (rebuild the dataset)"
        )
    return manifest


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
