"""One MCTS search kept between moves (``MCTS``), its result, and ``MCTSPlayer``, the
``mcts`` player over any ``Evaluator``, with a PUCT root (``MCTS``) or a Gumbel root (the
batched search of ``players.mcts.batch`` on one tree)."""

from __future__ import annotations

import math
import time as _time
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from othellolab.config.options import SEED, Option, checked_options
from othellolab.core import Board, ConfigError, Limit, PlayResult, Score, Stop
from othellolab.core.games import (
    Game,
    position_game,
    position_state,
)
from othellolab.players.base import Player
from othellolab.players.evaluators import Evaluator, RandomRolloutEvaluator
from othellolab.players.mcts.batch import VARIANTS, BatchSearch, SearchConfig
from othellolab.players.mcts.tree import (
    _F32,
    C_PUCT,
    C_UCT,
    NODE_DTYPE,
    _checked,
    _extract_subtree,
    _find_position,
    _new_node,
    _score_weight,
    choose_action,
    evaluate_leaves,
    expand_backup,
    root_exact,
    root_summary,
    select_leaves,
)


@dataclass(frozen=True)
class SearchResult:
    """What one search found at the root, from the point of view of the side to move there.

    ``visits``, ``q`` and ``priors`` are indexed by action (``size*size + 1``, pass last);
    ``q`` is NaN for actions never visited; ``value`` is the visit-weighted root value;
    ``legal`` marks the root's actions; ``exact`` is the exact value of the actions the
    search proved (NaN elsewhere), and ``solved`` whether it proved the root's value.
    ``move`` is the action the search plays (``choose_action``).
    """

    legal: np.ndarray
    visits: np.ndarray
    q: np.ndarray
    priors: np.ndarray
    value: float
    simulations: int
    nodes: int
    seconds: float
    info: dict[str, Any] = field(default_factory=dict)
    exact: np.ndarray | None = None
    solved: bool = False
    move: int = -1

    def policy(self, temperature: float = 1.0) -> np.ndarray:
        """Visit counts raised to ``1/temperature`` and normalised; ``0`` puts all on the best."""
        visits = self.visits.astype(np.float64)
        if visits.max() <= 0:
            return (self.legal / self.legal.sum()).astype(np.float32)
        if temperature <= 0:
            out = np.zeros_like(visits)
            out[self.best_action()] = 1.0
            return out.astype(np.float32)
        weights = (visits / visits.max()) ** (1.0 / temperature)
        return (weights / weights.sum()).astype(np.float32)

    def best_action(self) -> int:
        """The action the search plays (``choose_action``); without it, the most visited
        action, ties broken by the higher ``q``."""
        if self.move >= 0:
            return self.move
        q = np.nan_to_num(self.q, nan=-np.inf)
        visits = np.where(self.legal, self.visits, -1)
        order = np.lexsort((-q, -visits))
        return int(order[0])


