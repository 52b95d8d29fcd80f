"""A run directory: the files a training run keeps between its stages, and the resume rule.

Layout (every trainer, supervised or self-play, shares it)::

    run.toml            the config file as given (when started from a file)
    config.json         the resolved config, frozen: a resumed run must match it
    train/state/        the checkpoint: tensors (safetensors) + state.json
    metrics.jsonl       one JSON line per record (training window, validation, ...)
    models/<name>/      exported model directories (nn.io format)

The checkpoint folder is replaced whole (``core.files.replace_dir``), so a kill leaves the
previous checkpoint or the new one; ``metrics.jsonl`` is cut back to the lines the checkpoint
had seen when a run resumes, so it never holds the records of lost steps twice.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from othellolab.core import ConfigError
from othellolab.core.files import recover_dir, replace_dir, write_text

__all__ = ["RunDir"]

STATE_FILE = "state.json"


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

    def recover(self) -> None:
        """Finish or undo a checkpoint swap that a kill interrupted."""
        recover_dir(self.state)

    def has_checkpoint(self) -> bool:
        """Whether a checkpoint exists to resume from."""
        return (self.state / STATE_FILE).exists()

    def read_state(self) -> dict[str, Any]:
        """The checkpoint's ``state.json``."""
        return json.loads((self.state / STATE_FILE).read_text())  # type: ignore[no-any-return]

    def write_checkpoint(self, tensors: Mapping[str, Mapping[str, Any]], state: Any) -> None:
        """Replace the checkpoint: one safetensors file per entry of ``tensors`` (file name ->
        named tensors) and ``state`` as ``state.json``."""
        from safetensors.torch import save_file

        with replace_dir(self.state, overwrite=True) as tmp:
            for name, named in tensors.items():
                save_file(dict(named), str(tmp / name))
            (tmp / STATE_FILE).write_text(json.dumps(state, indent=1) + "\n")

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
