"""What the tabular agents share: a table keyed by state, the exploration schedule, option
checks, and the episode loop over any Gymnasium-style environment.

An agent is driven by four calls, in the manner of OpenSpiel's tabular learners: ``act(state,
mask)`` chooses an action, ``observe(reward, next_state, next_mask, terminated)`` reports what
it led to, ``end_episode()`` closes an episode (Monte Carlo and policy-gradient updates happen
there), and ``greedy_action(state, mask)`` is the learnt choice without exploration. States are
hashable keys (a maze cell, a position's bitboards); ``mask`` marks the legal actions.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from othellolab.config import check_count, check_number

StateKey = Hashable


@dataclass(frozen=True)
class EpsilonSchedule:
    """Exploration rate per episode: ``start * decay**episode``, never below ``minimum``.

    The tutorial's schedule is the default: 0.5, halved after every episode."""

    start: float = 0.5
    decay: float = 0.5
    minimum: float = 0.0

    def __post_init__(self) -> None:
        check_number(self.start, "epsilon", where="epsilon schedule", low=0.0, high=1.0)
        check_number(self.decay, "epsilon_decay", where="epsilon schedule", low=0.0, high=1.0)
        check_number(self.minimum, "epsilon_min", where="epsilon schedule", low=0.0, high=1.0)

    def __call__(self, episode: int) -> float:
        return max(self.minimum, self.start * self.decay**episode)


class StateTable:
    """One row of ``n_actions`` numbers per state key, added on first sight.

    New rows are uniform in ``[0, init)`` (the tutorial starts its Q table at random; ``init``
    0 starts at zero) drawn from the agent's generator, so a seeded agent replays exactly."""

    def __init__(self, n_actions: int, *, init: float, rng: np.random.Generator) -> None:
        self.n_actions = n_actions
        self.init = init
        self.rng = rng
        self.index: dict[StateKey, int] = {}
        self.data = np.zeros((16, n_actions), dtype=np.float64)

    def row(self, key: StateKey, mask: np.ndarray) -> int:
        """The row of ``key``, created if new: its illegal actions hold NaN (as the tutorial's
        ``theta_0`` does for the walls)."""
        i = self.index.get(key)
        if i is None:
            i = len(self.index)
            if i == len(self.data):
                self.data = np.concatenate([self.data, np.zeros_like(self.data)])
            if self.init > 0:
                self.data[i] = self.rng.random(self.n_actions) * self.init
            self.data[i, np.asarray(mask) == 0] = np.nan
            self.index[key] = i
        return i

    def get(self, key: StateKey) -> np.ndarray | None:
        """The row of ``key`` (a view), or ``None`` if the state was never seen."""
        i = self.index.get(key)
        return None if i is None else self.data[i]

    def __len__(self) -> int:
        return len(self.index)


def masked_argmax(values: np.ndarray, mask: np.ndarray) -> int:
    """The legal action of highest value (the lowest index among ties)."""
    legal = np.flatnonzero(mask)
    if legal.size == 0:
        raise ValueError("no legal action: the mask is all zero")
    return int(legal[np.argmax(values[legal])])


class TabularAgent:
    """Base of the tabular agents: a seeded generator, the calls of the episode loop, and the
    checks every option goes through (a ``ConfigError`` names a bad one)."""

    name: ClassVar[str] = "tabular"
    _last: tuple[StateKey, int] | None = None

    def __init__(self, n_actions: int, *, seed: int | None = None) -> None:
        self.n_actions = check_count(n_actions, "n_actions", where=self.name)
        self.rng = np.random.default_rng(seed)
        self.episode = 0

    def act(self, state: StateKey, mask: np.ndarray) -> int:
        """The action to play in ``state`` while learning (exploring as the agent does)."""
        raise NotImplementedError

    def observe(
        self, reward: float, next_state: StateKey, next_mask: np.ndarray, terminated: bool
    ) -> None:
        """The last action earned ``reward`` and led to ``next_state`` (terminal or not)."""

    def end_episode(self) -> None:
        """The episode is over (ended or truncated)."""
        self.episode += 1

    def greedy_action(self, state: StateKey, mask: np.ndarray) -> int:
        """The learnt choice in ``state``, without exploration."""
        raise NotImplementedError

    def state_value(self, state: StateKey) -> float:
        """What the agent believes ``state`` is worth (NaN when it has no such belief)."""
        return math.nan

    def _random_legal(self, mask: np.ndarray) -> int:
        legal = np.flatnonzero(mask)
        return int(legal[self.rng.integers(legal.size)])

    def _played(self, state: StateKey, action: int) -> int:
        """Remember ``action`` in ``state`` until ``observe`` says what it earned; returns it."""
        self._last = (state, action)
        return action

    def _take_last(self) -> tuple[StateKey, int]:
        """The state and action that ``observe`` is about, forgotten once taken."""
        assert self._last is not None, "observe() before act()"
        last, self._last = self._last, None
        return last


