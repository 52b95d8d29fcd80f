"""The rules kernels' protocol: the signatures a game's Numba kernels have, the decorator that
compiles them for it, and the kernels through which the compiled search calls any game's rules
(``rules_children``, ``rules_result``, ``rules_value``, ``rules_child``, ``rules_playout``).

The search receives a game's kernels as the addresses of their compiled C wrappers (plain
int64s, ``Game.rules``); an intrinsic turns an address back into a first-class function inside
the kernel. ``core.games`` re-exports every public name here.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numba
import numpy as np
from numba import types as nt
from numba.core import cgutils
from numba.experimental.function_type import _get_wrapper_address
from numba.extending import intrinsic

from othellolab.core import kernels as _k
from othellolab.core.errors import ConfigError

warnings.filterwarnings(
    "ignore", message="First-class function type feature is experimental", module="numba"
)

MAX_CHILDREN = 132
"""Room for the children of a position in the built-in games (a game may ask for more with its
``max_children``)."""

CHILDREN_SIGNATURE = nt.int64(
    nt.int64, nt.uint64, nt.uint64, nt.int64[::1], nt.uint64[::1], nt.uint64[::1]
)
"""``children(param, p, o, actions, cp, co) -> n``: the legal actions of a position, in
increasing order, and the positions they lead to (from the next side to move); 0 when the game
is over."""

RESULT_SIGNATURE = nt.float64(nt.int64, nt.uint64, nt.uint64)
"""``result(param, p, o) -> score``: the final score for the side to move, NaN while the game
goes on."""

PLAYOUT_SIGNATURE = nt.float64(nt.int64, nt.uint64, nt.uint64, nt.uint64[::1])
"""``playout(param, p, o, state) -> score``: a game's own random playout to the end (``state``
a ``core.kernels`` random stream), its final score for the side to move now. Optional: the
search's rollouts use ``rules_playout`` for a game without one."""


def rules_kernel(signature: Any) -> Callable[[Callable[..., Any]], Any]:
    """Compile a game's ``children`` or ``result`` function for the protocol: Numba, nopython,
    cached on disk, with exactly the one ``signature`` (so that the search can take it as a
    first-class function). Compiles on the first use of the game's ``rules``, not on import."""

    def wrap(fn: Callable[..., Any]) -> Any:
        dispatcher = numba.njit(cache=True, nogil=True)(fn)
        dispatcher._protocol_signature = signature
        return dispatcher

    return wrap


def _address(dispatcher: Any) -> int:
    """The address of a compiled rules kernel's C wrapper."""
    return int(_get_wrapper_address(dispatcher, dispatcher._protocol_signature))


def _compiled(dispatcher: Any) -> Any:
    """The dispatcher with its protocol signature compiled (the search calls that one, by
    address; others may exist, as when another kernel calls it)."""
    signature = getattr(dispatcher, "_protocol_signature", None)
    if signature is None:
        raise ConfigError(f"{dispatcher!r} is not a rules kernel: decorate it with rules_kernel")
    if tuple(signature.args) not in dispatcher.signatures:
        dispatcher.compile(signature.args)
    return dispatcher


def _function_at(signature: Any) -> Any:
    """A compiled intrinsic: the first-class function of ``signature`` whose C wrapper lies at
    an address (an int64). The search receives a game's kernels as addresses, plain numbers,
    so a call from Python costs what a call with integers costs; passing the functions
    themselves costs a Python lookup of each address on every call (about 120 us)."""
    fn_type = nt.FunctionType(signature)

    @intrinsic
    def at(typingctx: Any, addr: Any) -> Any:
        def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
            fn = cgutils.create_struct_proxy(fn_type)(context, builder)
            voidptr = context.get_value_type(nt.voidptr)
            fn.c_addr = builder.inttoptr(args[0], voidptr)
            fn.py_addr = cgutils.get_null_value(voidptr)
            fn.jit_addr = cgutils.get_null_value(voidptr)
            return fn._getvalue()

        return fn_type(nt.int64), codegen

    return at


