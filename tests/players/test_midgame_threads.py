"""The midgame search on several threads (lazy SMP, ``search.smp``): one thread searches as it
always did, several give the same exact scores near the end, every limit stops every thread
before ``search`` returns, and a torn table entry is never trusted. No timing assertions."""

from __future__ import annotations

import random
import threading

import pytest

from othellolab import Board
from othellolab.cli.play import with_cores
from othellolab.core import ConfigError, Stop
from othellolab.core.kernels import U64, hash_position
from othellolab.players import AlphaBetaPlayer, make_player
from othellolab.players.search.midgame import search
from othellolab.players.search.smp import lockless_key, pack_bounds, probe
from othellolab.players.search.table import TranspositionTable, midgame_pack

PINNED = [
    (
        "O-OOO----OOX-X---OOOX---XOOXOXX-O--OOX---OXXXX---XOXXX---OOOO-X- X",
        (3191, -22.700000000000003, 21),
        (1042, -18.800000000000004, 21),
    ),
    (
        "-OOO----OXXXOOO-XXX-X---XXXOOOO-XOXXX----OXXX---OOXXXX------O-X- X",
        (3785, 23.9, 0),
        (775, 29.519999999999996, 0),
    ),
    (
        "-XXXXXXX-OOOXXXXOOOXOXXX-OOXXXXXOOOXXOOX-OXXOOOXXXO-O-XXX-O-O--- O",
        (2191, -43.866666666666674, 63),
        (963, -31.519999999999996, 63),
    ),
]
"""Positions with the nodes, score and move of a depth-6 search and of a depth-5 one with
ProbCut 1.5 and seed 4, as the single-threaded search gave them before threads existed."""


def smp_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith("othellolab-smp")]


def endgame_positions(count: int, seed: int = 5) -> list[Board]:
    rng = random.Random(seed)
    out: list[Board] = []
    while len(out) < count:
        b = Board()
        for _ in range(rng.randrange(48, 52)):
            if b.is_game_over():
                break
            b = b.play(rng.choice(b.legal_actions()))
        if not b.is_game_over():
            out.append(b)
    return out


@pytest.mark.parametrize(("obf", "plain", "cut"), PINNED)
def test_one_thread_searches_as_before(obf: str, plain: tuple, cut: tuple) -> None:
    board = Board.from_obf(obf)
    r = search(board, depth=6, threads=1)
    assert (r.nodes, r.score, r.best_move) == plain
    r = search(board, depth=5, probcut=1.5, seed=4, threads=1)
    assert (r.nodes, r.score, r.best_move) == cut


@pytest.mark.parametrize("board", endgame_positions(4), ids=lambda b: f"{b.num_empties}e")
def test_two_threads_give_the_same_exact_score(board: Board) -> None:
    one = search(board, depth=board.num_empties)
    for threads in (2, 3):
        many = search(board, depth=board.num_empties, threads=threads)
        assert many.exact and one.exact
        assert many.score == one.score
        assert many.best_move in board.legal_actions()
    assert not smp_threads()


def test_two_threads_at_a_fixed_depth_play_a_legal_move() -> None:
    board = Board.from_transcript("f5d6c3d3c4f4c5b3c2e6c6b4b5d2e3a6c1b1")
    r = search(board, depth=7, threads=2, seed=1)
    assert r.depth == 7 and r.best_move in board.legal_actions() and r.nodes > 0
    assert not smp_threads()


def test_every_limit_stops_every_thread() -> None:
    board = Board.from_transcript("f5d6c3d3c4f4c5b3")
    r = search(board, time_limit=0.2, threads=2)
    assert r.best_move in board.legal_actions() and not smp_threads()
    r = search(board, max_nodes=5000, threads=2, table=TranspositionTable(16))
    assert r.best_move in board.legal_actions() and not smp_threads()
    stop = Stop()
    timer = threading.Timer(0.2, stop.set)
    timer.start()
    r = search(board, depth=60, stop=stop, threads=3)  # no limit but the stop
    timer.join()
    assert r.best_move in board.legal_actions() and r.depth < 60 and not smp_threads()


def test_a_torn_entry_is_not_trusted() -> None:
    """A slot holding one writer's key and another's bounds matches no position."""
    table = TranspositionTable(16)
    board = Board()
    h = U64(hash_position(U64(board.player), U64(board.opponent)))
    slot = int(h & U64(table.keys.shape[0] - 1))
    pay = U64(pack_bounds(3.0, 3.0))
    table.payload[slot] = pay
    table.keys[slot] = lockless_key(midgame_pack(h, 19, 9), pay)
    assert probe(table.keys, table.payload, h)[0] == slot
    assert tuple(table.bounds[slot]) == (3.0, 3.0)
    for other in (pack_bounds(3.0000002, 3.0), pack_bounds(-1e9, 3.0), pack_bounds(3.0, 5.0)):
        table.payload[slot] = U64(other)
        assert probe(table.keys, table.payload, h)[0] == -1


@pytest.mark.parametrize("bad", [0, 257, 1.5, True, "2"])
def test_invalid_threads_are_refused(bad: object) -> None:
    with pytest.raises(ConfigError) as e:
        search(Board(), depth=1, threads=bad)  # type: ignore[arg-type]
    assert e.value.option == "threads"


def test_the_player_takes_threads() -> None:
    with pytest.raises(ConfigError, match="threads"):
        make_player("alphabeta:threads=0")
    player = AlphaBetaPlayer(depth=4, threads=2)
    assert player.choose(Board()).move in Board().legal_actions()
    assert not smp_threads()
    end = endgame_positions(1, seed=8)[0]  # solved exactly, on two threads too
    one = AlphaBetaPlayer(endgame=20).choose(end)
    two = AlphaBetaPlayer(endgame=20, threads=2).choose(end)
    assert one.score is not None and two.score is not None and two.score.exact
    assert two.score.value == one.score.value


def test_a_game_in_the_terminal_uses_the_cores() -> None:
    assert with_cores("alphabeta:depth=3").startswith("alphabeta:depth=3,threads=")
    assert with_cores("alphabeta").startswith("alphabeta:threads=")
    assert with_cores("alphabeta:threads=1") == "alphabeta:threads=1"
    assert with_cores("mcts:sims=5") == "mcts:sims=5"
    threads = int(with_cores("alphabeta").rpartition("=")[2])
    assert 1 <= threads <= 256
