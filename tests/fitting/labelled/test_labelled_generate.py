"""Playing and labelling a shard: the labels agree with the exact solver and with a fresh
search, signs follow the side to move across passes, and a shard is a function of its seed."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from othellolab import Board
from othellolab.arena.openings import random_openings
from othellolab.core import ConfigError
from othellolab.core.board import format_transcript
from othellolab.core.values import NO_SCORE
from othellolab.fitting.labelled.config import LabelledConfig
from othellolab.fitting.labelled.generate import ARRAYS, LabelTask, label_shard, phase_of
from othellolab.players.search import TranspositionTable, default_evaluation, search, solve
from othellolab.players.search.evaluation import weights_evaluation

from helpers import shared_file


def shard(data: dict, index: int = 0) -> tuple[dict[str, np.ndarray], dict]:
    cfg = LabelledConfig.from_dict(data)
    gps = cfg.games_per_shard
    return label_shard(LabelTask(index, cfg.shard_seed(index), index * gps, cfg))


def board_at(a: dict[str, np.ndarray], i: int) -> Board:
    return Board.from_bitboards(int(a["player"][i]), int(a["opponent"][i]))


def mover_changes(a: dict[str, np.ndarray], i: int) -> bool:
    """Whether the side to move of row ``i + 1`` is the opponent of row ``i``'s (False: the
    opponent passed in between); rows must be consecutive positions of one game."""
    board = board_at(a, i)
    after = (int(a["player"][i + 1]), int(a["opponent"][i + 1]))
    for move in board.legal_actions():
        child = board.play(move)
        if (child.player, child.opponent) == after:
            return True
        if (child.opponent, child.player) == after:
            return False
    raise AssertionError(f"row {i + 1} does not follow row {i} by one move")


@pytest.fixture(scope="module")
def rows(tiny) -> tuple[dict[str, np.ndarray], dict]:
    return shard(tiny(games_per_shard=4))


def test_arrays_and_stats(rows) -> None:
    a, stats = rows
    n = len(a["player"])
    assert n > 4 * 40
    assert {name: a[name].dtype for name in ARRAYS} == {k: np.dtype(v) for k, v in ARRAYS.items()}
    assert all(len(x) == n for x in a.values())
    assert set(np.unique(a["game"])) == {0, 1, 2, 3}
    assert (a["empties"] == 64 - np.bitwise_count(a["player"] | a["opponent"])).all()
    assert (a["player"] & a["opponent"] == 0).all()
    assert sum(stats["positions_per_phase"]) == n
    assert stats["exact_positions"] == int((a["exact"] != NO_SCORE).sum())
    assert stats["openings"] == {"start": 4}
    assert stats["cpu_seconds"] > 0


def test_games_follow_move_by_move_and_finals_flip_with_the_mover(rows) -> None:
    a, _ = rows
    passes = 0
    for i in range(len(a["player"]) - 1):
        if a["game"][i] != a["game"][i + 1]:
            continue
        changes = mover_changes(a, i)
        passes += not changes
        assert a["final"][i + 1] == (-a["final"][i] if changes else a["final"][i])
        assert a["ply"][i + 1] == a["ply"][i] + 1
    assert passes > 0, "the tiny games should include a pass (they do for this seed)"


def test_tail_is_perfect_play_and_exact_labels_agree_with_the_solver(rows) -> None:
    a, _ = rows
    exact = a["exact"] != NO_SCORE
    assert (a["empties"][exact] <= 10).all()
    assert (a["empties"][~exact] > 10).all()
    # On the solved tail the game's result is the exact score of every position.
    assert (a["final"][exact] == a["exact"][exact]).all()
    for g in range(4):
        tail = np.flatnonzero(exact & (a["game"] == g))
        assert len(tail) >= 8
        last = tail[-1]
        assert a["final"][last] == solve(board_at(a, last)).score
        for i in tail[:: max(1, len(tail) // 3)]:
            assert a["exact"][i] == solve(board_at(a, i)).score


def test_search_labels_are_a_fresh_two_ply_search(rows) -> None:
    a, _ = rows
    for i in range(0, len(a["player"]), 17):
        board = board_at(a, i)
        want = search(
            board, depth=2, evaluation=default_evaluation(8), table=TranspositionTable(16)
        ).score
        assert a["search"][i] == pytest.approx(want, abs=1e-4)


def test_a_shipped_weights_set_plays_and_labels(tiny) -> None:
    a, _ = shard(tiny(games_per_shard=1, search__evaluation="patterns-r1"))
    r1 = weights_evaluation("patterns-r1")
    for i in range(0, len(a["player"]), 11):
        board = board_at(a, i)
        want = search(board, depth=2, evaluation=r1, table=TranspositionTable(16)).score
        assert a["search"][i] == pytest.approx(want, abs=1e-4)


def test_a_shard_is_a_function_of_its_seed(tiny) -> None:
    a, _ = shard(tiny(games_per_shard=2))
    b, _ = shard(tiny(games_per_shard=2))
    c, _ = shard(tiny(games_per_shard=2), index=1)
    assert all(np.array_equal(a[k], b[k], equal_nan=True) for k in ARRAYS)
    assert not np.array_equal(a["player"], c["player"]) or len(a["player"]) != len(c["player"])
    assert set(np.unique(c["game"])) == {2, 3}


def test_kept_empties_and_no_search_label(tiny) -> None:
    a, stats = shard(
        tiny(
            games_per_shard=2, labels__min_empties=8, labels__max_empties=30, labels__search_depth=0
        )
    )
    assert a["empties"].min() == 8
    assert a["empties"].max() == 30
    assert np.isnan(a["search"]).all()
    assert stats["seconds"]["search"] == 0


def test_phases() -> None:
    assert phase_of(np.array([0, 1, 5, 6, 20, 21, 60])).tolist() == [0, 0, 0, 1, 3, 4, 11]


def test_xot_openings(tiny, tmp_path: Path) -> None:
    lines = random_openings(3, 8, rng=np.random.default_rng(5))
    xot = tmp_path / "xot.txt"
    xot.write_text("# three openings\n" + "\n".join(format_transcript(m) for m in lines) + "\n")
    a, stats = shard(
        tiny(openings__source="xot", openings__xot=str(xot), randomise__random_plies=0)
    )
    starts = {
        (b.player, b.opponent) for b in (Board.from_transcript(format_transcript(m)) for m in lines)
    }
    first = np.flatnonzero(np.r_[True, a["game"][1:] != a["game"][:-1]])
    assert len(first) == 3
    for i in first:
        assert a["ply"][i] == 8
        assert (int(a["player"][i]), int(a["opponent"][i])) in starts
    assert stats["openings"] == {"xot": 3}


def test_missing_xot_file_is_named(tiny, tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no such opening list") as info:
        shard(tiny(openings__source="xot", openings__xot=str(tmp_path / "none.txt")))
    assert info.value.option == "xot"


def test_wthor_openings(tiny) -> None:
    wthor = shared_file("wthor/WTH_2005.wtb").parent
    data = tiny(
        openings__source="mixed",
        openings__xot_share=0.0,
        openings__wthor_dir=str(wthor),
        openings__years="2005",
        openings__min_ply=20,
        openings__max_ply=20,
        randomise__random_plies=0,
    )
    a, stats = shard(data)
    first = np.flatnonzero(np.r_[True, a["game"][1:] != a["game"][:-1]])
    assert stats["openings"] == {"wthor": 3}
    assert (a["ply"][first] == 20).all()
    assert (a["empties"][first] <= 40).all()
