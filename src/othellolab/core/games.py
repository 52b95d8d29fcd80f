"""The game protocol: what self-play, MCTS, the arena, the environments and the boards need of
a game, and the one registry of games.

A game's position is two ``uint64`` words seen from the side to move, ``(p, o)``: for Othello
the discs of the side to move and of its opponent (the project's convention), for animal shogi
the packed board and hands, and the ply counter. Actions are integers ``0 .. n_actions - 1``
(the network's policy index). A ``Game`` says, for positions:

- ``start()``: the start position; ``step(p, o, action)``: the next position (from the next
  side to move); ``legal_mask_batch(p, o)``: legal actions, all false at the end;
- ``result(p, o)``: ``None`` while the game goes on, else its final score for the side to
  move: the disc difference for Othello (empties to the winner), +1/0/-1 for animal shogi;
  ``score_scale`` turns a score into a value in [-1, 1];
- ``position(p, o, turn)``: the people's object (``Board``, ``AnimalShogi``, or a
  ``GamePosition`` for a game without one of its own) that players, the arena and the boards
  work with; ``action_name(action)`` and ``render``;
- its learning tier: ``encode(p, o, planes)`` (input planes), ``transform_states`` and
  ``transform_policies`` (its ``symmetries``), and its default players.

The compiled search (``players.mcts``) reaches the rules through the game's ``rules``: a tuple
of two Numba functions passed as first-class functions (``children`` and ``result``, with the
signatures ``CHILDREN_SIGNATURE`` and ``RESULT_SIGNATURE``), the game's integer parameter (an
Othello board's size) and its score scale. The tree kernels are compiled once for that tuple
type, not once per game, so their on-disk cache serves every game, a game defined in a user's
module included; the cost is an indirect call per expansion (measured in docs/benchmarks.md).
A game registers itself with ``register_game``; nothing outside its own module names it. The
kernels' signatures, ``rules_kernel`` and the ``rules_*`` kernels live in ``core.rules_kernels``
and are re-exported here.
"""

from __future__ import annotations

import inspect
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from othellolab.core.errors import ConfigError, IllegalMoveError, MoveError
from othellolab.core.rules_kernels import (
    CHILDREN_SIGNATURE,
    HEURISTIC_BOUND,
    HEURISTIC_SIGNATURE,
    MAX_CHILDREN,
    ORDER_SIGNATURE,
    PLAYOUT_SIGNATURE,
    RESULT_SIGNATURE,
    _address,
    _compiled,
    heuristic_at,
    order_at,
    playout_at,
    rules_child,
    rules_children,
    rules_kernel,
    rules_playout,
    rules_result,
    rules_value,
)
from othellolab.core.targets import LearningTargets

__all__ = [
    "CHILDREN_SIGNATURE",
    "DEFAULT_GAME",
    "HEURISTIC_BOUND",
    "HEURISTIC_SIGNATURE",
    "MAX_CHILDREN",
    "ORDER_SIGNATURE",
    "PLAYOUT_SIGNATURE",
    "RESULT_SIGNATURE",
    "Game",
    "GamePosition",
    "game_for",
    "game_from_fields",
    "game_names",
    "get_game",
    "heuristic_at",
    "order_at",
    "playout_at",
    "position_game",
    "position_state",
    "register_game",
    "rules_child",
    "rules_children",
    "rules_kernel",
    "rules_playout",
    "rules_result",
    "rules_value",
    "unregister_game",
]

warnings.filterwarnings(
    "ignore", message="First-class function type feature is experimental", module="numba"
)

DEFAULT_GAME = "othello"
"""The game ``get_game`` makes when none is named, and that a results record without a
``game`` field was played in (records written before other games joined)."""


