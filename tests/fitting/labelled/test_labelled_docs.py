"""docs/engine-training.md against the code: every shard array with its dtype (the config
reference is generated from the declarations, tests/config/test_reference.py)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from othellolab.fitting.labelled.generate import ARRAYS

DOC = (Path(__file__).resolve().parents[3] / "docs" / "engine-training.md").read_text()


def test_shard_arrays_are_documented_with_their_dtypes() -> None:
    layout = DOC.split("A shard's arrays", 1)[1].split("`shard.json`", 1)[0]
    for name, dtype in ARRAYS.items():
        assert f"`{name}`" in layout, name
        assert np.dtype(dtype).name in layout, (name, np.dtype(dtype).name)
