"""Players driven by a trained network directory: ``policy`` (the policy head), ``value`` (one
ply of search on the value head) and ``alphazero`` (the network inside MCTS: a PUCT or Gumbel
root with the policy head's priors and the value head's values). Each plays the game its
network was trained for, any game of ``core.games``.

torch loads only when such a player is built, never when this module is imported.
"""

from __future__ import annotations

import time as _time
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

import numpy as np

from othellolab.config.options import SEED, Option, checked_options, device_option
from othellolab.core import Board, ConfigError, Limit, OthelloError, PlayResult, Score
from othellolab.core.games import position_game, position_state
from othellolab.nn.pretrained import DEFAULT_MODEL, resolve
from othellolab.players.base import Player, playable_actions, uniform_policy
from othellolab.players.clock import move_limit, per_move, plan

_MODEL = Option(str, optional=True, model=True, help="model name or directory (none: the default)")
_DEVICE = Option(str, check=device_option, help="torch device: cpu, cuda, cuda:N or mps")
_CACHE = Option(int, 0, 1_000_000, help="positions remembered (0: no cache)")
_SYMMETRIES = Option(
    int, 1, 8, help="average the network over this many of the game's symmetries (1: off)"
)

_LOADING = {"seed": SEED, "device": _DEVICE, "cache_size": _CACHE, "symmetries": _SYMMETRIES}
"""The options every network player ends with: its seed and how its network is loaded."""

if TYPE_CHECKING:
    from othellolab.nn.inference import NetworkEvaluator
    from othellolab.players.search import TranspositionTable

__all__ = ["AlphaZeroPlayer", "NetworkPlayer", "PolicyPlayer", "ValuePlayer"]


def _evaluator(
    model: str | Path | None, device: str, cache_size: int, **options: float
) -> NetworkEvaluator:
    from othellolab.nn.inference import NetworkEvaluator

    return NetworkEvaluator.from_dir(
        resolve(model), device=device, cache_size=cache_size, **options
    )


def _score(ev_value: float, ev_score: float | None, scale: float) -> Score:
    """A ``Score`` for the side to move: the score head's final score when the model has one,
    else the value scaled to the game's score range (``Game.score_scale``: Othello's discs, a
    heuristic); ``win_prob`` from the value."""
    value = ev_score * scale if ev_score is not None else ev_value * scale
    return Score(float(value), False, float(min(1.0, max(0.0, (ev_value + 1) / 2))))


class NetworkPlayer(Player):
    """What the network players share: their model (loaded once; ``model_name`` is how the user
    named it, never its path on this machine) and the check that a board fits it."""

    def _load(self, model: str | None, device: str, cache_size: int, **options: float) -> None:
        try:
            self.evaluator = _evaluator(model, device, cache_size, **options)
        except ConfigError as e:
            if e.option != "symmetries":
                raise
            raise ConfigError(e.what, where=f"player {self.name!r}", option=e.option) from None
        self.model = str(resolve(model))
        self.model_name = Path(model).name if model else DEFAULT_MODEL

    def _legal_actions(self, board: Board) -> list[int]:
        """The legal actions of ``board``, which must fit the network and not be over."""
        actions = playable_actions(board)
        self._check(board)
        return actions

    def _check(self, board: Board) -> None:
        """A ``ConfigError`` when the network was trained for another game or board size."""
        want, got = self.evaluator.config.rules, position_game(board)
        if want != got:
            raise ConfigError(
                f"the model {self.model_name!r} plays {want.label}, not {got.label}",
                where=f"player {self.name!r}",
                option="model",
            )


