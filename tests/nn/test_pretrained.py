"""The shipped network: it loads, plays legal moves, beats random, and predicts held-out moves."""

from __future__ import annotations

import numpy as np
import pytest

from othellolab.nn.pretrained import DEFAULT_MODEL, available_models, model_dir

from helpers import shared_file

torch = pytest.importorskip("torch", reason="the nn extra (torch) is not installed")

from othellolab.arena import play_match, read_openings  # noqa: E402
from othellolab.arena.match import play_game  # noqa: E402
from othellolab.core.games import get_game  # noqa: E402
from othellolab.datasets.feeds import positions_from_wthor  # noqa: E402
from othellolab.nn.inference import NetworkEvaluator  # noqa: E402
from othellolab.nn.io import load_model  # noqa: E402
from othellolab.players import make_player  # noqa: E402
from othellolab.testing import check_player  # noqa: E402


def test_the_default_model_is_shipped() -> None:
    assert DEFAULT_MODEL in available_models()
    with pytest.raises(ValueError, match="no shipped model 'nope'"):
        model_dir("nope")


@pytest.mark.parametrize("name", available_models())
def test_every_shipped_model_is_small_documented_and_loads(name: str) -> None:
    path = model_dir(name)
    assert (path / "TRAINING.md").is_file()
    assert (path / "model.safetensors").stat().st_size < 4_000_000
    _, info = load_model(path)
    assert info.config.family == "resnet"
    size = info.config.size
    if "data" in info.training:  # supervised: trained before the held-out 2023 test year
        assert size == 8
        data = info.training["data"]
        assert "2023" not in data["train_years"] + data["val_years"]
    else:  # self-play: its generation and the values it was trained with
        assert info.training["generation"] > 0 and "score_value" in info.training
    if info.config.game != "othello":  # another game's model: whole games against random
        for spec in (f"alphazero:model={name},sims=8", f"policy:model={name}"):
            game = play_game(make_player(spec), make_player("random:seed=1"), game=info.config.game)
            assert game.moves and game.result in (-1, 0, 1)
        return
    if "data" not in info.training:
        check_player(make_player(f"alphazero:model={name},sims=8"), sizes=(size,), games=1)
    check_player(make_player(f"policy:model={name}"), sizes=(size,), games=1, seed=5)


def test_network_players_default_to_the_shipped_model() -> None:
    for spec in ("policy", "value", f"policy:model={DEFAULT_MODEL}"):
        player = make_player(spec)
        assert player.model == str(model_dir())
        check_player(player, sizes=(8,), games=2, seed=4)


def test_policy_player_beats_random() -> None:
    openings = read_openings(shared_file("xot/openingssmall.txt"))
    result = play_match(
        make_player("policy"), make_player("random:seed=5"), games=20, openings=openings
    )
    assert result.wins >= 17, result


def test_top1_on_held_out_2023_games_is_far_above_uniform() -> None:
    # WTHOR 2023 is the test year: the default model was trained on 1977-2021 and validated on 2022
    arrays = positions_from_wthor([shared_file("wthor/WTH_2023.wtb")], max_games=8)
    assert 400 <= len(arrays) <= 500
    priors, _ = NetworkEvaluator.from_dir(model_dir(), cache_size=0).evaluate(
        arrays.player, arrays.opponent, get_game("othello", size=8)
    )
    top1 = float(np.mean(priors.argmax(axis=1) == arrays.move))
    uniform = float(np.mean(1.0 / (priors > 0).sum(axis=1)))
    assert uniform < 0.25
    assert top1 > 0.4 and top1 > 2 * uniform, (top1, uniform)


@pytest.mark.parametrize("name", available_models())
def test_every_shipped_model_records_the_checksum_of_its_weights(name: str) -> None:
    import warnings

    from othellolab.nn.files import file_sha256
    from othellolab.nn.io import read_model_info

    path = model_dir(name)
    assert read_model_info(path).weights_sha256 == file_sha256(path / "model.safetensors")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no UnverifiedWeightsWarning
        load_model(path)
