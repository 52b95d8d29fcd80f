"""Players by name: ``make_player("greedy:seed=3")`` builds any registered player from a spec.

A spec is ``NAME`` or ``NAME:KEY=VALUE,KEY=VALUE``; values are read as int, float (ASCII digits
only), bool (``true``/``false``), ``none`` or string. Every registered player declares its
options (``config.options``): the registry refuses unknown ones and the player's checked
``__init__`` refuses values out of range, each with a ``ConfigError`` naming the option and
its range. ``othellolab players`` and the web board's ``/api/players`` show the ranges.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from othellolab.config.options import Option
from othellolab.core import ConfigError
from othellolab.core.games import Game, game_names, get_game
from othellolab.core.parsing import parse_number
from othellolab.nn.pretrained import DEFAULT_MODEL, ModelCatalog, describe_names
from othellolab.players.base import Player

MAX_SPEC_LENGTH = 2000
"""Longest spec accepted (characters)."""


@dataclass(frozen=True)
class PlayerEntry:
    """A registered player: its factory, a one-line description and a strength rank.

    ``strength`` orders players for "the strongest available" (higher is stronger);
    ``defaults`` are the options used when that player is picked as strongest.
    """

    name: str
    factory: Callable[..., Player]
    help: str
    strength: int = 0
    aliases: tuple[str, ...] = ()
    defaults: dict[str, Any] = field(default_factory=dict)

    def options(self) -> dict[str, Any]:
        """The factory's keyword options and their defaults."""
        sig = inspect.signature(self.factory)
        return {
            n: (None if p.default is inspect.Parameter.empty else p.default)
            for n, p in sig.parameters.items()
            if p.kind in (inspect.Parameter.KEYWORD_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
        }

    def declared(self) -> dict[str, Option]:
        """Each option's declaration (type, range, help): the factory's ``OPTIONS``."""
        return dict(getattr(self.factory, "OPTIONS", {}))

    def games(self) -> tuple[str, ...]:
        """The games (``core.games`` names) the player plays: its class's ``games`` (``None``:
        every registered game)."""
        games = getattr(self.factory, "games", Player.games)
        return game_names() if games is None else tuple(games)

    def spec_options(self) -> dict[str, Any]:
        """The options a spec string may set, with their defaults (Python-only ones left out)."""
        declared = self.declared()
        return {k: v for k, v in self.options().items() if k not in declared or declared[k].spec}


_REGISTRY: dict[str, PlayerEntry] = {}
_ALIASES: dict[str, str] = {}


def register_player(
    name: str,
    factory: Callable[..., Player],
    help: str,
    *,
    strength: int = 0,
    aliases: tuple[str, ...] = (),
    defaults: dict[str, Any] | None = None,
) -> None:
    """Make ``factory`` available as ``name`` (and its aliases) in player specs. A factory with
    an ``OPTIONS`` table (``config.options``) has its spec values checked against it."""
    entry = PlayerEntry(name, factory, help, strength, aliases, dict(defaults or {}))
    _REGISTRY[name] = entry
    for alias in aliases:
        _ALIASES[alias] = name


def _parse_value(text: str) -> Any:
    low = text.lower()
    if low in ("true", "yes", "on"):
        return True
    if low in ("false", "no", "off"):
        return False
    if low in ("none", "null"):
        return None
    number = parse_number(text)
    return text if number is None else number


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """Split ``"name:k=v,k2=v2"`` into the name and its typed options.

    A value in single or double quotes is taken literally as a string (quotes removed), so it
    may hold commas, ``=`` and spaces: ``nboard:cmd='edax -n 1',depth=8``. ``name:`` with
    nothing after the colon has no options (as ``name``); an empty item (``depth=3,,``,
    ``:,depth=3``, a trailing comma) is refused, since it is most likely a typo.
    """
    if not isinstance(spec, str):
        raise ConfigError(f"expected a player spec string, got {type(spec).__name__}")
    if len(spec) > MAX_SPEC_LENGTH:
        raise ConfigError(
            f"player spec of {len(spec)} characters is too long ({MAX_SPEC_LENGTH} at most)"
        )
    name, _, rest = spec.strip().partition(":")
    options: dict[str, Any] = {}
    for item in _split_options(rest, spec):
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise ConfigError(f"option {item!r} is not KEY=VALUE", where=f"player spec {spec!r}")
        key = key.strip().replace("-", "_")
        if key in options:
            raise ConfigError("given twice", where=f"player spec {spec!r}", option=key)
        value = value.strip()
        quoted = len(value) >= 2 and value[0] == value[-1] and value[0] in "'\""
        options[key] = value[1:-1] if quoted else _parse_value(value)
    return name.strip().lower(), options


def _split_options(rest: str, spec: str) -> list[str]:
    """The ``KEY=VALUE`` items of a spec's option part: split on commas outside quotes."""
    items: list[str] = []
    current: list[str] = []
    quote = ""
    for ch in rest:
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == ",":
            items.append("".join(current))
            current = []
            continue
        current.append(ch)
    if quote:
        raise ConfigError(f"unclosed {quote} quote", where=f"player spec {spec!r}")
    items.append("".join(current))
    if len(items) == 1 and not items[0].strip():
        return []  # "name:" (or "name") has no options
    for number, item in enumerate(items, 1):
        if not item.strip():
            raise ConfigError(
                f"option {number} of {len(items)} is empty (a stray comma?); expected "
                "KEY=VALUE items separated by single commas",
                where=f"player spec {spec!r}",
            )
    return items


def get_entry(name: str) -> PlayerEntry:
    """The registry entry of a player name or alias."""
    _load_builtin()
    key = _ALIASES.get(name, name)
    if key not in _REGISTRY:
        known = ", ".join(sorted(_REGISTRY))
        raise ConfigError(f"unknown player {name[:100]!r}; known players: {known}")
    return _REGISTRY[key]


def spec_defaults(entry: PlayerEntry) -> dict[str, Any]:
    """``entry.spec_options()`` with each model option's default as the model it loads (the
    default shipped model, ``nn.pretrained.DEFAULT_MODEL``) rather than ``None``."""
    declared = entry.declared()
    return {
        key: DEFAULT_MODEL
        if default is None and key in declared and declared[key].model
        else default
        for key, default in entry.spec_options().items()
    }


def describe_options(
    entry: PlayerEntry, *, models: ModelCatalog | None = None, game: str | None = None
) -> dict[str, str]:
    """Each spec option of ``entry`` with its allowed values and default, in words. A model
    option lists the names of ``models`` (default: the shipped models; with ``game``, a game
    key, only those that play it), and says whether a model directory's path is taken too."""
    declared = entry.declared()
    out = {}
    for key, default in spec_defaults(entry).items():
        option = declared.get(key)
        if option is not None and option.model:
            catalog = models or ModelCatalog()
            names = describe_names(catalog.names(game)) or "none"
            text = f"a model name ({names})" + (
                " or a model directory" if catalog.allow_paths else ""
            )
        else:
            text = option.describe() if option is not None else "any"
        out[key] = f"{text} (default {'none' if default is None else default})"
    return out


def unset_option(spec: str, key: str, value: Any) -> dict[str, Any]:
    """``{key: value}`` when the player of ``spec`` takes option ``key`` and ``spec`` leaves it
    out, else ``{}``: a caller's default (the machine's cores, a server's threads a search) that
    the spec's own setting overrides, for ``make_player(spec, **unset_option(...))``."""
    name, options = parse_spec(spec)
    if key in options or key not in get_entry(name).spec_options():
        return {}
    return {key: value}


def make_player(
    spec: str | Player,
    game: str | Game | None = None,
    *,
    models: ModelCatalog | None = None,
    **overrides: Any,
) -> Player:
    """Build a player from a spec string (``"greedy:seed=1"``); a ``Player`` passes through.

    With a ``game`` (a ``Game`` or its name), a player that does not play it is refused before
    it is built, with a ``ConfigError`` that names the spec, the games it plays and the players
    of ``game``. ``models`` decides which model directories a ``model=`` option may name
    (default: the shipped models and any model directory by path; a server passes its own
    catalog). Errors are ``ConfigError``s naming the spec and the option.
    """
    if game is not None:
        _check_plays(spec, get_game(game).name)
    if isinstance(spec, Player):
        return spec
    name, options = parse_spec(spec)
    entry = get_entry(name)
    options.update(overrides)
    accepted = entry.spec_options()
    unknown = sorted(set(options) - set(accepted))
    where = f"player {entry.name!r}"
    if unknown:
        listing = ", ".join(f"{k}={v!r}" for k, v in accepted.items()) or "none"
        raise ConfigError(
            f"player {entry.name!r} has no option {', '.join(unknown)}; its options: {listing}",
            option=None,
        )
    catalog = models or ModelCatalog()
    for key, option in entry.declared().items():
        value = options.get(key)
        if option.path and not catalog.allow_paths and _looks_like_path(value):
            raise ConfigError(
                f"{value[:80]!r}: this server takes a shipped name here, not a path",
                where=where,
                option=key,
            )
        if option.model and key in options:
            try:
                options[key] = str(catalog.resolve(options[key]))
            except ConfigError as e:
                raise ConfigError(e.what, where=where, option=key, allowed=e.allowed) from None
    return entry.factory(**options)


def _check_plays(spec: str | Player, rules: str) -> None:
    """Refuse a player (spec or built) that does not play the game named ``rules``."""
    if isinstance(spec, Player):
        name, games = spec.name, game_names() if spec.games is None else tuple(spec.games)
    else:
        name, _ = parse_spec(spec)
        games = get_entry(name).games()
    if rules not in games:
        players = ", ".join(e.name for e in available_players() if rules in e.games())
        shown = spec if isinstance(spec, str) else name
        raise ConfigError(
            f"player {shown[:100]!r} plays {', '.join(games) or 'no game'}, not {rules}; "
            f"players of {rules}: {players}"
        )


def available_players() -> list[PlayerEntry]:
    """Every registered player, strongest first."""
    _load_builtin()
    return sorted(_REGISTRY.values(), key=lambda e: (-e.strength, e.name))


def _looks_like_path(value: object) -> bool:
    """Whether a spec value names a file system path rather than shipped data."""
    return isinstance(value, str) and (
        any(c in value for c in "/\\") or value.startswith((".", "~"))
    )


def strongest_player_spec(game: str | Game | None = None) -> str:
    """Spec of the strongest player with its recommended options: of the registry (8x8
    Othello's) when ``game`` is None, else of that game and board size, its ``default_player``
    (``az-6x6`` on 6x6, the exact solver on 4x4) with the options the spec leaves out."""
    if game is None:
        entry = available_players()[0]
        options: dict[str, Any] = dict(entry.defaults)
    else:
        name, given = parse_spec(get_game(game).default_player)
        entry = get_entry(name)
        options = {**entry.defaults, **given}
    if not options:
        return entry.name
    return entry.name + ":" + ",".join(f"{k}={v}" for k, v in options.items())


_LOADED = False


def _load_builtin() -> None:
    global _LOADED
    if _LOADED:
        return
    _LOADED = True
    from othellolab.players import (
        alphabeta,
        endgame,
        external,
        mcts,
        montecarlo,
        negamax,
        network,
        shogi_alphabeta,
        simple,
    )

    register_player("random", simple.RandomPlayer, "uniformly random legal move", strength=0)
    register_player(
        "greedy", simple.GreedyPlayer, "most discs flipped, random tie-break", strength=10
    )
    register_player(
        "montecarlo",
        montecarlo.MonteCarloPlayer,
        "flat Monte Carlo: random playouts per move, epsilon-greedy schedule",
        strength=30,
        aliases=("mc",),
    )
    register_player(
        "mcts",
        mcts.MCTSPlayer,
        "Monte Carlo tree search (UCT with random rollouts; PUCT with a prior evaluator)",
        strength=50,
        aliases=("uct",),
    )
    register_player(
        "alphabeta",
        alphabeta.AlphaBetaPlayer,
        "iterative-deepening PVS, exact in the endgame; evaluation auto = the learned "
        "patterns on 8x8, the hand-written heuristic on 6x6 and 4x4",
        strength=100,
        aliases=("ab", "alpha-beta"),
        defaults={"time": 1.0, "endgame": 20, "probcut": 1.5, "weights": "patterns-r1"},
    )
    register_player(
        "endgame",
        endgame.EndgamePlayer,
        "perfect play with at most max_empties empties (shallow search before)",
        strength=40,
        aliases=("solver", "perfect"),
    )
    # Network players use the shipped model (othellolab.nn.pretrained) unless model=DIR is given;
    # ranks from docs/supervised.md's matches: about montecarlo's level, far below alphabeta.
    register_player(
        "policy",
        network.PolicyPlayer,
        "policy network's move (argmax, or sampled with temperature); shipped model or model=DIR",
        strength=25,
        aliases=("network",),
    )
    register_player(
        "alphazero",
        network.AlphaZeroPlayer,
        "network + MCTS (PUCT): priors from the policy head, values from the value head; "
        "shipped model or model=DIR",
        strength=60,
        aliases=("az",),
    )
    register_player(
        "value",
        network.ValuePlayer,
        "one-ply search on a value network; shipped model or model=DIR",
        strength=25,
    )
    # Ranked below every Othello player so that neither is ever "the strongest" that Othello's
    # boards pick by default.
    register_player(
        "negamax",
        negamax.NegamaxPlayer,
        "any game: iterative-deepening alpha-beta over the game's rules, on the game's "
        "heuristic (0 until the end for a game without one), fastest wins first",
        strength=-1,
    )
    register_player(
        "shogi-alphabeta",
        shogi_alphabeta.ShogiAlphaBetaPlayer,
        "animal shogi: negamax on material (chick 1, elephant 3, giraffe 4, hen 5), depth 1..12",
        strength=-1,
    )
    register_player(
        "nboard",
        external.NBoardPlayer,
        "an external engine over the NBoard protocol: cmd='edax -n 1' (or config=FILE), depth",
        strength=-1,
    )
