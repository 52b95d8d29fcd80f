"""``othellolab evaluate model``: the positions it reads, the metrics it computes (checked
against independent paths: the trainer's WTHOR replay, the dataset builder, the network
evaluator the players use), and the report it writes."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from helpers import shared_file

torch = pytest.importorskip("torch", reason="the nn extra (torch) is not installed")

from typer.testing import CliRunner  # noqa: E402

from othellolab.cli import app  # noqa: E402
from othellolab.core import OthelloError  # noqa: E402
from othellolab.datasets.build import build_dataset  # noqa: E402
from othellolab.datasets.feeds import positions_from_wthor  # noqa: E402
from othellolab.datasets.heldout import load_positions  # noqa: E402
from othellolab.measure.model import measure_model, resolve_model  # noqa: E402
from othellolab.measure.report import write_report  # noqa: E402
from othellolab.nn.inference import NetworkEvaluator  # noqa: E402
from othellolab.nn.pretrained import model_dir  # noqa: E402

GAMES = 60


def _cut(tmp_path: Path, year: int, count: int) -> Path:
    """The first ``count`` games of a real WTHOR year as ``tmp_path/wthor/WTH_<year>.wtb``."""
    source = shared_file(f"wthor/WTH_{year}.wtb")
    data = source.read_bytes()
    header = bytearray(data[:16])
    header[4:8] = count.to_bytes(4, "little")
    folder = tmp_path / "wthor"
    folder.mkdir(exist_ok=True)
    target = folder / f"WTH_{year}.wtb"
    target.write_bytes(bytes(header) + data[16 : 16 + 68 * count])
    return target


@pytest.fixture
def wtb_2023(tmp_path: Path) -> Path:
    return _cut(tmp_path, 2023, GAMES)


def test_wthor_positions_match_the_trainers_replay(wtb_2023: Path) -> None:
    pos = load_positions([wtb_2023.parent], years="2023")
    ref = positions_from_wthor([wtb_2023], include_passes=True)
    assert len(pos) == len(ref) and pos.games == GAMES
    np.testing.assert_array_equal(pos.player, ref.player)
    np.testing.assert_array_equal(pos.opponent, ref.opponent)
    np.testing.assert_array_equal(pos.move, ref.move)
    np.testing.assert_array_equal(pos.outcome, ref.outcome)
    np.testing.assert_array_equal(pos.score, np.round(ref.score * 64).astype(np.int64))
    # a forced pass follows exactly the moves that force one, and precedes an "after pass" row
    same = pos.game[1:] == pos.game[:-1]
    is_pass = pos.move == 64
    np.testing.assert_array_equal(pos.forces_pass[:-1], same & is_pass[1:])
    np.testing.assert_array_equal(pos.after_pass[1:], same & is_pass[:-1])
    assert is_pass.sum() > 0, "the first 60 games of 2023 hold forced passes"
    # the same file named directly gives the same rows
    direct = load_positions([wtb_2023])
    np.testing.assert_array_equal(direct.move, pos.move)


def test_dataset_folders_give_the_same_positions(tmp_path: Path, wtb_2023: Path) -> None:
    build_dataset(
        [wtb_2023], tmp_path / "ds", split="year", split_years="test=2023", progress=False
    )
    from_ds = load_positions([tmp_path / "ds"], split="test")
    from_games = load_positions([wtb_2023])
    for name in ("player", "opponent", "move", "outcome", "score", "after_pass", "forces_pass"):
        np.testing.assert_array_equal(getattr(from_ds, name), getattr(from_games, name), name)
    # without pass rows the builder's dataset still marks the moves made right after a pass
    build_dataset(
        [wtb_2023],
        tmp_path / "nopass",
        split="year",
        split_years="test=2023",
        passes=False,
        progress=False,
    )
    no_pass = load_positions([tmp_path / "nopass"], split="test")
    placing = from_games.move < 64
    np.testing.assert_array_equal(no_pass.after_pass, from_games.after_pass[placing])
    np.testing.assert_array_equal(no_pass.forces_pass, from_games.forces_pass[placing])


def test_bad_data_gives_clear_errors(tmp_path: Path, wtb_2023: Path) -> None:
    with pytest.raises(ValueError, match="needs --years"):
        load_positions([wtb_2023.parent])
    with pytest.raises(FileNotFoundError, match="no WTHOR file for year 1999"):
        load_positions([wtb_2023.parent], years="1999")
    with pytest.raises(FileNotFoundError, match="nope.wtb: no such file"):
        load_positions([tmp_path / "nope.wtb"])
    build_dataset([wtb_2023], tmp_path / "dd", dedup=True, progress=False)
    with pytest.raises(ValueError, match="built with dedup"):
        load_positions([tmp_path / "dd"])
    bad = tmp_path / "bad.txt"
    bad.write_text("f5d6c3d3c4f4\nf5f5\n")
    with pytest.raises(Exception, match=r"bad.txt.*(line|game) 2"):
        load_positions([bad])
    with pytest.raises(OthelloError, match="not a model directory"):
        resolve_model(tmp_path)


def _same_moves(player: np.ndarray, opponent: np.ndarray, played: np.ndarray) -> np.ndarray:
    """The moves a symmetry of each position maps the played move to, found on square grids
    with ``core.kernels``' grid transforms (not the bitboard swaps that ``measure`` uses)."""
    from othellolab.core.kernels import transform_grid, transform_square

    squares = np.arange(64, dtype=np.uint64)
    grid = (((player[:, None] >> squares) & np.uint64(1)).astype(np.int8)) - (
        ((opponent[:, None] >> squares) & np.uint64(1)).astype(np.int8)
    )
    grid = grid.reshape(-1, 8, 8)
    same = np.zeros((len(played), 65), dtype=bool)
    same[np.arange(len(played)), played] = True
    for k in range(1, 8):
        for i in np.flatnonzero((transform_grid(grid, k) == grid).all(axis=(1, 2))):
            same[i, transform_square(int(played[i]), k)] = True
    return same


