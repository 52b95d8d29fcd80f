"""Dataset builds: counts against the real WTHOR files, filters, splits, dedup, symmetries,
the manifest, and resuming an interrupted build."""

from __future__ import annotations

import csv
import hashlib
import json

import numpy as np
import pytest

from othellolab import Board, square_name
from othellolab.core import kernels as k
from othellolab.datasets.build import BuildOptions, build_dataset, parse_split_years
from othellolab.datasets.shards import FORMAT, FORMAT_VERSION, SPLITS, open_arrays
from othellolab.datasets.sources import games_to_arrays
from othellolab.records.game import GameRecord
from othellolab.records.wthor import WthorError

from helpers import shared_file


def load(root, split: str) -> dict[str, np.ndarray]:
    return {name: np.asarray(a) for name, a in open_arrays(root, split, mmap=False).items()}


def all_rows(root) -> dict[str, np.ndarray]:
    parts = [load(root, s) for s in SPLITS]
    return {name: np.concatenate([p[name] for p in parts]) for name in parts[0]}


def move_bytes(path) -> int:
    """Recorded moves of a .wtb file, counted straight from the bytes (non-zero move bytes
    before a game's first zero byte): independent of the readers under test."""
    data = path.read_bytes()
    moves = np.frombuffer(data[16:], dtype=np.uint8).reshape(-1, 68)[:, 8:]
    return int((np.cumsum(moves == 0, axis=1) == 0).sum())


def test_wthor_2001_2015_counts(tmp_path) -> None:
    """The years of the classic tutorial: games equal games_per_year.csv (52,578; the tutorial
    reports 52,441 from an older download), positions equal the recorded moves plus the forced
    passes (the tutorial's 3,140,636 positions exclude passes)."""
    files = [shared_file(f"wthor/WTH_{y}.wtb") for y in range(2001, 2016)]
    with shared_file("wthor/games_per_year.csv").open() as f:
        expected_games = sum(
            int(r["n_games"]) for r in csv.DictReader(f) if 2001 <= int(r["year"]) <= 2015
        )
    assert expected_games == 52_578  # the data README
    report = build_dataset(files, tmp_path / "ds", progress=False)
    counts = report.manifest["counts"]
    recorded = sum(move_bytes(f) for f in files)
    assert counts["games"] == counts["games_used"] == expected_games
    assert counts["placing_moves"] == recorded == 3_148_845
    assert counts["rows"] == counts["actions"] == recorded + counts["passes"] == 3_206_942
    rows = all_rows(tmp_path / "ds")
    assert len(rows["p"]) == counts["rows"]
    assert np.count_nonzero(rows["move"] == 64) == counts["passes"]
    assert sum(s["games"] for s in report.manifest["splits"].values()) == expected_games
    # Every game contributes exactly its actions: rows per game id equal their move count.
    per_game = np.bincount(rows["game"], minlength=expected_games)
    assert per_game.min() >= 9 and per_game.sum() == counts["rows"]
    assert np.array_equal(np.bincount(rows["year"] - 2001, minlength=15) > 0, np.ones(15, bool))


def test_no_passes_rows_equal_recorded_moves(small_wtb, tmp_path) -> None:
    src = small_wtb(2004, 1500)
    report = build_dataset([src], tmp_path / "ds", passes=False, progress=False)
    rows = all_rows(tmp_path / "ds")
    assert len(rows["p"]) == report.manifest["counts"]["rows"] == move_bytes(src)
    assert not (rows["move"] == 64).any()


