"""6x6 positions solved exactly, to grade 6x6 policies the way ``exact4`` grades 4x4 ones: the
share of positions where the policy's move is optimal (overall and by stage of the game), the
discs it gives away, and how it does when it plays the rest of the game against perfect play.

Two sets are shipped, both OBF lines (best move first, scores for the side to move):

* ``data/solved6x6.obf`` (``SOLVED_6X6``, built by ``examples/build_solved6x6.py``): 400
  positions from seeded random games, 8 to 20 squares empty, every move scored exactly.
* ``data/graded6x6.obf`` (``GRADED_6X6``, built by ``examples/build_graded6x6.py``, resumably):
  positions from varied games (a few random opening moves, then a per-game mix of alpha-beta
  at depth 1 to 4, greedy and random moves) at every stage from 32 empty squares (the start)
  down to 4, up to ``per_stage`` distinct positions (up to symmetry) per number of empties,
  each with two or more legal moves. At most ``exact_empties`` (22) empties every move has its
  exact score. Above that, an exact score of every move costs minutes, so the line lists only
  the optimal moves with the exact best score, found by one exact solve of the position and a
  null-window test of each move; a legal move a line does not list is worse than the best by
  an unknown number of discs. So a line lists either every legal move (all scored) or exactly
  the optimal ones.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from othellolab.config import check_count
from othellolab.core import Board
from othellolab.players.search.endgame import solve
from othellolab.players.search.evaluation import named_evaluation
from othellolab.players.search.midgame import search as midgame_search
from othellolab.players.search.table import TranspositionTable
from othellolab.records.obf import ObfEntry, format_obf_line, read_obf

SOLVED_6X6 = Path(__file__).resolve().parent / "data" / "solved6x6.obf"
"""The shipped set of solved 6x6 positions (8 to 20 empties, every move scored)."""

GRADED_6X6 = Path(__file__).resolve().parent / "data" / "graded6x6.obf"
"""The shipped graded 6x6 set: every stage from 32 to 4 empties, optimal moves known."""

GRADED_OUTCOMES = Path(__file__).resolve().parent / "data" / "graded6x6-outcomes.npz"
"""The game-theoretic result (win, draw or loss) after every legal move of every position of
the graded set, built by ``examples/build_graded6x6.py --outcomes`` (``build_outcomes``): the
set's lines above ``EXACT_EMPTIES`` list only the optimal moves, and whether a worse move still
wins is what a grade of "keeps the result" needs."""

UNKNOWN = -2
"""An outcome array's entry for an action that is not legal (or not solved)."""

EXACT_EMPTIES = 22
"""Up to this many empty squares the graded set scores every move exactly."""

STAGES = ((27, 32), (21, 26), (15, 20), (10, 14), (4, 9))
"""Stages of a 6x6 game by empty squares (inclusive ranges), from the opening to the end:
the grades are reported per stage as well as overall."""


def _move_score(
    board: Board,
    action: int,
    table: TranspositionTable | None,
    alpha: int = -64,
    beta: int = 64,
) -> int:
    """The exact score of ``action`` for the side to move of ``board`` (an opponent's pass
    followed), or a bound of it outside ``(alpha, beta)``."""
    child = board.play(action)
    if child.must_pass():
        return solve(child.play_pass(), alpha=alpha, beta=beta, table=table, pv=False).score
    return -solve(child, alpha=-beta, beta=-alpha, table=table, pv=False).score


def move_scores(board: Board, table: TranspositionTable | None = None) -> list[tuple[int, int]]:
    """Every legal move of ``board`` with its exact score for the side to move (passes of the
    opponent followed), best first (the lowest square among ties)."""
    out = [(a, _move_score(board, a, table)) for a in board.legal_actions()]
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


