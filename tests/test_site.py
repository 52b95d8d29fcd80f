"""The documentation site (``mkdocs.yml``, ``make docs``): it builds in strict mode (a broken
link, a missing reference or any warning fails the build), it has every page the reference
promises, and it opens offline: no built page, stylesheet or script loads anything over the
network. The build takes about 30 s on 2 cores."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import REPO

HOOKS = REPO / "docs" / "hooks"


def _load(name: str):  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location(f"site_{name}", HOOKS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


REMOTE_TAG = re.compile(
    r"<(script|link|img|iframe|source|video|audio|embed|object|track|input)\b[^>]*?"
    r"\b(src|href|data|srcset|poster)\s*=\s*[\"']?\s*(https?:)?//",
    re.I,
)
"""An element that loads what its attribute names (a script, stylesheet, font, image, frame)
from another host; ``<a href="https://...">`` is a link the reader may follow, not a load."""
REMOTE_CSS = re.compile(r"(url\(\s*[\"']?\s*(https?:)?//|@import\s+[\"']?(https?:)?//)", re.I)
REMOTE_JS = re.compile(
    r"(importScripts|fetch|import)\(\s*[\"'`](https?:)?//"
    r"|[\"'`](https?:)?//(unpkg\.com|cdn\.|cdnjs\.|fonts\.(googleapis|gstatic)\.com)",
    re.I,
)
"""A script that loads from another host, or names a CDN's or Google Fonts' address."""
UNUSED = {
    "https://unpkg.com/resize-observer-polyfill": "loaded only by a browser without "
    "ResizeObserver (every browser since 2020 has it)",
    "https://unpkg.com/mermaid@": "loaded only by a page with a Mermaid diagram "
    '(class="mermaid"; the test checks that no page has one)',
}
"""Addresses in mkdocs-material's bundle that our site never loads, and why."""


def remote_loads(site: Path) -> list[str]:
    """``file: what`` of each asset that a built page, stylesheet or script loads over the
    network."""
    found = []
    for path in sorted(site.rglob("*")):
        if path.suffix not in (".html", ".css", ".js"):
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        pattern = {".html": REMOTE_TAG, ".css": REMOTE_CSS, ".js": REMOTE_JS}[path.suffix]
        if path.suffix == ".html":
            # scripts inlined in a page are checked as scripts, CSS in <style> as CSS
            found += [f"{path.relative_to(site)}: {m[0]}" for m in REMOTE_JS.finditer(text)]
            found += [f"{path.relative_to(site)}: {m[0]}" for m in REMOTE_CSS.finditer(text)]
        found += [f"{path.relative_to(site)}: {m[0][:120]}" for m in pattern.finditer(text)]
        if path.suffix == ".js":  # the bundle's two conditional loads, by the address they name
            for m in REMOTE_JS.finditer(text):
                if m[0].startswith(("'", '"', "`")) and any(
                    text.startswith(url, m.start() + 1) for url in UNUSED
                ):
                    found.remove(f"{path.relative_to(site)}: {m[0][:120]}")
        if path.suffix == ".html" and 'class="mermaid"' in text:
            found.append(f"{path.relative_to(site)}: a Mermaid diagram (loads mermaid from a CDN)")
    return found


def test_remote_loads_are_found_and_links_are_not(tmp_path: Path) -> None:
    """Each kind of network load is found; a link to a page elsewhere and an SVG namespace pass."""
    (tmp_path / "a.html").write_text(
        '<a href="https://example.org/page">page</a>'
        '<svg xmlns="http://www.w3.org/2000/svg"></svg>'
        '<script src="https://unpkg.com/x/shim"></script>'
        '<link rel="stylesheet" href="//fonts.example/css">'
    )
    (tmp_path / "b.css").write_text("body { background: url('https://x.org/a.png') }")
    (tmp_path / "c.js").write_text(
        "importScripts('https://x.org/lunr.js'); var a = 'http://x';"
        'f("https://unpkg.com/resize-observer-polyfill"); g("https://unpkg.com/other")'
    )
    assert remote_loads(tmp_path) == [
        'a.html: "https://unpkg.com',
        'a.html: <script src="https://',
        'a.html: <link rel="stylesheet" href="//',
        "b.css: url('https://",
        "c.js: importScripts('https://",
        'c.js: "https://unpkg.com',
    ]


def test_percent_scripts_become_pages() -> None:
    """A jupytext percent script: its header dropped, markdown cells as text, code as blocks."""
    build = _load("build_site")
    text = (
        "# ---\n# jupyter:\n#   jupytext:\n#     formats: py:percent\n# ---\n\n"
        "# %% [markdown]\n# # 1. Title\n#\n# Some *text*.\n\n"
        "# %%\nimport os\n\nx = 1\n\n"
        "# %% [markdown]\n# ![plot](img/plot.png)\n\n# %%\n\n"
    )
    assert build.percent_to_markdown(text) == (
        "# 1. Title\n\nSome *text*.\n\n```python\nimport os\n\nx = 1\n```\n\n![plot](img/plot.png)\n"
    )


def test_doctests_in_docstrings_are_fenced() -> None:
    """A docstring's ``>>>`` example and its output become a console block, so that the
    output ``['f5', 'd6']`` is not read as a Markdown link."""
    fence = _load("griffe_doctests").fence_doctests
    text = "Moves.\n\n>>> moves('f5d6')\n['f5', 'd6']\n\nAfter."
    assert fence(text) == ("Moves.\n\n```pycon\n>>> moves('f5d6')\n['f5', 'd6']\n```\n\nAfter.")


@pytest.mark.slow
def test_site_builds_strictly_and_offline(tmp_path: Path) -> None:
    pytest.importorskip("mkdocs", reason="the docs extra is not installed (make setup does)")
    pytest.importorskip("material", reason="the docs extra is not installed (make setup does)")
    site = tmp_path / "site"
    run = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
        env={"NO_MKDOCS_2_WARNING": "1", "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
    )
    assert run.returncode == 0, run.stderr[-4000:]
    assert "WARNING" not in run.stderr, run.stderr[-4000:]
    pages = {p.relative_to(site).as_posix() for p in site.rglob("*.html")}
    expected = {
        "index.html",
        "course/index.html",
        "reference/cli.html",
        "reference/config.html",
        "reference/players.html",
        "reference/models.html",
        "reference/api/othellolab.html",
        "reference/api/othellolab.core.html",
        "benchmarks.html",
    }
    expected |= {f"{p.stem}.html" for p in (REPO / "docs").glob("*.md")}
    expected |= {f"course/{p.stem}.html" for p in (REPO / "course").glob("[0-9]*.py")}
    expected |= {
        f"reference/models/{p.parent.name}.html"
        for p in (REPO / "src/othellolab/nn/pretrained").glob("*/TRAINING.md")
    }
    assert expected <= pages, sorted(expected - pages)
    # the generated reference holds what its sources declare
    cli = (site / "reference/cli.html").read_text()
    assert "othellolab train selfplay" in cli and "othellolab arena match" in cli
    config = (site / "reference/config.html").read_text()
    assert "SelfPlayConfig" in config and "<code>window</code>" in config
    players = (site / "reference/players.html").read_text()
    assert "alphabeta" in players and "table_bits" in players
    api = (site / "reference/api/othellolab.html").read_text()
    assert 'id="othellolab.Board"' in api
    assert remote_loads(site) == []
    assert (site / "assets/iframe-worker.js").exists()
    assert (site / "search/search_index.js").exists()  # the index a file: page loads
