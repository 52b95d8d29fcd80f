"""Animal shogi (dobutsu shogi): the rules as Numba kernels over two ``uint64`` words, and a
frozen ``AnimalShogi`` position for people.

>>> pos = AnimalShogi()
>>> pos.legal_moves()
['b3b2', 'b4a3', 'c4c3', 'b4c3']
>>> pos = pos.play("b3b2")
>>> pos.sfen()
'gle/1C1/3/ELG w C 2'

Rules
-----
The published rules of the Japan Shogi Association (Madoka Kitao's game). The board has 3
columns ``a``-``c`` (left to right from the first player) and 4 rows ``1``-``4`` (top to
bottom, row 1 on the second player's side). The first player (sente, ``b`` in SFEN) sits at the
bottom and moves first::

    1  g l e      second player: giraffe a1, lion b1, elephant c1, chick b2
    2  . c .
    3  . C .      first player: chick b3, elephant a4, lion b4, giraffe c4
    4  E L G

Each piece steps one square: the lion in any of the 8 directions, the giraffe orthogonally,
the elephant diagonally, the chick straight forward, the hen (a promoted chick) forward,
forward-diagonally, sideways and straight back. A piece may not move onto its own side's
piece; moving onto an opponent's piece captures it into the mover's hand (a hen goes to hand
as a chick). Instead of moving, a player may drop a chick, elephant or giraffe from hand onto
any empty square. A chick that moves onto the farthest row becomes a hen (mandatory). There is
no check rule: a lion may step onto an attacked square and be captured.

Where the rules vary or leave a gap, this package decides as follows:

- **Capture**: the side to move has *lost* when it has no lion on the board (its lion was
  captured on the last move).
- **Try**: a lion that moves onto its farthest row wins "if it is not captured next". This is
  checked at the start of a turn: the side to move has *won* when its own lion stands on its
  farthest row (it survived the opponent's reply). The capture check comes first. So the try
  wins one ply later than in lishogi and Fairy-Stockfish (whose "safe try" ends the game at
  once when the lion is not attacked there), and a lion that reaches the far row while attacked
  wins too if the opponent does not take it.
- **Drops**: a chick may be dropped on the farthest row; it can never move there and never
  promotes (promotion happens only by moving). Two chicks may share a column, and a drop may
  threaten the lion at once (no shogi drop restrictions).
- **Draw**: a game reaching ``DRAW_PLIES`` (300) plies, moves of both sides counted, is a draw
  (the tutorial's rule), unless the position is already won or lost by the rules above.
- **Repetition** (optional, off by default, Python level only): with ``repetition_draw=True``
  an ``AnimalShogi`` keeps the positions of its game and declares a draw on the third
  occurrence of the same position (board, hands and side to move), as pgx does.
- **No legal move**: a loss for the side to move. It needs an empty hand and, with the
  standard pieces, one of just two (mirror-image) shapes, such as ``"GE1/LGE/CCl/3 b - 1"``.

``result`` applies these in order: lion captured (-1), try (+1), 300 plies (0), no move (-1).

State encoding (the kernels)
----------------------------
A position is ``(p, o)``, seen from the side to move, the board turned 180 degrees after every
move as in the Othello kernels:

- Square ``i = row * 3 + col`` (0..11), row 0 the row farthest from the side to move, row 3 its
  own back row; the side to move moves "up", towards row 0.
- ``p`` bits ``4i .. 4i+3``: the piece on square ``i``: 0 empty, 1 chick, 2 elephant,
  3 giraffe, 4 lion, 5 hen of the side to move; 9..13 the same for the opponent (``8 + code``).
  Bits 48..53: the side to move's hand (2 bits each: chicks, elephants, giraffes, 0..2); bits
  54..59: the opponent's hand, same layout.
- ``o``: the ply counter (moves played so far); nothing else.
- The other side's view of the same position: square ``i`` goes to ``11 - i``, the owner bit
  flips, the hands swap (``rotate_state``).

Actions (the network's policy index)
------------------------------------
``N_ACTIONS = 132``: ``action = dest * 11 + k`` for the 12 destination squares. ``k`` in 0..7
is the direction the piece moved in (from the side to move's view): 0 up, 1 up-right, 2 right,
3 down-right, 4 down, 5 down-left, 6 left, 7 up-left (up = towards row 0, right = increasing
column); the source square is ``dest`` minus that step. ``k`` = 8, 9, 10 drops a chick, an
elephant, a giraffe on ``dest``.

Planes and symmetry
-------------------
``encode_batch`` gives ``PLANES = 17`` planes of shape (4, 3) from the side to move (named in
``PLANE_NAMES``): own chick, elephant, giraffe, lion, hen; the opponent's five; own hand
chick/elephant/giraffe count / 2 and the opponent's, each a constant plane; ply / DRAW_PLIES
(1 or more only in finished games).
The rules' one non-trivial symmetry is the left-right mirror (column ``c`` -> ``2 - c``,
directions mirrored, drops unchanged): ``SYMMETRIES = 2`` transforms, 0 identity, 1 mirror.

Notation
--------
SFEN-like position strings, ``"gle/1c1/1C1/ELG b - 1"`` (see ``AnimalShogi.from_sfen``); moves
``"b3b2"`` (from, to; ``"+"`` appended when a chick promotes) and ``"C*b2"`` for drops.
Squares are always named from the first player's side.

Modules
-------
One module per job, each importing only those before it; this package re-exports their
public names:

- ``rules``: the rules kernels over ``(p, o)`` (``start_state``, ``rotate_state``,
  ``legal_actions``, ``step``, ``result``, their ``_batch`` forms, ``perft``) and the constants
  of the encoding;
- ``encoding``: the learning tier's kernels: the planes (``encode_batch``) and the mirror of
  states, actions and policies (``mirror_*``, ``transform_*``);
- ``notation``: square names, piece letters, move-name patterns, the SFEN hands field;
- ``position``: the people's ``AnimalShogi`` and ``perft_divide``.
"""

from othellolab.core.animal_shogi.encoding import (
    MIRROR_ACTIONS,
    PLANE_NAMES,
    PLANES,
    SYMMETRIES,
    encode_batch,
    mirror_action,
    mirror_policy,
    mirror_state,
    transform_policies,
    transform_states,
)
from othellolab.core.animal_shogi.notation import START_SFEN, parse_square, square_name
from othellolab.core.animal_shogi.position import AnimalShogi, perft_divide
from othellolab.core.animal_shogi.rules import (
    COLOR_NAMES,
    DRAW_PLIES,
    GOTE,
    MAX_LEGAL_ACTIONS,
    N_ACTIONS,
    ONGOING,
    PIECE_NAMES,
    SENTE,
    legal_actions,
    legal_mask_batch,
    perft,
    result,
    result_batch,
    rotate_state,
    start_state,
    step,
    step_batch,
)

__all__ = [
    "COLOR_NAMES",
    "DRAW_PLIES",
    "GOTE",
    "MAX_LEGAL_ACTIONS",
    "MIRROR_ACTIONS",
    "N_ACTIONS",
    "ONGOING",
    "PIECE_NAMES",
    "PLANES",
    "PLANE_NAMES",
    "SENTE",
    "START_SFEN",
    "SYMMETRIES",
    "AnimalShogi",
    "encode_batch",
    "legal_actions",
    "legal_mask_batch",
    "mirror_action",
    "mirror_policy",
    "mirror_state",
    "parse_square",
    "perft",
    "perft_divide",
    "result",
    "result_batch",
    "rotate_state",
    "square_name",
    "start_state",
    "step",
    "step_batch",
    "transform_policies",
    "transform_states",
]
