"""The pattern evaluation: fast indices against a slow reference, the generated kernel, symmetry,
files, the ``evaluate`` dispatch and the 8x8-only rule."""

from __future__ import annotations

import ast
import json
from pathlib import Path
from unittest.mock import ANY

import numpy as np
import pytest

from othellolab import Board
from othellolab.core.jit import HAS_PEXT
from othellolab.core.kernels import U64, popcount
from othellolab.players import make_player
from othellolab.players.search import _pattern_kernel
from othellolab.players.search.evaluation import (
    EVAL_PATTERN_TERMS,
    EVAL_PATTERNS,
    Evaluation,
    evaluate,
    pattern_evaluation,
    weights_evaluation,
)
from othellolab.players.search.midgame import search
from othellolab.players.search.patterns import (
    CLASS_OFFSETS,
    CLASSES,
    FRONTIER_ENTRIES,
    INSTANCES,
    MOBILITY_ENTRIES,
    N_FEATURES,
    N_INSTANCES,
    N_TERM_FEATURES,
    N_WIDE_TERM_FEATURES,
    PARITY_ENTRIES,
    POTENTIAL_ENTRIES,
    TERMS,
    available_pattern_sets,
    compact_to_full,
    full_to_compact,
    kernel_source,
    load_pattern_weights,
    pattern_indices,
    pattern_indices_batch,
    pattern_terms_value,
    pattern_terms_value_pext,
    pattern_value,
    pattern_value_pext,
    phase_of,
    save_pattern_weights,
    term_columns,
    term_indices_batch,
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
    # the scale is a power of two, the smallest that holds the largest weight in int16, so
    # every weight is a whole number of units (evaluation.pattern_units)
    assert step == 2.0 ** np.ceil(np.log2(np.abs(compact).max() / 32767))
    assert np.array_equal(np.rint(loaded.compact / step), loaded.compact / step)


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


# ----------------------------------------------------------------------------------------------
# Layouts with a phase width of their own and extra terms (issue 38).


def test_shipped_values_are_those_from_before_the_terms() -> None:
    """``tests/data/patterns-wthor-values.npz``: the values of patterns-wthor on 4,686 positions
    (60 random games and 1,000 random disc patterns) computed by the kernel of a425a57, before
    the layouts with terms were added; they must not move by one bit."""
    ref = np.load(Path(__file__).parents[1] / "data" / "patterns-wthor-values.npz")
    ev = pattern_evaluation()
    assert ev.kind == EVAL_PATTERNS
    kernels = [pattern_value] + ([pattern_value_pext] if HAS_PEXT else [])
    for p, o, value in zip(ref["player"], ref["opponent"], ref["value"], strict=True):
        for kernel in kernels:
            assert kernel(U64(p), U64(o), ev.weights) == value
        assert evaluate(ev.kind, ev.weights, U64(p), U64(o), 8) == value


def reference_terms(p: int, o: int) -> tuple[int, ...]:
    """Square by square: legal moves of each side (``Board``), empty squares next to the other
    side's discs, quadrants with an odd number of empties, each side's discs next to an empty
    square, the side to move's discs."""
    board = Board.from_bitboards(p, o)
    flipped = Board.from_bitboards(o, p)
    moves = [len([a for a in b.legal_actions() if a != 64]) for b in (board, flipped)]
    empty = [s for s in range(64) if not (p | o) >> s & 1]

    def next_to(x: int, s: int) -> bool:
        r, c = divmod(s, 8)
        return any(
            0 <= r + dr < 8 and 0 <= c + dc < 8 and x >> ((r + dr) * 8 + c + dc) & 1
            for dr in (-1, 0, 1)
            for dc in (-1, 0, 1)
        )

    odd = sum(
        sum(1 for s in empty if (s // 8 >= 4) == qr and (s % 8 >= 4) == qc) % 2
        for qr in (False, True)
        for qc in (False, True)
    )
    return (
        min(moves[0], MOBILITY_ENTRIES - 1),
        min(moves[1], MOBILITY_ENTRIES - 1),
        sum(next_to(o, s) for s in empty),
        sum(next_to(p, s) for s in empty),
        odd,
        sum(1 for s in range(64) if p >> s & 1 and any(next_to(1 << e, s) for e in empty)),
        sum(1 for s in range(64) if o >> s & 1 and any(next_to(1 << e, s) for e in empty)),
        bin(p).count("1"),
    )


def random_terms_weights(phases: int, width: int, terms: tuple[str, ...], seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    compact = rng.normal(0, 0.3, size=(phases, full_to_compact()[1] + term_columns(terms)))
    return compact_to_full(compact, terms=terms, phase_width=width)


COUNT_TERMS = ("mobility", "potential_mobility", "parity", "frontier", "discs")


def test_terms_value_is_the_sum_of_the_weights_at_the_indices() -> None:
    width, phases = 3, 20
    table = random_terms_weights(phases, width, COUNT_TERMS, seed=8)
    assert table.shape == (phases, N_TERM_FEATURES)
    ev = Evaluation(EVAL_PATTERN_TERMS, table)
    out = np.zeros(N_INSTANCES, dtype=np.int64)
    n = N_FEATURES + 2
    for p, o in random_positions(200, seed=9):
        pattern_indices(U64(p), U64(o), out)
        row = table[min(max((64 - popcount(U64(p | o)) - 1) // width, 0), phases - 1)]
        mp, mo, pp, po, odd, fp, fo, dp = reference_terms(p, o)
        fro = 194 + PARITY_ENTRIES
        dsc = fro + 2 * FRONTIER_ENTRIES
        terms = [mp, MOBILITY_ENTRIES + mo, 72 + pp, 72 + POTENTIAL_ENTRIES + po, 194 + odd]
        terms += [fro + fp, fro + FRONTIER_ENTRIES + fo, dsc + dp]
        expected = float(np.clip(row[out].sum() + row[[n + t for t in terms]].sum(), -64, 64))
        value = evaluate(EVAL_PATTERN_TERMS, table, U64(p), U64(o), 8)
        assert value == pytest.approx(expected, abs=1e-9)
        assert pattern_terms_value(U64(p), U64(o), table) == value
        if HAS_PEXT:
            assert pattern_terms_value_pext(U64(p), U64(o), table) == value
        assert ev(Board.from_bitboards(p, o)) == value
    batch = term_indices_batch(
        np.array([p for p, _ in random_positions(20, 9)], dtype=np.uint64),
        np.array([o for _, o in random_positions(20, 9)], dtype=np.uint64),
        ("mobility", "parity", "discs"),
    )
    p0, o0 = random_positions(20, 9)[3]
    mp, mo, _, _, odd, _, _, dp = reference_terms(p0, o0)
    par = 2 * MOBILITY_ENTRIES
    expected = [mp, MOBILITY_ENTRIES + mo, par + odd, par + PARITY_ENTRIES + dp]
    assert batch[3].tolist() == expected


# The pattern terms' base squares, written out here from Egaroucid's pattern pictures
# (triangle, corner + block, cross), independently of the module's tables.
PATTERN_TERM_SQUARES = {
    "triangle": "a1 b1 c1 d1 a2 b2 c2 a3 b3 a4",
    "corner_block": "a1 c1 d1 e1 f1 h1 c2 d2 e2 f2",
    "cross": "a1 b2 c3 d4 b1 c2 d3 a2 b3 c4",
}


def _square(name: str) -> int:
    return (int(name[1]) - 1) * 8 + "abcdefgh".index(name[0])


@pytest.mark.parametrize("term", list(PATTERN_TERM_SQUARES))
def test_pattern_terms_are_the_weights_of_their_squares_under_every_symmetry(term: str) -> None:
    """A pattern term's value is its weight table read at its base squares on each of the 8
    symmetric images of the board, halved (each of its 4 instances is read twice, by two
    symmetries whose configurations are tied); the fit's columns pick the same weights."""
    from othellolab.fitting.patterns import phase_columns

    squares = [_square(s) for s in PATTERN_TERM_SQUARES[term].split()]
    terms = (term,)
    n_compact = full_to_compact()[1] + term_columns(terms)
    compact = np.random.default_rng(21).normal(0, 1.0, size=(12, n_compact))
    compact[:, : full_to_compact()[1]] = 0.0  # the classic patterns add nothing
    table = compact_to_full(compact, terms=terms)
    assert table.shape == (12, N_WIDE_TERM_FEATURES)
    block = N_TERM_FEATURES + 3**10 * [t for t in TERMS if t in PATTERN_TERM_SQUARES].index(term)
    positions = random_positions(60, seed=22)
    columns = phase_columns(
        np.array([p for p, _ in positions], dtype=np.uint64),
        np.array([o for _, o in positions], dtype=np.uint64),
        terms,
    )
    for (p, o), cols in zip(positions, columns, strict=True):
        board = Board.from_bitboards(p, o)
        row = table[phase_of(board.num_empties, 12)]
        total = 0.0
        for k in range(8):
            image = board.transform(k)
            config = sum(
                3**j * (1 if image.player >> s & 1 else 2 if image.opponent >> s & 1 else 0)
                for j, s in enumerate(squares)
            )
            total += row[block + config]
        want = float(np.clip(total / 2, -64, 64))
        assert evaluate(EVAL_PATTERN_TERMS, table, U64(p), U64(o), 8) == pytest.approx(want)
        assert pattern_terms_value(U64(p), U64(o), table) == pytest.approx(want)
        fitted = compact[phase_of(board.num_empties, 12), cols].sum()
        assert float(np.clip(fitted, -64, 64)) == pytest.approx(want)


def test_terms_are_skipped_unless_declared_and_symmetric() -> None:
    """Only declared terms count (a table whose undeclared terms hold weights ignores them),
    and a random table with every term is exactly symmetric, like the patterns."""
    only_parity = random_terms_weights(12, 5, ("parity",), seed=10)
    noisy = only_parity.copy()
    noisy[:, N_FEATURES + 2 : N_FEATURES + 2 + 2 * MOBILITY_ENTRIES] = 99.0
    everything = Evaluation(EVAL_PATTERN_TERMS, random_terms_weights(60, 1, TERMS, seed=11))
    for p, o in random_positions(40, seed=12):
        a = pattern_terms_value(U64(p), U64(o), only_parity)
        assert pattern_terms_value(U64(p), U64(o), noisy) == a
        board = Board.from_bitboards(p, o)
        values = [everything(board.transform(k)) for k in range(8)]
        assert max(values) - min(values) < 1e-9


def test_pattern_terms_round_trip(tmp_path: Path) -> None:
    """A file with a pattern term saves, loads into the wide table and plays; its config
    without the term no longer matches the stored columns."""
    from othellolab.nn.files import ModelFileError

    terms = ("parity", "corner_block")
    compact = np.random.default_rng(23).normal(
        0, 1, size=(12, full_to_compact()[1] + term_columns(terms))
    )
    save_pattern_weights(tmp_path / "w", compact, terms=terms)
    loaded = load_pattern_weights(tmp_path / "w")
    assert loaded.terms == terms and loaded.table.shape == (12, N_WIDE_TERM_FEATURES)
    ev = pattern_evaluation(tmp_path / "w")
    board = Board.from_transcript("f5d6c3d3c4f4c5b3c2")
    assert ev(board) == pytest.approx(
        float(evaluate(EVAL_PATTERN_TERMS, loaded.table, U64(board.player), U64(board.opponent), 8))
    )
    assert make_player(f"alphabeta:depth=2,weights={tmp_path / 'w'}").choose(board).move in (
        board.legal_actions()
    )
    config_path = tmp_path / "w" / "config.json"
    config_path.write_text(json.dumps({**json.loads(config_path.read_text()), "terms": ["parity"]}))
    with pytest.raises(ModelFileError, match="tensor 'weights' has shape"):
        load_pattern_weights(tmp_path / "w")


def test_terms_round_trip_and_bad_files(tmp_path: Path) -> None:
    from othellolab.nn.files import ModelFileError

    terms = ("mobility", "parity")
    rng = np.random.default_rng(13)
    compact = rng.normal(0, 2, size=(30, full_to_compact()[1] + term_columns(terms)))
    save_pattern_weights(tmp_path / "w", compact, phase_width=2, terms=terms)
    loaded = load_pattern_weights(tmp_path / "w")
    assert loaded.terms == terms and loaded.phase_width == 2 and not loaded.plain
    assert np.abs(loaded.compact - compact).max() <= loaded.config["scale"] / 2 + 1e-12
    ev = pattern_evaluation(tmp_path / "w")
    assert ev.kind == EVAL_PATTERN_TERMS and ev.name == "patterns"
    with pytest.raises(ValueError, match="shape"):
        save_pattern_weights(tmp_path / "x", compact, terms=("mobility",))
    with pytest.raises(ValueError, match="unknown term"):
        save_pattern_weights(tmp_path / "x", compact, terms=("corners",))
    config_path = tmp_path / "w" / "config.json"
    good = json.loads(config_path.read_text())
    for key, value, match in (
        ("phase_width", 0, "phase_width"),
        ("phase_width", "1", "phase_width"),
        ("terms", ["parity", "mobility"], "order"),
        ("terms", ["parity"], "tensor 'weights' has shape"),
    ):
        config_path.write_text(json.dumps({**good, key: value}))
        with pytest.raises(ModelFileError, match=match) as info:
            load_pattern_weights(tmp_path / "w")
        assert "config.json" in str(info.value) or "weights.safetensors" in str(info.value)
    config_path.write_text(json.dumps(good))
    data = (tmp_path / "w" / "weights.safetensors").read_bytes()
    (tmp_path / "w" / "weights.safetensors").write_bytes(data[: len(data) // 2])
    with pytest.raises(ModelFileError, match="weights.safetensors"):
        load_pattern_weights(tmp_path / "w")
    bad_header = ev.weights.copy()
    bad_header[3, N_FEATURES] = 7.0
    with pytest.raises(ValueError, match="phase width"):
        Evaluation(EVAL_PATTERN_TERMS, bad_header)


def test_alphabeta_and_endgame_take_named_weights(tmp_path: Path) -> None:
    from othellolab.core import ConfigError

    board = Board().play("f5").play("d6")
    named = make_player("alphabeta:weights=patterns-wthor,depth=3,endgame=0")
    plain = make_player("alphabeta:depth=3,endgame=0")
    assert named.choose(board).info == {**plain.choose(board).info, "seconds": ANY}
    with pytest.raises(ConfigError, match="option weights: .*shipped: .*patterns-wthor"):
        make_player("alphabeta:weights=no-such-set")
    with pytest.raises(ConfigError, match="evaluation auto or patterns"):
        make_player("alphabeta:weights=patterns-wthor,evaluation=heuristic")
    with pytest.raises(ConfigError, match="option weights"):
        make_player("endgame:weights=no-such-set")
    compact = np.zeros((60, full_to_compact()[1] + term_columns(("mobility",))))
    compact[:, full_to_compact()[1] : full_to_compact()[1] + MOBILITY_ENTRIES] = np.arange(36)
    save_pattern_weights(tmp_path / "mob", compact, phase_width=1, terms=("mobility",))
    mobility = make_player(f"alphabeta:weights={tmp_path / 'mob'},depth=1,endgame=0")
    assert mobility.evaluation_for(8).kind == EVAL_PATTERN_TERMS
    # one ply on the mobility of the side to move after the move: the reply that leaves the
    # opponent (then to move) the most moves is worst, so the move leaving it fewest is chosen
    move = mobility.choose(board).move
    counts = {a: len(board.play(a).legal_actions()) for a in board.legal_actions()}
    assert counts[move] == min(counts.values())
    solver = make_player(f"endgame:weights={tmp_path / 'mob'},max_empties=8")
    late = list(random_game(8, seed=3))[-9]
    assert solver.choose(late).move in late.legal_actions()
    (tmp_path / "mob" / "weights.safetensors").write_bytes(b"junk")
    with pytest.raises(ValueError, match="weights.safetensors"):
        make_player(f"alphabeta:weights={tmp_path / 'mob'}")


def test_every_shipped_set_loads_and_is_symmetric() -> None:
    directory = Path(_pattern_kernel.__file__).parent / "data"
    assert {"patterns-wthor", "patterns-wthor-terms", "patterns-wthor60"} <= set(
        available_pattern_sets()
    )
    for name in available_pattern_sets():
        w = load_pattern_weights(name)
        assert (directory / name / "weights.safetensors").stat().st_size < 20_000_000
        assert w.config["phases"] == w.compact.shape[0] and "held_out" in w.config
        assert (directory / name / "TRAINING.md").is_file()
    ev = weights_evaluation("patterns-wthor60")
    assert ev.kind == EVAL_PATTERN_TERMS and ev.weights.shape == (60, N_TERM_FEATURES)
    for p, o in random_positions(20, seed=14):
        board = Board.from_bitboards(p, o)
        values = [ev(board.transform(k)) for k in range(8)]
        assert max(values) - min(values) < 1e-9
