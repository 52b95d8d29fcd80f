"""The NBoard protocol: our engine line by line, driven through our client over a subprocess,
engines that hang, die or cheat, and fuzzed input that never stops the engine."""

from __future__ import annotations

import io
import sys
import textwrap
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from othellolab.arena import play_match
from othellolab.core import Board, Limit, PlayResult, Score
from othellolab.players import make_player
from othellolab.protocols.nboard import (
    EngineTimeout,
    NBoardError,
    SearchLine,
    format_move,
    position_ggf,
)
from othellolab.protocols.nboard_client import NBoardClient
from othellolab.protocols.nboard_engine import NBoardEngine, serve
from othellolab.records.ggf import read_ggf

from helpers import shared_file

ENGINE = [sys.executable, "-m", "othellolab.cli", "nboard"]
RESPONSES = (
    "set myname",
    "pong",
    "status",
    "search",
    "nodestats",
    "===",
    "learned",
    "analysis",
    "error",
)


class Scripted:
    """A chooser with a known answer: the first legal move, scored by its index."""

    name = "scripted"

    def __init__(self) -> None:
        self.resets = 0
        self.limits: list[Limit | None] = []

    def choose(self, board: Board, limit: Limit | None = None) -> PlayResult:
        self.limits.append(limit)
        a = board.legal_actions()[0]
        return PlayResult(a, score=Score(float(a) / 10), info={"depth": 3, "nodes": 42})

    def reset(self) -> None:
        self.resets += 1


def run(engine: NBoardEngine, *lines: str) -> list[str]:
    out = engine.output
    assert isinstance(out, io.StringIO)
    start = len(out.getvalue())
    for line in lines:
        assert engine.handle(line)
    return out.getvalue()[start:].splitlines()


@pytest.fixture
def engine() -> NBoardEngine:
    return NBoardEngine(Scripted(), output=io.StringIO())


def test_handshake_go_and_the_reply_format(engine: NBoardEngine) -> None:
    assert run(engine, "nboard 2", "set depth 7") == ["set myname scripted"]
    assert engine.version == 2 and engine.depth == 7
    out = run(engine, "go")
    # Start position: legal d3 (19), c4, f5, e6; the scripted score of d3 is 1.9.
    assert out[0] == "status scripted is thinking"
    assert out[1] == "search D3 1.90 0 3"
    assert out[2] == "nodestats 42 0.00" or out[2].startswith("nodestats 42 ")
    assert out[3].startswith("=== D3/1.90/")
    assert out[4] == "status"
    assert engine.chooser.limits == [Limit(depth=7)]  # type: ignore[attr-defined]
    assert engine.board == Board()  # go does not play the move


def test_set_game_takes_a_real_ggf_game(engine: NBoardEngine) -> None:
    """NBoard's own test game (GGS, with eval/time in each move and a match count before it)."""
    path = shared_file("ggf/nboard_test.ggf")
    text = path.read_text(encoding="latin-1").strip()
    game = next(read_ggf(path))
    assert run(engine, "set game " + text) == []
    assert engine.board == game.final_board
    assert engine.moves == list(game.moves)


def test_moves_passes_and_game_over(engine: NBoardEngine) -> None:
    four = next(g for g in read_ggf(shared_file("ggf/nboard_test2.ggf")) if g.size == 4)
    run(engine, "set game " + position_ggf(four.start))
    for a in four.moves:
        assert run(engine, f"move {format_move(a, 4)}/1.5/0.2") == []
    assert engine.board == four.final_board and engine.board.is_game_over()
    assert run(engine, "go") == ["error go: the game is over"]
    # Analyze: one line per position, the last (game over) scored exactly.
    out = run(engine, "analyze")
    lines = [line for line in out if line.startswith("analysis")]
    assert len(lines) == len(four.moves) + 1
    final = four.final_board
    assert lines[0] == f"analysis {len(four.moves)} {final.score():.2f}"
    assert four.recorded_score == -2  # RE[-2.00]: black's disc difference
    assert final.score() == (-2 if final.turn == 0 else 2)


