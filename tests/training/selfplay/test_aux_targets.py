"""KataGo's auxiliary targets through self-play: the records' final positions and replies,
shards without them, the trainer's targets and losses, a run that starts from a network
without the heads, and the config keys that turn them on."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from othellolab.core import ConfigError
from othellolab.core.games import get_game
from othellolab.nn.config import model_config
from othellolab.nn.io import load_model, save_model
from othellolab.nn.models import build_model
from othellolab.players import RandomRolloutEvaluator
from othellolab.training.selfplay import SelfPlayConfig, play_games
from othellolab.training.selfplay.pipeline import SelfPlayRun, train_selfplay
from othellolab.training.selfplay.records import NO_SCORE, TARGET_DTYPES, SelfPlayRecords
from othellolab.training.selfplay.runconfig import SelfPlayRunConfig
from othellolab.training.selfplay.shards import read_shard, write_shard
from othellolab.training.selfplay.trainer import Window, aux_losses, aux_targets

from helpers import tiny_selfplay_config

GAME = get_game("othello", size=4)
AUX = ("ownership", "score_logits", "opponent_policy_logits")
DOC = (Path(__file__).resolve().parents[3] / "docs" / "selfplay.md").read_text()


@pytest.fixture(scope="module")
def records() -> SelfPlayRecords:
    """4x4 games with resignation (some resign) and the exact endgame (the last 5 empties)."""
    config = SelfPlayConfig(
        simulations=8, parallel=4, resign_threshold=-0.2, resign_moves=1, no_resign_share=0.5,
        solve_empties=5, seed=1,
    )  # fmt: skip
    return play_games(RandomRolloutEvaluator(1, seed=1), 12, game=GAME, config=config)


def test_records_hold_the_final_position_and_the_reply(records: SelfPlayRecords) -> None:
    resigned = records.score == NO_SCORE
    assert resigned.any() and (~resigned).any()
    assert np.all(records.final_side[resigned] == 0)
    played = np.flatnonzero(~resigned)
    own = GAME.ownership_batch(records.final_player[played], records.final_opponent[played])
    side = records.final_side[played].astype(np.float32)
    assert np.all(side != 0)
    # the final owners from each row's side add up to that side's final disc difference
    assert np.array_equal(own.sum(axis=1) * side, records.score[played].astype(np.float32))
    for i in range(len(records)):
        g, k = int(records.game[i]), int(records.ply[i])
        moves = records.moves[g][records.moves[g] >= 0]
        assert records.next_action[i] == (moves[k + 1] if k + 1 < len(moves) else -1)
        if records.final_side[i]:  # the final position is where the game's moves lead
            assert (
                GAME.result(int(records.final_player[i]), int(records.final_opponent[i]))
                is not None
            )


def test_a_shard_written_before_the_targets_reads_without_them(
    records: SelfPlayRecords, tmp_path: Path
) -> None:
    folder = write_shard(tmp_path / "g0000-000", records, generation=0, index=0, seed=0, stats={})
    meta = json.loads((folder / "shard.json").read_text())
    for name in TARGET_DTYPES:  # as the engine wrote shards before the targets
        (folder / f"{name}.npy").unlink()
        del meta["sha256"][name]
    (folder / "shard.json").write_text(json.dumps(meta))
    shard = read_shard(folder, game=GAME)
    assert np.all(shard.arrays["final_side"] == 0) and np.all(shard.arrays["next_action"] == -1)
    assert np.array_equal(shard.arrays["policy"], records.policy)
    window = Window([shard], GAME)
    rng = np.random.default_rng(0)
    batch = window.batch(np.arange(len(window)), ("player", "opponent"), rng, symmetries=True,
                         value_mix=0.0, aux=AUX)  # fmt: skip
    assert batch["ownership_mask"].sum() == 0 and batch["opponent_mask"].sum() == 0
    assert batch["score_mask"].sum() == (records.score != NO_SCORE).sum()  # scores were there


def test_targets_follow_the_symmetry_of_the_position(records: SelfPlayRecords) -> None:
    played = np.flatnonzero(records.final_side != 0)
    a = {
        k: getattr(records, k)[played]
        for k in ("player", "final_player", "final_opponent", "final_side", "next_action", "score")
    }
    plain = aux_targets(GAME, a, None, AUX)
    for k in range(8):
        ks = np.full(len(played), k)
        turned = aux_targets(GAME, a, ks, AUX)
        # a cell's owner moves with the cell, as a move's probability does
        padded = np.concatenate([plain["ownership"], np.zeros((len(played), 1), np.float32)], 1)
        assert np.array_equal(turned["ownership"], GAME.transform_policies(padded, ks)[:, :16])
        want = GAME.transform_policies(plain["opponent_policy"], ks)
        assert np.array_equal(turned["opponent_policy"], want)
        assert np.array_equal(turned["score_bin"], plain["score_bin"])
    # the score distribution's target is one-hot at the final score: bin 0 is -16
    assert np.array_equal(plain["score_bin"] - 16, a["score"])
    has = a["next_action"] >= 0
    assert np.array_equal(plain["opponent_policy"][has].argmax(axis=1), a["next_action"][has])


def test_aux_losses_fall_on_a_tiny_overfit(records: SelfPlayRecords, tmp_path: Path) -> None:
    folder = write_shard(tmp_path / "g0000-000", records, generation=0, index=0, seed=0, stats={})
    window = Window([read_shard(folder, game=GAME)], GAME)
    torch.manual_seed(0)
    cfg = model_config("resnet-b1c16", size=4, global_pool_every=1,
                       ownership_head=True, score_distribution=True, opponent_policy_head=True)  # fmt: skip
    model = build_model(cfg)
    rows = np.arange(min(64, len(window)))
    batch = window.batch(rows, cfg.planes, np.random.default_rng(0), symmetries=False,
                         value_mix=0.0, aux=AUX)  # fmt: skip
    b = {k: torch.from_numpy(v) for k, v in batch.items()}
    opt = torch.optim.Adam(model.parameters(), lr=0.01)

    def aux() -> dict[str, float]:
        out = dict(zip(cfg.outputs, model(b["planes"]), strict=True))
        return aux_losses(out, b)

    first = {k: float(v.detach()) for k, v in aux().items()}
    assert set(first) == {"ownership_loss", "score_loss", "opponent_policy_loss"}
    for _ in range(60):
        opt.zero_grad()
        sum(aux().values()).backward()
        opt.step()
    last = {k: float(v.detach()) for k, v in aux().items()}
    for key in first:
        assert last[key] < 0.7 * first[key], key


# ---- runs --------------------------------------------------------------------------------------


def run_config(**tables: dict[str, Any]) -> dict[str, Any]:
    return tiny_selfplay_config("aux4", **tables)


WEIGHTS = {"ownership_weight": 1.0, "score_weight": 0.5, "opponent_policy_weight": 0.5}


def test_a_run_with_the_aux_heads_trains_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    data = run_config(model={"global_pool_every": 1}, train=WEIGHTS,
                      selfplay={"score_utility": 0.5})  # fmt: skip
    cfg = SelfPlayRunConfig.from_dict(data)
    assert (cfg.model.ownership_head, cfg.model.score_distribution) == (True, True)
    train_selfplay(cfg, progress=False)
    model, info = load_model(tmp_path / "runs/aux4/models/gen0001")
    assert model.config.outputs[2:] == AUX
    losses = info.training["losses"]
    for key in ("ownership_loss", "score_loss", "opponent_policy_loss"):
        assert np.isfinite(losses[key]), key


def test_init_from_a_network_without_the_heads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    torch.manual_seed(4)
    supervised = build_model(model_config("resnet-b1c8", size=4))
    init = save_model(supervised, tmp_path / "supervised")
    monkeypatch.chdir(tmp_path)
    data = run_config(model={"preset": "resnet-b2c16", "global_pool_every": 1}, train=WEIGHTS,
                      loop={"init": str(init)})  # fmt: skip
    lines: list[str] = []
    SelfPlayRun(SelfPlayRunConfig.from_dict(data), progress=False, log=lines.append).start()
    model, info = load_model(tmp_path / "runs/aux4/models/gen0000")
    assert model.config.blocks == 1 and model.config.filters == 8  # the init's shape
    assert model.config.global_pool_every == 1 and model.config.outputs[2:] == AUX
    state = model.state_dict()
    for name, tensor in supervised.state_dict().items():
        assert torch.equal(state[name], tensor), name
    new = info.training["init_new"]
    assert set(new) == set(state) - set(supervised.state_dict())
    assert info.training["init_loaded"] == len(supervised.state_dict())
    assert len(lines) == 1 and f"{len(new)} new" in lines[0]
    assert "blocks.0.pool.bias.weight" in lines[0] and "heads.ownership.weight" in lines[0]


def test_aux_weights_for_a_game_without_the_target_are_refused() -> None:
    data = run_config(train={"ownership_weight": 1.0})
    data["game"] = "animal-shogi"
    del data["size"]
    with pytest.raises(ConfigError) as e:
        SelfPlayRunConfig.from_dict(data)
    assert e.value.option == "ownership_weight" and "animal-shogi" in str(e.value)
    with pytest.raises(ConfigError) as e:
        SelfPlayRunConfig.from_dict(run_config(selfplay={"score_utility": 0.5}))
    assert e.value.option == "score_utility" and "score_weight" in str(e.value)


def test_the_targets_table_of_the_docs() -> None:
    m = re.search(r"<!-- selfplay:targets -->\n(.*?)<!-- /selfplay:targets -->", DOC, re.S)
    assert m
    table = {}
    for line in m.group(1).splitlines()[2:]:
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        table[cells[0].strip("`")] = cells[1].split()[0]
    assert table == {name: str(dtype) for name, dtype in TARGET_DTYPES.items()}
