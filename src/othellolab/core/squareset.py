"""``SquareSet``: an immutable set of squares backed by a bitboard, with set protocol and a grid view."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from othellolab.core.squares import (
    Bitboard,
    Square,
    check_size,
    parse_square,
    square_name,
)

# _BYTE_SQUARES[k][b]: the squares of the set bits of byte value ``b`` at byte position ``k``.
_BYTE_SQUARES: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(tuple(8 * k + i for i in range(8) if b >> i & 1) for b in range(256)) for k in range(8)
)


_T0, _T1, _T2, _T3, _T4, _T5, _T6, _T7 = _BYTE_SQUARES


def mask_squares(mask: Bitboard) -> list[Square]:
    """The set squares of a bitboard, in increasing order: eight table lookups, one per byte
    (``to_bytes`` splits the bitboard in one call, a third faster than eight shifts and masks)."""
    b0, b1, b2, b3, b4, b5, b6, b7 = mask.to_bytes(8, "little")
    return [*_T0[b0], *_T1[b1], *_T2[b2], *_T3[b3], *_T4[b4], *_T5[b5], *_T6[b6], *_T7[b7]]


class SquareSet:
    """A set of squares of one board size; iterates in increasing square order.

    >>> SquareSet(["d3", "c4"])
    SquareSet(['d3', 'c4'])
    >>> "c4" in SquareSet(["d3", "c4"]), 26 in SquareSet(["d3", "c4"])
    (True, True)
    """

    __slots__ = ("mask", "size")

    mask: Bitboard
    size: int

    def __init__(self, squares: Bitboard | Iterable[Square | str] = 0, *, size: int = 8) -> None:
        check_size(size)
        if isinstance(squares, int):
            mask = squares
            if mask < 0 or mask >> (size * size):
                raise ValueError(f"mask {mask:#x} has bits off a {size}x{size} board")
        else:
            mask = 0
            for s in squares:
                sq = parse_square(s, size) if isinstance(s, str) else int(s)
                if not 0 <= sq < size * size:
                    raise ValueError(f"square {sq} is off a {size}x{size} board")
                mask |= 1 << sq
        object.__setattr__(self, "mask", int(mask))
        object.__setattr__(self, "size", size)

    @classmethod
    def _from_mask(cls, mask: Bitboard, size: int) -> SquareSet:
        obj = object.__new__(cls)
        object.__setattr__(obj, "mask", mask)
        object.__setattr__(obj, "size", size)
        return obj

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("SquareSet is immutable")

    def __contains__(self, square: object) -> bool:
        if isinstance(square, str):
            try:
                square = parse_square(square, self.size)
            except ValueError:
                return False
        if isinstance(square, int) and 0 <= square < self.size * self.size:
            return bool(self.mask >> square & 1)
        return False

    def __iter__(self) -> Iterator[Square]:
        return iter(mask_squares(self.mask))

    def __reversed__(self) -> Iterator[Square]:
        return reversed(mask_squares(self.mask))

    def __len__(self) -> int:
        return self.mask.bit_count()

    def __bool__(self) -> bool:
        return bool(self.mask)

    def __int__(self) -> int:
        return self.mask

    def __index__(self) -> int:
        return self.mask

    def __eq__(self, other: object) -> bool:
        if isinstance(other, SquareSet):
            return self.mask == other.mask and self.size == other.size
        if isinstance(other, int):
            return self.mask == other
        try:
            return self.mask == SquareSet(other, size=self.size).mask  # type: ignore[arg-type]
        except (TypeError, ValueError):
            return NotImplemented

    def __hash__(self) -> int:
        return hash((self.mask, self.size))

    def _other_mask(self, other: object) -> int:
        if isinstance(other, SquareSet):
            if other.size != self.size:
                raise ValueError(
                    f"cannot combine {self.size}x{self.size} and {other.size}x{other.size} square sets"
                )
            return other.mask
        if isinstance(other, int):
            return other
        return SquareSet(other, size=self.size).mask  # type: ignore[arg-type]

    def __and__(self, other: object) -> SquareSet:
        return SquareSet._from_mask(self.mask & self._other_mask(other), self.size)

    def __or__(self, other: object) -> SquareSet:
        return SquareSet._from_mask(self.mask | self._other_mask(other), self.size)

    def __xor__(self, other: object) -> SquareSet:
        return SquareSet._from_mask(self.mask ^ self._other_mask(other), self.size)

    def __sub__(self, other: object) -> SquareSet:
        return SquareSet._from_mask(self.mask & ~self._other_mask(other), self.size)

    __rand__ = __and__
    __ror__ = __or__
    __rxor__ = __xor__

    def __invert__(self) -> SquareSet:
        return SquareSet._from_mask(~self.mask & ((1 << self.size * self.size) - 1), self.size)

    def isdisjoint(self, other: object) -> bool:
        """Whether no square is in both sets."""
        return not self.mask & self._other_mask(other)

    def issubset(self, other: object) -> bool:
        """Whether every square of this set is in ``other``."""
        return not self.mask & ~self._other_mask(other)

    def names(self) -> list[str]:
        """Square names in increasing square order."""
        return [square_name(sq, self.size) for sq in self]

    def __repr__(self) -> str:
        size = "" if self.size == 8 else f", size={self.size}"
        return f"SquareSet({self.names()!r}{size})"

    def __str__(self) -> str:
        rows = []
        for r in range(self.size):
            rows.append(
                " ".join(
                    "1" if self.mask >> (r * self.size + c) & 1 else "." for c in range(self.size)
                )
            )
        return "\n".join(rows)