class MCTS:
    """A search tree for one game that can be searched, and kept between moves: any game of
    ``core.games`` (``board`` an Othello ``Board`` or another game's position, with an
    evaluator of that game).

    ``search(board)`` reuses the subtree of ``board`` when it lies at most two plies below the
    previous root (our move and the reply, or the same position again), so the visits already
    spent there count. ``batch`` leaves are evaluated per evaluator call with virtual loss;
    ``dirichlet_alpha > 0`` mixes Dirichlet noise into the root priors (for self-play).
    """

    def __init__(
        self,
        evaluator: Evaluator | None = None,
        *,
        c: float | None = None,
        batch: int = 1,
        dirichlet_alpha: float = 0.0,
        dirichlet_epsilon: float = 0.25,
        reuse: bool = True,
        seed: int | None = None,
        score_weight: float = 0.0,
    ) -> None:
        if not isinstance(batch, int) or batch < 1:
            raise ValueError(f"MCTS: batch must be a positive integer, got {batch!r}")
        if not (0 <= dirichlet_alpha < math.inf and 0 <= dirichlet_epsilon <= 1):
            raise ValueError(
                f"MCTS: need dirichlet_alpha >= 0 and 0 <= dirichlet_epsilon <= 1, got "
                f"{dirichlet_alpha} and {dirichlet_epsilon}"
            )
        seeds = np.random.SeedSequence(seed).spawn(2)
        if evaluator is None:
            evaluator = RandomRolloutEvaluator(seed=int(seeds[0].generate_state(1)[0]))
        if not isinstance(evaluator, Evaluator):
            raise TypeError(f"MCTS: {evaluator!r} is not an Evaluator (needs evaluate, has_priors)")
        self.evaluator = evaluator
        self.use_prior = bool(evaluator.has_priors)
        self.c = float(c if c is not None else (C_PUCT if self.use_prior else C_UCT))
        if not 0 <= self.c < math.inf:
            raise ValueError(f"MCTS: c must be a non-negative finite number, got {c}")
        self.batch = batch
        self.dirichlet_alpha = float(dirichlet_alpha)
        self.dirichlet_epsilon = float(dirichlet_epsilon)
        self.reuse = reuse
        self.score_weight = _score_weight(score_weight)
        self.rng = np.random.default_rng(seeds[1])
        self._nodes = np.zeros(0, dtype=NODE_DTYPE)
        self._meta = np.zeros(1, dtype=np.int64)
        self._game: Game | None = None
        self._buffers: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}

    # ------------------------------------------------------------------------------------------

    @property
    def nodes(self) -> np.ndarray:
        """The nodes of the current tree (a read-only view; the root is row 0)."""
        view = self._nodes[: self._meta[0]]
        view.flags.writeable = False
        return view

    def reset(self) -> None:
        """Forget the tree."""
        self._nodes = np.zeros(0, dtype=NODE_DTYPE)
        self._meta[0] = 0
        self._game = None

    def _ensure_capacity(self, extra: int) -> None:
        need = int(self._meta[0]) + extra
        if need > len(self._nodes):
            grown = np.zeros(max(need, 2 * len(self._nodes), 4096), dtype=NODE_DTYPE)
            grown[: self._meta[0]] = self._nodes[: self._meta[0]]
            self._nodes = grown

    def _set_root(self, board: Any) -> bool:
        """Make ``board`` (any game's position) the root, keeping its subtree when it is
        known; True if reused."""
        game = position_game(board)
        p, o = position_state(board)
        if self.reuse and self._game == game and self._meta[0] > 0:
            found = _find_position(self._nodes, 0, p, o, 2)
            if found == 0:
                return True
            if found > 0:
                out = np.zeros(max(len(self._nodes), 4096), dtype=NODE_DTYPE)
                self._meta[0] = _extract_subtree(self._nodes, found, out)
                self._nodes = out
                return True
        self._game = game
        self._meta[0] = 0
        self._ensure_capacity(4096)
        _new_node(
            self._nodes,
            self._meta,
            p,
            o,
            -1,
            -1,
            1.0,
            game.rules,
            self.score_weight,
        )
        return False

    def _run(self, count: int) -> None:
        game = self._game
        assert game is not None
        self._ensure_capacity(count * game.n_actions)
        buffers = self._buffers.get(count)
        if buffers is None:
            buffers = self._buffers[count] = (
                np.empty(count, dtype=np.int64),
                np.empty(count, dtype=np.uint64),
                np.empty(count, dtype=np.uint64),
            )
        leaves, player, opponent = buffers
        n_open = select_leaves(
            self._nodes,
            0,
            leaves,
            player,
            opponent,
            self.c,
            self.use_prior,
        )
        if n_open == count:  # the common case, without the helper's call and copies
            priors, values = self.evaluator.evaluate(player, opponent, game)
            if (
                priors.dtype != _F32
                or values.dtype != _F32
                or not priors.flags.c_contiguous
                or priors.shape != (count, game.n_actions)
                or values.shape != (count,)
            ):
                priors, values = _checked(self.evaluator, priors, values, count, game)
        else:
            priors, values = evaluate_leaves(self.evaluator, player, opponent, n_open, game)
        expand_backup(
            self._nodes, self._meta, leaves, priors, values, *game.rules, self.score_weight
        )

    def _add_noise(self) -> None:
        root = self._nodes[0]
        first, k = int(root["first"]), int(root["nchild"])
        if k < 2:
            return
        noise = self.rng.dirichlet(np.full(k, self.dirichlet_alpha))
        priors = self._nodes["prior"]
        mixed = (1 - self.dirichlet_epsilon) * priors[first : first + k]
        priors[first : first + k] = mixed + self.dirichlet_epsilon * noise

    def search(
        self,
        board: Any,
        *,
        simulations: int | None = None,
        time: float | None = None,
        stop: Stop | None = None,
    ) -> SearchResult:
        """Run ``simulations`` new simulations (default 1000), or search for ``time`` seconds,
        whichever ends first when both are given; ``stop`` ends the search early from another
        thread (after the batch in flight)."""
        if board.is_game_over():
            raise ValueError(f"MCTS: the game is over at {board}, nothing to search")
        if simulations is None and time is None:
            simulations = 1000
        t0 = _time.perf_counter()
        deadline = None if time is None else t0 + time
        target = simulations if simulations is not None else None
        reused = self._set_root(board)
        reused_visits = int(self._nodes[0]["n"])
        done = 0
        if self._nodes[0]["first"] < 0:
            self._run(1)
            done = 1
        if self.dirichlet_alpha > 0:
            self._add_noise()
        while not self._nodes[0]["proven"]:
            if target is not None:
                left = target - done
                if left <= 0:
                    break
                step = min(self.batch, left)
            else:
                step = self.batch
            self._run(step)
            done += step
            if deadline is not None and _time.perf_counter() >= deadline:
                break
            if stop is not None and stop.is_set():
                break
        seconds = _time.perf_counter() - t0
        return self._result(done, seconds, {"reused": reused, "reused_visits": reused_visits})

    def _result(self, simulations: int, seconds: float, info: dict[str, Any]) -> SearchResult:
        n_actions = self._game.n_actions if self._game is not None else 0
        legal, visits, q, priors, value = root_summary(self._nodes, n_actions)
        exact = root_exact(self._nodes, n_actions)
        return SearchResult(
            legal=legal,
            visits=visits,
            q=q,
            priors=priors,
            value=value,
            simulations=simulations,
            nodes=int(self._meta[0]),
            seconds=seconds,
            info=info,
            exact=exact,
            solved=bool(self._nodes[0]["proven"]),
            move=choose_action(legal, visits, q, exact, self._nodes),
        )