_children_at = _function_at(CHILDREN_SIGNATURE)
_result_at = _function_at(RESULT_SIGNATURE)
playout_at = _function_at(PLAYOUT_SIGNATURE)
"""A game's own playout kernel (``Game.playout``) from its address."""

# The evaluation kernels of the generic alpha-beta (``players.search.negamax``; issue 37).

HEURISTIC_SIGNATURE = nt.int64(nt.int64, nt.uint64, nt.uint64)
"""``heuristic(param, p, o) -> estimate``: an integer estimate of a position that goes on, for
the side to move (animal shogi: its material lead in chicks), under ``HEURISTIC_BOUND`` in
size. Optional: a game without one is searched with 0 everywhere but at its ends."""

HEURISTIC_BOUND = 8_999
"""The largest estimate a heuristic may give: the alpha-beta search clamps to it, below the
scores it gives finished games."""

ORDER_SIGNATURE = nt.int64(nt.int64, nt.uint64, nt.uint64, nt.int64)
"""``order(param, p, o, action) -> key``: the alpha-beta search tries a position's actions by
decreasing key (ties in the rules' order; animal shogi: captures of the most valuable piece
first). Optional: without one the rules' order is kept."""

heuristic_at = _function_at(HEURISTIC_SIGNATURE)
"""A game's heuristic kernel (``Game.search_kernels``) from its address."""
order_at = _function_at(ORDER_SIGNATURE)
"""A game's move-ordering kernel (``Game.search_kernels``) from its address."""


# ----------------------------------------------------------------------------------------------
# The kernels the compiled search calls: each takes a game's ``rules`` (``Game.rules``).


@numba.njit(cache=True, nogil=True)
def rules_children(rules, p, o, actions, cp, co):  # type: ignore[no-untyped-def]
    """The game's ``children`` kernel (see ``CHILDREN_SIGNATURE``)."""
    return _children_at(rules[0])(rules[2], p, o, actions, cp, co)


@numba.njit(cache=True, nogil=True)
def rules_result(rules, p, o):  # type: ignore[no-untyped-def]
    """``(finished, score)``: whether the game is over at this position, and its final score
    for the side to move."""
    r = _result_at(rules[1])(rules[2], p, o)
    if np.isnan(r):
        return False, 0.0
    return True, r


@numba.njit(cache=True, nogil=True)
def rules_value(rules, score, score_weight):  # type: ignore[no-untyped-def]
    """A final score as a value in [-1, 1] for the side to move: its sign (win 1, draw 0, loss
    -1) mixed with the score over the game's ``score_scale`` in the share ``score_weight``."""
    sign = 1.0 if score > 0 else (-1.0 if score < 0 else 0.0)
    return (1.0 - score_weight) * sign + score_weight * score / rules[3]


@numba.njit(cache=True, nogil=True)
def rules_child(rules, p, o, action, actions, cp, co):  # type: ignore[no-untyped-def]
    """The position a legal ``action`` leads to (``actions``, ``cp``, ``co``: room for the
    children, ``rules[4]`` long); ``(o, p)`` if the action is not legal."""
    n = _children_at(rules[0])(rules[2], p, o, actions, cp, co)
    for i in range(n):
        if actions[i] == action:
            return cp[i], co[i]
    return o, p


@numba.njit(cache=True, nogil=True)
def rules_playout(rules, p, o, state):  # type: ignore[no-untyped-def]
    """A uniformly random playout to the end through the game's ``children`` (a random number
    drawn at every move, forced ones included); the final score for the side to move now."""
    n_max = rules[4]
    actions = np.empty(n_max, np.int64)
    cp = np.empty(n_max, np.uint64)
    co = np.empty(n_max, np.uint64)
    sign = 1.0
    while True:
        n = _children_at(rules[0])(rules[2], p, o, actions, cp, co)
        if n == 0:
            return sign * _result_at(rules[1])(rules[2], p, o)
        k = _k.rng_below(state, n)
        p = cp[k]
        o = co[k]
        sign = -sign
