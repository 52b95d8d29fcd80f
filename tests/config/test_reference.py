"""The docs' reference tables are generated from the config declarations: each marked block
equals its rendering, and a changed declaration shows in the table."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import pytest

from othellolab.config import CheckedTable, Option
from othellolab.config.reference import main, reference_table, render_doc, stale_blocks

ROOT = Path(__file__).resolve().parents[2]


def test_every_generated_block_of_the_docs_is_current() -> None:
    assert stale_blocks(ROOT) == [], "run: python -m othellolab.config.reference --write"


@dataclass(frozen=True)
class _Demo(CheckedTable):
    games: int = 4
    openings: str = ""
    c: float | None = None

    TABLE: ClassVar[str] = "[demo]"
    OPTIONS: ClassVar[dict[str, Option]] = {
        "games": Option(int, 1, 10, help="games per pair"),
        "openings": Option(str, help="an opening list"),
        "c": Option(float, 0, 100, optional=True, help="exploration"),
    }


def test_a_table_shows_each_key_default_range_and_meaning() -> None:
    assert reference_table(_Demo) == (
        "| key | default | values | meaning |\n"
        "|---|---|---|---|\n"
        "| `games` | 4 | int 1..10 | games per pair |\n"
        '| `openings` | "" | text | an opening list |\n'
        "| `c` | none | float 0..100 or none | exploration |\n"
    )


def test_a_stale_block_is_rewritten_and_reported(tmp_path: Path) -> None:
    doc = "intro\n<!-- demo -->\n| old |\n<!-- /demo -->\nend\n"
    target = f"{__name__}:_Demo"
    new = render_doc(doc, {"demo": target})
    assert new.startswith("intro\n<!-- demo -->\n| key |") and new.endswith("<!-- /demo -->\nend\n")
    assert "| `games` | 4 |" in new
    with pytest.raises(ValueError, match="no <!-- other -->"):
        render_doc(doc, {"other": target})


def test_the_command_checks_the_repository() -> None:
    assert main(["--root", str(ROOT)]) == 0
