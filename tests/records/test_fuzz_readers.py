"""Fuzzing every reader: any input, random or a mutated valid file, gives records or the format's
own error (a ``RecordError`` naming the file), never another exception or a hang; lenient mode
counts what it skips instead of raising. The reproducers of issue #24 are explicit cases.

``make test`` tries a small budget per target; a long run is
``OTHELLOLAB_FUZZ_EXAMPLES=20000 .venv/bin/python -m pytest -q tests/records/test_fuzz_readers.py``.
"""

from __future__ import annotations

import gzip
import re
import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from othellolab import Board
from othellolab.arena import read_openings
from othellolab.core import OthelloError, parse_transcript, square_name
from othellolab.datasets.sources import read_wtb_arrays
from othellolab.records import (
    GameRecord,
    ReadReport,
    RecordError,
    format_ggf,
    parse_ggf,
    parse_obf_line,
    read_ggf,
    read_logistello,
    read_names,
    read_obf,
    read_transcripts,
    read_wthor,
    write_names,
    write_wthor,
)
from othellolab.records.ggf import GgfError
from othellolab.records.logistello import LogistelloError, format_logistello_line
from othellolab.records.obf import ObfError
from othellolab.records.transcript import TranscriptError
from othellolab.records.wthor import HEADER_SIZE, WthorError, read_wtb

from helpers import fuzz_examples

FUZZ = settings(
    max_examples=fuzz_examples(150),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


def _played(step: int) -> str:
    """A complete legal game: at ply k, the (k * step)-th legal move (passes left out)."""
    board, names = Board(), []
    for k in range(200):
        if board.is_game_over():
            break
        actions = board.legal_actions()
        a = actions[k * step % len(actions)]
        board = board.play(a)
        if a != board.pass_action:
            names.append(square_name(a))
    return "".join(names)


TRANSCRIPTS = ["f5d6c4d3c2b3b4b5", "f5f6e6f4e3c5c4e7b5", _played(3), _played(7)]
NASTY = [
    "0", "7", "64", "-64", "+0.5", "-3.133", ".5", "5.", "１２", "８", "²", "٣", "໒", "inf",
    "-inf", "nan", "NaN", "1e400", "1_0", "9" * 400, "9" * 5000, "0" * 5000 + "8", "-" * 3,
    "", " ", "\t", "\u3000", "[", "]", "\\", ";", "(;", ";)", ":", "/", "PA", "pass", "--",
    "RE[", "KM[", "TY[", "BO[", "B[", "W[", "GM[Othello]", "\x00", "\udcff", "é", "\n",
]  # fmt: skip
"""Pieces that broke readers or that readers must refuse: non-ASCII digits, huge and infinite
numbers, brackets and separators, control characters."""

nasty = st.sampled_from(NASTY)
pieces = st.one_of(nasty, st.text(max_size=8), st.integers(-(10**6), 10**6).map(str))


@contextmanager
def no_hang(seconds: int = 20) -> Iterator[None]:
    """Fail (instead of waiting forever) when the block runs longer than ``seconds``."""

    def alarm(*_: Any) -> None:
        raise TimeoutError(f"a reader ran for more than {seconds} s")

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def strict_and_lenient(read: Callable[..., Any], path: Path, error: type[RecordError]) -> None:
    """Strict reading gives records or ``error``; lenient reading skips and counts instead,
    and only a WTHOR header (a problem of the whole file) stops it with ``error``."""
    with no_hang():
        try:
            list(read(path))
            event("strict: read")
        except error as e:
            whole_file = e.game is None and e.line is None
            event(f"strict: {error.__name__}" + (" (whole file)" if whole_file else ""))
        try:
            report = ReadReport()
            list(read(path, lenient=True, report=report))
            event(f"lenient: {'skipped some' if report.skipped else 'all read'}")
        except error as e:
            assert read is read_wthor and e.game is None, e
            event("lenient: bad header")


def mutate(text: str, edits: list[tuple[int, int, str]]) -> str:
    """``text`` with each (position, deleted length, inserted piece) edit applied in turn."""
    for pos, cut, piece in edits:
        i = pos % (len(text) + 1)
        text = text[:i] + piece + text[i + cut :]
    return text


edits = st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 4), pieces), max_size=6)


