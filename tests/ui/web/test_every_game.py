"""Every registered game through the web API: animal shogi (moves, drops, promotion, SFEN, the
try and repetition endings, its errors), each game's default opponent, and what the AI thinks
(per-move visits and Q, exact per-move scores, the analysis of a whole game)."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from othellolab import Board
from othellolab.core.animal_shogi import AnimalShogi
from othellolab.core.games import Game, get_game
from othellolab.players import available_players
from othellolab.players.search import solve
from othellolab.players.search.solved6 import move_scores
from othellolab.ui.web import create_app


@pytest.fixture(scope="module")
def client():
    with TestClient(create_app(hint="endgame")) as c:
        yield c


def new_game(client: TestClient, **body) -> dict:
    r = client.post("/api/games", json=body)
    assert r.status_code == 201, r.text
    return r.json()


def post(client: TestClient, game: dict, action: str, body: dict | None = None) -> dict:
    r = client.post(f"/api/games/{game['id']}/{action}", json=body)
    assert r.status_code == 200, r.text
    return r.json()


def expect_error(response, status: int, *fragments: str) -> None:
    assert response.status_code == status, response.text
    detail = response.json()["detail"]
    for fragment in fragments:
        assert fragment in detail, detail


def shogi(client: TestClient, **body) -> dict:
    return new_game(client, game="animal-shogi", opponent="random:seed=1", **body)


def test_each_game_lists_its_own_players_and_default_opponent(client: TestClient) -> None:
    data = client.get("/api/players", params={"game": "animal-shogi"}).json()
    expected = {e.name for e in available_players() if "animal-shogi" in e.games()}
    assert {p["name"] for p in data["players"]} == expected - {"nboard"}
    assert data["game"] == "animal-shogi" and data["formats"] == ["auto", "transcript"]
    # The defaults the issue names: az-animal-shogi, az-6x6 on 6x6, the exact solver on 4x4.
    assert data["default_opponent"] == "alphazero:model=az-animal-shogi"
    games = {g["name"]: g for g in data["games"]}
    defaults = {v["key"]: v["default_opponent"] for v in games["othello"]["variants"]}
    assert defaults["othello6"] == "alphazero:model=az-6x6"
    assert defaults["othello4"] == "endgame"
    assert defaults["othello8"].startswith("alphabeta")
    assert games["animal-shogi"]["sides"] == ["sente", "gote"]
    assert games["animal-shogi"]["position_format"] == "sfen"
    expect_error(client.get("/api/players", params={"game": "chess"}), 422, "unknown game")


def test_new_games_take_their_opponent_from_the_game_and_size(client: TestClient) -> None:
    """No opponent asked: each game and size gets its strongest shipped player (building the
    players loads no model until they move)."""
    assert new_game(client, size=6)["opponent"] == "alphazero:model=az-6x6"
    assert new_game(client, size=4)["opponent"] == "endgame"
    state = new_game(client, game="animal-shogi")
    assert state["opponent"] == "alphazero:model=az-animal-shogi"
    assert state["game"] == "animal-shogi" and state["sides"] == ["sente", "gote"]


def test_animal_shogi_start_state(client: TestClient) -> None:
    state = shogi(client)
    start = AnimalShogi()
    assert state["view"]["kind"] == "pieces"
    assert state["position"] == start.sfen() == "gle/1c1/1C1/ELG b - 1"
    assert state["legal"] == start.legal_moves()
    assert state["human"] == "sente" and state["turn"] == "sente"
    cells = {sq: c for sq, c in zip(state["view"]["squares"], state["cells"], strict=True)}
    assert cells["b4"] == {"letter": "L", "name": "lion", "side": 0}
    assert cells["b1"] == {"letter": "L", "name": "lion", "side": 1}
    assert cells["b2"]["name"] == "chick" and cells["a2"] is None
    parts = {m["name"]: m for m in state["legal_moves"]}
    assert parts["b3b2"] == {"name": "b3b2", "from": "b3", "to": "b2", "drop": None}


def test_moves_drops_and_promotion_follow_the_rules(client: TestClient) -> None:
    """A scripted line (the opponent's replies replayed by hand with both sides human): a
    capture, a drop and a promotion; the state agrees with ``AnimalShogi`` at every ply."""
    line = ["b3b2", "c1b2", "C*a2", "C*c2", "a2a1+", "b1a1", "G*a2", "C*b1", "a2a1"]
    state = shogi(client, human="both")
    position = AnimalShogi()
    for move in line:
        state = post(client, state, "move", {"move": move})
        position = position.play(move)
        assert state["position"] == position.sfen()
        assert state["legal"] == ([] if position.is_game_over() else position.legal_moves())
    assert state["moves"] == line and state["transcript"] == " ".join(line)
    assert state["last_parts"] == {"name": "a2a1", "from": "a2", "to": "a1", "drop": None}
    assert state["game_over"] and state["result"]["winner"] == "sente"
    assert state["result"]["text"] == "lion captured"
    assert "lion was captured" in state["result"]["reason"]
    # After a2a1+ the hen stands on a1.
    state = post(client, state, "goto", {"ply": 5})
    a1 = state["cells"][state["view"]["squares"].index("a1")]
    assert a1 == {"letter": "H", "name": "hen", "side": 0}
    assert state["view"]["hands"][0] == {"C": 0, "E": 0, "G": 1}


def test_bad_animal_shogi_input_is_a_4xx_that_says_why(client: TestClient) -> None:
    state = shogi(client)
    url = f"/api/games/{state['id']}/move"
    legal = "b3b2, b4a3, c4c3, b4c3"
    expect_error(client.post(url, json={"move": "G*a2"}), 422, "no giraffe in hand", legal)
    expect_error(client.post(url, json={"move": "b3b1"}), 422, "invalid move", legal)
    expect_error(client.post(url, json={"move": "a4a3"}), 422, "cannot move to a3", legal)
    expect_error(client.post(url, json={"move": "pass"}), 422, legal)
    for body, fragments in [
        ({"position": "gle/1c1/1C1 b - 1"}, ["body.position (sfen)"]),
        ({"position": "LLL/3/3/lll b - 1"}, ["body.position (sfen)", "lions"]),
        ({"position": "x" * 201}, ["body.position"]),
        ({"record": "b3b2 b3b2"}, ["record (transcript)", "move 2"]),
        ({"human": "black"}, ["body.human", "sente, gote"]),
        ({"opponent": "alphabeta"}, ["plays othello, not animal-shogi"]),
        ({"record": "(;GM[Othello];)"}, ["not written in GGF"]),
    ]:
        r = client.post("/api/games", json={"game": "animal-shogi", **body})
        expect_error(r, 422, *fragments)
    expect_error(client.post("/api/games", json={"game": "x" * 41}), 422, "body.game")
    expect_error(client.post("/api/games", json={"game": "go"}), 422, "unknown game 'go'")
    r = client.post("/api/games", json={"position": "gle/1c1/1C1/ELG b - 1"})
    expect_error(r, 422, "Othello has no position notation")


def test_a_loaded_sfen_position_ends_by_the_try_rule(client: TestClient) -> None:
    """Sente's lion on its far row with gote unable to take it: after gote's move, sente has
    won by the try (the rules in ``core.animal_shogi``: checked at the start of a turn)."""
    state = shogi(client, position="L2/3/2l/3 w - 9", human="both")
    assert state["turn"] == "gote" and state["ply"] == 0 and not state["game_over"]
    state = post(client, state, "move", {"move": "c3c4"})
    assert state["game_over"] and state["result"]["winner"] == "sente"
    assert state["result"]["text"] == "try" and "Try" in state["result"]["reason"]
    assert state["transcript"] == "c3c4"
    # A record after a position is read from that position.
    loaded = shogi(client, position="L2/3/2l/3 w - 9", record="c3c4", human="both", ply=0)
    assert loaded["moves"] == ["c3c4"] and loaded["position"] == "L2/3/2l/3 w - 9"


def test_the_third_repetition_is_a_draw(client: TestClient) -> None:
    state = shogi(client, human="both")
    shuffle = ["b4a3", "b1a2", "a3b4", "a2b1"]
    for move in shuffle * 2:
        assert not state["game_over"]
        state = post(client, state, "move", {"move": move})
    assert state["position"] == AnimalShogi().sfen().replace(" 1", " 9")
    assert state["game_over"] and state["result"]["winner"] is None
    assert state["result"]["text"] == "repetition" and "third time" in state["result"]["reason"]


def test_undo_in_animal_shogi_goes_back_to_the_humans_turn(client: TestClient) -> None:
    state = shogi(client)
    state = post(client, state, "move", {"move": "b3b2"})
    state = post(client, state, "ai-move")
    assert state["ply"] == 2 and state["to_move"] == "human"
    state = post(client, state, "undo")
    assert state["ply"] == 0 and state["position"] == AnimalShogi().sfen()


def test_mcts_hints_report_visits_and_q_per_move(client: TestClient) -> None:
    state = new_game(client, size=6, opponent="mcts:sims=200,seed=1")
    state = post(client, state, "move", {"move": state["legal"][0]})
    state = post(client, state, "ai-move")
    ev = state["evaluation"]
    visits = {m["move"]: m["visits"] for m in ev["moves"]}
    assert ev["move"] == max(visits, key=lambda m: visits[m] or 0)
    # Every simulation but the first (which expands the root) visits one root move.
    assert sum(v or 0 for v in visits.values()) in (ev["simulations"] - 1, ev["simulations"])
    assert all(-1 <= m["q"] <= 1 for m in ev["moves"] if m["q"] is not None)
    # Sorted best first, by visits.
    counts = [m["visits"] or 0 for m in ev["moves"]]
    assert counts == sorted(counts, reverse=True)


def test_exact_per_move_scores_of_the_solver(client: TestClient) -> None:
    """The 4x4 hint player is the exact solver: every move's score matches a solve of the
    position after it (``players.search.solved6.move_scores``, an independent path)."""
    state = new_game(client, size=4, human="both", record="b1a1")
    state = post(client, state, "hint", {"all_moves": True})
    hint = state["hint"]
    board = Board.from_transcript("b1a1", size=4)
    expected = {get_game("othello", 4).action_name(a): s for a, s in move_scores(board)}
    got = {m["move"]: m["score"] for m in hint["moves"]}
    assert got == expected and all(m["exact"] for m in hint["moves"])
    assert hint["exact"] and hint["value"] == max(expected.values())
    assert hint["pv"] and hint["pv"][0] == hint["move"]


def test_the_analysis_of_a_solved_game_marks_its_mistakes(client: TestClient) -> None:
    """A whole 4x4 game (the lowest legal square at every move) analysed by the exact solver:
    each value is the solved score over 16 for black, and a move's loss is what it gave away."""
    board, actions = Board(size=4), []
    while not board.is_game_over():
        actions.append(board.legal_actions()[0])
        board = board.play(actions[-1])
    record = get_game("othello", 4).format_moves(actions)
    state = new_game(client, size=4, human="both", record=record)
    expect_error(
        client.post(f"/api/games/{state['id']}/analyse", json={"time_per_move": 30}),
        422,
        "over this server's maximum",
    )
    state = post(client, state, "analyse", {"time_per_move": 1.0})
    analysis = state["analysis"]
    assert analysis["complete"] and analysis["player"] == "endgame"
    boards = [Board(size=4)]
    for a in actions:
        boards.append(boards[-1].play(a))
    for board, value in zip(boards, analysis["values"], strict=True):
        exact = solve(board).score / 16
        assert value == pytest.approx(exact if board.turn == 0 else -exact, abs=1e-4)
    for move in analysis["moves"]:
        i = move["ply"]
        sign = 1 if boards[i].turn == 0 else -1
        loss = sign * (analysis["values"][i] - analysis["values"][i + 1])
        assert move["loss"] == pytest.approx(0 if move["move"] == move["best"] else loss, abs=1e-3)
        assert (move["verdict"] != "good") == (move["loss"] >= 0.05)
    assert any(m["verdict"] != "good" for m in analysis["moves"])
    # Playing on drops the analysis; nothing to analyse in a fresh game.
    fresh = new_game(client, size=4)
    expect_error(client.post(f"/api/games/{fresh['id']}/analyse", json={}), 409, "nothing to")


class TakeAway(Game):
    """A pile of 7 stones; each side takes 1 or 2; who takes the last one wins. Rules in plain
    Python (``legal_actions`` and ``result`` overridden), so no kernel is compiled."""

    name = key = "take-away"
    rows, cols, n_actions = 1, 7, 2

    def start(self) -> tuple[int, int]:
        return 7, 0  # (stones left, plies played)

    def step(self, p: int, o: int, action: int) -> tuple[int, int]:
        return p - action - 1, o + 1

    def legal_actions(self, p: int, o: int) -> list[int]:
        return [a for a in (0, 1) if a + 1 <= p]

    def result(self, p: int, o: int) -> int | None:
        return -1 if p == 0 else None  # the side to move has nothing left to take: it lost

    def action_name(self, action: int) -> str:
        return f"take{action + 1}"


def test_a_game_defined_in_a_test_module_plays_without_a_web_edit(client: TestClient) -> None:
    """A game registered here is served through the generic ``Game`` views alone (its text
    rendering, its move names, its result)."""
    from othellolab.core.games import register_game, unregister_game

    the = TakeAway()
    register_game("take-away", lambda size: the)
    try:
        games = client.get("/api/players").json()["games"]
        assert "take-away" in {g["name"] for g in games}
        state = new_game(client, game="take-away", opponent="random:seed=3")
        assert state["view"]["kind"] == "text" and state["sides"] == ["first", "second"]
        assert state["legal"] == ["take1", "take2"]
        expect_error(client.post(f"/api/games/{state['id']}/move", json={"move": "take3"}), 422)
        while not state["game_over"]:
            if state["to_move"] == "ai":
                state = post(client, state, "ai-move")
            else:
                state = post(client, state, "move", {"move": state["legal"][-1]})
        position = the.new_position()
        for name in state["moves"]:
            position = position.play(name)
        assert position.is_game_over() and state["view"]["text"] == str(position)
        assert state["result"]["text"] == the.describe_end(position)
        winner = 1 - position.turn  # who took the last stone
        assert state["result"]["winner"] == the.side_names[winner]
        assert state["result"]["human_score"] == (1 if winner == 0 else -1)
    finally:
        unregister_game("take-away")