class EpsilonGreedyAgent(TabularAgent):
    """An action-value table ``Q[state, action]`` learnt at rate ``eta`` with discount
    ``gamma``, acting ε-greedily (a random legal action with probability ε, else the best one)
    with ε following ``epsilon`` per episode. The base of SARSA, Q-learning and Monte Carlo
    control, which differ only in the target they move ``Q`` towards."""

    def __init__(
        self,
        n_actions: int,
        *,
        eta: float = 0.1,
        gamma: float = 0.9,
        epsilon: EpsilonSchedule | None = None,
        q_init: float = 1.0,
        seed: int | None = None,
    ) -> None:
        super().__init__(n_actions, seed=seed)
        self.eta = check_number(eta, "eta", where=self.name, low=0.0, high=1.0, low_open=True)
        self.gamma = check_number(gamma, "gamma", where=self.name, low=0.0, high=1.0)
        self.epsilon = epsilon if epsilon is not None else EpsilonSchedule()
        self.q_init = check_number(q_init, "q_init", where=self.name, low=0.0, high=1e6)
        self.q = StateTable(n_actions, init=self.q_init, rng=self.rng)

    def act(self, state: StateKey, mask: np.ndarray) -> int:
        i = self.q.row(state, mask)  # first: a new row may reallocate the table
        row = self.q.data[i]
        if self.rng.random() < self.epsilon(self.episode):
            return self._random_legal(mask)
        return masked_argmax(row, mask)

    def greedy_action(self, state: StateKey, mask: np.ndarray) -> int:
        row = self.q.get(state)
        return masked_argmax(row, mask) if row is not None else int(np.flatnonzero(mask)[0])

    def state_value(self, state: StateKey) -> float:
        """``max_a Q[state, a]`` over the legal actions (NaN for a state never seen)."""
        row = self.q.get(state)
        if row is None or np.isnan(row).all():
            return math.nan
        return float(np.nanmax(row))

    def best_value(self, state: StateKey, mask: np.ndarray) -> float:
        """``max_a Q[state, a]`` over the legal actions of ``mask`` (the row is created)."""
        i = self.q.row(state, mask)  # first: a new row may reallocate the table
        row = self.q.data[i]
        return float(row[np.flatnonzero(mask)].max())

    def _move_towards(self, state: StateKey, action: int, target: float) -> None:
        """``Q[state, action]`` moves the fraction ``eta`` of the way to ``target``."""
        row = self.q.data[self.q.index[state]]
        row[action] += self.eta * (target - row[action])


class TemporalDifferenceAgent(EpsilonGreedyAgent):
    """One-step temporal difference: ``observe`` moves ``Q[s, a]`` towards
    ``r + gamma * next_value(s')`` (``r`` alone at the end). SARSA and Q-learning differ only
    in ``_next_value``."""

    def observe(
        self, reward: float, next_state: StateKey, next_mask: np.ndarray, terminated: bool
    ) -> None:
        state, action = self._take_last()
        target = reward
        if not terminated:
            target += self.gamma * self._next_value(next_state, next_mask)
        self._move_towards(state, action, target)

    def _next_value(self, state: StateKey, mask: np.ndarray) -> float:
        """What the next state is worth in the target."""
        raise NotImplementedError


@dataclass
class EpisodeResult:
    """One episode: its length in steps, the sum of its rewards, whether it reached a terminal
    state (rather than being truncated)."""

    steps: int
    reward: float
    terminated: bool


def default_key(obs: Any) -> StateKey:
    """The state key of an observation: the integer of a discrete observation; for othellolab's
    board observations (a dict with ``"observation"`` planes), the bitboards of the side to
    move and of its opponent packed from the first two planes."""
    if isinstance(obs, dict):
        planes = np.asarray(obs["observation"])
        weights = 1 << np.arange(planes[0].size, dtype=np.uint64)
        own = int((planes[0].ravel().astype(np.uint64) * weights).sum())
        opp = int((planes[1].ravel().astype(np.uint64) * weights).sum())
        return (own, opp)
    return int(obs)


