"""The ``kernel`` decorator: Numba's ``njit`` for kernels that Python calls with int bitboards.

Kernels compile lazily on first use and are cached on disk (``cache=True``), so applying the
decorator compiles nothing and a second process does not pay the JIT again.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from typing import IO, Any, TypeVar, cast

import numba
import numpy as np
from numba.core.dispatcher import OmittedArg

__all__ = ["BITBOARD_PARAMS", "announce_compiles", "kernel"]

F = TypeVar("F", bound=Callable[..., Any])

BITBOARD_PARAMS = frozenset({"p", "o", "x", "mask"})
"""Parameters with these names are bitboards: their Python-int arguments compile as uint64."""

_COMPILE_LOCK = threading.RLock()


def kernel(fn: F) -> F:
    """Compile ``fn`` with Numba in nopython mode, lazily, with an on-disk cache; keeps its type.

    Numba types every Python int as int64, so a bitboard with h8 (bit 63) set would overflow,
    and an int64 bitboard shifts arithmetically. So the first call from Python with int
    bitboards (parameters named in ``BITBOARD_PARAMS``) compiles a uint64 signature for them,
    with and without each defaulted argument, and then freezes the kernel's signatures: Numba
    then converts any non-negative int below 2**64 to uint64 on every call. The first calls
    may come from several threads at once (a web server): one compiles, the others wait for it.
    """
    dispatcher = numba.njit(cache=True, nogil=True)(fn)
    code = fn.__code__
    names = code.co_varnames[: code.co_argcount]
    defaults = fn.__defaults__ or ()
    n_required = len(names) - len(defaults)
    positions = [i for i, name in enumerate(names) if name in BITBOARD_PARAMS]
    if positions:
        compile_for_args = dispatcher._compile_for_args

        def _compile_for_args(*args: Any, **kws: Any) -> Any:
            # Numba passes an argument left to its default as an ``OmittedArg`` placeholder:
            # drop those, or a first call without ``size`` would compile only that signature.
            args = tuple(a for a in args if not isinstance(a, OmittedArg))
            if kws or not any(
                i < len(args) and isinstance(args[i], int | np.integer) for i in positions
            ):
                with _COMPILE_LOCK:
                    frozen = not dispatcher._can_compile
                    dispatcher._can_compile = True
                    try:
                        return compile_for_args(*args, **kws)
                    finally:
                        dispatcher._can_compile = not frozen
            full = [
                dispatcher.typeof_pyval(args[i] if i < len(args) else defaults[i - n_required])
                for i in range(len(names))
            ]
            for i in positions:
                if isinstance(full[i], numba.types.Integer):
                    full[i] = numba.uint64
            with _COMPILE_LOCK:
                for n_given in range(n_required, len(names) + 1):
                    sig = full[:n_given] + [
                        numba.types.Omitted(defaults[i - n_required])
                        for i in range(n_given, len(names))
                    ]
                    _compile_once(tuple(sig))
                dispatcher.disable_compile()
            return dispatcher.overloads[
                tuple(full[: len(args)])
                + tuple(
                    numba.types.Omitted(defaults[i - n_required])
                    for i in range(len(args), len(names))
                )
            ].entry_point

        def _compile_once(sig: tuple[Any, ...]) -> None:
            """Compile ``sig`` even while the signatures are frozen (new callers need it)."""
            if sig in dispatcher.overloads:
                return
            frozen = not dispatcher._can_compile
            dispatcher._can_compile = True
            try:
                dispatcher.compile(sig)
            finally:
                dispatcher._can_compile = not frozen

        get_call_template = dispatcher.get_call_template

        def _get_call_template(args: Any, kws: Any) -> Any:
            # A compiled caller (another kernel) may need a signature that Python never used.
            if not dispatcher._can_compile:
                _, folded = dispatcher._compiler.fold_argument_types(args, kws)
                with _COMPILE_LOCK:
                    _compile_once(tuple(folded))
            return get_call_template(args, kws)

        dispatcher.get_call_template = _get_call_template
        dispatcher._compile_for_args = _compile_for_args
    return cast(F, dispatcher)


class _FirstCompile(numba.core.event.Listener):
    """Says, once, that a kernel compiles: Numba fires ``numba:compile`` only when no cached
    machine code fits (a new install, a new CPU, a changed kernel), never on a cache load."""

    def __init__(self, stream: IO[str]) -> None:
        self.stream = stream
        self.said = False

    def on_start(self, event: Any) -> None:
        if self.said:
            return
        self.said = True
        dispatcher = (event.data or {}).get("dispatcher")
        module = getattr(getattr(dispatcher, "py_func", None), "__module__", "") or ""
        what = module.removeprefix("othellolab.").split(".")[0] if module else ""
        what = f"the {what} kernels" if what and module.startswith("othellolab.") else "kernels"
        print(
            f"othellolab: compiling {what} for this machine (once: cached for later runs)...",
            file=self.stream,
            flush=True,
        )

    def on_end(self, event: Any) -> None:
        pass


_ANNOUNCER: _FirstCompile | None = None


def announce_compiles(stream: IO[str] | None = None) -> bool:
    """Print one line on ``stream`` (standard error) when a Numba kernel first compiles in this
    process, so that an interactive command's first run does not stall seconds in silence;
    returns whether it listens (only where ``stream`` is a terminal, and only once)."""
    global _ANNOUNCER
    out = stream if stream is not None else sys.stderr
    is_tty = getattr(out, "isatty", None)
    if _ANNOUNCER is not None or not (is_tty is not None and is_tty()):
        return False
    _ANNOUNCER = _FirstCompile(out)
    numba.core.event.register("numba:compile", _ANNOUNCER)
    return True
