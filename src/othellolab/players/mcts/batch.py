"""Many MCTS searches at once over one ``Forest``, one per tree, each with a PUCT root
(AlphaZero: Dirichlet noise, visit-count targets) or a Gumbel root (Gumbel AlphaZero, the math
of ``players.mcts.gumbel``): the batched search of self-play, of grading, and of the ``mcts``
and ``alphazero`` players with ``root=gumbel``.

Each ``step`` advances every search under way by one batched step: a root not yet evaluated
gets its evaluation; a PUCT search descends up to ``leaves`` times; a Gumbel search descends
once per action its sequential-halving phase still owes a visit (up to ``leaves``), each
descent forced through that root action and PUCT below. All those leaves, of all trees, go
to the evaluator in one call. ``search_positions`` searches a list of positions this way (for
grading); the self-play engine drives the same object move after move.

PUCT searches may force playouts on the root's children and prune them from the policy
target (KataGo's forced playouts, ``players.mcts.forced``): ``start(..., forced_k=,
prune=)``, the self-play engine's full searches with ``forced_playouts_k`` > 0.

A search ends early when the tree proves the root's value (``players.mcts``: exact values
carried up from finished games): it then plays an action proven to reach that value, its
policy target is uniform over those actions and its value is the exact one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import ClassVar, Protocol

import numpy as np

from othellolab.config.options import SEED, CheckedTable, Option
from othellolab.core.games import Game, get_game
from othellolab.players.evaluators import Evaluator
from othellolab.players.mcts.forced import force_root, pruned_visits
from othellolab.players.mcts.forest import Forest
from othellolab.players.mcts.gumbel import (
    completed_q,
    gumbel_top_k,
    halving_phases,
    improved_policy,
    log_priors,
    sigma,
)
from othellolab.players.mcts.tree import C_PUCT, C_UCT, choose_action, root_exact

__all__ = [
    "VARIANTS",
    "BatchSearch",
    "ExactPlay",
    "SearchConfig",
    "SearchOutcome",
    "search_positions",
]

VARIANTS = ("puct", "gumbel")
"""Search roots: AlphaZero's PUCT with root noise and visit-count targets, or Gumbel
AlphaZero's root (Gumbel top-k, sequential halving, improved-policy targets)."""

LeafValues = Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]
"""``leaf_values(player, opponent) -> (known, values)``: which leaves are known exactly, and
their values (self-play's exact endgame)."""


@dataclass(frozen=True)
class SearchConfig(CheckedTable):
    """The batched search's options (defaults in brackets), each checked (``Option``):
    ``simulations`` per search [100], ``leaves`` per tree per batched step [8] (virtual loss
    spreads them), ``c_puct`` [none: 1.5 with priors, 1.0 (UCT) without], ``variant`` [puct]
    or gumbel, ``parallel`` searches at once [128]; PUCT: Dirichlet ``dirichlet_alpha`` [0.3;
    0: off] mixed in with ``dirichlet_epsilon`` [0.25] where a search asks for noise; Gumbel:
    ``gumbel_actions`` sampled at the root [16], ``gumbel_c_visit`` [50] and ``gumbel_c_scale``
    [1.0] of sigma; ``score_value`` [0] the share of the final score in a finished game's
    value; ``seed`` [none]."""

    simulations: int = 100
    leaves: int = 8
    c_puct: float | None = None
    variant: str = "puct"
    parallel: int = 128
    dirichlet_alpha: float = 0.3
    dirichlet_epsilon: float = 0.25
    gumbel_actions: int = 16
    gumbel_c_visit: float = 50.0
    gumbel_c_scale: float = 1.0
    score_value: float = 0.0
    seed: int | None = None

    TABLE: ClassVar[str] = "search config"
    OPTIONS: ClassVar[dict[str, Option]] = {
        "simulations": Option(
            int,
            1,
            100_000,
            help="simulations of a (full) search; with `reuse`, the visits kept from the previous move count towards them (at least one new simulation)",
        ),
        "leaves": Option(int, 1, 256, help="descents per tree per batched step (virtual loss)"),
        "c_puct": Option(
            float,
            0,
            100,
            optional=True,
            help="exploration constant; none: 1.5 (PUCT) with network priors, 1.0 (UCT) without",
        ),
        "variant": Option(str, choices=VARIANTS, help="the search variant (below)"),
        "parallel": Option(int, 1, 100_000, help="games under way at once (trees in the forest)"),
        "dirichlet_alpha": Option(
            float, 0, 100, help="PUCT: Dirichlet noise at the root of every full search (0: off)"
        ),
        "dirichlet_epsilon": Option(
            float, 0, 1, help="PUCT: the noise's weight in the root priors"
        ),
        "gumbel_actions": Option(int, 1, 65, help="Gumbel: actions sampled at the root (m)"),
        "gumbel_c_visit": Option(float, 0, 1e6, help="Gumbel: `c_visit` of sigma"),
        "gumbel_c_scale": Option(float, 0, 1e6, help="Gumbel: `c_scale` of sigma"),
        "score_value": Option(
            float,
            0,
            1,
            help="a finished game's value: its result (win 1, draw 0, loss -1) mixed with its disc difference over the squares in this share (1: the disc difference alone)",
        ),
        "seed": replace(
            SEED,
            help="seeds every random choice (noise, sampling, which games never resign, playout caps)",
        ),
    }


