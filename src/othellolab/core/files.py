"""Files written whole or not at all: every writer of othellolab goes through here.

A file is written under a temporary name in its own folder (``NAME.tmp``, or ``NAME.tmp.EXT``
where a writer picks its format from the extension), flushed to disk and renamed onto its
name with ``os.replace`` (the folder flushed after, so the rename survives a power cut): a
reader sees the old file or the new one, never half of one, and a run killed at any point can
resume. A folder is filled under ``NAME.tmp``, every file in it flushed, and swapped in whole.
Appending lines to a log (``metrics.jsonl``, a tournament's ``results.jsonl``) is not a
whole-file write and does not come here.

A write that fails (a full disk: ``ENOSPC``, which the system reports without a file name)
raises an ``OSError`` that names the file it was writing, and leaves the old file or folder as
it was.
"""

from __future__ import annotations

import gzip
import io
import json
import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

import numpy as np

__all__ = [
    "AtomicFile",
    "atomic_writer",
    "named_write",
    "recover_dir",
    "replace_dir",
    "replacing",
    "save_array",
    "sha256_file",
    "sync_file",
    "write_array_dir",
    "write_bytes",
    "write_json",
    "write_text",
]


def _temporary(path: Path, keep_suffix: bool) -> Path:
    return path.with_name(path.name + ".tmp" + (path.suffix if keep_suffix else ""))


