"""docs/arena.md against the code: the config and record tables, the NBoard command table, and
the ladder table and shipped ratings against a fresh fit of the committed results."""

from __future__ import annotations

import io
import re
from dataclasses import fields
from pathlib import Path

import pytest

from othellolab.arena.ladder import LADDER_JSON, REPRESENTATIVES, shipped_ratings
from othellolab.arena.ratings import fit_ratings, games_from_records
from othellolab.arena.results import load_results
from othellolab.arena.tournament import PlayerCache, play_job
from othellolab.arena.tournament_config import GameJob, TournamentConfig, load_config
from othellolab.protocols.nboard_engine import NBoardEngine

REPO = Path(__file__).resolve().parents[2]
DOC = (REPO / "docs" / "arena.md").read_text()
LADDER = REPO / "docs" / "arena" / "ladder"


def section(name: str) -> str:
    m = re.search(rf"<!-- arena:{name} -->\n(.*?)<!-- /arena:{name} -->", DOC, re.S)
    assert m, f"docs/arena.md has no arena:{name} section"
    return m.group(1)


def first_column(name: str) -> set[str]:
    out = set()
    for line in section(name).splitlines()[2:]:
        if line.startswith("|"):
            out |= set(re.findall(r"`([^`]+)`", line.split("|")[1]))
    return out


def test_config_table_lists_every_key() -> None:
    assert first_column("config") == {f.name for f in fields(TournamentConfig)}


def test_record_table_lists_every_field() -> None:
    job = GameJob(("greedy", "random"), 0, "greedy", "random", "greedy", "random", (), 4)
    record = play_job(job, PlayerCache())
    assert first_column("record") == set(record)


def test_nboard_table_covers_every_command() -> None:
    engine = NBoardEngine(object(), output=io.StringIO())  # type: ignore[arg-type]
    documented = {c.split()[0] for c in first_column("nboard")}
    assert set(engine._commands) | {"quit"} <= documented


@pytest.fixture(scope="module")
def ladder():
    records = load_results(LADDER)
    specs = {r["black"]: r["black_spec"] for r in records} | {
        r["white"]: r["white_spec"] for r in records
    }
    return fit_ratings(games_from_records(records)), specs


def test_ladder_table_is_a_fit_of_the_committed_results(ladder) -> None:
    ratings, specs = ladder
    assert ratings.table(specs=specs) in section("ladder")
    assert ratings.summary() in section("ladder")
    labels = {
        e.label
        for c in ("ladder.toml", "ladder-1s.toml", "ladder-engine.toml", "ladder-network.toml")
        for e in load_config(REPO / "configs" / c).players
    }
    assert set(ratings.labels) == labels  # every configured player played


def test_shipped_ratings_are_the_ladders(ladder) -> None:
    ratings, specs = ladder
    shipped = shipped_ratings()
    assert LADDER_JSON.exists() and set(shipped) == set(REPRESENTATIVES)
    for name, entry in shipped.items():
        r = ratings[REPRESENTATIVES[name]]
        assert entry["spec"] == specs[r.label]
        assert entry["elo"] == pytest.approx(r.rating, abs=0.06)
        assert entry["low"] == pytest.approx(r.low, abs=0.06)


def test_animal_shogi_record_table_lists_what_differs_from_othello() -> None:
    othello = GameJob(("greedy", "random"), 0, "greedy", "random", "greedy", "random", (), 4)
    shogi = GameJob(
        ("random", "shogi-alphabeta"), 0, "random", "shogi-alphabeta", "random",
        "shogi-alphabeta:depth=1", (), game="animal-shogi",
    )  # fmt: skip
    players = PlayerCache()
    fields_of = set(play_job(othello, players)), set(play_job(shogi, players))
    assert fields_of[1] == (fields_of[0] - {"size"}) | {"game"}
    assert first_column("shogi-record") <= fields_of[1]
    assert "game" in first_column("shogi-record")


def test_every_shipped_tournament_config_loads() -> None:
    """Each arena config in configs/ (a ``[players]`` table) loads, and each player's spec
    names a registered player with known options, so a documented command never fails late."""
    from othellolab.players.registry import get_entry, parse_spec

    configs = sorted((REPO / "configs").glob("*.toml"))
    paths = [p for p in configs if "\n[players]" in p.read_text()]
    assert len(paths) >= 7
    for path in paths:
        config = load_config(path)
        assert config.players, path.name
        for entrant in config.players:
            name, options = parse_spec(entrant.spec)
            unknown = set(options) - set(get_entry(name).spec_options())
            assert not unknown, f"{path.name}: {entrant.label} has unknown options {unknown}"