def test_rows_are_positions_before_each_move(small_wtb, tmp_path) -> None:
    """Each row's move is legal in its position, and outcome/score agree with the game."""
    build_dataset([small_wtb(2004, 200)], tmp_path / "ds", progress=False)
    rows = all_rows(tmp_path / "ds")
    for i in range(0, len(rows["p"]), 37):
        board = Board.from_bitboards(int(rows["p"][i]), int(rows["o"][i]), int(rows["color"][i]))
        assert board.is_legal(int(rows["move"][i]))
    assert np.array_equal(rows["outcome"], np.sign(rows["score"]))
    # Both sides of a game see opposite scores.
    first = rows["move_number"] == 1
    second = rows["move_number"] == 2
    by_game = dict(zip(rows["game"][first].tolist(), rows["score"][first].tolist(), strict=True))
    for g, s in zip(rows["game"][second].tolist(), rows["score"][second].tolist(), strict=True):
        assert s == -by_game[g]


def test_manifest_contents(small_wtb, tmp_path) -> None:
    src = small_wtb(2004, 300)
    report = build_dataset([src], tmp_path / "ds", seed=3, progress=False)
    m = json.loads((tmp_path / "ds" / "manifest.json").read_text())
    assert m == report.manifest
    assert m["format"] == FORMAT and m["format_version"] == FORMAT_VERSION
    assert m["size"] == 8 and m["policy_size"] == 65
    assert m["options"] == BuildOptions(seed=3).to_dict()
    assert BuildOptions.from_dict(m["options"]) == BuildOptions(seed=3)
    (source,) = m["sources"]
    assert source["sha256"] == hashlib.sha256(src.read_bytes()).hexdigest()
    assert source["games"] == 300 and source["first_game"] == 0 and source["years"] == [2004, 2004]
    for key in ("p", "o", "color", "move", "outcome", "score", "move_number", "game", "year"):
        assert key in m["conventions"]
    assert m["build"]["seconds"] > 0
    for split in SPLITS:
        desc = m["splits"][split]
        for name, d in desc["arrays"].items():
            a = np.load(tmp_path / "ds" / split / f"{name}.npy", mmap_mode="r")
            assert (a.dtype.str, list(a.shape)) == (d["dtype"], d["shape"])
            assert a.shape == (desc["rows"],)
    assert sum(m["splits"][s]["rows"] for s in SPLITS) == m["counts"]["rows"]
    assert not (tmp_path / "ds.partial").exists() and not (tmp_path / "ds.tmp").exists()


def test_splits_are_by_game_and_deterministic(small_wtb, tmp_path) -> None:
    a, b = small_wtb(2003, 800), small_wtb(2004, 800)
    build_dataset([a, b], tmp_path / "one", progress=False)
    build_dataset([b, a], tmp_path / "two", progress=False)
    build_dataset([a, b], tmp_path / "seed", seed=1, progress=False)
    games = {s: set(load(tmp_path / "one", s)["game"].tolist()) for s in SPLITS}
    assert not (
        games["train"] & games["val"]
        or games["train"] & games["test"]
        or games["val"] & games["test"]
    )
    assert 40 < len(games["val"]) < 130 and 40 < len(games["test"]) < 130  # about 5% of 1600
    for s in SPLITS:
        one, two, seeded = (
            load(tmp_path / "one", s),
            load(tmp_path / "two", s),
            load(tmp_path / "seed", s),
        )
        # The same positions land in the same split whatever the order of the sources.
        key = lambda r: np.sort(r["p"] ^ (r["o"] * np.uint64(3)) ^ r["move"].astype(np.uint64))  # noqa: E731
        assert np.array_equal(key(one), key(two))
        if s != "train":
            assert not np.array_equal(key(one), key(seeded))
    rebuilt = tmp_path / "again"
    build_dataset([a, b], rebuilt, progress=False)
    for s in SPLITS:
        x, y = load(tmp_path / "one", s), load(rebuilt, s)
        assert all(np.array_equal(x[n], y[n]) for n in x)


