"""The web board's HTTP API through FastAPI's TestClient: a legal game to the end, loading and
replaying records (Logistello's game book), undo/redo, hints, and every kind of bad input."""

from __future__ import annotations

import gzip
import re
from importlib import resources

import numpy as np
import pytest
from fastapi.testclient import TestClient

from othellolab import Board
from othellolab.core import (
    BLACK,
    Limit,
    PlayResult,
    Score,
    format_transcript,
    parse_transcript,
)
from othellolab.players import GreedyPlayer, Player, register_player
from othellolab.ui.web import create_app

from helpers import shared_file


class ScoredGreedy(Player):
    """Greedy moves with a fixed score (+5 for the side to move) and a policy: a player whose
    report the page must turn to the human's point of view."""

    name = "webtest-scored"

    def __init__(self, *, seed: int = 0) -> None:
        self.inner = GreedyPlayer(seed=seed)

    def choose(self, board: Board, limit: Limit | None = None) -> PlayResult:
        r = self.inner.choose(board, limit)
        return PlayResult(r.move, policy=r.policy, score=Score(5.0, win_prob=0.75))


register_player("webtest-scored", ScoredGreedy, "test player: greedy with a score", strength=-100)


@pytest.fixture(scope="module")
def client():
    with TestClient(create_app(opponent="greedy:seed=1", hint="greedy:seed=2")) as c:
        yield c


def new_game(client: TestClient, **body) -> dict:
    r = client.post("/api/games", json=body)
    assert r.status_code == 201, r.text
    return r.json()


def post(client: TestClient, game: dict, action: str, body: dict | None = None) -> dict:
    r = client.post(f"/api/games/{game['id']}/{action}", json=body)
    assert r.status_code == 200, r.text
    return r.json()


def board_cells(board: Board) -> list[int]:
    n = board.size * board.size
    return [1 if board.black >> i & 1 else 2 if board.white >> i & 1 else 0 for i in range(n)]


def play_out(client: TestClient, state: dict, rng: np.random.Generator) -> dict:
    """Random human moves against the AI until the game ends, checking each state."""
    for _ in range(200):
        if state["game_over"]:
            return state
        if state["to_move"] == "ai":
            state = post(client, state, "ai-move")
        elif state["must_pass"]:
            assert state["legal"] == []
            state = post(client, state, "move", {"move": "pass"})
        else:
            move = state["legal"][int(rng.integers(len(state["legal"])))]
            state = post(client, state, "move", {"move": move})
    raise AssertionError("game did not end in 200 requests")


def test_players_lists_the_registry_with_options(client: TestClient) -> None:
    data = client.get("/api/players").json()
    names = [p["name"] for p in data["players"]]
    assert {"greedy", "random"} <= set(names)
    assert "shogi-alphabeta" not in names  # the web board plays Othello only
    greedy = data["players"][names.index("greedy")]
    assert greedy["options"] == {"seed": None}
    assert data["default_opponent"] == "greedy:seed=1"
    assert data["formats"] == ["auto", "transcript", "ggf"]


@pytest.mark.parametrize(
    ("size", "human"), [(8, "black"), (8, "white"), (6, "black"), (4, "white")]
)
def test_a_legal_game_to_the_end_agrees_with_the_engine(client: TestClient, size, human) -> None:
    state = new_game(client, size=size, human=human, opponent="greedy:seed=3")
    assert state["cells"] == board_cells(Board(size=size))
    final = play_out(client, state, np.random.default_rng(size))
    # Replaying the recorded moves (passes explicit) with the core rules gives the same game.
    board = Board(size=size)
    for name in final["moves"]:
        board = board.play(name)
    assert board.is_game_over()
    assert final["cells"] == board_cells(board)
    assert Board.from_transcript(final["transcript"], size=size) == board
    outcome = board.outcome()
    b, w = outcome.final_counts()
    assert final["result"]["text"] == str(outcome)
    assert (final["result"]["black"], final["result"]["white"]) == (b, w)
    colour = BLACK if human == "black" else 1 - BLACK
    assert final["result"]["human_score"] == outcome.score(colour)
    assert final["to_move"] == "nobody" and final["legal"] == []
    assert final["black_discs"] == board.disc_count(BLACK)


