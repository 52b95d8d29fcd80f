"""``ReadReport`` and ``RecordError``: where a problem is, and a summary grouped by kind."""

from __future__ import annotations

from othellolab.records import ReadReport, RecordError


def test_error_message_and_attributes() -> None:
    e = RecordError("illegal move a1", source="f.wtb", game=3, move=2, line=7, move_text="a1")
    assert str(e) == "f.wtb: game 3 (line 7), move 2 (a1): illegal move a1"
    assert (e.source, e.game, e.move, e.line) == ("f.wtb", 3, 2, 7)
    assert (e.reason, e.move_text) == ("illegal move a1", "a1")
    assert str(RecordError("bad header", source="f.wtb")) == "f.wtb: bad header"
    assert isinstance(e, ValueError)


def test_report_summary_groups_by_kind() -> None:
    report = ReadReport()
    for g in (1, 2):
        report.skip(RecordError("truncated record (3 of 68 bytes)", source="a.wtb", game=g))
    report.skip(RecordError("illegal move a1 for black: ...", source="a.wtb", game=5, move=1))
    assert str(report.skipped[-1]) == "a.wtb: game 5, move 1: illegal move a1 for black: ..."
    report.mismatch("a.wtb", 9, "recorded score +2 for black, replay gives +4")
    report.games = 10
    report.files = 1
    lines = report.summary().splitlines()
    assert lines[0] == "10 games read from 1 file(s), 3 skipped, 1 result mismatches"
    assert "  skipped 2: truncated record" in lines
    assert not report.ok
    assert (
        str(report.mismatches[0]) == "a.wtb: game 9: recorded score +2 for black, replay gives +4"
    )
