"""A run directory: the files a training run keeps between its stages, and the resume rule.

Layout (every trainer, supervised or self-play, shares it)::

    run.toml            the config file as given (when started from a file)
    config.json         the resolved config, frozen: a resumed run must match it
    train/state/        the checkpoint: tensors (safetensors) + state.json (with their SHA-256)
    train/state.prev/   the checkpoint before it, kept until a later start has verified this one
    metrics.jsonl       one JSON line per record (training window, validation, ...)
    models/<name>/      exported model directories (nn.io format)

The checkpoint folder is filled under ``state.tmp`` and swapped in whole, the one it replaces
kept as ``state.prev``, so a kill leaves the previous checkpoint or the new one. A start checks
the checkpoint's files against the checksums in its ``state.json``: a truncated or corrupted
one is named in a warning, moved aside as ``state.corrupt`` and the previous good one used
(or, with none, named in the error). ``metrics.jsonl`` is cut back to the lines the
checkpoint had seen when a run resumes, so it never holds the records of lost steps twice.
"""

from __future__ import annotations

import json
import os
import shutil
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from othellolab.core import ConfigError, OthelloError
from othellolab.core.files import named_write, recover_dir, sha256_file, sync_file, write_text

__all__ = ["CheckpointError", "CorruptCheckpointWarning", "RunDir"]

STATE_FILE = "state.json"
CHECKSUMS = "sha256"
"""The key of ``state.json`` that maps each file of the checkpoint to its SHA-256."""


class CheckpointError(OthelloError):
    """A checkpoint that cannot be used (truncated, corrupted) and no good one before it."""


class CorruptCheckpointWarning(UserWarning):
    """A corrupt checkpoint was set aside and the previous good one is used."""