class PolicyPlayer(NetworkPlayer):
    """Plays the policy head's choice among the legal moves: the most probable one
    (``temperature=0``), or one drawn from the policy sharpened or flattened by ``temperature``.

    Illegal moves are masked out before choosing; the reported policy is the network's
    distribution over the legal actions.
    """

    name = "policy"
    games = None
    OPTIONS: ClassVar[dict[str, Option]] = {
        "model": _MODEL,
        "temperature": Option(float, 0, 100, help="0: the most probable move; > 0: sample"),
        **_LOADING,
    }

    @checked_options
    def __init__(
        self,
        *,
        model: str | None = None,
        temperature: float = 0.0,
        seed: int | None = None,
        device: str = "cpu",
        cache_size: int = 4096,
        symmetries: int = 1,
    ) -> None:
        self._load(model, device, cache_size, symmetries=symmetries)
        self.temperature = float(temperature)
        self.rng = np.random.default_rng(seed)

    def choose(self, board: Board, limit: Limit | None = None) -> PlayResult:
        actions = self._legal_actions(board)
        ev = self.evaluator.evaluate_boards([board])
        priors = ev.priors[0]
        legal = np.asarray(actions)
        if len(actions) == 1:
            move = actions[0]
        elif self.temperature == 0:
            move = int(legal[np.argmax(priors[legal])])
        else:
            logp = np.log(np.maximum(priors[legal].astype(np.float64), 1e-30)) / self.temperature
            w = np.exp(logp - logp.max())
            move = int(self.rng.choice(legal, p=w / w.sum()))
        score = _score(
            float(ev.values[0]),
            None if ev.scores is None else float(ev.scores[0]),
            position_game(board).score_scale,
        )
        return PlayResult(move, policy=priors, score=score, info={"prior": float(priors[move])})


class ValuePlayer(NetworkPlayer):
    """Plays the move whose resulting position the value head likes least for the opponent
    (one ply of search; finished games count at their exact result). Ties go to a seeded
    random choice."""

    name = "value"
    games = None
    OPTIONS: ClassVar[dict[str, Option]] = {
        "model": _MODEL,
        **_LOADING,
    }

    @checked_options
    def __init__(
        self,
        *,
        model: str | None = None,
        seed: int | None = None,
        device: str = "cpu",
        cache_size: int = 4096,
        symmetries: int = 1,
    ) -> None:
        self._load(model, device, cache_size, symmetries=symmetries)
        self.rng = np.random.default_rng(seed)

    def choose(self, board: Board, limit: Limit | None = None) -> PlayResult:
        actions = self._legal_actions(board)
        game = position_game(board)
        _, cp, co = game.children(*position_state(board))
        ev = self.evaluator.evaluate_full(cp, co, game)
        mine = -ev.values.astype(np.float64)
        best = mine.max()
        tied = [a for a, v in zip(actions, mine, strict=True) if v >= best - 1e-6]
        move = tied[int(self.rng.integers(len(tied)))]
        i = actions.index(move)
        sc = None if ev.scores is None else -float(ev.scores[i])
        return PlayResult(
            move,
            policy=uniform_policy(board, tied),
            score=_score(float(mine[i]), sc, game.score_scale),
            info={"values": dict(zip(actions, mine.round(4).tolist(), strict=True))},
        )


