"""The self-play engine's options in one frozen, validated dataclass.

Every option is declared with its type and range (``config.options.Option``, the same checks
as player options): a value off its range, of the wrong type or not finite raises a
``ConfigError`` that names the option; ``from_dict`` also rejects unknown keys.

>>> SelfPlayConfig(simulations=32, variant="gumbel").simulations
32
>>> SelfPlayConfig(leaves=0)
Traceback (most recent call last):
...
othellolab.core.errors.ConfigError: self-play config: option leaves: must be a whole number in 1..256, got 0
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, ClassVar

from othellolab.config import CheckedTable, Option, table_from_dict
from othellolab.core import ConfigError
from othellolab.players.mcts.batch import VARIANTS, SearchConfig

__all__ = ["VARIANTS", "SelfPlayConfig"]

_SEARCH = SearchConfig.OPTIONS
"""The options self-play shares with the players' batched search (``players.mcts.batch``)."""


@dataclass(frozen=True)
class SelfPlayConfig(CheckedTable):
    """How self-play searches and plays (defaults in brackets).

    Search: ``simulations`` per searched move [100] (with ``reuse``, visits kept from the
    previous move count towards them), ``leaves`` per tree per batched step [8] (virtual loss
    spreads them), ``c_puct`` [none: 1.5 with network priors, 1.0 (UCT) without], ``variant``
    [puct] or gumbel, ``parallel`` games searched together [128]. PUCT only: Dirichlet
    ``dirichlet_alpha`` [0.3; 0 turns noise off] mixed in with weight ``dirichlet_epsilon``
    [0.25] at the root of each full search; moves drawn from visits^(1/``temperature``) [1.0]
    for the first ``temperature_plies`` plies [10] of a game, the most visited after;
    ``reuse`` the subtree of the move played [true]. Gumbel only: ``gumbel_actions`` sampled
    at the root [16], the transform's ``gumbel_c_visit`` [50] and ``gumbel_c_scale`` [1.0];
    the move played is the sequential-halving winner by ``g + logits + sigma`` for the first
    ``gumbel_noise_plies`` plies [none: every move], then by ``logits + sigma`` (no noise,
    for value targets of the best play found, as a temperature schedule does for PUCT).
    Playout-cap randomisation: a share ``full_share`` [1.0: off] of moves gets the full
    ``simulations`` (and noise), the rest ``fast_simulations`` [16]; only full searches give
    policy targets. Forced playouts (KataGo; PUCT only, in full searches only): each root
    child with prior P gets at least ``sqrt(forced_playouts_k * P * N)`` of the root's ``N``
    visits [0: off; KataGo uses 2], and with ``prune_policy_target`` [false] the policy target
    (and the moves sampled from it) takes back those the search would not have given
    (``players.mcts.forced``). Resignation: a side resigns after ``resign_moves`` [2] consecutive moves
    whose best root value is below ``resign_threshold`` [-0.9; -1 turns it off], except in a
    share ``no_resign_share`` [0.1] of games, played out to count false resignations.
    Values: a finished game is worth the sign of its disc difference mixed with the difference
    divided by the squares, in the share ``score_value`` [0: win/draw/loss only]; a network
    trained for perfect play by discs (the 6x6 grader's measure) wants 1.
    Exact endgame: positions with at most ``solve_empties`` [0: off] empty squares are played
    by the exact solver instead of a search (``training.selfplay.exact``): an optimal move,
    exact value and policy targets; with ``solve_leaves`` [false] the searches also solve
    their leaves that close to the end instead of evaluating them (stronger, dearer: for
    grading and play more than self-play). Score-aware utility (KataGo): a network's values
    are backed up as ``(value + score_utility * 2/pi * atan(score / score_utility_scale)) /
    (1 + score_utility)`` [0: off; scale 0.25], ``score`` the expected final score over the
    game's scale (a model with a score head or distribution; ``nn.inference.utility``).
    ``seed`` [none] seeds every random choice.
    """

    simulations: int = 100
    leaves: int = 8
    c_puct: float | None = None
    variant: str = "puct"
    parallel: int = 128
    dirichlet_alpha: float = 0.3
    dirichlet_epsilon: float = 0.25
    temperature: float = 1.0
    temperature_plies: int = 10
    reuse: bool = True
    gumbel_actions: int = 16
    gumbel_c_visit: float = 50.0
    gumbel_c_scale: float = 1.0
    gumbel_noise_plies: int | None = None
    full_share: float = 1.0
    fast_simulations: int = 16
    forced_playouts_k: float = 0.0
    prune_policy_target: bool = False
    resign_threshold: float = -0.9
    resign_moves: int = 2
    no_resign_share: float = 0.1
    score_value: float = 0.0
    solve_empties: int = 0
    solve_leaves: bool = False
    score_utility: float = 0.0
    score_utility_scale: float = 0.25
    seed: int | None = None

    TABLE: ClassVar[str] = "self-play config"
    OPTIONS: ClassVar[dict[str, Option]] = {
        "simulations": _SEARCH["simulations"],
        "leaves": _SEARCH["leaves"],
        "c_puct": _SEARCH["c_puct"],
        "variant": _SEARCH["variant"],
        "parallel": _SEARCH["parallel"],
        "dirichlet_alpha": _SEARCH["dirichlet_alpha"],
        "dirichlet_epsilon": _SEARCH["dirichlet_epsilon"],
        "temperature": Option(float, 0.01, 100, help="move sampling temperature"),
        "temperature_plies": Option(int, 0, 1000, help="plies played by sampling"),
        "reuse": Option(bool, help="keep the subtree of the move played"),
        "gumbel_actions": _SEARCH["gumbel_actions"],
        "gumbel_c_visit": _SEARCH["gumbel_c_visit"],
        "gumbel_c_scale": _SEARCH["gumbel_c_scale"],
        "gumbel_noise_plies": Option(
            int, 0, 1000, optional=True, help="plies played with the Gumbel noise"
        ),
        "full_share": Option(float, 0, 1, help="share of moves with a full search"),
        "fast_simulations": Option(int, 1, 100_000, help="simulations of a fast search"),
        "forced_playouts_k": Option(
            float, 0, 100, help="forced root playouts sqrt(k P N) (0: off; PUCT only)"
        ),
        "prune_policy_target": Option(bool, help="prune forced playouts from policy targets"),
        "resign_threshold": Option(float, -1, 1, help="resign below this value (-1: never)"),
        "resign_moves": Option(int, 1, 1000, help="consecutive moves below the threshold"),
        "no_resign_share": Option(float, 0, 1, help="share of games never resigned"),
        "score_value": _SEARCH["score_value"],
        "solve_empties": Option(
            int, 0, 20, help="empty squares from which the exact solver plays (0: never)"
        ),
        "solve_leaves": Option(bool, help="searches solve their leaves near the end too"),
        "score_utility": Option(float, 0, 10, help="weight of the score in the utility"),
        "score_utility_scale": Option(
            float, 0.001, 10, help="score (over the game's scale) where atan bends"
        ),
        "seed": _SEARCH["seed"],
    }

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.full_share < 1 and self.fast_simulations >= self.simulations:
            raise ConfigError(
                f"a fast search must have fewer simulations than a full one ({self.simulations})"
                f", got {self.fast_simulations}",
                where="self-play config",
                option="fast_simulations",
            )
        if self.variant == "gumbel":
            for name in ("forced_playouts_k", "prune_policy_target"):
                if getattr(self, name):
                    raise ConfigError(
                        "needs variant = 'puct': the Gumbel root has its own improved policy "
                        "target",
                        where="self-play config",
                        option=name,
                    )
        if self.prune_policy_target and self.forced_playouts_k == 0:
            raise ConfigError(
                "prunes forced playouts: set forced_playouts_k > 0 (2 in KataGo)",
                where="self-play config",
                option="prune_policy_target",
            )

    @classmethod
    def from_dict(cls, data: dict[str, Any], *, where: str = "self-play config") -> SelfPlayConfig:
        """A config from a mapping (a TOML table), rejecting unknown keys."""
        return table_from_dict(cls, data, where)  # type: ignore[no-any-return]

    def to_dict(self) -> dict[str, Any]:
        """The options as a plain mapping (``from_dict`` reads it back)."""
        return asdict(self)

    def forced_for(self, full: bool) -> float:
        """The forced-playouts constant of a full or of a fast search (fast ones: none)."""
        return self.forced_playouts_k if full else 0.0

    def utility(self) -> dict[str, float]:
        """The network evaluator's utility options (``nn.inference.NetworkEvaluator``)."""
        return {
            "score_utility": self.score_utility,
            "score_utility_scale": self.score_utility_scale,
        }

    def simulations_for(self, full: bool) -> int:
        """Simulations of a full or of a fast search."""
        return self.simulations if full or self.full_share >= 1 else self.fast_simulations
