"""Hostile clients: the address ``--host`` binds, the per-client request rate and open games
(429 with ``Retry-After`` and a message naming the limit), and the security headers of every
answer, which the page's own files satisfy (no inline script or style)."""

from __future__ import annotations

import math
import re

import pytest
from fastapi.testclient import TestClient

from othellolab.core import ConfigError
from othellolab.ui.web import create_app
from othellolab.ui.web.app import STATIC
from othellolab.ui.web.clients import RateLimiter, check_host, client_key
from othellolab.ui.web.headers import SECURITY_HEADERS

# A whole 4x4 game, each side playing its lowest legal square (test_openapi_fuzz.finished_4x4);
# test_a_finished_game_does_not_count checks that the server finds it over.
FINISHED_4X4 = "b1a1a2c1d1a3a4d2d3b4c4d4"


@pytest.mark.parametrize(
    ("text", "host", "local"),
    [
        ("127.0.0.1", "127.0.0.1", True),
        ("::1", "::1", True),
        ("[::1]", "::1", True),
        ("localhost", "localhost", True),
        ("0.0.0.0", "0.0.0.0", False),
        ("::", "::", False),
        ("192.168.1.20", "192.168.1.20", False),
        ("board.example.org", "board.example.org", False),
        (" 10.0.0.1 ", "10.0.0.1", False),
    ],
)
def test_a_host_is_an_address_or_a_name(text: str, host: str, local: bool) -> None:
    assert check_host(text) == (host, local)


@pytest.mark.parametrize(
    "text", ["", " ", "999.1.1.1", "1.2.3", "exa mple", "-bad.org", "a" * 64, "x/y", "::g", "é.fr"]
)
def test_a_bad_host_is_refused_by_name(text: str) -> None:
    with pytest.raises(ConfigError, match="host") as e:
        check_host(text)
    assert "neither an IP address nor a host name" in str(e.value)


@pytest.mark.parametrize(
    ("client", "key"),
    [
        (("203.0.113.9", 1), "203.0.113.9"),
        (("2001:db8:1:2:3:4:5:6", 1), "2001:db8:1:2::/64"),
        (("2001:db8:1:2:ffff::1", 1), "2001:db8:1:2::/64"),
        (("::ffff:203.0.113.9", 1), "203.0.113.9"),
        (("testclient", 1), "testclient"),
        (None, "unknown"),
    ],
)
def test_a_client_is_its_address_or_its_ipv6_64(client, key: str) -> None:
    assert client_key({"type": "http", "client": client}) == key


def test_the_rate_limiter_allows_a_burst_then_the_rate() -> None:
    now = [0.0]
    limiter = RateLimiter(2.0, 3, clock=lambda: now[0])
    assert [limiter.take("a") for _ in range(3)] == [0.0, 0.0, 0.0]
    assert limiter.take("a") == pytest.approx(0.5)  # one token comes back in 1/2 s
    assert limiter.take("b") == 0.0  # another client has its own bucket
    now[0] = 0.5
    assert limiter.take("a") == 0.0
    assert limiter.take("a") == pytest.approx(0.5)
    now[0] = 100.0  # the bucket refills to its burst, no more
    assert [limiter.take("a") for _ in range(4)][-1] == pytest.approx(0.5)


def test_the_rate_limiter_tracks_a_bounded_number_of_clients() -> None:
    limiter = RateLimiter(1.0, 1, max_clients=3, clock=lambda: 0.0)
    for name in "abcd":
        assert limiter.take(name) == 0.0
    assert len(limiter) == 3
    assert limiter.take("a") == 0.0  # forgotten (least recently used), so a full bucket again
    assert limiter.take("d") == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("options", "option"),
    [
        ({"rate_limit": 0}, "rate_limit"),
        ({"rate_limit": math.nan}, "rate_limit"),
        ({"rate_limit": math.inf}, "rate_limit"),
        ({"rate_limit": 1e5}, "rate_limit"),
        ({"rate_limit": "10"}, "rate_limit"),
        ({"rate_limit": 1, "rate_burst": 0}, "rate_burst"),
        ({"rate_limit": 1, "rate_burst": 2.5}, "rate_burst"),
        ({"rate_limit": 1, "rate_burst": True}, "rate_burst"),
        ({"max_games_per_client": 0}, "max_games_per_client"),
        ({"max_games_per_client": 10_001}, "max_games_per_client"),
        ({"max_games_per_client": 2.0}, "max_games_per_client"),
    ],
)
def test_bad_per_client_limits_are_refused_by_name(options: dict, option: str) -> None:
    with pytest.raises(ConfigError) as e:
        create_app(opponent="greedy:seed=1", **options)
    assert e.value.option == option


