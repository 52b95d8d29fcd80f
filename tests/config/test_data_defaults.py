"""The WTHOR and XOT keys default to the user's data folder (``data:wthor``) and the shipped
``xot-large`` list, found when used: a missing copy is an error that names the key and the
``othellolab data download`` command; a value naming no data set is refused when read."""

from __future__ import annotations

from pathlib import Path

import pytest

from othellolab.core import ConfigError
from othellolab.fitting.engine import FitConfig, ProbCutConfig
from othellolab.fitting.labelled.config import OpeningsConfig
from othellolab.fitting.labelled.openings import opening_files, xot_path
from othellolab.records.download import BUNDLED, config_path
from othellolab.training.config import DataConfig


def test_no_default_names_a_developers_folder() -> None:
    defaults = [
        DataConfig().wthor_dir,
        OpeningsConfig().wthor_dir,
        FitConfig().wthor,
        ProbCutConfig().wthor,
    ]
    assert defaults == ["data:wthor"] * 4
    assert OpeningsConfig().xot == "xot-large"


def test_the_default_is_the_data_folders_copy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "wthor").mkdir()
    (tmp_path / "wthor" / "WTH_2001.wtb").write_bytes(b"")
    monkeypatch.setenv("OTHELLOLAB_DATA", str(tmp_path))
    assert FitConfig().wthor_path() == tmp_path / "wthor"
    assert ProbCutConfig().wthor_path() == tmp_path / "wthor"
    assert FitConfig(wthor="").wthor_path() is None
    openings = OpeningsConfig(source="mixed", years="2001")
    assert opening_files(openings) == [BUNDLED["xot-large"][2], tmp_path / "wthor" / "WTH_2001.wtb"]
    # a path is taken as it is, found or not
    assert config_path("somewhere/wthor", where="[fit]", option="wthor") == Path("somewhere/wthor")


def test_a_missing_copy_names_the_key_and_the_download_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OTHELLOLAB_DATA", str(tmp_path))
    with pytest.raises(ConfigError) as info:
        FitConfig().wthor_path()
    message = str(info.value)
    assert message.startswith("[fit]: option wthor: data:wthor: the data folder has no wthor")
    assert "othellolab data download wthor" in message and str(tmp_path / "wthor") in message
    with pytest.raises(ConfigError, match=r"\[openings\]: option wthor_dir: .*data download wthor"):
        opening_files(OpeningsConfig(source="wthor"))
    # the shipped list needs nothing downloaded
    assert xot_path(OpeningsConfig()) == BUNDLED["xot-large"][2]


def test_a_value_naming_no_data_set_is_refused_when_read() -> None:
    with pytest.raises(ConfigError, match=r"\[data\]: option wthor_dir: 'data:wthorr' names no"):
        DataConfig(wthor_dir="data:wthorr")
    with pytest.raises(ConfigError, match=r"\[openings\]: option xot: 'data:xot-huge' names no"):
        OpeningsConfig(xot="data:xot-huge")
