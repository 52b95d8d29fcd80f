"""Model files checked before they are trusted: a bounded JSON config and the weights' SHA-256.

A model directory (a network's ``config.json`` + ``model.safetensors``, or the pattern
evaluation's ``config.json`` + ``weights.safetensors``) is read through ``read_config``: at most
``MAX_CONFIG_BYTES`` of UTF-8 JSON, nested at most ``MAX_JSON_DEPTH`` deep (checked before the
JSON parser recurses), whose integers have at most ``MAX_JSON_DIGITS`` digits. The writer stores
the SHA-256 of the weights file under ``CHECKSUM_KEY``; ``verify_weights`` checks it before the
weights are loaded, and warns (``UnverifiedWeightsWarning``) about a config saved without one.
Every failure is a ``ModelFileError`` naming the file, and the key when one is at fault.

Nothing here imports torch, so the pattern evaluation can use it.
"""

from __future__ import annotations

import hashlib
import json
import re
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from othellolab.core import OthelloError
from othellolab.core.parsing import NumberError, clip, parse_int

__all__ = [
    "CHECKSUM_KEY",
    "MAX_CONFIG_BYTES",
    "MAX_JSON_DEPTH",
    "MAX_JSON_DIGITS",
    "ModelFileError",
    "UnverifiedWeightsWarning",
    "file_sha256",
    "read_config",
    "record_checksum",
    "verify_weights",
]

MAX_CONFIG_BYTES = 1 << 20
"""Largest config file read (a config is a few kilobytes)."""

MAX_JSON_DEPTH = 32
"""Deepest nesting of arrays and objects in a config (the configs written nest 4 deep)."""

MAX_JSON_DIGITS = 18
"""Most digits of an integer in a config (Python's ``json`` would take 4,300, and ``int``
conversions of longer ones fail with a bare ``ValueError``)."""

CHECKSUM_KEY = "weights_sha256"
"""Config key holding the hex SHA-256 of the weights file."""

_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.S)
_BRACKET = re.compile(r"[\[\]{}]")
_HEX64 = re.compile(r"[0-9a-f]{64}")
_JSON_INT_LIMIT = 10**MAX_JSON_DIGITS - 1


class ModelFileError(OthelloError):
    """A model file that cannot be trusted: missing, too large, malformed, inconsistent with its
    config, or not matching its checksum. ``where`` is the file; ``key`` the config key at
    fault, when there is one (``"model.filters"``, ``"weights_sha256"``)."""

    def __init__(self, what: str, *, where: str | None = None, key: str | None = None) -> None:
        self.key = key
        super().__init__(what, where=where)


class UnverifiedWeightsWarning(UserWarning):
    """Weights loaded from a directory whose config records no checksum to verify them by."""


def read_config(path: str | Path) -> dict[str, Any]:
    """The JSON object of a config file, after checking its size, its nesting depth and the
    length of its integers (``ModelFileError`` naming the file otherwise)."""
    p = Path(path)
    where = str(p)
    try:
        with p.open("rb") as f:
            data = f.read(MAX_CONFIG_BYTES + 1)
    except FileNotFoundError:
        raise ModelFileError("missing", where=where) from None
    except OSError as e:
        raise ModelFileError(f"cannot be read ({e.strerror or e})", where=where) from None
    if len(data) > MAX_CONFIG_BYTES:
        raise ModelFileError(
            f"larger than {MAX_CONFIG_BYTES} bytes: not a model config", where=where
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ModelFileError(f"not valid JSON (not UTF-8: {e.reason})", where=where) from None
    if _too_deep(text):
        raise ModelFileError(
            f"not a model config: arrays and objects nest deeper than {MAX_JSON_DEPTH}",
            where=where,
        )
    try:
        value = json.loads(text, parse_int=_json_int)
    except NumberError as e:
        raise ModelFileError(f"not a model config: {e.what}", where=where) from None
    except json.JSONDecodeError as e:
        raise ModelFileError(f"not valid JSON ({e})", where=where) from None
    if not isinstance(value, dict):
        raise ModelFileError(
            f"not a model config: expected a JSON object, found {type(value).__name__}",
            where=where,
        )
    return value


def _too_deep(text: str) -> bool:
    """Whether the arrays and objects of JSON ``text`` nest deeper than ``MAX_JSON_DEPTH``
    (brackets inside strings do not count)."""
    depth = 0
    for m in _BRACKET.finditer(_STRING.sub('""', text)):
        if m.group() in "[{":
            depth += 1
            if depth > MAX_JSON_DEPTH:
                return True
        else:
            depth -= 1
    return False


def _json_int(text: str) -> int:
    return parse_int(text, lo=-_JSON_INT_LIMIT, hi=_JSON_INT_LIMIT, what="integer")


def file_sha256(path: str | Path) -> str:
    """Hex SHA-256 of a file's bytes."""
    with Path(path).open("rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def expected_checksum(config: Mapping[str, Any], config_path: str | Path) -> str | None:
    """The weights' checksum a config records (``None`` when it records none), checked to be
    64 lowercase hex digits."""
    value = config.get(CHECKSUM_KEY)
    if value is None:
        return None
    if not isinstance(value, str) or _HEX64.fullmatch(value) is None:
        raise ModelFileError(
            f"{CHECKSUM_KEY} must be 64 lowercase hex digits (a SHA-256), got {clip(value)}",
            where=str(config_path),
            key=CHECKSUM_KEY,
        )
    return value


def verify_weights(weights: str | Path, expected: str | None, *, config_path: str | Path) -> None:
    """Check the weights file against the checksum its config records: a mismatch is a
    ``ModelFileError`` naming the file and both digests; no checksum (a file saved before
    checksums) loads with an ``UnverifiedWeightsWarning`` saying how to add one."""
    w = Path(weights)
    if not w.is_file():
        raise ModelFileError("missing weights file", where=str(w))
    if expected is None:
        warnings.warn(
            f"{config_path}: no {CHECKSUM_KEY}, so {w.name} is loaded unverified; record one "
            'with: python -c "from othellolab.nn.files import record_checksum; '
            f"record_checksum('{w}')\"",
            UnverifiedWeightsWarning,
            stacklevel=3,
        )
        return
    actual = file_sha256(w)
    if actual != expected:
        raise ModelFileError(
            f"SHA-256 {actual} differs from the {expected} that {Path(config_path).name} "
            "records: the weights are damaged or were replaced",
            where=str(w),
            key=CHECKSUM_KEY,
        )


def record_checksum(weights: str | Path, *, config_name: str = "config.json") -> str:
    """Write the SHA-256 of a weights file into the ``config.json`` beside it (atomically), for
    a model saved before checksums; returns the digest. Check the weights first: from now on
    they are trusted as they are."""
    from othellolab.core.files import write_json

    w = Path(weights)
    config_path = w.with_name(config_name)
    config = read_config(config_path)
    config[CHECKSUM_KEY] = digest = file_sha256(w)
    write_json(config_path, config)
    return digest
