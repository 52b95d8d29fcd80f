"""Batched numpy-in, numpy-out evaluation of a network, with a small position cache.

``NetworkEvaluator`` satisfies the players' ``Evaluator`` protocol (``has_priors`` and
``evaluate(player, opponent, game) -> (priors, values)``), so network players and MCTS share
it. Priors are the network's softmax restricted to the legal actions: zero on illegal actions,
summing to 1 over the legal ones, the pass action alone when the side to move must pass, all
zeros when the game is over. Values are in [-1, 1] for the side to move; a finished game gets
its exact result instead of the network's guess.

With ``score_utility`` w > 0 the values a search backs up are KataGo's score-aware utility
(``utility``): the win/loss value plus w times a saturating function of the expected final
score (from the score head, or the mean of the score distribution), divided by 1 + w to stay
in [-1, 1]. Finished games in a search tree keep the value the tree gives them.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from othellolab.core import Board, ConfigError
from othellolab.core.games import Game, get_game, position_game, position_state
from othellolab.nn.config import ModelConfig
from othellolab.nn.io import load_model
from othellolab.nn.models import PolicyValueNet, named_outputs
from othellolab.nn.precision import check_precision, inference_copy, use_bfloat16

__all__ = ["Evaluation", "NetworkEvaluator", "masked_softmax", "utility"]


@dataclass(frozen=True)
class Evaluation:
    """Outputs for ``N`` positions: ``priors (N, A)``, ``values (N,)`` and, for models with a
    score head or a score distribution, ``scores (N,)`` (the expected final score over the
    game's ``score_scale``: disc difference / ``size*size``), side to move's view."""

    priors: np.ndarray
    values: np.ndarray
    scores: np.ndarray | None = None


def masked_softmax(logits: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Softmax of each row over its ``mask``ed entries; rows with no legal entry are zeros."""
    z = np.where(mask, logits.astype(np.float64), -np.inf)
    top = z.max(axis=1, keepdims=True)
    top[~np.isfinite(top)] = 0.0
    e = np.exp(z - top)
    total = e.sum(axis=1, keepdims=True)
    total[total == 0] = 1.0
    return (e / total).astype(np.float32)


def utility(
    values: np.ndarray, scores: np.ndarray | None, weight: float, scale: float
) -> np.ndarray:
    """The value a search backs up: ``(values + weight * 2/pi * atan(scores / scale)) /
    (1 + weight)`` (KataGo's score utility, kept in [-1, 1]); ``scores`` and ``scale`` are
    over the game's ``score_scale``. ``values`` itself, unchanged, when ``weight`` is 0."""
    if weight == 0 or scores is None:
        return values
    bonus = (2 / np.pi) * np.arctan(scores.astype(np.float64) / scale)
    return ((values + weight * bonus) / (1 + weight)).astype(np.float32)


def _check_utility(weight: object, scale: object) -> tuple[float, float]:
    """``score_utility`` in 0..10 and ``score_utility_scale`` in (0, 10], or a ``ConfigError``
    naming the one at fault."""
    for option, value, positive in (
        ("score_utility", weight, False),
        ("score_utility_scale", scale, True),
    ):
        number = isinstance(value, int | float) and not isinstance(value, bool)
        if not number or not 0 <= value <= 10 or (positive and value == 0):  # NaN fails too
            allowed = "(0, 10]" if positive else "0..10"
            raise ConfigError(
                f"NetworkEvaluator: expected a number in {allowed}, got {value!r}", option=option
            )
    return float(weight), float(scale)  # type: ignore[arg-type]


def _describe(game: Game) -> str:
    """A game in words."""
    return f"{game.name} {game.rows}x{game.cols}"


def _as_bitboards(x: np.ndarray | Sequence[int]) -> np.ndarray:
    return np.ascontiguousarray(np.asarray(x, dtype=np.uint64).reshape(-1))


BF16_MIN_BATCH = 32
"""Smaller batches run in float32: below about this size bfloat16's conversions cost more
than its arithmetic saves (measured on a CPU with AMX)."""


class NetworkEvaluator:
    """Evaluate positions with a policy/value network, in batches of at most ``max_batch``,
    remembering the last ``cache_size`` positions (0 turns the cache off).

    ``precision`` (``nn.precision.PRECISIONS``): ``float32`` runs the model exactly as
    trained; ``bfloat16`` and ``auto`` run a copy with batch norms folded into the
    convolutions, ``bfloat16`` (and ``auto`` where the hardware has it) in bfloat16 for
    batches of ``BF16_MIN_BATCH`` or more: several times faster in self-play's large batches,
    the outputs within about 1% of float32's. ``score_utility`` [0: off] and
    ``score_utility_scale`` [0.25] make ``evaluate``'s values the score-aware ``utility``
    (a model with a score head or a score distribution). ``symmetries`` > 1 evaluates each
    position under that many of its game's symmetries (``Game.symmetries``: 8 on Othello) and
    averages the priors (mapped back), values and scores: a network trained on random
    symmetries errs differently in each, so the mean is more accurate, at that many times the
    work."""

    has_priors = True

    def __init__(
        self,
        model: PolicyValueNet,
        *,
        device: str = "cpu",
        cache_size: int = 65536,
        max_batch: int = 1024,
        precision: str = "float32",
        score_utility: float = 0.0,
        score_utility_scale: float = 0.25,
        symmetries: int = 1,
    ) -> None:
        if cache_size < 0 or max_batch < 1:
            raise ConfigError("NetworkEvaluator: cache_size must be >= 0 and max_batch >= 1")
        self.score_utility, self.score_utility_scale = _check_utility(
            score_utility, score_utility_scale
        )
        cfg = model.config
        if self.score_utility and not (cfg.score_head or cfg.score_distribution):
            raise ConfigError(
                "NetworkEvaluator: the model has no score head or score distribution to weigh",
                option="score_utility",
            )
        most = cfg.rules.symmetries
        if isinstance(symmetries, bool) or symmetries not in range(1, most + 1):
            raise ConfigError(
                f"NetworkEvaluator: expected 1..{most} symmetries ({cfg.rules.title} has "
                f"{most}), got {symmetries!r}",
                option="symmetries",
            )
        self.symmetries = int(symmetries)
        self.precision = check_precision(precision)
        self.model = model.to(device).eval()
        self.device = torch.device(device)
        self._net = self.model if precision == "float32" else inference_copy(self.model)
        self.bfloat16 = use_bfloat16(precision, self.device)
        self.cache_size = int(cache_size)
        self.max_batch = int(max_batch)
        self._cache: OrderedDict[tuple[int, int], tuple[np.ndarray, float, float]] = OrderedDict()
        self.hits = 0
        self.misses = 0

    @classmethod
    def from_dir(
        cls, directory: str | Path, *, device: str = "cpu", **options: int | float | str
    ) -> NetworkEvaluator:
        """An evaluator for the model saved in ``directory`` (see ``nn.io``)."""
        model, _ = load_model(directory, device=device)
        return cls(model, device=device, **options)

    @property
    def config(self) -> ModelConfig:
        """The model's config (board size, planes)."""
        return self.model.config

    @property
    def games(self) -> tuple[str, ...]:
        """The game the model plays, as a player's ``games`` (a search over it plays that)."""
        return (self.config.game,)

    def clear_cache(self) -> None:
        """Forget every cached position."""
        self._cache.clear()

    def evaluate(
        self, player: np.ndarray, opponent: np.ndarray, game: Game
    ) -> tuple[np.ndarray, np.ndarray]:
        """``(priors (N, n_actions) float32, values (N,) float32)`` for ``N`` positions (the
        values a search backs up: the score-aware ``utility`` with ``score_utility``)."""
        ev = self.evaluate_full(player, opponent, game)
        return ev.priors, utility(
            ev.values, ev.scores, self.score_utility, self.score_utility_scale
        )

    def evaluate_boards(self, boards: Sequence[Board]) -> Evaluation:
        """``evaluate_full`` of a list of positions (Othello boards of the model's size, or
        another game's positions)."""
        if not boards:
            n = self.config.policy_size
            return Evaluation(np.zeros((0, n), np.float32), np.zeros(0, np.float32))
        states = [position_state(b) for b in boards]
        p = np.array([s[0] for s in states], dtype=np.uint64)
        o = np.array([s[1] for s in states], dtype=np.uint64)
        return self.evaluate_full(p, o, position_game(boards[0]))

    def evaluate_full(
        self, player: np.ndarray, opponent: np.ndarray, game: Game | str | None = None
    ) -> Evaluation:
        """Priors, values and (with a score head) scores of ``N`` positions of the model's game
        (``game``, when given, must be it)."""
        cfg = self.config
        if game is not None and get_game(game) != cfg.rules:
            raise ValueError(
                f"NetworkEvaluator: the model plays {_describe(cfg.rules)}, "
                f"not {_describe(get_game(game))}"
            )
        p, o = _as_bitboards(player), _as_bitboards(opponent)
        if p.shape != o.shape:
            raise ValueError(f"NetworkEvaluator: player {p.shape} and opponent {o.shape} differ")
        n = p.shape[0]
        priors = np.empty((n, cfg.policy_size), dtype=np.float32)
        values = np.empty(n, dtype=np.float32)
        scores = np.empty(n, dtype=np.float32)
        todo = np.arange(n)
        if self.cache_size:
            missing = []
            for i in range(n):
                hit = self._cache.get((int(p[i]), int(o[i])))
                if hit is None:
                    missing.append(i)
                else:
                    self._cache.move_to_end((int(p[i]), int(o[i])))
                    priors[i], values[i], scores[i] = hit
            self.hits += n - len(missing)
            todo = np.asarray(missing, dtype=np.int64)
        self.misses += len(todo)
        if len(todo):
            pr, va, sc = self._run(p[todo], o[todo])
            priors[todo], values[todo], scores[todo] = pr, va, sc
            if self.cache_size:
                for j, i in enumerate(todo):
                    self._cache[(int(p[i]), int(o[i]))] = (pr[j], float(va[j]), float(sc[j]))
                while len(self._cache) > self.cache_size:
                    self._cache.popitem(last=False)
        scored = cfg.score_head or cfg.score_distribution
        return Evaluation(priors, values, scores if scored else None)

    def _run(self, p: np.ndarray, o: np.ndarray) -> tuple[np.ndarray, ...]:
        """Priors, values and scores of positions, averaged over ``symmetries`` of each."""
        count = self.symmetries
        if count == 1:
            return self._run_once(p, o)
        game, n = self.config.rules, p.shape[0]
        ks = np.repeat(np.arange(count), n)
        tp, to = game.transform_states(np.tile(p, count), np.tile(o, count), ks)
        pr, va, sc = self._run_once(tp, to)
        actions = np.arange(pr.shape[1])[None, :]
        priors = np.zeros((n, pr.shape[1]), dtype=np.float32)
        for k in range(count):
            # where symmetry k sends each action: a row of the transformed position's priors
            # read back at those places is the original position's
            image = game.transform_policies(actions, np.array([k]))[0]
            back = np.empty((n, pr.shape[1]), dtype=np.float32)
            back[:, image] = pr[k * n : (k + 1) * n]
            priors += back
        priors /= count
        return priors, va.reshape(count, n).mean(axis=0), sc.reshape(count, n).mean(axis=0)

    def _run_once(self, p: np.ndarray, o: np.ndarray) -> tuple[np.ndarray, ...]:
        cfg = self.config
        logits = np.empty((p.shape[0], cfg.policy_size), dtype=np.float32)
        values = np.empty(p.shape[0], dtype=np.float32)
        scores = np.zeros(p.shape[0], dtype=np.float32)
        with torch.inference_mode():
            for s in range(0, p.shape[0], self.max_batch):
                x = torch.from_numpy(
                    cfg.rules.encode(
                        p[s : s + self.max_batch], o[s : s + self.max_batch], cfg.planes
                    )
                )
                k = x.shape[0]
                x = x.to(self.device)
                if self._net is not self.model:
                    x = x.contiguous(memory_format=torch.channels_last)
                with torch.autocast(
                    self.device.type,
                    dtype=torch.bfloat16,
                    enabled=self.bfloat16 and k >= BF16_MIN_BATCH,
                ):
                    out = self._net(x)
                named = named_outputs(cfg, out)
                logits[s : s + k] = named["policy_logits"].float().cpu().numpy()
                values[s : s + k] = named["value"].float().cpu().numpy()
                if "score" in named:
                    scores[s : s + k] = named["score"].float().cpu().numpy()
                elif "score_logits" in named:
                    scores[s : s + k] = self._expected_score(named["score_logits"])
        game = cfg.rules
        mask = game.legal_mask_batch(p, o)
        priors = masked_softmax(logits, mask)
        for i in np.flatnonzero(~mask.any(axis=1)):  # finished games: their exact result
            final = game.result(int(p[i]), int(o[i]))
            values[i] = np.sign(final)
            scores[i] = final / game.score_scale
        return priors, values, scores

    def _expected_score(self, logits: torch.Tensor) -> np.ndarray:
        """The mean of a score distribution over the game's ``score_scale``."""
        game = self.config.rules
        lo, hi = game.score_range  # type: ignore[misc]
        bins = torch.arange(lo, hi + 1, dtype=torch.float32, device=logits.device)
        mean = (torch.softmax(logits.float(), dim=1) * bins).sum(dim=1) / game.score_scale
        return mean.cpu().numpy()  # type: ignore[no-any-return]

    def __repr__(self) -> str:
        name = self.config.name or self.config.family
        return (
            f"NetworkEvaluator({name!r}, size={self.config.size}, cache_size={self.cache_size}, "
            f"precision={self.precision!r})"
        )
