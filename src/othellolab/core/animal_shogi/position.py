"""The people's animal shogi position: ``AnimalShogi``, a frozen value with SFEN, move names,
legality with reasons, results and the mirror, over the kernels; and ``perft_divide``.
"""

from __future__ import annotations

import numpy as np

from othellolab.core.animal_shogi.encoding import mirror_state
from othellolab.core.animal_shogi.notation import (
    _DIRECTION_OF,
    _DROP_LETTERS,
    _DROP_RE,
    _LETTERS,
    _MOVE_RE,
    _parse_hands,
    _view_square,
    parse_square,
    square_name,
)
from othellolab.core.animal_shogi.rules import (
    _DIRS,
    _SRC,
    CHICK,
    COLOR_NAMES,
    DRAW_PLIES,
    GOTE,
    HEN,
    LION,
    MAX_LEGAL_ACTIONS,
    N_ACTIONS,
    ONGOING,
    OPPONENT,
    PIECE_NAMES,
    SENTE,
    _lion_square,
    legal_actions,
    perft,
    result,
    rotate_state,
    start_state,
    step,
)
from othellolab.core.errors import IllegalMoveError, InvalidMoveError, InvalidPositionError

__all__ = ["AnimalShogi", "perft_divide"]

_new = object.__new__
_KEY_BITS = 60