class AlphaZeroPlayer(NetworkPlayer):
    """The network inside Monte Carlo tree search, as AlphaZero plays: PUCT selection with the
    policy head's priors, the value head's value at the leaves (exact results at the end of the
    game), ``sims`` simulations or ``time`` seconds a move (a ``Limit`` overrides them),
    ``batch`` leaves per network call (with virtual loss), the most visited move
    (``temperature`` 0) or one sampled from the visits. The tree is kept between moves of a
    game (``reuse``). ``root=gumbel``: Gumbel AlphaZero's root instead (``MCTSPlayer``'s, over
    ``gumbel_actions`` actions). With ``endgame = K`` (a game with an exact endgame: Othello) a
    position of ``K`` or fewer empty squares is solved exactly instead (as self-play's
    ``solve_empties`` does), the search answering with the time left if a time limit ends the
    solve first; on a game clock it then plans its time as ``alphabeta`` does
    (``players.clock.plan``: more in the midgame, a reserve for the solve). ``score_utility`` > 0 backs up KataGo's score-aware utility instead of the
    value, as self-play's option of that name does (a model with a score output)."""

    name = "alphazero"
    games = None
    OPTIONS: ClassVar[dict[str, Option]] = {
        "model": _MODEL,
        "sims": Option(int, 1, 1_000_000, help="simulations per move"),
        "time": Option(
            float, 0.001, 3600, optional=True, unit="seconds", help="time per move instead of sims"
        ),
        "c": Option(float, 0, 100, optional=True, help="PUCT exploration constant"),
        "batch": Option(int, 1, 1024, help="leaves per network call"),
        "temperature": Option(float, 0, 100, help="0: the most visited move; > 0: sample"),
        "reuse": Option(bool, help="keep the tree between moves"),
        "root": Option(str, choices=("puct", "gumbel"), help="root: puct (AlphaZero) or gumbel"),
        "gumbel_actions": Option(int, 1, 65, help="actions sampled at a Gumbel root"),
        "endgame": Option(int, 0, 24, help="solve exactly from this many empties (0: never)"),
        "score_utility": Option(
            float, 0, 10, help="weight of KataGo's score utility in the values (0: off)"
        ),
        "score_utility_scale": Option(
            float, 0.001, 10, help="the utility's score scale, over the game's score range"
        ),
        **_LOADING,
    }

    @checked_options
    def __init__(
        self,
        *,
        model: str | None = None,
        sims: int = 200,
        time: float | None = None,
        c: float | None = None,
        batch: int = 8,
        temperature: float = 0.0,
        reuse: bool = True,
        root: str = "puct",
        gumbel_actions: int = 16,
        endgame: int = 0,
        score_utility: float = 0.0,
        score_utility_scale: float = 0.25,
        seed: int | None = None,
        device: str = "cpu",
        cache_size: int = 4096,
        symmetries: int = 1,
    ) -> None:
        from othellolab.players.mcts import MCTSPlayer

        self.endgame = endgame
        self.plans_time = endgame > 0  # without a solve, the clock's even share suits MCTS
        self._table: TranspositionTable | None = None
        self._load(
            model,
            device,
            cache_size,
            score_utility=score_utility,
            score_utility_scale=score_utility_scale,
            symmetries=symmetries,
        )
        rules = self.evaluator.config.rules
        if endgame and not rules.has_exact_endgame:
            raise ConfigError(
                f"the model {self.model_name!r} plays {rules.label}, which has no exact "
                f"endgame; got endgame={endgame}",
                where=f"player {self.name!r}",
                option="endgame",
            )
        self.search = MCTSPlayer(
            sims=sims,
            time=time,
            c=c,
            batch=batch,
            temperature=temperature,
            reuse=reuse,
            root=root,
            gumbel_actions=gumbel_actions,
            seed=seed,
            evaluator=self.evaluator,
        )
        self.search.tree.score_weight = self._score_weight()

    def _score_weight(self) -> float:
        """How the network values a finished game (``players.mcts.terminal_value``): a
        self-play model records the ``score_value`` it was trained with; others use 0."""
        from othellolab.nn.io import read_model_info

        try:
            w = read_model_info(self.model).training.get("score_value", 0.0)
        except OthelloError:
            return 0.0
        return float(w) if isinstance(w, int | float) and 0 <= w <= 1 else 0.0

    def reset(self) -> None:
        self.search.reset()

    def choose(self, board: Board, limit: Limit | None = None) -> PlayResult:
        self._check(board)
        limit = limit or Limit()
        t0 = _time.perf_counter()
        own = self.search.time if limit.time is None and limit.simulations is None else None
        search_limit = limit if own is None else replace(limit, time=own)
        solve_time = limit.capped_time(search_limit.time)
        if limit.clock is not None:
            share = plan(limit.clock, board.num_empties, endgame=self.endgame)
            search_limit = move_limit(limit, share)
            solve_time = limit.capped_time(share.solve)
        if self.endgame and board.num_empties <= self.endgame:
            from othellolab.players.search import SolveAborted, TranspositionTable, solve

            if self._table is None:
                self._table = TranspositionTable(20)
            try:
                found = solve(
                    board,
                    table=self._table,
                    pv=True,
                    max_nodes=limit.capped_nodes(limit.nodes),
                    time_limit=solve_time,
                    stop=limit.stop,
                )
                return found.play_result(board)
            except SolveAborted:
                pass
            spent = _time.perf_counter() - t0
            if limit.clock is not None:  # the search gets an even share of what is left
                left = max(0.0, limit.clock - spent)
                share = per_move(left, max(1, (board.num_empties + 1) // 2))
                search_limit = move_limit(limit, share)
            elif search_limit.time is not None:
                search_limit = replace(search_limit, time=max(0.01, search_limit.time - spent))
        return self.search.choose(board, search_limit)
