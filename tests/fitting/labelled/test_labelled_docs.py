"""docs/engine-training.md against the code: every config key with its default, and every
shard array with its dtype."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np

from othellolab.fitting.labelled.config import LabelledConfig
from othellolab.fitting.labelled.generate import ARRAYS

DOC = (Path(__file__).resolve().parents[3] / "docs" / "engine-training.md").read_text()


def test_config_reference_lists_every_key_with_its_default() -> None:
    reference = DOC.split("### Config reference", 1)[1].split("###", 1)[0]
    cfg = LabelledConfig()
    for f in dataclasses.fields(cfg):
        value = getattr(cfg, f.name)
        if dataclasses.is_dataclass(value):
            assert f"`[{f.name}]`" in reference
            for g in dataclasses.fields(value):
                assert f"`{g.name}` [{getattr(value, g.name)}" in reference, g.name
        else:
            assert f"`{f.name}` [{value}]" in reference, f.name


def test_shard_arrays_are_documented_with_their_dtypes() -> None:
    layout = DOC.split("A shard's arrays", 1)[1].split("`shard.json`", 1)[0]
    for name, dtype in ARRAYS.items():
        assert f"`{name}`" in layout, name
        assert np.dtype(dtype).name in layout, (name, np.dtype(dtype).name)