def test_forced_pass_answers_pa(engine: NBoardEngine) -> None:
    four = next(g for g in read_ggf(shared_file("ggf/nboard_test2.ggf")) if g.size == 4)
    k = four.moves.index(16)  # the game's pass (B[pass])
    run(engine, "set game " + position_ggf(four.start, four.moves[:k]))
    assert engine.board.must_pass() and not engine.board.is_game_over()
    assert run(engine, "go") == ["=== PA"]
    out = run(engine, "hint 2")
    assert out[1].startswith("search PA ") and out[-1] == "status"
    assert run(engine, "move PA") == []


def test_hint_gives_n_lines_best_first(engine: NBoardEngine) -> None:
    out = run(engine, "hint 3")
    searches = [SearchLine.parse(line) for line in out if line.startswith("search")]
    assert [s.move for s in searches] == ["D3", "C4", "F5"]
    assert out[-1] == "status"


def test_ping_learn_contempt_and_errors_keep_the_engine_running(engine: NBoardEngine) -> None:
    assert run(engine, "ping 12") == ["pong 12"]
    assert run(engine, "learn") == ["learned"]
    assert run(engine, "set contempt 1.5") == [] and engine.contempt == 1.5
    bad = {
        "frobnicate": "unknown command",
        "set depth 0": "not an integer in [1, 60]",
        "set depth x": "not an integer",
        "set game (;GM[Chess];)": "not an Othello game",
        "set game nonsense": "set game: game 1 (line 1): expected '(;'",
        "set game " + 2 * position_ggf(Board()): "expected one GGF game, got 2",
        "move a1": "illegal move 'a1'",
        "move z9": "bad move",
        "hint 0": "not an integer in [1, 64]",
        "set colour red": "unknown option",
        "ping x": "ping N",
    }
    for line, message in bad.items():
        out = run(engine, line)
        assert len(out) == 1 and out[0].startswith("error ") and message in out[0], (line, out)
    assert run(engine, "ping 13") == ["pong 13"]
    assert run(engine, "F5") == [] and engine.board == Board().play("f5")  # NBoard 1.1 style
    assert not engine.handle("quit")


def test_a_new_game_resets_the_chooser_and_a_continuation_does_not(engine: NBoardEngine) -> None:
    chooser = engine.chooser
    run(engine, "set game " + position_ggf(Board(), [37]))
    resets = chooser.resets  # type: ignore[attr-defined]
    run(engine, "set game " + position_ggf(Board(), [37, 43]))
    assert chooser.resets == resets  # type: ignore[attr-defined]
    run(engine, "set game " + position_ggf(Board(), [19]))
    assert chooser.resets == resets + 1  # type: ignore[attr-defined]


