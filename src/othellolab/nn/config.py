"""Typed, validated model configs: the family, its sizes, the board size and the input planes.

A config is plain data (no torch), so it can be read, validated and written without building a
model. Named sizes follow KataGo's habit of short names that say the shape:

>>> model_config("resnet-b6c64").blocks, model_config("resnet-b6c64").filters
(6, 64)
>>> model_config("cnn-13x128", size=6).layers
13
>>> model_config("mlp-classic").hidden
(100, 100)
"""

from __future__ import annotations

import contextlib
import re
from dataclasses import MISSING, dataclass, fields, replace
from typing import Any, ClassVar, NoReturn

from othellolab.config import CheckedTable, Option
from othellolab.core import ConfigError
from othellolab.core.games import Game, game_for, game_names
from othellolab.core.parsing import NumberError, clip, parse_int

FAMILIES = ("mlp", "cnn", "resnet")
"""Model families: a multilayer perceptron, a plain convolution stack, a residual network."""

PLANE_NAMES = ("player", "opponent", "legal", "empty", "ones")
"""Input planes a model may read (the same names as the datasets feature encoder): discs of the
side to move, of the opponent, legal moves of the side to move, empty squares, all ones."""

MLP_INPUTS = ("planes", "board")
"""How an MLP reads the position: the planes flattened, or one value per square (0 empty,
1 side to move, 2 opponent), as in the classic 64-100-100-65 policy network."""

SIZES = (8, 6, 4)

LIMITS = {
    "layers": 64,
    "blocks": 64,
    "filters": 1024,
    "hidden": 65536,
    "hidden layers": 64,
    "policy_channels": 1024,
    "value_channels": 1024,
    "value_hidden": 65536,
    "global_pool_every": 64,
}
"""Largest value of each size field (``hidden``: each width; ``hidden layers``: how many), so
that a config cannot ask for a network that does not fit in memory or takes hours to build."""

MAX_PARAMETERS = 100_000_000
"""Most trainable parameters a config may describe (400 MB of float32 weights); checked from
the config alone, before any tensor is allocated."""


class ModelConfigError(ConfigError):
    """A model config that is malformed; ``option`` names the key at fault, when there is one
    (``model config: option filters: must be a whole number in 0..1024, got 1025``)."""


def _game_name(value: str) -> str:
    """``value`` if it names a registered game (``core.games``), else a ``ConfigError``."""
    if value not in game_names():
        raise ConfigError(
            f"expected one of {', '.join(game_names())}, got {value!r}",
            allowed=", ".join(game_names()),
        )
    return value


def _size(key: str, low: int, help: str) -> Option:
    """A whole-number size from ``low`` up to its ``LIMITS`` entry."""
    return Option(int, low, LIMITS[key], help=help)


