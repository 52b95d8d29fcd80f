"""The pattern evaluation: fast indices against a slow reference, the generated kernel, symmetry,
files, the ``evaluate`` dispatch and the 8x8-only rule."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import numpy as np
import pytest

from othellolab import Board
from othellolab.core.jit import HAS_PEXT
from othellolab.core.kernels import U64, popcount
from othellolab.players import make_player
from othellolab.players.search import _pattern_kernel
from othellolab.players.search.evaluation import (
    EVAL_PATTERNS,
    Evaluation,
    evaluate,
    pattern_evaluation,
)
from othellolab.players.search.midgame import search
from othellolab.players.search.patterns import (
    CLASS_OFFSETS,
    CLASSES,
    INSTANCES,
    N_FEATURES,
    N_INSTANCES,
    available_pattern_sets,
    compact_to_full,
    full_to_compact,
    kernel_source,
    load_pattern_weights,
    pattern_indices,
    pattern_indices_batch,
    pattern_value,
    pattern_value_pext,
    phase_of,
    save_pattern_weights,
)
from othellolab.testing import random_game


def reference_indices(p: int, o: int) -> list[int]:
    """Square by square: digit 1 for the side to move, 2 for the opponent, times 3**position."""
    out = []
    for c, squares in INSTANCES:
        index = 0
        for j, s in enumerate(squares):
            digit = 1 if p >> s & 1 else 2 if o >> s & 1 else 0
            index += digit * 3**j
        out.append(int(CLASS_OFFSETS[c]) + index)
    return out


def random_positions(count: int, seed: int) -> list[tuple[int, int]]:
    """Positions from random games, plus random (not necessarily reachable) disc patterns."""
    rng = np.random.default_rng(seed)
    out = []
    for g in range(count // 2):
        boards = list(random_game(8, seed=seed + g))
        b = boards[rng.integers(len(boards))]
        out.append((b.player, b.opponent))
    for _ in range(count - len(out)):
        occ = int(rng.integers(0, 2**64, dtype=np.uint64))
        mine = int(rng.integers(0, 2**64, dtype=np.uint64))
        out.append((occ & mine, occ & ~mine))
    return out


def test_pattern_set() -> None:
    assert [c.name for c in CLASSES][:3] == ["edge_x", "corner_3x3", "corner_2x5"]
    assert N_INSTANCES == 4 + 4 + 8 + 3 * 4 + 2 + 4 * 4
    assert N_FEATURES == 2 * 3**10 + 3**9 + 4 * 3**8 + 3**7 + 3**6 + 3**5 + 3**4


def test_fast_indices_equal_the_reference() -> None:
    out = np.zeros(N_INSTANCES, dtype=np.int64)
    positions = random_positions(400, seed=1)
    for p, o in positions:
        pattern_indices(U64(p), U64(o), out)
        assert out.tolist() == reference_indices(p, o)
    ps = np.array([p for p, _ in positions], dtype=np.uint64)
    os_ = np.array([o for _, o in positions], dtype=np.uint64)
    batch = pattern_indices_batch(ps, os_)
    assert batch[7].tolist() == reference_indices(*positions[7])


def test_generated_kernel_is_up_to_date() -> None:
    on_disk = ast.parse(Path(_pattern_kernel.__file__).read_text())
    assert ast.dump(on_disk) == ast.dump(ast.parse(kernel_source()))


def test_value_is_the_sum_of_the_weights_at_the_indices() -> None:
    rng = np.random.default_rng(2)
    table = compact_to_full(rng.normal(0, 1, size=(12, full_to_compact()[1])))
    out = np.zeros(N_INSTANCES, dtype=np.int64)
    for p, o in random_positions(100, seed=3):
        pattern_indices(U64(p), U64(o), out)
        phase = phase_of(64 - popcount(U64(p | o)), table.shape[0])
        expected = float(np.clip(table[phase, out].sum(), -64, 64))
        assert pattern_value(U64(p), U64(o), table) == pytest.approx(expected, abs=1e-9)


@pytest.mark.skipif(not HAS_PEXT, reason="this CPU has no BMI2 pext")
def test_pext_value_equals_the_portable_value() -> None:
    rng = np.random.default_rng(4)
    random_table = compact_to_full(rng.normal(0, 1, size=(12, full_to_compact()[1])))
    for table in (random_table, pattern_evaluation().weights):
        for p, o in random_positions(300, seed=5):
            assert pattern_value_pext(U64(p), U64(o), table) == pattern_value(U64(p), U64(o), table)


def test_shipped_weights_are_symmetric() -> None:
    ev = pattern_evaluation()
    for p, o in random_positions(60, seed=4):
        board = Board.from_bitboards(p, o)
        values = [ev(board.transform(k)) for k in range(8)]
        assert max(values) - min(values) < 1e-9


def test_round_trip(tmp_path: Path) -> None:
    rng = np.random.default_rng(5)
    compact = rng.normal(0, 3, size=(3, full_to_compact()[1]))
    save_pattern_weights(tmp_path / "w", compact, {"note": "test"})
    loaded = load_pattern_weights(tmp_path / "w")
    assert loaded.config["note"] == "test"
    assert loaded.config["phases"] == 3
    step = loaded.config["scale"]
    assert np.abs(loaded.compact - compact).max() <= step / 2 + 1e-12
    assert loaded.table.shape == (3, N_FEATURES)
    assert loaded.table.dtype == np.float64


def test_load_rejects_wrong_shapes_and_missing_files(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="shape"):
        save_pattern_weights(tmp_path, np.zeros((2, 10)))
    with pytest.raises(FileNotFoundError, match="no pattern weights"):
        load_pattern_weights(tmp_path / "nothing")


def test_shipped_weights() -> None:
    assert "patterns-wthor" in available_pattern_sets()
    w = load_pattern_weights()
    directory = Path(_pattern_kernel.__file__).parent / "data" / "patterns-wthor"
    assert (directory / "weights.safetensors").stat().st_size < 3_200_000
    assert w.config["phases"] == w.compact.shape[0]
    assert "held_out" in w.config


def test_evaluate_dispatch_and_evaluation() -> None:
    ev = pattern_evaluation()
    assert ev.kind == EVAL_PATTERNS
    assert ev.weights.dtype == np.float64 and ev.weights.shape[1] == N_FEATURES
    board = Board().play("f5").play("d6")
    v = ev(board)
    assert v == evaluate(EVAL_PATTERNS, ev.weights, U64(board.player), U64(board.opponent), 8)
    assert v == pattern_value(U64(board.player), U64(board.opponent), ev.weights)
    assert -64 <= v <= 64


def test_patterns_are_8x8_only() -> None:
    ev = pattern_evaluation()
    with pytest.raises(ValueError, match="8x8"):
        ev(Board(size=6))
    with pytest.raises(ValueError, match="8x8"):
        search(Board(size=6), depth=2, evaluation=ev)
    with pytest.raises(ValueError, match="columns"):
        Evaluation(kind=EVAL_PATTERNS, weights=np.zeros((2, 8)))


def test_alphabeta_with_patterns() -> None:
    board = Board()
    result = search(board, depth=3, evaluation=pattern_evaluation())
    assert result.best_move in board.legal_actions()


def test_alphabeta_player_with_patterns() -> None:
    player = make_player("alphabeta:evaluation=patterns,depth=3,endgame=0")
    board = Board().play("f5")
    assert player.choose(board).move in board.legal_actions()
    with pytest.raises(ValueError, match="option evaluation: expected one of auto, heuristic"):
        make_player("alphabeta:evaluation=network")
    with pytest.raises(ValueError, match="8x8"):
        make_player("alphabeta:evaluation=patterns,depth=2,endgame=0").choose(Board(size=6))


def test_shipped_weights_record_their_checksum_and_saved_ones_too(tmp_path: Path) -> None:
    import warnings

    from othellolab.nn.files import file_sha256

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no UnverifiedWeightsWarning
        w = load_pattern_weights()
    directory = Path(_pattern_kernel.__file__).parent / "data" / "patterns-wthor"
    assert w.config["weights_sha256"] == file_sha256(directory / "weights.safetensors")
    saved = save_pattern_weights(tmp_path / "w", np.zeros((1, full_to_compact()[1])))
    config = json.loads((saved / "config.json").read_text())
    assert config["weights_sha256"] == file_sha256(saved / "weights.safetensors")
