"""Fuzzing model files: any config.json (random JSON, deep nesting, huge numbers, wrong types)
and any damage to the weights gives a loaded model or a ``ModelFileError`` naming the file,
never another exception, an allocation failure or a hang; flipped weight bits never load. The
reproducers of issue #24 are explicit cases.

``make test`` tries a small budget per target; a long run is
``OTHELLOLAB_FUZZ_EXAMPLES=20000 .venv/bin/python -m pytest -q tests/nn/test_fuzz_model_files.py``.
"""

from __future__ import annotations

import json
import shutil
import signal
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

torch = pytest.importorskip("torch", reason="the nn extra (torch) is not installed")

from othellolab.nn.config import (  # noqa: E402
    LIMITS,
    MAX_PARAMETERS,
    ModelConfig,
    ModelConfigError,
    model_config,
    parameter_count,
)
from othellolab.nn.files import (  # noqa: E402
    MAX_CONFIG_BYTES,
    MAX_JSON_DEPTH,
    ModelFileError,
    UnverifiedWeightsWarning,
    record_checksum,
)
from othellolab.nn.io import load_model, read_model_info, save_model  # noqa: E402
from othellolab.nn.models import build_model, count_parameters  # noqa: E402
from othellolab.players.search.patterns import (  # noqa: E402
    full_to_compact,
    load_pattern_weights,
    save_pattern_weights,
)

from helpers import fuzz_examples  # noqa: E402

FUZZ = settings(
    max_examples=fuzz_examples(100),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

KEYS = [f.name for f in ModelConfig.__dataclass_fields__.values()] + ["preset"]
BUILD_LIMIT = 2_000_000
"""Configs that pass are also built and loaded when no larger than this (to keep the run short)."""


@contextmanager
def no_hang(seconds: int = 30) -> Iterator[None]:
    """Fail (instead of waiting forever) when the block runs longer than ``seconds``."""

    def alarm(*_: Any) -> None:
        raise TimeoutError(f"loading ran for more than {seconds} s")

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> Path:
    torch.manual_seed(0)
    return save_model(build_model(model_config("cnn-2x8", size=6)), tmp_path_factory.mktemp("m"))


def _copy(saved: Path, tmp_path: Path) -> Path:
    d = tmp_path / "m"
    if d.exists():
        shutil.rmtree(d)
    shutil.copytree(saved, d)
    return d


def _load(d: Path) -> None:
    """Read the config, and load the model when it is small: fine, or a ``ModelFileError``."""
    with no_hang(), warnings.catch_warnings():
        warnings.simplefilter("ignore", UnverifiedWeightsWarning)
        try:
            info = read_model_info(d)
            if parameter_count(info.config) <= BUILD_LIMIT:
                load_model(d)
                event("loaded")
            else:
                event("config accepted (too large to build here)")
        except ModelFileError as e:
            event(f"ModelFileError ({e.key or 'file'})")


json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**30), 10**30),
    st.sampled_from([0, 1, 2, 8, 64, 65, 1024, 1025, 65536, 10**6, -1]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=10),
    st.sampled_from(["resnet", "cnn", "mlp", "１２", "player", "resnet-b2c8", "mlp-3x9"]),
)
json_values = st.recursive(
    json_scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=12,
)


@FUZZ
@given(st.dictionaries(st.sampled_from(KEYS), json_values, max_size=5), st.booleans())
def test_mutated_model_sections(tmp_path: Path, saved: Path, changes: dict, replace: bool) -> None:
    d = _copy(saved, tmp_path)
    meta = json.loads((d / "config.json").read_text())
    meta["model"] = changes if replace else {**meta["model"], **changes}
    (d / "config.json").write_text(json.dumps(meta))
    _load(d)


@FUZZ
@given(json_values)
def test_random_json_configs(tmp_path: Path, saved: Path, value: Any) -> None:
    d = _copy(saved, tmp_path)
    (d / "config.json").write_text(json.dumps(value))
    _load(d)
    meta = json.loads((saved / "config.json").read_text())
    (d / "config.json").write_text(json.dumps({**meta, "training": value, "weights_sha256": value}))
    _load(d)


@FUZZ
@given(st.integers(1, 200_000), st.sampled_from(["[", '{"a":']), st.booleans())
def test_deeply_nested_configs(tmp_path: Path, saved: Path, depth: int, opener: str, closed: bool) -> None:  # fmt: skip
    d = _copy(saved, tmp_path)
    closer = "]" if opener == "[" else "}"
    (d / "config.json").write_text(opener * depth + "1" + (closer * depth if closed else ""))
    with pytest.raises(ModelFileError, match=r"config\.json: (not |larger than)"):
        read_model_info(d)