def test_undo_redo_and_a_new_branch(client: TestClient) -> None:
    state = new_game(client, human="black")
    assert not state["can_undo"] and not state["can_redo"]
    state = post(client, state, "move", {"move": "f5"})
    assert state["to_move"] == "ai" and state["last_move"] == "f5"
    state = post(client, state, "ai-move")
    assert state["ply"] == 2 and state["to_move"] == "human"
    reply = state["moves"][1]
    state = post(client, state, "undo")
    assert state["ply"] == 0 and state["can_redo"] and state["moves"] == ["f5", reply]
    assert state["cells"] == board_cells(Board())
    state = post(client, state, "redo")
    assert state["ply"] == 2 and not state["can_redo"]
    state = post(client, state, "goto", {"ply": 0})
    # Replaying the recorded move keeps the rest of the record for redo...
    state = post(client, state, "move", {"move": "f5"})
    assert state["ply"] == 1 and state["moves"] == ["f5", reply]
    # ...a different move replaces it.
    state = post(client, state, "goto", {"ply": 0})
    state = post(client, state, "move", {"move": "d3"})
    assert state["moves"] == ["d3"] and not state["can_redo"]


def test_load_a_logistello_game_and_step_through_it(client: TestClient) -> None:
    """Games 2 and 3 of Logistello's book: one has a white pass, one black's; the book gives
    black's final disc difference (+00 and +02), which the replayed result must match."""
    path = shared_file("logistello/logbook.gam.gz")
    with gzip.open(path, "rt") as f:
        lines = [next(f) for _ in range(3)][1:]
    for line in lines:
        moves, score = line.split(":")
        transcript = moves.replace("+", "").replace("-", "").strip()
        expected = int(score.split()[0])
        state = new_game(client, record=transcript, human="both", ply=0)
        actions = parse_transcript(transcript)
        assert state["ply"] == 0 and len(state["moves"]) == len(actions)
        assert "pass" in state["moves"]
        board = Board()
        for ply, action in enumerate(actions, 1):
            board = board.play(action)
            if ply % 7 == 0 or ply == len(actions):
                state = post(client, state, "goto", {"ply": ply})
                assert state["cells"] == board_cells(board)
        assert state["game_over"]
        assert state["black_discs"] - state["white_discs"] == expected
        assert state["transcript"] == transcript


def test_hint_reports_a_legal_move_and_policy(client: TestClient) -> None:
    state = new_game(client, size=6)
    state = post(client, state, "hint")
    hint = state["hint"]
    assert hint["by"] == "hint" and hint["ply"] == 0
    assert hint["move"] in state["legal"]
    assert len(hint["policy"]) == 37 and abs(sum(hint["policy"]) - 1) < 1e-3
    state = post(client, state, "move", {"move": hint["move"]})
    assert state["hint"] is None


def test_the_ai_evaluation_is_shown_from_the_humans_point_of_view(client: TestClient) -> None:
    state = new_game(client, human="black", opponent="webtest-scored")
    state = post(client, state, "move", {"move": "f5"})
    state = post(client, state, "ai-move")
    ev = state["evaluation"]
    # The player said +5 for itself (white, to move); the human (black) sees -5.
    assert ev["by"] == "ai" and ev["ply"] == 1 and ev["value"] == -5.0 and ev["unit"] == "discs"
    assert ev["win_prob"] == 0.25
    assert ev["move"] == state["last_move"] and len(ev["policy"]) == 65


def test_an_mcts_opponent_reports_a_result_and_its_visit_policy(client: TestClient) -> None:
    """MCTS scores positions as results in [-1, 1] (``Score.unit``): the page must say so."""
    state = new_game(client, size=6, opponent="mcts:sims=100,seed=1")
    state = post(client, state, "move", {"move": state["legal"][0]})
    state = post(client, state, "ai-move")
    ev = state["evaluation"]
    assert ev["unit"] == "result" and -1 <= ev["value"] <= 1
    assert 0 <= ev["win_prob"] <= 1
    assert len(ev["policy"]) == 37 and abs(sum(ev["policy"]) - 1) < 1e-3
    assert ev["move"] == state["last_move"]


def test_the_ai_passes_when_it_must(client: TestClient) -> None:
    """On 4x4 passes are common: random games until the AI has had to pass; its pass is
    recorded and the game still replays to its end with the core rules."""
    rng = np.random.default_rng(0)
    for _ in range(50):
        state = new_game(client, size=4, human="black", opponent="random:seed=5")
        seen_ai_pass = False
        while not state["game_over"]:
            before = state["ply"]
            if state["to_move"] == "ai":
                state = post(client, state, "ai-move")
                if state["moves"][before] == "pass":
                    seen_ai_pass = True
            elif state["must_pass"]:
                state = post(client, state, "move", {"move": "pass"})
            else:
                legal = state["legal"]
                state = post(client, state, "move", {"move": legal[int(rng.integers(len(legal)))]})
        if seen_ai_pass:
            board = Board(size=4)
            for m in state["moves"]:
                board = board.play(m)
            assert board.is_game_over()
            return
    pytest.fail("no 4x4 game with an AI pass in 50 random games")