def test_year_split_and_year_filter(small_wtb, tmp_path) -> None:
    files = [small_wtb(y, 200) for y in (2002, 2003, 2004)]
    report = build_dataset(
        files, tmp_path / "ds", split="year", split_years="train=2002,val=2003", progress=False
    )
    assert load(tmp_path / "ds", "train")["year"].tolist() == [2002] * report.rows("train")
    assert set(load(tmp_path / "ds", "val")["year"].tolist()) == {2003}
    assert report.rows("test") == 0 and report.manifest["counts"]["games_used"] == 400
    report = build_dataset(
        files, tmp_path / "f", years="2003-2004", val_fraction=0, test_fraction=0, progress=False
    )
    assert set(load(tmp_path / "f", "train")["year"].tolist()) == {2003, 2004}
    assert (
        report.manifest["counts"]["games_used"] == 400 and report.manifest["counts"]["games"] == 600
    )


def test_keep_filters(small_wtb, tmp_path) -> None:
    src = small_wtb(2004, 400)
    build_dataset([src], tmp_path / "all", progress=False)
    everything = all_rows(tmp_path / "all")
    build_dataset([src], tmp_path / "win", keep="winner", progress=False)
    winner = all_rows(tmp_path / "win")
    assert (winner["outcome"] == 1).all() and len(winner["p"]) == np.count_nonzero(
        everything["outcome"] == 1
    )
    for colour, code in (("black", 0), ("white", 1)):
        build_dataset([src], tmp_path / colour, keep=colour, progress=False)
        rows = all_rows(tmp_path / colour)
        assert (rows["color"] == code).all() and len(rows["p"]) == np.count_nonzero(
            everything["color"] == code
        )


def test_dedup_merges_counts_into_policies(tmp_path) -> None:
    transcripts = ["f5d6c3d3c4", "f5d6c3d3c4f4", "f5f6e6f4", "f5d6c5"]
    games = [
        GameRecord.from_moves([t[i : i + 2] for i in range(0, len(t), 2)]) for t in transcripts
    ]
    source = games_to_arrays(games, name="four games")
    report = build_dataset(
        [source], tmp_path / "ds", dedup=True, val_fraction=0, test_fraction=0, progress=False
    )
    d = load(tmp_path / "ds", "train")
    assert report.manifest["splits"]["train"]["positions_before_dedup"] == sum(
        len(t) // 2 for t in transcripts
    )

    def policy(i: int) -> dict[str, int]:
        lo, hi = d["policy_offsets"][i], d["policy_offsets"][i + 1]
        moves = [square_name(int(m)) for m in d["policy_moves"][lo:hi]]
        return dict(zip(moves, d["policy_counts"][lo:hi].tolist(), strict=True))

    # Rows come in order of first occurrence: the start, then after f5, after f5d6, ...
    assert int(d["p"][0]) == Board().player and d["count"][0] == 4 and policy(0) == {"f5": 4}
    assert d["count"][1] == 4 and policy(1) == {"d6": 3, "f6": 1} and d["move"][1] == 43  # d6
    assert d["count"][2] == 3 and policy(2) == {"c3": 2, "c5": 1}
    scores = [g.score for g in games]  # black's, from GameRecord's own replay
    assert d["score"][0] == pytest.approx(np.mean(scores))  # black to move at the start
    assert d["score"][1] == pytest.approx(-np.mean(scores))
    assert d["outcome"][2] == pytest.approx(np.mean(np.sign(scores[:2] + scores[3:])))
    assert (
        d["count"].sum()
        == d["policy_counts"].sum()
        == report.manifest["splits"]["train"]["positions_before_dedup"]
    )
    assert len(np.unique(d["p"] * np.uint64(31) ^ d["o"])) == len(d["p"])


