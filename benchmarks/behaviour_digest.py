"""Digests of behaviour that a refactor must not change: self-play records for fixed seeds and
configs (Othello 6x6 and 8x8, animal shogi; PUCT and Gumbel; rollouts, uniform priors and the
shipped networks), MCTS and alphazero player moves, and the shipped az-6x6's grades.

Run it on two commits and compare the JSON: every digest must match.

    python benchmarks/behaviour_digest.py --out before.json
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

import numpy as np


def _digest_arrays(arrays: dict[str, np.ndarray]) -> str:
    h = hashlib.sha256()
    for name in sorted(arrays):
        a = np.ascontiguousarray(arrays[name])
        h.update(name.encode())
        h.update(str(a.dtype).encode())
        h.update(str(a.shape).encode())
        h.update(a.tobytes())
    return h.hexdigest()[:16]


def _records(rec) -> str:  # type: ignore[no-untyped-def]
    fields = [
        "player",
        "opponent",
        "color",
        "policy",
        "value",
        "result",
        "score",
        "game",
        "ply",
        "full_search",
        "simulations",
        "solved",
        "moves",
        "length",
        "black_result",
        "black_score",
        "resigned",
        "resign_ply",
        "no_resign",
        "would_resign",
        "would_resign_ply",
        "false_resignation",
    ]
    return _digest_arrays({f: getattr(rec, f) for f in fields})


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    from othellolab.core import Board
    from othellolab.core.games import get_game
    from othellolab.nn.inference import NetworkEvaluator
    from othellolab.nn.pretrained import model_dir
    from othellolab.players import make_player
    from othellolab.players.evaluators import RandomRolloutEvaluator, UniformEvaluator
    from othellolab.training.selfplay.config import SelfPlayConfig
    from othellolab.training.selfplay.engine import play_games

    out: dict[str, str] = {}
    az6 = NetworkEvaluator.from_dir(model_dir("az-6x6"))
    shogi = NetworkEvaluator.from_dir(model_dir("az-animal-shogi"))
    cases = [
        (
            "selfplay-6x6-puct-az",
            az6,
            get_game("othello", size=6),
            dict(simulations=24, parallel=6, seed=3),
        ),
        (
            "selfplay-6x6-gumbel-az",
            az6,
            get_game("othello", size=6),
            dict(simulations=16, variant="gumbel", gumbel_actions=8, parallel=6, seed=4),
        ),
        (
            "selfplay-6x6-puct-pcr-solve",
            az6,
            get_game("othello", size=6),
            dict(simulations=24, full_share=0.5, fast_simulations=8, solve_empties=8, seed=5),
        ),
        (
            "selfplay-8x8-uniform",
            UniformEvaluator(),
            get_game("othello", size=8),
            dict(simulations=16, parallel=4, seed=6),
        ),
        (
            "selfplay-8x8-rollout-solve",
            RandomRolloutEvaluator(1, seed=2),
            get_game("othello", size=8),
            dict(simulations=16, parallel=3, solve_empties=10, seed=7),
        ),
        ("selfplay-shogi-puct-az", shogi, get_game("animal-shogi"), dict(simulations=16, seed=8)),
        (
            "selfplay-shogi-gumbel-az",
            shogi,
            get_game("animal-shogi"),
            dict(simulations=16, variant="gumbel", gumbel_actions=4, seed=9),
        ),
    ]
    for name, evaluator, game, cfg in cases:
        games = 6 if name.startswith("selfplay-6x6") else 3
        rec = play_games(evaluator, games, game=game, config=SelfPlayConfig(**cfg))
        out[name] = _records(rec)
        print(name, out[name], len(rec), flush=True)

    boards = [Board.from_transcript(t) for t in ("f5d6c3d3c4", "f5f6e6f4e3c5c4", "d3c3c4")]
    for spec in (
        "mcts:sims=200,seed=1",
        "mcts:sims=64,batch=8,seed=2",
        "alphazero:model=az-8x8-zero,sims=32",
    ):
        player = make_player(spec)
        moves = [int(player.choose(b).move) for b in boards]
        out[f"player {spec}"] = ",".join(map(str, moves))
        print(spec, moves, flush=True)
    b6 = [Board(size=6).play(m) for m in ("c2", "b3", "e4")]
    for spec in ("alphazero:model=az-6x6,sims=50", "alphazero:model=az-6x6,sims=50,endgame=10"):
        player = make_player(spec)
        moves = [int(player.choose(b).move) for b in b6]
        out[f"player {spec}"] = ",".join(map(str, moves))
        print(spec, moves, flush=True)

    from othellolab.players.search.solved6 import load_graded_set
    from othellolab.training.selfplay.grading import grade_evaluator

    entries = load_graded_set()[:150]
    grades = grade_evaluator(az6, get_game("othello", size=6), simulations=(0, 16), entries=entries)
    for sims, g in grades.items():
        out[f"grade az-6x6 sims={sims}"] = repr(g)
        print(sims, g, flush=True)
    Path(args.out).write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