class Solved(Protocol):
    """An exact solve: the ``score`` for the side to move and the ``optimal`` actions."""

    @property
    def score(self) -> int: ...
    @property
    def optimal(self) -> tuple[int, ...]: ...


class ExactPlay(Protocol):
    """A solver of the positions near a game's end (self-play's ``ExactEndgame``)."""

    def covers(self, player: int, opponent: int) -> bool: ...
    def solve(self, player: int, opponent: int) -> Solved: ...


IDLE, ROOT, RUN, DONE = 0, 1, 2, 3
"""Slot states: no search; root awaiting its evaluation; searching; search finished."""


@dataclass(frozen=True)
class SearchOutcome:
    """A finished search, from the side to move at its root: the policy ``target`` over the
    actions (visit shares for PUCT, the improved policy for Gumbel), the root ``value``
    (visit-weighted mean of the children's values), the ``best_value`` (the best child's Q),
    the ``move`` chosen, ``visits`` per action, and the ``simulations`` run (new ones, the
    root's own evaluation not counted). ``solved``: the tree proved the root's value, so
    ``target`` is uniform over the actions proven to reach it and both values are exact."""

    target: np.ndarray
    value: float
    best_value: float
    move: int
    visits: np.ndarray
    simulations: int
    solved: bool = False


@dataclass
class _GumbelRoot:
    """Sequential halving under way at one root: the root's children ``rows`` and their
    ``logits`` and Gumbel noise ``g``, the network's value ``raw_value`` at the root, the
    ``phases`` and the ``considered`` actions (indices into ``rows``, best first), and the
    ``queue`` of child rows the current phase still visits (from ``pos``)."""

    rows: np.ndarray
    actions: np.ndarray
    priors: np.ndarray
    logits: np.ndarray
    g: np.ndarray
    raw_value: float
    phases: list[tuple[int, int]]
    phase: int
    considered: np.ndarray
    queue: np.ndarray
    pos: int = 0


class _Counted:
    """An evaluator that counts the positions it is asked to score (after the forest merges a
    position repeated within one batch)."""

    def __init__(self, inner: Evaluator) -> None:
        self.inner = inner
        self.has_priors = inner.has_priors
        self.positions = 0

    def evaluate(
        self, player: np.ndarray, opponent: np.ndarray, game: Game
    ) -> tuple[np.ndarray, np.ndarray]:
        self.positions += int(player.shape[0])
        return self.inner.evaluate(player, opponent, game)


