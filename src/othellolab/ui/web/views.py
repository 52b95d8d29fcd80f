"""What the web board shows: a player's report as an ``Evaluation`` and a position's moves as
``MoveInfo``, built from the game's own views (``Game.board_view``, ``move_parts``, its move
names and scores), never from the game's name."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from othellolab.core import PlayResult, Score
from othellolab.core.games import Game
from othellolab.ui.web.models import Evaluation, MoveEval, MoveInfo


def move_info(rules: Game, position: Any, action: int) -> MoveInfo:
    """A move's name and where it acts on the board drawn."""
    parts = rules.move_parts(position, action)
    return MoveInfo(
        name=rules.move_name(position, action),
        from_=parts.get("from"),
        to=parts.get("to"),
        drop=parts.get("drop"),
    )


def must_pass(rules: Game, position: Any) -> bool:
    """Whether the side to move's one legal move is the game's pass."""
    return rules.pass_action is not None and position.legal_actions() == [rules.pass_action]


def chooses(rules: Game, position: Any) -> bool:
    """Whether the side to move has a choice to make: a legal move that is not a forced pass."""
    legal = position.legal_actions()
    return bool(legal) and not (rules.pass_action is not None and legal == [rules.pass_action])


def final_score(rules: Game, position: Any) -> int | float:
    """The final score of a finished game for the side to move; 0 when a rule over the game's
    history (animal shogi's repetition) ended it, which the rules kernel does not see."""
    p, o = position.state
    score = rules.result(p, o)
    return 0 if score is None else score


def normalised(rules: Game, score: Score) -> float:
    """A player's score as a value in [-1, 1] for the side to move."""
    value = float(score.value)
    if score.unit != "result":
        value /= rules.score_scale
    return max(-1.0, min(1.0, value)) if math.isfinite(value) else 0.0


def terminal_value(rules: Game, position: Any) -> float:
    """The value in [-1, 1] of a finished game for the side to move."""
    return max(-1.0, min(1.0, float(final_score(rules, position)) / rules.score_scale))


def _number(info: Mapping[str, Any], key: str) -> float | None:
    value = info.get(key)
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
        return None
    value = float(value)
    return value if math.isfinite(value) else None


def _actions(table: object) -> dict[int, float]:
    """An ``{action: number}`` table from a player's info, finite numbers only."""
    if not isinstance(table, Mapping):
        return {}
    out = {}
    for a, v in table.items():
        number = isinstance(v, int | float | np.integer | np.floating)
        if isinstance(a, int | np.integer) and number and math.isfinite(float(v)):
            out[int(a)] = float(v)
    return out


def _says(move: MoveEval) -> bool:
    return any(x is not None for x in (move.prior, move.visits, move.q, move.score))


def evaluation(
    rules: Game,
    position: Any,
    *,
    ply: int,
    by: str,
    player: str,
    result: PlayResult,
    pov: int,
    scores: Mapping[int, Score] | None = None,
) -> Evaluation:
    """A player's report on ``position`` (after ``ply`` moves), its value turned to side
    ``pov``; per legal move its policy share, visits and Q (tree searches' ``move_visits`` and
    ``move_q``) and ``scores`` (each move searched on its own), best first."""
    value = exact = win_prob = None
    unit = "discs"
    if result.score is not None:
        score = result.score if position.turn == pov else result.score.flipped()
        unit = "result" if score.unit == "result" else "discs"
        value = round(float(score.value), 3)
        exact = bool(score.exact)
        win_prob = None if score.win_prob is None else round(float(score.win_prob), 4)
    policy = None
    if result.policy is not None:
        p = np.asarray(result.policy, dtype=np.float64).ravel()
        if p.shape == (rules.n_actions,) and np.all(np.isfinite(p)):
            policy = [round(float(x), 4) for x in p]
    info = result.info or {}
    visits = _actions(info.get("move_visits"))
    q = _actions(info.get("move_q"))
    moves = []
    for a in position.legal_actions():
        s = (scores or {}).get(a)
        moves.append(
            MoveEval(
                move=rules.move_name(position, a),
                to=rules.move_parts(position, a).get("to"),
                prior=None if policy is None else policy[a],
                visits=None if a not in visits else int(visits[a]),
                q=q.get(a),
                score=None if s is None else round(float(s.value), 3),
                exact=bool(s is not None and s.exact),
            )
        )
    moves.sort(
        key=lambda m: (
            -(m.visits or 0),
            -(m.score if m.score is not None else -math.inf),
            -(m.prior or 0.0),
        )
    )
    pv = info.get("pv")
    depth, nodes = _number(info, "depth"), _number(info, "nodes")
    sims, seconds = _number(info, "simulations"), _number(info, "seconds")
    return Evaluation(
        ply=ply,
        by=by,  # type: ignore[arg-type]
        player=player,
        move=rules.move_name(position, int(result.move)),
        value=value,
        unit=unit,  # type: ignore[arg-type]
        exact=bool(exact),
        win_prob=win_prob,
        policy=policy,
        pv=[str(m) for m in pv][:40] if isinstance(pv, list | tuple) and pv else None,
        depth=None if depth is None else int(depth),
        nodes=None if nodes is None else int(nodes),
        simulations=None if sims is None else int(sims),
        seconds=None if seconds is None else round(seconds, 3),
        moves=moves if any(_says(m) for m in moves) else None,
    )