def _mask_of(obs: Any, info: dict[str, Any]) -> np.ndarray:
    if "action_mask" in info:
        return np.asarray(info["action_mask"])
    if isinstance(obs, dict) and "action_mask" in obs:
        return np.asarray(obs["action_mask"])
    raise ValueError("the environment gives no action mask (info['action_mask'])")


def run_episode(
    env: Any,
    agent: TabularAgent,
    *,
    learn: bool = True,
    seed: int | None = None,
    key: Callable[[Any], StateKey] = default_key,
    on_step: Callable[[StateKey, int], None] | None = None,
) -> EpisodeResult:
    """Play one episode of ``env`` with ``agent``: exploring and learning (``learn``), or
    greedily without changing the agent. ``on_step(state, action)`` sees every move."""
    obs, info = env.reset(seed=seed)
    state, mask = key(obs), _mask_of(obs, info)
    steps, total, terminated, truncated = 0, 0.0, False, False
    while not (terminated or truncated):
        action = agent.act(state, mask) if learn else agent.greedy_action(state, mask)
        if on_step is not None:
            on_step(state, action)
        obs, reward, terminated, truncated, info = env.step(action)
        state, mask = key(obs), _mask_of(obs, info)
        steps += 1
        total += float(reward)
        if learn:
            agent.observe(float(reward), state, mask, bool(terminated))
    if learn:
        agent.end_episode()
    return EpisodeResult(steps, total, bool(terminated))


@dataclass
class TrainingLog:
    """What ``train_agent`` measured, episode by episode: the length of each training episode,
    the length of the greedy path afterwards (``-1`` when it does not reach a terminal state),
    its cumulative CPU seconds, and (when asked) a snapshot of the state values."""

    steps: list[int] = field(default_factory=list)
    greedy_steps: list[int] = field(default_factory=list)
    cpu_seconds: list[float] = field(default_factory=list)
    values: list[np.ndarray] = field(default_factory=list)

    def first_episode_at(self, target: int) -> int | None:
        """The first episode (1-based) after which the greedy path takes ``target`` steps, or
        ``None`` if none did."""
        for i, g in enumerate(self.greedy_steps):
            if g == target:
                return i + 1
        return None


def train_agent(
    env: Any,
    agent: TabularAgent,
    episodes: int,
    *,
    seed: int | None = None,
    greedy_env: Any = None,
    max_greedy_steps: int = 1000,
    value_states: list[StateKey] | None = None,
    key: Callable[[Any], StateKey] = default_key,
    progress: Callable[[int, EpisodeResult], None] | None = None,
) -> TrainingLog:
    """Train ``agent`` for ``episodes`` episodes of ``env`` and log each one.

    After each episode, with ``greedy_env`` (a deterministic copy of the environment, such as
    a second maze), the agent walks it greedily for at most ``max_greedy_steps`` to measure its
    greedy path; with ``value_states`` the log keeps the agent's value of each of those states.
    CPU seconds count the training episodes only (``time.process_time``)."""
    episodes = check_count(episodes, "episodes", where="train_agent")
    log = TrainingLog()
    cpu = 0.0
    for e in range(episodes):
        t0 = time.process_time()
        result = run_episode(env, agent, seed=seed if e == 0 else None, key=key)
        cpu += time.process_time() - t0
        log.steps.append(result.steps)
        log.cpu_seconds.append(cpu)
        if greedy_env is not None:
            log.greedy_steps.append(greedy_path_length(greedy_env, agent, max_greedy_steps, key))
        if value_states is not None:
            log.values.append(np.array([agent.state_value(s) for s in value_states]))
        if progress is not None:
            progress(e, result)
    return log


def greedy_path_length(
    env: Any, agent: TabularAgent, max_steps: int, key: Callable[[Any], StateKey] = default_key
) -> int:
    """Steps of the agent's greedy walk through a deterministic ``env`` to a terminal state,
    or -1 when it is still walking after ``max_steps`` (it loops)."""
    obs, info = env.reset()
    for step in range(1, max_steps + 1):
        action = agent.greedy_action(key(obs), _mask_of(obs, info))
        obs, _, terminated, truncated, info = env.step(action)
        if terminated:
            return step
        if truncated:
            return -1
    return -1