def optimal_moves(board: Board, best: int, table: TranspositionTable | None = None) -> list[int]:
    """The moves of ``board`` that keep its exact score ``best``, each found by a null-window
    test around ``best`` (far cheaper than scoring the move exactly)."""
    out = []
    for a in board.legal_actions():
        child = board.play(a)
        if child.must_pass():
            r = solve(child.play_pass(), alpha=best - 1, beta=best + 1, table=table, pv=False)
            ok = r.score >= best
        else:
            r = solve(child, alpha=-best - 1, beta=-best + 1, table=table, pv=False)
            ok = -r.score >= best
        if ok:
            out.append(a)
    return out


def solve_entry(
    board: Board, table: TranspositionTable | None = None, *, exact_empties: int = EXACT_EMPTIES
) -> ObfEntry:
    """``board`` with its moves graded: every move scored when at most ``exact_empties``
    squares are empty, else the optimal moves alone with the exact best score."""
    if board.num_empties <= exact_empties:
        return ObfEntry(board, tuple(move_scores(board, table)))
    best = solve(board, table=table, pv=False).score
    return ObfEntry(board, tuple((a, best) for a in optimal_moves(board, best, table)))


def canonical_key(board: Board) -> tuple[int, int]:
    """The smallest ``(player, opponent)`` over the 8 symmetries of ``board``: equal for
    positions that differ by a rotation or reflection."""
    return min((b.player, b.opponent) for b in board.symmetries())


def varied_position(empties: int, rng: np.random.Generator) -> Board | None:
    """A 6x6 position with ``empties`` empty squares from a game that looks like play: up to
    six random opening moves, then each move by alpha-beta (depth 1 to 4, the hand-written
    evaluation), the greedy rule or at random, in proportions drawn per game. ``None`` when
    the game ends first, or the position has fewer than two moves."""
    evaluation = named_evaluation("heuristic")
    table = TranspositionTable(16)
    weights = rng.random(3) * np.array([1.0, 0.4, 0.6])
    weights /= weights.sum()
    opening = int(rng.integers(0, min(6, 32 - empties) + 1))
    board = Board(size=6)
    ply = 0
    while board.num_empties > empties:
        if board.is_game_over():
            return None
        actions = board.legal_actions()
        kind = 2 if ply < opening else int(rng.choice(3, p=weights))
        if len(actions) == 1:
            move = actions[0]
        elif kind == 0:
            depth = int(rng.integers(1, 5))
            move = midgame_search(
                board,
                depth=depth,
                evaluation=evaluation,
                table=table,
                seed=int(rng.integers(2**31)),
            ).best_move
        elif kind == 1:
            flips = [len(board.flips(a)) for a in actions]
            top = max(flips)
            ties = [a for a, f in zip(actions, flips, strict=True) if f == top]
            move = ties[int(rng.integers(len(ties)))]
        else:
            move = actions[int(rng.integers(len(actions)))]
        board = board.play(move)
        ply += 1
    if board.is_game_over() or board.must_pass() or len(board.legal_actions()) < 2:
        return None
    return board


