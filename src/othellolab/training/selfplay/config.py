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

from dataclasses import dataclass, field, fields, replace
from typing import Any, ClassVar

from othellolab.config import CheckedTable, Option
from othellolab.core import ConfigError
from othellolab.players.mcts.batch import VARIANTS, SearchConfig

__all__ = ["VARIANTS", "SelfPlayConfig"]

_SEARCH_KEYS = frozenset(f.name for f in fields(SearchConfig))
"""The options self-play's ``search`` holds (``players.mcts.batch.SearchConfig``)."""


@dataclass(frozen=True, init=False)
class SelfPlayConfig(CheckedTable):
    """How self-play searches and plays (defaults in brackets).

    Search: ``search``, the batched search's own options (``players.mcts.batch.SearchConfig``:
    ``simulations``, ``leaves``, ``c_puct``, ``variant``, ``parallel``, the Dirichlet noise, the
    Gumbel root's options, ``score_value`` and ``seed``), read flat from the same table and
    readable as attributes of this config (``config.simulations``). With ``reuse``, visits
    kept from the previous move count towards ``simulations``. PUCT only: moves drawn from
    visits^(1/``temperature``) [1.0] for the first ``temperature_plies`` plies [10] of a game,
    the most visited after; ``reuse`` the subtree of the move played [true]. Gumbel only: the
    move played is the sequential-halving winner by ``g + logits + sigma`` for the first
    ``gumbel_noise_plies`` plies [none: every move], then by ``logits + sigma`` (no noise,
    for value targets of the best play found, as a temperature schedule does for PUCT).
    Playout-cap randomisation: a share ``full_share`` [1.0: off] of moves gets the full
    ``simulations`` (and noise), the rest ``fast_simulations`` [16]; only full searches give
    policy targets. Forced playouts (KataGo; PUCT only, in full searches only): each root
    child with prior P gets at least ``sqrt(forced_playouts_k * P * N)`` of the root's ``N``
    visits [0: off; KataGo uses 2], and with ``prune_policy_target`` [false] the policy target
    (and the moves sampled from it) takes back those the search would not have given
    (``players.mcts.forced``). Resignation: a side resigns after ``resign_moves`` [2]
    consecutive moves whose best root value is below ``resign_threshold`` [-0.9; -1 turns it
    off], except in a share ``no_resign_share`` [0.1] of games, played out to count false
    resignations. Exact endgame: positions with at most ``solve_empties`` [0: off] empty
    squares are played by the exact solver instead of a search (``training.selfplay.exact``):
    an optimal move, exact value and policy targets; with ``solve_leaves`` [false] the
    searches also solve their leaves that close to the end instead of evaluating them
    (stronger, dearer: for grading and play more than self-play). Score-aware utility
    (KataGo): a network's values are backed up as ``(value + score_utility * 2/pi *
    atan(score / score_utility_scale)) / (1 + score_utility)`` [0: off; scale 0.25],
    ``score`` the expected final score over the game's scale (a model with a score head or
    distribution; ``nn.inference.utility``).

    Built from flat keyword options (``SelfPlayConfig(simulations=32, temperature=0.5)``):
    the search's go to ``search``.
    """

    search: SearchConfig = field(default_factory=SearchConfig)
    temperature: float = 1.0
    temperature_plies: int = 10
    reuse: bool = True
    gumbel_noise_plies: int | None = None
    full_share: float = 1.0
    fast_simulations: int = 16
    forced_playouts_k: float = 0.0
    prune_policy_target: bool = False
    resign_threshold: float = -0.9
    resign_moves: int = 2
    no_resign_share: float = 0.1
    solve_empties: int = 0
    solve_leaves: bool = False
    score_utility: float = 0.0
    score_utility_scale: float = 0.25

    TABLE: ClassVar[str] = "self-play config"
    SECTIONS: ClassVar[dict[str, type]] = {"search": SearchConfig}
    OPTIONS: ClassVar[dict[str, Option]] = {
        "temperature": Option(
            float, 0.01, 100, help="PUCT: moves drawn from visits^(1/temperature) ..."
        ),
        "temperature_plies": Option(
            int,
            0,
            1000,
            help="... for the first plies of a game (passes count); then the most visited move (ties: the higher Q)",
        ),
        "reuse": Option(bool, help="PUCT: keep the subtree of the move played for the next search"),
        "gumbel_noise_plies": Option(
            int,
            0,
            1000,
            optional=True,
            help="Gumbel: the move played is the sequential-halving winner by `g + logits + sigma` for this many plies, then by `logits + sigma` without the noise (none: always with it)",
        ),
        "full_share": Option(
            float,
            0,
            1,
            help="playout-cap randomisation: share of moves searched with `simulations` (1: every move)",
        ),
        "fast_simulations": Option(
            int,
            1,
            100_000,
            help="playout-cap randomisation: simulations of the other moves (fewer than `simulations`)",
        ),
        "forced_playouts_k": Option(
            float,
            0,
            100,
            help="PUCT, full searches only: forced playouts, each root child with prior P gets at least sqrt(k P N) of the root's N visits (0: off; KataGo uses 2; below)",
        ),
        "prune_policy_target": Option(
            bool,
            help="PUCT: the policy target (and the moves sampled from it) takes back the forced playouts the search would not have spent (needs `forced_playouts_k` > 0; below)",
        ),
        "resign_threshold": Option(
            float,
            -1,
            1,
            help="a side resigns when the best of its root value and best child's Q is below this ... (-1: never)",
        ),
        "resign_moves": Option(
            int, 1, 1000, help="... on this many of its consecutive searched moves"
        ),
        "no_resign_share": Option(
            float,
            0,
            1,
            help="share of games played out with resignation off, to count false resignations",
        ),
        "solve_empties": Option(
            int,
            0,
            20,
            help="positions with at most this many empty squares are played by the exact solver instead of a search: an optimal move, exact value and policy targets (0: never)",
        ),
        "solve_leaves": Option(
            bool,
            help="searches also solve their leaves within `solve_empties` of the end instead of evaluating them (stronger, dearer: for grading and play)",
        ),
        "score_utility": Option(
            float,
            0,
            10,
            help="KataGo's score utility: a network's values are backed up as `(value + w * 2/pi * atan(score / scale)) / (1 + w)`, `score` the expected final score over the game's scale (the score head, or the mean of the score distribution: set `[train] score_weight`); finished games in the tree keep their value (`score_value`); 0: off",
        ),
        "score_utility_scale": Option(
            float,
            0.001,
            10,
            help="the utility's `scale`: where the atan bends, over the game's scale (0.25: 16 discs on 8x8, 9 on 6x6)",
        ),
    }

    def __init__(self, search: SearchConfig | None = None, **options: Any) -> None:
        flat = {k: options.pop(k) for k in list(options) if k in _SEARCH_KEYS}
        search = SearchConfig() if search is None else search
        if flat:
            try:
                search = replace(search, **flat)
            except ConfigError as e:
                raise ConfigError(
                    e.what, where=self.TABLE, option=e.option, allowed=e.allowed
                ) from None
        object.__setattr__(self, "search", search)
        for f in fields(self):
            if f.name != "search":
                object.__setattr__(self, f.name, options.pop(f.name, f.default))
        if options:
            raise TypeError(f"SelfPlayConfig got unexpected option(s) {', '.join(options)}")
        self.__post_init__()

    def __getattr__(self, name: str) -> Any:
        """A search option (``simulations``, ``seed``...) read from ``search``."""
        if name in _SEARCH_KEYS:
            return getattr(self.__dict__["search"], name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

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
