"""docs/formats.md: its spec tables say what the code does (offsets, sizes, properties)."""

from __future__ import annotations

import doctest
import re

from othellolab.core.squares import PASS_NAMES
from othellolab.records import ggf, logistello, obf, wthor

from helpers import REPO

DOC = (REPO / "docs" / "formats.md").read_text()


def table(name: str) -> list[list[str]]:
    """Rows (cells stripped, header and rule removed) of the table between spec markers."""
    m = re.search(rf"<!-- spec:{name} -->\n(.*?)<!-- /spec:{name} -->", DOC, re.S)
    assert m, f"spec table {name} is missing from docs/formats.md"
    lines = [line for line in m.group(1).strip().splitlines() if line.startswith("|")]
    return [[c.strip() for c in line.strip("|").split("|")] for line in lines[2:]]


def test_wthor_header_table_matches_the_reader() -> None:
    rows = [(r[0], int(r[1]), int(r[2]), r[3]) for r in table("wthor-header")]
    assert rows == list(wthor.HEADER_FIELDS)
    assert sum(r[2] for r in rows) == wthor.HEADER_SIZE == 16


def test_wthor_game_table_matches_the_reader() -> None:
    rows = [(r[0], int(r[1]), int(r[2]), r[3]) for r in table("wthor-game")]
    assert rows == list(wthor.GAME_FIELDS)
    assert sum(r[2] for r in rows) == wthor.GAME_SIZE == 68
    assert rows[-1][2] == wthor.MAX_MOVES


def test_name_file_table_matches_the_reader() -> None:
    rows = {r[0]: int(r[1]) for r in table("wthor-names")}
    assert rows == {"`.JOU`": wthor.JOU_RECORD_SIZE, "`.TRN`": wthor.TRN_RECORD_SIZE}


def test_ggf_table_lists_exactly_the_properties_the_reader_understands() -> None:
    rows = table("ggf-properties")
    assert [r[0] for r in rows] == list(ggf.PROPERTIES)
    assert {r[0]: r[1] or None for r in rows} == {k: h for k, (h, _) in ggf.PROPERTIES.items()}
    assert set(ggf.WRITE_ORDER) <= set(ggf.PROPERTIES)


def test_text_format_tables_name_the_tokens_the_code_uses() -> None:
    transcript = dict((r[0], r[1]) for r in table("transcript"))
    tokens = re.findall(r"`([^`]+)`", transcript["pass"])
    assert tokens and {t.lower() for t in tokens} <= PASS_NAMES
    obf_rows = dict((r[0], r[1]) for r in table("obf"))
    assert f"--:{obf.NO_VALUE}" in obf_rows["pass"]
    assert all(f"`{t}`" in obf_rows["pass"] for t in ("PS", "PA", "--"))
    log = dict((r[0], r[1]) for r in table("logistello"))
    assert all(f"`{s}`" in log["move"] for s in logistello.SIGNS)


def test_limits_table_gives_the_constants_of_the_code() -> None:
    import importlib

    rows = [r for r in table("limits") if r[3]]
    assert len(rows) >= 6
    for row in rows:
        name, value = (part.strip(" `") for part in row[3].split("="))
        module, constant = name.rsplit(".", 1)
        actual = getattr(importlib.import_module(f"othellolab.{module}"), constant)
        assert repr(actual) == value, row


def test_the_game_record_example_runs() -> None:
    """The ``>>>`` examples of docs/formats.md (pytest collects doctests of README.md only)."""
    test = doctest.DocTestParser().get_doctest(DOC, {}, "docs/formats.md", "docs/formats.md", 0)
    assert len(test.examples) >= 6
    out: list[str] = []
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    result = runner.run(test, out=out.append)
    assert result.failed == 0, "".join(out)
