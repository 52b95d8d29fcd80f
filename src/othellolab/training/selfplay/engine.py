"""Batched self-play: hundreds of games advance together in one process, their search trees in
one ``Forest``, every batched step of every tree scored by one evaluator call.

``play_games(evaluator, games, game=..., config=...)`` plays ``games`` games of any game of
``core.games``, at most
``config.parallel`` at a time (a slot whose game ends starts the next one), and returns a
``SelfPlayRecords``: one row per searched position and one per game, as numpy arrays.

A move with a single legal action (a forced pass included) is played at once, without a
search, and gives no row. Every other move is searched (PUCT or Gumbel, full or fast under
playout-cap randomisation, see ``SelfPlayConfig``), or solved when the position is within
``solve_empties`` of the end (``training.selfplay.exact``), and gives a row: the position from
the side to move, the policy target, the root value, and, once the game is over, its result
and final disc difference from that side. A game that ends by resignation has the result of a
loss for the side that resigned and no disc difference (``NO_SCORE``).

``SelfPlay.play`` is a loop of ``_Batch.step``: the games in flight are per-slot arrays
(position, colour, resignation counters) with each game's moves and rows, and each way a
game moves on is one method (``begin``, ``move``, ``solve``, ``advance``, ``conclude``,
``end``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from othellolab.core import BLACK
from othellolab.core.games import Game, get_game
from othellolab.players.evaluators import Evaluator
from othellolab.players.mcts.batch import BatchSearch, SearchOutcome
from othellolab.training.selfplay.config import SelfPlayConfig
from othellolab.training.selfplay.exact import ExactEndgame, leaf_solver
from othellolab.training.selfplay.records import (
    GAME_DTYPES,
    NO_SCORE,
    SelfPlayRecords,
    empty_positions,
)

__all__ = ["SelfPlay", "play_games"]


class _Row(NamedTuple):
    """A searched or solved position of a game in flight, with its targets (a row of the
    records once the game is over)."""

    player: int
    opponent: int
    color: int
    target: np.ndarray
    value: float
    ply: int
    full_search: bool
    simulations: int
    solved: bool


@dataclass(frozen=True)
class _Finished:
    """A game that is over: its index, moves and rows, and how it ended, for Black."""

    index: int
    moves: list[int]
    rows: list[_Row]
    black_result: int
    black_score: int
    final: tuple[int, int, int]
    """The final position from the side to move at the end, and that side's colour (-1: the
    game was resigned)."""
    resigned: int
    resign_ply: int
    no_resign: bool
    would_resign: int
    would_resign_ply: int

    @property
    def length(self) -> int:
        """Plies played."""
        return len(self.moves)

    @property
    def false_resignation(self) -> bool:
        """A side would have resigned (resignation was off) and then did not lose."""
        if self.would_resign < 0:
            return False
        return self.black_result != (-1 if self.would_resign == BLACK else 1)


class _Batch:
    """The games in flight, one per slot of the batched search, as arrays indexed by slot
    (``index`` -1: an empty slot), with each game's moves and rows so far.

    ``step`` advances the batch by one batched search step. The transitions of one slot:
    ``begin`` a game, ``move`` (play an action), ``solve`` (an exact position's targets and
    move), ``advance`` (through the moves that need no search, to the next search),
    ``conclude`` (a finished search: its row, then resign or move), ``end`` (a game is over).
    """

    def __init__(
        self,
        evaluator: Evaluator,
        rules: Game,
        config: SelfPlayConfig,
        games: int,
        progress: Callable[[int], None] | None,
    ) -> None:
        self.rules = rules
        self.config = config
        self.games = games
        self.progress = progress
        self.rng = np.random.default_rng(config.seed)
        slots = min(config.parallel, games)
        self.search = BatchSearch(
            evaluator, rules, slots, config.search, self.rng, leaf_values=leaf_solver(rules, config)
        )
        self.exact = ExactEndgame(rules, config.solve_empties)
        self.start_position = rules.start()
        self.reuse = config.reuse and config.variant == "puct"
        self.started = 0
        self.finished: list[_Finished] = []
        self.index = np.full(slots, -1, dtype=np.int64)
        self.player = np.zeros(slots, dtype=np.uint64)
        self.opponent = np.zeros(slots, dtype=np.uint64)
        self.color = np.zeros(slots, dtype=np.int8)
        self.no_resign = np.zeros(slots, dtype=bool)
        self.full = np.zeros(slots, dtype=bool)
        """Whether the search under way is a full one (playout-cap randomisation)."""
        self.low = np.zeros((slots, 2), dtype=np.int64)
        """Consecutive searched moves of each colour with a value below the resign threshold."""
        self.would_resign = np.full(slots, -1, dtype=np.int64)
        self.would_resign_ply = np.full(slots, -1, dtype=np.int64)
        self.moves: list[list[int]] = [[] for _ in range(slots)]
        self.rows: list[list[_Row]] = [[] for _ in range(slots)]

    def position(self, slot: int) -> tuple[int, int]:
        """The position of ``slot``'s game, from the side to move."""
        return int(self.player[slot]), int(self.opponent[slot])

    def plant(self, slot: int) -> None:
        """Make ``slot``'s position the root of a new search tree."""
        p, o = self.position(slot)
        self.search.forest.plant(
            np.array([slot]), np.array([p], np.uint64), np.array([o], np.uint64)
        )

    # transitions -----------------------------------------------------------------------------

    def fill(self) -> None:
        """Start a game in every slot and advance each to its first search."""
        for slot in range(self.index.shape[0]):
            if self.begin(slot):
                self.advance(slot)

    def step(self) -> bool:
        """One batched step of every search under way; each slot whose search finished plays
        on to its next search. False, with nothing done, once every game is over."""
        if not self.search.active():
            return False
        for slot in self.search.step():
            self.conclude(int(slot))
        return True

    def begin(self, slot: int) -> bool:
        """Start the next game in ``slot`` (whether it never resigns is drawn first); False,
        and the slot is empty, when every game has started."""
        if self.started >= self.games:
            self.index[slot] = -1
            return False
        self.no_resign[slot] = self.rng.random() < self.config.no_resign_share
        self.index[slot] = self.started
        self.started += 1
        self.player[slot], self.opponent[slot] = self.start_position
        self.color[slot] = BLACK
        self.low[slot] = 0
        self.would_resign[slot] = self.would_resign_ply[slot] = -1
        self.moves[slot] = []
        self.rows[slot] = []
        self.plant(slot)
        return True

    def move(self, slot: int, action: int) -> None:
        """Play ``action`` in ``slot``'s game; its tree follows (the subtree kept with
        ``reuse`` under PUCT, a new root otherwise)."""
        if self.reuse:
            self.search.forest.advance(np.array([slot]), np.array([action]))
        self.player[slot], self.opponent[slot] = self.rules.step(*self.position(slot), action)
        self.color[slot] ^= 1
        self.moves[slot].append(action)
        if not self.reuse:
            self.plant(slot)

    def solve(self, slot: int) -> int:
        """Record the exact targets of ``slot``'s position; returns an optimal move, drawn
        among the optimal ones."""
        p, o = self.position(slot)
        found = self.exact.solve(p, o)
        target = np.zeros(self.rules.n_actions, dtype=np.float32)
        target[list(found.optimal)] = 1.0 / len(found.optimal)
        value = self.rules.value(float(found.score), self.config.score_value)
        ply = len(self.moves[slot])
        self.rows[slot].append(_Row(p, o, int(self.color[slot]), target, value, ply, True, 0, True))
        return int(found.optimal[int(self.rng.integers(len(found.optimal)))])

    def advance(self, slot: int) -> None:
        """Play ``slot``'s moves that need no search (a single legal action, a forced pass
        among them, or a solved position) until one does, then start its search; a game that
        ends on the way makes way for the next one (none left: the slot empties).

        That search starts once more for each game that ended on the way, each start drawing
        its playout cap again: the order of random draws of the engine's first, recursive
        form, kept so that a seed still plays the same games."""
        cfg = self.config
        starts = 1
        while True:
            p, o = self.position(slot)
            legal = self.rules.legal_actions(p, o)
            if not legal:
                self.end(slot, -1)
                if not self.begin(slot):
                    return
                starts += 1
            elif len(legal) == 1:
                self.move(slot, legal[0])
            elif self.exact.covers(p, o):
                self.move(slot, self.solve(slot))
            else:
                for _ in range(starts):
                    full = cfg.full_share >= 1 or self.rng.random() < cfg.full_share
                    self.full[slot] = full
                    self.search.start(
                        slot,
                        cfg.simulations_for(full),
                        noise=full,
                        forced_k=cfg.forced_for(full),
                        prune=full and cfg.prune_policy_target,
                    )
                return

    def conclude(self, slot: int) -> None:
        """Take ``slot``'s finished search (its move sampled within the temperature or
        Gumbel-noise plies): record its row, then resign for the side to move or play the
        move and advance to the next search."""
        cfg = self.config
        ply = len(self.moves[slot])
        if cfg.variant == "puct":
            sample = ply < cfg.temperature_plies
        else:
            sample = cfg.gumbel_noise_plies is None or ply < cfg.gumbel_noise_plies
        out = self.search.outcome(slot, temperature=cfg.temperature if sample else 0.0)
        color = int(self.color[slot])
        p, o = self.position(slot)
        full = bool(self.full[slot])
        row = _Row(p, o, color, out.target, out.value, ply, full, out.simulations, out.solved)
        self.rows[slot].append(row)
        if self.resigns(slot, out, ply):
            self.end(slot, color)
            if self.begin(slot):
                self.advance(slot)
            return
        self.move(slot, out.move)
        self.advance(slot)

    def resigns(self, slot: int, out: SearchOutcome, ply: int) -> bool:
        """Count the searched move of the side to move against the resign threshold; whether
        it resigns now (with resignation off, the first time it would have is noted)."""
        cfg = self.config
        if cfg.resign_threshold <= -1:
            return False
        color = int(self.color[slot])
        if max(out.value, out.best_value) < cfg.resign_threshold:
            self.low[slot, color] += 1
        else:
            self.low[slot, color] = 0
        if self.low[slot, color] < cfg.resign_moves:
            return False
        if not self.no_resign[slot]:
            return True
        if self.would_resign[slot] < 0:
            self.would_resign[slot], self.would_resign_ply[slot] = color, ply
        return False

    def end(self, slot: int, resigned: int) -> None:
        """``slot``'s game is over: resigned by the colour ``resigned``, or (-1) played to
        its end; it joins ``finished`` and ``progress`` hears of it."""
        moves = self.moves[slot]
        final = (*self.position(slot), -1 if resigned >= 0 else int(self.color[slot]))
        if resigned >= 0:
            black_result = -1 if resigned == BLACK else 1
            black_score = NO_SCORE
        else:
            s = self.rules.result(*self.position(slot))
            assert s is not None
            black_score = s if self.color[slot] == BLACK else -s
            black_result = (black_score > 0) - (black_score < 0)
        self.finished.append(
            _Finished(
                index=int(self.index[slot]),
                moves=moves,
                rows=self.rows[slot],
                black_result=black_result,
                black_score=black_score,
                final=final,
                resigned=resigned,
                resign_ply=len(moves) if resigned >= 0 else -1,
                no_resign=bool(self.no_resign[slot]),
                would_resign=int(self.would_resign[slot]),
                would_resign_ply=int(self.would_resign_ply[slot]),
            )
        )
        if self.progress is not None:
            self.progress(len(self.finished))


