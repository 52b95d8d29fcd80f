"""The page in a real browser: Playwright drives Debian's Chromium (headless) against a live
server; a whole 4x4 game and a few 8x8 moves, a whole animal shogi game (a drop and a promotion
included) and a whole 6x6 game are played by clicking, and what the page shows is checked
against the core rules, with the heat map, the evaluation and the analysis plot. Screenshots go
to ``artifacts/`` and must not be blank."""

from __future__ import annotations

import os
import shutil
import struct
from pathlib import Path

import httpx
import pytest

from othellolab import Board
from othellolab.core import BLACK, WHITE
from othellolab.core.animal_shogi import AnimalShogi
from othellolab.ui.web import create_app

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]
ARTIFACTS = Path(__file__).resolve().parents[3] / "artifacts"

sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright package is absent")


@pytest.fixture(scope="module")
def browser():
    path = CHROMIUM if os.path.exists(CHROMIUM) else shutil.which("chromium")
    if path is None:
        pytest.skip(
            f"Chromium is not installed at {CHROMIUM}; `make test` installs Debian's chromium "
            "when it runs as root with apt-get"
        )
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=path, args=CHROMIUM_ARGS)
        yield b
        b.close()


def settle(page) -> None:
    """Wait until the page has no request in flight (the AI's reply included)."""
    page.wait_for_function("() => document.body.dataset.pending === '0'", timeout=60_000)


def server_state(url: str, page) -> dict:
    game_id = page.evaluate("location.hash").removeprefix("#g=")
    return httpx.get(f"{url}/api/games/{game_id}", timeout=30).json()


def replay(moves: list[str], size: int) -> Board:
    board = Board(size=size)
    for m in moves:
        board = board.play(m)
    return board


def start_game(page, *, size: int, human: str = "black", seed: int = 1) -> None:
    page.select_option("#new-size", str(size))
    page.select_option("#new-human", human)
    page.select_option("#new-opponent", "greedy")
    page.fill("input[name=opt-seed]", str(seed))
    page.click("#btn-new")
    page.wait_for_function(
        f"() => document.querySelectorAll('#board .sq').length === {size * size}"
    )
    settle(page)


def assert_score_icons_are_full_discs(page) -> None:
    """The scoreboard's black and white disc icons are round and of one size, at the page's
    width and on a phone-sized one, also next to the default opponent's long spec (a flex row
    once squeezed the white one into a sliver)."""
    size = page.viewport_size
    page.evaluate(
        "document.getElementById('who-white').textContent = "
        "'(alphabeta:time=1.0,endgame=18,evaluation=auto)'"
    )
    for width in (size["width"], 360):
        page.set_viewport_size({"width": width, "height": size["height"]})
        boxes = page.locator("#score-panel .disc-icon").evaluate_all(
            "els => els.map(e => { const r = e.getBoundingClientRect(); return [r.width, r.height]; })"
        )
        assert len(boxes) == 2
        (bw, bh), (ww, wh) = boxes
        assert bw > 5 and abs(bw - bh) < 0.5, f"black icon {bw}x{bh} at width {width}"
        assert abs(ww - wh) < 0.5 and abs(ww - bw) < 0.5, f"white icon {ww}x{wh} at width {width}"
    page.set_viewport_size(size)


def click_until_over(page, max_clicks: int = 40) -> None:
    for _ in range(max_clicks):
        settle(page)
        if page.is_visible("#game-over"):
            return
        if page.is_visible("#btn-pass"):
            page.click("#btn-pass")
        else:
            page.locator("#board .sq.legal").first.click()
    raise AssertionError("the game did not end")


