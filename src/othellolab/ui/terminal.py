"""Play Othello or animal shogi in a terminal against any ``Player`` of that game: the board
with legal moves (and, for animal shogi, both hands), the score, and clear messages for typos
and illegal moves."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from othellolab.core import (
    BLACK,
    COLOR_NAMES,
    Board,
    Color,
    IllegalMoveError,
    InvalidMoveError,
    Limit,
    Stop,
    parse_move,
    run_stoppable,
    square_name,
)
from othellolab.core import animal_shogi as _shogi
from othellolab.core.animal_shogi import AnimalShogi
from othellolab.players.base import Player

HELP = "Type a move like f5, 'pass' when you have no move, 'undo', 'hint', or 'quit'."

SHOGI_HELP = (
    "Type a move as from and to squares, like b3b2 (a chick reaching the far row promotes: "
    "b2b1 or b2b1+), a drop like C*b2 (C chick, E elephant, G giraffe from your hand), "
    "'help', or 'quit'. Squares are named from the first player's side: columns a-c, rows "
    "1-4 from the top; the first player's pieces are uppercase."
)


def render(board: Board, *, last: int | None = None) -> str:
    """The board as text (``Board.diagram``), the last move in brackets."""
    return board.diagram(last=last)


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


def play_terminal(
    opponent: Player,
    *,
    human: Color = BLACK,
    size: int = 8,
    limit: Limit | None = None,
    input_fn: Callable[[str], str] = input,
    print_fn: Callable[[str], None] = print,
) -> Board:
    """Run one game, the human playing ``human``; returns the final board (or where they quit)."""
    history: list[Board] = [Board(size=size)]
    last: int | None = None
    opponent.reset()
    print_fn(
        f"You play {COLOR_NAMES[human]} ({'X' if human == BLACK else 'O'}) against {opponent.name}. {HELP}"
    )
    shown: Board | None = None
    while True:
        board = history[-1]
        if board is not shown:
            print_fn(render(board, last=last))
            shown = board
        if board.is_game_over():
            outcome = board.outcome()
            assert outcome is not None
            verdict = outcome.result(human)
            print_fn(
                f"Game over: {outcome}. " + {1: "You win!", 0: "A draw.", -1: "You lose."}[verdict]
            )
            return board
        if board.turn != human:
            stop = Stop()
            thinking = dataclasses.replace(limit or Limit(), stop=stop)
            try:
                result = run_stoppable(lambda b=board, t=thinking: opponent.choose(b, t), stop)
            except KeyboardInterrupt:
                print_fn("Interrupted; leaving the game.")
                return board
            name = square_name(result.move, size)
            note = ""
            if result.score is not None:
                note = f" (its evaluation for you: {-result.score.value:+.1f})"
            print_fn(f"{opponent.name} plays {name}{note}")
            history.append(board.play(result.move))
            last = result.move if result.move != board.pass_action else None
            continue
        if board.must_pass():
            prompt = f"{COLOR_NAMES[human]} has no legal move: type 'pass' > "
        else:
            prompt = f"{COLOR_NAMES[human]} to move ({', '.join(board.legal_moves.names())}) > "
        text = _ask(input_fn, print_fn, prompt, HELP)
        if text is None:
            return board
        low = text.lower()
        if not low:
            continue
        if low == "hint":
            from othellolab.players.simple import GreedyPlayer

            hint = GreedyPlayer(seed=0).choose(board).move
            print_fn(f"Hint: {square_name(hint, size)}")
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
            move = parse_move(text, size)
            history.append(board.play(move))
            last = move if move != board.pass_action else None
        except InvalidMoveError as e:
            print_fn(f"Not a move: {e}. {HELP}")
        except IllegalMoveError as e:
            print_fn(f"Illegal: {e}")


def play_terminal_shogi(
    opponent: Player,
    *,
    human: int = _shogi.SENTE,
    limit: Limit | None = None,
    input_fn: Callable[[str], str] = input,
    print_fn: Callable[[str], None] = print,
) -> AnimalShogi:
    """Run one game of animal shogi, the human playing ``human`` (``SENTE`` moves first);
    returns the final position (or where they quit). The board and both hands are shown after
    every move; a malformed or illegal move is answered with the reason and the legal moves."""
    position = AnimalShogi()
    side = _shogi.COLOR_NAMES[human]
    order = "first" if human == _shogi.SENTE else "second"
    opponent.reset()
    print_fn(f"You play {order} ({side}) against {opponent.name}. {SHOGI_HELP}")
    shown: AnimalShogi | None = None
    while True:
        if position is not shown:
            print_fn(str(position))
            shown = position
        if position.is_game_over():
            winner = position.winner
            verdict = "A draw." if winner is None else ("You lose.", "You win!")[winner == human]
            print_fn(f"Game over: {position.termination()}. {verdict}")
            return position
        if position.turn != human:
            stop = Stop()
            thinking = dataclasses.replace(limit or Limit(), stop=stop)
            try:
                result = run_stoppable(lambda p=position, t=thinking: opponent.choose(p, t), stop)
            except KeyboardInterrupt:
                print_fn("Interrupted; leaving the game.")
                return position
            note = ""
            if result.score is not None:
                note = f" (its evaluation for you: {0.0 - result.score.value:+.2f})"
            print_fn(f"{opponent.name} plays {position.move_name(result.move)}{note}")
            position = position.play(result.move)
            continue
        legal = ", ".join(position.legal_moves())
        text = _ask(input_fn, print_fn, f"{side} to move ({legal}) > ", SHOGI_HELP)
        if text is None:
            return position
        if not text:
            continue
        try:
            position = position.play(text)
        except InvalidMoveError as e:
            print_fn(f"Not a move: {e}. Legal moves: {legal}.")
        except IllegalMoveError as e:
            print_fn(f"Illegal: {e}")
