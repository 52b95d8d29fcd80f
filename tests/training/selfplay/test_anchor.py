"""``[train] anchor``: expert positions mixed into self-play batches. The rows are checked
against the games they come from (replayed with ``Board``, not the loader), the batches'
make-up against the share, a run trains with them, and every bad option is refused by name."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from othellolab.core import ConfigError, OthelloError
from othellolab.core.board import Board
from othellolab.core.games import get_game
from othellolab.nn.io import load_model
from othellolab.records.game import GameRecord
from othellolab.records.ggf import write_ggf
from othellolab.training.selfplay.anchor import load_anchor
from othellolab.training.selfplay.pipeline import SelfPlayRun, train_selfplay
from othellolab.training.selfplay.runconfig import SelfPlayRunConfig, SelfPlayTrainConfig
from othellolab.training.selfplay.trainer import Window

from helpers import tiny_selfplay_config

pytest.importorskip("torch", reason="the nn extra (torch) is not installed")

GAME = get_game("othello", size=4)


def random_games(count: int, seed: int) -> list[GameRecord]:
    """Random 4x4 games played to the end with ``Board``."""
    rng = np.random.default_rng(seed)
    games = []
    for _ in range(count):
        board, moves = Board(size=4), []
        while not board.is_game_over():
            legal = board.legal_actions()
            move = 16 if not legal else int(rng.choice(legal))
            board = board.play_pass() if move == 16 else board.play(move)
            moves.append(move)
        games.append(GameRecord.from_moves(moves, start=Board(size=4)))
    return games


@pytest.fixture
def games_file(tmp_path: Path) -> tuple[Path, list[GameRecord]]:
    games = random_games(12, seed=3)
    path = tmp_path / "four.ggf"
    write_ggf(path, games)
    return path, games


def expert_rows(games: list[GameRecord]) -> list[tuple[int, int, int, int]]:
    """(player, opponent, move, result for the side to move) of every placing move."""
    rows = []
    for game in games:
        board = Board(size=4)
        final = game.final_board
        for move in game.moves:
            if move < 16:
                sign = 1 if board.turn == final.turn else -1
                rows.append((board.player, board.opponent, move, sign * final.result()))
                board = board.play(move)
            else:
                board = board.play_pass()
    return rows


def test_anchor_rows_are_the_games_moves_and_results(
    games_file: tuple[Path, list[GameRecord]],
) -> None:
    path, games = games_file
    want = expert_rows(games)
    window = load_anchor(SelfPlayTrainConfig(anchor=str(path), anchor_share=0.5), GAME, seed=0)
    a = window.arrays
    assert len(window) == len(want)
    got = sorted(
        (int(p), int(o), int(np.argmax(pol)), int(r))
        for p, o, pol, r in zip(a["player"], a["opponent"], a["policy"], a["result"], strict=True)
    )
    assert got == sorted(want)
    assert np.all(a["policy"].sum(axis=1) == 1) and np.all(a["full_search"])
    assert np.array_equal(a["value"], a["result"].astype(np.float32))
    assert np.all(a["final_side"] == 0) and np.all(a["next_action"] == -1)
    # a draw of fewer positions is a seeded subset
    few = SelfPlayTrainConfig(anchor=str(path), anchor_share=0.5, anchor_positions=10)
    one, two = load_anchor(few, GAME, seed=0), load_anchor(few, GAME, seed=0)
    assert len(one) == 10 and np.array_equal(one.arrays["player"], two.arrays["player"])
    assert set(one.arrays["player"].tolist()) <= {int(r[0]) for r in want}


def test_batches_take_the_share_from_the_anchor(
    games_file: tuple[Path, list[GameRecord]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path, _ = games_file
    monkeypatch.chdir(tmp_path)
    cfg = SelfPlayRunConfig.from_dict(run_config(train={"anchor": str(path),
                                                        "anchor_share": 0.25}))  # fmt: skip
    run = SelfPlayRun(cfg, progress=False)
    run.start()
    run.selfplay(0)
    from othellolab.training.selfplay.trainer import WindowTrainer

    window = run.window(0)
    anchor = run.anchor()
    assert anchor is not None
    model, _ = load_model(run.model_dir(0))
    trainer = WindowTrainer(cfg, model, window, generation=1, previous_state=None,
                            device=run.device, target=tmp_path / "out", anchor=anchor)  # fmt: skip
    # the last quarter of each batch: expert positions (under a symmetry) and their moves
    a = anchor.arrays
    n = len(anchor)
    ks = np.repeat(np.arange(GAME.symmetries), n)
    tp, to = GAME.transform_states(np.tile(a["player"], 8), np.tile(a["opponent"], 8), ks)
    moves = GAME.transform_policies(np.tile(a["policy"], (8, 1)), ks).argmax(axis=1)
    expert = set(zip(tp.tolist(), to.tolist(), moves.tolist(), strict=True))
    batches = 0
    for batch in trainer.batches(0):
        batches += 1
        assert len(batch["value"]) == 32 and np.all(batch["full"][-8:] == 1)
        planes = batch["planes"][-8:]  # player and opponent planes of the side to move
        weights = 1 << np.arange(16, dtype=np.uint64)
        p = (planes[:, 0].reshape(8, 16).astype(np.uint64) * weights).sum(axis=1)
        o = (planes[:, 1].reshape(8, 16).astype(np.uint64) * weights).sum(axis=1)
        tail = batch["policy"][-8:]
        assert np.all(tail.max(axis=1) == 1)
        for row in zip(p.tolist(), o.tolist(), tail.argmax(axis=1).tolist(), strict=True):
            assert row in expert
    assert batches == trainer.steps_per_epoch > 0


def run_config(**tables: dict[str, Any]) -> dict[str, Any]:
    return tiny_selfplay_config("anchor4", **tables)


def test_a_run_with_an_anchor_trains_and_logs_it(
    games_file: tuple[Path, list[GameRecord]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path, games = games_file
    monkeypatch.chdir(tmp_path)
    cfg = SelfPlayRunConfig.from_dict(run_config(train={"anchor": str(path),
                                                        "anchor_share": 0.5}))  # fmt: skip
    lines: list[str] = []
    train_selfplay(cfg, progress=False, log=lines.append)
    _, info = load_model(tmp_path / "runs/anchor4/models/gen0001")
    assert np.isfinite(info.training["losses"]["policy_loss"])
    said = [x for x in lines if x.startswith("anchor:")]
    assert said == [
        f"anchor: {len(expert_rows(games))} positions of four.ggf, 16 of each batch of 32"
    ]


@pytest.mark.parametrize(
    ("train", "option", "words"),
    [
        ({"anchor_share": 0.5}, "anchor_share", "needs anchor"),
        ({"anchor": "x.ggf", "anchor_share": 0.95}, "anchor_share", "0.9"),
        ({"anchor": "x.ggf", "anchor_share": float("nan")}, "anchor_share", ""),
        ({"anchor": "x.ggf", "anchor_positions": 0}, "anchor_positions", ""),
        ({"anchor": 3}, "anchor", ""),
    ],
)
def test_bad_anchor_options_are_refused(train: dict[str, Any], option: str, words: str) -> None:
    with pytest.raises(ConfigError) as e:
        SelfPlayRunConfig.from_dict(run_config(train=train))
    assert e.value.option == option and words in str(e.value)


def test_anchor_data_problems_are_named(tmp_path: Path) -> None:
    data = run_config(train={"anchor": "x.ggf", "anchor_share": 0.5})
    data["game"] = "animal-shogi"
    del data["size"]
    with pytest.raises(ConfigError) as e:
        SelfPlayRunConfig.from_dict(data)
    assert e.value.option == "anchor" and "animal-shogi" in str(e.value)
    with pytest.raises(OthelloError, match="no such file"):
        load_anchor(SelfPlayTrainConfig(anchor=str(tmp_path / "nope.ggf")), GAME, seed=0)
    wthor = tmp_path / "wthor"
    wthor.mkdir()
    (wthor / "WTH_2001.wtb").write_bytes(b"")
    with pytest.raises(ConfigError) as e:
        load_anchor(SelfPlayTrainConfig(anchor=str(wthor)), GAME, seed=0)
    assert e.value.option == "anchor_years"
    eight = tmp_path / "eight.ggf"
    write_ggf(eight, [GameRecord.from_moves(["f5", "d6"])])
    with pytest.raises(ConfigError) as e:
        load_anchor(SelfPlayTrainConfig(anchor=str(eight)), GAME, seed=0)
    assert e.value.option == "anchor"


def test_window_from_arrays_names_what_is_missing() -> None:
    with pytest.raises(ValueError, match="no player"):
        Window.from_arrays({}, GAME)