# ----------------------------------------------------------------------------------------------
# GGF


def _ggf_seeds() -> list[str]:
    games = [
        format_ggf(GameRecord.from_moves(parse_transcript(t), recorded_score=0))
        for t in TRANSCRIPTS
    ]
    games.append(
        "(;GM[Othello]PB[a]PW[b]TY[4]RE[-2]BO[4 ---- -O*- -*O- ---- *]B[a2]W[a1];)\n"
        "1 (;GM[Othello]TY[8k]KM[-3.133]RE[-22.87:r]"
        + format_ggf(GameRecord.from_moves(["f5", "d6"]))[13:]
    )
    return games


def _game_with(props: dict[str, str]) -> str:
    body = "".join(f"{k}[{v.replace(']', '')}]" for k, v in props.items())
    return f"(;GM[Othello]{body}B[f5]W[d6];)"


def set_values(text: str, changes: list[tuple[str, int, str]]) -> str:
    """``text`` with, for each (key, i, piece) of ``changes``, the value of the i-th ``key``
    property (counted modulo their number) made ``piece``, or ``key[piece]`` added to the first
    game when it has no such property."""
    for key, i, piece in changes:
        value = piece.replace("]", "")
        spans = [m.span(1) for m in re.finditer(rf"\b{key}\[([^\]]*)\]", text)]
        if spans:
            a, b = spans[i % len(spans)]
            text = text[:a] + value + text[b:]
        else:
            text = text.replace("(;GM[Othello]", f"(;GM[Othello]{key}[{value}]", 1)
    return text


GGF_SEEDS = _ggf_seeds()
VALUES = st.one_of(nasty, st.text(max_size=12), st.floats().map(str), st.integers().map(str))
PROPERTY_KEYS = ["RE", "KM", "TY", "BO", "B", "W", "GM", "PB", "DT"]


@FUZZ
@given(
    st.sampled_from(GGF_SEEDS),
    st.lists(st.tuples(st.sampled_from(PROPERTY_KEYS), st.integers(0, 100), VALUES), max_size=3),
    edits,
)
def test_ggf_mutations(tmp_path: Path, seed: str, values: list, changes: list) -> None:
    text = mutate(set_values(seed, values), changes)
    with no_hang(), suppress(GgfError):
        list(parse_ggf(text, source="fuzz.ggf"))
    path = tmp_path / "fuzz.ggf"
    path.write_bytes(text.encode("utf-8", "surrogatepass"))
    strict_and_lenient(read_ggf, path, GgfError)


@FUZZ
@given(st.dictionaries(st.sampled_from(["RE", "KM", "TY", "BO", "DT", "RB"]), VALUES, max_size=4))
def test_ggf_fields(props: dict[str, str]) -> None:
    with no_hang():
        try:
            games = list(parse_ggf(_game_with(props)))
        except GgfError:
            return
    for game in games:
        assert game.recorded_score is None or abs(game.recorded_score) <= game.size**2


@FUZZ
@given(st.text(max_size=300))
def test_ggf_random_text(text: str) -> None:
    with no_hang(), suppress(GgfError):
        list(parse_ggf(text))


