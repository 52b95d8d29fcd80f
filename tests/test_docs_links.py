"""The docs stand alone: every relative link in ``docs/**/*.md`` and ``README.md`` resolves to a
file of the repository, and no page names a path outside it (a developer's ``../shared/``
folder, an absolute path on one machine, a notes file that is not in the repository)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from helpers import REPO

PAGES = sorted((REPO / "docs").rglob("*.md"))
README = REPO / "README.md"

LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
"""An inline link or image: ``[text](target)``, ``![alt](target "title")``."""
REFERENCE = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)", re.M)
"""A reference definition: ``[name]: target``."""
SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")
FENCE = re.compile(r"^(```|~~~)")

OUTSIDE = re.compile(r"(?<![\w.~$}-])(\.\./\S*|/(?:work|home|root|mnt|Users)/\S*)")
"""A path outside the repository, written as a path: up from the repository's root
(``../shared/data/wthor``) or absolute under a machine's home or work folders."""
MARKED = ("developers' data folder", "shared test data")
"""Words that mark a mention of ``../shared/`` as the developers' own copy of the data, beside
the way a user gets it (``othellolab data``): such a paragraph may name it."""
MD_FILE = re.compile(r"`([\w./-]*[\w-]+\.md)`")
"""A Markdown file named in a code span (``DESIGN.md``, ``docs/conventions.md``)."""


def _relative(path: Path) -> str:
    return path.relative_to(REPO).as_posix()


def _prose(text: str) -> str:
    """``text`` without its fenced code blocks (a link in a code block is code, not a link)."""
    out, fenced = [], False
    for line in text.splitlines():
        if FENCE.match(line.lstrip()):
            fenced = not fenced
            out.append("")
        else:
            out.append("" if fenced else line)
    return "\n".join(out)


def links(text: str) -> list[str]:
    """The targets of the links and images of a Markdown page (fenced code left out)."""
    prose = _prose(text)
    return [m[1] for m in LINK.finditer(prose)] + [m[1] for m in REFERENCE.finditer(prose)]


def broken_links(text: str, folder: Path) -> list[str]:
    """The relative links of a page in ``folder`` that name no file or folder of the
    repository."""
    bad = []
    for target in links(text):
        if SCHEME.match(target) or target.startswith("#"):
            continue  # a URL (http:, mailto:) or an anchor of the page itself
        path = target.split("#", 1)[0].split("?", 1)[0]
        resolved = (REPO / path.lstrip("/")) if path.startswith("/") else (folder / path)
        resolved = resolved.resolve()
        if not resolved.is_relative_to(REPO.resolve()):
            bad.append(f"{target} (outside the repository)")
        elif not resolved.exists():
            bad.append(f"{target} (no such file)")
    return bad


def outside_paths(text: str, folder: Path) -> list[str]:
    """Paths outside the repository that a page in ``folder`` names, in prose or in code."""
    found = []
    for paragraph in re.split(r"\n\s*\n", text):
        marked = any(words in " ".join(paragraph.split()) for words in MARKED)
        for m in OUTSIDE.finditer(paragraph):
            path = m[1].rstrip(".,;:)`'\"")
            if path.startswith(".."):
                # ``../README.md`` from docs/ is a link within the repository; a command's
                # ``../shared/data`` is read from the repository's root, where it leads out
                here = (folder / path.split("#", 1)[0]).resolve()
                if here.is_relative_to(REPO.resolve()) and here.exists():
                    continue
                if marked and path.startswith("../shared/"):
                    continue
            found.append(path)
    return found


def missing_md_files(text: str, folder: Path) -> list[str]:
    """Markdown files named in code spans of a page in ``folder`` that are nowhere in the
    repository (a bare name may be in any folder: ``TRAINING.md``)."""
    missing = []
    for name in sorted({m[1] for m in MD_FILE.finditer(text)}):
        if any((root / name).exists() for root in (REPO, folder, REPO / "src" / "othellolab")):
            continue
        if "/" not in name and any(
            not p.relative_to(REPO).as_posix().startswith(".") for p in REPO.rglob(name)
        ):
            continue
        missing.append(name)
    return missing


@pytest.mark.parametrize("page", [*PAGES, README], ids=_relative)
def test_relative_links_resolve_to_repository_files(page: Path) -> None:
    assert broken_links(page.read_text(encoding="utf-8"), page.parent) == []


@pytest.mark.parametrize("page", [*PAGES, README], ids=_relative)
def test_no_page_names_a_path_outside_the_repository(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    assert outside_paths(text, page.parent) == []
    assert missing_md_files(text, page.parent) == []


def test_the_checks_catch_what_they_are_for() -> None:
    """Each fault on a page of docs/ is found; fenced code, URLs and anchors pass."""
    text = (
        "[ok](conventions.md) [up](../README.md#top) [web](https://x.org/a.md) [a](#here)\n"
        "[gone](missing.md) ![img](img/none.png) [out](../../elsewhere.md)\n"
        "```\n[in code](nowhere.md)\n```\n"
        "[ref]: formats.md\n"
        "Read `../shared/data/wthor`, `/work/shared/x.txt`, `DESIGN.md` and `TRAINING.md`.\n\n"
        "The default `../shared/data/xot`, the developers' data folder, is named as such.\n"
    )
    docs = REPO / "docs"
    assert links(text) == [
        "conventions.md",
        "../README.md#top",
        "https://x.org/a.md",
        "#here",
        "missing.md",
        "img/none.png",
        "../../elsewhere.md",
        "formats.md",
    ]
    assert broken_links(text, docs) == [
        "missing.md (no such file)",
        "img/none.png (no such file)",
        "../../elsewhere.md (outside the repository)",
    ]
    assert outside_paths(text, docs) == [
        "../../elsewhere.md",
        "../shared/data/wthor",
        "/work/shared/x.txt",
    ]
    assert missing_md_files(text, docs) == ["DESIGN.md"]
