"""Compilation helpers for the search kernels of the layers above ``core``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import numba

F = TypeVar("F", bound=Callable[..., Any])


def hot_kernel(**options: Any) -> Callable[[F], F]:
    """``numba.njit(cache=True)`` without reference counting, for search kernels that take
    arrays but never allocate one: Numba otherwise may increment and decrement (atomically) the
    count of every array argument on entry to and exit from a recursive kernel, about a tenth
    of the exact solver's time. Numba refuses to compile an allocation in such a kernel."""

    def wrap(fn: F) -> F:
        return numba.njit(cache=True, _nrt=False, **options)(fn)  # type: ignore[no-any-return]

    return wrap