# ---------------------------------------------------------------------------------------------
# Bad input: always a 4xx with a message, never a 500.


def expect_error(response, status: int, *fragments: str) -> None:
    assert response.status_code == status, response.text
    detail = response.json()["detail"]
    assert isinstance(detail, str)
    for fragment in fragments:
        assert fragment in detail, detail


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("get", "/api/games/nosuchgame", None),
        ("post", "/api/games/nosuchgame/move", {"move": "f5"}),
        ("post", "/api/games/nosuchgame/ai-move", None),
        ("post", "/api/games/nosuchgame/hint", None),
        ("post", "/api/games/nosuchgame/undo", None),
        ("post", "/api/games/nosuchgame/goto", {"ply": 0}),
        ("delete", "/api/games/nosuchgame", None),
    ],
)
def test_unknown_game_ids_are_404(client: TestClient, method, path, body) -> None:
    kwargs = {"json": body} if body is not None else {}
    expect_error(client.request(method.upper(), path, **kwargs), 404, "no game with id")


@pytest.mark.parametrize(
    ("body", "fragments"),
    [
        ({"move": "z9"}, ["invalid move 'z9'", "column a-h"]),
        ({"move": "f55"}, ["invalid move"]),
        ({"move": ""}, ["body.move"]),
        ({"move": 37}, ["body.move", "string"]),
        ({"move": "f5" * 20}, ["body.move", "at most 16"]),
        ({}, ["body.move", "Field required"]),
        ({"move": "f5", "colour": "black"}, ["body.colour", "Extra inputs"]),
        ({"move": "a1"}, ["illegal move a1 for black", "legal moves: d3, c4, f5, e6"]),
        ({"move": "d4"}, ["d4 is occupied"]),
        ({"move": "pass"}, ["black has legal moves, so may not pass"]),
    ],
)
def test_malformed_and_illegal_moves_are_422(client: TestClient, body, fragments) -> None:
    game = new_game(client)
    expect_error(client.post(f"/api/games/{game['id']}/move", json=body), 422, *fragments)
    # The game is unchanged.
    assert client.get(f"/api/games/{game['id']}").json()["ply"] == 0


def test_malformed_json_and_wrong_types_are_422(client: TestClient) -> None:
    game = new_game(client)
    url = f"/api/games/{game['id']}/move"
    r = client.post(url, content=b"{not json", headers={"Content-Type": "application/json"})
    expect_error(r, 422, "JSON")
    expect_error(client.post(url, content=b"f5"), 422, "body")
    expect_error(client.post(url, json=["f5"]), 422, "body")


def test_moves_out_of_turn_and_after_the_end_are_409(client: TestClient) -> None:
    game = new_game(client, human="white", opponent="greedy:seed=1")
    url = f"/api/games/{game['id']}"
    expect_error(client.post(url + "/move", json={"move": "f5"}), 409, "turn", "AI")
    state = post(client, game, "ai-move")
    expect_error(client.post(url + "/ai-move"), 409, "the human's")
    both = new_game(client, human="both")
    expect_error(client.post(f"/api/games/{both['id']}/ai-move"), 409, "no AI")
    # A finished 4x4 game takes no more moves, from the human or the AI.
    board, moves = Board(size=4), []
    while not board.is_game_over():
        moves.append(board.legal_actions()[0])
        board = board.play(moves[-1])
    record = format_transcript(moves, size=4)
    done = new_game(client, size=4, record=record, human="black")
    assert done["game_over"], done
    expect_error(client.post(f"/api/games/{done['id']}/move", json={"move": "pass"}), 409, "over")
    expect_error(client.post(f"/api/games/{done['id']}/ai-move"), 409, "over")
    expect_error(client.post(f"/api/games/{done['id']}/hint"), 409, "over")
    assert state["ply"] == 1


def test_undo_redo_goto_out_of_range(client: TestClient) -> None:
    game = new_game(client)
    url = f"/api/games/{game['id']}"
    expect_error(client.post(url + "/undo"), 409, "nothing to undo")
    expect_error(client.post(url + "/redo"), 409, "nothing to redo")
    expect_error(client.post(url + "/goto", json={"ply": 3}), 422, "outside the recorded game")
    expect_error(client.post(url + "/goto", json={"ply": -1}), 422, "body.ply")
    expect_error(client.post(url + "/goto", json={"ply": "x"}), 422, "body.ply")


