"""The search workers as a bounded service: the queue's order, bounds, refusals (503 with
``Retry-After``) and cancellation; the workers' players reused across games; a search in a
worker process stopped across the process boundary; the page's "queued, position N" field."""

from __future__ import annotations

import asyncio
import os
import threading
import time

import httpx
import pytest
from fastapi.testclient import TestClient

from othellolab import Board
from othellolab.core import ConfigError, Limit, PlayResult
from othellolab.players import GreedyPlayer, Player, register_player
from othellolab.ui.web import create_app
from othellolab.ui.web.errors import Gone, ServerBusy
from othellolab.ui.web.limits import WORKER_NICE
from othellolab.ui.web.searches import PlayerCache, SearchJob, SearchPool, SearchQueue


def run(coro):
    return asyncio.run(coro)


def test_waiters_get_workers_in_the_order_they_came() -> None:
    async def main() -> list[str]:
        queue = SearchQueue(1, max_queue=10, max_wait=60, expected=1.0)
        first = await queue.acquire("a")
        order: list[str] = []

        async def wait(key: str) -> None:
            slot = await queue.acquire(key)
            order.append(key)
            queue.release(slot)

        tasks = []
        for key in "bcd":
            tasks.append(asyncio.create_task(wait(key)))
            await asyncio.sleep(0)  # each arrives after the one before
        assert [queue.position(k) for k in "abcd"] == [None, 1, 2, 3]
        queue.release(first)
        await asyncio.gather(*tasks)
        assert queue.busy() == 0 and queue.waiting() == 0
        return order

    assert run(main()) == ["b", "c", "d"]


def test_a_full_queue_refuses_at_once_with_retry_after() -> None:
    async def main() -> None:
        queue = SearchQueue(2, max_queue=2, max_wait=60, expected=3.0)
        await queue.acquire("a")
        await queue.acquire("b")
        waiters = [asyncio.create_task(queue.acquire(k)) for k in "cd"]
        await asyncio.sleep(0)
        with pytest.raises(ServerBusy, match="the queue is full") as refused:
            await queue.acquire("e")
        assert refused.value.status == 503
        # One place over what fits: one round of searches, 3 s each.
        assert refused.value.headers == {"Retry-After": "3"}
        for w in waiters:
            w.cancel()

    run(main())


def test_a_search_that_would_wait_too_long_is_refused_before_it_queues() -> None:
    async def main() -> None:
        # 1 worker, 4 s a search: the first waiter expects 4 s, the second 8 s > 5 s allowed.
        queue = SearchQueue(1, max_queue=100, max_wait=5, expected=4.0)
        await queue.acquire("a")
        waiter = asyncio.create_task(queue.acquire("b"))
        await asyncio.sleep(0)
        with pytest.raises(ServerBusy, match="would wait about 8 s") as refused:
            await queue.acquire("c")
        assert int(refused.value.headers["Retry-After"]) >= 1
        assert queue.position("c") is None and queue.waiting() == 1
        waiter.cancel()

    run(main())


def test_with_no_guess_the_first_measured_search_sets_the_expected_wait() -> None:
    async def main() -> None:
        # The players' own time decides (no guess): a burst at start-up queues, unrefused,
        # until a search has been measured; then its time alone sets the expectation.
        queue = SearchQueue(1, max_queue=100, max_wait=5, expected=None)
        await queue.acquire("a")
        waiters = [asyncio.create_task(queue.acquire(k)) for k in "bcdefgh"]
        await asyncio.sleep(0)
        assert queue.waiting() == 7 and queue.expected_wait(8) is None
        queue.record(2.0)  # the first search took 2 s: places 3 and on would wait over 5 s
        assert queue.expected_wait(2) == 4.0
        with pytest.raises(ServerBusy, match="would wait about 16 s") as refused:
            await queue.acquire("i")
        assert refused.value.headers["Retry-After"] == "12"  # 6 over what fits, 2 s each
        queue.record(1.0)
        assert queue.mean_seconds == pytest.approx(1.8)  # later ones move the mean by a fifth
        for w in waiters:
            w.cancel()

    run(main())


