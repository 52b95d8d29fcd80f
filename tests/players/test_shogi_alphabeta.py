"""The ``shogi-alphabeta`` player and its search (the generic ``players.search.negamax`` on
animal shogi's material): tactics on hand-made positions, strength against random, limits,
options, and the search's values against a plain minimax over ``AnimalShogi`` positions written
here."""

from __future__ import annotations

import math
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

from othellolab.arena.match import play_match
from othellolab.core import Board, ConfigError, Limit, Stop
from othellolab.core.animal_shogi import AnimalShogi
from othellolab.core.animal_shogi.heuristic import MATERIAL
from othellolab.players import RandomPlayer, make_player
from othellolab.players.search.negamax import WIN, search
from othellolab.players.shogi_alphabeta import ShogiAlphaBetaPlayer

# The giraffe on c1 can take the lion on b1; the elephant on b2 can take a giraffe on a1.
LION_CAPTURE = "glG/1E1/3/1L1 b - 1"
# The lion on b3 (attacked by the chick on b2) can take that chick, but the giraffe and the lion
# behind it guard b2; a2 is next to the lion on a1.
POISONED_CHICK = "lg1/1c1/1L1/3 b - 1"
# Dropping the giraffe on a2 (or b1), guarded by the lion on b3 (or the elephant on c2), leaves
# the lion on a1 no escape: sente takes it on the third ply. Depth 1 takes the giraffe on c4.
MATE_IN_3 = "l2/2E/1L1/2g b G 1"

_LETTER_VALUE = {"C": MATERIAL["chick"], "E": MATERIAL["elephant"], "G": MATERIAL["giraffe"],
                 "H": MATERIAL["hen"], "L": 0}  # fmt: skip


def material(pos: AnimalShogi) -> int:
    """The material balance for the side to move, from the position's public API."""
    total = 0
    for sq in range(12):
        letter = pos.piece_at(sq)
        if letter is not None:
            own = letter.isupper() == (pos.turn == 0)
            total += _LETTER_VALUE[letter.upper()] * (1 if own else -1)
    for color in (0, 1):
        sign = 1 if color == pos.turn else -1
        total += sign * sum(MATERIAL[name] * n for name, n in pos.hand(color).items())
    return total


def minimax(pos: AnimalShogi, depth: int, ply: int = 0) -> int:
    """Plain negamax without pruning: the search's scores, by definition."""
    r = pos.result()
    if r is not None:
        return {1: WIN - ply, -1: ply - WIN, 0: 0}[r]
    if depth == 0:
        return material(pos)
    return max(-minimax(pos.play(a), depth - 1, ply + 1) for a in pos.legal_actions())


def root_values(pos: AnimalShogi, depth: int) -> dict[int, int]:
    return {a: -minimax(pos.play(a), depth - 1, 1) for a in pos.legal_actions()}


def random_positions(n: int, seed: int) -> list[AnimalShogi]:
    rng = np.random.default_rng(seed)
    out: list[AnimalShogi] = []
    while len(out) < n:
        pos = AnimalShogi()
        for _ in range(int(rng.integers(0, 40))):
            if pos.is_game_over():
                break
            legal = pos.legal_actions()
            pos = pos.play(legal[int(rng.integers(len(legal)))])
        if not pos.is_game_over():
            out.append(pos)
    return out


def test_takes_the_lion_when_it_can() -> None:
    pos = AnimalShogi.from_sfen(LION_CAPTURE)
    assert pos.is_legal("b2a1")  # a giraffe to take instead
    result = ShogiAlphaBetaPlayer(depth=1).choose(pos)
    assert pos.move_name(result.move) == "c1b1"
    assert pos.play(result.move).termination() == "lion captured"
    assert result.info["score"] == WIN - 1 and result.info["mate_in"] == 1
    assert result.score is not None and result.score.value == 1.0 and result.score.exact