COMMANDS = st.sampled_from(
    ["nboard", "set", "set depth", "set game", "set contempt", "move", "go", "hint", "ping",
     "learn", "analyze", "F5", "PA", "===", "status"]
)  # fmt: skip
ARGS = st.lists(
    st.one_of(
        st.integers(-100, 100).map(str),
        st.sampled_from(["F5", "f5", "a1", "PA", "pass", "h8/1.0/2", "(;GM[Othello]", ";)", "nan", "1e309"]),
        st.text(min_size=0, max_size=12),
    ),
    max_size=4,
)  # fmt: skip


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(st.tuples(COMMANDS, ARGS), st.text(max_size=40)), max_size=12))
def test_fuzzed_lines_never_crash_the_engine(lines: list) -> None:
    engine = NBoardEngine(Scripted(), output=io.StringIO(), name="fuzz")
    for item in lines:
        line = item if isinstance(item, str) else " ".join([item[0], *item[1]])
        if line.split()[:1] == ["quit"]:
            continue
        assert engine.handle(line.replace("\n", " ").replace("\r", " "))
        # The engine's position is always a legal one it can still move from or score.
        assert engine.board.is_game_over() or engine.board.legal_actions()
    out = engine.output.getvalue().splitlines()  # type: ignore[attr-defined]
    assert all(line.startswith(RESPONSES) for line in out), out
    assert run(engine, "ping 99")[-1] == "pong 99"


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(0, 200), min_size=1, max_size=70))
def test_fuzzed_ggf_games_are_taken_or_refused_whole(choices: list[int]) -> None:
    """A random legal game (maybe truncated or corrupted) is taken exactly, or refused."""
    board, moves = Board(), []
    for c in choices:
        if board.is_game_over():
            break
        legal = board.legal_actions()
        a = legal[c % len(legal)]
        moves.append(a)
        board = board.play(a)
    text = position_ggf(Board(), moves)
    cut = choices[0] % (len(text) + 1)
    engine = NBoardEngine(Scripted(), output=io.StringIO())
    run(engine, "set game " + text)
    assert engine.board == board and engine.moves == moves
    out = run(engine, "set game " + text[:cut] + text[cut + 1 :])  # one character dropped
    assert out == [] or out[0].startswith("error ")
    assert engine.board == board or out == []


# ----------------------------------------------------------------------------------------------
# Our engine through our client, over a subprocess


@pytest.fixture(scope="module")
def client():
    c = NBoardClient(
        [*ENGINE, "--player", "alphabeta:evaluation=heuristic,depth=3,endgame=8"],
        start_timeout=120,
    )
    yield c
    c.close()


def test_driven_exchange_through_the_client(client: NBoardClient) -> None:
    assert client.engine_name == "othellolab alphabeta"
    client.set_depth(3)
    reply = client.request_move(Board(), timeout=60)
    assert reply.move in Board().legal_actions()
    assert reply.eval is not None and reply.searches and reply.searches[-1].depth == "3"
    assert reply.nodes is not None and reply.nodes > 0
    hints = client.hint(2, timeout=60)
    assert len(hints) == 2 and hints[0].move == format_move(reply.move)
    client.set_game(Board(), [37, 43])
    evals = client.analyze(timeout=60)
    assert sorted(evals) == [0, 1, 2]
    client.learn(timeout=30)
    client.ping(timeout=30)


def test_our_engine_plays_a_match_as_an_nboard_player() -> None:
    """The registry's nboard player (quoted command in the spec) on 6x6 against greedy."""
    cmd = " ".join([*ENGINE, "--player", "alphabeta:evaluation=heuristic,depth=2,endgame=6"])
    with make_player(f"nboard:cmd='{cmd}',depth=2,timeout=60,start_timeout=120") as p:
        assert p.name == "othellolab alphabeta"
        result = play_match(p, make_player("greedy:seed=1"), games=2, size=6, keep_games=True)
        assert result.n == 2 and all(g.is_complete() for g in result.games)
        proc = p.client.proc  # type: ignore[attr-defined]
    assert proc.poll() is not None  # closed with the player


# ----------------------------------------------------------------------------------------------
# Engines that misbehave


def fake_engine(tmp_path: Path, body: str) -> list[str]:
    script = tmp_path / "engine.py"
    script.write_text(textwrap.dedent(body))
    return [sys.executable, str(script)]


PONG = """
import sys
for line in sys.stdin:
    w = line.split()
    if w and w[0] == "ping":
        print("pong", w[1], flush=True)
    {go}
"""


def test_a_silent_engine_times_out_and_is_killed(tmp_path: Path) -> None:
    argv = fake_engine(tmp_path, "import time, sys\nfor line in sys.stdin:\n    time.sleep(60)\n")
    t0 = time.monotonic()
    with pytest.raises(EngineTimeout, match="no answer within 0.5 s"):
        NBoardClient(argv, start_timeout=0.5)
    assert time.monotonic() - t0 < 10


