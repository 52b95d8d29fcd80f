"""Named opening lists (``xot-small``, ``xot-large``) that ship with the package: read and drawn
with nothing downloaded, and the error for a name that is not one lists those that are."""

from __future__ import annotations

from pathlib import Path

import pytest

from othellolab.arena.openings import OPENING_LISTS, opening_set, read_openings
from othellolab.core import ConfigError


@pytest.fixture(autouse=True)
def _empty_data_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OTHELLOLAB_DATA", str(tmp_path / "nothing-downloaded"))


def test_the_xot_lists_are_read_by_name() -> None:
    assert OPENING_LISTS == ("xot-large", "xot-small")
    small = read_openings("xot-small")
    assert len(small) == 3623 and all(len(o) == 8 for o in small)
    assert len(read_openings("XOT-large")) == 10784  # gzip-compressed in the package


def test_opening_set_draws_from_a_named_list() -> None:
    drawn = opening_set("xot-small", 5, seed=3)
    assert len(drawn) == 5 and set(drawn) <= set(read_openings("xot-small"))


def test_a_file_of_that_name_comes_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    Path("xot-small").write_text("f5d6\n")
    assert read_openings("xot-small") == [(37, 43)]


def test_unknown_names_and_other_boards_are_clear_errors() -> None:
    with pytest.raises(ConfigError, match=r"named list \(xot-large, xot-small\)") as info:
        opening_set("xot-medium", 2, where="openings")
    assert info.value.option == "openings"
    with pytest.raises(ConfigError, match="list of 8x8 Othello openings"):
        opening_set("xot-small", 2, size=6)