@pytest.mark.parametrize(
    ("body", "fragments"),
    [
        ({"opponent": "nosuchplayer"}, ["unknown player 'nosuchplayer'", "greedy"]),
        ({"opponent": "greedy:depth=3"}, ["has no option depth"]),
        ({"opponent": "greedy:seed"}, ["not KEY=VALUE"]),
        ({"opponent": "shogi-alphabeta"}, ["plays animal-shogi, not othello"]),
        ({"size": 5}, ["body.size"]),
        ({"human": "red"}, ["body.human"]),
        ({"think_time": 0}, ["body.think_time"]),
        ({"record": "f5zz"}, ["transcript move 2 'zz'"]),
        ({"record": "f5a1"}, ["transcript move 2", "illegal move a1"]),
        ({"record": "f5d6", "ply": 3}, ["ply 3 is outside the loaded game"]),
        ({"ply": 1}, ["only meaningful with a record"]),
        ({"record": "f5", "record_format": "sgf"}, ["body.record_format"]),
        ({"sizes": 8}, ["body.sizes", "Extra inputs"]),
    ],
)
def test_bad_new_game_requests_are_422(client: TestClient, body, fragments) -> None:
    expect_error(client.post("/api/games", json=body), 422, *fragments)


def test_oversized_bodies_are_413(client: TestClient) -> None:
    big = b'{"record": "' + b"f5" * 40_000 + b'"}'
    expect_error(
        client.post("/api/games", content=big, headers={"Content-Type": "application/json"}),
        413,
        "too large",
    )

    def chunks():
        for _ in range(100):
            yield b"x" * 1024

    # No Content-Length: the body streams in chunks and is cut off past the limit.
    r = client.post("/api/games", content=chunks(), headers={"Content-Type": "application/json"})
    expect_error(r, 413, "too large")


def test_games_are_deleted_and_the_openapi_schema_names_the_models(client: TestClient) -> None:
    game = new_game(client)
    assert client.delete(f"/api/games/{game['id']}").status_code == 204
    expect_error(client.get(f"/api/games/{game['id']}"), 404, "unknown or deleted")
    schema = client.get("/openapi.json").json()
    assert {"NewGame", "MoveRequest", "GameState", "Evaluation"} <= set(
        schema["components"]["schemas"]
    )
    assert "/api/games/{game_id}/ai-move" in schema["paths"]
    assert client.get("/docs").status_code == 404  # its page would load scripts from a CDN


def test_the_page_and_its_assets_are_served(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200 and 'id="board"' in page.text
    for asset in ("/static/app.js", "/static/style.css"):
        assert client.get(asset).status_code == 200
    # No CDN: everything the page loads comes from this server.
    assert "http" not in page.text


def test_the_page_loads_every_script_of_the_package_with_app_js_last(client: TestClient) -> None:
    """The page's plain scripts share one scope and only app.js runs code on loading (it starts
    the page), so every script that ships in ``static/`` is loaded once, app.js last, and each
    is served as JavaScript."""
    page = client.get("/").text
    scripts = re.findall(r'<script src="/static/([^"]+)"></script>', page)
    static = resources.files("othellolab.ui.web").joinpath("static")
    shipped = sorted(p.name for p in static.iterdir() if p.name.endswith(".js"))
    assert sorted(scripts) == shipped and len(set(scripts)) == len(scripts)
    assert scripts[-1] == "app.js"
    for name in scripts:
        reply = client.get(f"/static/{name}")
        assert reply.status_code == 200
        assert "javascript" in reply.headers["content-type"]


def test_load_ggf_games_with_their_own_size_and_start_board(client: TestClient) -> None:
    """The 4x4 game and the random-start 8x8 game of nboard_test2.ggf (NBoard's test file)."""
    from othellolab.records.ggf import read_ggf

    games = list(read_ggf(shared_file("ggf/nboard_test2.ggf")))
    blocks = shared_file("ggf/nboard_test2.ggf").read_text().split(";)")
    for game, block in zip(games[:2], blocks[:2], strict=True):
        state = new_game(client, record=block.strip() + ";)", human="both")
        assert state["ply"] == len(game.moves)
        final = game.final_board
        assert state["size"] == final.size
        assert (state["black_discs"], state["white_discs"]) == (
            final.disc_count(0),
            final.disc_count(1),
        )
        assert state["game_over"] == final.is_game_over()
        assert len(state["moves"]) == len(game.moves)
    expect_error(
        client.post("/api/games", json={"record": "(;GM[Othello]BO[8 junk];)"}), 422, "ggf"
    )
