"""A tournament's terms and schedule: the entrants, the games per pairing, the openings and the
per-move limit (``TournamentConfig``, read from TOML with unknown keys refused), and the games
they make (``schedule``), each identified by its pairing, its round and who plays black.

>>> config = TournamentConfig(
...     players=(Entrant("r", "random:seed=1"), Entrant("g", "greedy:seed=2")),
...     games=2, size=4, openings="none")
>>> [(job.black, job.white) for job in schedule(config)]
[('g', 'r'), ('r', 'g')]
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, ClassVar

from othellolab.arena.openings import is_opening_list, opening_set
from othellolab.config import CheckedTable, Option, load_with_overrides, refuse_unknown
from othellolab.core import (
    ConfigError,
    Limit,
    OthelloError,
)
from othellolab.core import games as _games
from othellolab.core.games import game_for

RESULTS = "results.jsonl"
GAMES = "games.ggf"
"""The games as GGF beside the results, for a game whose ``record_format`` is GGF (Othello;
other games have no such file)."""
CONFIG = "tournament.json"
MODES = ("round-robin", "gauntlet")
MAX_GAMES = 100_000
"""Most games per pairing a config may ask for."""
MAX_WORKERS = 256

RECORD_VERSION = 1


class TournamentError(OthelloError):
    """A tournament that cannot go on: a locked or corrupt results file, results that disagree
    with the config, or a game that failed (its pairing, round and colours in ``where``)."""


@dataclass(frozen=True)
class Entrant:
    """A player in a tournament: a unique ``label`` (its name in results and ratings) and the
    player ``spec`` that builds it."""

    label: str
    spec: str


@dataclass(frozen=True)
class LimitTable(CheckedTable):
    """A tournament's per-move ``limit`` table (``limit = {time = 0.5}``): each key optional,
    declared with its range; ``parse_limit`` makes the ``Limit``."""

    time: float | None = None
    depth: int | None = None
    nodes: int | None = None
    simulations: int | None = None
    clock: float | None = None

    TABLE: ClassVar[str] = "limit"
    OPTIONS: ClassVar[dict[str, Option]] = {
        "time": Option(float, 0.001, 3600, optional=True, unit="seconds", help="time a move"),
        "depth": Option(int, 1, 60, optional=True, help="plies searched a move"),
        "nodes": Option(int, 1, 10**12, optional=True, help="nodes searched a move"),
        "simulations": Option(int, 1, 10**9, optional=True, help="MCTS simulations a move"),
        "clock": Option(
            float,
            0.01,
            36000,
            optional=True,
            unit="seconds",
            help="a game clock: all of a side's moves in a game",
        ),
    }


@dataclass(frozen=True)
class TournamentConfig(CheckedTable):
    """What to play: entrants, ``mode`` (``round-robin``: every pair; ``gauntlet``: each label
    of ``gauntlet`` against every other entrant, and against each other when ``mutual``),
    ``games`` per pairing (even: colour-swapped
    pairs, one opening per pair), ``openings`` (a list file, ``random:N`` or ``none``, see
    ``opening_set``), the ``game`` (``othello`` or ``animal-shogi``, see ``core.games``),
    Othello's board ``size``, a per-move ``limit`` passed to every player (``None``: each
    player's own settings) and ``workers`` (processes playing games at once). Each key is
    declared in ``OPTIONS``; the checks across keys follow in ``__post_init__``."""

    players: tuple[Entrant, ...]
    games: int = 2
    mode: str = "round-robin"
    gauntlet: tuple[str, ...] = ()
    mutual: bool = False
    openings: str = "none"
    seed: int = 0
    game: str = _games.DEFAULT_GAME
    size: int = 8
    limit: Limit | None = None
    workers: int = 1
    name: str = "tournament"

    TABLE: ClassVar[str] = "tournament config"
    OPTIONS: ClassVar[dict[str, Option]] = {
        "players": Option(
            object,
            spec=False,
            shown='table of LABEL = "SPEC"',
            help="labels name players in results and ratings (quote a label that holds a dot: "
            '`"ab-0.3s" = "..."`)',
        ),
        "games": Option(int, 2, MAX_GAMES, help="games per pairing, even (colour-swapped pairs)"),
        "mode": Option(str, choices=MODES, help="`round-robin` (every pair) or `gauntlet` (below)"),
        "gauntlet": Option(
            tuple,
            items=Option(str),
            help="`gauntlet` mode: labels of the players under test (one or a list); each "
            "plays every other entrant",
        ),
        "mutual": Option(bool, help="`gauntlet` mode: the players under test also play each other"),
        "openings": Option(
            str,
            help="a file of openings (one transcript a line, the XOT format) or a shipped list "
            "(`xot-small`, `xot-large`), `random:N` (N random legal plies, 0-20), or `none` "
            "(the start position)",
        ),
        "seed": Option(
            int,
            0,
            2**63 - 1,
            help="which openings are drawn (the first `games/2` of a seeded shuffle, so more "
            "games keep the earlier openings)",
        ),
        "game": Option(str, help="`othello` or `animal-shogi`"),
        "size": Option(int, help="Othello's board size: 8, 6 or 4 (leave it out for animal shogi)"),
        "limit": Option(
            object,
            spec=False,
            optional=True,
            shown="table: `{time = 0.5}`, `{clock = 10}` (below)",
            help="per-move limit for every player (none: each player's own settings)",
        ),
        "workers": Option(
            int, 1, MAX_WORKERS, help="games played at once, in processes (`--workers` overrides)"
        ),
        "name": Option(str, help="the default output folder is `arena/NAME`"),
    }

    def __post_init__(self) -> None:
        where = f"tournament {self.name!r}"
        try:
            super().__post_init__()
        except ConfigError as e:
            raise ConfigError(e.what, where=where, option=e.option, allowed=e.allowed) from None
        labels = [e.label for e in self.players]
        if len(labels) < 2:
            raise ConfigError("needs at least two players", where=where, option="players")
        for e in self.players:
            if not e.label.strip() or e.label != e.label.strip() or "\n" in e.label:
                raise ConfigError(f"bad label {e.label!r}", where=where, option="players")
            if not isinstance(e.spec, str) or not e.spec.strip():
                raise ConfigError(f"{e.label}: empty spec", where=where, option="players")
        dupes = sorted({x for x in labels if labels.count(x) > 1})
        if dupes:
            raise ConfigError(f"duplicate labels {dupes}", where=where, option="players")
        if self.games % 2:
            raise ConfigError(
                f"{self.games} is odd; games are played in colour-swapped pairs",
                where=where,
                option="games",
            )
        if self.mode == "gauntlet":
            unknown = sorted(set(self.gauntlet) - set(labels))
            if not self.gauntlet or unknown:
                raise ConfigError(
                    f"needs labels of the players under test, got {list(self.gauntlet)}"
                    + (f" ({unknown} unknown)" if unknown else ""),
                    where=where,
                    option="gauntlet",
                )
            if set(self.gauntlet) == set(labels):
                raise ConfigError("names every player: nobody left to play", where=where)
        elif self.gauntlet or self.mutual:
            option = "gauntlet" if self.gauntlet else "mutual"
            raise ConfigError("is only for mode = 'gauntlet'", where=where, option=option)
        if self.game not in _games.game_names():
            raise ConfigError(
                f"unknown game {self.game!r}",
                where=where,
                option="game",
                allowed=" or ".join(_games.game_names()),
            )
        rules = _games.get_game(self.game)
        if "size" not in rules.params:
            if self.size != 8:
                owners = " and ".join(
                    g.title or g.name
                    for g in map(_games.get_game, _games.game_names())
                    if "size" in g.params
                )
                raise ConfigError(
                    f"{self.size!r}: the size is {owners}'s; leave it out for {self.game}",
                    where=where,
                    option="size",
                )
        else:
            try:
                game_for(self.game, self.size)
            except ConfigError as e:
                raise ConfigError(e.what, where=where, option="size", allowed=e.allowed) from None
        if is_opening_list(self.openings) and rules.opening_format is None:
            raise ConfigError(
                f"{self.openings!r}: {rules.title or rules.name} has no opening lists; it takes "
                "random:N or none",
                where=where,
                option="openings",
                allowed="random:N or none",
            )

    @property
    def labels(self) -> list[str]:
        return [e.label for e in self.players]

    def spec_of(self, label: str) -> str:
        return next(e.spec for e in self.players if e.label == label)

    @property
    def rules(self) -> _games.Game:
        """The game played (``core.games``), with ``size`` for a game that has that option."""
        return game_for(self.game, self.size)

    def pairings(self) -> list[tuple[str, str]]:
        """Every pairing, each as its two labels sorted, in config order."""
        labels = self.labels
        if self.mode == "gauntlet":
            pairs = [(g, o) for g in self.gauntlet for o in labels if o not in self.gauntlet]
            if self.mutual:
                tested = [x for x in labels if x in self.gauntlet]
                pairs += [(a, b) for i, a in enumerate(tested) for b in tested[i + 1 :]]
        else:
            pairs = [(a, b) for i, a in enumerate(labels) for b in labels[i + 1 :]]
        return [(a, b) if a <= b else (b, a) for a, b in pairs]

    def to_dict(self) -> dict[str, Any]:
        """The config as plain JSON-able data (what ``tournament.json`` holds; no ``size``
        for a game without that option)."""
        out = asdict(self)
        if "size" not in self.rules.params:
            del out["size"]
        out["players"] = {e.label: e.spec for e in self.players}
        out["gauntlet"] = list(self.gauntlet)
        out["limit"] = limit_dict(self.limit)
        return out

    @classmethod
    def from_dict(
        cls, data: dict[str, Any], *, where: str = "tournament config"
    ) -> TournamentConfig:
        """A config from TOML/JSON data; unknown keys are rejected."""
        refuse_unknown(data, cls.keys(), where)
        values = dict(data)
        players = values.pop("players", None)
        if not isinstance(players, dict):
            raise ConfigError('expected a table of LABEL = "SPEC"', where=where, option="players")
        entrants = []
        for label, spec in players.items():
            if not isinstance(spec, str):
                hint = (
                    " (a TOML key with a dot is a table: quote the label)"
                    if isinstance(spec, dict)
                    else ""
                )
                raise ConfigError(
                    f"{label}: spec must be a string{hint}", where=where, option="players"
                )
            entrants.append(Entrant(str(label), spec))
        limit = values.pop("limit", None)
        gauntlet = values.pop("gauntlet", ())
        if isinstance(gauntlet, str):
            gauntlet = (gauntlet,)
        try:
            return cls(
                players=tuple(entrants),
                gauntlet=gauntlet,
                limit=parse_limit(limit, where),
                **values,
            )
        except ConfigError as e:
            if e.where is not None and e.where.startswith(where):
                raise
            located = where if e.where is None else f"{where}: {e.where}"
            raise ConfigError(e.what, where=located, option=e.option, allowed=e.allowed) from None


def check_int(value: Any, lo: int, hi: int, where: str, option: str) -> None:
    if type(value) is not int or not lo <= value <= hi:
        raise ConfigError(
            f"{value!r} is not an integer in [{lo}, {hi}]", where=where, option=option
        )


def parse_limit(data: Any, where: str) -> Limit | None:
    """A per-move ``Limit`` from a table like ``{time = 0.5}``, each key checked by
    ``LimitTable``'s declaration; errors name ``limit.KEY``."""
    if data is None or data == {}:
        return None
    if not isinstance(data, dict):
        raise ConfigError("expected a table like {time = 0.5}", where=where, option="limit")
    try:
        refuse_unknown(data, LimitTable.keys(), where)
        table = LimitTable(**data)
    except ConfigError as e:
        option = "limit" if e.option is None else f"limit.{e.option}"
        raise ConfigError(e.what, where=where, option=option, allowed=e.allowed) from None
    return Limit(**{k: v for k, v in table.to_dict().items() if v is not None})


