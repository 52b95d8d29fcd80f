"""Model shapes for every family and board size."""

from __future__ import annotations

from pathlib import Path

import pytest

torch = pytest.importorskip("torch", reason="the nn extra (torch) is not installed")

from othellolab.nn.config import model_config  # noqa: E402
from othellolab.nn.models import build_model, count_parameters  # noqa: E402

NAMES = ["mlp-classic", "mlp-2x32", "cnn-3x8", "resnet-b2c8"]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("size", [8, 6])
@pytest.mark.parametrize("score_head", [False, True])
def test_output_shapes(name: str, size: int, score_head: bool) -> None:
    cfg = model_config(
        name, size=size, score_head=score_head, planes=("player", "opponent", "legal")
    )
    torch.manual_seed(0)
    model = build_model(cfg).eval()
    x = (torch.rand(5, 3, size, size) < 0.3).float()
    out = model(x)
    assert len(out) == (3 if score_head else 2)
    assert out[0].shape == (5, size * size + 1)
    for t in out[1:]:
        assert t.shape == (5,)
        assert bool((t.abs() <= 1).all())


def test_named_sizes_have_the_published_shapes() -> None:
    # 64-100-100-65: 64*100+100 + 100*100+100 + 100*65+65 weights, plus a 101-weight value head.
    assert count_parameters(build_model(model_config("mlp-classic"))) == 6500 + 10100 + 6565 + 101
    cnn = build_model(model_config("cnn-13x128")).eval()
    assert (
        sum(isinstance(m, torch.nn.Conv2d) and m.kernel_size == (3, 3) for m in cnn.modules()) == 13
    )
    resnet = build_model(model_config("resnet-b6c64"))
    convs = [
        m for m in resnet.modules() if isinstance(m, torch.nn.Conv2d) and m.kernel_size == (3, 3)
    ]
    assert len(convs) == 1 + 2 * 6 and all(c.out_channels == 64 for c in convs)
    with torch.inference_mode():
        assert cnn(torch.zeros(2, 2, 8, 8))[0].shape == (2, 65)


def test_mlp_board_input_reads_the_colours_apart() -> None:
    model = build_model(model_config("mlp-classic")).eval()
    a = torch.zeros(1, 2, 8, 8)
    a[0, 0, 3, 3] = 1
    b = torch.zeros(1, 2, 8, 8)
    b[0, 1, 3, 3] = 1
    with torch.inference_mode():
        assert not torch.allclose(model(a)[0], model(b)[0])


@pytest.mark.parametrize("name", ["resnet-b1c16", "cnn-4x16", "mlp-classic"])
def test_a_masking_model_puts_its_whole_policy_on_legal_actions(name: str, tmp_path: Path) -> None:
    import numpy as np

    from othellolab.core import Board
    from othellolab.core.errors import ConfigError
    from othellolab.core.features import FeatureSpec, encode_batch
    from othellolab.nn.io import load_model, save_model

    planes = ("player", "opponent", "legal")
    cfg = model_config(name, planes=planes, mask_illegal=True)
    torch.manual_seed(0)
    net = build_model(cfg).eval()
    # the start, a position mid-game, and one where the side to move must pass (an
    # independent fact: Board.must_pass), each with its legal actions from Board
    boards = [Board()]
    rng = np.random.default_rng(1)
    while len(boards) < 3:
        b = Board()
        while not b.is_game_over() and not (len(boards) == 2 and b.must_pass()):
            moves = b.legal_actions()
            b = b.play(moves[int(rng.integers(len(moves)))])
            if len(boards) == 1 and b.num_empties == 30:
                break
        if not b.is_game_over():
            boards.append(b)
    assert boards[2].must_pass()
    x = torch.from_numpy(
        encode_batch(
            np.array([b.player for b in boards], dtype=np.uint64),
            np.array([b.opponent for b in boards], dtype=np.uint64),
            FeatureSpec(planes, 8),
        )
    ).float()
    for model in (net, load_model(save_model(net, tmp_path / "model"))[0].eval()):
        with torch.no_grad():
            probs = torch.softmax(model(x)[0], dim=1).numpy()
        for b, p in zip(boards, probs, strict=True):
            legal = np.zeros(65, dtype=bool)
            legal[b.legal_actions()] = True
            assert p[~legal].sum() < 1e-6 and p[legal].sum() == pytest.approx(1.0, abs=1e-5)
        assert probs[2][64] == pytest.approx(1.0)  # the pass, the only action
    with pytest.raises(ConfigError, match="mask_illegal"):
        model_config(name, mask_illegal=True)  # no legal plane to mask by