def test_a_waiter_past_max_wait_is_refused_and_leaves_the_queue() -> None:
    async def main() -> None:
        queue = SearchQueue(1, max_queue=10, max_wait=0.05, expected=0.01)
        await queue.acquire("a")
        with pytest.raises(ServerBusy, match="waited 0.05 s for a worker"):
            await queue.acquire("b")
        assert queue.waiting() == 0

    run(main())


def test_a_cancelled_waiter_frees_its_place_and_the_worker_goes_to_the_next() -> None:
    async def main() -> None:
        queue = SearchQueue(1, max_queue=10, max_wait=60, expected=1.0)
        slot = await queue.acquire("a")
        left = asyncio.create_task(queue.acquire("b"))
        stays = asyncio.create_task(queue.acquire("c"))
        await asyncio.sleep(0)
        assert queue.position("c") == 2
        left.cancel()
        await asyncio.sleep(0)
        assert queue.position("b") is None and queue.position("c") == 1
        queue.release(slot)
        assert await stays == slot
        queue.release(slot)
        assert queue.busy() == 0

    run(main())


def test_a_slot_handed_to_a_waiter_that_left_at_that_moment_is_passed_on() -> None:
    async def main() -> None:
        queue = SearchQueue(1, max_queue=10, max_wait=60, expected=1.0)
        slot = await queue.acquire("a")
        left = asyncio.create_task(queue.acquire("b"))
        await asyncio.sleep(0)
        queue.release(slot)  # handed to b ...
        left.cancel()  # ... which leaves before it runs
        with pytest.raises(asyncio.CancelledError):
            await left
        assert queue.busy() == 0  # the worker is free again, not lost

    run(main())


def test_closing_the_queue_refuses_waiters_with_gone() -> None:
    async def main() -> None:
        queue = SearchQueue(1, max_queue=10, max_wait=60, expected=1.0)
        await queue.acquire("a")
        waiter = asyncio.create_task(queue.acquire("b"))
        await asyncio.sleep(0)
        queue.close()
        with pytest.raises(Gone, match="shutting down"):
            await waiter

    run(main())


def test_workers_reuse_their_players_across_games_and_reset_them_between() -> None:
    cache = PlayerCache(None, size=2)
    first = cache.get("greedy:seed=1", "othello8", ("g1", 0))
    assert cache.get("greedy:seed=1", "othello8", ("g2", 0)) is first
    cache.get("random:seed=1", "othello8", ("g1", 0))
    cache.get("random:seed=2", "othello8", ("g1", 0))  # the least recently used goes
    assert len(cache) == 2
    assert cache.get("greedy:seed=1", "othello8", ("g1", 0)) is not first


def _job(spec: str, limit: Limit) -> SearchJob:
    return SearchJob("ai", spec, "othello8", ("g", 0), Board(), limit)


@pytest.mark.parametrize("processes", [False, True], ids=["threads", "processes"])
def test_a_client_that_leaves_stops_its_search_in_the_worker(processes: bool) -> None:
    """A 60 s exact solve of the start position, abandoned after 0.5 s: the worker answers
    within a second of the stop (across the process boundary with processes), and is free
    for the next search."""
    pool = SearchPool(1, processes=processes, max_queue=4, max_wait=120, expected=1.0)
    try:
        pool.start()

        async def main() -> tuple[float, object]:
            t0 = time.monotonic()

            async def gone() -> bool:
                return time.monotonic() - t0 > 0.5

            slow = _job("endgame:max_empties=60", Limit(max_time=60))
            with pytest.raises(Gone, match="its client left"):
                await pool.search("g", slow, gone)
            stopped = time.monotonic() - t0

            async def here() -> bool:
                return False

            outcome = await pool.search("h", _job("greedy:seed=1", Limit()), here)
            return stopped, outcome

        stopped, (result, scores) = run(main())
        # Up to a warm-up compile on a cold cache: the point is well below the 60 s search.
        assert stopped < 30
        assert result.move in Board().legal_actions() and scores is None
        if processes:
            assert len(pool.pids()) == 1
            # The worker yields a core to the request handler (limits.WORKER_NICE).
            mine = os.getpriority(os.PRIO_PROCESS, 0)
            worker = os.getpriority(os.PRIO_PROCESS, pool.pids()[0])
            assert worker == min(19, mine + WORKER_NICE)
    finally:
        pool.close()


