"""What the hint player thinks beyond its move: a score for every legal move, each searched on
its own, and the analysis of a whole game (every position evaluated within a time cap, the
mistakes marked), for any game and any player that reports a score."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence
from typing import Any

from othellolab.core import Limit, Score
from othellolab.core.games import Game
from othellolab.players import Player
from othellolab.ui.web.models import AnalysedMove, Analysis
from othellolab.ui.web.views import final_score, normalised, terminal_value

VERDICTS = ((0.3, "blunder"), (0.12, "mistake"), (0.05, "inaccuracy"))
"""A move that loses at least this much value (on [-1, 1], for its mover) gets this mark:
on Othello's 8x8 board 0.05 is about 3 discs, 0.12 about 8, 0.3 about 19."""


def move_scores(rules: Game, position: Any, player: Player, limit: Limit) -> dict[int, Score]:
    """Each legal move's score for the side to move: the position after it searched by
    ``player`` (its score turned round), or its final score when the move ends the game. The
    moves share ``limit``'s time; a move whose search reports no score is left out."""
    legal = position.legal_actions()
    share = None if limit.max_time is None else limit.max_time / max(1, len(legal))
    each = dataclasses.replace(
        limit,
        time=None if share is None else share,
        max_time=share,
    )
    out: dict[int, Score] = {}
    for a in legal:
        if limit.stop is not None and limit.stop.is_set():
            break
        child = position.play(a)
        if child.is_game_over():
            score = final_score(rules, child)
            out[a] = Score(-float(score), exact=True)
            continue
        result = player.choose(child, each)
        if result.score is not None:
            out[a] = result.score.flipped()
    return out


def analyse(
    rules: Game,
    positions: Sequence[Any],
    actions: Sequence[int],
    player: Player,
    *,
    name: str,
    time_per_move: float,
    max_time: float,
    limit: Limit,
    clock: Callable[[], float] = time.perf_counter,
) -> Analysis:
    """Every position of a game (``positions[i]`` after ``actions[:i]``) evaluated by
    ``player`` within ``time_per_move`` seconds, for the first side; each move's loss is its
    mover's value before it less the value after it, marked by ``VERDICTS``. Stops after
    ``max_time`` seconds or at ``limit``'s stop signal, leaving the rest unevaluated."""
    t0 = clock()
    each = dataclasses.replace(limit, time=time_per_move, max_time=time_per_move)
    values: list[float | None] = []
    best: list[str | None] = []
    complete = True
    player.reset()
    for position in positions:
        stopped = limit.stop is not None and limit.stop.is_set()
        if stopped or clock() - t0 + time_per_move > max_time:
            complete = False
            break
        sign = 1.0 if position.turn == 0 else -1.0
        if position.is_game_over():
            values.append(sign * terminal_value(rules, position))
            best.append(None)
            continue
        result = player.choose(position, each)
        best.append(rules.move_name(position, int(result.move)))
        values.append(None if result.score is None else sign * normalised(rules, result.score))
    values += [None] * (len(positions) - len(values))
    best += [None] * (len(positions) - len(best))
    moves = []
    for i, a in enumerate(actions):
        position = positions[i]
        mover = 1.0 if position.turn == 0 else -1.0
        played = rules.move_name(position, a)
        before, after = values[i], values[i + 1]
        loss = verdict = None
        if before is not None and after is not None:
            loss = 0.0 if played == best[i] else max(0.0, mover * (before - after))
            verdict = next((v for bound, v in VERDICTS if loss >= bound), "good")
            loss = round(loss, 4)
        moves.append(
            AnalysedMove(
                ply=i,
                side=rules.side_names[position.turn],
                move=played,
                best=best[i],
                loss=loss,
                verdict=verdict,  # type: ignore[arg-type]
            )
        )
    return Analysis(
        player=name,
        time_per_move=time_per_move,
        values=[None if v is None else round(v, 4) for v in values],
        moves=moves,
        complete=complete,
        seconds=round(clock() - t0, 3),
    )
