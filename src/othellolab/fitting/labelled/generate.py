"""Play and label the games of one shard: the engine against itself from a drawn opening, moves
varied as the config says, the game finished by the exact solver from ``exact_empties`` on.

Every kept position (a position whose side to move has a move, with empties in the config's
range) is labelled with the game's final disc difference from its side to move (``final``),
its exact score when it lies on the solved tail (``exact``; ``NO_SCORE`` elsewhere) and a
shallow search score (``search``). Tables are fresh for every game and every limit counts
plies or nodes, never time, so a game is a function of its seed: a shard played again, after
a kill or elsewhere, is the same shard.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from othellolab.core import BLACK, Board, OthelloError
from othellolab.core.values import NO_SCORE
from othellolab.fitting.labelled.config import LabelledConfig
from othellolab.fitting.labelled.openings import draw_opening, opening_book
from othellolab.players.search import (
    Evaluation,
    TranspositionTable,
    default_evaluation,
    search,
    solve,
)
from othellolab.players.search.evaluation import evaluation_or_weights
from othellolab.players.search.table import MIDGAME_MIN_BITS

__all__ = ["ARRAYS", "GameRows", "LabelTask", "label_shard", "phase_of", "play_game"]

ARRAYS: dict[str, type] = {
    "player": np.uint64,
    "opponent": np.uint64,
    "empties": np.int8,
    "ply": np.int16,
    "final": np.int8,
    "exact": np.int8,
    "search": np.float32,
    "game": np.int64,
}
"""The per-position arrays of a shard and their dtypes: bitboards from the side to move,
empty squares, game ply (from the start position), the three labels (``exact`` is
``NO_SCORE`` off the solved tail; ``search`` is NaN when the run has no search label) and the
run-wide game index."""

PHASE_WIDTH = 5
"""Empty squares per phase of the summaries (phase ``k``: ``5k+1 .. 5k+5`` empties, as the
pattern evaluation's phases)."""


def phase_of(empties: np.ndarray) -> np.ndarray:
    """The summary phase of each number of empty squares."""
    return np.maximum(0, (np.asarray(empties, dtype=np.int64) - 1) // PHASE_WIDTH)


@dataclass
class GameRows:
    """The kept positions of one game, built while it is played."""

    player: list[int] = field(default_factory=list)
    opponent: list[int] = field(default_factory=list)
    empties: list[int] = field(default_factory=list)
    ply: list[int] = field(default_factory=list)
    black: list[bool] = field(default_factory=list)
    exact: list[int] = field(default_factory=list)
    search: list[float] = field(default_factory=list)

    def add(self, board: Board, ply: int, exact: int, score: float) -> None:
        self.player.append(board.player)
        self.opponent.append(board.opponent)
        self.empties.append(board.num_empties)
        self.ply.append(ply)
        self.black.append(board.turn == BLACK)
        self.exact.append(exact)
        self.search.append(score)


@dataclass
class _Engine:
    """The searches of one worker: the move search's table (cleared per game), the solver's
    and a small one cleared before every label search."""

    cfg: LabelledConfig
    evaluation: Evaluation
    table: TranspositionTable
    solver_table: TranspositionTable
    label_table: TranspositionTable
    seconds: dict[str, float]

    @classmethod
    def of(cls, cfg: LabelledConfig) -> _Engine:
        name = cfg.search.evaluation
        ev = default_evaluation(8) if name in ("auto", "patterns") else evaluation_or_weights(name)
        bits = cfg.search.table_bits
        return cls(
            cfg,
            ev,
            TranspositionTable(bits),
            TranspositionTable(min(22, max(14, cfg.labels.exact_empties + 1))),
            TranspositionTable(MIDGAME_MIN_BITS),
            {"play": 0.0, "solve": 0.0, "search": 0.0},
        )

    def shallow(self, board: Board, depth: int) -> float:
        """A ``depth``-ply search score of ``board`` from an empty table (the final score of a
        finished game)."""
        if board.is_game_over():
            return float(board.score())
        self.label_table.clear()
        return search(board, depth=depth, evaluation=self.evaluation, table=self.label_table).score

    def best_move(self, board: Board, seed: int) -> int:
        s = self.cfg.search
        return search(
            board,
            depth=s.depth,
            max_nodes=s.nodes or None,
            evaluation=self.evaluation,
            table=self.table,
            seed=seed,
        ).best_move

    def softmax_move(self, board: Board, rng: np.random.Generator) -> int:
        """A move drawn from the softmax of its ``softmax_depth``-ply scores."""
        r = self.cfg.randomise
        actions = board.legal_actions()
        scores = np.array([-self.shallow(board.play(a), r.softmax_depth) for a in actions])
        weights = np.exp((scores - scores.max()) / r.temperature)
        return actions[int(rng.choice(len(actions), p=weights / weights.sum()))]


def _timed(seconds: dict[str, float], part: str, t0: float) -> float:
    now = time.process_time()
    seconds[part] += now - t0
    return now


def play_game(
    engine: _Engine, board: Board, ply: int, rng: np.random.Generator
) -> tuple[GameRows, int]:
    """Play one game from ``board`` (``ply`` plies into the game) and return its kept rows and
    black's final disc difference."""
    cfg = engine.cfg
    lab, r = cfg.labels, cfg.randomise
    engine.table.clear()
    engine.solver_table.clear()
    seconds = engine.seconds
    rows = GameRows()
    move_seed = int(rng.integers(2**62))
    random_left = r.random_plies
    t = time.process_time()

    def keep(board: Board, exact: int) -> None:
        nonlocal t
        if not lab.min_empties <= board.num_empties <= lab.max_empties:
            return
        score = float("nan")
        if lab.search_depth:
            t = _timed(seconds, "play" if exact == NO_SCORE else "solve", t)
            score = engine.shallow(board, lab.search_depth)
            t = _timed(seconds, "search", t)
        rows.add(board, ply, exact, score)

    while not board.is_game_over() and board.num_empties > lab.exact_empties:
        if board.must_pass():
            board = board.play(board.pass_action)
            continue
        keep(board, NO_SCORE)
        if random_left > 0:
            actions = board.legal_actions()
            move = actions[int(rng.integers(len(actions)))]
            random_left -= 1
        elif r.temperature > 0 and r.first_ply <= ply <= r.last_ply:
            move = engine.softmax_move(board, rng)
        else:
            move = engine.best_move(board, move_seed)
        board = board.play(move)
        ply += 1
    t = _timed(seconds, "play", t)
    while not board.is_game_over():
        solved = solve(board, table=engine.solver_table, evaluation=engine.evaluation)
        value = solved.score
        for move in solved.pv:
            if not board.must_pass():
                keep(board, value)
            ply += move != board.pass_action
            board = board.play(move)
            value = -value
        if board.is_game_over() and board.score() != value:
            raise OthelloError(
                f"the solver's line ends at {board.score()}, not its score {value}",
                where=board.obf(),
            )
    _timed(seconds, "solve", t)
    final = board.score() if board.turn == BLACK else -board.score()
    return rows, final


@dataclass(frozen=True)
class LabelTask:
    """One shard to generate: shard ``index`` of a run with ``config`` (the object itself; only
    a process boundary pickles it), seeded by ``seed``; its games are numbered from
    ``first_game`` across the run."""

    index: int
    seed: int
    first_game: int
    config: LabelledConfig


def label_shard(
    task: LabelTask, progress: Callable[[int], None] | None = None
) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """Play and label one shard's games; returns its arrays (``ARRAYS``) and statistics
    (positions per phase, CPU seconds per part). ``progress`` hears the games done so far."""
    cfg = task.config
    book = opening_book(cfg.openings)
    engine = _Engine.of(cfg)
    cpu = time.process_time()
    columns: dict[str, list[Any]] = {name: [] for name in ARRAYS}
    sources: dict[str, int] = {}
    for g in range(cfg.games_per_shard):
        rng = np.random.default_rng([task.seed, g])
        board, ply, source = draw_opening(book, cfg.openings, rng)
        sources[source] = sources.get(source, 0) + 1
        rows, final = play_game(engine, board, ply, rng)
        sign = np.where(np.array(rows.black, dtype=bool), 1, -1)
        columns["player"] += rows.player
        columns["opponent"] += rows.opponent
        columns["empties"] += rows.empties
        columns["ply"] += rows.ply
        columns["final"] += (sign * final).tolist()
        columns["exact"] += rows.exact
        columns["search"] += rows.search
        columns["game"] += [task.first_game + g] * len(rows.player)
        if progress is not None:
            progress(g + 1)
    arrays = {name: np.array(columns[name], dtype=dtype) for name, dtype in ARRAYS.items()}
    phases = np.bincount(phase_of(arrays["empties"]), minlength=12)
    exact_phases = np.bincount(
        phase_of(arrays["empties"][arrays["exact"] != NO_SCORE]), minlength=12
    )
    stats = {
        "cpu_seconds": time.process_time() - cpu,
        "seconds": dict(engine.seconds),
        "positions_per_phase": phases.tolist(),
        "exact_per_phase": exact_phases.tolist(),
        "exact_positions": int((arrays["exact"] != NO_SCORE).sum()),
        "openings": sources,
    }
    return arrays, stats