def test_a_hanging_go_times_out_and_the_engine_is_killed(tmp_path: Path) -> None:
    argv = fake_engine(
        tmp_path, PONG.format(go='if w and w[0] == "go": __import__("time").sleep(60)')
    )
    client = NBoardClient(argv, start_timeout=30)
    with pytest.raises(EngineTimeout, match="thinking"):
        client.request_move(Board(), timeout=0.5)
    assert client.proc.poll() is not None


def test_an_engine_that_ignores_quit_and_sigterm_is_killed(tmp_path: Path) -> None:
    argv = fake_engine(
        tmp_path,
        "import signal, sys\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
        + PONG.format(go='if w and w[0] == "quit": pass'),
    )
    client = NBoardClient(argv, start_timeout=30)
    client.close(grace=0.1)
    assert client.proc.poll() is not None


def test_an_illegal_answer_is_an_error_naming_the_engine(tmp_path: Path) -> None:
    argv = fake_engine(
        tmp_path,
        'print("set myname Cheater", flush=True)\n'
        + PONG.format(go='if w and w[0] == "go": print("=== A1/3.0/0.1", flush=True)'),
    )
    with (
        NBoardClient(argv, start_timeout=30) as client,
        pytest.raises(NBoardError, match=r"engine Cheater: answered '=== A1/3.0/0.1': illegal"),
    ):
        client.request_move(Board(), timeout=10)


def test_an_engine_that_dies_reports_its_stderr(tmp_path: Path) -> None:
    argv = fake_engine(
        tmp_path, "import sys\nsys.stderr.write('no weights file\\n')\nsys.exit(3)\n"
    )
    with pytest.raises(NBoardError, match=r"exited \(code 3\).*no weights file"):
        NBoardClient(argv, start_timeout=30)
    with pytest.raises(NBoardError, match="cannot start"):
        NBoardClient(["/nonexistent/engine-binary"])


@pytest.mark.parametrize(
    ("line", "pv", "ev", "depth", "book"),
    [
        ("search F5-D6-C3 +1.50 0 12", ("F5", "D6", "C3"), 1.5, "12", False),
        ("search F5d6C3 -2 0 22@73% from book", ("F5", "d6", "C3"), -2.0, "22@73%", False),
        ("book F5 0.50 120 20", ("F5",), 0.5, "20", True),
        ("search PA nan 0 3", ("PA",), None, "3", False),
    ],
)
def test_search_lines_parse_both_pv_styles(
    line: str, pv: tuple, ev: float | None, depth: str, book: bool
) -> None:
    parsed = SearchLine.parse(line)
    assert (parsed.pv, parsed.eval, parsed.depth, parsed.book) == (pv, ev, depth, book)


def test_a_ping_while_thinking_stops_the_search() -> None:
    """NBoard's ``ping`` means "stop thinking": a depth-60 search (hours) answers at once."""
    import os
    import threading

    read_end, write_end = os.pipe()
    source = os.fdopen(read_end, "r")
    sink = io.StringIO()
    player = make_player("alphabeta:evaluation=heuristic,endgame=0")
    done = threading.Event()

    def run() -> None:
        serve(player, input=source, output=sink)
        done.set()

    threading.Thread(target=run, daemon=True).start()
    with os.fdopen(write_end, "w") as commands:
        commands.write("nboard 2\nset depth 60\ngo\n")
        commands.flush()
        time.sleep(0.5)
        t0 = time.monotonic()
        commands.write("ping 7\n")
        commands.flush()
        deadline = time.monotonic() + 10
        while "pong 7" not in sink.getvalue() and time.monotonic() < deadline:
            time.sleep(0.02)
        answered = time.monotonic() - t0
        commands.write("quit\n")
    assert done.wait(10)
    out = sink.getvalue()
    assert "===" in out and "pong 7" in out
    assert out.index("===") < out.index("pong 7")
    assert answered < 2.0, f"the search went on {answered:.2f} s after the ping"