@dataclass(frozen=True)
class ModelConfig(CheckedTable):
    """One policy/value network's shape.

    ``layers`` is the depth of a ``cnn`` (3x3 convolutions), ``blocks`` the residual blocks of
    a ``resnet``, ``hidden`` the hidden widths of an ``mlp``; ``filters`` the width of the
    convolutional trunks. Every model has a policy head over ``size*size + 1`` actions (pass
    last) and a tanh value head; ``score_head`` adds a tanh head for the final disc difference
    divided by ``size*size``. ``game`` (``core.games``) is ``othello`` on ``size`` x ``size``,
    or ``animal-shogi``: a 4 x 3 board, its 17 planes and 132 actions (``size`` unused).
    ``mask_illegal`` (Othello, with the ``legal`` plane) masks the policy logits of illegal
    actions in the forward itself, so the raw policy is a distribution over legal actions (the
    pass alone when there is no move) and every exported model carries the rule.

    Auxiliary heads (KataGo's targets, trained by self-play's ``[train]`` weights), each built
    only for a game that has the target: ``ownership_head`` (tanh, each cell's owner at the
    end, ``Game.ownership``), ``score_distribution`` (logits over the final scores of
    ``Game.score_range``) and ``opponent_policy_head`` (logits of the opponent's reply).
    ``global_pool_every`` = K (a ``resnet``; 0: none): every K-th residual block adds channel
    biases computed from the mean and maximum over the board of a quarter of its channels
    (``pool_channels``), KataGo's global pooling; the bias layer starts at zero, so a block
    starts as the plain block it extends.

    Each key is declared in ``OPTIONS`` (type and range; sizes up to ``LIMITS``); the checks
    across keys follow: the family's own sizes at least 1, the planes the game reads, the heads
    the game has, and at most ``MAX_PARAMETERS`` parameters in all.
    """

    family: str
    size: int = 8
    planes: tuple[str, ...] = ("player", "opponent")
    layers: int = 0
    blocks: int = 0
    filters: int = 0
    hidden: tuple[int, ...] = ()
    mlp_input: str = "planes"
    batch_norm: bool = True
    policy_channels: int = 2
    value_channels: int = 1
    value_hidden: int = 64
    score_head: bool = False
    name: str = ""
    game: str = "othello"
    mask_illegal: bool = False
    ownership_head: bool = False
    score_distribution: bool = False
    opponent_policy_head: bool = False
    global_pool_every: int = 0

    TABLE: ClassVar[str] = "model config"
    ERROR: ClassVar[type[ConfigError]] = ModelConfigError
    OPTIONS: ClassVar[dict[str, Option]] = {
        "family": Option(str, choices=FAMILIES, help="the model family"),
        "size": Option(int, min(SIZES), max(SIZES), help="Othello's board size: 8, 6 or 4"),
        "planes": Option(
            tuple,
            items=Option(str),
            max_items=len(PLANE_NAMES) * 8,
            shown="list of plane names",
            help="the input planes, player and opponent first (`PLANE_NAMES`)",
        ),
        "layers": _size("layers", 0, "cnn: 3x3 convolutions (at least 1 for a cnn)"),
        "blocks": _size("blocks", 0, "resnet: residual blocks (at least 1 for a resnet)"),
        "filters": _size("filters", 0, "cnn, resnet: channels of the trunk (at least 1)"),
        "hidden": Option(
            tuple,
            items=_size("hidden", 1, "a hidden width"),
            max_items=LIMITS["hidden layers"],
            help="mlp: the hidden widths (at least one)",
        ),
        "mlp_input": Option(str, choices=MLP_INPUTS, help="mlp: planes, or one value a square"),
        "batch_norm": Option(bool, help="batch normalisation after each convolution"),
        "policy_channels": _size("policy_channels", 1, "channels of the policy head"),
        "value_channels": _size("value_channels", 1, "channels of the value head"),
        "value_hidden": _size("value_hidden", 1, "width of the value head's hidden layer"),
        "score_head": Option(bool, help="a head for the final disc difference"),
        "name": Option(str, help="the named size it was made from ('': none)"),
        "game": Option(str, check=_game_name, help="the game (`core.games`)"),
        "mask_illegal": Option(bool, help="mask illegal actions' logits (needs `legal`)"),
        "ownership_head": Option(bool, help="a head for each cell's final owner"),
        "score_distribution": Option(bool, help="a head of logits over the final scores"),
        "opponent_policy_head": Option(bool, help="a head for the opponent's reply"),
        "global_pool_every": _size(
            "global_pool_every", 0, "resnet: every K-th block pools the board (0: none)"
        ),
    }

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.planes == ("player", "opponent"):
            # a game whose planes are not Othello's reads all of its own
            with contextlib.suppress(ConfigError, ValueError):
                object.__setattr__(self, "planes", self.rules.check_planes(None))
        self._check_across_keys()

    def _fail(self, key: str | None, what: str) -> NoReturn:
        raise ModelConfigError(what, where=self.TABLE, option=key)

    def _check_across_keys(self) -> None:
        """The checks that read more than one key: a ``ModelConfigError`` naming the first
        key at fault."""
        if self.size not in SIZES:
            self._fail("size", f"expected one of {', '.join(map(str, SIZES))}, got {self.size}")
        rules = self.rules
        try:
            rules.check_planes(self.planes)
        except (ConfigError, ValueError) as e:
            known = getattr(rules, "plane_choices", rules.plane_names)
            for plane in self.planes:
                if plane not in known:
                    self._fail(
                        "planes", f"unknown plane {clip(plane)!r}; expected one of {list(known)}"
                    )
            self._fail("planes", f"{getattr(e, 'what', str(e))}; got {clip(list(self.planes), 80)}")
        two_colours = rules.plane_names[:2] == ("player", "opponent")
        if self.family == "mlp" and self.mlp_input == "board" and not two_colours:
            self._fail("mlp_input", "'board' reads two-colour boards")
        if len(set(self.planes)) != len(self.planes):
            self._fail("planes", f"planes repeat a name: {list(self.planes)}")
        if self.mask_illegal and "legal" not in self.planes:
            self._fail("mask_illegal", "needs a model with the 'legal' plane")
        own = {"mlp": ("hidden",), "cnn": ("layers", "filters"), "resnet": ("blocks", "filters")}
        for key in ("layers", "blocks", "filters"):
            if key in own[self.family] and getattr(self, key) < 1:
                self._fail(key, f"a {self.family} needs at least 1, got {getattr(self, key)}")
        if self.global_pool_every and self.family != "resnet":
            self._fail("global_pool_every", "global pooling needs a resnet")
        if self.ownership_head and not rules.has_ownership:
            self._fail("ownership_head", f"{rules.label} has no ownership of its cells")
        if self.score_distribution and rules.score_range is None:
            self._fail("score_distribution", f"{rules.label} has no whole-number score range")
        if self.family == "mlp" and not self.hidden:
            self._fail("hidden", "an mlp needs at least one 'hidden' width")
        n = parameter_count(self)
        if n > MAX_PARAMETERS:
            self._fail(
                None,
                f"this network would have {n:,} parameters; at most {MAX_PARAMETERS:,} are "
                "allowed (see nn.config.LIMITS)",
            )

    @property
    def rules(self) -> Game:
        """The game (``core.games``) the model plays."""
        return game_for(self.game, self.size)

    @property
    def channels(self) -> int:
        """Number of input planes."""
        return len(self.planes)

    @property
    def policy_size(self) -> int:
        """Number of actions: ``size*size`` squares and pass (Othello), or the game's."""
        return self.rules.n_actions

    @property
    def cells(self) -> int:
        """Squares of the board: ``rows * cols``."""
        return self.rules.rows * self.rules.cols

    @property
    def score_bins(self) -> int:
        """Bins of the score distribution: one per final score of ``Game.score_range``."""
        found = self.rules.score_range
        return 0 if found is None else found[1] - found[0] + 1

    @property
    def pool_channels(self) -> int:
        """Channels a global-pooling block pools: a quarter of ``filters``, at least one."""
        return max(1, self.filters // 4)

    def pools(self, block: int) -> bool:
        """Whether residual block ``block`` (0-based) is a global-pooling block."""
        k = self.global_pool_every
        return k > 0 and block % k == k - 1

    @property
    def outputs(self) -> tuple[str, ...]:
        """The names of the forward's outputs, in order: ``policy_logits``, ``value``, then
        those of the optional heads the config has."""
        optional = (
            ("score", self.score_head),
            ("ownership", self.ownership_head),
            ("score_logits", self.score_distribution),
            ("opponent_policy_logits", self.opponent_policy_head),
        )
        return ("policy_logits", "value", *(name for name, on in optional if on))

    @property
    def input_shape(self) -> tuple[int, int, int]:
        """Shape ``(C, rows, cols)`` of one input (``(C, size, size)`` for Othello)."""
        return (self.channels, self.rules.rows, self.rules.cols)

    @classmethod
    def defaults(cls) -> dict[str, Any]:
        """The options that have defaults, as JSON-ready data: a run frozen before an option
        existed resumes when its config keeps the option's default."""
        return {
            f.name: list(f.default) if isinstance(f.default, tuple) else f.default
            for f in fields(cls)
            if f.default is not MISSING
        }

    @classmethod
    def from_dict(cls, data: Any, *, where: str | None = None) -> ModelConfig:
        """Build from a dict, rejecting unknown keys; a ``preset`` key (a named size) supplies
        defaults that the other keys override. Errors are located at ``where``."""
        where = cls.TABLE if where is None else where
        if not isinstance(data, dict):
            raise ModelConfigError(
                f"expected a table of options, got {type(data).__name__}", where=where
            )
        data = dict(data)
        known = [f.name for f in fields(cls)]
        unknown = sorted(map(str, set(data) - set(known) - {"preset"}))
        if unknown:
            raise ModelConfigError(
                f"unknown key(s) {', '.join(unknown)}; known: preset, {', '.join(sorted(known))}",
                where=where,
                option=unknown[0],
            )
        preset = data.pop("preset", None)
        try:
            if preset is not None:
                if not isinstance(preset, str):
                    raise ModelConfigError(
                        f"expected a named size ({', '.join(PRESETS)}), got {clip(repr(preset))}",
                        option="preset",
                    )
                base = model_config(preset)
                if set(data) & _SHAPE_KEYS and "name" not in data:
                    data["name"] = ""
                return replace(base, **data)
            if "family" not in data:
                raise ModelConfigError("give 'preset' (a named size) or 'family'")
            return cls(**data)
        except ModelConfigError as e:  # located at ``where`` instead of "model config"
            raise ModelConfigError(e.what, where=where, option=e.option) from None


def parameter_count(config: ModelConfig) -> int:
    """Trainable parameters of the network ``config`` describes, computed from the config alone
    (``nn.models.count_parameters`` of the built model gives the same number)."""
    n2 = config.cells
    actions = config.policy_size
    bn = config.batch_norm

    def conv(cin: int, cout: int, k: int) -> int:
        return cin * cout * k * k + (2 * cout if bn else cout)

    def dense(cin: int, cout: int) -> int:
        return cin * cout + cout

    scores = 1 if config.score_head else 0
    bins = config.score_bins if config.score_distribution else 0
    if config.family == "mlp":
        width = n2 if config.mlp_input == "board" else config.channels * n2
        total = 0
        for h in config.hidden:
            total += dense(width, h)
            width = h
        aux = dense(width, n2) if config.ownership_head else 0
        aux += dense(width, bins) if bins else 0
        aux += dense(width, actions) if config.opponent_policy_head else 0
        return total + dense(width, actions) + dense(width, 1) * (1 + scores) + aux
    f = config.filters
    if config.family == "cnn":
        trunk = sum(conv(config.channels if i == 0 else f, f, 3) for i in range(config.layers))
    else:
        trunk = conv(config.channels, f, 3) + config.blocks * 2 * conv(f, f, 3)
        pooled = sum(config.pools(b) for b in range(config.blocks))
        trunk += pooled * dense(2 * config.pool_channels, f)
    pc, vc, vh = config.policy_channels, config.value_channels, config.value_hidden
    heads = conv(f, pc, 1) + dense(pc * n2, actions) + conv(f, vc, 1) + dense(vc * n2, vh)
    aux = dense(f, 1) if config.ownership_head else 0
    aux += dense(vh, bins) if bins else 0
    aux += conv(f, pc, 1) + dense(pc * n2, actions) if config.opponent_policy_head else 0
    return trunk + heads + dense(vh, 1) * (1 + scores) + aux


AUX_HEADS = ("ownership_head", "score_distribution", "opponent_policy_head")
"""The auxiliary heads' switches (``ModelConfig``)."""


_SHAPE_KEYS = frozenset({"family", "layers", "blocks", "filters", "hidden", "mlp_input"})

_NAMED = {
    "mlp-classic": dict(family="mlp", hidden=(100, 100), mlp_input="board", batch_norm=False),
}
_PATTERNS = (
    (
        re.compile(r"resnet-b([0-9]+)c([0-9]+)"),
        ("blocks", "filters"),
        lambda b, c: dict(family="resnet", blocks=b, filters=c),
    ),
    (
        re.compile(r"cnn-([0-9]+)x([0-9]+)"),
        ("layers", "filters"),
        lambda n, c: dict(family="cnn", layers=n, filters=c, batch_norm=False),
    ),
    (
        re.compile(r"mlp-([0-9]+)x([0-9]+)"),
        ("hidden layers", "hidden"),
        lambda d, w: dict(family="mlp", hidden=(w,) * d),
    ),
)
"""Named sizes: pattern, the ``LIMITS`` key of each number, and the fields they make."""

PRESETS = (
    "mlp-classic",
    "mlp-<depth>x<width>",
    "cnn-<layers>x<filters>",
    "resnet-b<blocks>c<filters>",
)
"""The forms a named size takes."""


def model_config(name: str, **overrides: Any) -> ModelConfig:
    """The config of a named size (``"resnet-b6c64"``, ``"cnn-13x128"``, ``"mlp-classic"``),
    with field overrides (``size=6``, ``planes=(...)``, ``score_head=True``)."""
    key = name.strip().lower()
    if key in _NAMED:
        base: dict[str, Any] = dict(_NAMED[key])
    else:
        for pattern, keys, make in _PATTERNS:
            m = pattern.fullmatch(key)
            if m:
                try:
                    numbers = [
                        parse_int(g, lo=0, hi=LIMITS[k], what=k)
                        for g, k in zip(m.groups(), keys, strict=True)
                    ]
                except NumberError as e:
                    raise ModelConfigError(f"model name {clip(name)!r}: {e.what}") from None
                base = make(*numbers)
                break
        else:
            raise ModelConfigError(
                f"unknown model name {clip(name)!r}; expected one of: {', '.join(PRESETS)}"
            )
    base["name"] = key
    base.update(overrides)
    return ModelConfig(**base)