class RunDir:
    """The paths of one run and the operations on them (freeze, checkpoint, metrics)."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)
        self.state = self.root / "train" / "state"
        self.metrics = self.root / "metrics.jsonl"
        self.models = self.root / "models"
        self.config = self.root / "config.json"

    def freeze(
        self,
        config: Mapping[str, Any],
        *,
        text: str | None = None,
        defaults: Mapping[str, Mapping[str, Any]] | None = None,
        ignore: tuple[str, ...] = ("runtime",),
    ) -> None:
        """Write the run's config on its first start; on a later start, refuse a different one.

        ``config`` maps table names to their options; an option missing from the frozen file
        counts as unchanged when ``config`` has its default (``defaults[table][option]``), so
        an option added after a run started does not stop it from resuming. Tables named in
        ``ignore`` (the runtime: threads, device), and options named ``table.option`` there,
        may change between starts."""
        if self.config.exists():
            have = json.loads(self.config.read_text())
            defaults = defaults or {}
            diffs = []
            for table, value in config.items():
                if table in ignore:
                    continue
                if isinstance(value, dict) and isinstance(have.get(table), dict):
                    fallback = defaults.get(table, {})
                    diffs += [
                        f"{table}.{k}"
                        for k in value
                        if have[table].get(k, fallback.get(k, None)) != value[k]
                        and f"{table}.{k}" not in ignore
                    ]
                elif have.get(table) != value:
                    diffs.append(table)
            if diffs:
                raise ConfigError(
                    f"{self.config}: the run was started with a different config "
                    f"({', '.join(diffs)} differ); use a new run name, or delete {self.root} to "
                    "start over"
                )
            return
        self.root.mkdir(parents=True, exist_ok=True)
        if text is not None:
            write_text(self.root / "run.toml", text)
        write_text(self.config, json.dumps(config, indent=2) + "\n")

    @property
    def previous(self) -> Path:
        """The checkpoint before the current one."""
        return self.state.with_name(self.state.name + ".prev")

    def recover(self) -> None:
        """Finish or undo a checkpoint swap that a kill interrupted, and set a corrupt
        checkpoint aside for the previous good one (a ``CorruptCheckpointWarning`` names it)."""
        recover_dir(self.state)
        if not self.state.exists() and self.previous.exists():
            os.replace(self.previous, self.state)  # killed between the swap's two renames
        problem = checkpoint_problem(self.state)
        if problem is None or checkpoint_problem(self.previous) is not None:
            return
        corrupt = self.state.with_name(self.state.name + ".corrupt")
        shutil.rmtree(corrupt, ignore_errors=True)
        os.replace(self.state, corrupt)
        os.replace(self.previous, self.state)
        warnings.warn(
            f"{problem}; it is kept as {corrupt} and the run goes on from the previous "
            f"checkpoint (step {self.read_state().get('step')})",
            CorruptCheckpointWarning,
            stacklevel=2,
        )

    def has_checkpoint(self) -> bool:
        """Whether a checkpoint exists to resume from."""
        return (self.state / STATE_FILE).exists()

    def read_state(self) -> dict[str, Any]:
        """The checkpoint's ``state.json`` (without its checksums), once every file of the
        checkpoint matches them; a ``CheckpointError`` names the file that does not."""
        problem = checkpoint_problem(self.state)
        if problem is not None:
            raise CheckpointError(
                f"{problem}, and no good checkpoint before it is kept; delete {self.state} "
                "to train this run from its start"
            )
        state = json.loads((self.state / STATE_FILE).read_text())
        state.pop(CHECKSUMS, None)
        return state  # type: ignore[no-any-return]

    def write_checkpoint(self, tensors: Mapping[str, Mapping[str, Any]], state: Any) -> None:
        """Replace the checkpoint: one safetensors file per entry of ``tensors`` (file name ->
        named tensors) and ``state`` as ``state.json`` with their checksums, keeping the one
        it replaces as ``state.prev``."""
        from safetensors.torch import save_file

        recover_dir(self.state)
        tmp = self.state.with_name(self.state.name + ".tmp")
        tmp.mkdir(parents=True)
        try:
            checksums = {}
            for name, named in tensors.items():
                with named_write(tmp / name):
                    save_file(dict(named), str(tmp / name))
                    sync_file(tmp / name)
                checksums[name] = sha256_file(tmp / name)
            with named_write(tmp / STATE_FILE):
                text = json.dumps({**state, CHECKSUMS: checksums}, indent=1) + "\n"
                (tmp / STATE_FILE).write_text(text)
                sync_file(tmp / STATE_FILE)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        if self.state.exists():
            shutil.rmtree(self.previous, ignore_errors=True)
            os.replace(self.state, self.previous)
        os.replace(tmp, self.state)

    def metric_lines(self) -> list[str]:
        """The lines of ``metrics.jsonl`` so far."""
        return self.metrics.read_text().splitlines() if self.metrics.exists() else []

    def log(self, record: Mapping[str, Any]) -> None:
        """Append one record to ``metrics.jsonl``."""
        with self.metrics.open("a") as f:
            f.write(json.dumps(record) + "\n")

    def keep_metrics(self, lines: int) -> None:
        """Cut ``metrics.jsonl`` back to its first ``lines`` lines (those a checkpoint saw)."""
        kept = self.metric_lines()[:lines]
        write_text(self.metrics, "".join(line + "\n" for line in kept))

    def clear_metrics(self) -> None:
        """Start ``metrics.jsonl`` afresh (a run with no checkpoint)."""
        self.metrics.unlink(missing_ok=True)


def checkpoint_problem(folder: Path) -> str | None:
    """What is wrong with the checkpoint in ``folder``, naming the file (``None``: nothing;
    a checkpoint written before checksums is taken as it is)."""
    path = folder / STATE_FILE
    if not path.exists():
        return f"{path}: missing"
    try:
        state = json.loads(path.read_text())
        checksums = state.get(CHECKSUMS, {})
        assert isinstance(checksums, dict)
    except (ValueError, UnicodeDecodeError, AttributeError, AssertionError):
        return f"{path}: not a checkpoint's JSON state (truncated or corrupted)"
    for name, expected in checksums.items():
        file = folder / name
        if not file.is_file():
            return f"{file}: missing from the checkpoint"
        if sha256_file(file) != expected:
            return f"{file}: its SHA-256 differs from the checkpoint's (truncated or corrupted)"
    return None
