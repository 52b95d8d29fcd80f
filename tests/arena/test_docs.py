"""docs/arena.md against the code: the config and record tables, the NBoard command table, and
the ladder table against the shipped ratings."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from othellolab.arena.ladder import LADDER_JSON, REPRESENTATIVES, shipped_ratings
from othellolab.arena.tournament import PlayerCache, play_job
from othellolab.arena.tournament_config import GameJob, load_config
from othellolab.protocols.nboard_engine import NBoardEngine

REPO = Path(__file__).resolve().parents[2]
DOC = (REPO / "docs" / "arena.md").read_text()


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


def test_record_table_lists_every_field() -> None:
    job = GameJob(("greedy", "random"), 0, "greedy", "random", "greedy", "random", (), 4)
    record = play_job(job, PlayerCache())
    assert first_column("record") == set(record)


def test_nboard_table_covers_every_command() -> None:
    engine = NBoardEngine(object(), output=io.StringIO())  # type: ignore[arg-type]
    documented = {c.split()[0] for c in first_column("nboard")}
    assert set(engine._commands) | {"quit"} <= documented


def test_ladder_table_shows_the_shipped_ratings() -> None:
    """Each shipped rating (``arena/data/ladder.json``) is its label's row of the ladder table;
    that both are a fit of the kept games is experiments/ladder's own check."""
    shipped = shipped_ratings()
    assert LADDER_JSON.exists() and set(shipped) == set(REPRESENTATIVES)
    rows = {
        cells[2].split(" (")[0].strip("` "): cells[3:6]
        for line in section("ladder").splitlines()
        if line.startswith("|") and len(cells := line.split("|")) > 6
    }
    for name, entry in shipped.items():
        assert entry["label"] == REPRESENTATIVES[name]
        elo, interval, games = rows[entry["label"]]
        assert float(elo) == pytest.approx(entry["elo"], abs=0.51), name
        if entry["label"] != "random":  # the anchor's interval reads "anchor"
            low, high = (float(x) for x in interval.split(" to "))
            assert (low, high) == pytest.approx((entry["low"], entry["high"]), abs=0.51), name
        assert int(games) == entry["games"], name


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
    assert paths, "configs/ has no tournament config"
    for path in paths:
        config = load_config(path)
        assert config.players, path.name
        for entrant in config.players:
            name, options = parse_spec(entrant.spec)
            unknown = set(options) - set(get_entry(name).spec_options())
            assert not unknown, f"{path.name}: {entrant.label} has unknown options {unknown}"