def test_a_whole_4x4_game_and_some_8x8_moves_by_clicking(browser, serve) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    app = create_app(opponent="greedy:seed=1", hint="greedy:seed=2")
    with serve(app) as url:
        page = browser.new_page(viewport={"width": 1180, "height": 820})
        page.set_default_timeout(60_000)
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        # Chromium reports what the Content-Security-Policy refuses as console errors.
        refused: list[str] = []
        page.on(
            "console",
            lambda m: refused.append(m.text) if "Content Security Policy" in m.text else None,
        )
        answer = page.goto(url)
        assert "script-src 'self'" in answer.headers["content-security-policy"]
        page.wait_for_function("() => document.querySelectorAll('#board .sq').length === 64")
        settle(page)

        # A whole 4x4 game as white, so the AI opens and the page must ask it by itself.
        start_game(page, size=4, human="white")
        click_until_over(page)
        state = server_state(url, page)
        board = replay(state["moves"], 4)
        outcome = board.outcome()
        assert outcome is not None
        assert page.inner_text("#score-black") == str(board.disc_count(BLACK))
        assert page.inner_text("#score-white") == str(board.disc_count(WHITE))
        assert page.inner_text("#result").lower() == str(outcome)
        verdict = outcome.score(WHITE)
        detail = page.inner_text("#result-detail")
        assert (f"win by {verdict}" if verdict > 0 else "lose" if verdict < 0 else "draw") in detail
        assert page.locator("#moves li").count() == len(state["moves"])
        page.wait_for_timeout(700)  # let the flips finish
        page.screenshot(path=str(ARTIFACTS / "web-game-over-4x4.png"))

        # A few 8x8 moves; after each, the discs drawn match the engine's position.
        page.click("#btn-close-summary")
        start_game(page, size=8, human="black", seed=4)
        for _ in range(4):
            page.locator("#board .sq.legal").first.click()
            settle(page)
            state = server_state(url, page)
            board = replay(state["moves"], 8)
            assert state["ply"] % 2 == 0 and state["to_move"] == "human"
            assert page.locator("#board .disc.black").count() == board.disc_count(BLACK)
            assert page.locator("#board .disc.white").count() == board.disc_count(WHITE)
            legal_shown = sorted(
                page.locator("#board .sq.legal").evaluate_all(
                    "els => els.map(e => e.dataset.square)"
                )
            )
            assert legal_shown == sorted(board.legal_moves.names())
            assert (
                page.locator("#board .sq.last").get_attribute("data-square") == state["last_move"]
            )
        assert_score_icons_are_full_discs(page)
        page.click("#btn-hint")
        settle(page)
        hint = server_state(url, page)["hint"]
        assert page.locator("#board .sq.hint").get_attribute("data-square") == hint["move"]
        assert page.locator("#board .heat").count() >= 1
        page.click("#btn-undo")
        settle(page)
        assert server_state(url, page)["ply"] == 6
        page.click("#btn-redo")
        settle(page)
        page.click("#btn-hint")
        settle(page)
        page.wait_for_timeout(700)  # let the flips finish
        page.screenshot(path=str(ARTIFACTS / "web-board-8x8.png"))

        # Load a transcript and step through it.
        page.click("#load-panel summary")
        page.fill("#load-text", "f5d6c3d3c4")
        page.click("#btn-load")
        settle(page)
        page.click("#btn-next")
        settle(page)
        page.click("#btn-next")
        settle(page)
        state = server_state(url, page)
        assert state["ply"] == 2 and state["moves"] == ["f5", "d6", "c3", "d3", "c4"]
        assert page.locator("#board .disc").count() == 6
        assert page.input_value("#transcript") == "f5d6"
        assert errors == []
        assert refused == []  # the page runs whole under its CSP
        page.close()


# ---------------------------------------------------------------------------------------------
# Animal shogi and 6x6 Othello


SHOGI_LINE = ["b3b2", "c1b2", "C*a2", "C*c2", "a2a1+", "b1a1", "G*a2", "C*b1", "a2a1"]
"""A game against ``random:seed=1``: the human (sente) plays the even plies, and the odd plies
are the replies that opponent's seeded stream gives (checked as they come): a capture, two
drops, a promotion, and sente's giraffe takes the lion."""


def blank_png_size(browser, viewport: dict) -> int:
    """The size of a screenshot of an empty page: what a screenshot must clearly exceed."""
    page = browser.new_page(viewport=viewport)
    page.set_content("<html><body></body></html>")
    size = len(page.screenshot())
    page.close()
    return size


def assert_png_not_blank(path: Path, blank: int) -> None:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    width, height = struct.unpack(">II", data[16:24])
    assert width > 300 and height > 300, (width, height)
    assert len(data) > 4 * blank, f"{path}: {len(data)} bytes, an empty page gives {blank}"


def click_shogi_move(page, move: str) -> None:
    """Select the piece (on the board or in the human's hand), then its destination."""
    if "*" in move:
        piece = page.locator(f"#hand-bottom .hand-piece[data-piece={move[0]}]")
        piece.click()
        assert "selected" in piece.get_attribute("class")
        to = move[2:4]
    else:
        page.click(f"#board .sq[data-square={move[:2]}]")
        selected = page.locator("#board .sq.selected").get_attribute("data-square")
        assert selected == move[:2]
        to = move[2:4]
    targets = page.locator("#board .sq.target").evaluate_all(
        "els => els.map(e => e.dataset.square)"
    )
    assert to in targets, (move, targets)
    page.click(f"#board .sq[data-square={to}]")