def test_dedup_on_real_games(small_wtb, tmp_path) -> None:
    src = small_wtb(2004, 1000)
    build_dataset([src], tmp_path / "plain", progress=False)
    build_dataset([src], tmp_path / "dedup", dedup=True, progress=False)
    for s in SPLITS:
        plain, dedup = load(tmp_path / "plain", s), load(tmp_path / "dedup", s)
        assert dedup["count"].sum() == len(plain["p"]) == dedup["policy_counts"].sum()
        unique = np.unique(np.stack([plain["p"], plain["o"]], axis=1), axis=0)
        assert len(dedup["p"]) == len(unique)
        assert np.array_equal(np.diff(dedup["policy_offsets"]) > 0, np.ones(len(dedup["p"]), bool))
        # Every game starts with f5 (data README): the start row holds every game of the split.
        start = np.flatnonzero((dedup["p"] == Board().player) & (dedup["o"] == Board().opponent))
        assert len(start) == 1 and dedup["count"][start[0]] == len(set(plain["game"].tolist()))
        assert dedup["move"][start[0]] == 37


def test_symmetries_materialised(small_wtb, tmp_path) -> None:
    src = small_wtb(2004, 60)
    build_dataset([src], tmp_path / "plain", val_fraction=0, test_fraction=0, progress=False)
    report = build_dataset(
        [src], tmp_path / "sym", symmetries=True, val_fraction=0, test_fraction=0, progress=False
    )
    plain, sym = load(tmp_path / "plain", "train"), load(tmp_path / "sym", "train")
    n = len(plain["p"])
    assert report.rows("train") == 8 * n
    for s in range(8):
        block = slice(s * n, (s + 1) * n)
        assert (sym["symmetry"][block] == s).all()
        for i in range(0, n, 97):
            board = Board.from_bitboards(int(plain["p"][i]), int(plain["o"][i]))
            image = board.transform(s)
            j = s * n + i
            assert (int(sym["p"][j]), int(sym["o"][j])) == (image.player, image.opponent)
            assert sym["move"][j] == k.transform_square(int(plain["move"][i]), s)
            if plain["move"][i] != 64:
                assert image.is_legal(int(sym["move"][j]))
        assert np.array_equal(sym["outcome"][block], plain["outcome"])


def test_resume_after_a_failed_source(small_wtb, tmp_path) -> None:
    """A build stopped by a bad file leaves no dataset; once the file is fixed, the rebuild
    reuses the sources already replayed and gives the same dataset as a clean build."""
    good = small_wtb(2003, 300, name="a.wtb")
    fixed = small_wtb(2004, 300, name="b.wtb").read_bytes()
    bad = tmp_path / "b.wtb"
    broken = bytearray(fixed)
    broken[16 + 68 * 10 + 8 + 4] = 99
    bad.write_bytes(bytes(broken))
    out = tmp_path / "ds"
    with pytest.raises(WthorError, match=r"b.wtb: game 11, move 5: invalid move byte 99"):
        build_dataset([good, bad], out, progress=False)
    assert not out.exists() and (tmp_path / "ds.partial").exists()
    bad.write_bytes(fixed)
    (tmp_path / "ds.tmp").mkdir()  # as left by a crash while writing the splits
    (tmp_path / "ds.tmp" / "junk.npy").write_bytes(b"x")
    report = build_dataset([good, bad], out, progress=False)
    assert report.reused_sources == 1 and not report.up_to_date
    assert not (tmp_path / "ds.partial").exists() and not (tmp_path / "ds.tmp").exists()
    clean = build_dataset([good, bad], tmp_path / "clean", progress=False)
    assert clean.reused_sources == 0
    for s in SPLITS:
        x, y = load(out, s), load(tmp_path / "clean", s)
        assert x.keys() == y.keys() and all(np.array_equal(x[n], y[n]) for n in x)
    again = build_dataset([good, bad], out, progress=False)
    assert again.up_to_date and again.manifest == report.manifest
    with pytest.raises(FileExistsError, match="other sources or options"):
        build_dataset([good, bad], out, dedup=True, progress=False)
    assert build_dataset([good, bad], out, dedup=True, overwrite=True, progress=False).manifest[
        "options"
    ]["dedup"]