class Gated(Player):
    """Greedy, but each move waits for the test to open the gate."""

    name = "webtest-queue-gated"

    def __init__(self, *, seed: int = 0) -> None:
        self.inner = GreedyPlayer(seed=seed)

    def choose(self, board: Board, limit: Limit | None = None) -> PlayResult:
        GATE.wait(timeout=60)
        return self.inner.choose(board, limit)


GATE = threading.Event()
register_player("webtest-queue-gated", Gated, "test player: greedy behind a gate", strength=-100)


def test_a_waiting_search_shows_its_place_and_a_full_queue_answers_503(serve) -> None:
    GATE.clear()
    app = create_app(opponent="webtest-queue-gated", search_workers=1, max_queue=1)
    with serve(app) as url, httpx.Client(base_url=url, timeout=60) as http:
        ids = [http.post("/api/games", json={"human": "white"}).json()["id"] for _ in range(3)]
        answers: dict[str, httpx.Response] = {}

        def ai_move(game_id: str) -> None:
            with httpx.Client(base_url=url, timeout=60) as h:
                answers[game_id] = h.post(f"/api/games/{game_id}/ai-move")

        threads = [threading.Thread(target=ai_move, args=(i,)) for i in ids[:2]]
        try:
            threads[0].start()
            deadline = time.monotonic() + 30
            while http.get(f"/api/games/{ids[0]}").json()["busy"] != "ai":
                assert time.monotonic() < deadline
                time.sleep(0.02)
            threads[1].start()
            while http.get(f"/api/games/{ids[1]}").json()["queue"] != 1:
                assert time.monotonic() < deadline, "the second search never queued"
                time.sleep(0.02)
            assert http.get(f"/api/games/{ids[0]}").json()["queue"] is None  # it searches
            refused = http.post(f"/api/games/{ids[2]}/ai-move")
            assert refused.status_code == 503
            assert int(refused.headers["Retry-After"]) >= 1
            assert "the queue is full (1 searches)" in refused.json()["detail"]
            # The refused game is free again, unchanged.
            third = http.get(f"/api/games/{ids[2]}").json()
            assert third["busy"] is None and third["ply"] == 0
        finally:
            GATE.set()
            for t in threads:
                t.join(60)
        for game_id in ids[:2]:
            assert answers[game_id].status_code == 200 and answers[game_id].json()["ply"] == 1


def test_a_search_gets_the_servers_threads_and_a_spec_asking_for_more_is_refused() -> None:
    """One thread a search by default (``serve --search-threads``): a client's spec may not ask
    a worker for more cores than the server gives each search."""
    with TestClient(create_app(opponent="greedy:seed=1", hint="greedy:seed=2")) as client:
        r = client.post("/api/games", json={"opponent": "alphabeta:depth=2,threads=2"})
        assert r.status_code == 422 and "--search-threads" in r.text and "threads=2" in r.text
        ok = client.post("/api/games", json={"opponent": "alphabeta:depth=2,threads=1"})
        assert ok.status_code == 201
    app = create_app(opponent="greedy:seed=1", hint="greedy:seed=2", search_threads=2)
    with TestClient(app) as client:
        r = client.post("/api/games", json={"opponent": "alphabeta:depth=2,threads=2"})
        assert r.status_code == 201
    with pytest.raises(ConfigError, match="1..256"):
        create_app(search_threads=0)
    # A worker builds a threaded player with the server's threads unless its spec says.
    cache = PlayerCache(None, threads=2)
    try:
        assert cache.get("alphabeta:depth=2", "othello8", ("g", 0)).threads == 2
        assert cache.get("alphabeta:depth=2,threads=1", "othello8", ("g", 0)).threads == 1
        assert isinstance(cache.get("greedy:seed=1", "othello8", ("g", 0)), GreedyPlayer)
    finally:
        cache.close()
