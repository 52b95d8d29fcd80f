"""The exact solver on several threads (``solve(threads=N)``): the same exact scores as one
thread, best moves of that score with a legal PV reaching it, every thread stopped on return,
and a clear error for a bad thread count."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from othellolab import Board
from othellolab.core import ConfigError, Stop
from othellolab.players.search import endgame, parallel_solve
from othellolab.players.search.endgame import SolveAborted, solve
from othellolab.players.search.parallel_solve import MAX_THREADS
from othellolab.players.search.table import TranspositionTable

from helpers import FIXTURES, brute_force, obf_scores, random_position

FFO_1_19 = (FIXTURES / "fforum-1-19.obf").read_text().splitlines()


def check_pv(board: Board, result: endgame.SolveResult) -> None:
    """The PV is legal, starts with the best move and ends the game with the announced score."""
    assert result.pv and result.pv[0] == result.best_move
    end = board
    for move in result.pv:
        assert move in end.legal_actions()
        end = end.play(move)
    assert end.is_game_over()
    sign = 1 if len(result.pv) % 2 == 0 else -1
    assert sign * end.score() == result.score


@pytest.mark.parametrize("threads", [2, 3])
@pytest.mark.parametrize("number", [1, 4, 9, 13, 18])
def test_ffo_scores_on_threads(number: int, threads: int) -> None:
    """FFO #1-#19 picks: the listed best score on 2 and 3 threads, a move listed with it, and a
    PV that reaches it."""
    board, scores = obf_scores(FFO_1_19[number - 1])
    best_score = scores[0][1]
    result = solve(board, table=TranspositionTable(20), threads=threads)
    assert result.score == best_score and result.exact
    assert result.best_move in {m for m, s in scores if s == best_score}
    check_pv(board, result)


@pytest.mark.parametrize("number", [2, 11])
def test_threads_after_presearch(monkeypatch: pytest.MonkeyPatch, number: int) -> None:
    """With the selective pre-searches run first (as from 22 empties on 8x8), the threads that
    start after them still find the exact score."""
    monkeypatch.setattr(endgame, "PRESEARCH_MIN", 14)
    board, scores = obf_scores(FFO_1_19[number - 1])
    result = solve(board, threads=2)
    assert result.score == scores[0][1] and 0 < result.presearch_nodes < result.nodes
    check_pv(board, result)


@pytest.mark.parametrize("seed", range(12))
def test_small_boards_on_threads(monkeypatch: pytest.MonkeyPatch, seed: int) -> None:
    """Random 4x4, 6x6 and 8x8 positions with few empties, the windows split among the
    threads even there (a low ``ASPIRATION_MIN``), against brute force; guesses far off make
    windows fail high and low, so that one thread's cut stops the other."""
    monkeypatch.setattr(endgame, "ASPIRATION_MIN", 1)
    size = (4, 6, 8)[seed % 3]
    board = random_position(seed, size, 9)
    want = brute_force(board)
    for guess in (None, -8, 8):
        result = solve(board, threads=2, guess=guess)
        assert result.score == want, board.obf()
        if board.is_game_over():
            assert result.best_move is None
        else:
            assert -brute_force(board.play(result.best_move)) == want
            check_pv(board, result)


def test_one_thread_is_the_default() -> None:
    """``threads=1`` is the single-threaded solve: the same nodes, score and move."""
    board, _ = obf_scores(FFO_1_19[6])
    a = solve(board, table=TranspositionTable(20))
    b = solve(board, table=TranspositionTable(20), threads=1)
    assert (a.score, a.best_move, a.pv, a.nodes) == (b.score, b.best_move, b.pv, b.nodes)


@pytest.mark.parametrize("threads", [0, -1, 1.5, "x", None, True, MAX_THREADS + 1])
def test_bad_thread_counts(threads: object) -> None:
    board, _ = obf_scores(FFO_1_19[0])
    with pytest.raises(ConfigError, match="threads") as info:
        solve(board, threads=threads)  # type: ignore[arg-type]
    assert info.value.option == "threads"


def test_every_thread_stops() -> None:
    """A time limit, a node limit or a ``Stop`` ends every thread before ``solve`` returns."""
    board = random_position(3, 8, 30)
    assert board.num_empties == 30
    before = threading.active_count()
    with pytest.raises(SolveAborted):
        solve(board, threads=2, time_limit=0.05)
    assert threading.active_count() == before
    with pytest.raises(SolveAborted):
        solve(board, threads=2, max_nodes=5000)
    assert threading.active_count() == before
    stop = Stop()
    stop.set()
    with pytest.raises(SolveAborted):
        solve(board, threads=3, stop=stop)
    assert threading.active_count() == before


def test_a_torn_entry_is_no_entry() -> None:
    """Two threads writing one slot may leave one's key beside the other's payload: such a slot
    must match neither position, while whole entries still match theirs."""
    from othellolab.players.search.table import entry_lower, entry_move, tt_probe, tt_store

    table = TranspositionTable(8)
    h1, h2 = np.uint64(0x1234_5678_9ABC_DE00), np.uint64(0x0FED_CBA9_8765_4300)
    tt_store(table.keys, table.payload, h1, -65, 65, 10, 19, 20, False)
    slot, e = tt_probe(table.keys, table.payload, h1)
    assert slot >= 0 and (entry_lower(e), entry_move(e)) == (10, 19)
    tt_store(table.keys, table.payload, h2, -65, 65, -30, 44, 20, False)
    slot2, e2 = tt_probe(table.keys, table.payload, h2)
    assert slot2 == slot ^ 1 and entry_lower(e2) == -30  # the other slot of the same pair
    table.payload[slot] = e2  # h1's key beside h2's payload: a torn entry
    assert tt_probe(table.keys, table.payload, h1)[0] == -1
    assert tt_probe(table.keys, table.payload, h2) == (slot2, e2)


@pytest.mark.parametrize("seed", range(6))
def test_splitting_down_the_whole_principal_variation(
    monkeypatch: pytest.MonkeyPatch, seed: int
) -> None:
    """With ``SPLIT_MIN`` at 1 every node of the principal variation is split among 3 threads
    (the first move's subtree first, then the rest shared), down to the last empty; the score
    and best move stay brute force's."""
    monkeypatch.setattr(endgame, "ASPIRATION_MIN", 1)
    monkeypatch.setattr(parallel_solve, "SPLIT_MIN", 1)
    board = random_position(100 + seed, 8, 10)
    want = brute_force(board)
    for guess in (None, -10, 10):
        result = solve(board, threads=3, guess=guess)
        assert result.score == want, board.obf()
        if not board.is_game_over():
            assert -brute_force(board.play(result.best_move)) == want


def test_a_stop_from_another_thread_ends_every_thread() -> None:
    """``stop.set()`` while the threads solve (a 30-empties solve that runs for minutes) ends
    the solve at once, and with it every thread."""
    board = random_position(3, 8, 30)
    before = threading.active_count()
    stop = Stop()
    timer = threading.Timer(0.3, stop.set)
    timer.start()
    try:
        with pytest.raises(SolveAborted):
            solve(board, threads=2, stop=stop)
    finally:
        timer.join()
    assert threading.active_count() == before


def test_the_endgame_player_solves_on_its_threads() -> None:
    """``endgame:threads=2`` plays an FFO #1 best move with the listed exact score."""
    from othellolab.players import make_player

    board, scores = obf_scores(FFO_1_19[0])
    player = make_player("endgame:threads=2")
    assert player.threads == 2
    result = player.choose(board)
    assert result.score is not None and result.score.exact
    assert (result.move, result.score.value) in {(m, s) for m, s in scores if s == scores[0][1]}
