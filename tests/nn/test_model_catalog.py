"""``nn.pretrained.ModelCatalog``: the one resolver of model names. A run's models are named
``RUN/NAME`` however the run is given, other model directories by their folder name, and a
name never means two models (docs/web.md, "Your own models")."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from othellolab.core import ConfigError
from othellolab.nn.pretrained import (
    ModelCatalog,
    available_models,
    describe_names,
    model_dir,
    model_name,
)

SMALL = "az-6x6"
"""A shipped model small enough to copy into a test's run folders (it plays 6x6 Othello)."""


def make_run(root: Path, *generations: str) -> Path:
    """A run folder as ``training.rundir`` lays it out: ``config.json`` and ``models/NAME/``."""
    root.mkdir(parents=True)
    (root / "config.json").write_text(json.dumps({"name": root.name}))
    for name in generations:
        shutil.copytree(model_dir(SMALL), root / "models" / name)
    return root


def test_a_runs_models_are_named_run_slash_generation_however_it_is_given(
    tmp_path: Path,
) -> None:
    run = make_run(tmp_path / "runs" / "my-az", "gen0000", "gen0001")
    want = {"my-az/gen0000", "my-az/gen0001"}
    for root in (run, run / "models", tmp_path / "runs"):
        catalog = ModelCatalog([root], allow_paths=False)
        assert set(catalog.user_names()) == want, root
        assert catalog.resolve("my-az/gen0001") == (run / "models" / "gen0001").resolve()
    one = ModelCatalog([run / "models" / "gen0001"], allow_paths=False)
    assert one.user_names() == ["my-az/gen0001"]
    assert model_name(run / "models" / "gen0000") == "my-az/gen0000"
    # the shipped models stay, under their own names
    assert set(available_models()) <= set(one.names())
    assert one.resolve(SMALL) == model_dir(SMALL)


def test_two_runs_with_the_same_generations_do_not_clash(tmp_path: Path) -> None:
    a = make_run(tmp_path / "a", "gen0001")
    b = make_run(tmp_path / "b", "gen0001")
    catalog = ModelCatalog([a / "models", b], allow_paths=False)
    assert catalog.user_names() == ["a/gen0001", "b/gen0001"]
    assert catalog.resolve("a/gen0001") != catalog.resolve("b/gen0001")
    # the same run given twice is the same models, not a clash
    assert ModelCatalog([a, a / "models"]).user_names() == ["a/gen0001"]


def test_loose_model_directories_are_named_by_their_folder(tmp_path: Path) -> None:
    for name in ("mine", "other"):
        shutil.copytree(model_dir(SMALL), tmp_path / "zoo" / name)
    # a folder called models that is not a run's (no config.json beside it): plain names
    shutil.copytree(model_dir(SMALL), tmp_path / "models" / "third")
    catalog = ModelCatalog([tmp_path / "zoo", tmp_path / "models"])
    assert catalog.user_names() == ["mine", "other", "third"]


def test_a_name_that_two_models_would_take_is_refused_naming_both(tmp_path: Path) -> None:
    first = make_run(tmp_path / "x" / "my-az", "gen0001")
    second = make_run(tmp_path / "y" / "my-az", "gen0001")
    with pytest.raises(ConfigError, match="'my-az/gen0001'") as info:
        ModelCatalog([first, second])
    assert info.value.option == "models"
    assert str(first / "models" / "gen0001") in str(info.value)
    assert str(second / "models" / "gen0001") in str(info.value)
    shutil.copytree(model_dir(SMALL), tmp_path / "mine" / "b8c64-all")
    with pytest.raises(ConfigError, match="name of a shipped model") as info:
        ModelCatalog([tmp_path / "mine"])
    assert info.value.option == "models"


def test_roots_without_models_are_refused_by_name(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="nope: no such folder") as info:
        ModelCatalog([tmp_path / "nope"])
    assert info.value.option == "models"
    (tmp_path / "empty").mkdir()
    with pytest.raises(ConfigError, match="empty: no model directory there"):
        ModelCatalog([tmp_path / "empty"])
    # a run folder is not a model directory, though it holds a config.json
    run = make_run(tmp_path / "runs" / "r")
    with pytest.raises(ConfigError, match="no model directory there"):
        ModelCatalog([run])


def test_an_unknown_name_lists_every_name_and_suggests_a_runs(tmp_path: Path) -> None:
    run = make_run(tmp_path / "my-az", "gen0000", "gen0030")
    server = ModelCatalog([run], allow_paths=False)
    with pytest.raises(ConfigError, match="is not one of this server's models") as info:
        server.resolve("gen0030")
    text = str(info.value)
    for name in (*available_models(), "my-az/gen0000", "my-az/gen0030"):
        assert name in text
    assert text.endswith("did you mean 'my-az/gen0030'?")
    # a path is refused by a server whether or not it exists, with the same listing
    with pytest.raises(ConfigError, match="is not one of this server's models"):
        server.resolve(str(run / "models" / "gen0000"))
    local = ModelCatalog([run])
    assert local.resolve(str(run / "models" / "gen0000")) == run / "models" / "gen0000"
    with pytest.raises(ConfigError, match="nor a model name") as info:
        local.resolve("gen0030")
    assert "my-az/gen0030" in str(info.value) and SMALL in str(info.value)


def test_names_of_a_game_and_names_in_words(tmp_path: Path) -> None:
    catalog = ModelCatalog([make_run(tmp_path / "r", "gen0001")])
    assert catalog.names("othello6") == ["az-6x6", "r/gen0001"]
    assert "r/gen0001" not in catalog.names("othello8")
    assert catalog.game_of("r/gen0001") == "othello6"
    many = [f"run/gen{g:04d}" for g in range(31)]
    assert describe_names(["az-6x6", *many]) == "az-6x6, run/gen0000 ... run/gen0030 (31 models)"
    assert describe_names(many[:3]) == "run/gen0000, run/gen0001, run/gen0002"
