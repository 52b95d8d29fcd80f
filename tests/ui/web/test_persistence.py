"""Every game kept: the games database survives a restart of the app (moves, players,
settings, the AI's evaluations, the analysis) and a kill -9 of ``othellolab serve`` between
two requests; the kept games are listed, exported (GGF read back by the records package,
transcript) and deleted."""

from __future__ import annotations

import os
import signal
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from othellolab import Board
from othellolab.records.ggf import parse_ggf
from othellolab.ui.web import create_app
from othellolab.ui.web.gamedb import GameDB

from helpers import serve_subprocess


def test_a_restarted_app_serves_every_game_under_its_old_id(tmp_path: Path) -> None:
    db = tmp_path / "games.sqlite3"
    with TestClient(create_app(opponent="greedy", hint="endgame", db=db)) as client:
        game = client.post(
            "/api/games", json={"size": 4, "human": "white", "opponent": "endgame"}
        ).json()
        path = f"/api/games/{game['id']}"
        state = client.post(path + "/ai-move").json()
        state = client.post(path + "/move", json={"move": state["legal"][0]}).json()
        state = client.post(path + "/ai-move").json()
        state = client.post(path + "/analyse", json={"time_per_move": 0.2}).json()
        assert state["analysis"] is not None and state["evaluation"] is not None
        other = client.post("/api/games", json={"human": "both"}).json()
        before = client.get(path).json()
    assert GameDB(db).list()[1] == 2

    with TestClient(create_app(opponent="greedy", db=db)) as client:
        after = client.get(path).json()
        assert after == before  # the moves, cursor, evaluations, analysis, version
        listed = client.get("/api/games").json()
        assert listed["total"] == 2
        assert {g["id"] for g in listed["games"]} == {game["id"], other["id"]}
        row = next(g for g in listed["games"] if g["id"] == game["id"])
        assert row["moves"] == 3 and row["opponent"] == "endgame" and row["human"] == "white"
        # It plays on where it stopped.
        state = client.post(path + "/move", json={"move": after["legal"][0]}).json()
        assert state["ply"] == 4

        ggf = client.get(path + "/export", params={"format": "ggf"})
        assert ggf.status_code == 200 and "attachment" in ggf.headers["content-disposition"]
        (record,) = list(parse_ggf(ggf.text))
        board = Board(size=4)
        for m in state["moves"]:
            board = board.play(m)
        assert record.start == Board(size=4) and record.final_board == board
        assert record.headers["white"] == "human" and record.headers["black"] == "endgame"
        text = client.get(path + "/export", params={"format": "transcript"}).text.strip()
        assert text == state["transcript"]
        bad = client.get(path + "/export", params={"format": "pgn"})
        assert bad.status_code == 422 and "format: 'pgn' is not one of" in bad.json()["detail"]

        assert client.delete(path).status_code == 204
        assert client.get(path).status_code == 404
        assert client.get("/api/games").json()["total"] == 1
        assert client.get("/api/games", params={"limit": 0}).status_code == 422


def test_a_database_that_is_not_one_is_named_in_the_error(tmp_path: Path) -> None:
    bad = tmp_path / "not-a-db.sqlite3"
    bad.write_bytes(b"this is not SQLite" * 100)
    with pytest.raises(ValueError, match="db: .*not-a-db.sqlite3.* is not a usable games database"):
        GameDB(bad)


def serve_process(db: Path) -> Any:
    """``othellolab serve --db DB`` (greedy, one search worker) in a subprocess."""
    return serve_subprocess(
        "--db", str(db), "--opponent", "greedy", "--search-workers", "1", env={"DISPLAY": ""}
    )


@pytest.mark.slow
def test_kill_9_between_two_requests_loses_nothing_that_was_answered(tmp_path: Path) -> None:
    """Play over HTTP, SIGKILL the server right after an answer (once after the human's move,
    once after the AI's), start it again on the same file: the game is as last answered."""
    db = tmp_path / "games.sqlite3"
    with serve_process(db) as (url, proc), httpx.Client(base_url=url, timeout=60) as http:
        state = http.post("/api/games", json={"human": "black"}).json()
        path = f"/api/games/{state['id']}"
        state = http.post(path + "/move", json={"move": "f5"}).json()
        state = http.post(path + "/ai-move").json()
        state = http.post(path + "/move", json={"move": state["legal"][0]}).json()
        assert state["ply"] == 3
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(30)
    with serve_process(db) as (url, proc), httpx.Client(base_url=url, timeout=60) as http:
        after = http.get(path).json()
        assert after == state
        state = http.post(path + "/ai-move").json()
        assert state["ply"] == 4 and state["evaluation"]["ply"] == 3
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(30)
    with serve_process(db) as (url, _), httpx.Client(base_url=url, timeout=60) as http:
        assert http.get(path).json() == state
        assert [g["id"] for g in http.get("/api/games").json()["games"]] == [state["id"]]