@FUZZ
@given(st.binary(max_size=200), st.integers(3, 5000))
def test_random_bytes_and_huge_numbers(tmp_path: Path, saved: Path, raw: bytes, digits: int) -> None:  # fmt: skip
    d = _copy(saved, tmp_path)
    (d / "config.json").write_bytes(raw)
    _load(d)
    text = (
        (saved / "config.json").read_text().replace('"filters": 8', f'"filters": 9{"9" * digits}')
    )
    (d / "config.json").write_text(text)
    with pytest.raises(ModelFileError, match=r"filters|integer"):
        read_model_info(d)


@FUZZ
@given(st.lists(st.tuples(st.integers(0, 10**9), st.integers(0, 7)), min_size=1, max_size=3))
def test_flipped_weight_bits_never_load(tmp_path: Path, saved: Path, flips: list) -> None:
    d = _copy(saved, tmp_path)
    w = d / "model.safetensors"
    data = bytearray(w.read_bytes())
    for pos, bit in flips:
        data[pos % len(data)] ^= 1 << bit
    if bytes(data) == w.read_bytes():  # two flips of the same bit cancel
        return
    w.write_bytes(bytes(data))
    with no_hang(), pytest.raises(ModelFileError, match=r"model\.safetensors: "):
        load_model(d)


@pytest.fixture(scope="module")
def patterns(tmp_path_factory: pytest.TempPathFactory) -> Path:
    compact = np.random.default_rng(1).normal(0, 2, size=(2, full_to_compact()[1]))
    return save_pattern_weights(tmp_path_factory.mktemp("p"), compact)


@FUZZ
@given(st.integers(0, 10**9), st.integers(0, 7))
def test_flipped_pattern_weight_bits_never_load(tmp_path: Path, patterns: Path, pos: int, bit: int) -> None:  # fmt: skip
    d = _copy(patterns, tmp_path)
    w = d / "weights.safetensors"
    data = bytearray(w.read_bytes())
    data[pos % len(data)] ^= 1 << bit
    w.write_bytes(bytes(data))
    with pytest.raises(ModelFileError, match=r"weights\.safetensors: "):
        load_pattern_weights(d)


# The reproducers of issue #24.
CONFIG_REPRODUCERS = [
    ({"family": "resnet", "blocks": 1, "filters": 10**6}, r"option filters: must be a whole number in 0\.\.1024, got 1e6"),
    ({"family": "cnn", "layers": 10**7, "filters": 1}, r"option layers: must be a whole number in 0\.\.64, got 1e7"),
    ({"family": "mlp", "hidden": [10**12]}, r"option hidden: must be a whole number in 1\.\.65536, got 1e12"),
    ({"family": "mlp", "hidden": [65536, 65536]}, r"this network would have 4,\d{3},.* parameters; at most 100,000,000"),
    ({"family": "mlp", "hidden": [1] * 65}, r"option hidden: 65 items; at most 64"),
    ({"family": "mlp", "hidden": [1e300]}, r"option hidden: must be a whole number in 1\.\.65536, got 1e\+?300"),
    ({"family": "mlp", "hidden": ["１２"]}, r"option hidden: must be a whole number in 1\.\.65536, got '１２'"),
    ({"family": "mlp", "hidden": [8], "score_head": "no"}, r"option score_head: expected true or false, got 'no'"),
    ({"family": "cnn", "layers": 2, "filters": 8, "size": 8.5}, r"option size: must be a whole number in 4\.\.8, got 8\.5"),
    ({"preset": "resnet-b1c" + "9" * 5000}, r"model name 'resnet-b1c9+\.\.\.': filters 9+\.\.\. is off the 0..1024 range"),
    ({"preset": "mlp-1000000000x8"}, r"model name 'mlp-1000000000x8': hidden layers 1000000000 is off the 0..64 range"),
    ({"preset": 5}, r"option preset: expected a named size .*, got 5"),
]  # fmt: skip


