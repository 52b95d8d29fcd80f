"""What every othellolab environment shares, for any game: options, the agent's view of a
position (planes and action mask), the rule for an illegal action, and rendering.

The environments differ in who moves (one agent against an opponent, two agents, many games at
once); the picture they give of a position is the same, and it comes from the game
(``core.games.Game``: ``env_planes``, ``observe``, ``turned``, ``render_position``...).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from othellolab.core import IllegalMoveError
from othellolab.core.games import Game, position_game

ILLEGAL_ACTION_MODES = ("raise", "lose", "mask")
"""What an environment does with an illegal action: raise an error, lose the game, or replace
it by a random legal action."""

REWARD_MODES = ("outcome", "score", "disc_diff")
"""Final reward: the outcome (+1/0/-1), or the final score over the game's ``score_scale``
(``disc_diff``, Othello's name for it: the final disc difference over the cells)."""

RENDER_MODES = ("human", "ansi", "rgb_array")
"""``human`` prints the text board (on every reset and step in Gymnasium), ``ansi`` returns
it, ``rgb_array`` returns an image (for games that draw one: ``Game.renders_images``)."""


def check_choice(name: str, value: object, choices: Iterable[object]) -> None:
    """Raise ``ValueError`` naming the option when ``value`` is not one of ``choices``."""
    options = tuple(choices)
    if value not in options:
        raise ValueError(f"{name}={value!r} is not one of {', '.join(map(repr, options))}")


def render_modes(game: Game) -> tuple[str, ...]:
    """The render modes of ``game``'s envs: ``rgb_array`` only where it draws images."""
    return RENDER_MODES if game.renders_images else RENDER_MODES[:2]


def parse_side(game: Game, value: str | int) -> int:
    """0 (the first player) or 1 from a side's name (``Game.side_choices`` or
    ``side_names``, any case) or the number itself."""
    if isinstance(value, str):
        names = {
            n.lower(): i for i, n in (*enumerate(game.side_names), *enumerate(game.side_choices))
        }
        if value.lower() in names:
            return names[value.lower()]
    elif value in (0, 1) and not isinstance(value, bool):
        return int(value)
    a, b = game.side_choices
    raise ValueError(f"player_color={value!r} is not {a!r} or {b!r} (or 'random')")


def check_player_color(game: Game, value: str | int) -> None:
    """Raise ``ValueError`` unless ``value`` names a side of ``game`` or is ``"random"``."""
    if value != "random":
        parse_side(game, value)


def reward_of(mode: str, game: Game, score: float) -> float:
    """The final reward of a side whose final score is ``score``."""
    if mode == "outcome":
        return float((score > 0) - (score < 0))
    return float(score / game.score_scale)


def view(game: Game, position: Any, side: int) -> tuple[int, int]:
    """``position``'s two words seen by ``side`` (as if it were to move)."""
    p, o = position.state
    return (p, o) if position.turn == side else game.turned(p, o)


def agent_action(
    position: Any, action: int, mode: str, agent: str, rng: np.random.Generator, extra: dict
) -> int | None:
    """The action an agent's ``action`` plays, by the envs' one rule for an illegal action:
    a legal one is played; an illegal one raises an ``IllegalMoveError`` naming the ``agent``
    (``mode`` ``"raise"``), loses the game (``"lose"``: returns None) or is replaced by a
    uniformly random legal action (``"mask"``: ``extra["played_action"]``). ``extra`` gets
    ``illegal_action``; ``position`` is any game's position."""
    extra["illegal_action"] = False
    legal = position.legal_actions()
    if action in legal:
        return action
    if mode == "raise":
        try:
            position.play(action)
        except IllegalMoveError as e:
            raise IllegalMoveError(f"agent ({agent}) action {action}: {e}") from None
    extra["illegal_action"] = True
    if mode == "lose":
        return None
    extra["played_action"] = legal[int(rng.integers(len(legal)))]
    return int(extra["played_action"])


def observation_planes(
    position: Any, side: int, *, legal_plane: bool | None = None, legal: bool = True
) -> np.ndarray:
    """``side``'s planes of ``position`` (``Game.env_planes``/``observe``): its view, with a
    plane of legal moves (where the game has one) zero unless ``legal`` and ``side`` is to
    move."""
    game = position_game(position)
    p, o = view(game, position, side)
    planes = game.env_planes(legal_plane)
    return game.observe(p, o, planes, legal=legal and position.turn == side)  # type: ignore[no-any-return]


def action_mask(position: Any, side: int, *, resign: bool = False) -> np.ndarray:
    """``int8`` 0/1 vector over the actions (the game's, then resign if enabled) of the moves
    ``side`` may make now: all zero when it is not ``side``'s turn or the game is over."""
    n = position.n_actions
    out = np.zeros(n + int(resign), dtype=np.int8)
    if position.turn == side:
        legal = position.legal_actions()
        out[legal] = 1
        if resign and legal:
            out[n] = 1
    return out


def start_episode(env: Any, seed: int | None, options: dict[str, Any] | None) -> int:
    """What a single-agent env does first in ``reset``: reseed the opponent from the env's
    generator (on a seeded reset, and once before the first episode), reset it, and return the
    agent's side for this episode (``options["player_color"]`` or the env's ``player_color``;
    ``"random"`` draws it)."""
    if seed is not None or not env._opponent_seeded:
        env.opponent.seed(int(env.np_random.integers(2**63)))
        env._opponent_seeded = True
    env.opponent.reset()
    side = (options or {}).get("player_color", env.player_color)
    if side == "random":
        return int(env.np_random.integers(2))
    return parse_side(env.game, side)


def render(
    mode: str | None,
    game: Game,
    position: Any,
    *,
    last: int | None = None,
    last_name: str | None = None,
) -> str | np.ndarray | None:
    """Render ``position`` in one of ``RENDER_MODES`` (``None`` renders nothing): the game's
    text (``Game.render_position``) or image (``render_image``)."""
    if mode == "rgb_array":
        return game.render_image(position, last=last)  # type: ignore[no-any-return]
    if mode not in ("ansi", "human"):
        return None
    text = game.render_position(position, last=last, last_name=last_name) + "\n"
    if mode == "ansi":
        return text
    print(text)
    return None