class MCTSPlayer(Player):
    """MCTS behind the ``Player`` interface: random-rollout UCT unless given an evaluator.

    ``sims`` new simulations per move (or ``time`` seconds when set; a ``Limit`` overrides
    both), ``c`` the exploration constant (UCT 1.0, PUCT 1.5 by default), ``playouts`` random
    games per leaf for the default evaluator, ``batch`` leaves per evaluator call,
    ``temperature`` 0 to play the most visited move or > 0 to sample from visits^(1/T),
    ``dirichlet`` the root-noise alpha (0 = off), ``reuse`` to keep the tree between moves.
    It plays the games its evaluator plays (an evaluator's ``games``; rollouts: any game).
    The policy returned is the visit distribution at the root (the AlphaZero training target);
    the score's ``value`` and ``win_prob`` are the chosen move's expected result in [-1, 1]
    and its mapping to [0, 1] (draws half), not a disc count.

    ``root=gumbel`` searches with Gumbel AlphaZero's root instead (``players.mcts.batch``):
    ``gumbel_actions`` actions by prior (with Gumbel noise when ``temperature`` > 0) share
    the ``sims`` by sequential halving, and the move is the halving's winner; the policy
    returned is the improved policy. A time limit ends the halving early (its leader plays);
    each move starts a fresh tree, and ``dirichlet`` must stay 0 (the noise is Gumbel's). With
    one simulation and temperature 0 it plays the prior's best move.
    """

    name = "mcts"
    games = None
    OPTIONS: ClassVar[dict[str, Option]] = {
        "sims": Option(int, 1, 10_000_000, help="simulations per move"),
        "time": Option(float, 0.001, 3600, optional=True, unit="seconds", help="time per move"),
        "c": Option(float, 0, 100, optional=True, help="exploration constant"),
        "seed": SEED,
        "playouts": Option(int, 1, 10_000, help="random playouts per leaf (default evaluator)"),
        "batch": Option(int, 1, 4096, help="leaves per evaluator call"),
        "temperature": Option(float, 0, 100, help="0: most visited move; > 0: sample"),
        "dirichlet": Option(float, 0, 100, help="root-noise alpha (0 = off)"),
        "reuse": Option(bool, help="keep the tree between moves"),
        "root": Option(str, choices=VARIANTS, help="root: puct (AlphaZero) or gumbel"),
        "gumbel_actions": Option(int, 1, 65, help="actions sampled at a Gumbel root"),
        "evaluator": Option(object, optional=True, spec=False, help="an Evaluator (Python only)"),
    }

    @checked_options
    def __init__(
        self,
        *,
        sims: int = 1000,
        time: float | None = None,
        c: float | None = None,
        seed: int | None = None,
        playouts: int = 1,
        batch: int = 1,
        temperature: float = 0.0,
        dirichlet: float = 0.0,
        reuse: bool = True,
        root: str = "puct",
        gumbel_actions: int = 16,
        evaluator: Evaluator | None = None,
    ) -> None:
        most = SearchConfig.OPTIONS["leaves"].high
        if root == "gumbel" and most is not None and batch > most:
            raise ConfigError(
                f"a Gumbel root evaluates at most {most:g} leaves a step, got batch={batch}",
                where=f"player {self.name!r}",
                option="batch",
            )
        if root == "gumbel" and dirichlet > 0:
            raise ConfigError(
                f"Dirichlet noise belongs to the PUCT root, got {dirichlet} with root=gumbel "
                "(a Gumbel root samples with its own noise when temperature > 0)",
                where=f"player {self.name!r}",
                option="dirichlet",
            )
        self.sims = int(sims)
        self.root = root
        self.gumbel_actions = int(gumbel_actions)
        self.c = c
        self.batch = int(batch)
        self._batch_search: BatchSearch | None = None
        self.time = time
        self.temperature = float(temperature)
        self.seed = seed
        seeds = np.random.SeedSequence(seed).spawn(3)
        if evaluator is None:
            evaluator = RandomRolloutEvaluator(playouts, seed=int(seeds[0].generate_state(1)[0]))
        self.games = getattr(evaluator, "games", None)  # None: the tree plays any game
        self.tree = MCTS(
            evaluator,
            c=c,
            batch=batch,
            dirichlet_alpha=dirichlet,
            reuse=reuse,
            seed=int(seeds[1].generate_state(1)[0]),
        )
        self.rng = np.random.default_rng(seeds[2])

    def reset(self) -> None:
        self.tree.reset()

    def _gumbel_search(self, game: Game) -> BatchSearch:
        """The one-tree batched search of the Gumbel root (made again for another game, or
        when the finished-game value's ``score_weight`` changed)."""
        search = self._batch_search
        weight = self.tree.score_weight
        if search is None or search.game != game or search.config.score_value != weight:
            config = SearchConfig(
                simulations=self.sims,
                leaves=self.batch,
                c_puct=self.c,
                variant="gumbel",
                parallel=1,
                gumbel_actions=self.gumbel_actions,
                score_value=weight,
            )
            search = BatchSearch(self.tree.evaluator, game, 1, config, self.rng)
            self._batch_search = search
        return search

    def _choose_gumbel(
        self, board: Any, sims: int, seconds: float | None, stop: Stop | None
    ) -> PlayResult:
        """A move by a Gumbel root over ``sims`` simulations (ended early by ``seconds`` or
        ``stop``)."""
        t0 = _time.perf_counter()
        search = self._gumbel_search(position_game(board))
        p, o = position_state(board)
        one = np.array([0])
        search.forest.plant(one, np.array([p], np.uint64), np.array([o], np.uint64))
        search.start(0, sims, noise=False, sample=self.temperature > 0)
        while search.active():
            search.step()
            if seconds is not None and _time.perf_counter() - t0 >= seconds:
                break
            if stop is not None and stop.is_set():
                break
        _, visits, q, _, _ = search.forest.summary(0)
        out = search.outcome(0, temperature=self.temperature)
        seconds_used = _time.perf_counter() - t0
        move = out.move
        mine = float(q[move]) if not math.isnan(q[move]) else out.value
        return PlayResult(
            move,
            policy=out.target,
            score=Score(mine, win_prob=(mine + 1) / 2, unit="result"),
            info={
                "root": "gumbel",
                "simulations": out.simulations,
                "visits": int(visits[move]),
                "root_visits": int(visits.sum()),
                "nodes": int(search.forest.counters[0]),
                "seconds": seconds_used,
                "simulations_per_second": out.simulations / seconds_used
                if seconds_used > 0
                else float("inf"),
                "value": out.value,
                "solved": out.solved,
                **root_moves(visits, q),
            },
        )

    def choose(self, board: Board, limit: Limit | None = None) -> PlayResult:
        actions = board.legal_actions()
        if not actions:
            raise ValueError(f"mcts: no legal move, the game is over at {board}")
        if len(actions) == 1:
            policy = np.zeros(board.n_actions, dtype=np.float32)
            policy[actions[0]] = 1.0
            return PlayResult(actions[0], policy=policy, info={"simulations": 0})
        limit = limit or Limit()
        sims: int | None = self.sims
        seconds = self.time
        if limit.simulations is not None:
            sims, seconds = max(int(limit.simulations), 1), None
        elif limit.time is not None:
            sims, seconds = None, limit.time
        elif seconds is not None:
            sims = None
        if self.root == "gumbel":
            budget = limit.capped_nodes(self.sims if sims is None else sims)
            return self._choose_gumbel(
                board, max(1, int(budget or 1)), limit.capped_time(seconds), limit.stop
            )
        sims = limit.capped_nodes(sims)
        seconds = limit.capped_time(seconds)
        result = self.tree.search(
            board,
            simulations=None if sims is None else max(1, sims),
            time=seconds,
            stop=limit.stop,
        )
        if self.temperature > 0:
            move = int(self.rng.choice(len(result.visits), p=result.policy(self.temperature)))
        else:
            move = result.best_action()
        q = float(result.q[move]) if not math.isnan(result.q[move]) else result.value
        return PlayResult(
            move,
            policy=result.policy(1.0),
            score=Score(q, win_prob=(q + 1) / 2, unit="result"),
            info={
                "simulations": result.simulations,
                "visits": int(result.visits[move]),
                "root_visits": int(result.visits.sum()),
                "nodes": result.nodes,
                "seconds": result.seconds,
                "simulations_per_second": result.simulations / result.seconds
                if result.seconds > 0
                else float("inf"),
                "value": result.value,
                **root_moves(result.visits, result.q),
                **result.info,
            },
        )


def root_moves(visits: np.ndarray, q: np.ndarray) -> dict[str, dict[int, Any]]:
    """The root's visited actions: ``move_visits`` (action -> visits) and ``move_q`` (action
    -> mean value for the side to move), for a report of what the search thinks."""
    seen = [int(a) for a in np.flatnonzero(np.asarray(visits) > 0)]
    return {
        "move_visits": {a: int(visits[a]) for a in seen},
        "move_q": {a: round(float(q[a]), 4) for a in seen if not math.isnan(q[a])},
    }