def test_avoids_a_move_that_lets_its_lion_be_taken() -> None:
    pos = AnimalShogi.from_sfen(POISONED_CHICK)
    losing = {"b3b2", "b3a2"}
    for name in losing:  # the rules agree: a reply takes the lion
        after = pos.play(name)
        assert any(after.play(a).termination() == "lion captured" for a in after.legal_actions())
    assert pos.move_name(ShogiAlphaBetaPlayer(depth=1).choose(pos).move) == "b3b2"  # greedy
    result = ShogiAlphaBetaPlayer(depth=2).choose(pos)
    assert pos.move_name(result.move) not in losing
    assert not result.info["mate_in"]
    assert set(result.info["best_moves"]) & losing == set()


def test_finds_a_forced_win_in_three_plies_that_depth_one_misses() -> None:
    pos = AnimalShogi.from_sfen(MATE_IN_3)
    values = root_values(pos, 3)
    winning = {pos.move_name(a) for a, v in values.items() if v == WIN - 3}
    assert winning == {"G*a2", "G*b1"} and max(values.values()) == WIN - 3
    shallow = ShogiAlphaBetaPlayer(depth=1).choose(pos)
    assert pos.move_name(shallow.move) == "b3c4" and shallow.info["mate_in"] is None
    deep = ShogiAlphaBetaPlayer(depth=3, seed=0).choose(pos)
    assert pos.move_name(deep.move) in winning
    assert deep.info["mate_in"] == 3 and deep.info["score"] == WIN - 3
    assert set(deep.info["best_moves"]) == winning
    policy = deep.policy
    assert policy is not None and policy.shape == (pos.n_actions,)
    assert sorted(np.flatnonzero(policy).tolist()) == sorted(pos.parse_move(m) for m in winning)
    assert math.isclose(float(policy.sum()), 1.0)
    # Play it out: whatever gote answers, sente takes the lion next.
    after = pos.play(deep.move)
    for reply in after.legal_actions():
        finish = ShogiAlphaBetaPlayer(depth=1).choose(after.play(reply))
        assert after.play(reply).play(finish.move).termination() == "lion captured"


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_search_values_equal_a_plain_minimax(depth: int) -> None:
    for pos in random_positions(12 if depth < 3 else 4, seed=depth):
        values = root_values(pos, depth)
        best = max(values.values())
        result = ShogiAlphaBetaPlayer(depth=depth).choose(pos)
        assert result.info["score"] == best, pos.sfen()
        assert result.info["depth"] == depth or abs(best) > WIN - 1000
        assert set(result.info["best_moves"]) == {
            pos.move_name(a) for a, v in values.items() if v == best
        }, pos.sfen()


def test_depth_4_beats_random() -> None:
    result = play_match(
        ShogiAlphaBetaPlayer(depth=4, seed=1), RandomPlayer(seed=2), games=20, game="animal-shogi"
    )
    assert result.wins >= 18, str(result)


def test_seed_breaks_ties_reproducibly() -> None:
    pos = AnimalShogi()  # depth 3: all four first moves score the same

    def moves(seed: int) -> list[int]:
        player = ShogiAlphaBetaPlayer(depth=3, seed=seed)
        return [player.choose(pos).move for _ in range(12)]

    assert moves(7) == moves(7)
    assert len(set(moves(7))) > 1


HARD = "gle/3/2G/EL1 b Cc 5"
"""A position whose depth-12 search takes seconds (pieces in hand: many drops)."""


@pytest.mark.parametrize(
    ("player", "limit"),
    [
        (ShogiAlphaBetaPlayer(depth=12), Limit(time=0.2)),
        (ShogiAlphaBetaPlayer(depth=12, time=0.2), None),
        (ShogiAlphaBetaPlayer(depth=12), Limit(max_time=0.2)),
        (ShogiAlphaBetaPlayer(depth=12), Limit(max_nodes=20_000)),
    ],
    ids=["limit-time", "own-time", "max-time", "max-nodes"],
)
def test_a_deadline_or_node_cap_is_honoured(
    player: ShogiAlphaBetaPlayer, limit: Limit | None
) -> None:
    pos = AnimalShogi.from_sfen(HARD)
    player.choose(pos, Limit(depth=1))  # load the compiled search outside the timing
    t0 = time.perf_counter()
    result = player.choose(pos, limit)
    elapsed = time.perf_counter() - t0
    assert pos.is_legal(result.move)
    assert elapsed < 1.0, f"{elapsed:.2f} s"
    assert 1 <= result.info["depth"] < 12
    if limit is not None and limit.max_nodes:
        assert result.info["nodes"] <= 20_001


