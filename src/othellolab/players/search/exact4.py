"""4x4 Othello solved in full: every position reachable from the start, its exact score and the
score of each move, and the grades of a policy against it.

4x4 Othello is a win for the second player: White wins 11-3 with two squares empty, so the
start is worth -10 to Black (empties to the winner). ``Solution4.build()`` walks every position
reachable by legal play (62,789 with the side to move's colour, 58,533 seen from the side to
move, which is how they are keyed here) and scores each by a memoized negamax, in about a
second; the project's endgame solver agrees on every one (tested on a sample).

A policy is graded on the positions where it has a choice (two or more legal moves): the share
where its move is optimal (keeps the exact score), and the score it gets against perfect play
as either colour, in the worst case over the perfect player's equally good moves.

>>> solution = Solution4.build()
>>> solution.value_of(Board(size=4))
-10
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from othellolab.core import BLACK, WHITE, Board

SIZE = 4
CELLS = SIZE * SIZE
NO_MOVE = -128
"""``move_scores`` of an illegal move."""


def position_key(player: int, opponent: int) -> int:
    """The table key of a 4x4 position seen from the side to move: its discs in the low 16 bits,
    the opponent's in the next 16."""
    return int(player) | int(opponent) << CELLS


def key_arrays(player: np.ndarray, opponent: np.ndarray) -> np.ndarray:
    """``position_key`` of arrays of bitboards."""
    return np.asarray(player, dtype=np.uint64) | (np.asarray(opponent, dtype=np.uint64) << 16)


@dataclass(frozen=True)
class Grade:
    """How a policy does against exact play on 4x4: ``optimal_share`` over ``positions``
    (reachable positions with a choice), the mean discs it gives away per move there
    (``mean_loss``), and its worst-case final score against a perfect opponent as Black and as
    White (perfect play scores -10 and +10)."""

    optimal_share: float
    positions: int
    mean_loss: float
    score_as_black: int
    score_as_white: int

    @property
    def perfect(self) -> bool:
        """Optimal everywhere, so it draws the game's value from either side."""
        return self.optimal_share == 1.0


