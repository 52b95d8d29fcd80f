"""The opponent list carries the strength ladder's ratings, and the web board never starts an
external engine, whatever a request asks."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from othellolab.arena.ladder import shipped_ratings
from othellolab.ui.web import create_app


@pytest.fixture(scope="module")
def client():
    with TestClient(create_app(opponent="greedy:seed=1", hint="greedy:seed=2")) as c:
        yield c


def test_players_carry_their_ladder_rating(client: TestClient) -> None:
    players = {p["name"]: p for p in client.get("/api/players").json()["players"]}
    shipped = shipped_ratings()
    assert shipped, "the package ships no ladder ratings (othellolab/arena/data/ladder.json)"
    for name, rating in shipped.items():
        assert players[name]["rating"] == rating
        assert rating["low"] <= rating["elo"] <= rating["high"]
    assert players["random"]["rating"]["elo"] == 0  # the anchor
    assert players["endgame"]["rating"] is None  # not in the ladder


def test_external_engines_are_neither_listed_nor_started(client: TestClient) -> None:
    assert "nboard" not in {p["name"] for p in client.get("/api/players").json()["players"]}
    r = client.post("/api/games", json={"opponent": "nboard:cmd='touch /tmp/pwned'"})
    assert r.status_code == 422 and "does not start external engines" in r.text