def test_a_whole_animal_shogi_game_by_clicking(browser, serve) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    viewport = {"width": 1180, "height": 900}
    blank = blank_png_size(browser, viewport)
    app = create_app(hint="policy:model=az-animal-shogi")
    with serve(app) as url:
        page = browser.new_page(viewport=viewport)
        page.set_default_timeout(60_000)
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(url)
        page.wait_for_function("() => document.querySelectorAll('#board .sq').length === 64")
        settle(page)
        page.select_option("#new-game", "animal-shogi")
        settle(page)
        # The game's own default opponent, and every animal shogi player to choose from.
        assert page.input_value("#new-opponent") == "alphazero"
        assert page.input_value("input[name=opt-model]") == "az-animal-shogi"
        listed = page.locator("#new-opponent option").evaluate_all("els => els.map(e => e.value)")
        assert {"shogi-alphabeta", "negamax", "random", "alphazero", "mcts"} <= set(listed)
        assert "greedy" not in listed
        page.select_option("#new-opponent", "random")
        page.fill("input[name=opt-seed]", "1")
        page.click("#btn-new")
        page.wait_for_function("() => document.querySelectorAll('#board .sq').length === 12")
        settle(page)
        assert page.locator("#board svg.piece").count() == 8
        assert page.input_value("#position") == AnimalShogi().sfen()

        position = AnimalShogi()
        for ply, move in enumerate(SHOGI_LINE):
            if ply % 2 == 0:
                if move == "a2a1+":  # before the promotion: what the network thinks
                    page.click("#btn-hint")
                    settle(page)
                    assert page.locator("#board .heat").count() >= 1
                    assert page.locator("#eval-moves tbody tr").count() >= 2
                    page.screenshot(path=str(ARTIFACTS / "web-shogi-hint.png"))
                    assert_png_not_blank(ARTIFACTS / "web-shogi-hint.png", blank)
                click_shogi_move(page, move)
                settle(page)
            position = position.play(move)
            state = server_state(url, page)
            assert state["moves"][: ply + 1] == SHOGI_LINE[: ply + 1], state["moves"]
        assert state["moves"] == SHOGI_LINE
        assert state["position"] == position.sfen()
        # Back to the promotion (the opponent took the hen at once): the hen stands on a1.
        page.locator("#moves li").nth(SHOGI_LINE.index("a2a1+")).click()
        settle(page)
        assert page.locator("#board .sq[data-square=a1] svg[data-piece=H]").count() == 1
        assert "promoted to a hen" in page.inner_text("#status")
        page.click("#btn-last")
        settle(page)
        assert page.is_visible("#game-over")
        assert page.inner_text("#result") == "Sente wins (lion captured)"
        detail = page.inner_text("#result-detail")
        assert "A lion was captured" in detail and "You win" in detail
        assert page.locator("#moves li").count() == len(SHOGI_LINE)
        page.screenshot(path=str(ARTIFACTS / "web-shogi-game-over.png"))
        assert_png_not_blank(ARTIFACTS / "web-shogi-game-over.png", blank)
        assert errors == []
        page.close()


def test_a_whole_6x6_game_with_the_heat_map_and_the_analysis(browser, serve) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    viewport = {"width": 1180, "height": 900}
    blank = blank_png_size(browser, viewport)
    app = create_app(hint="policy:model=az-6x6")
    with serve(app) as url:
        page = browser.new_page(viewport=viewport)
        page.set_default_timeout(60_000)
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(url)
        page.wait_for_function("() => document.querySelectorAll('#board .sq').length === 64")
        settle(page)
        # The 6x6 default opponent is its strongest (the trained network), with fewer
        # simulations so that the test takes seconds.
        page.select_option("#new-size", "6")
        assert page.input_value("#new-opponent") == "alphazero"
        assert page.input_value("input[name=opt-model]") == "az-6x6"
        page.fill("input[name=opt-sims]", "8")
        page.fill("input[name=opt-seed]", "1")
        page.click("#btn-new")
        page.wait_for_function("() => document.querySelectorAll('#board .sq').length === 36")
        settle(page)
        page.locator("#board .sq.legal").first.click()
        settle(page)
        page.click("#btn-hint")
        settle(page)
        hint = server_state(url, page)["hint"]
        heat = page.locator("#board .heat").count()
        assert heat == sum(1 for m in hint["moves"] if m["prior"]) and heat >= 1
        assert page.locator("#board .sq.hint").get_attribute("data-square") == hint["move"]
        assert page.is_visible("#eval-bar")
        click_until_over(page)
        state = server_state(url, page)
        assert state["opponent"].startswith("alphazero:model=az-6x6")
        board = replay(state["moves"], 6)
        assert board.is_game_over()
        assert page.inner_text("#result").lower() == str(board.outcome())

        page.click("#btn-close-summary")
        page.click("#analysis-panel summary")
        page.fill("#analysis-time", "0.05")
        page.click("#btn-analyse")
        settle(page)
        analysis = server_state(url, page)["analysis"]
        assert len(analysis["values"]) == len(state["moves"]) + 1
        path = page.locator("#analysis-plot path.analysis-line").get_attribute("d")
        points = path.count("M") + path.count("L")
        assert points == sum(v is not None for v in analysis["values"]) and points > 10
        marked = sum(1 for m in analysis["moves"] if m["verdict"] not in (None, "good"))
        assert page.locator("#analysis-plot .mistake-mark").count() == marked
        assert "s a move" in page.inner_text("#analysis-summary")
        page.screenshot(path=str(ARTIFACTS / "web-6x6-analysis.png"), full_page=True)
        assert_png_not_blank(ARTIFACTS / "web-6x6-analysis.png", blank)
        assert errors == []
        page.close()
