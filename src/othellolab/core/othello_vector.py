"""Othello's fast path for the vector environment (``Othello.vector_kernels``): batched Numba
kernels that step many games of one agent against a batched opponent (random or greedy)
together, without a Python loop over games, and ``OthelloVectorKernels``, their state.

The rules come from ``core.kernels`` (``_legal``, ``_flips``, the kernel RNG); this module only
decides who moves and writes observations. A game's state is the agent's discs ``me``, the
opponent's discs ``op``, the agent's colour, and the agent's legal-move mask ``legal``; every
stored position has the agent to move or the game over.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

from othellolab.core.features import plane_bits
from othellolab.core.kernels import (
    _FULL,
    _INNER,
    _flips,
    _legal,
    final_score,
    popcount,
    random_square,
    rng_below,
    rng_seed,
    write_action_mask,
)

U64 = np.uint64
ZERO = U64(0)
ONE = U64(1)

OPPONENT_KINDS = {"random": 0, "greedy": 1}
"""Batched opponents: uniformly random legal move; most discs flipped with a random tie-break."""

COLOR_MODES = {"black": 0, "white": 1, "random": 2}
ILLEGAL_MODES = {"raise": 0, "lose": 1, "mask": 2}
REWARD_KINDS = {"outcome": 0, "disc_diff": 1}

NO_ACTION = -1
"""``opponent_action`` when the opponent did not move in a step."""

_jit = numba.njit(cache=True, nogil=True)


@_jit
def _opponent_move(
    op: np.uint64, me: np.uint64, moves: np.uint64, kind: int, n: int, rng: np.ndarray
) -> int:
    if kind == 0:
        return random_square(moves, rng)
    best = -1
    best_sq = -1
    ties = 0
    m = moves
    while m:
        low = m & (~m + ONE)
        sq = np.int64(trailing_zeros(low))
        c = popcount(_flips(op, me, sq, n))
        if c > best:
            best = c
            best_sq = sq
            ties = 1
        elif c == best:
            ties += 1
            if rng_below(rng, ties) == 0:
                best_sq = sq
        m ^= low
    return best_sq


def _byte_spread_table() -> np.ndarray:
    table = np.zeros(256, dtype=np.uint64)
    for b in range(256):
        table[b] = sum(((b >> j) & 1) << (8 * j) for j in range(8))
    return table


_write_mask = _jit(write_action_mask.py_func)
_plane_bits = _jit(plane_bits.py_func)
"""The one legal-action mask and the one plane definition, compiled into this module: Numba
does not inline another module's kernel, and the call would cost the vector env 7%."""

_SPREAD = _byte_spread_table()
"""``_SPREAD[b]``: a uint64 whose byte ``j`` is bit ``j`` of ``b``; eight bits become eight 0/1
bytes in one store (planes are written as uint64 words and read back as uint8)."""


@_jit
def _write_obs(
    i: int,
    me: np.uint64,
    op: np.uint64,
    legal: np.uint64,
    live: bool,
    resign: bool,
    cells: int,
    planes: np.ndarray,
    mask: np.ndarray,
) -> None:
    """Planes of game ``i`` as 8 uint64 words per plane (64 bytes: one 0/1 byte a square, read
    back as uint8), the planes being those of ``core.features.plane_bits`` (own discs,
    opponent's, and the agent's legal moves ``legal``), and its action mask."""
    for c in range(planes.shape[1]):
        bb = _plane_bits(c, me, op, legal, 8)
        for k in range(8):
            planes[i, c, k] = _SPREAD[(bb >> U64(8 * k)) & U64(0xFF)]
    _write_mask(legal, live, cells, mask, i)
    if resign:
        mask[i, cells + 1] = 1 if live else 0


@_jit
def _reset_one(
    i: int,
    me: np.ndarray,
    op: np.ndarray,
    color: np.ndarray,
    legal: np.ndarray,
    color_mode: int,
    opp_kind: int,
    n: int,
    inner: np.uint64,
    full: np.uint64,
    rng: np.ndarray,
) -> int:
    """Start game ``i``; if the agent is white the opponent plays black's first move (returned)."""
    h = n // 2
    a = h - 1
    black = (ONE << U64(h * n + a)) | (ONE << U64(a * n + h))
    white = (ONE << U64(a * n + a)) | (ONE << U64(h * n + h))
    c = color_mode if color_mode < 2 else rng_below(rng, 2)
    color[i] = c
    played = NO_ACTION
    if c == 0:
        m, o = black, white
    else:
        moves = _legal(black, white, n, inner, full)
        sq = _opponent_move(black, white, moves, opp_kind, n, rng)
        f = _flips(black, white, sq, n)
        m, o = white & ~f, black | f | (ONE << U64(sq))
        played = sq
    me[i] = m
    op[i] = o
    legal[i] = _legal(m, o, n, inner, full)
    return played


