"""6x6 positions with every move solved exactly, to grade 6x6 policies the way ``exact4`` grades
4x4 ones: the share of positions where the policy's move is optimal, and how many discs it
gives away when it plays the rest of the game against a perfect opponent.

The shipped set (``data/solved6x6.obf``, built by ``examples/build_solved6x6.py``) holds 400
positions taken from seeded random games, 8 to 20 squares empty, each with two or more legal
moves, every move scored by the endgame solver (OBF lines, best move first).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from othellolab.core import Board
from othellolab.players.search.endgame import solve
from othellolab.players.search.table import TranspositionTable
from othellolab.records.obf import ObfEntry, read_obf
from othellolab.training.rl.tabular import check_count

SOLVED_6X6 = Path(__file__).resolve().parent / "data" / "solved6x6.obf"
"""The shipped set of solved 6x6 positions."""


def move_scores(board: Board, table: TranspositionTable | None = None) -> list[tuple[int, int]]:
    """Every legal move of ``board`` with its exact score for the side to move (passes of the
    opponent followed), best first (the lowest square among ties)."""
    out = []
    for a in board.legal_actions():
        child = board.play(a)
        if child.must_pass():
            score = solve(child.play_pass(), table=table, pv=False).score
        else:
            score = -solve(child, table=table, pv=False).score
        out.append((a, score))
    return sorted(out, key=lambda m: (-m[1], m[0]))


def build_solved_set(
    count: int,
    *,
    seed: int = 0,
    min_empties: int = 8,
    max_empties: int = 20,
    progress: Callable[[int], None] | None = None,
) -> Iterator[ObfEntry]:
    """``count`` distinct 6x6 positions from seeded random games, stopped at a number of empty
    squares drawn in ``[min_empties, max_empties]``, kept when the side to move has two or more
    moves; every move solved."""
    check_count(count, "count", where="solved 6x6 set")
    rng = np.random.default_rng(seed)
    table = TranspositionTable(22)
    seen: set[Board] = set()
    made = 0
    while made < count:
        target = int(rng.integers(min_empties, max_empties + 1))
        board = Board(size=6)
        while board.num_empties > target and not board.is_game_over():
            actions = board.legal_actions()
            board = board.play(actions[int(rng.integers(len(actions)))])
        if board in seen or len(board.legal_actions()) < 2 or board.must_pass():
            continue
        seen.add(board)
        made += 1
        yield ObfEntry(board, tuple(move_scores(board, table)))
        if progress is not None:
            progress(made)


def load_solved_set(path: Path = SOLVED_6X6) -> list[ObfEntry]:
    """The positions of a solved set (the shipped one by default)."""
    return list(read_obf(path))


@dataclass(frozen=True)
class PositionGrade:
    """A policy on a solved set: ``optimal_share`` of ``positions`` where its move keeps the exact
    score, the discs it gives away per move (``mean_loss``), and, over the ``games`` played from
    the first of them against a perfect opponent, the mean discs it ends below the positions'
    exact values (``mean_game_loss``, 0 for perfect play) and the share it plays without loss."""

    optimal_share: float
    positions: int
    mean_loss: float
    games: int
    mean_game_loss: float
    perfect_games: float


def grade_positions(
    entries: list[ObfEntry],
    choose: Callable[[np.ndarray, np.ndarray], np.ndarray],
    *,
    games: int = 50,
) -> PositionGrade:
    """Grade ``choose(player, opponent) -> actions`` (arrays of bitboards, one call for all the
    positions) on ``entries``; then play it from the first ``games`` positions to the end
    against the solver, which plays the lowest of its optimal moves."""
    if not entries:
        raise ValueError("no positions to grade on")
    player = np.array([e.board.player for e in entries], dtype=np.uint64)
    opponent = np.array([e.board.opponent for e in entries], dtype=np.uint64)
    actions = np.asarray(choose(player, opponent), dtype=np.int64)
    best = np.array([e.best_score for e in entries], dtype=np.int64)
    got = []
    for e, a in zip(entries, actions, strict=True):
        scores = e.scores()
        if int(a) not in scores:
            raise ValueError(f"the policy chose {int(a)}, not a legal move of {e.board.obf()}")
        got.append(scores[int(a)])
    got_a = np.array(got)
    table = TranspositionTable(20)
    losses = []
    for e in entries[: min(games, len(entries))]:
        board, agent = e.board, e.board.turn
        while not board.is_game_over():
            if board.must_pass():
                board = board.play_pass()
            elif board.turn == agent:
                move = int(
                    choose(
                        np.array([board.player], dtype=np.uint64),
                        np.array([board.opponent], dtype=np.uint64),
                    )[0]
                )
                board = board.play(move)
            else:
                board = board.play(move_scores(board, table)[0][0])
        final = board.score() if board.turn == agent else -board.score()
        losses.append(int(e.best_score or 0) - final)
    return PositionGrade(
        optimal_share=float((got_a == best).mean()),
        positions=len(entries),
        mean_loss=float((best - got_a).mean()),
        games=len(losses),
        mean_game_loss=float(np.mean(losses)),
        perfect_games=float(np.mean(np.array(losses) == 0)),
    )