def test_stale_partial_state_restarts_cleanly(small_wtb, tmp_path) -> None:
    src = small_wtb(2004, 50)
    partial = tmp_path / "ds.partial"
    (partial / "sources" / "garbage").mkdir(parents=True)
    (partial / "state.json").write_text('{"cache_version": -1}')
    report = build_dataset([src], tmp_path / "ds", progress=False)
    assert report.reused_sources == 0 and report.manifest["counts"]["games"] == 50
    assert not partial.exists()


def test_lenient_mode_skips_and_counts(small_wtb, tmp_path) -> None:
    src = small_wtb(2004, 100)
    data = bytearray(src.read_bytes())
    data[16 + 68 * 7 + 8 + 2] = 11  # game 8, move 3: a1, illegal
    src.write_bytes(bytes(data))
    with pytest.raises(ValueError, match=r"game 8, move 3 \(a1\): illegal move"):
        build_dataset([src], tmp_path / "strict", progress=False)
    report = build_dataset([src], tmp_path / "lenient", strict=False, progress=False)
    assert report.manifest["counts"]["games_invalid"] == 1
    assert report.manifest["counts"]["games_used"] == 99
    assert 7 not in all_rows(tmp_path / "lenient")["game"].tolist()


def test_recorded_scores(tmp_path, small_wtb) -> None:
    src = small_wtb(2004, 100)
    build_dataset([src], tmp_path / "rec", score="recorded", progress=False)
    rows = all_rows(tmp_path / "rec")
    black_discs = np.frombuffer(src.read_bytes()[16:], dtype=np.uint8).reshape(-1, 68)[:, 6]
    expected = (2 * black_discs.astype(int) - 64)[rows["game"]] * (
        1 - 2 * rows["color"].astype(int)
    )
    assert np.array_equal(rows["score"], expected)
    no_score = games_to_arrays([GameRecord.from_moves(["f5"])])
    with pytest.raises(ValueError, match="records no score"):
        build_dataset([no_score], tmp_path / "x", score="recorded", progress=False)


def test_option_validation() -> None:
    with pytest.raises(ValueError, match="option keep: expected one of all, winner, black, white"):
        BuildOptions(keep="loser")
    with pytest.raises(ValueError, match=r"option val_fraction: must be a finite number in 0\.\.1"):
        BuildOptions(val_fraction=1.5)
    with pytest.raises(ValueError, match="needs split_years"):
        BuildOptions(split="year")
    with pytest.raises(ValueError, match="overlap"):
        BuildOptions(split="year", split_years=parse_split_years("train=2000-2010,val=2010"))
    with pytest.raises(ValueError, match="invalid split range"):
        parse_split_years("dev=2001")
    with pytest.raises(ValueError, match="exceeds 1"):
        BuildOptions(val_fraction=0.6, test_fraction=0.6)
    with pytest.raises(ValueError, match="no sources"):
        build_dataset([], "/nonexistent", progress=False)


def test_dedup_is_exact_even_if_position_hashes_collide(small_wtb, tmp_path, monkeypatch) -> None:
    """Dedup sorts by a 64-bit position hash; a collision must fall back to an exact sort."""
    from othellolab.datasets import build

    src = small_wtb(2004, 200)
    build_dataset([src], tmp_path / "hashed", dedup=True, progress=False)
    monkeypatch.setattr(
        build, "hash_position_batch", lambda p, o: np.zeros(len(p), dtype=np.uint64)
    )
    build_dataset([src], tmp_path / "collide", dedup=True, progress=False)
    for s in SPLITS:
        x, y = load(tmp_path / "hashed", s), load(tmp_path / "collide", s)
        assert all(np.array_equal(x[n], y[n]) for n in x)


