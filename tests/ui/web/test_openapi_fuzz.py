"""The web API fuzzed from its own OpenAPI schema (schemathesis, in process over ASGI): every
operation, with paths, queries and bodies that fit the schema and ones that break it, on games
that exist (fresh, the AI to move, over, in replay) as well as on unknown ids. No answer is a
5xx, its status is one the schema declares, and its headers and body validate against what the
schema declares for it. ``OTHELLOLAB_FUZZ_EXAMPLES`` sets a long run (docs/limits.md)."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings

from othellolab import Board
from othellolab.ui.web import create_app

from helpers import fuzz_examples

schemathesis = pytest.importorskip("schemathesis", reason="the schemathesis package is absent")

CONFIG = schemathesis.Config.from_dict(
    {
        "checks": {
            # A body the schema allows may still be refused for what it means (an unknown
            # player, an illegal move, 8.0 where a whole number is due): those are 4xx with a
            # reason, which the other checks validate. A body the schema forbids may also be
            # refused as too large (413) before it is read.
            "positive_data_acceptance": {"enabled": False},
            "negative_data_rejection": {"expected-statuses": [400, 404, 409, 413, 422, 429]},
        }
    }
)


def finished_4x4() -> str:
    """A whole 4x4 game (each side plays its first legal move), as a transcript."""
    board, moves = Board(size=4), []
    while not board.is_game_over():
        if board.must_pass():
            board = board.play_pass()
            continue
        square = min(board.legal_moves)
        moves.append("abcd"[square % 4] + str(square // 4 + 1))
        board = board.play(square)
    return "".join(moves)


@pytest.fixture(scope="module")
def client():
    app = create_app(
        opponent="greedy:seed=1",
        hint="greedy:seed=2",
        max_think_time=0.05,
        max_analysis_time=0.2,
    )
    with TestClient(app) as c:  # runs the app's lifespan for the whole module
        yield c


def without_lifespan(app):
    """``app`` for schemathesis's client, which would start and stop its lifespan around each
    test (its pytest plugin does): the ``client`` fixture runs it once."""

    async def serve(scope, receive, send) -> None:
        if scope["type"] == "lifespan":
            raise RuntimeError("no lifespan here: the client fixture runs it")
        await app(scope, receive, send)

    return serve


@pytest.fixture(scope="module")
def games() -> list[dict]:
    """Bodies of new games in different states, to run the game operations on."""
    return [
        {"size": 8, "human": "black"},
        {"size": 8, "human": "white"},  # the AI to move
        {"size": 4, "record": finished_4x4()},  # over
        {"size": 6, "record": "c2b2", "ply": 1},  # in replay, a move to redo
        {"size": 8, "human": "both", "record": "f5d6c3"},
    ]


OPERATIONS = [
    ("GET", "/api/players"),
    ("POST", "/api/games"),
    ("GET", "/api/games"),
    ("GET", "/api/games/{game_id}"),
    ("DELETE", "/api/games/{game_id}"),
    ("GET", "/api/games/{game_id}/export"),
    ("POST", "/api/games/{game_id}/move"),
    ("POST", "/api/games/{game_id}/undo"),
    ("POST", "/api/games/{game_id}/redo"),
    ("POST", "/api/games/{game_id}/goto"),
    ("POST", "/api/games/{game_id}/ai-move"),
    ("POST", "/api/games/{game_id}/hint"),
    ("POST", "/api/games/{game_id}/analyse"),
]


@pytest.fixture(scope="module")
def api_schema(client):
    return schemathesis.openapi.from_asgi(
        "/openapi.json", without_lifespan(client.app), config=CONFIG
    )


def test_the_fuzzed_operations_are_every_operation(api_schema) -> None:
    operations = [result.ok() for result in api_schema.get_all_operations()]
    assert sorted((op.method.upper(), op.path) for op in operations) == sorted(OPERATIONS)


@pytest.mark.parametrize("mode", ["positive", "negative"])
@pytest.mark.parametrize(("method", "path"), OPERATIONS)
def test_every_operation_answers_as_its_schema_says(
    api_schema, client, games, method: str, path: str, mode: str
) -> None:
    """Requests that fit the operation's schema (positive) and that break it (negative). Most
    cases on a game id run on a game just created (its kind chosen by the generated id, so
    that a failing case replays), the others on the generated id."""
    operation = api_schema[path][method]
    if mode == "negative" and not (operation.query or operation.body):
        pytest.skip("nothing to break: its only parameter is a free-text game id")

    @settings(
        max_examples=fuzz_examples(15),
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    )
    @given(case=operation.as_strategy(generation_mode=schemathesis.GenerationMode(mode)))
    def check(case) -> None:
        game_id = (case.path_parameters or {}).get("game_id")
        if game_id is not None and len(game_id) % 4 != 3:
            created = client.post("/api/games", json=games[len(game_id) % len(games)])
            assert created.status_code == 201, created.text
            case.path_parameters["game_id"] = created.json()["id"]
        case.call_and_validate()

    check()


def test_every_error_is_declared_as_json(client) -> None:
    """Errors are JSON on every route, the plain-text export's included (its 404 was declared
    as text/plain), and a 429 or 503 declares its ``Retry-After``."""
    spec = client.get("/openapi.json").json()
    export = spec["paths"]["/api/games/{game_id}/export"]["get"]["responses"]
    assert list(export["200"]["content"]) == ["text/plain"]
    for path, operations in spec["paths"].items():
        for method, operation in operations.items():
            for code, response in operation["responses"].items():
                if code.startswith("2"):
                    continue
                assert list(response["content"]) == ["application/json"], (method, path, code)
                assert ("Retry-After" in response.get("headers", {})) == (code in ("429", "503"))
            assert "429" in operation["responses"], (method, path)
    r = client.get("/api/games/nope/export")
    assert r.status_code == 404 and r.headers["content-type"] == "application/json"