class Solution4:
    """The exact values of all reachable 4x4 positions, keyed from the side to move.

    ``keys`` (sorted ``position_key`` values), ``player``/``opponent`` bitboards, ``values``
    (the exact final disc difference for the side to move, empties to the winner),
    ``move_scores`` (``(n, 16)``: the exact score after each placing move, from the mover's
    side; ``NO_MOVE`` where illegal) and ``turns`` (bit 1: reachable with Black to move, bit 2:
    with White to move)."""

    def __init__(
        self,
        player: np.ndarray,
        opponent: np.ndarray,
        values: np.ndarray,
        move_scores: np.ndarray,
        turns: np.ndarray,
    ) -> None:
        keys = key_arrays(player, opponent)
        order = np.argsort(keys)
        self.keys = keys[order]
        self.player = np.asarray(player, dtype=np.uint64)[order]
        self.opponent = np.asarray(opponent, dtype=np.uint64)[order]
        self.values = np.asarray(values, dtype=np.int8)[order]
        self.move_scores = np.asarray(move_scores, dtype=np.int8)[order]
        self.turns = np.asarray(turns, dtype=np.uint8)[order]

    @classmethod
    def build(cls) -> Solution4:
        """Walk and solve every position reachable from the 4x4 start (about a second)."""
        values: dict[int, int] = {}
        scores: dict[int, list[int]] = {}
        turns: dict[int, int] = {}
        boards: dict[int, Board] = {}

        def value(board: Board) -> int:
            key = position_key(board.player, board.opponent)
            if key in values:
                return values[key]
            boards[key] = board
            row = [NO_MOVE] * CELLS
            if board.is_game_over():
                v = board.score()
            elif board.must_pass():
                v = -value(board.play_pass())
            else:
                for a in board.legal_actions():
                    row[a] = -value(board.play(a))
                v = max(row)
            values[key] = v
            scores[key] = row
            return v

        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(limit, 1000))
        try:
            value(Board(size=SIZE))
            # A position can be reached with both colours to move: mark every colour seen.
            seen: set[tuple[int, int]] = set()
            stack = [Board(size=SIZE)]
            while stack:
                b = stack.pop()
                k = (position_key(b.player, b.opponent), b.turn)
                if k in seen:
                    continue
                seen.add(k)
                turns[k[0]] = turns.get(k[0], 0) | (1 if b.turn == BLACK else 2)
                if not b.is_game_over():
                    stack.extend(b.play(a) for a in b.legal_actions())
        finally:
            sys.setrecursionlimit(limit)
        keys = list(values)
        return cls(
            np.array([boards[k].player for k in keys], dtype=np.uint64),
            np.array([boards[k].opponent for k in keys], dtype=np.uint64),
            np.array([values[k] for k in keys]),
            np.array([scores[k] for k in keys]),
            np.array([turns[k] for k in keys]),
        )

    def __len__(self) -> int:
        return len(self.keys)

    def index(self, player: np.ndarray | int, opponent: np.ndarray | int) -> np.ndarray:
        """Rows of positions (arrays or single bitboards); ``KeyError`` for an unreachable one."""
        keys = np.atleast_1d(key_arrays(player, opponent))
        rows = np.searchsorted(self.keys, keys)
        rows = np.minimum(rows, len(self.keys) - 1)
        if not (self.keys[rows] == keys).all():
            bad = keys[self.keys[rows] != keys][0]
            raise KeyError(f"position {int(bad):#x} is not reachable on 4x4")
        return rows

    def value_of(self, board: Board) -> int:
        """The exact score of a reachable position for its side to move."""
        return int(self.values[self.index(board.player, board.opponent)[0]])

    def optimal_moves(self, board: Board) -> list[int]:
        """The placing moves that keep the exact score (``[]`` if the side must pass or the
        game is over)."""
        i = self.index(board.player, board.opponent)[0]
        row = self.move_scores[i]
        return (
            [int(a) for a in np.flatnonzero(row == self.values[i])] if row.max() > NO_MOVE else []
        )

    @cached_property
    def legal_counts(self) -> np.ndarray:
        """Number of placing moves of each position."""
        return (self.move_scores != NO_MOVE).sum(axis=1)

    @cached_property
    def choice_rows(self) -> np.ndarray:
        """Rows of the positions with two or more legal moves (where a policy can go wrong)."""
        return np.flatnonzero(self.legal_counts >= 2)

    @cached_property
    def decision_rows(self) -> np.ndarray:
        """Rows of the positions with at least one placing move."""
        return np.flatnonzero(self.legal_counts >= 1)

    def grade(self, choose: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> Grade:
        """Grade a policy given as ``choose(player, opponent) -> actions`` over arrays of
        bitboards (it is called once, on every position with a placing move)."""
        rows = self.decision_rows
        actions = np.asarray(choose(self.player[rows], self.opponent[rows]), dtype=np.int64)
        if actions.shape != rows.shape:
            raise ValueError(
                f"the policy returned {actions.shape} actions for {rows.size} positions"
            )
        chosen = np.full(len(self), -1, dtype=np.int64)
        chosen[rows] = actions
        legal = (actions >= 0) & (actions < CELLS)
        legal[legal] = self.move_scores[rows[legal], actions[legal]] != NO_MOVE
        if not legal.all():
            i = rows[np.flatnonzero(~legal)[0]]
            raise ValueError(
                f"the policy chose illegal action {chosen[i]} in "
                f"{Board.from_bitboards(int(self.player[i]), int(self.opponent[i]), size=SIZE).obf()}"
            )
        choice = self.choice_rows
        got = self.move_scores[choice, chosen[choice]].astype(np.int64)
        best = self.values[choice].astype(np.int64)
        return Grade(
            optimal_share=float((got == best).mean()),
            positions=int(choice.size),
            mean_loss=float((best - got).mean()),
            score_as_black=self._against_perfect(chosen, BLACK),
            score_as_white=self._against_perfect(chosen, WHITE),
        )

    def _against_perfect(self, chosen: np.ndarray, color: int) -> int:
        """The agent's final score playing ``color`` with the moves ``chosen`` (per row) against
        a perfect opponent that picks, among its optimal moves, the worst for the agent."""
        memo: dict[tuple[int, bool], int] = {}

        def walk(board: Board) -> int:
            agent_to_move = board.turn == color
            key = (position_key(board.player, board.opponent), agent_to_move)
            if key in memo:
                return memo[key]
            if board.is_game_over():
                s = board.score()
                result = s if agent_to_move else -s
            elif board.must_pass():
                result = walk(board.play_pass())
            elif agent_to_move:
                result = walk(board.play(int(chosen[self.index(board.player, board.opponent)[0]])))
            else:
                result = min(walk(board.play(a)) for a in self.optimal_moves(board))
            memo[key] = result
            return result

        return walk(Board(size=SIZE))


def greedy_from_table(
    lookup: Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]],
) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """A ``choose`` for ``Solution4.grade`` from a table lookup ``(player, opponent) -> (q rows
    (n, 16), found (n,))``: the legal move of highest value, the lowest among ties; the lowest
    legal move where the state was never seen."""
    from othellolab.core import kernels as _k

    def choose(player: np.ndarray, opponent: np.ndarray) -> np.ndarray:
        q, found = lookup(player, opponent)
        legal = _k.legal_mask_batch(player, opponent, SIZE)
        bits = ((legal[:, None] >> np.arange(CELLS, dtype=np.uint64)) & np.uint64(1)).astype(bool)
        values = np.where(bits, np.where(found[:, None], q, 0.0), -np.inf)
        return values.argmax(axis=1)

    return choose