def test_a_client_over_its_rate_gets_429_naming_the_limit() -> None:
    app = create_app(opponent="greedy:seed=1", rate_limit=0.01, rate_burst=3)
    with TestClient(app) as first, TestClient(app, client=("198.51.100.7", 1)) as second:
        assert [first.get("/api/players").status_code for _ in range(3)] == [200, 200, 200]
        r = first.get("/api/players")
        assert r.status_code == 429
        assert r.headers["Retry-After"] == "100"  # one token a 100 s
        assert "0.01 a second, in bursts of at most 3" in r.json()["detail"]
        assert "--rate-limit" in r.json()["detail"]
        assert first.get("/").status_code == 429  # the page and its files count too
        assert second.get("/api/players").status_code == 200


def test_a_client_with_its_most_open_games_gets_429_naming_the_limit() -> None:
    app = create_app(opponent="greedy:seed=1", max_games_per_client=2, ttl=600)
    with TestClient(app) as first, TestClient(app, client=("198.51.100.7", 1)) as second:
        ids = [first.post("/api/games", json={"size": 4}).json()["id"] for _ in range(2)]
        r = first.post("/api/games", json={"size": 4})
        assert r.status_code == 429, r.text
        assert 590 <= int(r.headers["Retry-After"]) <= 600  # when the older game expires
        detail = r.json()["detail"]
        assert "testclient has 2 open games" in detail and "--max-games-per-client" in detail
        assert second.post("/api/games", json={"size": 4}).status_code == 201
        assert first.delete(f"/api/games/{ids[0]}").status_code == 204
        assert first.post("/api/games", json={"size": 4}).status_code == 201
        assert first.post("/api/games", json={"size": 4}).status_code == 429


def test_a_finished_game_does_not_count() -> None:
    app = create_app(opponent="greedy:seed=1", max_games_per_client=1)
    with TestClient(app) as client:
        r = client.post("/api/games", json={"size": 4, "record": FINISHED_4X4})
        assert r.status_code == 201 and r.json()["game_over"], r.text
        assert client.post("/api/games", json={"size": 4}).status_code == 201
        assert client.post("/api/games", json={"size": 4}).status_code == 429


def test_without_per_client_limits_nothing_is_refused() -> None:
    app = create_app(opponent="greedy:seed=1")
    with TestClient(app) as client:
        codes = {client.post("/api/games", json={"size": 4}).status_code for _ in range(30)}
        assert codes == {201}


def test_every_answer_has_the_security_headers() -> None:
    app = create_app(opponent="greedy:seed=1", rate_limit=0.01, rate_burst=5)
    with TestClient(app) as client:
        answers = [
            client.get("/"),
            client.get("/static/app.js"),
            client.get("/api/players"),
            client.post("/api/games", content=b"x" * 70_000),  # 413 from the body limit
            client.get("/api/games/nope"),  # the 5th: 404
            client.get("/api/players"),  # 429
        ]
    assert [r.status_code for r in answers] == [200, 200, 200, 413, 404, 429]
    for r in answers:
        for name, value in SECURITY_HEADERS.items():
            assert r.headers[name] == value, (r.url, name)
    csp = answers[0].headers["Content-Security-Policy"]
    assert "script-src 'self'" in csp and "frame-ancestors 'none'" in csp
    assert "unsafe-inline" not in csp


def test_the_page_has_no_inline_script_or_style() -> None:
    """What the CSP forbids: code or styles in the HTML itself (the scripts may still set
    element.style, which a CSP allows)."""
    html = (STATIC / "index.html").read_text()
    assert re.findall(r"<script\b[^>]*>", html) and all(
        "src=" in tag for tag in re.findall(r"<script\b[^>]*>", html)
    )
    assert re.search(r"<script\b[^>]*>\s*[^<\s]", html) is None
    assert "<style" not in html
    assert re.search(r"\sstyle\s*=", html) is None
    assert re.search(r"\son[a-z]+\s*=", html) is None
    for script in STATIC.glob("*.js"):
        text = script.read_text()
        assert 'setAttribute("style"' not in text and "eval(" not in text, script.name
        assert re.search(r"innerHTML\s*=\s*`[^`]*style=", text) is None, script.name
