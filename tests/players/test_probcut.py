"""Multi-ProbCut in the midgame search: it cuts, it never touches a search that reaches the end,
its table is checked, and the fit recovers a planted line."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from othellolab.core import Board, ConfigError
from othellolab.fitting.probcut import fit_rows
from othellolab.players import solve
from othellolab.players.search.evaluation import pattern_evaluation
from othellolab.players.search.midgame import search
from othellolab.players.search.probcut import load_probcut, probcut_table, shallow_depth
from othellolab.players.search.table import TranspositionTable

LINE = "f5d6c3d3c4f4f6f3e6e7d7c6"


def _board(line: str) -> Board:
    b = Board()
    for i in range(0, len(line), 2):
        b = b.play(line[i : i + 2])
    return b


def _table(sigma: float) -> np.ndarray:
    rows = [
        {"depth": d, "shallow": shallow_depth(d), "empties": [0, 60], "a": 1.0, "b": 0.0,
         "sigma": sigma}
        for d in range(3, 13)
    ]  # fmt: skip
    return probcut_table(rows)


def test_the_shallow_depth_keeps_the_parity_and_is_shallower() -> None:
    for d in range(3, 40):
        s = shallow_depth(d)
        assert 1 <= s < d and s % 2 == d % 2
    assert shallow_depth(2) == 0


def test_probcut_cuts_nodes_and_still_plays_a_legal_move() -> None:
    board = _board(LINE)
    ev = pattern_evaluation()
    plain = search(board, depth=8, evaluation=ev, table=TranspositionTable(20))
    cut = search(
        board, depth=8, evaluation=ev, table=TranspositionTable(20), probcut=1.5,
        probcut_table=_table(2.0),
    )  # fmt: skip
    assert cut.nodes < plain.nodes
    assert cut.best_move in board.legal_actions()
    off = search(
        board, depth=8, evaluation=ev, table=TranspositionTable(20), probcut=0.0,
        probcut_table=_table(2.0),
    )  # fmt: skip
    assert (off.score, off.nodes, off.best_move) == (plain.score, plain.nodes, plain.best_move)


def test_probcut_never_changes_a_search_that_reaches_the_end() -> None:
    # the exact solver (checked against the published FFO scores in test_endgame) is the truth
    board = _board(LINE)
    while board.num_empties > 12:
        board = board.play(board.legal_actions()[0])
    truth = solve(board).score
    cut = search(board, depth=60, probcut=3.0, probcut_table=_table(0.1))
    assert cut.exact and cut.score == truth


def test_probcut_confidence_and_table_are_checked(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="probcut"):
        search(Board(), depth=3, probcut=float("nan"))
    with pytest.raises(ConfigError, match="probcut"):
        search(Board(), depth=3, probcut=11.0)
    bad = tmp_path / "fit.json"
    bad.write_text(json.dumps({"fits": [{"depth": 4, "shallow": 2, "empties": [0, 60],
                                         "a": -1, "b": 0, "sigma": 1}]}))  # fmt: skip
    with pytest.raises(ConfigError, match="a > 0"):
        load_probcut(bad)
    bad.write_text("{not json")
    with pytest.raises(ConfigError, match="not a ProbCut fit"):
        load_probcut(bad)
    with pytest.raises(ConfigError, match="no ProbCut fit"):
        load_probcut(tmp_path / "missing.json")


def test_the_fit_recovers_a_planted_line() -> None:
    rng = np.random.default_rng(0)
    n = 400
    values = np.full((n, 6), np.nan)
    empties = rng.integers(20, 40, n)
    for d in range(1, 6):
        values[:, d] = rng.normal(0, 10, n)
    for d in range(3, 6):
        s = shallow_depth(d)
        values[:, d] = 0.9 * values[:, s] + 1.5 + rng.normal(0, 2.0, n)
    rows = fit_rows(values, empties, band=20, lo=20, hi=39)
    row = next(r for r in rows if r["depth"] == 4)
    assert abs(row["a"] - 0.9) < 0.05 and abs(row["b"] - 1.5) < 0.4
    assert abs(row["sigma"] - 2.0) < 0.3


def _weights_copy(tmp_path: Path, fit: dict | str | None) -> Path:
    """A copy of the shipped ``patterns-r1`` weights directory, with ``fit`` as its
    ``probcut.json`` (a dict as JSON, a string as raw text, None: no file)."""
    import shutil

    from othellolab.players.search.patterns import pattern_weights_dir

    d = tmp_path / "weights"
    shutil.copytree(pattern_weights_dir("patterns-r1"), d)
    (d / "probcut.json").unlink(missing_ok=True)
    if isinstance(fit, dict):
        (d / "probcut.json").write_text(json.dumps(fit))
    elif isinstance(fit, str):
        (d / "probcut.json").write_text(fit)
    return d


def test_weights_with_their_own_fit_use_it_and_others_the_shipped_one(tmp_path: Path) -> None:
    from othellolab.players import make_player
    from othellolab.players.search.probcut import shipped_probcut

    rows = [{"depth": 5, "shallow": 1, "empties": [0, 60], "a": 1.0, "b": 0.0, "sigma": 0.5}]
    own = _weights_copy(tmp_path / "own", {"fits": rows})
    player = make_player(f"alphabeta:depth=5,probcut=1.5,weights={own}")
    assert player._probcut_table[30, 5, 0] == 1 and player._probcut_table[30, 5, 3] == 0.5
    assert not np.array_equal(player._probcut_table, shipped_probcut())
    plain = _weights_copy(tmp_path / "plain", None)
    player = make_player(f"alphabeta:depth=5,probcut=1.5,weights={plain}")
    assert player._probcut_table is shipped_probcut()
    assert make_player("alphabeta:depth=5,probcut=1.5")._probcut_table is None


def test_a_bad_fit_beside_the_weights_is_named(tmp_path: Path) -> None:
    from othellolab.players import make_player

    bad = _weights_copy(tmp_path, "{not json")
    with pytest.raises(ConfigError, match="probcut.json"):
        make_player(f"alphabeta:depth=5,probcut=1.5,weights={bad}")


def test_the_fit_takes_pattern_weights_and_refuses_unknown_ones() -> None:
    from othellolab.fitting.probcut import ProbCutOptions

    assert ProbCutOptions(wthor_dir="x", evaluation="patterns-r1").evaluation == "patterns-r1"
    for bad in ("no-such-weights", "", "  "):
        with pytest.raises(ConfigError, match="evaluation"):
            ProbCutOptions(wthor_dir="x", evaluation=bad)
