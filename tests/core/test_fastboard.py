"""The C fast path of ``Board`` (``core/_fastboard.c``) against the Numba kernels it stands in
for: the same legal moves, flips and next positions on any position of every size, the same
boards out of ``Board.play``, Aart Bik's perft counts through ``Board``, and the same games with
the fast path turned off (``OTHELLOLAB_NO_C=1``)."""

from __future__ import annotations

import hashlib
import importlib.util
import inspect
import json
import os
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from othellolab import PASS, Board
from othellolab.core import board as board_module
from othellolab.core import kernels as k
from othellolab.core.errors import IllegalMoveError
from othellolab.core.squares import square_name

from helpers import FIXTURES

SIZES = (8, 6, 4)
BUILT = importlib.util.find_spec("othellolab.core._fastboard") is not None


def fast():
    """The compiled module, or skip saying how to build it."""
    if not BUILT:
        pytest.skip(
            "_fastboard is not built (pip install -e . or python setup.py build_ext --inplace)"
        )
    from othellolab.core import _fastboard

    return _fastboard


def in_use():
    """The compiled module as ``Board`` uses it (bound to ``Board``), or skip."""
    c = fast()
    if not board_module.USING_C:
        pytest.skip("Board does not use _fastboard here (OTHELLOLAB_NO_C=1 or a stale build)")
    return c


def test_board_uses_the_c_path_when_built() -> None:
    fast()
    wanted = not os.environ.get("OTHELLOLAB_NO_C")
    assert board_module.USING_C is wanted, (
        "a stale build? rebuild: python setup.py build_ext --inplace"
    )


def test_no_c_env_var_and_a_stale_build_turn_it_off(monkeypatch: pytest.MonkeyPatch) -> None:
    c = fast()
    monkeypatch.setenv("OTHELLOLAB_NO_C", "1")
    assert board_module._load_fastboard() is None
    monkeypatch.delenv("OTHELLOLAB_NO_C")
    assert board_module._load_fastboard() is c
    monkeypatch.setattr(c, "SOURCE_CRC", c.SOURCE_CRC ^ 1)
    with pytest.warns(UserWarning, match="older than _fastboard.c"):
        assert board_module._load_fastboard() is None


@st.composite
def positions(draw: st.DrawFn) -> tuple[int, int, int]:
    """(p, o, size): any disc pattern, denser or sparser, on any size."""
    size = draw(st.sampled_from(SIZES))
    empty = draw(st.sampled_from((0.2, 0.5, 0.8)))
    rnd = random.Random(draw(st.integers(0, 2**32 - 1)))
    p = o = 0
    for sq in range(size * size):
        if rnd.random() >= empty:
            if rnd.random() < 0.5:
                p |= 1 << sq
            else:
                o |= 1 << sq
    return p, o, size


@settings(max_examples=300, deadline=None)
@given(positions())
def test_rules_match_the_numba_kernels(position: tuple[int, int, int]) -> None:
    c = fast()
    p, o, size = position
    assert c.legal_mask(p, o, size) == k.legal_mask(p, o, size)
    assert c.legal_mask(o, p, size) == k.legal_mask(o, p, size)
    assert c.legal_mask(np.uint64(p), np.uint64(o), np.int64(size)) == k.legal_mask(p, o, size)
    for sq in range(size * size):
        if not (p | o) >> sq & 1:
            assert c.flip_mask(p, o, sq, size) == k.flip_mask(p, o, sq, size), sq


@settings(max_examples=200, deadline=None)
@given(positions())
def test_play_board_matches_the_numba_kernels(position: tuple[int, int, int]) -> None:
    c = in_use()
    p, o, size = position
    board = Board.from_bitboards(p, o, size=size)
    for sq in range(size * size):
        made = c.play_board(board, sq)
        p2, o2, legal2, ok = k.play_with_moves(p, o, sq, size)
        if not ok:
            assert made is None, sq
        else:
            assert (made.player, made.opponent, made.legal_mask) == (p2, o2, legal2), sq


@given(st.integers(min_value=0, max_value=2**64 - 1))
def test_mask_squares_lists_the_set_bits(mask: int) -> None:
    assert fast().mask_squares(mask) == [i for i in range(64) if mask >> i & 1]


@pytest.mark.parametrize(
    ("args", "error", "match"),
    [
        ((1, 2, 5), ValueError, "unsupported board size"),
        ((1 << 36, 0, 6), ValueError, "off a 6x6 board"),
        ((-1, 0, 8), OverflowError, None),
        ((3, 1, 8), ValueError, "hold both colours"),
        (("1", 0, 8), TypeError, None),
        ((1, 2), TypeError, "takes 3 arguments"),
    ],
)
def test_bad_arguments_are_refused(args: tuple, error: type, match: str | None) -> None:
    with pytest.raises(error, match=match):
        fast().legal_mask(*args)


@pytest.mark.parametrize("sq", [-1, 16, 2**70])
def test_a_square_off_the_board_is_refused(sq: int) -> None:
    with pytest.raises((ValueError, OverflowError)):
        fast().flip_mask(0, 0, sq, 4)


@pytest.mark.parametrize("size", SIZES)
def test_play_board_makes_the_board_the_kernels_make(size: int) -> None:
    c = in_use()
    rng = random.Random(size)
    for _ in range(40):
        board = Board(size=size)
        while not board.is_game_over():
            p, o = board.player, board.opponent
            for sq in range(size * size):
                made = c.play_board(board, sq)
                p2, o2, legal2, ok = k.play_with_moves(p, o, sq, size)
                if not ok:
                    assert made is None
                    continue
                assert type(made) is Board
                assert (made.player, made.opponent, made.turn) == (p2, o2, 1 - board.turn)
                assert made.size == size and made.legal_mask == legal2
                again = Board.from_bitboards(p2, o2, 1 - board.turn, size=size)
                assert made == again and hash(made) == hash(again)
                assert made.legal_actions() == again.legal_actions()
            actions = board.legal_actions()
            board = board.play(rng.choice(actions))


