"""Animal shogi's evaluation for the alpha-beta search (``players.search.negamax``): material
in chicks (``MATERIAL``) and captures-first move ordering, as the game's ``heuristic`` and
``order`` kernels (``core.games.HEURISTIC_SIGNATURE`` and ``ORDER_SIGNATURE``).

>>> from othellolab.core.animal_shogi import AnimalShogi
>>> material(AnimalShogi.from_sfen("1l1/1G1/3/1L1 b - 1"))  # a giraffe up
4
"""

from __future__ import annotations

import numpy as np

from othellolab.core.animal_shogi.position import AnimalShogi
from othellolab.core.games import HEURISTIC_SIGNATURE, ORDER_SIGNATURE, rules_kernel

__all__ = ["MATERIAL", "material", "shogi_heuristic", "shogi_order"]

MATERIAL = {"chick": 1, "elephant": 3, "giraffe": 4, "hen": 5}
"""Piece values in chicks, on the board or in hand alike (the lion is priceless: its capture
ends the game). The elephant and the giraffe both step one square in four directions, but the
giraffe's orthogonal steps reach more squares of the 3 x 4 board (2.8 on average, against the
elephant's 2.0) and are not bound to one colour of squares; the hen steps in six directions,
and when captured it goes to hand as a mere chick, so taking one swings 5 + 1, less than a
giraffe's 4 + 4."""

_U64 = np.uint64
_NIBBLE = _U64(15)

# _VALUE[code]: a piece code's material from the side to move (codes 1..5 own, 9..13 the
# opponent's: chick, elephant, giraffe, lion, hen); the lion counts 0.
_VALUE = np.zeros(16, dtype=np.int64)
for _code, _name in ((1, "chick"), (2, "elephant"), (3, "giraffe"), (5, "hen")):
    _VALUE[_code] = MATERIAL[_name]
    _VALUE[_code + 8] = -MATERIAL[_name]
# _HAND[i]: value of one piece of the i-th 2-bit hand counter (own chick, elephant, giraffe,
# then the opponent's).
_HAND = np.array(
    [MATERIAL[n] for n in ("chick", "elephant", "giraffe")]
    + [-MATERIAL[n] for n in ("chick", "elephant", "giraffe")],
    dtype=np.int64,
)
# Move-ordering key of a capture of each opponent piece code: the lion first, then by value.
_VICTIM = np.zeros(16, dtype=np.int64)
for _code, _key in ((9, 10), (10, 30), (11, 40), (12, 1000), (13, 50)):
    _VICTIM[_code] = _key


@rules_kernel(HEURISTIC_SIGNATURE)
def shogi_heuristic(param, p, o):  # type: ignore[no-untyped-def]
    """Material from the side to move: its pieces on the board and in hand, less the
    opponent's (``param`` and ``o``, the ply counter, unused)."""
    total = 0
    for sq in range(12):
        total += _VALUE[(p >> _U64(4 * sq)) & _NIBBLE]
    for h in range(6):
        total += _HAND[h] * np.int64((p >> _U64(48 + 2 * h)) & _U64(3))
    return total


@rules_kernel(ORDER_SIGNATURE)
def shogi_order(param, p, o, action):  # type: ignore[no-untyped-def]
    """Captures first (the lion's, then by the victim's value), promotions next, then the rest
    (key 0) in the rules' order."""
    dest = action // 11
    k = action % 11
    key = 0
    if k < 8:
        key = _VICTIM[(p >> _U64(4 * dest)) & _NIBBLE] * 4
        if k == 0 and dest < 3 and (p >> _U64(4 * dest + 12)) & _NIBBLE == _U64(1):
            key += 20  # a chick moving up onto the farthest row promotes
    return key


def material(position: AnimalShogi) -> int:
    """The material balance of ``position`` for its side to move (``MATERIAL``)."""
    return int(shogi_heuristic(0, _U64(position.state[0]), _U64(position.state[1])))