@_jit
def reset_batch(
    which: np.ndarray,
    me: np.ndarray,
    op: np.ndarray,
    color: np.ndarray,
    legal: np.ndarray,
    done: np.ndarray,
    color_mode: int,
    opp_kind: int,
    n: int,
    inner: np.uint64,
    full: np.uint64,
    resign: bool,
    rng: np.ndarray,
    obs: np.ndarray,
    mask: np.ndarray,
    opp_action: np.ndarray,
) -> None:
    """Start the games where ``which`` is true and write their observations."""
    for i in range(me.shape[0]):
        if which[i]:
            opp_action[i] = _reset_one(
                i, me, op, color, legal, color_mode, opp_kind, n, inner, full, rng
            )
            done[i] = False
            _write_obs(i, me[i], op[i], legal[i], True, resign, n * n, obs, mask)


@_jit
def first_illegal(
    actions: np.ndarray, legal: np.ndarray, done: np.ndarray, n: int, resign: bool
) -> int:
    """Index of the first live game whose action is illegal, or -1."""
    cells = n * n
    for i in range(actions.shape[0]):
        if done[i]:
            continue
        a = actions[i]
        if 0 <= a < cells:
            if not (legal[i] >> U64(a)) & ONE:
                return i
        elif a == cells:
            if legal[i] != ZERO:
                return i
        elif not (resign and a == cells + 1):
            return i
    return -1


@_jit
def step_batch(
    actions: np.ndarray,
    me: np.ndarray,
    op: np.ndarray,
    color: np.ndarray,
    legal: np.ndarray,
    done: np.ndarray,
    color_mode: int,
    opp_kind: int,
    illegal_mode: int,
    reward_kind: int,
    same_step: bool,
    n: int,
    inner: np.uint64,
    full: np.uint64,
    resign: bool,
    rng: np.ndarray,
    obs: np.ndarray,
    mask: np.ndarray,
    reward: np.ndarray,
    terminated: np.ndarray,
    opp_action: np.ndarray,
    illegal: np.ndarray,
    score: np.ndarray,
    final_obs: np.ndarray,
    final_mask: np.ndarray,
) -> int:
    """One agent action per game, the opponents' replies, rewards, and auto-reset.

    With ``illegal_mode`` 0 (raise) the actions are checked first: the index of the first game
    whose action is illegal is returned and nothing changes; otherwise -1.

    Next-step auto-reset: a game that ended in the previous call (``done``) is restarted and its
    action ignored. Same-step auto-reset (``same_step``): a game that ends now is restarted at
    once and its final observation goes to ``final_obs``/``final_mask``.
    """
    cells = n * n
    if illegal_mode == 0:
        bad = first_illegal(actions, legal, done, n, resign)
        if bad >= 0:
            return bad
    for i in range(actions.shape[0]):
        reward[i] = 0.0
        terminated[i] = False
        illegal[i] = False
        opp_action[i] = NO_ACTION
        if done[i]:
            opp_action[i] = _reset_one(
                i, me, op, color, legal, color_mode, opp_kind, n, inner, full, rng
            )
            done[i] = False
            score[i] = 0
            _write_obs(i, me[i], op[i], legal[i], True, resign, cells, obs, mask)
            continue
        m = me[i]
        o = op[i]
        lg = legal[i]
        a = actions[i]
        ok = False
        if 0 <= a < cells:
            ok = ((lg >> U64(a)) & ONE) != ZERO
        elif a == cells:
            ok = lg == ZERO
        over = False
        final = 0.0
        if not ok:
            if resign and a == cells + 1:
                over = True
                final = -1.0
            elif illegal_mode == 2:
                illegal[i] = True
                a = random_square(lg, rng) if lg != ZERO else cells
                ok = True
            else:
                illegal[i] = True
                over = True
                final = -1.0
        if ok:
            if a < cells:
                f = _flips(m, o, a, n)
                m, o = m | f | (ONE << U64(a)), o & ~f
            ol = _legal(o, m, n, inner, full)
            if ol != ZERO:
                sq = _opponent_move(o, m, ol, opp_kind, n, rng)
                f = _flips(o, m, sq, n)
                o, m = o | f | (ONE << U64(sq)), m & ~f
                opp_action[i] = sq
                lg = _legal(m, o, n, inner, full)
                if lg == ZERO and _legal(o, m, n, inner, full) == ZERO:
                    over = True
            else:
                lg = _legal(m, o, n, inner, full)
                if lg == ZERO:
                    over = True
                else:
                    opp_action[i] = cells
            if over:
                s = final_score(m, o, n)
                sign = 1.0 if s > 0 else (-1.0 if s < 0 else 0.0)
                final = s / cells if reward_kind == 1 else sign
        me[i] = m
        op[i] = o
        score[i] = final_score(m, o, n) if over else popcount(m) - popcount(o)
        if over:
            lg = ZERO
            reward[i] = final
            terminated[i] = True
            if same_step:
                _write_obs(i, m, o, lg, False, resign, cells, final_obs, final_mask)
                _reset_one(i, me, op, color, legal, color_mode, opp_kind, n, inner, full, rng)
                _write_obs(i, me[i], op[i], legal[i], True, resign, cells, obs, mask)
                continue
            done[i] = True
        legal[i] = lg
        _write_obs(i, m, o, lg, not over, resign, cells, obs, mask)
    return -1