class AnimalShogi:
    """An animal shogi position: pieces, hands, whose turn it is and the ply counter.

    An ``AnimalShogi`` never changes: ``play`` returns the next one. ``AnimalShogi()`` is the
    start position. With ``repetition_draw=True`` the position also carries the game's history
    and a position seen for the third time (same board, hands and side to move) is a draw; the
    history is bookkeeping, not identity: ``==`` and ``hash`` look at the position only.
    """

    __slots__ = ("_history", "_o", "_p", "_turn")

    _p: int
    _o: int
    _turn: int
    _history: tuple[int, ...] | None

    def __init__(self, *, repetition_draw: bool = False) -> None:
        p, o = start_state()
        self._p, self._o, self._turn = int(p), int(o), SENTE
        self._history = (self._key(),) if repetition_draw else None

    @classmethod
    def start(cls, *, repetition_draw: bool = False) -> AnimalShogi:
        """The start position (the first player to move, ply 0)."""
        return cls(repetition_draw=repetition_draw)

    @classmethod
    def _make(cls, p: int, o: int, turn: int, history: tuple[int, ...] | None) -> AnimalShogi:
        pos = _new(cls)
        pos._p = p
        pos._o = o
        pos._turn = turn
        pos._history = history
        return pos

    @classmethod
    def from_state(
        cls, p: int, o: int, turn: int = SENTE, *, repetition_draw: bool = False
    ) -> AnimalShogi:
        """A position from the kernels' ``(p, o)`` and the side to move (checked as
        ``from_sfen`` checks a position)."""
        if turn not in (SENTE, GOTE):
            raise InvalidPositionError(f"turn must be SENTE (0) or GOTE (1), got {turn!r}")
        p, o = int(p), int(o)
        if not 0 <= p < 1 << 60:
            raise InvalidPositionError(f"state p={p:#x} has bits above bit 59")
        if not 0 <= o < 1 << 32:
            raise InvalidPositionError(f"ply counter o={o} out of range")
        board = [p >> 4 * i & 15 for i in range(12)]
        for sq, code in enumerate(board):
            if code & 7 not in range(1, 6) and code != 0:
                raise InvalidPositionError(
                    f"state p={p:#x}: invalid piece code {code} on view square {sq}"
                )
        where = f"state p={p:#x}"
        if any(p >> 48 + 2 * i & 3 > 2 for i in range(6)):
            raise InvalidPositionError("a hand holds more than 2 pieces of a kind", where=where)
        pos = cls._make(p, o, turn, None)
        pos._check(where)
        if repetition_draw:
            pos._history = (pos._key(),)
        return pos

    @classmethod
    def from_sfen(cls, text: str, *, repetition_draw: bool = False) -> AnimalShogi:
        """Parse a position: ``"<board> <side> <hands> [<move number>]"``.

        - board: the rows from row 1 (the second player's back row) to row 4, separated by
          ``/``, each giving columns a..c with letters for pieces (``L`` lion, ``G`` giraffe,
          ``E`` elephant, ``C`` chick, ``H`` hen; uppercase the first player's, lowercase the
          second player's) and digits 1..3 for runs of empty squares;
        - side: ``b`` (the first player, sente) or ``w`` (the second player) to move;
        - hands: ``-`` for none, else piece letters (``C``, ``E``, ``G``; uppercase the first
          player's), each preceded by ``2`` when two are held: ``"C2e"``;
        - move number: the 1-based number of the next move, ``ply + 1`` (optional, default 1).

        Each side has at most one lion, and the side not to move has one (the side to move may
        lack its lion: the game ended by its capture); at most 2 chicks (hens included), 2
        elephants, 2 giraffes are in play, board and hands together. Raises
        ``InvalidPositionError`` naming what is wrong.

        >>> AnimalShogi.from_sfen("gle/1c1/1C1/ELG b - 1") == AnimalShogi()
        True
        """
        where = f"position {text[:60]!r}"
        fields = text.split()
        if len(fields) not in (3, 4):
            raise InvalidPositionError(
                f"expected 3 or 4 fields (board, side to move, hands, move number), "
                f"found {len(fields)}",
                where=where,
            )
        rows = fields[0].split("/")
        if len(rows) != 4:
            raise InvalidPositionError(
                f"board {fields[0]!r}: expected 4 rows separated by '/', found {len(rows)}",
                where=where,
            )
        # codes[square] from the first player's view (square 0 = a1): own = sente.
        codes: list[int] = []
        for r, row in enumerate(rows, 1):
            cells: list[int] = []
            for i, ch in enumerate(row):
                if ch in "123":
                    if i and row[i - 1] in "123":
                        raise InvalidPositionError(
                            f"row {r} {row!r}: two digits in a row; write one run of empties",
                            where=where,
                        )
                    cells += [0] * int(ch)
                elif ch.upper() in "LGECH":
                    code = _LETTERS.index(ch.upper())
                    cells.append(code if ch.isupper() else code + OPPONENT)
                else:
                    raise InvalidPositionError(
                        f"row {r} {row!r}: invalid character {ch!r}; expected L, G, E, C, H "
                        "(uppercase first player, lowercase second player) or a digit 1-3",
                        where=where,
                    )
            if len(cells) != 3:
                raise InvalidPositionError(
                    f"row {r} {row!r}: describes {len(cells)} squares, expected 3", where=where
                )
            codes += cells
        side = fields[1]
        if side not in ("b", "w"):
            raise InvalidPositionError(
                f"invalid side to move {side!r}: expected 'b' (first player) or 'w'",
                where=where,
            )
        turn = SENTE if side == "b" else GOTE
        hands = _parse_hands(fields[2], where)
        ply = 0
        if len(fields) == 4:
            number = fields[3]
            if not number.isdigit() or int(number) < 1:
                raise InvalidPositionError(
                    f"invalid move number {number!r}: expected a positive integer", where=where
                )
            ply = int(number) - 1
            if ply >= 1 << 32:
                raise InvalidPositionError(f"move number {number} is too large", where=where)
        p = 0
        for sq, code in enumerate(codes):
            p |= code << 4 * sq
        for i, count in enumerate(hands[SENTE] + hands[GOTE]):
            p |= count << 48 + 2 * i
        if turn == GOTE:
            p = int(rotate_state(p, 0)[0])
        pos = cls._make(p, ply, turn, None)
        pos._check(where)
        if repetition_draw:
            pos._history = (pos._key(),)
        return pos

    def _check(self, where: str) -> None:
        """Raise ``InvalidPositionError`` unless the position could arise in a game (of a
        subset of the pieces)."""
        counts = {name: 0 for name in ("chick", "elephant", "giraffe")}
        lions = [0, 0]
        for sq in range(12):
            owner, code = self._owner_code(sq)
            if code == LION:
                lions[owner] += 1
            elif code:
                counts["chick" if code == HEN else PIECE_NAMES[code]] += 1
        for color in (SENTE, GOTE):
            for name, count in self.hand(color).items():
                counts[name] += count
        for name, count in counts.items():
            if count > 2:
                raise InvalidPositionError(
                    f"{count} {name}s in play (board and hands); at most 2"
                    + (" (hens count as chicks)" if name == "chick" else ""),
                    where=where,
                )
        for color in (SENTE, GOTE):
            if lions[color] > 1:
                raise InvalidPositionError(
                    f"{COLOR_NAMES[color]} has {lions[color]} lions; at most 1", where=where
                )
        waiting = 1 - self._turn
        if lions[waiting] == 0:
            raise InvalidPositionError(
                f"{COLOR_NAMES[waiting]}, not to move, has no lion", where=where
            )

    def sfen(self) -> str:
        """The position as an SFEN-like string (``from_sfen``'s inverse)."""
        rows = []
        for r in range(4):
            row, empty = "", 0
            for c in range(3):
                owner, code = self._owner_code(r * 3 + c)
                if not code:
                    empty += 1
                    continue
                if empty:
                    row += str(empty)
                    empty = 0
                row += _LETTERS[code] if owner == SENTE else _LETTERS[code].lower()
            rows.append(row + (str(empty) if empty else ""))
        return f"{'/'.join(rows)} {'bw'[self._turn]} {self._hands_sfen()} {self._o + 1}"

    def _hands_sfen(self) -> str:
        out = ""
        for color in (SENTE, GOTE):
            for letter, count in zip(_DROP_LETTERS, self.hand(color).values(), strict=True):
                letter = letter if color == SENTE else letter.lower()
                out += "" if count == 0 else letter if count == 1 else f"{count}{letter}"
        return out or "-"

    # ------------------------------------------------------------------------------------------
    # Facts

    @property
    def n_actions(self) -> int:
        """How many actions there are (``N_ACTIONS``): the length of a policy vector."""
        return N_ACTIONS

    @property
    def turn(self) -> int:
        """The side to move: ``SENTE`` (0, the first player) or ``GOTE`` (1)."""
        return self._turn

    @property
    def ply(self) -> int:
        """Moves played so far."""
        return self._o

    @property
    def move_number(self) -> int:
        """The 1-based number of the next move (``ply + 1``), as in SFEN."""
        return self._o + 1

    @property
    def state(self) -> tuple[int, int]:
        """The kernels' ``(p, o)``: the position seen from the side to move."""
        return self._p, self._o

    @property
    def repetition_draw(self) -> bool:
        """Whether this position keeps its game's history for the repetition rule."""
        return self._history is not None

    def _owner_code(self, square: int) -> tuple[int, int]:
        """(owner, piece code 0..5) on a board square (a1 = 0); code 0 for empty."""
        code = self._p >> 4 * _view_square(square, self._turn) & 15
        if not code:
            return SENTE, 0
        return (self._turn if code < OPPONENT else 1 - self._turn), code & 7

    def piece_at(self, square: int | str) -> str | None:
        """The SFEN letter of the piece on a square (``"L"`` the first player's lion, ``"c"``
        the second player's chick), or ``None`` if it is empty."""
        sq = parse_square(square) if isinstance(square, str) else square
        if not 0 <= sq < 12:
            raise InvalidMoveError(f"square {square!r} out of range 0..11")
        owner, code = self._owner_code(sq)
        if not code:
            return None
        return _LETTERS[code] if owner == SENTE else _LETTERS[code].lower()

    def hand(self, color: int) -> dict[str, int]:
        """The pieces ``color`` holds: ``{"chick": n, "elephant": n, "giraffe": n}``."""
        base = 48 if color == self._turn else 54
        return {
            name: self._p >> base + 2 * i & 3
            for i, name in enumerate(("chick", "elephant", "giraffe"))
        }

    # ------------------------------------------------------------------------------------------
    # Moves

    def legal_actions(self) -> list[int]:
        """The legal actions in increasing order (empty when the game is over)."""
        if self._is_repetition():
            return []
        buf = np.empty(MAX_LEGAL_ACTIONS, dtype=np.int64)
        n = legal_actions(self._p, self._o, buf)
        return [int(a) for a in buf[:n]]

    def legal_action_mask(self) -> np.ndarray:
        """Boolean vector over the ``N_ACTIONS`` actions."""
        out = np.zeros(N_ACTIONS, dtype=bool)
        out[self.legal_actions()] = True
        return out

    def legal_moves(self) -> list[str]:
        """The legal moves' names, in action order."""
        return [self.move_name(a) for a in self.legal_actions()]

    def is_legal(self, move: int | str) -> bool:
        """Whether ``move`` (name or action) is legal here; malformed moves are simply illegal."""
        try:
            a = self.parse_move(move)
        except InvalidMoveError:
            return False
        return a in self.legal_actions()

    def move_name(self, action: int) -> str:
        """The name of an action here: ``"b3b2"``, ``"b2b1+"`` for a promotion, ``"C*b2"`` for a
        drop; squares named from the first player's side."""
        if isinstance(action, bool) or not isinstance(action, int | np.integer):
            raise InvalidMoveError(f"action must be an int, got {action!r}")
        action = int(action)
        if not 0 <= action < N_ACTIONS:
            raise InvalidMoveError(
                f"action {action} out of range 0..{N_ACTIONS - 1}", move=str(action)
            )
        dest, k = divmod(action, 11)
        to = square_name(_view_square(dest, self._turn))
        if k >= 8:
            return f"{_DROP_LETTERS[k - 8]}*{to}"
        src = int(_SRC[dest, k])
        if src < 0:
            raise InvalidMoveError(
                f"action {action} moves a piece from off the board", move=str(action)
            )
        code = self._p >> 4 * src & 15
        promotes = code == CHICK and dest < 3
        return f"{square_name(_view_square(src, self._turn))}{to}{'+' if promotes else ''}"

    def parse_move(self, move: int | str) -> int:
        """The action of a move name (``"b3b2"``, ``"b2b1+"``, ``"C*b2"``) or an action index.

        The promotion mark is optional (promotion is mandatory) but may only mark a chick moving
        onto the farthest row. Raises ``InvalidMoveError`` for a malformed name or an action out
        of range; legality is ``play``'s business.
        """
        if not isinstance(move, str):
            if isinstance(move, bool) or not isinstance(move, int | np.integer):
                raise InvalidMoveError(f"a move is a name or an action, got {move!r}")
            if not 0 <= move < N_ACTIONS:
                raise InvalidMoveError(
                    f"action {move} out of range 0..{N_ACTIONS - 1}", move=str(move)
                )
            return int(move)
        text = move.strip()
        if m := _DROP_RE.fullmatch(text):
            dest = _view_square(parse_square(m.group(2)), self._turn)
            return dest * 11 + 8 + _DROP_LETTERS.index(m.group(1).upper())
        m = _MOVE_RE.fullmatch(text)
        if not m:
            raise InvalidMoveError(
                f"invalid move {move!r}: expected a move like 'b3b2' (or 'b2b1+') or a drop "
                "like 'C*b2'",
                move=move,
            )
        src = _view_square(parse_square(m.group(1)), self._turn)
        dest = _view_square(parse_square(m.group(2)), self._turn)
        step_ = (dest // 3 - src // 3, dest % 3 - src % 3)
        k = _DIRECTION_OF.get(step_)
        if k is None:
            raise InvalidMoveError(
                f"invalid move {move!r}: every piece moves one square to a neighbour",
                move=move,
            )
        if m.group(3) and not (self._p >> 4 * src & 15 == CHICK and dest < 3):
            raise InvalidMoveError(
                f"invalid move {move!r}: '+' marks only a chick moving onto the farthest row",
                move=move,
            )
        return dest * 11 + k

    def play(self, move: int | str) -> AnimalShogi:
        """The position after the side to move plays ``move`` (a name like ``"b3b2"`` or
        ``"C*b2"``, or an action index).

        Raises ``IllegalMoveError`` (naming the move and the legal ones) if the rules forbid it.
        """
        a = self.parse_move(move)
        if a not in self.legal_actions():
            raise self._illegal(a)
        p2, o2 = step(self._p, self._o, a)
        pos = AnimalShogi._make(int(p2), int(o2), 1 - self._turn, None)
        if self._history is not None:
            pos._history = (*self._history, pos._key())
        return pos

    def _illegal(self, action: int) -> IllegalMoveError:
        who = COLOR_NAMES[self._turn]
        dest, k = divmod(action, 11)
        try:
            name = self.move_name(action)
        except InvalidMoveError:
            name = str(action)
        to = square_name(_view_square(dest, self._turn))
        target = self._p >> 4 * dest & 15
        if self.is_game_over():
            why = f"the game is over ({self.termination()})"
        elif k >= 8:
            kind = PIECE_NAMES[k - 7]
            why = f"{to} is occupied" if target else f"{who} has no {kind} in hand"
        else:
            src = int(_SRC[dest, k])
            code = self._p >> 4 * src & 15 if src >= 0 else 0
            frm = square_name(_view_square(src, self._turn)) if src >= 0 else "off the board"
            if src < 0 or not code or code >= OPPONENT:
                why = f"{who} has no piece on {frm}"
            elif not _DIRS[code] >> k & 1:
                why = f"the {PIECE_NAMES[code]} on {frm} cannot move to {to}"
            else:
                why = f"{to} holds {who}'s own {PIECE_NAMES[target & 7]}"
        legal = tuple(self.legal_moves())
        return IllegalMoveError(
            f"illegal move {name} for {who}: {why}; legal moves: {', '.join(legal) or 'none'}",
            move=name,
            legal=legal,
        )

    # ------------------------------------------------------------------------------------------
    # Results

    def _key(self) -> int:
        return self._p | self._turn << _KEY_BITS

    def _is_repetition(self) -> bool:
        h = self._history
        return h is not None and h.count(self._key()) >= 3

    def result(self) -> int | None:
        """+1, 0 or -1 for the side to move once the game is over (won, drawn, lost), else
        ``None``."""
        r = int(result(self._p, self._o))
        if r != ONGOING:
            return r
        return 0 if self._is_repetition() else None

    def is_game_over(self) -> bool:
        """Whether the game has ended (lion captured, try, no move, ply limit, repetition)."""
        return self.result() is not None

    @property
    def winner(self) -> int | None:
        """``SENTE`` or ``GOTE`` once one has won; ``None`` while the game goes on or drawn."""
        r = self.result()
        if not r:
            return None
        return self._turn if r > 0 else 1 - self._turn

    def termination(self) -> str | None:
        """Why the game ended: ``"lion captured"``, ``"try"``, ``"ply limit"``, ``"repetition"``
        or ``"no legal move"``; ``None`` while it goes on."""
        lion = int(_lion_square(self._p))
        if lion < 0:
            return "lion captured"
        if lion < 3:
            return "try"
        if self._o >= DRAW_PLIES:
            return "ply limit"
        if int(result(self._p, self._o)) != ONGOING:
            return "no legal move"
        if self._is_repetition():
            return "repetition"
        return None

    # ------------------------------------------------------------------------------------------
    # Symmetry

    def mirror(self) -> AnimalShogi:
        """The left-right mirror image (columns a and c swapped), the rules' one symmetry."""
        p, o = mirror_state(self._p, self._o)
        history = self._history
        if history is not None:
            history = tuple(
                int(mirror_state(key & ((1 << _KEY_BITS) - 1), 0)[0])
                | key >> _KEY_BITS << _KEY_BITS
                for key in history
            )
        return AnimalShogi._make(int(p), int(o), self._turn, history)

    # ------------------------------------------------------------------------------------------
    # Dunder

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, AnimalShogi):
            return NotImplemented
        return self._p == other._p and self._o == other._o and self._turn == other._turn

    def __hash__(self) -> int:
        return hash((self._p, self._o, self._turn))

    def __repr__(self) -> str:
        return f"AnimalShogi.from_sfen({self.sfen()!r})"

    def _repr_svg_(self) -> str:
        """The position drawn in Jupyter: ``core.svg.board`` with its hands and the legal
        moves' destinations."""
        from othellolab.core.svg import board as draw  # drawing is loaded only when asked for

        return draw(self)

    def __str__(self) -> str:
        """The board from the first player's side, the second player's hand above it and the
        first player's below, then the side to move (or how the game ended)."""
        lines = [f"gote hand:  {self._hand_text(GOTE)}", "   a b c"]
        for r in range(4):
            cells = [self.piece_at(r * 3 + c) or "." for c in range(3)]
            lines.append(f"{r + 1}  " + " ".join(cells))
        lines.append(f"sente hand: {self._hand_text(SENTE)}")
        why = self.termination()
        if why is None:
            lines.append(f"{COLOR_NAMES[self._turn]} to move, move {self.move_number}")
        else:
            winner = self.winner
            verdict = "draw" if winner is None else f"{COLOR_NAMES[winner]} wins"
            plies = "ply" if self._o == 1 else "plies"
            lines.append(f"game over after {self._o} {plies}: {verdict} ({why})")
        return "\n".join(lines)

    def _hand_text(self, color: int) -> str:
        letters = [
            letter if color == SENTE else letter.lower()
            for letter, count in zip(_DROP_LETTERS, self.hand(color).values(), strict=True)
            for _ in range(count)
        ]
        return " ".join(letters) or "-"


def perft_divide(pos: AnimalShogi, depth: int) -> dict[str, int]:
    """Perft split by first move (each legal move's name and its leaf count ``depth`` plies
    deep, the move included): the way to find where two move generators disagree."""
    out = {}
    for a in pos.legal_actions():
        p, o = step(pos.state[0], pos.state[1], a)
        out[pos.move_name(a)] = int(perft(p, o, depth - 1))
    return out