class SelfPlay:
    """Plays self-play games with one evaluator on one game (a ``core.games.Game`` or its
    name; see ``play_games``)."""

    def __init__(
        self,
        evaluator: Evaluator,
        *,
        game: Game | str | None = None,
        config: SelfPlayConfig | None = None,
    ) -> None:
        self.evaluator = evaluator
        self.game = get_game(game)
        self.config = config or SelfPlayConfig()

    def play(self, games: int, *, progress: Callable[[int], None] | None = None) -> SelfPlayRecords:
        """Play ``games`` games; ``progress(finished)`` is called after each game ends."""
        if isinstance(games, bool) or not isinstance(games, int) or games < 1:
            raise ValueError(f"self-play: games must be a positive integer, got {games!r}")
        t0 = time.perf_counter()
        batch = _Batch(self.evaluator, self.game, self.config, games, progress)
        batch.fill()
        while batch.step():
            pass
        seconds = time.perf_counter() - t0
        return _records(batch.finished, self.game, batch.search.evaluations, seconds)


def _records(
    finished: list[_Finished], game: Game, evaluations: int, seconds: float
) -> SelfPlayRecords:
    """The records of the finished games, in the order they started."""
    games = sorted(finished, key=lambda g: g.index)
    rows = [(g, r) for g in games for r in g.rows]
    n = len(rows)
    a = empty_positions(n, game.n_actions)
    player, opponent, color, policy = a["player"], a["opponent"], a["color"], a["policy"]
    value, result, score, game_index = a["value"], a["result"], a["score"], a["game"]
    ply, full, sims, solved = a["ply"], a["full_search"], a["simulations"], a["solved"]
    for i, (g, (p, o, c, target, v, k, f, s, exact)) in enumerate(rows):
        sign = 1 if c == BLACK else -1
        player[i], opponent[i], color[i], policy[i], value[i] = p, o, c, target, v
        result[i] = sign * g.black_result
        score[i] = NO_SCORE if g.black_score == NO_SCORE else sign * g.black_score
        game_index[i], ply[i], full[i], sims[i], solved[i] = g.index, k, f, s, exact
        fp, fo, final_color = g.final
        a["final_player"][i], a["final_opponent"][i] = fp, fo
        a["final_side"][i] = 0 if final_color < 0 else (1 if final_color == c else -1)
        a["next_action"][i] = g.moves[k + 1] if k + 1 < len(g.moves) else -1
    longest = max((len(g.moves) for g in games), default=0)
    moves = np.full((len(games), max(longest, 1)), -1, dtype=GAME_DTYPES["moves"])
    for j, g in enumerate(games):
        moves[j, : len(g.moves)] = g.moves

    def column(name: str) -> np.ndarray:
        return np.array([getattr(g, name) for g in games], dtype=GAME_DTYPES[name])

    return SelfPlayRecords(
        size=getattr(game, "size", 0),
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
        final_player=a["final_player"],
        final_opponent=a["final_opponent"],
        final_side=a["final_side"],
        next_action=a["next_action"],
        moves=moves,
        length=column("length"),
        black_result=column("black_result"),
        black_score=column("black_score"),
        resigned=column("resigned"),
        resign_ply=column("resign_ply"),
        no_resign=column("no_resign"),
        would_resign=column("would_resign"),
        would_resign_ply=column("would_resign_ply"),
        false_resignation=column("false_resignation"),
        evaluations=evaluations,
        seconds=seconds,
        info={"positions_per_second": n / seconds if seconds > 0 else float("inf")},
    )


def play_games(
    evaluator: Evaluator,
    games: int,
    *,
    game: Game | str | None = None,
    config: SelfPlayConfig | None = None,
    progress: Callable[[int], None] | None = None,
) -> SelfPlayRecords:
    """Play ``games`` self-play games of ``game`` (a ``Game`` or a registered name; default
    8x8 Othello) with ``evaluator`` (at most ``config.parallel`` at once) and return their
    records.

    >>> from othellolab.core.games import get_game
    >>> from othellolab.players import UniformEvaluator
    >>> config = SelfPlayConfig(simulations=8, seed=1)
    >>> records = play_games(UniformEvaluator(), 4, game=get_game("othello", 4), config=config)
    >>> records.games, len(records) > 0, records.policy.shape[1]
    (4, True, 17)
    """
    return SelfPlay(evaluator, game=game, config=config).play(games, progress=progress)
