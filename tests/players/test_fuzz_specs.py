"""Player specs from a hostile or careless user: any spec string gives a player or a
``ConfigError`` naming what is wrong, never another exception; and every player it gives
answers a legal move within a hard time cap, however slow its own settings."""

from __future__ import annotations

import math
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from othellolab import Board
from othellolab.core import ConfigError, Limit, OthelloError, Stop
from othellolab.players import Player, available_players, make_player
from othellolab.players.registry import get_entry

from helpers import fuzz_examples

SEARCH_PLAYERS = ["random", "greedy", "montecarlo", "mcts", "alphabeta", "endgame"]
"""Players without a network (those load torch models; test_network covers them)."""

REPRODUCERS = [
    # (spec, what the error must name) from the hardening issue and the fuzz runs
    ("alphabeta:time=nan", "option time"),
    ("alphabeta:time=inf", "option time"),
    ("mcts:c=nan", "option c"),
    ("mcts:temperature=nan", "option temperature"),
    ("mcts:sims=1e400", "option sims"),
    ("mcts:sims=0", "option sims"),
    ("montecarlo:playouts=1e7", "option playouts"),
    ("alphabeta:depth=2.5", "option depth"),
    ("alphabeta:depth=１２", "option depth"),  # full-width digits are text, not 12
    ("alphabeta:table_bits=30", "option table_bits"),
    ("greedy:seed=-1", "option seed"),
    ("greedy:seed=99999999999999999999999", "option seed"),
    ("policy:device=cuda:99", "option device"),
    ("policy:model=/etc", "option model"),
    ("alphabeta:evaluation=network", "option evaluation"),
    ("greedy:seed=1,seed=2", "option seed: given twice"),
    ("greedy:depth=3", "has no option depth"),
    ("nope", "unknown player"),
    ("mcts:evaluator=x", "has no option evaluator"),
    ("greedy:seed", "is not KEY=VALUE"),
    ("x" * 5000, "too long"),
    ("nboard:config=", "option config"),  # found by the fuzz run: '' is the current folder
    ("nboard:cmd=\x00", "option cmd: contains a NUL"),  # found by the fuzz run
    ("policy:model=a\x00b", "option model"),
    ("alphabeta:depth=true", "option depth"),  # a boolean is not the number 1
    ("mcts:sims=false", "option sims"),
]


@pytest.mark.parametrize(("spec", "named"), REPRODUCERS)
def test_reproducers_are_config_errors_that_name_the_option(spec: str, named: str) -> None:
    with pytest.raises(ConfigError, match=named):
        make_player(spec)


def _values() -> st.SearchStrategy[str]:
    numbers = st.one_of(
        st.integers(-(10**30), 10**30),
        st.floats(allow_nan=True, allow_infinity=True),
        st.sampled_from([0, 1, 2, 3, 4, 16, 60, 61, 64, 1000]),
    ).map(lambda x: repr(x) if isinstance(x, float) else str(x))
    words = st.sampled_from(
        ["nan", "inf", "-inf", "1e400", "true", "false", "none", "cpu", "cuda", "auto", "patterns",
         "heuristic", "discs", "１２", "٣", "0x10", "1_000", "", " ", "=", "b4c32-wthor"]
    )  # fmt: skip
    return st.one_of(numbers, words, st.text(max_size=12))


@st.composite
def specs(draw: st.DrawFn) -> str:
    name = draw(st.sampled_from([e.name for e in available_players()] + ["zzz"]))
    keys = list(get_entry(name).options()) if name != "zzz" else []
    keys += ["bogus", "time", "seed"]
    items = draw(st.lists(st.tuples(st.sampled_from(keys), _values()), max_size=4))
    text = ",".join(f"{k}={v}" for k, v in items)
    return f"{name}:{text}" if text else name


@settings(
    max_examples=fuzz_examples(150),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(specs())
def test_any_spec_is_a_player_or_a_config_error(spec: str) -> None:
    try:
        player = make_player(spec)
    except OthelloError:
        return
    assert isinstance(player, Player)
    player.close()


@settings(max_examples=fuzz_examples(25), deadline=None)
@given(
    name=st.sampled_from(SEARCH_PLAYERS),
    slow=st.booleans(),
    size=st.sampled_from([8, 6, 4]),
    plies=st.integers(0, 20),
    seed=st.integers(0, 2**32),
)
def test_a_capped_search_answers_a_legal_move_by_the_deadline(
    name: str, slow: bool, size: int, plies: int, seed: int
) -> None:
    import numpy as np

    rng = np.random.default_rng(seed)
    board = Board(size=size)
    for _ in range(plies):
        if board.is_game_over():
            break
        moves = board.legal_actions()
        board = board.play(moves[int(rng.integers(len(moves)))])
    if board.is_game_over():
        return
    heavy = {
        "montecarlo": "montecarlo:playouts=1000000",
        "mcts": "mcts:sims=10000000",
        "alphabeta": "alphabeta:depth=60,endgame=60",
        "endgame": "endgame:max_empties=60",
    }
    spec = heavy.get(name, name) if slow else name
    cap = 0.2
    player = make_player(spec)
    player.choose(board, Limit(max_time=cap))  # load compiled kernels outside the timing
    t0 = time.perf_counter()
    result = player.choose(board, Limit(max_time=cap, max_nodes=10**9))
    elapsed = time.perf_counter() - t0
    assert board.is_legal(result.move)
    assert elapsed < cap + 1.0, f"{spec} took {elapsed:.2f} s under a {cap} s cap"


def test_a_stop_signal_ends_a_search_from_another_thread() -> None:
    import threading

    board = Board()
    for spec in ("alphabeta:depth=60,endgame=0", "endgame:max_empties=60", "mcts:sims=10000000"):
        player = make_player(spec)
        player.choose(board, Limit(max_time=0.05))
        stop = Stop()
        threading.Timer(0.3, stop.set).start()
        t0 = time.perf_counter()
        result = player.choose(board, Limit(max_time=30, stop=stop))
        elapsed = time.perf_counter() - t0
        assert board.is_legal(result.move)
        assert 0.25 < elapsed < 1.5, f"{spec}: {elapsed:.2f} s"


def test_option_ranges_are_declared_for_every_spec_option() -> None:
    for entry in available_players():
        if not entry.factory.__module__.startswith("othellolab."):
            continue  # a test's own player
        declared = entry.declared()
        for key in entry.options():
            assert key in declared, f"{entry.name}: option {key} has no declared range"
            text = declared[key].describe()
            assert text and "nan" not in text
        assert all(math.isfinite(float(o.low)) for o in declared.values() if o.low is not None)
