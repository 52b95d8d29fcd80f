"""The strength ladder's ratings, shipped with the package for the web board's opponent list:
one rated setting per registered player (its default), from the tournament of docs/arena.md.

``export_ladder`` writes ``arena/data/ladder.json`` from a fit; ``shipped_ratings`` reads it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

from othellolab.arena.ratings import Ratings

LADDER_JSON = Path(__file__).with_name("data") / "ladder.json"

REPRESENTATIVES: dict[str, str] = {
    "random": "random",
    "greedy": "greedy",
    "montecarlo": "mc150",
    "mcts": "mcts1000",
    "policy": "policy",
    "value": "value",
    "alphabeta": "ab-default-1s",
}
"""Registered player -> the ladder label of its default setting (alphabeta's: the default
player as stage 3 played it, ``patterns-r1`` with multi-ProbCut at one second a move, endgame
solved from 18 empties, ``experiments/ladder/ladder-engine.toml``; the default solves from 20 since, which
the ladder has not replayed)."""


def export_ladder(
    ratings: Ratings,
    specs: Mapping[str, str],
    path: str | Path = LADDER_JSON,
    *,
    source: str = "docs/arena.md",
) -> dict[str, Any]:
    """Write the representatives' ratings (Elo, interval, games, spec) as JSON; returns it."""
    players = {}
    for name, label in REPRESENTATIVES.items():
        if label in ratings.labels:
            r = ratings[label]
            players[name] = {
                "label": label,
                "spec": specs[label],
                "elo": round(r.rating, 1),
                "low": round(r.low, 1),
                "high": round(r.high, 1),
                "games": r.games,
            }
    data = {
        "source": source,
        "anchor": ratings.anchor,
        "anchor_rating": ratings.anchor_rating,
        "confidence": ratings.confidence,
        "players": players,
    }
    from othellolab.core.files import atomic_writer

    Path(path).parent.mkdir(parents=True, exist_ok=True)
    with atomic_writer(path) as f:
        json.dump(data, f, indent=2)
        f.write("\n")
    shipped_ratings.cache_clear()
    return data


@cache
def shipped_ratings() -> dict[str, dict[str, Any]]:
    """Registered player name -> its ladder rating (``elo``, ``low``, ``high``, ``spec``,
    ``games``); empty when the package ships no ladder."""
    try:
        data = json.loads(LADDER_JSON.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    players = data.get("players", {})
    return dict(players) if isinstance(players, dict) else {}