def test_interrupt_while_writing_splits_then_resume(small_wtb, tmp_path, monkeypatch) -> None:
    """Ctrl-C while the splits are written: no dataset, no temporary folder; the next build
    reuses every replayed source."""
    from othellolab.datasets import build

    files = [small_wtb(2003, 100), small_wtb(2004, 100)]
    real = build.write_arrays
    calls = []

    def interrupted(folder, arrays):
        if folder.parent.name == "ds.tmp":  # a split of the dataset, not a source's cache
            calls.append(folder)
            if len(calls) == 2:
                raise KeyboardInterrupt
        return real(folder, arrays)

    monkeypatch.setattr(build, "write_arrays", interrupted)
    with pytest.raises(KeyboardInterrupt):
        build_dataset(files, tmp_path / "ds", progress=False)
    assert len(calls) == 2
    assert not (tmp_path / "ds").exists() and not (tmp_path / "ds.tmp").exists()
    monkeypatch.setattr(build, "write_arrays", real)
    report = build_dataset(files, tmp_path / "ds", progress=False)
    assert report.reused_sources == 2 and report.manifest["counts"]["games"] == 200


def interrupt_before_the_splits(games, out, monkeypatch) -> None:
    """Build a dataset of ``games`` at ``out`` and stop it (Ctrl-C) as it writes its first
    split: every source is replayed into the resume cache, ``out.partial``."""
    from othellolab.datasets import build

    real = build.write_arrays

    def interrupted(folder, arrays):
        if folder.parent.name == f"{out.name}.tmp":
            raise KeyboardInterrupt
        return real(folder, arrays)

    monkeypatch.setattr(build, "write_arrays", interrupted)
    with pytest.raises(KeyboardInterrupt):
        build_dataset([games], out, progress=False)
    monkeypatch.setattr(build, "write_arrays", real)


def test_resume_cache_of_an_older_build_reads_its_no_score(tmp_path, monkeypatch) -> None:
    """A resume cache whose ``recorded_score`` holds ``OLD_NO_SCORE`` (as builds wrote it
    before ``NO_SCORE`` was one constant) still reads as "no score": reused, it counts no
    score mismatch and gives the dataset of a clean build."""
    from othellolab.datasets.sources import OLD_NO_SCORE

    games = games_to_arrays(
        [
            GameRecord.from_moves(["f5", "d6", "c3"]),
            GameRecord.from_moves(["f5", "f6", "e6", "f4"]),
        ],
        name="unscored",
    )
    interrupt_before_the_splits(games, tmp_path / "ds", monkeypatch)
    (cached,) = (tmp_path / "ds.partial").glob("sources/*/recorded_score.npy")
    # the cache's first layout: a "done" file and no checksums
    (cached.parent / "shard.json").unlink()
    (cached.parent / "done").write_text("ok\n")
    np.save(cached, np.full(2, OLD_NO_SCORE, dtype=np.int16))
    report = build_dataset([games], tmp_path / "ds", progress=False)
    clean = build_dataset([games], tmp_path / "clean", progress=False)
    assert report.reused_sources == 1 and report.manifest["counts"]["games_score_mismatch"] == 0
    assert report.manifest["counts"] == clean.manifest["counts"]


def test_a_corrupt_cached_replay_is_replayed_again(tmp_path, monkeypatch) -> None:
    """A cached source whose array no longer matches its checksum is not reused: the build
    replays the source and gives the dataset of a clean build."""

    games = games_to_arrays(
        [GameRecord.from_moves(["f5", "d6", "c3"]), GameRecord.from_moves(["f5", "f6"])],
        name="two",
    )
    interrupt_before_the_splits(games, tmp_path / "ds", monkeypatch)
    (cached,) = (tmp_path / "ds.partial").glob("sources/*/p.npy")
    p = np.load(cached)
    np.save(cached, p[::-1].copy())
    report = build_dataset([games], tmp_path / "ds", progress=False)
    clean = build_dataset([games], tmp_path / "clean", progress=False)
    assert report.reused_sources == 0
    assert report.manifest["counts"] == clean.manifest["counts"]
    for s in SPLITS:
        x, y = load(tmp_path / "ds", s), load(tmp_path / "clean", s)
        assert x.keys() == y.keys() and all(np.array_equal(x[n], y[n]) for n in x)