def build_graded_set(
    path: str | Path,
    *,
    per_stage: int = 100,
    stages: tuple[int, int] = (4, 32),
    seed: int = 0,
    exact_empties: int = EXACT_EMPTIES,
    attempts: int = 64,
    progress: Callable[[ObfEntry], None] | None = None,
) -> int:
    """Build (or finish) a graded 6x6 set in ``path``: up to ``per_stage`` distinct positions
    (up to symmetry) for each number of empties in ``stages`` (inclusive), from
    ``varied_position`` games, each graded by ``solve_entry``. The stages take turns, one
    position each, so that a set cut short is still spread over the game. Each position is
    appended (and flushed) as soon as it is solved, so a killed build loses at most the one in
    progress and a second call carries on where the file ends; a stage that yields no new
    position in ``attempts`` games is left short (the first stages hold only a few distinct
    positions). Returns the number of positions added."""
    check_count(per_stage, "per_stage", where="graded 6x6 set")
    lo, hi = stages
    if not 1 <= lo <= hi <= 32:
        raise ValueError(f"stages must be a range of empties within 1..32, got {stages}")
    path = Path(path)
    counts = dict.fromkeys(range(lo, hi + 1), 0)
    seen: set[tuple[int, int]] = set()
    if path.exists():
        _drop_partial_line(path)
        for entry in read_obf(path):
            seen.add(canonical_key(entry.board))
            if entry.board.num_empties in counts:
                counts[entry.board.num_empties] += 1
    else:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(
            "# Graded 6x6 positions (othellolab.players.search.solved6): every legal move with its"
            f" exact score up to {exact_empties} empties;\n# above, only the optimal moves, with"
            " the exact best score.\n"
        )
    table = TranspositionTable(22)
    exhausted: set[int] = set()
    added = 0
    with path.open("a", encoding="utf-8") as out:
        for slot in range(per_stage):
            for empties in range(lo, hi + 1):
                if counts[empties] > slot or empties in exhausted:
                    continue
                board = None
                for attempt in range(attempts):
                    rng = np.random.default_rng([seed, empties, slot, attempt])
                    found = varied_position(empties, rng)
                    if found is not None and canonical_key(found) not in seen:
                        board = found
                        break
                if board is None:
                    exhausted.add(empties)
                    continue
                entry = solve_entry(board, table, exact_empties=exact_empties)
                out.write(format_obf_line(entry) + "\n")
                out.flush()
                os.fsync(out.fileno())
                seen.add(canonical_key(board))
                counts[empties] += 1
                added += 1
                if progress is not None:
                    progress(entry)
    return added


def _drop_partial_line(path: Path) -> None:
    """Cut the unfinished last line (no newline yet) that a killed build may leave."""
    data = path.read_bytes()
    if data and not data.endswith(b"\n"):
        with path.open("r+b") as f:
            f.truncate(data.rfind(b"\n") + 1)


def load_solved_set(path: Path = SOLVED_6X6) -> list[ObfEntry]:
    """The positions of a solved set (the shipped one by default)."""
    return list(read_obf(path))


def load_graded_set(path: Path = GRADED_6X6) -> list[ObfEntry]:
    """The positions of the graded 6x6 set (the shipped one by default)."""
    return list(read_obf(path))


@dataclass(frozen=True)
class StageGrade:
    """The grade of a policy on the positions of one stage of the game: ``empties`` (the
    inclusive range of empty squares), ``positions`` there, ``optimal_share`` of them where
    its move keeps the exact score, and ``mean_loss`` (discs given away per move) over the
    ``scored`` positions whose every move has an exact score (``nan`` if none), and
    ``outcome_share`` of them where its move keeps the game-theoretic result (win, draw or
    loss; ``nan`` where the results of the moves are not known)."""

    empties: tuple[int, int]
    positions: int
    optimal_share: float
    scored: int
    mean_loss: float
    outcome_share: float = float("nan")


@dataclass(frozen=True)
class PositionGrade:
    """A policy on a solved set: ``optimal_share`` of ``positions`` where its move keeps the exact
    score, the discs it gives away per move (``mean_loss``, over the ``scored`` positions whose
    every move has an exact score: all of ``SOLVED_6X6``, those with at most ``EXACT_EMPTIES``
    empties in ``GRADED_6X6``), the same per stage (``stages``, see ``STAGES``), and, over the
    ``games`` played from the first positions with at most ``game_empties`` empties against a
    perfect opponent, the mean discs it ends below the positions' exact values
    (``mean_game_loss``, 0 for perfect play) and the share it plays without loss;
    ``outcome_share``: the share of the positions where its move keeps the game-theoretic
    result (win, draw or loss), known for the sets whose lines score every move and for the
    graded set through ``GRADED_OUTCOMES`` (``nan`` otherwise)."""

    optimal_share: float
    positions: int
    mean_loss: float
    games: int
    mean_game_loss: float
    perfect_games: float
    scored: int = 0
    stages: tuple[StageGrade, ...] = ()
    outcome_share: float = float("nan")

    def stage_table(self) -> str:
        """The grade per stage as a markdown table."""
        lines = [
            "| empties | positions | optimal | result kept | mean loss (scored positions) |",
            "|---|---|---|---|---|",
        ]

        def kept(share: float) -> str:
            return "-" if np.isnan(share) else f"{share:.1%}"

        for g in self.stages:
            loss = "-" if g.scored == 0 else f"{g.mean_loss:.2f} ({g.scored})"
            lines.append(
                f"| {g.empties[0]}-{g.empties[1]} | {g.positions} | {g.optimal_share:.1%} | "
                f"{kept(g.outcome_share)} | {loss} |"
            )
        loss = "-" if self.scored == 0 else f"{self.mean_loss:.2f} ({self.scored})"
        lines.append(
            f"| all | {self.positions} | {self.optimal_share:.1%} | {kept(self.outcome_share)} "
            f"| {loss} |"
        )
        return "\n".join(lines)


