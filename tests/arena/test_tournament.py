"""Tournaments: the schedule, config checks, and results files that survive kill -9 with nothing
lost and nothing counted twice."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from othellolab.arena.openings import opening_set, random_openings
from othellolab.arena.ratings import fit_ratings, games_from_records
from othellolab.arena.results import (
    ResultsFile,
    format_moves,
    load_results,
    record_game,
    record_moves,
)
from othellolab.arena.tournament import pairing_results, run_tournament
from othellolab.arena.tournament_config import (
    Entrant,
    TournamentConfig,
    TournamentError,
    load_config,
    record_key,
    schedule,
)
from othellolab.core import Board, ConfigError, Limit
from othellolab.core.animal_shogi import AnimalShogi
from othellolab.records.ggf import read_ggf

from helpers import shared_file

PLAYERS = (Entrant("random", "random:seed=1"), Entrant("greedy", "greedy:seed=2"))


def config(**kw: object) -> TournamentConfig:
    base: dict[str, object] = {"players": PLAYERS, "games": 4, "size": 4, "openings": "random:2"}
    base.update(kw)
    return TournamentConfig(**base)  # type: ignore[arg-type]


def test_round_robin_schedule_swaps_colours_on_each_opening() -> None:
    three = (*PLAYERS, Entrant("mc", "montecarlo:playouts=4"))
    jobs = schedule(config(players=three, games=6))
    assert len(jobs) == 3 * 6 and len({j.key for j in jobs}) == len(jobs)
    for k in range(3):
        rnd = [j for j in jobs if j.round == k]
        assert len({j.opening for j in rnd}) == 1  # one opening per round, for every pairing
        for a, b in {j.pairing for j in rnd}:
            assert {(j.black, j.white) for j in rnd if j.pairing == (a, b)} == {(a, b), (b, a)}
    # Rounds come in order, so a tournament stopped early is still balanced.
    assert [j.round for j in jobs] == sorted(j.round for j in jobs)


def test_gauntlet_plays_the_tested_against_the_rest_and_mutual_adds_their_game() -> None:
    four = (*PLAYERS, Entrant("a", "random"), Entrant("b", "random"))
    g = config(players=four, mode="gauntlet", gauntlet=("a", "b"))
    assert sorted(g.pairings()) == [
        ("a", "greedy"),
        ("a", "random"),
        ("b", "greedy"),
        ("b", "random"),
    ]
    m = config(players=four, mode="gauntlet", gauntlet=("a", "b"), mutual=True)
    assert sorted(m.pairings()) == sorted([*g.pairings(), ("a", "b")])


def test_xot_openings_are_drawn_reproducibly_and_prefix_stable() -> None:
    path = str(shared_file("xot/openingssmall.txt"))
    three = opening_set(path, 3, seed=5)
    assert three == opening_set(path, 5, seed=5)[:3]  # more games keep the first openings
    assert three != opening_set(path, 3, seed=6)
    assert all(len(o) == 8 for o in three)
    rand = random_openings(4, 6, size=6, rng=__import__("numpy").random.default_rng(0))
    assert len(set(rand)) == 4 and all(len(o) == 6 for o in rand)
    for o in rand:
        Board.from_transcript(
            "".join(__import__("othellolab").square_name(a, 6) for a in o), size=6
        )


@pytest.mark.parametrize(
    ("change", "option", "message"),
    [
        ({"games": 3}, "games", "odd"),
        ({"games": 0}, "games", r"must be a whole number in 2\.\.100000, got 0"),
        ({"mode": "swiss"}, "mode", "swiss"),
        ({"mode": "gauntlet"}, "gauntlet", "needs labels"),
        ({"gauntlet": ("random",)}, "gauntlet", "only for mode"),
        ({"size": 5}, "size", "5"),
        ({"workers": 0}, "workers", r"must be a whole number in 1\.\.256, got 0"),
        ({"players": (PLAYERS[0], Entrant("random", "greedy"))}, "players", "duplicate labels"),
        ({"players": PLAYERS[:1]}, "players", "at least two"),
    ],
)
def test_bad_configs_name_the_option(change: dict, option: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message) as info:
        config(**change)
    assert info.value.option == option


def test_toml_config_rejects_unknown_keys_bad_limits_and_unquoted_dotted_labels(
    tmp_path: Path,
) -> None:
    path = tmp_path / "t.toml"
    base = 'games = 2\nsize = 4\n[players]\nrandom = "random"\ngreedy = "greedy"\n'
    path.write_text(base)
    assert load_config(path).labels == ["random", "greedy"]
    for text, message in [
        ("colour = 1\n" + base, r"option colour: unknown key\(s\) colour"),
        (
            base.replace("[players]", "limit = {time = nan}\n[players]"),
            r"option limit\.time: must be a finite number in 0\.001\.\.3600 \(seconds\), got nan",
        ),
        (base.replace("[players]", "limit = {depth = 2.5}\n[players]"), "limit.depth"),
        (
            base.replace("[players]", "limit = {moves = 2}\n[players]"),
            r"option limit\.moves: unknown",
        ),
        (base + 'ab.1 = "greedy"\n', "quote the label"),
        (base.replace("games = 2", 'games = "2"'), "option games: must be a whole number"),
    ]:
        path.write_text(text)
        with pytest.raises(ConfigError, match=message):
            load_config(path)
    path.write_text(base.replace("[players]", "limit = {time = 0.5, nodes = 1000}\n[players]"))
    assert load_config(path).limit == Limit(time=0.5, nodes=1000)


def test_run_resume_and_ggf_agree(tmp_path: Path) -> None:
    cfg = config(games=6)
    first = run_tournament(cfg, tmp_path, max_games=5)
    assert first.played == 5 and not first.complete
    rest = run_tournament(cfg, tmp_path)
    assert rest.played == len(schedule(cfg)) - 5 and rest.complete
    again = run_tournament(cfg, tmp_path)
    assert again.played == 0
    records = load_results(tmp_path)
    assert [record_key(r) for r in records] == [j.key for j in schedule(cfg)]
    games = list(read_ggf(tmp_path / "games.ggf"))
    assert len(games) == len(records)
    for game, r in zip(games, records, strict=True):
        assert game.score == r["score"] == game.recorded_score
        assert (
            game.headers["black"] == r["black"] and game.transcript() == record_game(r).transcript()
        )
    assert json.loads((tmp_path / "tournament.json").read_text())["players"] == {
        "random": "random:seed=1",
        "greedy": "greedy:seed=2",
    }


def test_a_torn_last_line_is_dropped_and_the_game_replayed(tmp_path: Path) -> None:
    cfg = config(games=4)
    run_tournament(cfg, tmp_path, max_games=3)
    results = tmp_path / "results.jsonl"
    whole = results.read_bytes()
    results.write_bytes(whole + whole.splitlines(keepends=True)[0][:40])  # a write cut short
    run = run_tournament(cfg, tmp_path)
    assert run.played == len(schedule(cfg)) - 3
    assert results.read_bytes().startswith(whole)
    assert len(load_results(tmp_path)) == len({record_key(r) for r in load_results(tmp_path)}) == 4


def test_corrupt_results_and_changed_terms_are_refused(tmp_path: Path) -> None:
    cfg = config(games=4)
    run_tournament(cfg, tmp_path, max_games=2)
    with pytest.raises(TournamentError, match="greedy was played as 'greedy:seed=2'"):
        run_tournament(config(players=(PLAYERS[0], Entrant("greedy", "greedy"))), tmp_path)
    with pytest.raises(TournamentError, match="differs from the scheduled"):
        run_tournament(config(games=4, seed=9), tmp_path)
    with pytest.raises(TournamentError, match="limit"):
        run_tournament(config(limit=Limit(time=1.0)), tmp_path)
    results = tmp_path / "results.jsonl"
    results.write_text("not json\n" + results.read_text())
    with pytest.raises(TournamentError, match="line 1 is not a results record"):
        run_tournament(cfg, tmp_path)


def test_one_writer_at_a_time(tmp_path: Path) -> None:
    with ResultsFile(tmp_path), pytest.raises(TournamentError, match="another tournament"):
        ResultsFile(tmp_path)
    ResultsFile(tmp_path).close()  # the lock went with the first


def test_two_workers_play_the_same_games(tmp_path: Path) -> None:
    cfg = config(games=8, size=6, openings="random:4")
    run = run_tournament(cfg, tmp_path / "two", workers=2)
    assert run.complete and run.played == 8
    keys = sorted(record_key(r) for r in run.records)
    assert keys == sorted(j.key for j in schedule(cfg))
    one = run_tournament(cfg, tmp_path / "one").records
    # Seeded players are seeded per game: the games are the same whichever process plays them.
    assert games_by_key(run.records) == games_by_key(one)
    assert len({r["moves"] for r in one}) > 1


def games_by_key(records: list[dict]) -> dict:
    return {record_key(r): (r["opening"], r["moves"], r["score"]) for r in records}


def test_a_resumed_tournament_plays_the_games_an_unbroken_one_plays(tmp_path: Path) -> None:
    cfg = config(games=8, size=6, openings="random:4")
    unbroken = run_tournament(cfg, tmp_path / "unbroken").records
    for stop in (1, 3, 6):
        out = tmp_path / f"stopped-{stop}"
        run_tournament(cfg, out, max_games=stop)
        run_tournament(cfg, out)
        assert games_by_key(load_results(out)) == games_by_key(unbroken)
    # The seed still decides: another seed plays other games.
    other = (Entrant("random", "random:seed=11"), PLAYERS[1])
    assert games_by_key(
        run_tournament(
            config(games=8, size=6, openings="random:4", players=other), tmp_path / "other"
        ).records
    ) != games_by_key(unbroken)


def test_kill_9_mid_tournament_then_resume_loses_nothing_and_repeats_nothing(
    tmp_path: Path,
) -> None:
    out = tmp_path / "match"
    argv = [
        sys.executable, "-m", "othellolab.cli", "arena", "match", "montecarlo:playouts=8,seed=1",
        "greedy:seed=2", "--games", "200", "--size", "6", "--openings", "random:4", "--out",
        str(out), "--quiet",
    ]  # fmt: skip
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    results = out / "results.jsonl"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        if results.exists() and results.read_bytes().count(b"\n") >= 10:
            break
        time.sleep(0.01)
    assert proc.poll() is None, "the match finished before it could be killed"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    before = results.read_bytes()
    kept = before[: before.rfind(b"\n") + 1]  # a torn last line is the only thing lost
    assert 10 <= kept.count(b"\n") < 200
    done = subprocess.run(argv, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    after = results.read_bytes()
    assert after.startswith(kept)
    records = load_results(out)
    assert len(records) == 200 == len({record_key(r) for r in records})
    assert len(list(read_ggf(out / "games.ggf"))) == 200


def test_a_failing_player_stops_the_tournament_naming_the_game(tmp_path: Path) -> None:
    cfg = config(players=(PLAYERS[1], Entrant("lost", "policy:model=/nonexistent/model")))
    with pytest.raises(TournamentError, match=r"greedy \(black\) vs lost \(white\), round 1: "):
        run_tournament(cfg, tmp_path)
    assert load_results(tmp_path) == []  # nothing half-played was recorded


# ----------------------------------------------------------------------------------------------
# Animal shogi: the same tournaments, records of move names, one game a folder

SHOGI_PLAYERS = (
    Entrant("random", "random:seed=1"),
    Entrant("ab1", "shogi-alphabeta:depth=1,seed=2"),
)


def shogi_config(**kw: object) -> TournamentConfig:
    base: dict[str, object] = {
        "players": SHOGI_PLAYERS,
        "games": 6,
        "game": "animal-shogi",
        "openings": "random:2",
    }
    base.update(kw)
    return TournamentConfig(**base)  # type: ignore[arg-type]


def test_animal_shogi_tournament_stopped_and_resumed_keeps_every_game_once(
    tmp_path: Path,
) -> None:
    cfg = shogi_config()
    first = run_tournament(cfg, tmp_path, max_games=4)
    assert first.played == 4 and not first.complete
    kept = (tmp_path / "results.jsonl").read_bytes()
    rest = run_tournament(cfg, tmp_path)
    assert rest.played == len(schedule(cfg)) - 4 == 2 and rest.complete
    assert run_tournament(cfg, tmp_path).played == 0
    assert (tmp_path / "results.jsonl").read_bytes().startswith(kept)
    records = load_results(tmp_path)
    assert [record_key(r) for r in records] == [j.key for j in schedule(cfg)]
    assert not (tmp_path / "games.ggf").exists()  # GGF is Othello's
    for r, job in zip(records, schedule(cfg), strict=True):
        assert r["game"] == "animal-shogi" and "size" not in r
        assert r["opening"] == format_moves(job.rules, job.opening)
        assert len(r["opening"].split()) == 2 and r["score"] in (-1, 0, 1)
        played = record_moves(r)
        assert played.moves[:2] == job.opening and played.headers["black"] == r["black"]
        end = AnimalShogi()
        for a in played.moves:
            end = end.play(a)
        assert end.is_game_over()
        assert r["score"] == (end.result() if end.turn == 0 else -end.result())
        assert format_moves(job.rules, played.moves[2:], start=job.opening) == r["moves"]
    ratings = fit_ratings(games_from_records(records), anchor="random")
    assert ratings["random"].rating == 0 and ratings["ab1"].games == 6
    results = pairing_results(records)[("ab1", "random")]
    assert results.n == 6 and str(results).endswith("%)")  # no disc difference in shogi
    frozen = json.loads((tmp_path / "tournament.json").read_text())
    assert frozen["game"] == "animal-shogi" and "size" not in frozen
    assert TournamentConfig.from_dict(frozen) == cfg


def test_a_folder_of_one_game_is_refused_for_the_other(tmp_path: Path) -> None:
    othello, shogi = tmp_path / "othello", tmp_path / "shogi"
    run_tournament(config(), othello, max_games=2)
    run_tournament(shogi_config(), shogi, max_games=2)
    ggf = (othello / "games.ggf").read_text()
    with pytest.raises(TournamentError, match="played othello, the config plays animal-shogi"):
        run_tournament(shogi_config(), othello)
    with pytest.raises(TournamentError, match="played animal-shogi, the config plays othello"):
        run_tournament(config(), shogi)
    assert (othello / "games.ggf").read_text() == ggf and not (shogi / "games.ggf").exists()
    # The refusals left both folders as they were, unlocked: each resumes with its own game.
    assert run_tournament(config(), othello).complete
    assert run_tournament(shogi_config(), shogi).complete
    assert len(load_results(othello)) == len(schedule(config()))
    assert len(load_results(shogi)) == len(schedule(shogi_config()))


def test_animal_shogi_config_checks(tmp_path: Path) -> None:
    xot = tmp_path / "openings.txt"
    xot.write_text("f5d6c3d3\n")
    for change, option, message in [
        ({"game": "chess"}, "game", "unknown game 'chess'"),
        ({"game": "Animal-Shogi"}, "game", "unknown game"),
        ({"size": 6}, "size", "the size is Othello's"),
        ({"openings": str(xot)}, "openings", r"takes random:N or none"),
    ]:
        with pytest.raises(ConfigError, match=message) as info:
            shogi_config(**change)
        assert info.value.option == option
    assert config(openings=str(xot)).game == "othello"  # lists stay Othello's
    with pytest.raises(ConfigError, match="takes random:N or none") as info:
        opening_set(str(xot), 2, game="animal-shogi")
    assert info.value.option == "openings"
    assert opening_set("none", 2, game="animal-shogi") == [(), ()]
    path = tmp_path / "t.toml"
    base = (
        'game = "animal-shogi"\ngames = 2\n[players]\nrandom = "random"\nab = "shogi-alphabeta"\n'
    )
    path.write_text(base)
    assert load_config(path).game == "animal-shogi"
    for text, option in [
        (base.replace('"animal-shogi"', "3"), "game"),
        (base.replace('"animal-shogi"', '"go"'), "game"),
        ("size = 4\n" + base, "size"),
    ]:
        path.write_text(text)
        with pytest.raises(ConfigError) as info:
            load_config(path)
        assert info.value.option == option


@pytest.mark.parametrize(
    ("make", "label", "message"),
    [
        (lambda: shogi_config(players=(*SHOGI_PLAYERS, Entrant("g", "greedy"))), "g",
         "plays othello, not animal-shogi"),
        (lambda: config(players=(*PLAYERS, Entrant("s", "shogi-alphabeta"))), "s",
         "plays animal-shogi, not othello"),
        (lambda: shogi_config(players=(*SHOGI_PLAYERS, Entrant("x", "nope"))), "x",
         "unknown player 'nope'"),
    ],
)  # fmt: skip
def test_an_entrant_that_does_not_play_the_game_is_refused_before_any_game(
    tmp_path: Path, make, label: str, message: str
) -> None:
    with pytest.raises(ConfigError, match=message) as info:
        run_tournament(make(), tmp_path / "out")
    assert f"player {label!r}" in str(info.value)
    assert not (tmp_path / "out").exists()  # nothing was played, not even a folder made


def test_games_in_this_process_get_one_compute_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    """A one-worker tournament plays in this process with one torch thread, as each worker
    process does, and gives the process its threads and environment back afterwards."""
    torch = pytest.importorskip("torch")
    from othellolab.arena import tournament

    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        with tournament._one_compute_thread():
            assert torch.get_num_threads() == 1 and os.environ["OMP_NUM_THREADS"] == "1"
        assert torch.get_num_threads() == 2 and "OMP_NUM_THREADS" not in os.environ
    finally:
        torch.set_num_threads(before)
