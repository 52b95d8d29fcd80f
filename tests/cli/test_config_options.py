"""``cli._config``: the text a run folder keeps for an overridden config reads back as that
config, shorthand flags meet ``--set`` with a clear error, and random ``--set`` items end in a
message, never a traceback."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from othellolab.cli import app
from othellolab.cli._config import overrides, run_text, toml_text
from othellolab.core import ConfigError

from helpers import fuzz_examples

KEYS = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=8)
SCALARS = st.one_of(
    st.booleans(),
    st.integers(-(2**63), 2**63 - 1),
    st.floats(allow_nan=False),
    st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12),
)
VALUES = st.one_of(SCALARS, st.lists(st.integers(-100, 100), max_size=3))
TABLES = st.recursive(
    st.dictionaries(KEYS, VALUES, max_size=4),
    lambda inner: st.dictionaries(
        KEYS, st.one_of(VALUES, inner, st.lists(inner, min_size=1, max_size=2)), max_size=4
    ),
    max_leaves=12,
)


@settings(max_examples=fuzz_examples(200), deadline=None)
@given(data=TABLES)
def test_toml_text_reads_back_equal(data: dict) -> None:
    assert tomllib.loads(toml_text(data)) == data


def test_run_text_is_the_file_as_given_or_the_overridden_config(tmp_path: Path) -> None:
    path = tmp_path / "a.toml"
    path.write_text(
        '# comment\nname = "a"\n[[rounds]]\ndata = "x"\n[train]\nlr = 0.1\nepochs = 2\n'
    )
    assert run_text(path, {}) == path.read_text()
    given = overrides(["train.lr=0.01", "seed=3"])
    assert tomllib.loads(run_text(path, given)) == {
        "name": "a",
        "seed": 3,
        "rounds": [{"data": "x"}],
        "train": {"lr": 0.01, "epochs": 2},
    }


def test_a_shorthand_flag_is_its_key() -> None:
    assert overrides(["seed=1"], workers=2, **{"loop.generations": None}) == {
        "seed": 1,
        "workers": 2,
    }
    with pytest.raises(ConfigError, match="--workers and --set workers=... both set workers"):
        overrides(["workers=3"], workers=2)


@settings(max_examples=fuzz_examples(60), deadline=None)
@given(items=st.lists(st.text(max_size=20), min_size=1, max_size=3))
def test_random_set_items_end_in_a_message(items: list[str], tmp_path_factory) -> None:
    missing = tmp_path_factory.mktemp("c") / "none.toml"
    args = ["train", "selfplay", str(missing)]
    for item in items:
        args += ["--set", item]
    result = CliRunner().invoke(app, args)
    assert result.exit_code in (1, 2), result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert "Traceback" not in result.output