class _Sub(Board):
    __slots__ = ()


def test_play_board_leaves_everything_else_to_python() -> None:
    c = in_use()
    board = Board()
    for move in ("f5", 37.0, True, PASS, 64, -1, 2**70, 0):  # 0 (a1) is illegal
        assert c.play_board(board, move) is None, move
    assert c.play_board(Board.from_obf(Board().obf()), 37) == board.play("f5")
    assert c.play_board(_Sub(), 37) is None
    with pytest.raises(TypeError):
        c.play_board(board)


def test_board_methods_are_c_methods_with_the_python_docs() -> None:
    in_use()
    for name in ("play", "legal_actions"):
        assert type(vars(Board)[name]).__name__ == "method_descriptor"
    assert Board.play.__doc__.startswith("The board after the side to move plays ``move``")
    assert Board.legal_actions.__doc__.startswith("Legal actions in increasing order")
    assert list(inspect.signature(Board.play).parameters) == ["self", "move"]
    assert list(inspect.signature(Board.legal_actions).parameters) == ["self"]


def test_the_c_methods_hand_the_rest_to_python() -> None:
    board = Board()
    assert board.play(move="f5") == board.play("f5") == board.play(37) == Board.play(board, 37)
    with pytest.raises(TypeError):
        board.play()
    with pytest.raises(TypeError):
        board.play(37, 38)
    assert _Sub().play(37) == board.play(37)
    assert _Sub().legal_actions() == board.legal_actions() == [19, 26, 37, 44]
    unknown = Board.from_obf(board.obf())  # no legal-move mask yet: the Python path finds it
    assert unknown.legal_actions() == [19, 26, 37, 44]
    # white to move must pass (black's d1 is the only move), then a game over
    stuck = Board.from_discs(["a1", "b1"], ["c1"], turn=1, size=4)
    assert stuck.legal_actions() == [16] and stuck.play(stuck.pass_action).legal_actions() == [3]
    over = Board.from_discs(["a1"], [], size=4)
    assert over.legal_actions() == []


def test_a_second_import_of_board_py_keeps_its_python_methods() -> None:
    """pytest's doctest collection may import board.py again as another module: its Board
    class must not take over the first one's C methods (boards of two classes never equal)."""
    c = in_use()
    spec = importlib.util.spec_from_file_location("board_again", board_module.__file__)
    again = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(again)
    assert again.Board is not Board and c.bind(again.Board) is False
    assert type(vars(again.Board)["play"]).__name__ == "function"
    assert type(Board().play(37)) is Board and type(Board().play("f5")) is Board
    assert type(again.Board().play(37)) is again.Board
    assert again.Board().play(37).obf() == Board().play(37).obf()


def test_illegal_moves_raise_the_python_paths_errors() -> None:
    board = Board().play("f5")  # white's replies: the diagonal f4, perpendicular d6, parallel f6
    for move, why in ((0, "a1 flips no disc"), (37, "f5 is occupied"), ("f5", "f5 is occupied")):
        with pytest.raises(IllegalMoveError, match=f"{why}; legal moves: f4, d6, f6"):
            board.play(move)


def board_perft(board: Board, depth: int) -> int:
    """Perft through ``Board`` (a pass takes a ply; a game over before ``depth`` is one leaf)."""
    if depth == 0:
        return 1
    actions = board.legal_actions()
    if not actions:
        return 1
    return sum(board_perft(board.play(a), depth - 1) for a in actions)


def test_perft_through_board_matches_published() -> None:
    # Aart Bik's counts (convention A_bik), as tests/core/test_perft.py reads them
    published = json.loads((FIXTURES / "perft_start_position.json").read_text())["A_bik"]
    for depth in range(1, 8):
        assert board_perft(Board(), depth) == published["values"][str(depth)], depth


@pytest.mark.parametrize(("size", "depth"), [(6, 7), (4, 16)])
def test_perft_through_board_on_small_boards_matches_the_kernel(size: int, depth: int) -> None:
    # depth 16 covers every 4x4 game to its end, passes included
    p, o = k.start_position(size)
    assert board_perft(Board(size=size), depth) == k.perft(p, o, depth, size)


def random_games_digest(seed: int = 11, games: int = 30) -> str:
    """A hash of every position and its legal actions along seeded random games of each size,
    played through ``Board`` as a user would (actions, square names and passes)."""
    rng = random.Random(seed)
    h = hashlib.sha256()
    for size in SIZES:
        for _ in range(games):
            board = Board(size=size)
            while actions := board.legal_actions():
                h.update(f"{board.obf()} {actions} {board.must_pass()}\n".encode())
                a = rng.choice(actions)
                if a == board.pass_action:
                    board = board.play("pass")
                else:
                    board = board.play(a if rng.random() < 0.8 else square_name(a, size))
            h.update(f"{board.obf()} {board.outcome()}\n".encode())
    return h.hexdigest()


def test_the_fallback_plays_the_same_games() -> None:
    """``OTHELLOLAB_NO_C=1`` in a fresh process: the Numba path, the same positions."""
    here = Path(__file__)
    code = (
        f"import runpy, sys; sys.path.insert(0, {str(here.parents[1])!r}); "
        "from othellolab.core import board; assert not board.USING_C; "
        f"print(runpy.run_path({str(here)!r})['random_games_digest']())"
    )
    env = {**os.environ, "OTHELLOLAB_NO_C": "1"}
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=False
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == random_games_digest()