def move_grades(
    entries: list[ObfEntry], actions: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For each entry and chosen action: ``(optimal, loss, scored)``: whether the move keeps
    the exact score, the discs it gives away (valid where ``scored``: every move of the entry
    has an exact score). A move that is not legal is a ``ValueError``."""
    optimal = np.zeros(len(entries), dtype=bool)
    loss = np.zeros(len(entries), dtype=np.int64)
    scored = np.zeros(len(entries), dtype=bool)
    for i, (e, a) in enumerate(zip(entries, np.asarray(actions, dtype=np.int64), strict=True)):
        scores = e.scores()
        legal = e.board.legal_actions()
        a = int(a)
        if a not in legal:
            raise ValueError(f"the policy chose {a}, not a legal move of {e.board.obf()}")
        best = int(e.best_score or 0)
        scored[i] = len(scores) == len(legal)
        if a in scores:
            optimal[i] = scores[a] == best
            loss[i] = best - scores[a]
    return optimal, loss, scored


def _child_outcome(board: Board, action: int, table: TranspositionTable) -> int:
    """The game-theoretic result for the side to move of ``board`` after ``action`` (+1 win,
    0 draw, -1 loss), by one null-window solve around 0 (scores are even, so the window
    (-1, 1) tells the three apart)."""
    return int(np.sign(_move_score(board, action, table, -1, 1)))


def build_outcomes(
    entries: list[ObfEntry], *, progress: Callable[[int], None] | None = None
) -> np.ndarray:
    """``outcome[i, action]``: the result (+1, 0, -1) for entry ``i``'s side to move after each
    legal action, ``UNKNOWN`` for the others; from the line's scores where it lists the move,
    else solved (``progress(i)`` after each entry)."""
    size = entries[0].board.size if entries else 6
    out = np.full((len(entries), size * size + 1), UNKNOWN, dtype=np.int8)
    table = TranspositionTable(22)
    for i, e in enumerate(entries):
        scores = e.scores()
        for a in e.board.legal_actions():
            out[i, a] = np.sign(scores[a]) if a in scores else _child_outcome(e.board, a, table)
        if progress is not None:
            progress(i)
    return out


def save_outcomes(path: Path, entries: list[ObfEntry], outcome: np.ndarray) -> None:
    """Write the outcomes of ``entries`` (their positions beside them) as a ``.npz``, by one
    rename."""
    from othellolab.core.files import atomic_writer

    player = np.array([e.board.player for e in entries], dtype=np.uint64)
    opponent = np.array([e.board.opponent for e in entries], dtype=np.uint64)
    with atomic_writer(path, binary=True) as f:
        np.savez_compressed(f, player=player, opponent=opponent, outcome=outcome)


@functools.cache
def outcome_table(path: Path = GRADED_OUTCOMES) -> dict[tuple[int, int], np.ndarray]:
    """The outcomes of a file by position (``(player, opponent)`` bitboards); empty when the file
    is absent. A file whose arrays do not agree is a ``ValueError`` naming it."""
    if not path.is_file():
        return {}
    try:
        with np.load(path, allow_pickle=False) as z:
            player, opponent, outcome = z["player"], z["opponent"], z["outcome"]
    except (OSError, KeyError, ValueError) as e:
        raise ValueError(f"{path}: not an outcomes file ({e})") from None
    if not (len(player) == len(opponent) == len(outcome)) or outcome.ndim != 2:
        raise ValueError(f"{path}: player, opponent and outcome rows differ")
    if outcome.shape[1] != 37:
        raise ValueError(f"{path}: {outcome.shape[1]} actions a row, not 37 (6x6 and a pass)")
    return {(int(p), int(o)): row for p, o, row in zip(player, opponent, outcome, strict=True)}


def outcome_kept(entries: list[ObfEntry], actions: np.ndarray) -> np.ndarray:
    """For each entry and chosen action: 1.0 if the move keeps the position's game-theoretic
    result, 0.0 if it does not, NaN where the moves' results are unknown (a line that lists
    only the optimal moves of a position ``GRADED_OUTCOMES`` lacks)."""
    table = outcome_table()
    kept = np.full(len(entries), np.nan)
    for i, (e, a) in enumerate(
        zip(entries, np.asarray(actions, dtype=np.int64).tolist(), strict=True)
    ):
        best = int(np.sign(e.best_score or 0))
        scores = e.scores()
        if a in scores:  # every move scored, or an optimal one
            kept[i] = float(np.sign(scores[a]) == best)
            continue
        row = table.get((e.board.player, e.board.opponent))
        if row is not None and row[a] != UNKNOWN:
            kept[i] = float(row[a] == best)
    return kept


def _share(values: np.ndarray) -> float:
    """The mean of the known values (NaN if any is unknown: a share over part of a set would
    not compare with one over all of it)."""
    return float("nan") if len(values) == 0 or np.isnan(values).any() else float(values.mean())


def grade_positions(
    entries: list[ObfEntry],
    choose: Callable[[np.ndarray, np.ndarray], np.ndarray],
    *,
    games: int = 50,
    game_empties: int = 20,
) -> PositionGrade:
    """Grade ``choose(player, opponent) -> actions`` (arrays of bitboards, one call for all the
    positions) on ``entries`` (lines that list every move, or only the optimal ones, see the
    module's docstring); then play it to the end from the first ``games`` positions with at
    most ``game_empties`` empty squares against the solver, which plays the lowest of its
    optimal moves."""
    if not entries:
        raise ValueError("no positions to grade on")
    player = np.array([e.board.player for e in entries], dtype=np.uint64)
    opponent = np.array([e.board.opponent for e in entries], dtype=np.uint64)
    actions = np.asarray(choose(player, opponent), dtype=np.int64)
    if actions.shape != (len(entries),):
        raise ValueError(
            f"the policy returned {actions.shape} actions for {len(entries)} positions"
        )
    optimal, loss, scored = move_grades(entries, actions)
    kept = outcome_kept(entries, actions)
    empties = np.array([e.board.num_empties for e in entries])
    stages = []
    for lo, hi in STAGES:
        here = (empties >= lo) & (empties <= hi)
        if here.any():
            both = here & scored
            stages.append(
                StageGrade(
                    (lo, hi),
                    int(here.sum()),
                    float(optimal[here].mean()),
                    int(both.sum()),
                    float(loss[both].mean()) if both.any() else float("nan"),
                    _share(kept[here]),
                )
            )
    table = TranspositionTable(20)
    losses = []
    starts = [e for e in entries if e.board.num_empties <= game_empties][: max(games, 0)]
    for e in starts:
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
        optimal_share=float(optimal.mean()),
        positions=len(entries),
        mean_loss=float(loss[scored].mean()) if scored.any() else float("nan"),
        games=len(losses),
        mean_game_loss=float(np.mean(losses)) if losses else float("nan"),
        perfect_games=float(np.mean(np.array(losses) == 0)) if losses else float("nan"),
        scored=int(scored.sum()),
        stages=tuple(stages),
        outcome_share=_share(kept),
    )
