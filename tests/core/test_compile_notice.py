"""The first Numba compile of a process is announced on a terminal (one line), so that a first
command does not stall seconds in silence; a cache load and a non-terminal say nothing."""

from __future__ import annotations

import io

import numba
import pytest

from othellolab.core import numba_kernel


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture
def fresh(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(numba_kernel, "_ANNOUNCER", None)
    yield
    if numba_kernel._ANNOUNCER is not None:
        numba.core.event.unregister("numba:compile", numba_kernel._ANNOUNCER)


def test_one_line_at_the_first_compile_on_a_terminal(fresh: None) -> None:
    out = Tty()
    assert numba_kernel.announce_compiles(out)
    assert not numba_kernel.announce_compiles(out)  # once a process

    @numba.njit  # no cache: this compiles
    def add(x):
        return x + 1

    assert out.getvalue() == ""
    add(1)
    add(1.5)  # a second compile: no second line
    assert out.getvalue() == (
        "othellolab: compiling kernels for this machine (once: cached for later runs)...\n"
    )


def test_off_a_terminal_it_does_not_listen(fresh: None) -> None:
    assert not numba_kernel.announce_compiles(io.StringIO())
    assert numba_kernel._ANNOUNCER is None
