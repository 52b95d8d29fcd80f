"""Grading against perfect play: the move choosers of a network (its raw policy, or the
network with N simulations of batched search) and of any player, graded on the exact 6x6 set
(``players.search.solved6``: ``GRADED_6X6``) and on the full 4x4 solution
(``players.search.exact4``).

A chooser is ``choose(player, opponent) -> actions`` over arrays of bitboards, called once
for all the positions, the form both graders take.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import numpy as np

from othellolab.core import Board
from othellolab.core import kernels as _k
from othellolab.core.games import Game, get_game
from othellolab.players.base import Player
from othellolab.players.evaluators import Evaluator
from othellolab.players.mcts.batch import search_positions
from othellolab.players.search.exact4 import Grade, Solution4
from othellolab.players.search.solved6 import PositionGrade, grade_positions, load_graded_set
from othellolab.records.obf import ObfEntry
from othellolab.training.selfplay.config import SelfPlayConfig
from othellolab.training.selfplay.exact import ExactEndgame, leaf_solver

__all__ = [
    "Chooser",
    "grade_chooser",
    "grade_evaluator",
    "graded_entries",
    "player_chooser",
    "policy_chooser",
    "search_chooser",
]

Chooser = Callable[[np.ndarray, np.ndarray], np.ndarray]
"""A batch move chooser for grading: the player and opponent bitboards of many positions in,
one action per position out, so that a network is graded on many positions in one call."""


def policy_chooser(evaluator: Evaluator, size: int) -> Chooser:
    """The raw policy: the legal action of highest prior (the lowest among ties)."""

    game = get_game("othello", size)

    def choose(player: np.ndarray, opponent: np.ndarray) -> np.ndarray:
        p = np.ascontiguousarray(player, dtype=np.uint64)
        o = np.ascontiguousarray(opponent, dtype=np.uint64)
        out = np.empty(p.shape[0], dtype=np.int64)
        for s in range(0, p.shape[0], 4096):
            priors, _ = evaluator.evaluate(p[s : s + 4096], o[s : s + 4096], game)
            out[s : s + 4096] = np.argmax(priors, axis=1)
        legal = _k.legal_mask_batch(p, o, size)
        bad = np.flatnonzero(((legal >> out.astype(np.uint64)) & np.uint64(1)) == 0)
        for i in bad:  # no prior mass on a legal move: the first legal action
            out[i] = _k.lowest_square(legal[i]) if legal[i] else size * size
        return out

    return choose


def search_chooser(
    evaluator: Evaluator, size: int, simulations: int, config: SelfPlayConfig | None = None
) -> Chooser:
    """The network with ``simulations`` of batched search (``config``'s variant, no noise):
    the most visited action for PUCT, the sequential-halving winner for Gumbel."""
    config = replace(config or SelfPlayConfig(), simulations=simulations)
    game = get_game("othello", size=size)

    def choose(player: np.ndarray, opponent: np.ndarray) -> np.ndarray:
        exact = ExactEndgame(game, config.solve_empties)
        leaf_values = leaf_solver(game, config)
        return search_positions(
            evaluator, player, opponent, game, config.search, exact=exact, leaf_values=leaf_values
        )[0]

    return choose


def player_chooser(make: Callable[[], Player], size: int) -> Chooser:
    """Any player, one position at a time (``make()`` builds a fresh one per call)."""

    def choose(player: np.ndarray, opponent: np.ndarray) -> np.ndarray:
        chooser = make()
        return np.array(
            [
                chooser.choose(Board.from_bitboards(int(p), int(o), size=size)).move
                for p, o in zip(player, opponent, strict=True)
            ],
            dtype=np.int64,
        )

    return choose


def grade_chooser(
    choose: Chooser,
    size: int,
    *,
    entries: list[ObfEntry] | None = None,
    solution: Solution4 | None = None,
    games: int = 0,
) -> PositionGrade | Grade:
    """Grade a chooser on 6x6 (the graded set, or ``entries``; ``games`` played out against
    the solver, see ``grade_positions``) or on 4x4 (every position of the full solution)."""
    if size == 6:
        return grade_positions(
            entries if entries is not None else load_graded_set(), choose, games=games
        )
    if size == 4:
        return (solution or Solution4.build()).grade(choose)
    raise ValueError(
        f"grading needs a 6x6 or 4x4 chooser (exact play is known there), not {size}x{size}"
    )


def board_size(game: Game | str) -> int:
    """The board size of a game whose perfect play the graders know (``Game.has_exact_grading``:
    6x6 and 4x4 Othello), or a ``ValueError``."""
    rules = get_game(game)
    if not rules.has_exact_grading:
        raise ValueError(
            f"grading needs a 6x6 or 4x4 chooser (exact play is known there), not {rules.label}"
        )
    return int(rules.params["size"])


def graded_entries(game: Game | str, positions: int = 0) -> list[ObfEntry] | None:
    """The graded positions a grade of ``game`` uses: 6x6's set (its first ``positions``; 0:
    all), or None where the grader walks a full solution instead (4x4)."""
    if board_size(game) != 6:
        return None
    entries = load_graded_set()
    return entries[:positions] if positions else entries


def grade_evaluator(
    evaluator: Evaluator,
    game: Game | str,
    *,
    simulations: tuple[int, ...] = (0, 32),
    config: SelfPlayConfig | None = None,
    entries: list[ObfEntry] | None = None,
    solution: Solution4 | None = None,
    progress: Callable[[int], None] | None = None,
) -> dict[int, PositionGrade | Grade]:
    """Grades of a network for each number of ``simulations`` (0: its raw policy), on a game
    the graders know (``game``: a ``Game`` or its name, such as ``othello6``); ``progress``
    hears each simulation count as its grade is done."""
    size = board_size(game)
    if size == 6 and entries is None:
        entries = load_graded_set()
    if size == 4 and solution is None:
        solution = Solution4.build()
    out: dict[int, PositionGrade | Grade] = {}
    for sims in simulations:
        choose = (
            policy_chooser(evaluator, size)
            if sims == 0
            else search_chooser(evaluator, size, sims, config)
        )
        out[sims] = grade_chooser(choose, size, entries=entries, solution=solution)
        if progress is not None:
            progress(sims)
    return out
