"""``othellolab data list|download|path`` and ``--openings xot-small`` through typer's runner;
downloads come from a local HTTP server on 127.0.0.1."""

from __future__ import annotations

import functools
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from typer.testing import CliRunner

from othellolab.cli import app
from othellolab.records.download import BUNDLED, SOURCES

runner = CliRunner()


@pytest.fixture(autouse=True)
def _no_user_data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OTHELLOLAB_DATA", str(tmp_path / "home"))
    for name in SOURCES:
        monkeypatch.delenv(f"OTHELLOLAB_{name.upper()}_URL", raising=False)


@pytest.fixture
def mirror(tmp_path: Path) -> Iterator[str]:
    """A mirror of the XOT source: the shipped small list, and a wrong large one."""
    root = tmp_path / "mirror"
    root.mkdir()
    (root / "openingssmall.txt").write_bytes(BUNDLED["xot-small"][2].read_bytes())
    (root / "openingslarge.txt").write_text("f5d6\n")
    handler = functools.partial(SimpleHTTPRequestHandler, directory=str(root))
    handler.log_message = lambda *a: None  # type: ignore[attr-defined]
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    httpd.shutdown()
    httpd.server_close()


def test_data_list_names_the_sets_their_sources_and_the_folder(tmp_path: Path) -> None:
    result = runner.invoke(app, ["data", "list"])
    assert result.exit_code == 0, result.output
    assert f"data folder: {tmp_path / 'home'}" in result.output
    for name, source in SOURCES.items():
        assert f"\n{name}: " in result.output and source.base_url in result.output
        assert f"othellolab data download {name}" in result.output
    assert "downloaded: 0 of 3" in result.output and "OTHELLOLAB_WTHOR_URL" in result.output
    assert f"xot-small: {BUNDLED['xot-small'][2]}" in result.output


def test_data_download_checks_each_file_and_reports_a_mismatch(mirror: str, tmp_path: Path) -> None:
    dest = tmp_path / "d"
    args = ["data", "download", "xot", "--dest", str(dest), "--base-url", mirror, "-q"]
    result = runner.invoke(app, args)
    assert result.exit_code == 1
    assert f"could not download {mirror}openingslarge.txt: SHA-256" in result.output
    assert (dest / "xot" / "openingssmall.txt").read_bytes() == BUNDLED["xot-small"][2].read_bytes()
    assert runner.invoke(app, [*args, "--no-verify"]).exit_code == 0
    listed = runner.invoke(app, ["data", "list", "--dest", str(dest)])
    assert "downloaded: 2 of 2" in listed.output
    path = runner.invoke(app, ["data", "path", "xot-small", "--dest", str(dest)])
    assert path.output.strip() == str(dest / "xot" / "openingssmall.txt")


def test_data_download_errors_are_messages(tmp_path: Path) -> None:
    result = runner.invoke(app, ["data", "download", "nope"])
    assert result.exit_code == 1 and "unknown data set 'nope'" in result.output
    result = runner.invoke(app, ["data", "download", "ffo", "--years", "2001"])
    assert result.exit_code != 0 and "wthor only" in result.output
    result = runner.invoke(
        app, ["data", "download", "ffo", "--base-url", "http://127.0.0.1:1/", "-q"]
    )
    assert result.exit_code == 1
    assert "could not download http://127.0.0.1:1/fforum-1-19.obf" in result.output


def test_a_match_on_the_shipped_xot_openings(tmp_path: Path) -> None:
    out = tmp_path / "m"
    args = ["arena", "match", "random:seed=1", "random:seed=2", "--games", "2",
            "--openings", "xot-small", "--out", str(out), "--quiet"]  # fmt: skip
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "2 games played" in result.output