def limit_dict(limit: Limit | None) -> dict[str, Any] | None:
    if limit is None:
        return None
    return {k: getattr(limit, k) for k in LimitTable.OPTIONS if getattr(limit, k) is not None}


def load_config(
    path: str | Path, overrides: Mapping[str, Any] | None = None, **keys: Any
) -> TournamentConfig:
    """Read a tournament config from TOML (see ``configs/ladder.toml``), with ``overrides``
    (key -> value, ``{"players": {"ab": "alphabeta"}}``, as ``config.parse_overrides`` makes
    them) merged over it before the checks; ``keys`` that are not None replace top-level keys
    (``workers=2``, a CLI flag's value)."""
    p = Path(path)
    try:
        data = tomllib.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError("no such file", where=str(p)) from None
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"not valid TOML: {e}", where=str(p)) from None
    merged = dict(overrides or {})
    merged.update({k: v for k, v in keys.items() if v is not None})
    return load_with_overrides(lambda d: TournamentConfig.from_dict(d, where=str(p)), data, merged)


# ----------------------------------------------------------------------------------------------
# The schedule


@dataclass(frozen=True)
class GameJob:
    """One game to play: who plays which colour, from which opening, under which limit."""

    pairing: tuple[str, str]
    round: int
    black: str
    white: str
    black_spec: str
    white_spec: str
    opening: tuple[int, ...]
    size: int = 8
    limit: Limit | None = None
    tournament: str = "tournament"
    game: str = _games.DEFAULT_GAME

    @property
    def rules(self) -> _games.Game:
        """The game played (``core.games``), with ``size`` for a game that has that option."""
        return game_for(self.game, self.size)

    @property
    def key(self) -> tuple[str, str, int, str]:
        """What identifies the game in a results file: pairing, round, black's label."""
        return (self.pairing[0], self.pairing[1], self.round, self.black)

    def describe(self) -> str:
        return f"{self.black} (black) vs {self.white} (white), round {self.round + 1}"


