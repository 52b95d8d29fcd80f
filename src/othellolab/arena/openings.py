"""Opening sets for matches: XOT-style lists of short transcripts, random openings of a given
number of plies, and ``opening_set``, which names either in one string.

Named lists (``OPENING_LISTS``: ``xot-small``, ``xot-large``, the XOT lists for 8x8 Othello)
ship inside the package and are taken wherever a path to a list is (``records.download``
finds them: a copy downloaded with ``othellolab data download xot`` first, else the packaged
one).

>>> len(read_openings("xot-small"))
3623
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from othellolab.core import ConfigError, OthelloError
from othellolab.core.games import Game, game_for
from othellolab.records.download import BUNDLED, data_path
from othellolab.records.transcript import read_transcripts

OPENING_LISTS = tuple(sorted(BUNDLED))
"""Names of the opening lists that ship with othellolab (8x8 Othello), taken for a path."""

MAX_RANDOM_PLIES = 20
"""Longest random opening ``opening_set`` accepts (``random:N``)."""

_START_NAMES = ("", "none", "start")


def read_openings(path: str | Path, *, size: int = 8) -> list[tuple[int, ...]]:
    """Read openings (transcripts like ``f5d6c4d3c2b3b4b5``), checking each is legal, from a
    file or a named list (``OPENING_LISTS``) when no file has that name.

    Blank lines and lines starting with ``#`` are skipped; a bad line raises the transcript
    reader's ``TranscriptError`` naming the file, the line and the move.
    """
    return [game.moves for game in read_transcripts(opening_list_path(path), size=size)]


def opening_list_path(path: str | Path) -> Path:
    """The file of an opening list: ``path`` itself, or the named list (``xot-small``) when
    ``path`` is one of ``OPENING_LISTS`` and no file of that name exists."""
    p = Path(path).expanduser()
    name = str(path).strip().lower()
    if name in OPENING_LISTS and not p.is_file():
        return data_path(name)
    return p


def random_openings(
    count: int,
    plies: int,
    *,
    size: int = 8,
    rng: np.random.Generator,
    game: str | Game | None = None,
) -> list[tuple[int, ...]]:
    """``count`` openings of ``plies`` uniformly random legal moves each (passes included when
    forced), distinct as long as the game tree allows, none of which ends the game; Othello
    on ``size``, or another ``game`` of the protocol (``core.games``).

    Random openings are not balanced one by one; a match plays each twice with colours swapped,
    which cancels the opening's advantage between the two players.

    >>> len(random_openings(3, 4, rng=np.random.default_rng(1)))
    3
    """
    if count < 0 or plies < 0:
        raise ValueError(f"random_openings: need count >= 0 and plies >= 0, got {count}, {plies}")
    out: list[tuple[int, ...]] = []
    seen: set[tuple[int, ...]] = set()
    attempts = 0
    while len(out) < count:
        attempts += 1
        board = game_for(game, size).new_position()
        moves: list[int] = []
        while len(moves) < plies and not board.is_game_over():
            actions = board.legal_actions()
            a = actions[int(rng.integers(len(actions)))]
            board = board.play(a)
            moves.append(a)
        if board.is_game_over() or len(moves) < plies:
            if attempts > 100 * (count + 10):
                raise ValueError(f"no random opening of {plies} plies leaves a game going on")
            continue
        opening = tuple(moves)
        # After many failed draws the tree is exhausted: accept repeats rather than loop forever.
        if opening in seen and attempts <= 100 * (count + 10):
            continue
        seen.add(opening)
        out.append(opening)
    return out


def is_opening_list(text: str) -> bool:
    """Whether an ``opening_set`` name is the path of an opening list (not ``none`` or
    ``random:N``): only a game with an ``opening_format`` takes one."""
    name = text.strip().lower()
    return name not in _START_NAMES and not name.startswith("random:")


def opening_set(
    text: str,
    count: int,
    *,
    size: int = 8,
    seed: int | Sequence[int] = 0,
    where: str = "openings",
    game: str | Game | None = None,
) -> list[tuple[int, ...]]:
    """``count`` openings named by ``text``: ``none`` (the start position), ``random:N``
    (random openings of N plies) or the path of an opening list (XOT format), from which
    ``count`` are drawn without replacement (with replacement only when the list is shorter),
    in an order fixed by ``seed`` (an integer or a sequence of them, as numpy takes). Othello
    on ``size``, or another ``game`` of the protocol; a list is read in the game's
    ``opening_format`` (a game without one takes ``none`` and ``random:N`` only).

    Raises ``ConfigError`` (option ``where``) for a bad name or a missing file.
    """
    rules = game_for(game, size)
    rng = np.random.default_rng(seed)
    name = text.strip()
    if name.lower() in _START_NAMES:
        return [()] * count
    if name.lower().startswith("random:"):
        value = name.split(":", 1)[1]
        if not value.isdigit() or not 0 <= int(value) <= MAX_RANDOM_PLIES:
            raise ConfigError(
                f"{name!r}: random:N needs N in 0..{MAX_RANDOM_PLIES} plies", option=where
            )
        return random_openings(count, int(value), size=size, rng=rng, game=rules)
    reader = _LIST_READERS.get(rules.opening_format or "")
    if reader is None:
        raise ConfigError(
            f"{name!r}: {rules.title or rules.name} has no opening lists; it takes random:N "
            "or none",
            option=where,
            allowed="random:N or none",
        )
    path = opening_list_path(name)
    if path != Path(name).expanduser() and rules.key != "othello8":
        raise ConfigError(
            f"{name!r} is a list of 8x8 Othello openings, not of "
            f"{rules.title or rules.name} ({rules.label})",
            option=where,
        )
    if not path.is_file():
        raise ConfigError(
            f"{name!r} is not a file of openings, a named list ({', '.join(OPENING_LISTS)}), "
            "'random:N' or 'none'",
            option=where,
            allowed=f"a path to an opening list (one transcript a line), "
            f"{', '.join(OPENING_LISTS)}, random:N or none",
        )
    try:
        pool = reader(path, **rules.params)
    except OthelloError as e:
        raise ConfigError(str(e), option=where) from None
    if not pool:
        raise ConfigError(f"{path} holds no openings", option=where)
    return _draw(pool, count, rng)


_LIST_READERS = {"transcript": read_openings}
"""The reader of an opening list, by its game's ``opening_format``."""


def _draw(
    pool: Sequence[tuple[int, ...]], count: int, rng: np.random.Generator
) -> list[tuple[int, ...]]:
    order: list[int] = []
    while len(order) < count:
        order.extend(rng.permutation(len(pool)).tolist())
    return [pool[i] for i in order[:count]]
