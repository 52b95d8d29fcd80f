"""The web board under load, over real HTTP: concurrent games against the greedy player finish
without an error, and one game's AI search does not hold up another game's requests.
(``benchmarks/bench_web.py`` is the full-size version: 50 games, with requests per second.)"""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import httpx
import numpy as np

from othellolab import Board
from othellolab.core import Limit, PlayResult
from othellolab.players import GreedyPlayer, Player, register_player
from othellolab.ui.web import create_app

RELEASE = threading.Event()


class GatedGreedy(Player):
    """Greedy, but each move waits for the test to release it: a search that takes as long as
    the test wants."""

    name = "webtest-gated"

    def __init__(self, *, seed: int = 0) -> None:
        self.inner = GreedyPlayer(seed=seed)

    def choose(self, board: Board, limit: Limit | None = None) -> PlayResult:
        RELEASE.wait(timeout=60)
        return self.inner.choose(board, limit)


register_player("webtest-gated", GatedGreedy, "test player: greedy that waits", strength=-100)


def play_random_game(url: str, seed: int, size: int) -> tuple[dict, int]:
    """One game of random human moves against greedy; returns the final state and requests."""
    rng = np.random.default_rng(seed)
    requests = 0
    with httpx.Client(base_url=url, timeout=60) as http:

        def call(method: str, path: str, body: dict | None = None) -> dict:
            nonlocal requests
            requests += 1
            r = http.request(method, path, json=body)
            assert r.status_code in (200, 201), f"{method} {path}: {r.status_code} {r.text}"
            return r.json()

        state = call("POST", "/api/games", {"size": size, "opponent": f"greedy:seed={seed}"})
        path = f"/api/games/{state['id']}"
        while not state["game_over"]:
            if state["to_move"] == "ai":
                state = call("POST", path + "/ai-move")
            elif state["must_pass"]:
                state = call("POST", path + "/move", {"move": "pass"})
            else:
                legal = state["legal"]
                move = legal[int(rng.integers(len(legal)))]
                state = call("POST", path + "/move", {"move": move})
        assert call("GET", path)["version"] == state["version"]
    return state, requests


def test_concurrent_games_against_greedy_complete(serve) -> None:
    games = 12
    with serve(create_app(opponent="greedy")) as url, ThreadPoolExecutor(games) as pool:
        t0 = time.perf_counter()
        results = list(
            pool.map(lambda i: play_random_game(url, i, 6 if i % 2 else 8), range(games))
        )
        elapsed = time.perf_counter() - t0
    total = sum(n for _, n in results)
    for state, _ in results:
        board = Board(size=state["size"])
        for m in state["moves"]:
            board = board.play(m)
        assert board.is_game_over()
        assert state["result"]["text"] == str(board.outcome())
    print(f"{games} games, {total} requests, {total / elapsed:.0f} requests/s")


def test_a_thinking_ai_blocks_neither_the_server_nor_other_games(serve) -> None:
    RELEASE.clear()
    with (
        serve(create_app(opponent="greedy", search_workers=2)) as url,
        httpx.Client(base_url=url, timeout=60) as http,
    ):
        slow = http.post("/api/games", json={"human": "white", "opponent": "webtest-gated"}).json()
        other = http.post("/api/games", json={"opponent": "greedy"}).json()
        answer: dict = {}

        def think() -> None:
            with httpx.Client(base_url=url, timeout=60) as h:
                answer["r"] = h.post(f"/api/games/{slow['id']}/ai-move")

        thread = threading.Thread(target=think)
        thread.start()
        try:
            deadline = time.monotonic() + 30
            while http.get(f"/api/games/{slow['id']}").json()["busy"] != "ai":
                assert time.monotonic() < deadline, "the AI never started thinking"
                time.sleep(0.02)
            # The game that thinks can be read, but not changed.
            r = http.post(f"/api/games/{slow['id']}/move", json={"move": "f5"})
            assert r.status_code == 409 and "thinking" in r.json()["detail"]
            assert http.post(f"/api/games/{slow['id']}/undo").status_code == 409
            # Another game plays on while it thinks.
            r = http.post(f"/api/games/{other['id']}/move", json={"move": "f5"})
            assert r.status_code == 200
            assert http.post(f"/api/games/{other['id']}/ai-move").json()["ply"] == 2
        finally:
            RELEASE.set()
            thread.join(60)
        state = answer["r"].json()
        assert answer["r"].status_code == 200 and state["ply"] == 1 and state["busy"] is None