class BatchSearch:
    """Searches in the trees of one forest (one per slot), advanced together by ``step``.

    The caller sets each slot's root (``forest.plant`` or ``forest.advance``), calls ``start``,
    then ``step`` until the slot is finished, then reads ``outcome``. ``config``: the search's
    options (``SearchConfig``; self-play's config holds one as ``search``); ``leaf_values``
    scores the leaves it knows exactly instead of the evaluator (self-play's exact endgame)."""

    def __init__(
        self,
        evaluator: Evaluator,
        game: Game | str,
        slots: int,
        config: SearchConfig,
        rng: np.random.Generator,
        *,
        capacity: int | None = None,
        leaf_values: LeafValues | None = None,
    ) -> None:
        if not isinstance(evaluator, Evaluator):
            raise TypeError(f"{evaluator!r} is not an Evaluator (needs evaluate, has_priors)")
        self.evaluator = evaluator
        self._counted = _Counted(evaluator)
        self.game = get_game(game)
        self.config = config
        self.rng = rng
        self.use_prior = bool(evaluator.has_priors)
        self.c = (
            config.c_puct if config.c_puct is not None else (C_PUCT if self.use_prior else C_UCT)
        )
        if capacity is None:
            capacity = max(1024, int(2 ** np.ceil(np.log2(6 * config.simulations + 64))))
        self.forest = Forest(slots, self.game, capacity=capacity, score_weight=config.score_value)
        self._exact = leaf_values
        self.gumbel = config.variant == "gumbel"
        self.state = np.zeros(slots, dtype=np.int8)
        self.budget = np.zeros(slots, dtype=np.int64)
        self.done = np.zeros(slots, dtype=np.int64)
        self.noise = np.zeros(slots, dtype=bool)
        self.forced_k = np.zeros(slots, dtype=np.float64)
        """Each search's forced-playouts constant (``players.mcts.forced``; 0: none)."""
        self.prune = np.zeros(slots, dtype=bool)
        """Whether each search's policy target prunes its forced playouts."""
        self.sample_gumbel = np.ones(slots, dtype=bool)
        self.roots: list[_GumbelRoot | None] = [None] * slots
        self.leaves = 0
        """Leaves that needed an evaluation so far (terminal ones do not; a position reached
        several times in one step counts each time)."""

    # ------------------------------------------------------------------------------------------

    def start(
        self,
        slot: int,
        simulations: int,
        *,
        noise: bool,
        sample: bool = True,
        forced_k: float = 0.0,
        prune: bool = False,
    ) -> None:
        """Begin a search of ``simulations`` at the root of ``slot`` (two or more legal
        actions); ``noise``: Dirichlet noise at the root (PUCT), ``sample``: Gumbel noise in
        the root's sampling (off, the top actions by prior are taken, as for evaluation).
        PUCT only: ``forced_k`` > 0 forces ``sqrt(forced_k * P * N)`` playouts on each root
        child, and ``prune`` takes them back from the policy target (``players.mcts.forced``)."""
        if self.gumbel and (forced_k > 0 or prune):
            raise ValueError("forced playouts and target pruning need the PUCT root, not gumbel")
        self.budget[slot] = simulations
        self.done[slot] = 0
        self.noise[slot] = noise
        self.forced_k[slot] = forced_k
        self.prune[slot] = prune and forced_k > 0
        self.sample_gumbel[slot] = sample
        self.roots[slot] = None
        if int(self.forest.root(slot)["first"]) < 0:
            self.state[slot] = ROOT
        else:
            self._prepare(slot)

    def _prepare(self, slot: int) -> None:
        """The root is expanded: set the search's budget and root noise, or its halving."""
        self.state[slot] = RUN
        children = self.forest.root_children(slot)
        if not self.gumbel:
            kept = int(children["n"].sum())
            self.budget[slot] = max(int(self.budget[slot]) - kept, 1)
            alpha = self.config.dirichlet_alpha
            if self.noise[slot] and alpha > 0 and len(children) > 1:
                eps = self.config.dirichlet_epsilon
                noise = self.rng.dirichlet(np.full(len(children), alpha))
                children["prior"] = (1 - eps) * children["prior"] + eps * noise
            return
        root = self.forest.root(slot)
        first = int(root["first"])
        own = int(root["n"]) - int(children["n"].sum())
        raw = (-float(root["w"]) - float(children["w"].sum())) / own if own > 0 else 0.0
        priors = children["prior"].astype(np.float64)
        logits = log_priors(priors)
        m = min(self.config.gumbel_actions, len(children))
        if self.sample_gumbel[slot]:
            chosen, g = gumbel_top_k(logits, m, self.rng)
        else:
            g = np.zeros(len(children))
            chosen = np.argsort(-logits, kind="stable")[:m]
        phases = halving_phases(len(chosen), int(self.budget[slot]))
        state = _GumbelRoot(
            rows=first + np.arange(len(children), dtype=np.int64),
            actions=children["action"].astype(np.int64),
            priors=priors,
            logits=logits,
            g=g,
            raw_value=raw,
            phases=phases,
            phase=0,
            considered=chosen,
            queue=np.zeros(0, dtype=np.int64),
        )
        self.roots[slot] = state
        self._fill_queue(state)

    def _pruned(self, slot: int, visits: np.ndarray) -> np.ndarray:
        """``visits`` (by action) with the root's forced playouts pruned
        (``players.mcts.forced.pruned_visits``), each child's Q clamped as selection does."""
        children = self.forest.root_children(slot)
        n = children["n"].astype(np.int64)
        q = np.where(n > 0, children["w"] / np.maximum(n, 1), 0.0)
        q = np.minimum(np.maximum(q, -children["hi"]), -children["lo"])
        root = self.forest.root(slot)
        kept = pruned_visits(
            n,
            q,
            children["prior"],
            int(root["n"]) + int(root["vl"]),
            self.c,
            float(self.forced_k[slot]),
            use_prior=self.use_prior,
        )
        out = visits.copy()
        out[children["action"].astype(np.int64)] = kept
        return out

    def _fill_queue(self, root: _GumbelRoot) -> None:
        kept, visits = root.phases[root.phase]
        root.considered = root.considered[:kept]
        rows = root.rows[root.considered]
        root.queue = np.tile(rows, -(-visits // len(rows)))[:visits]
        root.pos = 0

    def _scores(self, slot: int, root: _GumbelRoot, *, noise: bool = True) -> np.ndarray:
        """``g + logits + sigma(completed Q)`` of the root's children (without ``g`` when
        not ``noise``)."""
        children = self.forest.root_children(slot)
        n = children["n"].astype(np.int64)
        q = np.where(n > 0, children["w"] / np.maximum(n, 1), np.nan)
        done = completed_q(q, n, root.priors, root.raw_value)
        cfg = self.config
        scores = root.logits + sigma(
            done, n, c_visit=cfg.gumbel_c_visit, c_scale=cfg.gumbel_c_scale
        )
        return root.g + scores if noise else scores

    # ------------------------------------------------------------------------------------------

    @property
    def evaluations(self) -> int:
        """Positions the evaluator scored so far (a position repeated within one batched step,
        such as the start shared by every game, is scored once)."""
        return self._counted.positions

    def active(self) -> bool:
        """Whether a search is under way."""
        return bool(((self.state == ROOT) | (self.state == RUN)).any())

    def step(self) -> np.ndarray:
        """One batched step of every search under way; returns the slots that finished."""
        slots = np.flatnonzero((self.state == ROOT) | (self.state == RUN))
        if slots.size == 0:
            return slots
        leaves = self.config.leaves
        rooting = self.state[slots] == ROOT
        counts = np.where(rooting, 1, np.minimum(leaves, self.budget[slots] - self.done[slots]))
        forced = None
        if self.gumbel:
            forced = np.full((slots.size, leaves), -1, dtype=np.int64)
            for i, s in enumerate(slots):
                root = self.roots[s]
                if root is None:
                    continue
                take = root.queue[root.pos : root.pos + leaves]
                counts[i] = take.size
                forced[i, : take.size] = take
        elif self.forced_k[slots].any():
            forced = np.empty((slots.size, leaves), dtype=np.int64)
            ks = np.where(rooting, 0.0, self.forced_k[slots])
            force_root(self.forest.nodes, self.forest.capacity, slots, counts, ks, forced)
        self.leaves += self.forest.step(
            self._counted,
            slots,
            counts,
            c=self.c,
            use_prior=self.use_prior,
            forced=forced,
            exact=self._exact,
        )
        finished = []
        proven = self.forest.nodes["proven"][slots * self.forest.capacity] != 0
        for i, s in enumerate(slots):
            if rooting[i]:
                self._prepare(s)
                if proven[i]:
                    self.state[s] = DONE
                    finished.append(s)
                continue
            self.done[s] += counts[i]
            if proven[i]:
                self.state[s] = DONE
                finished.append(s)
                continue
            root = self.roots[s]
            if root is None:
                if self.done[s] >= self.budget[s]:
                    self.state[s] = DONE
                    finished.append(s)
                continue
            root.pos += int(counts[i])
            if root.pos < root.queue.size:
                continue
            root.phase += 1
            if root.phase == len(root.phases):
                self.state[s] = DONE
                finished.append(s)
                continue
            score = self._scores(s, root)
            root.considered = root.considered[np.argsort(-score[root.considered], kind="stable")]
            self._fill_queue(root)
        return np.asarray(finished, dtype=np.int64)

    def outcome(self, slot: int, *, temperature: float = 0.0) -> SearchOutcome:
        """The finished search of ``slot`` (which then goes idle). PUCT plays the most visited
        action (ties: the higher Q), or draws one from visits^(1/``temperature``) when it is
        > 0 (with ``prune``, the pruned visits, which are also its target); Gumbel plays the
        best of the most visited actions by ``g + logits + sigma``, or by ``logits + sigma``
        when ``temperature`` is 0."""
        legal, visits, q, _, value = self.forest.summary(slot)
        n_actions = self.game.n_actions
        target = np.zeros(n_actions, dtype=np.float32)
        best_value = float(np.nanmax(q)) if np.isfinite(q).any() else value
        root = self.roots[slot]
        tree = self.forest.tree(slot)
        exact = root_exact(tree, self.game.n_actions)
        if tree[0]["proven"]:
            best = np.flatnonzero(exact == np.nanmax(exact))
            target[best] = 1.0 / best.size
            if temperature > 0:
                move = int(self.rng.choice(best))
            else:
                move = int(best[np.argmax(visits[best])])
            self.state[slot] = IDLE
            value = float(tree[0]["lo"])
            return SearchOutcome(
                target, value, value, move, visits, int(self.done[slot]), solved=True
            )
        if root is None:
            kept = self._pruned(slot, visits) if self.prune[slot] else visits
            total = kept.sum()
            target[:] = kept / total if total else legal / legal.sum()
            if temperature > 0:
                w = (kept / kept.max()) ** (1.0 / temperature)
                move = int(self.rng.choice(n_actions, p=w / w.sum()))
            else:
                move = choose_action(legal, visits, q, exact, tree)
        else:
            children = self.forest.root_children(slot)
            n = children["n"].astype(np.int64)
            cq = np.where(n > 0, children["w"] / np.maximum(n, 1), np.nan)
            cfg = self.config
            target[root.actions] = improved_policy(
                root.logits,
                cq,
                n,
                root.priors,
                root.raw_value,
                c_visit=cfg.gumbel_c_visit,
                c_scale=cfg.gumbel_c_scale,
            )
            scores = self._scores(slot, root, noise=temperature > 0)
            score = np.where(n == n.max(), scores, -np.inf)
            move = int(root.actions[int(np.argmax(score))])
        self.state[slot] = IDLE
        return SearchOutcome(target, value, best_value, move, visits, int(self.done[slot]))


def search_positions(
    evaluator: Evaluator,
    player: np.ndarray,
    opponent: np.ndarray,
    game: Game | str,
    config: SearchConfig | None = None,
    *,
    exact: ExactPlay | None = None,
    leaf_values: LeafValues | None = None,
    noise: bool = False,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Search each position ``(player[i], opponent[i])`` of ``game`` with
    ``config.simulations`` (root noise only with ``noise``, as self-play's full searches have
    it; Gumbel takes the top actions by prior, without Gumbel noise), ``config.parallel`` at a
    time: returns ``(moves, targets, values)``. A
    position with one legal action gets it without a search (target one-hot, value 0), one
    that ``exact`` covers is solved (its first optimal move, exact targets); ``leaf_values``
    goes to the searches (``BatchSearch``); a finished game is an error."""
    config = config or SearchConfig()
    player = np.ascontiguousarray(player, dtype=np.uint64)
    opponent = np.ascontiguousarray(opponent, dtype=np.uint64)
    n = player.shape[0]
    game = get_game(game)
    moves = np.full(n, -1, dtype=np.int64)
    targets = np.zeros((n, game.n_actions), dtype=np.float32)
    values = np.zeros(n, dtype=np.float32)
    todo = []
    legal = game.legal_mask_batch(player, opponent)
    counts = legal.sum(axis=1)
    for i in range(n):
        if counts[i] == 0:
            raise ValueError(f"position {i} is a finished game: nothing to search")
        if counts[i] == 1:
            moves[i] = int(np.argmax(legal[i]))
        elif exact is not None and exact.covers(player[i], opponent[i]):
            found = exact.solve(player[i], opponent[i])
            moves[i] = found.optimal[0]
            targets[i, list(found.optimal)] = 1.0 / len(found.optimal)
            values[i] = game.value(float(found.score), config.score_value)
            continue
        else:
            todo.append(i)
            continue
        targets[i, moves[i]] = 1.0
    if not todo:
        return moves, targets, values
    slots = min(config.parallel, len(todo))
    search = BatchSearch(
        evaluator, game, slots, config, np.random.default_rng(config.seed), leaf_values=leaf_values
    )
    owner = np.full(slots, -1, dtype=np.int64)
    queue = list(reversed(todo))

    def fill(slot: int) -> None:
        if queue:
            i = queue.pop()
            owner[slot] = i
            search.forest.plant(np.array([slot]), player[i : i + 1], opponent[i : i + 1])
            search.start(slot, config.simulations, noise=noise, sample=False)
        else:
            owner[slot] = -1

    for slot in range(slots):
        fill(slot)
    while search.active():
        for slot in search.step():
            out = search.outcome(int(slot))
            i = owner[slot]
            moves[i], targets[i], values[i] = out.move, out.target, out.value
            fill(int(slot))
    return moves, targets, values
