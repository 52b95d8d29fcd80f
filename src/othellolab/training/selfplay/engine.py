"""Batched self-play: hundreds of games advance together in one process, their search trees in
one ``Forest``, every batched step of every tree scored by one evaluator call.

``play_games(evaluator, games, size=..., config=...)`` plays ``games`` games, at most
``config.parallel`` at a time (a slot whose game ends starts the next one), and returns a
``SelfPlayRecords``: one row per searched position and one per game, as numpy arrays.

A move with a single legal action (a forced pass included) is played at once, without a
search, and gives no row. Every other move is searched (PUCT or Gumbel, full or fast under
playout-cap randomisation, see ``SelfPlayConfig``), or solved when the position is within
``solve_empties`` of the end (``training.selfplay.exact``), and gives a row: the position from
the side to move, the policy target, the root value, and, once the game is over, its result
and final disc difference from that side. A game that ends by resignation has the result of a
loss for the side that resigned and no disc difference (``NO_SCORE``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from othellolab.core import BLACK
from othellolab.core.games import Game, game_value, get_game
from othellolab.players.evaluators import Evaluator
from othellolab.training.selfplay.config import SelfPlayConfig
from othellolab.training.selfplay.exact import ExactEndgame
from othellolab.training.selfplay.records import (
    GAME_DTYPES,
    NO_SCORE,
    SelfPlayRecords,
    empty_positions,
)
from othellolab.training.selfplay.search import BatchSearch, SearchOutcome

__all__ = ["SelfPlay", "play_games"]


@dataclass
class _Game:
    """A game under way in a slot."""

    index: int
    player: int
    opponent: int
    color: int
    no_resign: bool
    moves: list[int] = field(default_factory=list)
    rows: list[tuple[int, int, int, np.ndarray, float, int, bool, int, bool]] = field(
        default_factory=list
    )
    low: list[int] = field(default_factory=lambda: [0, 0])
    would_resign: int = -1
    would_resign_ply: int = -1


class SelfPlay:
    """Plays self-play games with one evaluator on one game (an Othello board's size or a
    ``core.games.Game``; see ``play_games``)."""

    def __init__(
        self,
        evaluator: Evaluator,
        *,
        size: int | Game = 8,
        config: SelfPlayConfig | None = None,
    ) -> None:
        if not isinstance(size, Game) and size not in (4, 6, 8):
            raise ValueError(f"self-play: size must be 4, 6 or 8 or a Game, got {size!r}")
        self.evaluator = evaluator
        self.game = get_game(size)
        self.size = self.game.code
        self.config = config or SelfPlayConfig()

    def play(self, games: int, *, progress: Callable[[int], None] | None = None) -> SelfPlayRecords:
        """Play ``games`` games; ``progress(finished)`` is called after each game ends."""
        if isinstance(games, bool) or not isinstance(games, int) or games < 1:
            raise ValueError(f"self-play: games must be a positive integer, got {games!r}")
        t0 = time.perf_counter()
        cfg = self.config
        game_rules = self.game
        rng = np.random.default_rng(cfg.seed)
        slots = min(cfg.parallel, games)
        search = BatchSearch(self.evaluator, game_rules, slots, cfg, rng)
        exact = ExactEndgame(game_rules, cfg.solve_empties)
        running: list[_Game | None] = [None] * slots
        finished: list[_Game] = []
        final: dict[int, tuple[int, int, int, int]] = {}
        started = 0
        full_flags = np.zeros(slots, dtype=bool)
        start_p, start_o = game_rules.start()

        def new_game(slot: int) -> None:
            nonlocal started
            if started >= games:
                running[slot] = None
                return
            game = _Game(
                started, int(start_p), int(start_o), BLACK, rng.random() < cfg.no_resign_share
            )
            started += 1
            running[slot] = game
            search.forest.plant(
                np.array([slot]),
                np.array([game.player], np.uint64),
                np.array([game.opponent], np.uint64),
            )
            advance(slot)

        def end_game(slot: int, resigned: int) -> None:
            game = running[slot]
            assert game is not None
            if resigned >= 0:
                black_result = -1 if resigned == BLACK else 1
                black_score = NO_SCORE
            else:
                s = game_rules.result(game.player, game.opponent)
                assert s is not None
                black_score = s if game.color == BLACK else -s
                black_result = (black_score > 0) - (black_score < 0)
            final[game.index] = (
                black_result,
                black_score,
                resigned,
                len(game.moves) if resigned >= 0 else -1,
            )
            finished.append(game)
            if progress is not None:
                progress(len(finished))
            new_game(slot)

        def play_move(slot: int, action: int) -> None:
            game = running[slot]
            assert game is not None
            if cfg.reuse and cfg.variant == "puct":
                search.forest.advance(np.array([slot]), np.array([action]))
            game.player, game.opponent = game_rules.step(game.player, game.opponent, action)
            game.color ^= 1
            game.moves.append(action)
            if not (cfg.reuse and cfg.variant == "puct"):
                search.forest.plant(
                    np.array([slot]),
                    np.array([game.player], np.uint64),
                    np.array([game.opponent], np.uint64),
                )

        def advance(slot: int) -> None:
            """Play forced moves until a position needs a search (then start it) or the game
            ends (then start the next game in the slot)."""
            while True:
                game = running[slot]
                if game is None:
                    return
                legal = game_rules.legal_actions(game.player, game.opponent)
                if not legal:
                    end_game(slot, -1)
                    continue
                if len(legal) == 1:  # a forced move (an Othello pass among them)
                    play_move(slot, legal[0])
                    continue
                if exact.covers(game.player, game.opponent):
                    play_move(slot, solved_move(game))
                    continue
                full = cfg.full_share >= 1 or rng.random() < cfg.full_share
                full_flags[slot] = full
                search.start(slot, cfg.simulations_for(full), noise=full)
                return

        def solved_move(game: _Game) -> int:
            """Record the exact targets of the game's position; returns an optimal move."""
            found = exact.solve(game.player, game.opponent)
            target = np.zeros(game_rules.n_actions, dtype=np.float32)
            target[list(found.optimal)] = 1.0 / len(found.optimal)
            value = float(game_value(game_rules.code, float(found.score), cfg.score_value))
            row = (game.player, game.opponent, game.color, target, value, len(game.moves))
            game.rows.append((*row, True, 0, True))
            return int(found.optimal[int(rng.integers(len(found.optimal)))])

        def finish_search(slot: int, out: SearchOutcome) -> None:
            game = running[slot]
            assert game is not None
            ply = len(game.moves)
            game.rows.append(
                (
                    game.player,
                    game.opponent,
                    game.color,
                    out.target,
                    out.value,
                    ply,
                    bool(full_flags[slot]),
                    out.simulations,
                    out.solved,
                )
            )
            if cfg.resign_threshold > -1:
                if max(out.value, out.best_value) < cfg.resign_threshold:
                    game.low[game.color] += 1
                else:
                    game.low[game.color] = 0
                if game.low[game.color] >= cfg.resign_moves:
                    if not game.no_resign:
                        end_game(slot, game.color)
                        return
                    if game.would_resign < 0:
                        game.would_resign, game.would_resign_ply = game.color, ply
            play_move(slot, out.move)
            advance(slot)

        for slot in range(slots):
            new_game(slot)
        while search.active():
            for slot in search.step():
                game = running[slot]
                assert game is not None
                ply = len(game.moves)
                if cfg.variant == "puct":
                    sample = ply < cfg.temperature_plies
                else:
                    sample = cfg.gumbel_noise_plies is None or ply < cfg.gumbel_noise_plies
                out = search.outcome(int(slot), temperature=cfg.temperature if sample else 0.0)
                finish_search(int(slot), out)
        seconds = time.perf_counter() - t0
        return _records(finished, final, game_rules, search.evaluations, seconds)


