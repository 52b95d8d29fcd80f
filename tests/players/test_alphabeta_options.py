"""The alpha-beta player's book, multi-ProbCut and game-clock options."""

from __future__ import annotations

import pytest

from othellolab.arena.match import play_game
from othellolab.core import Board, ConfigError, Limit
from othellolab.players import make_player
from othellolab.players.search.book import shipped_book


def test_the_book_plays_its_move_at_once_and_hands_over_after_it() -> None:
    player = make_player("alphabeta:book=on,depth=2")
    start = Board()
    r = player.choose(start)
    assert r.info["book"] == "book-wthor" and r.info["depth"] == 0
    best = shipped_book().moves(start)[0].value
    assert r.move in {m.move for m in shipped_book().moves(start) if m.value == best}
    # past the book's 20 plies: the search answers
    board = Board()
    for _ in range(22):
        board = board.play(board.legal_actions()[-1])
    assert shipped_book().lookup(board) is None and "book" not in player.choose(board).info


def test_book_margin_varies_the_line_within_its_margin() -> None:
    book = shipped_book()
    moves = {make_player(f"alphabeta:book=on,book_margin=2,seed={s}").choose(Board()).move
             for s in range(12)}  # fmt: skip
    assert len(moves) > 1  # the four first moves are symmetric: all equal
    assert moves <= {m.move for m in book.moves(Board()) if m.value >= -2}


def test_the_new_options_are_checked() -> None:
    for spec, option in (
        ("alphabeta:book=nowhere", "book"),
        ("alphabeta:book_margin=99", "book_margin"),
        ("alphabeta:probcut=nan", "probcut"),
        ("alphabeta:probcut=11", "probcut"),
        ("alphabeta:probcut=-1", "probcut"),
    ):
        with pytest.raises(ConfigError, match=option):
            make_player(spec)


def test_probcut_searches_deeper_on_the_same_nodes() -> None:
    board = Board()
    for m in ("f5", "f6", "e6", "f4", "e3", "c5"):
        board = board.play(m)
    plain = make_player("alphabeta:nodes=200000").choose(board)
    cut = make_player("alphabeta:nodes=200000,probcut=1.5").choose(board)
    assert cut.info["depth"] > plain.info["depth"]
    assert cut.move in board.legal_actions()


def test_a_game_on_a_clock_keeps_within_it() -> None:
    record = play_game(
        make_player("alphabeta:endgame=14"),
        make_player("alphabeta:probcut=1.5,book=on,endgame=14"),
        limit=Limit(clock=3.0),
    )
    # the searches stop at their deadlines; the margin is only for a stalled machine
    assert 0 < record.headers["time_black"] < 6.0 and 0 < record.headers["time_white"] < 6.0


def test_a_server_that_allows_no_paths_takes_only_shipped_weights_and_books() -> None:
    from othellolab.nn.pretrained import ModelCatalog

    server = ModelCatalog(allow_paths=False)
    for spec, option in (
        ("alphabeta:book=/etc", "book"),
        ("alphabeta:weights=../weights", "weights"),
        ("endgame:weights=/tmp", "weights"),
    ):
        with pytest.raises(ConfigError, match=f"{option}.*not a path|not a path"):
            make_player(spec, models=server)
    assert make_player("alphabeta:book=on,weights=patterns-wthor", models=server).book_name == "on"


def test_the_tournament_keeps_a_player_planning_its_own_clock() -> None:
    from othellolab.arena.tournament import _Timed

    assert _Timed(make_player("alphabeta")).plans_time
    assert not _Timed(make_player("greedy")).plans_time
