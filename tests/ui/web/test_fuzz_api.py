"""Every endpoint of the web API under random and hostile JSON: each answer is a 2xx or a 4xx
whose ``detail`` says what was wrong, never a 500 and never a hang (the opponents a client
may name are capped by the server's deadline)."""

from __future__ import annotations

import json
import time

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from othellolab.ui.web import create_app

from helpers import fuzz_examples

MAX_THINK = 0.3


@pytest.fixture(scope="module")
def client():
    app = create_app(
        opponent="greedy:seed=1",
        hint="greedy:seed=2",
        max_think_time=MAX_THINK,
        max_analysis_time=2 * MAX_THINK,
    )
    with TestClient(app, raise_server_exceptions=False) as c:
        # A body may name animal shogi, whose default players are networks: load the network
        # code once here, not inside an example's time guard.
        assert c.post("/api/games", json={"game": "animal-shogi"}).status_code == 201
        yield c


@pytest.fixture(scope="module")
def shogi_client():
    """Cheap players of animal shogi (no network to load), that report scores for analyses."""
    app = create_app(
        opponent="random:seed=1",
        hint="negamax",
        max_think_time=MAX_THINK,
        max_analysis_time=2 * MAX_THINK,
    )
    with TestClient(app, raise_server_exceptions=False) as c:
        yield c


SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=30),
    st.sampled_from(["f5", "pass", "PA", "a1", "h8", "8", "8.0", "black", "white", "random",
                     "both", "ggf", "auto", "transcript", "greedy", "alphabeta:time=nan",
                     "mcts:sims=100000000", "policy:model=/etc", "endgame:max_empties=60",
                     "f5d6c3d3c4", "(;GM[Othello]KM[inf];)", "(;GM[Othello]RE[+1e999];)",
                     "animal-shogi", "othello6", "sente", "gote", "first", "b3b2", "C*b2",
                     "b2b1+", "gle/1c1/1C1/ELG b - 1", "L2/3/2l/3 w - 9", "9/9/9/9 b - 1"]),
)  # fmt: skip
JSON = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=8,
)
NEW_GAME_KEYS = ["game", "size", "human", "opponent", "position", "record", "record_format",
                 "ply", "think_time", "seed", "bogus"]  # fmt: skip


def check(response) -> None:
    assert response.status_code < 500, f"{response.status_code}: {response.text}"
    if response.status_code >= 400:
        detail = response.json()["detail"]
        assert isinstance(detail, str) and detail


@settings(
    max_examples=fuzz_examples(120),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    body=st.dictionaries(st.sampled_from(NEW_GAME_KEYS), JSON, max_size=5) | JSON,
    action=st.sampled_from(["move", "goto", "undo", "redo", "ai-move", "hint", "analyse"]),
    follow=JSON,
)
def test_random_bodies_get_a_clear_answer(client, body, action: str, follow) -> None:
    t0 = time.monotonic()
    r = client.post("/api/games", json=body)
    check(r)
    game_id = r.json()["id"] if r.status_code == 201 else "nope"
    check(client.post(f"/api/games/{game_id}/{action}", json=follow))
    check(client.get(f"/api/games/{game_id}"))
    assert time.monotonic() - t0 < 3 * MAX_THINK + 5


@settings(max_examples=fuzz_examples(60), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip
@given(
    body=st.dictionaries(st.sampled_from(NEW_GAME_KEYS), JSON, max_size=4),
    moves=st.lists(st.sampled_from(["b3b2", "C*b2", "G*a2", "b2b1+", "c1b2", "pass", "zz"])),
    action=st.sampled_from(["hint", "analyse", "undo"]),
    follow=JSON,
)
def test_random_animal_shogi_games_get_a_clear_answer(
    shogi_client, body, moves, action, follow
) -> None:
    client = shogi_client
    t0 = time.monotonic()
    r = client.post("/api/games", json={**body, "game": "animal-shogi"})
    check(r)
    game_id = r.json()["id"] if r.status_code == 201 else "nope"
    for move in moves:
        check(client.post(f"/api/games/{game_id}/move", json={"move": move}))
    check(client.post(f"/api/games/{game_id}/{action}", json=follow))
    assert time.monotonic() - t0 < 3 * MAX_THINK + 5


@settings(max_examples=fuzz_examples(60), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip
@given(raw=st.binary(max_size=200) | JSON.map(lambda v: json.dumps(v).encode()))
def test_random_bytes_get_a_clear_answer(client, raw: bytes) -> None:
    check(client.post("/api/games", content=raw, headers={"Content-Type": "application/json"}))


@pytest.mark.parametrize(
    ("body", "status", "says"),
    [
        (b'{"size": 8.0}', 422, "valid integer"),
        (b'{"size": "8"}', 422, "valid integer"),
        (b'{"size": true}', 422, "valid integer"),
        (b'{"size": 6, "size": 8}', 422, "'size' appears twice"),
        (b'{"think_time": NaN}', 422, "NaN is not a JSON number"),
        (b'{"think_time": Infinity}', 422, "Infinity is not a JSON number"),
        (b"[" * 100 + b"]" * 100, 422, "nested 100 levels deep"),
        (b'{"opponent": "alphabeta:time=nan"}', 422, "option time"),
        (b'{"opponent": "mcts:sims=1e400"}', 422, "option sims"),
        (b'{"opponent": "policy:device=cuda"}', 422, "option device"),
        (b'{"opponent": "policy:model=/etc"}', 422, "is not one of this server's models"),
        (b'{"opponent": "policy:model=/nonexistent"}', 422, "is not one of this server's models"),
        (b'{"think_time": 60}', 422, "over this server's maximum"),
        (b'{"record": "(;GM[Othello]RE[+2]KM[inf]B[f5];)"}', 422, "KM[inf]"),
        (b'{"record": "\xff"}', 422, "not UTF-8 text (byte 12 is 0xff)"),  # was a bare 400
    ],
)
def test_reproducers(client, body: bytes, status: int, says: str) -> None:
    r = client.post("/api/games", content=body, headers={"Content-Type": "application/json"})
    assert r.status_code == status, r.text
    assert says in r.json()["detail"]


def test_a_model_path_error_does_not_tell_whether_the_path_exists(client) -> None:
    answers = []
    for path in ("/etc", "/nonexistent", "/work", "../../etc/passwd"):
        r = client.post("/api/games", json={"opponent": f"policy:model={path}"})
        answers.append(r.json()["detail"].replace(path, "PATH"))
    assert len(set(answers)) == 1, answers


@pytest.mark.parametrize("length", ["²", "9" * 5000, "-1", "1e3", "99999999"])
def test_a_strange_content_length_is_refused(client, length: str) -> None:
    headers = {"Content-Type": "application/json", "Content-Length": length.encode("latin-1")}
    r = client.post("/api/games", content=b"{}", headers=headers)
    assert r.status_code in (400, 413, 422), r.text