# The reproducers of issue #24: each was an OverflowError, a bare ValueError or a wrong reading.
GGF_REPRODUCERS = [
    ("RE[+" + "9" * 400 + "]", r"RE\[\+9+\.\.\.\]: black's disc difference \+9+\.\.\. is off the"),
    ("KM[inf]RE[+2]", r"game 1 \(line 1\): KM\[inf\]: komi 'inf' is not a finite decimal"),
    ("KM[nan]RE[+2]", r"KM\[nan\]: komi 'nan' is not a finite decimal"),
    ("KM[1e400]RE[+2]", r"KM\[1e400\]: komi '1e400' is not a finite decimal"),
    ("TY[" + "8" * 5000 + "]", r"TY\[8+\.\.\.\]: board size 8+\.\.\. is not supported"),
    ("BO[" + "8" * 5000 + " -- *]", r"BO\[8+\.\.\.\]: board size 8+\.\.\. is not supported"),
    ("BO[² ---- -O*- -*O- ---- *]", r"BO\[² .*\]: board size '²' is not a whole number"),
    ("BO[４ ---- -O*- -*O- ---- *]", r"board size '４' is not a whole number .* ASCII digits"),
    ("TY[４]", r"TY\[４\]: board size '４' is not a whole number"),
    ("RE[+２]", r"RE\[\+２\]: expected black's disc difference"),
    ("KM[０]RE[+2]", r"KM\[０\]: komi '０' is not a finite decimal"),
    ("RE[+70]", r"RE\[\+70\]: black's disc difference \+70 is off the -64..64 range"),
    ("KM[-70]", r"KM\[-70\]: komi -70 is off the -64..64 range"),
    ("TY[4]RE[+20]", r"black's disc difference \+20 is off the -16..16 range of a 4x4 board"),
]


@pytest.mark.parametrize(("props", "message"), GGF_REPRODUCERS)
def test_ggf_reproducers_of_issue_24(props: str, message: str) -> None:
    text = f"(;GM[Othello]PB[a]PW[b]{props};)"
    with pytest.raises(GgfError, match=message) as info:
        list(parse_ggf(text, source="bad.ggf"))
    assert info.value.source == "bad.ggf" and info.value.game == 1 and info.value.line == 1


def test_ggf_numbers_in_range_still_read() -> None:
    game = next(parse_ggf(_game_with({"TY": "8", "KM": "0.5", "RE": "+1.5:r"})))
    assert game.recorded_score == 2 and game.headers["komi"] == "0.5"
    assert next(parse_ggf(_game_with({"TY": "008"}))).size == 8


# ----------------------------------------------------------------------------------------------
# WTHOR


@pytest.fixture(scope="module")
def wtb_bytes(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    path = tmp_path_factory.mktemp("wthor") / "seed.wtb"
    games = [GameRecord.from_moves(parse_transcript(t)) for t in TRANSCRIPTS]
    write_wthor(path, games, year=2004, created=(2024, 5, 1))
    return path.read_bytes()


@FUZZ
@given(
    st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 255)), max_size=8),
    st.integers(-80, 80),
)
def test_wthor_mutations(tmp_path: Path, wtb_bytes: bytes, flips: list, resize: int) -> None:
    data = bytearray(wtb_bytes)
    for pos, value in flips:
        data[pos % len(data)] = value
    data = data[: len(data) + resize] if resize < 0 else data + bytes(resize)
    path = tmp_path / "fuzz.wtb"
    path.write_bytes(bytes(data))
    strict_and_lenient(read_wthor, path, WthorError)
    with no_hang():
        for read in (lambda p: list(read_wtb(p)), read_wtb_arrays):
            with suppress(WthorError):
                read(path)


@FUZZ
@given(st.binary(min_size=16, max_size=16), st.integers(0, 5))
def test_wthor_random_headers(tmp_path: Path, wtb_bytes: bytes, header: bytes, games: int) -> None:
    path = tmp_path / "fuzz.wtb"
    path.write_bytes(header + wtb_bytes[HEADER_SIZE:])
    strict_and_lenient(read_wthor, path, WthorError)
    names = tmp_path / "fuzz.JOU"
    names.write_bytes(header + bytes(20 * games))
    with suppress(WthorError):
        read_names(names)