class Game(LearningTargets):
    """A game behind the protocol (see the module docstring); subclasses fill it in.

    Required: ``name``, ``key``, ``rows``, ``cols``, ``n_actions``, ``start``, ``step``,
    ``result``, ``children_kernel`` and ``result_kernel`` (see ``rules_kernel``) and
    ``param``, ``encode`` for networks. The rest has defaults built on those; the learning
    targets beyond the result (``ownership``, ``score_range``) come from ``LearningTargets``.
    """

    name: str = ""
    key: str = ""
    """Unique among games and their sizes (``othello6``, ``animal-shogi``): configs and
    records name the game by it."""
    rows: int = 0
    cols: int = 0
    n_actions: int = 0
    score_scale: float = 1.0
    """What a final score is divided by to make a value in [-1, 1]."""
    symmetries: int = 1
    plane_names: tuple[str, ...] = ()
    max_children: int = MAX_CHILDREN
    param: int = 0
    """The integer the rules kernels receive first (Othello: the board's size)."""
    children_kernel: Any = None
    result_kernel: Any = None
    playout_kernel: Any = None
    has_exact_endgame: bool = False
    """Whether self-play's exact endgame (``training.selfplay.exact``: Othello's solver)
    plays this game's last empties."""
    default_player: str = "random"
    """The spec of the strongest shipped player of this game (the boards' default opponent)."""

    def start(self) -> tuple[int, int]:
        raise NotImplementedError

    def step(self, p: int, o: int, action: int) -> tuple[int, int]:
        raise NotImplementedError

    def result(self, p: int, o: int) -> int | float | None:
        """``None`` while the game goes on, else its final score for the side to move."""
        r = float(self._kernel("result_kernel")(self.param, np.uint64(p), np.uint64(o)))
        return None if r != r else (int(r) if r.is_integer() else r)

    # derived ---------------------------------------------------------------------------------

    def _kernel(self, name: str) -> Any:
        """A rules kernel as set on the class or instance (a Numba dispatcher is a descriptor:
        plain attribute access would bind it as a method), compiled."""
        return _compiled(inspect.getattr_static(self, name))

    @property
    def rules(self) -> tuple[Any, ...]:
        """What the compiled search takes: ``(children, result, param, score_scale,
        max_children)``, the kernels as the addresses of their compiled C wrappers (so one
        compiled search serves every game). The game keeps the kernels, so the addresses
        stay valid while it lives."""
        cached = self.__dict__.get("_rules")
        if cached is None:
            cached = (
                _address(self._kernel("children_kernel")),
                _address(self._kernel("result_kernel")),
                int(self.param),
                float(self.score_scale),
                int(self.max_children),
            )
            self.__dict__["_rules"] = cached
        return cached

    @property
    def playout(self) -> tuple[Any, ...] | None:
        """``(playout, param)`` for the game's own playout kernel, or ``None``."""
        if "_playout" not in self.__dict__:
            own = inspect.getattr_static(self, "playout_kernel") is not None
            self.__dict__["_playout"] = (
                (_address(self._kernel("playout_kernel")), int(self.param)) if own else None
            )
        return self.__dict__["_playout"]

    def children(self, p: int, o: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(actions, cp, co)``: the legal actions of a position and the positions they lead
        to, from the rules kernel."""
        actions = np.empty(self.max_children, np.int64)
        cp = np.empty(self.max_children, np.uint64)
        co = np.empty(self.max_children, np.uint64)
        n = self._kernel("children_kernel")(self.param, np.uint64(p), np.uint64(o), actions, cp, co)
        return actions[:n], cp[:n], co[:n]

    def legal_actions(self, p: int, o: int) -> list[int]:
        """The legal actions of one position, in increasing order (none at the end)."""
        return [int(a) for a in self.children(p, o)[0]]

    def legal_mask_batch(self, p: np.ndarray, o: np.ndarray) -> np.ndarray:
        """Boolean ``(N, n_actions)`` legal actions (all false where the game is over)."""
        out = np.zeros((len(p), self.n_actions), dtype=bool)
        for i, (a, b) in enumerate(zip(np.asarray(p), np.asarray(o), strict=True)):
            out[i, self.children(int(a), int(b))[0]] = True
        return out

    def legal_priors(self, p: np.ndarray, o: np.ndarray) -> np.ndarray:
        """Float32 ``(N, n_actions)``: uniform over each position's legal actions."""
        legal = self.legal_mask_batch(p, o).astype(np.float32)
        return legal / np.maximum(legal.sum(axis=1, keepdims=True), np.float32(1))

    def terminal_values(self, p: np.ndarray, o: np.ndarray) -> np.ndarray:
        """Float32 ``(N,)``: the sign of the final score where the game is over, else 0."""
        out = np.zeros(len(p), dtype=np.float32)
        for i, (a, b) in enumerate(zip(np.asarray(p), np.asarray(o), strict=True)):
            r = self.result(int(a), int(b))
            out[i] = 0.0 if r is None else float(np.sign(r))
        return out

    def value(self, score: float, score_weight: float = 0.0) -> float:
        """A final score as a value in [-1, 1] (``rules_value``)."""
        return float(rules_value(self.rules, float(score), float(score_weight)))

    def position(self, p: int, o: int, turn: int = 0) -> Any:
        """The people's object of a position (a ``GamePosition`` unless the game has its own)."""
        return GamePosition(self, int(p), int(o), int(turn))

    def action_name(self, action: int) -> str:
        return str(int(action))

    def parse_action(self, text: str) -> int:
        """The action a name stands for (``action_name``'s inverse); a ``ValueError`` if none."""
        for a in range(self.n_actions):
            if self.action_name(a) == text.strip():
                return a
        raise IllegalMoveError(f"{self.name}: no move named {text[:40]!r}")

    def new_position(self) -> Any:
        """The people's object of the start position."""
        return self.position(*self.start(), 0)

    def render(self, p: int, o: int, turn: int) -> str:
        """The position as text: its people's object's, or the two words for a game with
        neither a position class nor a ``render`` of its own."""
        position = self.position(p, o, turn)
        if isinstance(position, GamePosition):
            side = "first" if turn == 0 else "second"
            return f"{self.name} position {int(p):#x} {int(o):#x}, {side} player to move"
        return str(position)

    # learning tier ---------------------------------------------------------------------------

    def encode(
        self, p: np.ndarray, o: np.ndarray, planes: tuple[str, ...] | None = None
    ) -> np.ndarray:
        """Float32 planes ``(N, C, rows, cols)`` of ``N`` positions (``planes`` names them, in
        order; ``None``: the game's ``plane_names``)."""
        raise NotImplementedError(f"{self.name} has no input planes")

    def transform_states(
        self, p: np.ndarray, o: np.ndarray, ks: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Symmetry ``ks[i]`` (``0 .. symmetries - 1``, 0 the identity) of each position."""
        if np.any(np.asarray(ks) != 0):
            raise ValueError(f"{self.name} has no symmetry but the identity")
        return np.asarray(p, np.uint64), np.asarray(o, np.uint64)

    def transform_policies(self, policy: np.ndarray, ks: np.ndarray) -> np.ndarray:
        """The same symmetries applied to rows of policy vectors over the game's actions."""
        if np.any(np.asarray(ks) != 0):
            raise ValueError(f"{self.name} has no symmetry but the identity")
        return np.asarray(policy)

    def check_planes(self, planes: tuple[str, ...] | None) -> tuple[str, ...]:
        """The planes a network of this game reads, or a ``ValueError`` naming them."""
        planes = self.plane_names if planes is None else tuple(planes)
        if planes != self.plane_names:
            raise ValueError(f"{self.name} reads its planes {self.plane_names}, not {planes}")
        return planes

    # environments and the terminal (``envs``, ``ui.terminal``) ------------------------------

    side_names: tuple[str, str] = ("first", "second")
    """What the two sides are called in envs' infos, agents and prompts, the first player's
    first (Othello: black, white)."""
    side_choices: tuple[str, str] = ("first", "second")
    """The names a user gives a side by (an env's ``player_color``, the terminal's colour);
    ``side_names`` are accepted too."""
    pass_action: int | None = None
    """The action that passes, if the game has one: an env plays it itself for the side it
    moves when it is the only legal action."""
    observation_dtype: Any = np.float32
    """The dtype of an env's observation planes (the values lie in [0, 1])."""
    renders_images: bool = False
    """Whether ``render_image`` draws the position (envs' ``rgb_array`` render mode)."""

    def env_planes(self, legal_plane: bool | None) -> tuple[str, ...]:
        """The planes an env observes: ``plane_names`` (``legal_plane`` None: the game's
        default; True asks for a plane of the legal moves, which this game's encoding lacks)."""
        if legal_plane:
            raise ConfigError(f"{self.name} has no legal-move plane", option="legal_plane")
        return self.plane_names

    def observe(self, p: int, o: int, planes: tuple[str, ...], *, legal: bool = True) -> Any:
        """The planes ``(C, rows, cols)`` in ``observation_dtype`` of one position from the
        side to move (``legal`` False: a plane of legal moves, if any, is zero)."""
        one = self.encode(np.array([p], np.uint64), np.array([o], np.uint64), planes)[0]
        return one.astype(self.observation_dtype, copy=False)

    def turned(self, p: int, o: int) -> tuple[int, int]:
        """The same position seen by the side not to move (an env's view of a game that ended
        on the other side's turn): ``(o, p)`` where the two words are the two sides' pieces."""
        return int(o), int(p)

    def move_name(self, position: Any, action: int) -> str:
        """The name of ``action`` played in ``position`` (``action_name`` unless the name
        depends on the position)."""
        return self.action_name(action)

    def env_info(self, position: Any, side: int) -> dict[str, Any]:
        """What an env's ``info`` tells ``side`` about ``position`` beyond masks and actions:
        by default, once the game is over, its ``result`` (+1/0/-1) and final ``score``."""
        p, o = position.state
        score = self.result(p, o)
        if score is None:
            return {}
        score = score if position.turn == side else -score
        return {"result": (score > 0) - (score < 0), "score": score}

    def render_position(
        self, position: Any, *, last: int | None = None, last_name: str | None = None,
        legend: bool = False,
    ) -> str:  # fmt: skip
        """``position`` as text for envs and the terminal: its ``str``, then the last move
        (``last_name``: its name, taken before it was played); ``legend`` adds what the
        letters mean, for games that have one to give."""
        text = str(position)
        return text if last_name is None else f"{text}\nlast move: {last_name}"

    def render_image(self, position: Any, *, last: int | None = None) -> Any:
        """``position`` as an RGB image (``renders_images`` games only)."""
        raise NotImplementedError(f"{self.name} has no image rendering")

    def describe_side(self, side: int) -> str:
        """A side for a greeting: ``first (sente)``, ``black (X)``."""
        order = ("first", "second")[side]
        name = self.side_names[side]
        return order if name == order else f"{order} ({name})"

    def describe_end(self, position: Any) -> str:
        """How a finished game ended, for people."""
        p, o = position.state
        score = self.result(p, o)
        if not score:
            return "a draw"
        winner = position.turn if score > 0 else 1 - position.turn
        return f"{self.side_names[winner]} wins"

    def move_help(self) -> str:
        """How a person types a move, for the terminal's help."""
        names = [self.action_name(a) for a in self.legal_actions(*self.start())][:3]
        return f"Type a move by its name, like {', '.join(names)}."

    def vector_kernels(self) -> Any:
        """The game's own batched env (``envs.vector``'s fast path: an object with the
        interface of ``core.othello_vector.OthelloVectorKernels``), or None for the generic
        path over ``step`` and ``legal_actions``."""
        return None

    # what self-play runs, their files and the network players ask of a game ---------------

    sizes: tuple[int, ...] = ()
    """The board sizes the game is played at (``get_game(name, size)``); empty: one board,
    no size to give."""
    has_exact_grading: bool = False
    """Whether training's graders know perfect play for this game (``training.selfplay.
    grading``: Othello's 6x6 graded set and full 4x4 solution), so a self-play run grades."""

    @property
    def label(self) -> str:
        """The game in words, for people and messages (``6x6 boards``, ``animal-shogi``)."""
        return self.name

    @property
    def params(self) -> dict[str, int]:
        """The options that make this game from its registered name, ``get_game(name,
        **params)`` (Othello: ``{"size": 6}``; a game of one board: none). Files that name a
        game store ``name`` and these."""
        return {}

    def moves_left(self, p: int, o: int) -> int | None:
        """About how many moves the side to move has left in the game (a game clock's share,
        ``players.clock``); None when the game cannot tell."""
        return None

    # options, records, openings, reports and search (issue 37) -------------------------------

    title: str = ""
    """The game's name for people in messages (``Othello``); empty: its ``name``."""
    record_format: str | None = None
    """The records format (``records``) a tournament also writes its games in, beside its
    ``results.jsonl`` (Othello: ``ggf``); ``None``: the results file alone."""
    opening_format: str | None = None
    """The records format of the game's opening lists (Othello: ``transcript``, the XOT lists);
    ``None``: its openings are ``random:N`` or ``none`` only."""
    score_name: str | None = None
    """What a final score counts, for reports (Othello: ``disc difference``); ``None``: a final
    score is a result, +1, 0 or -1."""
    heuristic_kernel: Any = None
    """The alpha-beta search's estimate of a position (``HEURISTIC_SIGNATURE``), or ``None``."""
    order_kernel: Any = None
    """The alpha-beta search's move-ordering key (``ORDER_SIGNATURE``), or ``None``."""
    heuristic_scale: float = 1.0
    """An estimate ``h`` reads as the expected result ``tanh(h / heuristic_scale)``."""

    def record_fields(self) -> dict[str, Any]:
        """The fields that name this game in a results record: ``game`` and its ``params``
        (``game_from_fields`` reads them back)."""
        return {"game": self.name, **self.params}

    @property
    def search_kernels(self) -> tuple[int, int]:
        """``(heuristic, order)``: the addresses of the alpha-beta search's kernels, 0 for one
        the game has not."""
        cached = self.__dict__.get("_search_kernels")
        if cached is None:
            cached = tuple(
                0 if inspect.getattr_static(self, name) is None else _address(self._kernel(name))
                for name in ("heuristic_kernel", "order_kernel")
            )
            self.__dict__["_search_kernels"] = cached
        return cached  # type: ignore[no-any-return]

    def parse_move(self, position: Any, text: str) -> int:
        """The action a move's name stands for in ``position`` (``move_name``'s inverse)."""
        return self.parse_action(text)

    def format_moves(self, actions: Sequence[int], *, start: Sequence[int] = ()) -> str:
        """``actions``, played after ``start`` from the start position, as records write them:
        the moves' names separated by spaces (``parse_moves`` reads them back)."""
        position = self._after(start)
        names = []
        for a in actions:
            names.append(self.move_name(position, a))
            position = position.play(a)
        return " ".join(names)

    def parse_moves(self, text: str, *, start: Sequence[int] = ()) -> list[int]:
        """The actions of ``format_moves``'s text, each checked against the rules after
        ``start``; a bad one raises a ``MoveError`` with its 1-based number."""
        position = self._after(start)
        out = []
        for number, name in enumerate(text.split(), 1):
            try:
                a = self.parse_move(position, name)
                position = position.play(a)
            except MoveError as e:
                raise e.at(f"move {number}", number=number) from None
            out.append(a)
        return out

    def _after(self, start: Sequence[int]) -> Any:
        """The people's position after the actions ``start`` from the start."""
        position = self.new_position()
        for a in start:
            position = position.play(a)
        return position

    # the web board (``ui.web``) ------------------------------------------------------------

    position_format: str | None = None
    """The notation of one position that ``format_position`` writes and ``start_position``
    reads (animal shogi: ``sfen``); ``None``: games are loaded as lists of moves only."""

    def start_position(self, text: str | None = None) -> Any:
        """The position a game played by people starts from: the start, or ``text`` in the
        game's ``position_format``, keeping what rules over a whole game need (animal shogi:
        the history that the repetition draw counts)."""
        if text is None:
            return self.new_position()
        raise ConfigError(
            f"{self.title or self.name} has no position notation; load a list of moves",
            option="position",
        )

    def format_position(self, position: Any) -> str | None:
        """``position`` in the game's ``position_format``, or ``None`` without one."""
        return None

    def board_view(self, position: Any) -> dict[str, Any]:
        """What a board page draws of ``position``, as JSON: ``kind`` names the drawing (by
        default ``text``, the position's ``str``), ``rows``, ``cols``, ``squares`` (square
        names row by row as drawn) and ``cells`` (what stands on each, in the kind's terms)."""
        return {
            "kind": "text", "rows": self.rows, "cols": self.cols, "squares": [], "cells": [],
            "text": str(position),
        }  # fmt: skip

    def move_parts(self, position: Any, action: int) -> dict[str, str | None]:
        """Where ``action`` acts on the board of ``board_view``: the square a piece leaves
        (``from``), the square it reaches or is placed on (``to``) and the piece dropped from
        a hand (``drop``); ``None`` for each it lacks (all three by default, and for a pass)."""
        return {"from": None, "to": None, "drop": None}

    def end_reason(self, position: Any) -> str | None:
        """Why a finished game ended, for a person who may not know the rule (animal shogi:
        the try, repetition), or ``None`` when ``describe_end`` says it all."""
        return None

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Game) and other.key == self.key

    def __hash__(self) -> int:
        return hash(self.key)

    def __repr__(self) -> str:
        return f"<game {self.key}>"


# ----------------------------------------------------------------------------------------------
# The position of a game that has no people's class of its own.


@dataclass(frozen=True)
class GamePosition:
    """A position of any game as a value: ``play`` returns a new one. What players, the arena
    and the environments use for a game without a position class of its own."""

    game: Game
    player: int
    opponent: int
    turn: int = 0
    """0 while the first player is to move, 1 for the second."""

    @property
    def state(self) -> tuple[int, int]:
        return self.player, self.opponent

    @property
    def n_actions(self) -> int:
        return self.game.n_actions

    def legal_actions(self) -> list[int]:
        return self.game.legal_actions(self.player, self.opponent)

    def legal_action_mask(self) -> np.ndarray:
        mask = np.zeros(self.game.n_actions, dtype=bool)
        mask[self.legal_actions()] = True
        return mask

    def play(self, action: int | str) -> GamePosition:
        if isinstance(action, str):
            a = self.game.parse_action(action)
        elif isinstance(action, int | np.integer) and not isinstance(action, bool):
            a = int(action)
        else:
            raise IllegalMoveError(f"a move is an action number or a name, got {action!r}")
        legal = self.legal_actions()
        if a not in legal:
            names = ", ".join(self.game.action_name(x) for x in legal) or "none (the game is over)"
            raise IllegalMoveError(
                f"illegal move {self.game.action_name(a) if 0 <= a < self.n_actions else a} "
                f"in {self.game.name}; legal moves: {names}"
            )
        p, o = self.game.step(self.player, self.opponent, a)
        return GamePosition(self.game, p, o, 1 - self.turn)

    def result(self) -> int | float | None:
        """The final score for the side to move, ``None`` while the game goes on."""
        return self.game.result(self.player, self.opponent)

    def is_game_over(self) -> bool:
        return self.result() is not None

    def __str__(self) -> str:
        return self.game.render(self.player, self.opponent, self.turn)


# ----------------------------------------------------------------------------------------------
# The registry.


@dataclass(frozen=True)
class _Entry:
    make: Callable[[int | None], Game]
    keys: dict[str, int | None]
    aliases: tuple[str, ...]
    position_types: tuple[type, ...]


_REGISTRY: dict[str, _Entry] = {}


def register_game(
    name: str,
    make: Callable[[int | None], Game],
    *,
    keys: dict[str, int | None] | None = None,
    aliases: tuple[str, ...] = (),
    position_types: tuple[type, ...] = (),
) -> None:
    """Register a game by ``name``: ``make(size)`` builds it (``size`` None for its default,
    a ``ConfigError`` for a size it does not have); ``keys`` maps each of its ``Game.key``
    values to the size that makes it; ``position_types`` are its people's position classes.
    Registering a name again replaces it (a test may register and remove a game)."""
    if not isinstance(name, str) or not name or name != name.strip().lower():
        raise ConfigError(f"a game's name is lower case without spaces, got {name!r}")
    if not callable(make):
        raise ConfigError(f"register_game({name!r}): make must be callable, got {make!r}")
    _REGISTRY[name] = _Entry(make, dict(keys or {name: None}), tuple(aliases), position_types)


def unregister_game(name: str) -> None:
    """Remove a registered game (for tests)."""
    _REGISTRY.pop(name, None)


def game_names() -> tuple[str, ...]:
    """The names of the registered games."""
    return tuple(_REGISTRY)


def get_game(name: str | Game | None = DEFAULT_GAME, size: int | None = None) -> Game:
    """The one resolver of games: a game by name (``othello`` with its ``size`` option, default
    8; ``animal-shogi``) or by key (``othello6``); ``None`` is ``DEFAULT_GAME``; a ``Game``
    passes through (a ``size`` given with it must be its own). A ``ConfigError`` names what is
    unknown.

    A board size is not a game: ``get_game(6)`` is a ``TypeError`` that says to pass
    ``get_game("othello", size=6)``.

    >>> get_game("othello", size=6).key
    'othello6'
    """
    if isinstance(name, Game):
        if size is not None and name.params.get("size", size) != size:
            raise ConfigError(
                f"size={size!r} contradicts the game given, {name.key}", option="size"
            )
        return name
    if name is None:
        name = DEFAULT_GAME
    if isinstance(name, int | np.integer) and not isinstance(name, bool):
        raise TypeError(
            f"get_game({int(name)}): a board size is not a game; "
            f'pass get_game("{DEFAULT_GAME}", size={int(name)})'
        )
    if not isinstance(name, str):
        raise ConfigError(f"expected a game name ({', '.join(game_names())}), got {name!r}")
    key = name.strip().lower()
    for entry_name, entry in _REGISTRY.items():
        if key == entry_name or key in entry.aliases:
            return entry.make(size)
    for entry in _REGISTRY.values():
        if key in entry.keys:
            return entry.make(entry.keys[key])
    raise ConfigError(
        f"unknown game {name[:40]!r}; known: {', '.join(game_names())}", option="game"
    )


def game_from_fields(fields: Mapping[str, Any]) -> Game:
    """The game that ``Game.record_fields`` wrote into ``fields`` (a results record): its
    ``game`` (``DEFAULT_GAME`` when absent) with the ``params`` that game takes."""
    name = fields.get("game", DEFAULT_GAME)
    params = {k: fields[k] for k in get_game(name).params if k in fields}
    return get_game(name, **params)


def game_for(game: str | Game | None, size: int = 8) -> Game:
    """``get_game`` for a config's ``(game, size)`` pair, whose ``size`` is a default that
    applies only to a game of several board sizes named without one (so a config of one-board
    ``animal-shogi`` with the default ``size = 8`` is that game)."""
    if isinstance(game, str):
        key = game.strip().lower()
        if not any(key == n or key in e.aliases for n, e in _REGISTRY.items() if len(e.keys) > 1):
            return get_game(game)
    return get_game(game, None if isinstance(game, Game) else size)


def position_game(position: Any) -> Game:
    """The game of a people's position object (its ``game``, or a registered position class)."""
    game = getattr(position, "game", None)
    if isinstance(game, Game):
        return game
    for entry in _REGISTRY.values():
        if isinstance(position, entry.position_types):
            return entry.make(getattr(position, "size", None))
    raise TypeError(f"not a position of a known game: {type(position).__name__}")


def position_state(position: Any) -> tuple[int, int]:
    """The kernels' ``(p, o)`` of a people's position object."""
    return tuple(position.state)  # type: ignore[return-value]