def sync_file(path: Path) -> None:
    """Flush a written file's bytes to the disk."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


@contextmanager
def named_write(path: str | Path) -> Iterator[None]:
    """Name ``path`` in an ``OSError`` raised without a file name while writing it (a full
    disk's ``ENOSPC`` comes from ``write`` or ``fsync`` with none), so the user sees which
    file could not be written."""
    try:
        yield
    except OSError as e:
        if e.filename is not None:
            raise
        raise OSError(e.errno, e.strerror or str(e), str(path)) from e


@contextmanager
def replacing(path: str | Path, *, keep_suffix: bool = False) -> Iterator[Path]:
    """Yield a temporary path beside ``path`` for a writer that takes a file name (safetensors,
    matplotlib, Pillow); on success it is synced and renamed onto ``path``, on failure removed.

    ``keep_suffix`` ends the temporary name in ``path``'s extension (``x.png.tmp.png``), for
    writers that choose the format from it."""
    target = Path(path)
    tmp = _temporary(target, keep_suffix)
    try:
        with named_write(target):
            yield tmp
            sync_file(tmp)
        os.replace(tmp, target)
        _sync_dir(target.parent)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def write_bytes(path: str | Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically."""
    with replacing(path) as tmp:
        tmp.write_bytes(data)


def write_text(path: str | Path, text: str) -> None:
    """Write UTF-8 ``text`` to ``path`` atomically (newlines as given)."""
    write_bytes(path, text.encode())


def write_json(path: str | Path, data: Any, *, indent: int = 2) -> None:
    """Write ``data`` as JSON (``indent``, a final newline) to ``path`` atomically."""
    write_text(path, json.dumps(data, indent=indent) + "\n")


def save_array(path: str | Path, array: np.ndarray) -> None:
    """Save one array as ``.npy`` (never pickled) to ``path`` atomically."""
    with replacing(path) as tmp, tmp.open("wb") as f:
        np.save(f, array, allow_pickle=False)


def atomic_writer(path: str | Path, *, binary: bool = False) -> AtomicFile:
    """A file object written under a temporary name and renamed onto ``path`` when closed
    cleanly; gzip-compressed when the name ends in ``.gz``, UTF-8 text unless ``binary``."""
    return AtomicFile(Path(path), binary=binary)


class AtomicFile:
    """Context manager behind ``atomic_writer``."""

    def __init__(self, path: Path, *, binary: bool) -> None:
        self.path = path
        self.tmp = _temporary(path, False)
        self.binary = binary
        self._raw: IO[bytes] | None = None
        self._gz: Any = None
        self._f: Any = None

    def __enter__(self) -> Any:
        with named_write(self.path):
            self._raw = self.tmp.open("wb")
        stream: IO[bytes] = self._raw
        if self.path.suffix == ".gz":
            stream = gzip.GzipFile(fileobj=self._raw, mode="wb", mtime=0)  # type: ignore[assignment]
        self._gz = stream if stream is not self._raw else None
        self._f = (
            stream if self.binary else io.TextIOWrapper(stream, encoding="utf-8", newline="\n")
        )
        return self._f

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        with named_write(self.path):
            self._close(exc_type)
        if isinstance(exc, OSError) and exc.filename is None:
            raise OSError(exc.errno, exc.strerror or str(exc), str(self.path)) from exc

    def _close(self, exc_type: Any) -> None:
        try:
            if not self.binary:
                self._f.flush()
                self._f.detach()
            if self._gz is not None:
                self._gz.close()
            assert self._raw is not None
            if exc_type is None:
                self._raw.flush()
                os.fsync(self._raw.fileno())
            self._raw.close()
        finally:
            if exc_type is None:
                os.replace(self.tmp, self.path)
                _sync_dir(self.path.parent)
            else:
                self.tmp.unlink(missing_ok=True)


@contextmanager
def replace_dir(target: str | Path, *, overwrite: bool = False) -> Iterator[Path]:
    """Yield an empty temporary folder beside ``target``, renamed to ``target`` on success.

    A leftover temporary folder from an interrupted run is removed first. An existing
    ``target`` is an error (``FileExistsError``) unless ``overwrite``, and then it is replaced
    only once the new folder is complete."""
    target = Path(target)
    recover_dir(target)
    tmp = target.with_name(target.name + ".tmp")
    tmp.mkdir(parents=True)
    try:
        with named_write(target):
            yield tmp
        with named_write(target):
            _sync_tree(tmp)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    if target.exists():
        if not overwrite:
            shutil.rmtree(tmp, ignore_errors=True)
            raise FileExistsError(f"{target} exists (pass overwrite to replace it)")
        old = target.with_name(target.name + ".old")
        os.replace(target, old)
        os.replace(tmp, target)
        shutil.rmtree(old)
    else:
        os.replace(tmp, target)
    _sync_dir(target.parent)


def _sync_tree(folder: Path) -> None:
    """Flush every file under ``folder`` and the folders themselves to the disk, so that the
    rename that follows never publishes a folder whose files a power cut would leave empty."""
    for root, _, files in os.walk(folder):
        for name in files:
            sync_file(Path(root, name))
        _sync_dir(Path(root))


def _sync_dir(folder: Path) -> None:
    """Flush a folder's entries (a rename into it) to the disk, where the system allows it."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:  # some file systems refuse fsync on a folder; the rename stands
        pass
    finally:
        os.close(fd)


def recover_dir(target: str | Path) -> None:
    """Finish or undo a ``replace_dir`` swap that a kill interrupted: the old folder comes
    back if the new one never arrived; leftover temporary and old folders are removed."""
    target = Path(target)
    tmp, old = (target.with_name(target.name + end) for end in (".tmp", ".old"))
    if not target.exists() and old.exists():
        os.replace(old, target)
    for leftover in (tmp, old):
        if leftover.exists():
            shutil.rmtree(leftover)


def sha256_file(path: str | Path) -> str:
    """Hex SHA-256 of a file's bytes, read in blocks."""
    import hashlib

    h = hashlib.sha256()
    with Path(path).open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def write_array_dir(
    target: str | Path, arrays: dict[str, np.ndarray], meta: dict[str, Any], *, meta_file: str
) -> Path:
    """Write ``arrays`` as ``NAME.npy`` files (never pickled) and ``meta`` with their SHA-256
    under ``"sha256"`` as ``meta_file``, into the folder ``target``, swapped in whole (a shard
    of self-play or labelled positions)."""
    folder = Path(target)
    with replace_dir(folder, overwrite=True) as tmp:
        checksums = {}
        for name, a in arrays.items():
            path = tmp / f"{name}.npy"
            with named_write(folder / path.name):
                np.save(path, np.ascontiguousarray(a), allow_pickle=False)
            checksums[name] = sha256_file(path)
        with named_write(folder / meta_file):
            text = json.dumps({**meta, "sha256": checksums}, indent=1) + "\n"
            (tmp / meta_file).write_text(text)
    return folder
