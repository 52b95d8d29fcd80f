"""Conformance checks that any implementation can run: board invariants and ``check_player``.

They raise ``AssertionError`` with a message naming the position (as an OBF line) and the
move, so they work inside pytest and in a plain script alike.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from othellolab.core import Board, Limit, Score, square_name
from othellolab.core import kernels as _k
from othellolab.players.base import Player

_DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1), (0, -1), (-1, 0), (-1, -1), (-1, 1))


def random_game(size: int = 8, *, seed: int | None = None) -> Iterator[Board]:
    """The positions of one uniformly random game, from the start to the end inclusive."""
    rng = np.random.default_rng(seed)
    board = Board(size=size)
    while True:
        yield board
        actions = board.legal_actions()
        if not actions:
            return
        board = board.play(actions[int(rng.integers(len(actions)))])


def _expected_flips(board: Board, sq: int) -> int:
    """Flips of a move by walking each line square by square (independent of the kernels)."""
    n = board.size
    r0, c0 = divmod(sq, n)
    flips = 0
    for dr, dc in _DIRECTIONS:
        r, c, run = r0 + dr, c0 + dc, 0
        while 0 <= r < n and 0 <= c < n and board.opponent >> (r * n + c) & 1:
            run |= 1 << (r * n + c)
            r, c = r + dr, c + dc
        if run and 0 <= r < n and 0 <= c < n and board.player >> (r * n + c) & 1:
            flips |= run
    return flips


def check_board_invariants(board: Board) -> None:
    """Check the rules at one position and for every move from it.

    Disc conservation, flips only along lines and bracketed, legal moves exactly the empty
    squares that flip something, pass only when forced, game over iff neither side can move,
    and every symmetry commuting with play.
    """
    where = f"position {board.obf()}"
    n = board.size
    full = (1 << n * n) - 1
    p, o = board.player, board.opponent
    assert not p & o, f"{where}: a square holds both colours"
    assert not (p | o) & ~full, f"{where}: discs off the board"
    expected_legal = 0
    for sq in range(n * n):
        if not (p | o) >> sq & 1 and _expected_flips(board, sq):
            expected_legal |= 1 << sq
    assert board.legal_mask == expected_legal, (
        f"{where}: legal moves {board.legal_moves.names()} but the line walk finds "
        f"{[square_name(s, n) for s in range(n * n) if expected_legal >> s & 1]}"
    )
    opp_moves = _k.legal_mask(o, p, n)
    over = board.is_game_over()
    assert over == (not expected_legal and not opp_moves), f"{where}: is_game_over() is {over}"
    assert board.must_pass() == (not expected_legal and bool(opp_moves)), f"{where}: must_pass"
    assert (board.outcome() is None) != over, f"{where}: outcome() disagrees with is_game_over()"
    actions = board.legal_actions()
    if expected_legal:
        assert board.pass_action not in actions, f"{where}: pass offered while moves exist"
    for action in actions:
        after = board.play(action)
        assert after.turn != board.turn, f"{where}: {square_name(action, n)} did not change turn"
        if action == board.pass_action:
            assert (after.player, after.opponent) == (o, p), f"{where}: pass changed discs"
            continue
        flips = _expected_flips(board, action)
        assert board.flips(action).mask == flips, f"{where}: flips of {square_name(action, n)}"
        mover = after.opponent
        assert mover == p | flips | (1 << action), f"{where}: discs after {square_name(action, n)}"
        assert after.player == o & ~flips, f"{where}: opponent discs after {square_name(action, n)}"
        assert mover.bit_count() + after.player.bit_count() == (p | o).bit_count() + 1, (
            f"{where}: {square_name(action, n)} did not add exactly one disc"
        )
        for k in range(8):
            moved = board.transform(k).play(_k.transform_square(action, k, n))
            assert moved == after.transform(k), (
                f"{where}: symmetry {k} does not commute with {square_name(action, n)}"
            )


def check_player(
    player: Player,
    *,
    sizes: tuple[int, ...] = (8, 6, 4),
    games: int = 1,
    seed: int = 0,
    limit: Limit | None = None,
) -> None:
    """Play ``player`` against random moves on each size and check every answer it gives.

    Each answer must be a legal action; a policy, when given, must have ``size*size + 1``
    finite non-negative entries summing to 1 with no mass on illegal actions; a score, when
    given, must be a ``Score``. The player must not change the board it is shown.
    """
    rng = np.random.default_rng(seed)
    for size in sizes:
        for g in range(games):
            player.reset()
            board = Board(size=size)
            ply = 0
            while not board.is_game_over():
                if (ply + g) % 2 == 0:
                    before = board.obf()
                    result = player.choose(board, limit)
                    where = f"{player!r} at {before} (ply {ply})"
                    assert board.obf() == before, f"{where}: the player changed the board"
                    assert result.move in board.legal_actions(), (
                        f"{where}: chose illegal action {result.move}; legal: {board.legal_actions()}"
                    )
                    if result.policy is not None:
                        pol = np.asarray(result.policy, dtype=np.float64)
                        assert pol.shape == (size * size + 1,), f"{where}: policy shape {pol.shape}"
                        assert np.all(np.isfinite(pol)) and np.all(pol >= 0), f"{where}: bad policy"
                        assert abs(pol.sum() - 1.0) < 1e-4, f"{where}: policy sums to {pol.sum()}"
                        illegal = np.ones(size * size + 1, dtype=bool)
                        illegal[board.legal_actions()] = False
                        assert pol[illegal].sum() < 1e-6, f"{where}: policy on illegal actions"
                    if result.score is not None:
                        assert isinstance(result.score, Score), f"{where}: score is not a Score"
                    move = result.move
                else:
                    actions = board.legal_actions()
                    move = actions[int(rng.integers(len(actions)))]
                board = board.play(move)
                ply += 1
