"""Play any game in a terminal against any ``Player`` of that game: the board as the game
renders it (with its legend), the legal moves in the prompt, the opponent's move and
evaluation, hints, undo, and clear messages for typos and illegal moves."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from othellolab.core import (
    IllegalMoveError,
    InvalidMoveError,
    Limit,
    PlayResult,
    Score,
    Stop,
    run_stoppable,
)
from othellolab.core.games import Game, game_for
from othellolab.players.base import Player

COMMANDS = "Also: 'undo', 'hint', 'help' or 'quit'."


def help_text(game: Game) -> str:
    """What the terminal tells a player of ``game``: how to type a move, then the commands."""
    return f"{game.move_help()} {COMMANDS}"


def _ask(
    input_fn: Callable[[str], str], print_fn: Callable[[str], None], prompt: str, help_text: str
) -> str | None:
    """One line from the human: None to leave the game (``quit``, or input closed), ``""``
    after showing ``help_text`` (``help``, ``?`` or an empty line), else the stripped text."""
    try:
        text = input_fn(prompt).strip()
    except EOFError:
        print_fn("Input closed; leaving the game.")
        return None
    if text.lower() in ("quit", "exit", "q"):
        print_fn("Bye.")
        return None
    if text.lower() in ("help", "?", ""):
        print_fn(help_text)
        return ""
    return text


def _evaluation(game: Game, result: PlayResult, sign: int) -> str:
    """``+1.5 discs``: the chooser's score with its unit, ``sign`` turning it to the human's
    side, or nothing (``evaluation_text``)."""
    if result.score is None:
        return ""
    return evaluation_text(game, result.score if sign > 0 else result.score.flipped())


def evaluation_text(game: Game, score: Score) -> str:
    """An evaluation as a person reads it, always with its unit: ``+1.3 discs`` (a final-score
    estimate of a game that counts one, Othello's disc difference), ``+0.24 expected result``
    (in [-1, 1], +1 a win), a proven score as ``exact``, and the chance of winning where the
    player gives one (``62% win``).

    >>> from othellolab.core.games import get_game
    >>> evaluation_text(get_game("othello"), Score(1.3, win_prob=0.62))
    '+1.3 discs, 62% win'
    >>> evaluation_text(get_game("othello"), Score(0.24, unit="result"))
    '+0.24 expected result'
    """
    value = 0.0 + score.value
    counts = game.score_name
    if score.unit == "discs" and counts is not None:
        text = f"{value:+.1f} {'discs' if 'disc' in counts else counts}"
    else:
        text = f"{value:+.2f} expected result"
    if score.exact:
        text += ", exact"
    if score.win_prob is not None:
        text += f", {100 * score.win_prob:.0f}% win"
    return text


def _think(player: Player, position: Any, limit: Limit | None) -> PlayResult:
    """``player.choose`` stoppable with Ctrl-C (``KeyboardInterrupt`` goes on to the caller)."""
    stop = Stop()
    thinking = dataclasses.replace(limit or Limit(), stop=stop)
    return run_stoppable(lambda p=position, t=thinking: player.choose(p, t), stop)


def play_terminal(
    opponent: Player,
    *,
    game: str | Game | None = None,
    human: int = 0,
    size: int = 8,
    limit: Limit | None = None,
    hint: Player | None = None,
    input_fn: Callable[[str], str] = input,
    print_fn: Callable[[str], None] = print,
) -> Any:
    """Run one game of ``game`` (a ``Game`` or a name; Othello on ``size`` by default), the
    human playing side ``human`` (0 moves first); returns the final position (or where they
    quit). ``hint`` answers the human's ``hint`` with its move and, if it gives one, its
    evaluation (the opponent by default, with the same ``limit``)."""
    rules = game_for(game, size)
    helper = hint or opponent
    history: list[Any] = [rules.new_position()]
    last: int | None = None
    opponent.reset()
    side = rules.side_names[human]
    help_ = help_text(rules)
    print_fn(f"You play {rules.describe_side(human)} against {opponent.name}. {help_}")
    shown: Any = None
    while True:
        position = history[-1]
        if position is not shown:
            print_fn(rules.render_position(position, last=last, legend=True))
            shown = position
        p, o = position.state
        score = rules.result(p, o)
        if score is not None:
            mine = score if position.turn == human else -score
            verdict = {1: "You win!", 0: "A draw.", -1: "You lose."}[(mine > 0) - (mine < 0)]
            print_fn(f"Game over: {rules.describe_end(position)}. {verdict}")
            return position
        if position.turn != human:
            try:
                result = _think(opponent, position, limit)
            except KeyboardInterrupt:
                print_fn("Interrupted; leaving the game.")
                return position
            note = _evaluation(rules, result, -1)
            note = f" (its evaluation for you: {note})" if note else ""
            print_fn(f"{opponent.name} plays {rules.move_name(position, result.move)}{note}")
            history.append(position.play(result.move))
            last = result.move
            continue
        legal = position.legal_actions()
        if legal == [rules.pass_action]:
            prompt = f"{side} has no legal move: type '{rules.move_name(position, legal[0])}' > "
        else:
            names = ", ".join(rules.move_name(position, a) for a in legal)
            prompt = f"{side} to move ({names}) > "
        text = _ask(input_fn, print_fn, prompt, help_)
        if text is None:
            return position
        low = text.lower()
        if not low:
            continue
        if low == "hint":
            try:
                result = _think(helper, position, limit)
            except KeyboardInterrupt:
                print_fn("Hint interrupted.")
                continue
            note = _evaluation(rules, result, 1)
            note = f" (evaluation for you: {note})" if note else ""
            print_fn(f"Hint: {rules.move_name(position, result.move)}{note}")
            continue
        if low == "undo":
            # Back to the previous position where it was the human's turn.
            while len(history) > 1:
                history.pop()
                if history[-1].turn == human and not history[-1].is_game_over():
                    break
            last = None
            continue
        try:
            after = position.play(text)
        except InvalidMoveError as e:
            legal_names = ", ".join(rules.move_name(position, a) for a in legal)
            print_fn(f"Not a move: {e}. Legal moves: {legal_names}.")
        except IllegalMoveError as e:
            print_fn(f"Illegal: {e}")
        else:
            last = next(a for a in legal if position.play(a) == after)
            history.append(after)