@pytest.mark.parametrize(("model", "message"), CONFIG_REPRODUCERS)
def test_config_reproducers_of_issue_24(tmp_path: Path, saved: Path, model: dict, message: str) -> None:  # fmt: skip
    d = _copy(saved, tmp_path)
    meta = json.loads((d / "config.json").read_text())
    (d / "config.json").write_text(json.dumps({**meta, "model": model}))
    with no_hang(), pytest.raises(ModelFileError, match=r"config\.json: model: " + message) as info:
        load_model(d)
    assert info.value.key is not None and info.value.key.startswith("model")


def test_file_reproducers_of_issue_24(tmp_path: Path, saved: Path) -> None:
    d = _copy(saved, tmp_path)
    config = d / "config.json"
    good = config.read_text()
    config.write_text("[" * 100_000 + "]" * 100_000)  # was a RecursionError
    with pytest.raises(ModelFileError, match=f"nest deeper than {MAX_JSON_DEPTH}"):
        read_model_info(d)
    config.write_text(
        good.replace('"size": 6,', '"size": ' + "6" * 5000 + ",")
    )  # a bare ValueError
    with pytest.raises(ModelFileError, match=r"not a model config: integer 6+\.\.\. is off"):
        read_model_info(d)
    config.write_text(" " * (MAX_CONFIG_BYTES + 1))
    with pytest.raises(ModelFileError, match=r"larger than 1048576 bytes"):
        read_model_info(d)
    config.write_text(good)
    w = d / "model.safetensors"
    data = bytearray(w.read_bytes())
    data[-5] ^= 0x10  # a bit of the last weight: loaded silently before checksums
    w.write_bytes(bytes(data))
    with pytest.raises(ModelFileError, match=r"model\.safetensors: SHA-256 [0-9a-f]{64} differs") as info:  # fmt: skip
        load_model(d)
    assert info.value.key == "weights_sha256"


def test_a_config_without_checksum_loads_with_a_warning_saying_how_to_add_one(tmp_path: Path, saved: Path) -> None:  # fmt: skip
    d = _copy(saved, tmp_path)
    meta = json.loads((d / "config.json").read_text())
    digest = meta.pop("weights_sha256")
    (d / "config.json").write_text(json.dumps(meta))
    with pytest.warns(UnverifiedWeightsWarning, match=r"config\.json: no weights_sha256.*record_checksum"):  # fmt: skip
        load_model(d)
    assert record_checksum(d / "model.safetensors") == digest
    assert read_model_info(d).weights_sha256 == digest
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        load_model(d)


@pytest.mark.parametrize(
    "config",
    [
        model_config("mlp-classic"),
        model_config("mlp-3x17", size=4, score_head=True, batch_norm=False),
        model_config("cnn-3x8", batch_norm=True, planes=("player", "opponent", "legal")),
        model_config("resnet-b2c16", size=6, score_head=True),
        model_config("resnet-b2c8", batch_norm=False, policy_channels=3, value_channels=2),
    ],
)
def test_parameter_count_matches_the_built_model(config: ModelConfig) -> None:
    assert parameter_count(config) == count_parameters(build_model(config))


def test_limits_are_checked_without_building() -> None:
    biggest = ModelConfig("resnet", blocks=LIMITS["blocks"], filters=256)
    assert parameter_count(biggest) <= MAX_PARAMETERS
    with pytest.raises(ModelConfigError, match=r"parameters; at most") as info:
        ModelConfig("resnet", blocks=LIMITS["blocks"], filters=LIMITS["filters"])
    assert info.value.option is None
    with pytest.raises(
        ModelConfigError, match="option filters: must be a whole number in 0..1024, got 1025"
    ) as info:
        ModelConfig("resnet", blocks=1, filters=1025)
    assert info.value.option == "filters"


def test_docs_table_gives_the_limits_of_the_code() -> None:
    """docs/supervised.md's model-limits table states the constants the checks use."""
    import importlib
    import re

    from helpers import REPO

    doc = (REPO / "docs" / "supervised.md").read_text()
    body = re.search(r"<!-- spec:model-limits -->\n(.*?)<!-- /spec:model-limits -->", doc, re.S)
    assert body is not None
    rows = [line.split("|")[3].strip(" `") for line in body.group(1).splitlines()[2:] if line]
    for cell in rows:
        name, value = (part.strip(" `") for part in cell.split("="))
        module, constant = name.split(".")[1], name.split(".", 2)[2]
        holder, _, key = constant.partition("[")
        actual = getattr(importlib.import_module(f"othellolab.nn.{module}"), holder)
        if key:
            actual = actual[key.strip('"]')]
        assert str(actual) == value, cell