def test_metrics_agree_with_the_players_evaluator(wtb_2023: Path) -> None:
    pos = load_positions([wtb_2023])
    ev = measure_model(model_dir(), pos, batch_size=100, progress=False)
    m = ev.metrics
    placing = pos.move < 64
    # independent path: NetworkEvaluator masks the policy itself (as the policy player does)
    net = NetworkEvaluator.from_dir(model_dir(), cache_size=0)
    priors, values = net.evaluate(pos.player[placing], pos.opponent[placing], net.config.rules)
    played = pos.move[placing]
    same = _same_moves(pos.player[placing], pos.opponent[placing], played)
    rows = np.arange(len(played))
    assert m["overall"]["top1"] == pytest.approx(np.mean(same[rows, priors.argmax(axis=1)]))
    top3 = np.argsort(-priors, axis=1)[:, :3]
    assert m["overall"]["top3"] == pytest.approx(np.mean(same[rows[:, None], top3].any(axis=1)))
    ce = -np.log((priors * same[:, : priors.shape[1]]).sum(axis=1))
    assert m["overall"]["policy_ce"] == pytest.approx(ce.mean(), rel=1e-4)
    # the first move of every game: f5 (WTHOR's convention), one move with d3, c4 and e6
    first = pos.empties[placing] == 60
    assert (played[first] == 37).all() and (same[first].sum(axis=1) == 4).all()
    mse = np.mean((values - pos.outcome[placing]) ** 2)
    assert m["overall"]["value_mse"] == pytest.approx(mse, rel=1e-4)
    # the network learned something: far better than a uniform choice among legal moves
    assert m["overall"]["top1"] > m["overall"]["uniform_top1"] + 0.15
    assert m["overall"]["positions"] == int(placing.sum())
    assert sum(p["positions"] for p in m["phases"]) == int(placing.sum())
    bins = m["calibration"]["bins"]
    assert sum(b["positions"] for b in bins) == int(placing.sum())
    v, o = values, pos.outcome[placing]
    which = np.clip(((v + 1) / 0.2).astype(int), 0, 9)
    ece = sum(
        (which == b).mean() * abs(v[which == b].mean() - o[which == b].mean())
        for b in range(10)
        if (which == b).any()
    )
    assert m["calibration"]["ece"] == pytest.approx(ece, abs=2e-3)
    c = m["passes"]["confusion"]
    assert c["forced_pass"]["network_pass"] + c["forced_pass"]["network_move"] == int(
        (pos.move == 64).sum()
    )
    assert m["passes"]["after_pass"]["positions"] == int((pos.after_pass & placing).sum())