def test_a_stop_signal_ends_the_search() -> None:
    pos = AnimalShogi.from_sfen(HARD)
    player = ShogiAlphaBetaPlayer(depth=12)
    player.choose(pos, Limit(depth=1))
    stop = Stop()
    threading.Timer(0.2, stop.set).start()
    t0 = time.perf_counter()
    result = player.choose(pos, Limit(time=60, stop=stop))
    elapsed = time.perf_counter() - t0
    assert pos.is_legal(result.move) and 1 <= result.info["depth"] < 12
    assert 0.15 < elapsed < 1.2, f"{elapsed:.2f} s"
    # Already set: the first iteration still answers.
    result = player.choose(pos, Limit(time=60, stop=stop))
    assert result.info["depth"] == 1 and pos.is_legal(result.move)


@pytest.mark.parametrize(
    ("spec", "option"),
    [
        ("shogi-alphabeta:depth=0", "depth"),
        ("shogi-alphabeta:depth=13", "depth"),
        ("shogi-alphabeta:depth=2.5", "depth"),
        ("shogi-alphabeta:depth=true", "depth"),
        ("shogi-alphabeta:depth=none", "depth"),
        ("shogi-alphabeta:time=nan", "time"),
        ("shogi-alphabeta:time=0", "time"),
        ("shogi-alphabeta:time=inf", "time"),
        ("shogi-alphabeta:time=fast", "time"),
        ("shogi-alphabeta:seed=-1", "seed"),
        ("shogi-alphabeta:seed=1.5", "seed"),
    ],
)
def test_options_are_checked(spec: str, option: str) -> None:
    with pytest.raises(ConfigError, match=f"player 'shogi-alphabeta': option {option}:") as info:
        make_player(spec)
    assert info.value.option == option


def test_spec_defaults_and_unknown_options() -> None:
    player = make_player("shogi-alphabeta")
    assert isinstance(player, ShogiAlphaBetaPlayer)
    assert (player.depth, player.time, player.seed) == (4, None, None)
    assert player.games == ("animal-shogi",)
    player = make_player("shogi-alphabeta:depth=6,time=0.5,seed=3")
    assert (player.depth, player.time, player.seed) == (6, 0.5, 3)
    with pytest.raises(ConfigError, match="has no option nodes"):
        make_player("shogi-alphabeta:nodes=5")


def test_an_othello_board_is_refused_and_a_finished_game_too() -> None:
    player = ShogiAlphaBetaPlayer()
    with pytest.raises(ConfigError, match="plays animal-shogi only, not othello positions"):
        player.choose(Board())
    over = AnimalShogi.from_sfen(LION_CAPTURE).play("c1b1")
    with pytest.raises(ValueError, match="the game is over"):
        player.choose(over)
    with pytest.raises(ValueError, match="the game is over"):
        search(over)


def test_the_compiled_search_loads_from_numba_s_cache() -> None:
    """Numba's cache once crashed (a segfault) loading a version of this search that called
    itself from two places: run it in fresh processes, the second one loading from the cache
    whatever the first had to compile."""
    code = (
        "from othellolab.core.animal_shogi import AnimalShogi\n"
        "from othellolab.players.search.negamax import search\n"
        f"print(search(AnimalShogi.from_sfen({MATE_IN_3!r}), depth=3).score)\n"
    )
    for _ in range(2):
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == str(WIN - 3)