def _records(
    finished: list[_Game],
    final: dict[int, tuple[int, int, int, int]],
    game: Game,
    evaluations: int,
    seconds: float,
) -> SelfPlayRecords:
    games = sorted(finished, key=lambda g: g.index)
    rows = [(g, r) for g in games for r in g.rows]
    n = len(rows)
    a = empty_positions(n, game.n_actions)
    player, opponent, color, policy = a["player"], a["opponent"], a["color"], a["policy"]
    value, result, score, game_index = a["value"], a["result"], a["score"], a["game"]
    ply, full, sims, solved = a["ply"], a["full_search"], a["simulations"], a["solved"]
    for i, (g, (p, o, c, target, v, k, f, s, exact)) in enumerate(rows):
        black_result, black_score, _, _ = final[g.index]
        sign = 1 if c == BLACK else -1
        player[i], opponent[i], color[i], policy[i], value[i] = p, o, c, target, v
        result[i] = sign * black_result
        score[i] = NO_SCORE if black_score == NO_SCORE else sign * black_score
        game_index[i], ply[i], full[i], sims[i], solved[i] = g.index, k, f, s, exact
    longest = max((len(g.moves) for g in games), default=0)
    moves = np.full((len(games), max(longest, 1)), -1, dtype=GAME_DTYPES["moves"])
    for j, g in enumerate(games):
        moves[j, : len(g.moves)] = g.moves
    black_result = np.array([final[g.index][0] for g in games], dtype=GAME_DTYPES["black_result"])
    black_score = np.array([final[g.index][1] for g in games], dtype=GAME_DTYPES["black_score"])
    resigned = np.array([final[g.index][2] for g in games], dtype=GAME_DTYPES["resigned"])
    would = np.array([g.would_resign for g in games], dtype=GAME_DTYPES["would_resign"])
    lost = np.array(
        [
            g.would_resign >= 0 and final[g.index][0] == (-1 if g.would_resign == BLACK else 1)
            for g in games
        ],
        dtype=bool,
    )
    return SelfPlayRecords(
        size=game.code,
        game_key=game.key,
        player=player,
        opponent=opponent,
        color=color,
        policy=policy,
        value=value,
        result=result,
        score=score,
        game=game_index,
        ply=ply,
        full_search=full,
        simulations=sims,
        solved=solved,
        moves=moves,
        length=np.array([len(g.moves) for g in games], dtype=GAME_DTYPES["length"]),
        black_result=black_result,
        black_score=black_score,
        resigned=resigned,
        resign_ply=np.array([final[g.index][3] for g in games], dtype=GAME_DTYPES["resign_ply"]),
        no_resign=np.array([g.no_resign for g in games], dtype=GAME_DTYPES["no_resign"]),
        would_resign=would,
        would_resign_ply=np.array(
            [g.would_resign_ply for g in games], dtype=GAME_DTYPES["would_resign_ply"]
        ),
        false_resignation=(would >= 0) & ~lost,
        evaluations=evaluations,
        seconds=seconds,
        info={"positions_per_second": n / seconds if seconds > 0 else float("inf")},
    )


def play_games(
    evaluator: Evaluator,
    games: int,
    *,
    size: int | Game = 8,
    config: SelfPlayConfig | None = None,
    progress: Callable[[int], None] | None = None,
) -> SelfPlayRecords:
    """Play ``games`` self-play games with ``evaluator`` on ``size`` x ``size`` Othello or the
    ``Game`` given (at most ``config.parallel`` at once) and return their records.

    >>> from othellolab.players import UniformEvaluator
    >>> records = play_games(UniformEvaluator(), 4, size=4, config=SelfPlayConfig(simulations=8, seed=1))
    >>> records.games, len(records) > 0, records.policy.shape[1]
    (4, True, 17)
    """
    return SelfPlay(evaluator, size=size, config=config).play(games, progress=progress)