def test_symmetry_averaging_agrees_with_the_players_evaluator(wtb_2023: Path) -> None:
    """``symmetries=8`` against ``NetworkEvaluator(symmetries=8)``, which transforms the
    positions as bitboards (``Game.transform_states``) instead of the planes."""
    pos = load_positions([wtb_2023], max_games=20)
    ev = measure_model(model_dir(), pos, batch_size=128, progress=False, symmetries=8)
    one = measure_model(model_dir(), pos, batch_size=128, progress=False)
    placing = pos.move < 64
    net = NetworkEvaluator.from_dir(model_dir(), cache_size=0, symmetries=8)
    priors, values = net.evaluate(pos.player[placing], pos.opponent[placing], net.config.rules)
    same = _same_moves(pos.player[placing], pos.opponent[placing], pos.move[placing])
    rows = np.arange(len(priors))
    m = ev.metrics["overall"]
    assert m["top1"] == pytest.approx(np.mean(same[rows, priors.argmax(axis=1)]))
    ce = -np.log((priors * same[:, : priors.shape[1]]).sum(axis=1))
    assert m["policy_ce"] == pytest.approx(ce.mean(), rel=1e-4)
    assert m["value_mse"] == pytest.approx(np.mean((values - pos.outcome[placing]) ** 2), rel=1e-4)
    # averaging changes what the network says (else the test above proves nothing)
    assert not np.allclose(ev.value, one.value)
    assert ev.name.endswith("-sym8") and one.name == model_dir().name
    for bad in (0, 9, True):
        with pytest.raises(OthelloError, match="symmetries"):
            measure_model(model_dir(), pos, progress=False, symmetries=bad)


def test_cli_writes_a_report(tmp_path: Path, wtb_2023: Path) -> None:
    out = tmp_path / "report"
    r = CliRunner().invoke(
        app,
        [
            "evaluate",
            "model",
            "b4c32-wthor",
            str(model_dir("b4c32-wthor")),
            "--data",
            str(wtb_2023.parent),
            "--years",
            "2023",
            "--max-games",
            "20",
            "--out",
            str(out),
            "--quiet",
        ],
    )
    assert r.exit_code == 0, r.output
    assert "b4c32-wthor: top-1" in r.output
    report = (out / "report.md").read_text()
    assert "## Around passes" in report and "| 1-10 |" in report
    for png in ("phases.png", "calibration.png"):
        assert (out / png).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    data = json.loads((out / "metrics.json").read_text())
    assert data["data"]["games"] == 20 and len(data["models"]) == 2
    # the same model twice gives the same figures
    assert data["models"][0]["overall"] == data["models"][1]["overall"]

    r = CliRunner().invoke(app, ["evaluate", "model", "nope", "--data", str(wtb_2023)])
    assert r.exit_code != 0 and "not a model directory" in r.output
    r = CliRunner().invoke(
        app, ["evaluate", "model", "b4c32-wthor", "--data", str(wtb_2023.parent), "--quiet"]
    )
    assert r.exit_code == 1 and "needs --years" in r.output


def test_cli_writes_under_runs_by_default(
    tmp_path: Path, wtb_2023: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without --out the report goes to runs/eval-<model> (ignored by git), not to an
    eval-<model> folder in the checkout's root as before."""
    work = tmp_path / "checkout"
    work.mkdir()
    monkeypatch.chdir(work)
    r = CliRunner().invoke(
        app,
        ["evaluate", "model", "b4c32-wthor", "--data", str(wtb_2023), "--max-games", "5"],
        catch_exceptions=False,
    )
    assert r.exit_code == 0, r.output
    assert (work / "runs" / "eval-b4c32-wthor" / "report.md").is_file()
    assert sorted(p.name for p in work.iterdir()) == ["runs"]
    ignored = (Path(__file__).resolve().parents[2] / ".gitignore").read_text().split()
    assert "/runs/" in ignored


def test_report_is_written_atomically(tmp_path: Path, wtb_2023: Path) -> None:
    pos = load_positions([wtb_2023])
    ev = measure_model(model_dir(), pos, progress=False)
    out = tmp_path / "r"
    out.mkdir()
    (out / "stale.txt").write_text("old")
    write_report([ev], pos, out)
    assert sorted(p.name for p in out.iterdir()) == [
        "calibration.png",
        "metrics.json",
        "phases.png",
        "report.md",
    ]
    assert not list(tmp_path.glob("r.*"))