def schedule(config: TournamentConfig) -> list[GameJob]:
    """Every game of the tournament, round by round: in round ``k`` each pairing plays opening
    ``k`` twice, colours swapped, so that a tournament stopped early is still balanced."""
    rounds = config.games // 2
    openings = opening_set(
        config.openings, rounds, size=config.size, seed=config.seed, game=config.rules
    )
    jobs = []
    for k in range(rounds):
        for a, b in config.pairings():
            for black, white in ((a, b), (b, a)):
                jobs.append(
                    GameJob(
                        pairing=(a, b),
                        round=k,
                        black=black,
                        white=white,
                        black_spec=config.spec_of(black),
                        white_spec=config.spec_of(white),
                        opening=openings[k],
                        size=config.size,
                        limit=config.limit,
                        tournament=config.name,
                        game=config.game,
                    )
                )
    return jobs


def record_key(record: dict[str, Any]) -> tuple[str, str, int, str]:
    """The key of a results record (see ``GameJob.key``)."""
    a, b = record["pairing"]
    return (a, b, int(record["round"]), record["black"])


def record_game_name(record: dict[str, Any]) -> str:
    """The game a results record was played in (``core.games`` name): its ``game`` field, or
    ``core.games.DEFAULT_GAME`` for a record without one (every Othello record)."""
    return str(record.get("game", _games.DEFAULT_GAME))


def record_rules(record: dict[str, Any]) -> _games.Game:
    """The rules of a results record's game, with its params (``Game.record_fields``)."""
    return _games.game_from_fields(record)
