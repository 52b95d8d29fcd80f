"""The ladder's records against what was drawn from them: the table of docs/arena.md and the
package's shipped ratings (``arena/data/ladder.json``) are a fresh fit of the results kept here,
and every player of the four stages' configs played (``make test-experiments`` runs it)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from othellolab.arena.ladder import LADDER_JSON, REPRESENTATIVES, shipped_ratings
from othellolab.arena.ratings import fit_ratings, games_from_records
from othellolab.arena.results import load_results
from othellolab.arena.tournament_config import load_config

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
STAGES = (
    REPO / "configs" / "ladder.toml",
    HERE / "ladder-1s.toml",
    HERE / "ladder-engine.toml",
    HERE / "ladder-network.toml",
)


def ladder_section() -> str:
    doc = (REPO / "docs" / "arena.md").read_text()
    m = re.search(r"<!-- arena:ladder -->\n(.*?)<!-- /arena:ladder -->", doc, re.S)
    assert m, "docs/arena.md has no arena:ladder section"
    return m.group(1)


@pytest.fixture(scope="module")
def ladder():
    records = load_results(HERE)
    specs = {r["black"]: r["black_spec"] for r in records} | {
        r["white"]: r["white_spec"] for r in records
    }
    return fit_ratings(games_from_records(records)), specs


def test_ladder_table_is_a_fit_of_the_kept_results(ladder) -> None:
    ratings, specs = ladder
    assert ratings.table(specs=specs) in ladder_section()
    assert ratings.summary() in ladder_section()
    labels = {e.label for stage in STAGES for e in load_config(stage).players}
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