class OthelloVectorKernels:
    """The state of ``num_envs`` Othello games of the vector env and the kernel calls that
    reset and step them; ``envs.vector.GameVectorEnv`` reads its arrays (each game's planes,
    mask, reward, flags and infos) after each call. ``player_color``: 0 black, 1 white, 2
    random; ``illegal_mode``: 0 raise, 1 lose, 2 mask; ``reward``: 0 outcome, 1 the disc
    difference over the cells."""

    OPPONENTS = tuple(OPPONENT_KINDS)

    def __init__(
        self,
        game: Any,
        num_envs: int,
        *,
        opponent: str,
        player_color: int,
        illegal_mode: int,
        reward: int,
        allow_resign: bool,
        planes: tuple[str, ...],
        same_step: bool,
    ) -> None:
        """``planes``: the game's ``env_planes`` (the first of ``core.features``' planes)."""
        size = game.size
        n = num_envs
        n_actions = size * size + 1 + int(allow_resign)
        self.size = size
        self.num_envs = n
        self.allow_resign = allow_resign
        self.same_step = same_step
        self.shape = (n, len(planes), size, size)
        self.me = np.zeros(n, dtype=np.uint64)
        self.op = np.zeros(n, dtype=np.uint64)
        self.color = np.zeros(n, dtype=np.int8)
        self.legal = np.zeros(n, dtype=np.uint64)
        self.done = np.ones(n, dtype=np.bool_)
        self.words = np.zeros((n, len(planes), 8), dtype=np.uint64)
        self.mask = np.zeros((n, n_actions), dtype=np.int8)
        self.final_words = np.zeros((n, len(planes), 8), dtype=np.uint64)
        self.final_mask = np.zeros((n, n_actions), dtype=np.int8)
        self.reward = np.zeros(n, dtype=np.float64)
        self.terminated = np.zeros(n, dtype=np.bool_)
        self.opp_action = np.full(n, NO_ACTION, dtype=np.int64)
        self.illegal = np.zeros(n, dtype=np.bool_)
        self.score = np.zeros(n, dtype=np.int64)
        self.rng = rng_seed(int(np.random.SeedSequence().generate_state(1, np.uint64)[0]) >> 1)
        self.consts = (player_color, OPPONENT_KINDS[opponent], illegal_mode, reward)
        self.geometry = (size, np.uint64(_INNER[size]), np.uint64(_FULL[size]))

    def seed(self, seed: int) -> None:
        """Reseed the one kernel RNG of the batch (opponents, colours, ``"mask"``)."""
        self.rng = rng_seed(int(seed) % 2**63)

    def reset(self, which: np.ndarray) -> None:
        """Start the games where ``which`` is true."""
        color_mode, opp_kind, _, _ = self.consts
        n, inner, full = self.geometry
        self.opp_action[:] = NO_ACTION
        reset_batch(
            which, self.me, self.op, self.color, self.legal, self.done, color_mode, opp_kind,
            n, inner, full, self.allow_resign, self.rng, self.words, self.mask, self.opp_action,
        )  # fmt: skip
        self.score[which] = 0
        self.illegal[:] = False

    def step(self, actions: np.ndarray) -> int:
        """One agent action per game (int64): the index of the first illegal one in mode
        raise (nothing changed), else -1."""
        color_mode, opp_kind, illegal_mode, reward_kind = self.consts
        n, inner, full = self.geometry
        return int(
            step_batch(
                actions, self.me, self.op, self.color, self.legal, self.done, color_mode,
                opp_kind, illegal_mode, reward_kind, self.same_step, n, inner, full,
                self.allow_resign, self.rng, self.words, self.mask, self.reward,
                self.terminated, self.opp_action, self.illegal, self.score, self.final_words,
                self.final_mask,
            )
        )  # fmt: skip

    def observation(self) -> np.ndarray:
        """The uint8 planes ``(N, C, size, size)``: a view of the word buffer."""
        return self.words.view(np.uint8)[:, :, : self.size * self.size].reshape(self.shape)

    def final_observation(self) -> np.ndarray:
        return self.final_words.view(np.uint8)[:, :, : self.size * self.size].reshape(self.shape)

    def states(self) -> list[tuple[int, int, int]]:
        """Each game's ``(p, o, turn)``: the agent is to move (or the game is over)."""
        return [
            (int(me), int(op), int(c))
            for me, op, c in zip(self.me, self.op, self.color, strict=True)
        ]