@pytest.mark.parametrize(
    ("offset", "value", "message"),
    [
        (10, 0, r"bad header: year 0 \(offset 10\) is outside 1977..2100"),
        (10, 65535, r"bad header: year 65535 \(offset 10\) is outside 1977..2100"),
        (14, 61, r"bad header: depth 61 \(offset 14\) is over 60"),
        (2, 13, r"bad header: creation date 2024-13-01 \(offsets 0-3\) is not a date"),
    ],
)
def test_wthor_header_reproducers(tmp_path: Path, wtb_bytes: bytes, offset: int, value: int, message: str) -> None:  # fmt: skip
    data = bytearray(wtb_bytes)
    width = 2 if offset == 10 else 1
    data[offset : offset + width] = value.to_bytes(width, "little")
    path = tmp_path / "bad.wtb"
    path.write_bytes(bytes(data))
    for read in (read_wthor, read_wtb, read_wtb_arrays):
        with pytest.raises(WthorError, match=message):
            list(read(path))


def test_wthor_writer_refuses_what_the_reader_refuses(tmp_path: Path) -> None:
    with pytest.raises(WthorError, match=r"cannot write this header: year 1900"):
        write_wthor(tmp_path / "old.wtb", [GameRecord.from_moves(["f5"])], year=1900)
    with pytest.raises(WthorError, match=r"creation date 2024-00-01"):
        write_names(tmp_path / "x.JOU", ["???"], created=(2024, 0, 1))
    assert not list(tmp_path.iterdir())


# ----------------------------------------------------------------------------------------------
# Line formats: transcripts, XOT lists, OBF, Logistello


def _encode(lines: list[str], raw: bytes, gz: int) -> bytes:
    """Lines as UTF-8 (lone surrogates as bytes), some raw bytes, then maybe gzip (gz 1) or a
    truncated gzip stream (gz 2)."""
    data = "\n".join(lines).encode("utf-8", "surrogateescape") + raw
    if gz == 1:
        return gzip.compress(data, mtime=0)
    if gz == 2:
        return gzip.compress(data, mtime=0)[:-7]
    return data


SQUARES = [c + r for c in "abcdefghABCDEFGHi" for r in "123456789"]
tokens = st.one_of(st.sampled_from(SQUARES), nasty, st.sampled_from(["PA", "--", "pass", " "]))
transcript_lines = st.one_of(
    st.lists(tokens, max_size=70).map("".join),
    st.tuples(st.sampled_from(TRANSCRIPTS), edits).map(lambda t: mutate(*t)),
)
raw_tail = st.one_of(st.just(b""), st.binary(max_size=12))


@FUZZ
@given(st.lists(transcript_lines, max_size=5), raw_tail, st.integers(0, 2))
def test_transcripts_and_xot_lists(tmp_path: Path, lines: list, raw: bytes, gz: int) -> None:
    path = tmp_path / "fuzz.txt"
    path.write_bytes(_encode(lines, raw, gz))
    strict_and_lenient(read_transcripts, path, TranscriptError)
    with no_hang(), suppress(TranscriptError):
        read_openings(path)


OBF_BOARD = Board().obf()
obf_items = st.lists(
    st.tuples(st.sampled_from(["F5", "D3", "C4", "E6", "A1", "PS", "--", "Z9", "f５"]), pieces),
    max_size=4,
).map(lambda items: "".join(f" {m}:{s};" for m, s in items))
obf_lines = st.one_of(
    obf_items.map(lambda items: OBF_BOARD + ";" + items),
    st.tuples(st.just(OBF_BOARD + "; F5:+0; D3:-2;"), edits).map(lambda t: mutate(*t)),
    st.text(max_size=80),
)


@FUZZ
@given(st.lists(obf_lines, max_size=4), raw_tail, st.integers(0, 2))
def test_obf(tmp_path: Path, lines: list, raw: bytes, gz: int) -> None:
    for line in lines:
        try:
            entry = parse_obf_line(line)
        except ObfError:
            continue
        assert all(abs(score) <= 64 for _, score in entry.moves)
    path = tmp_path / "fuzz.obf"
    path.write_bytes(_encode(lines, raw, gz))
    strict_and_lenient(read_obf, path, ObfError)


