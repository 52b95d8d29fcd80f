"""The batched evaluator: legal-masked priors, exact values at the end, cache, protocol."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="the nn extra (torch) is not installed")

from othellolab.core import Board  # noqa: E402
from othellolab.core.features import FeatureSpec, encode_batch  # noqa: E402
from othellolab.core.games import get_game  # noqa: E402
from othellolab.nn.config import model_config  # noqa: E402
from othellolab.nn.inference import NetworkEvaluator  # noqa: E402
from othellolab.nn.models import build_model  # noqa: E402
from othellolab.testing import random_game  # noqa: E402

OTHELLO6, OTHELLO8 = get_game("othello", size=6), get_game("othello", size=8)


def _evaluator(size: int = 6, **kw) -> NetworkEvaluator:
    torch.manual_seed(3)
    return NetworkEvaluator(
        build_model(model_config("resnet-b1c8", size=size, score_head=True)), **kw
    )


def _games(size: int, n: int) -> list[Board]:
    return [b for s in range(n) for b in random_game(size, seed=s)]


def test_priors_are_the_softmax_over_legal_actions() -> None:
    ev = _evaluator()
    boards = _games(6, 4)
    out = ev.evaluate_boards(boards)
    p = np.array([b.player for b in boards], np.uint64)
    o = np.array([b.opponent for b in boards], np.uint64)
    with torch.inference_mode():
        logits, values, _ = ev.model(
            torch.from_numpy(encode_batch(p, o, FeatureSpec(("player", "opponent"), 6)))
        )
    for i, b in enumerate(boards):
        legal = b.legal_actions()
        pri = out.priors[i]
        if not legal:
            assert b.is_game_over() and not pri.any()
            assert out.values[i] == np.sign(b.outcome().score(b.turn))
            continue
        assert pri.sum() == pytest.approx(1, abs=1e-5)
        assert not np.delete(pri, legal).any()
        want = torch.softmax(logits[i, legal], 0).numpy()
        assert np.allclose(pri[legal], want, atol=1e-6)
        assert out.values[i] == pytest.approx(float(values[i]), abs=1e-6)
    assert any(b.must_pass() for b in boards)


def test_forced_pass_gets_the_whole_prior() -> None:
    ev = _evaluator()
    passes = [b for b in _games(6, 6) if b.must_pass()]
    assert passes
    priors, _ = ev.evaluate(
        np.array([b.player for b in passes], np.uint64),
        np.array([b.opponent for b in passes], np.uint64),
        OTHELLO6,
    )
    assert np.all(priors[:, -1] == 1) and not priors[:, :-1].any()


def test_cache_gives_the_same_answers() -> None:
    ev = _evaluator(cache_size=8)
    boards = _games(6, 1)[:20]
    first = ev.evaluate_boards(boards)
    again = ev.evaluate_boards(boards[-5:])
    assert ev.hits == 5 and ev.misses == 20
    assert np.array_equal(again.priors, first.priors[-5:]) and np.array_equal(
        again.values, first.values[-5:]
    )
    uncached = _evaluator(cache_size=0).evaluate_boards(boards)
    assert np.allclose(uncached.priors, first.priors) and np.allclose(uncached.values, first.values)


def test_small_batches_equal_one_big_batch() -> None:
    boards = _games(6, 2)
    big = _evaluator(cache_size=0).evaluate_boards(boards)
    small = _evaluator(cache_size=0, max_batch=3).evaluate_boards(boards)
    assert np.allclose(big.priors, small.priors, atol=1e-6)


def test_follows_the_evaluator_protocol_and_checks_the_size() -> None:
    ev = _evaluator()
    assert ev.has_priors is True
    b = Board(size=6)
    priors, values = ev.evaluate(
        np.array([b.player], np.uint64), np.array([b.opponent], np.uint64), OTHELLO6
    )
    assert priors.shape == (1, 37) and priors.dtype == np.float32
    assert values.shape == (1,) and values.dtype == np.float32
    with pytest.raises(ValueError, match="plays othello 6x6, not othello 8x8"):
        ev.evaluate(np.array([1], np.uint64), np.array([2], np.uint64), OTHELLO8)


# ---- precision ---------------------------------------------------------------------------------


def test_precision_is_checked() -> None:
    from othellolab.core import ConfigError

    for bad in ("fp16", "", None, 32):
        with pytest.raises(ConfigError, match="precision"):
            _evaluator(precision=bad)


def test_float32_runs_the_model_as_trained() -> None:
    ev = _evaluator(cache_size=0)
    assert ev._net is ev.model and not ev.bfloat16


@pytest.mark.parametrize("precision", ["auto", "bfloat16"])
def test_fast_precisions_agree_with_float32(precision: str) -> None:
    """The folded copy (batch norms in the convolutions, channels-last) computes the same
    function, and bfloat16 stays within a small tolerance of float32 on real positions: the
    shipped 6x6 network over the graded 6x6 set (2,478 positions, one batch)."""
    from othellolab.nn.pretrained import resolve
    from othellolab.players.search.solved6 import load_graded_set

    entries = load_graded_set()
    p = np.array([e.board.player for e in entries], np.uint64)
    o = np.array([e.board.opponent for e in entries], np.uint64)
    exact = NetworkEvaluator.from_dir(resolve("az-6x6"), cache_size=0)
    fast = NetworkEvaluator.from_dir(resolve("az-6x6"), cache_size=0, precision=precision)
    assert fast._net is not fast.model
    want, got = exact.evaluate(p, o, OTHELLO6), fast.evaluate(p, o, OTHELLO6)
    tol = 2e-2 if fast.bfloat16 else 1e-4
    assert np.abs(got[0] - want[0]).max() < tol and np.abs(got[1] - want[1]).max() < tol
    assert (got[0].argmax(1) == want[0].argmax(1)).mean() > 0.98
    # a batch below BF16_MIN_BATCH runs the folded copy in float32
    small = fast.evaluate(p[:4], o[:4], OTHELLO6)
    assert np.abs(small[1] - want[1][:4]).max() < 1e-4


def test_training_layout_is_channels_last_for_convolutions_on_the_cpu() -> None:
    # channels-last trains convolutions faster on the CPU in float32 and bfloat16 alike
    # (benchmarks/bench_nn.py --variants); a network without convolutions keeps its layout
    from othellolab.nn.precision import training_layout

    cpu = torch.device("cpu")
    for autocast in (False, True):
        net = build_model(model_config("resnet-b1c8"))
        assert training_layout(net, cpu, autocast)
        weight = net.stem[0].weight
        assert weight.is_contiguous(memory_format=torch.channels_last)
    assert not training_layout(build_model(model_config("mlp-classic")), cpu, True)


# ---- symmetries ----------------------------------------------------------------------------


def test_symmetries_average_the_images_mapped_back() -> None:
    """``symmetries=8`` is the mean over the 8 images of each board (``Board.transform``),
    the prior of each move read at its image (``features.transform_action``)."""
    from othellolab.core.features import transform_action

    boards = [b for b in _games(6, 2) if b.legal_actions()][:12]
    averaged = _evaluator(cache_size=0, symmetries=8).evaluate_boards(boards)
    plain = _evaluator(cache_size=0)
    for i, b in enumerate(boards):
        images = plain.evaluate_boards([b.transform(k) for k in range(8)])
        for a in range(37):
            want = np.mean([images.priors[k, transform_action(a, k, 6)] for k in range(8)])
            assert averaged.priors[i, a] == pytest.approx(want, abs=1e-6)
        assert averaged.values[i] == pytest.approx(images.values.mean(), abs=1e-6)
        assert averaged.scores[i] == pytest.approx(images.scores.mean(), abs=1e-6)
    assert np.allclose(averaged.priors.sum(axis=1), 1, atol=1e-5)


def test_a_symmetric_position_gets_equal_priors_for_equivalent_moves() -> None:
    # the start is symmetric: its 4 moves are one move up to symmetry
    out = _evaluator(cache_size=0, symmetries=8).evaluate_boards([Board(size=6)])
    legal = Board(size=6).legal_actions()
    assert np.allclose(out.priors[0, legal], 0.25, atol=1e-6)


def test_symmetries_are_checked() -> None:
    from othellolab.core import ConfigError

    for bad in (0, 9, True, 2.5):
        with pytest.raises(ConfigError, match="symmetries"):
            _evaluator(symmetries=bad)