LOGISTELLO_SEEDS = [
    format_logistello_line(GameRecord.from_moves(parse_transcript(t))) for t in TRANSCRIPTS
]
logistello_lines = st.one_of(
    st.tuples(st.sampled_from(LOGISTELLO_SEEDS), edits).map(lambda t: mutate(*t)),
    st.tuples(st.sampled_from(LOGISTELLO_SEEDS), pieces, pieces).map(
        lambda t: t[0].split(":")[0] + f": {t[1]} {t[2]}"
    ),
)


@FUZZ
@given(st.lists(logistello_lines, max_size=5), raw_tail, st.integers(0, 2))
def test_logistello(tmp_path: Path, lines: list, raw: bytes, gz: int) -> None:
    path = tmp_path / "fuzz.gam"
    path.write_bytes(_encode(lines, raw, gz))
    strict_and_lenient(read_logistello, path, LogistelloError)


LINE_REPRODUCERS = [
    ("t.txt", TranscriptError, read_transcripts, "f5d²".encode(), r"move 2 \(d²\): invalid square"),
    ("t.txt", TranscriptError, read_transcripts, "f５".encode(), r"invalid square name 'f５'"),
    ("t.txt", TranscriptError, read_transcripts, b"f5d6\xff", r"line 1\): not UTF-8 text: byte 0xff"),
    ("t.txt", TranscriptError, read_openings, "f5d²".encode(), r"t.txt: game 1 \(line 1\), move 2"),
    ("t.txt", TranscriptError, read_openings, b"\xfe", r"not UTF-8 text: byte 0xfe at column 1"),
    ("l.gam", LogistelloError, read_logistello, b"+f5: " + b"9" * 5000 + b" 10",
     r"score 9+\.\.\. is off the -64..64 range"),
    ("l.gam", LogistelloError, read_logistello, b"+f5: +00 " + b"9" * 5000,
     r"depth 9+\.\.\. is off the 0..99 range"),
    ("l.gam", LogistelloError, read_logistello, "+f5: ０ 10".encode(), r"not ASCII text: byte 0xef"),
    ("p.obf", ObfError, read_obf, (OBF_BOARD + "; F5:+" + "9" * 5000 + ";").encode(),
     r"line 1, move 1 \(F5:\+9+\.\.\.\): score \+9+\.\.\. is off the -127..127 range"),
    ("p.obf", ObfError, read_obf, (OBF_BOARD + "; F5:+０;").encode(),
     r"score '\+０' is not a whole number written in ASCII digits"),
    ("p.obf", ObfError, read_obf, (OBF_BOARD + ";\xff").encode("latin-1"), r"not UTF-8 text"),
    ("z.txt.gz", TranscriptError, read_transcripts, gzip.compress(b"f5d6\n" * 3000)[:-30],
     r"z.txt.gz: damaged compressed data after line [0-9]+"),
]  # fmt: skip


@pytest.mark.parametrize(("name", "error", "read", "data", "message"), LINE_REPRODUCERS)
def test_line_reader_reproducers(tmp_path: Path, name: str, error: type, read: Callable[..., Any], data: bytes, message: str) -> None:  # fmt: skip
    path = tmp_path / name
    path.write_bytes(data)
    with pytest.raises(error, match=message):
        list(read(path))
    if read is not read_openings:
        report = ReadReport()
        list(read(path, lenient=True, report=report))
        assert len(report.skipped) == 1


def test_a_bad_line_is_skipped_alone(tmp_path: Path) -> None:
    path = tmp_path / "mixed.txt"
    path.write_bytes(b"f5d6\nf5\xffd6\n# comment \xfe\nf5f6\n")
    report = ReadReport()
    games = list(read_transcripts(path, lenient=True, report=report))
    assert [g.headers["line"] for g in games] == [1, 4]
    assert report.skipped[0].line == 2 and "byte 0xff" in report.skipped[0].reason


def test_every_error_is_an_othello_error() -> None:
    for error in (GgfError, WthorError, TranscriptError, ObfError, LogistelloError):
        assert issubclass(error, RecordError) and issubclass(error, OthelloError)
