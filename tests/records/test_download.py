"""``records.download``: data sets fetched from a local HTTP server (127.0.0.1 only), checked,
resumed after a partial download, and found again by name; the shipped XOT lists."""

from __future__ import annotations

import gzip
import hashlib
import io
import socket
import threading
import zipfile
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from othellolab.core import OthelloError
from othellolab.records import download as dl
from othellolab.records.download import (
    BUNDLED,
    SOURCES,
    ChecksumError,
    DataNotFoundError,
    DataSource,
    DownloadError,
    data_home,
    data_path,
    dataset_files,
    download,
    parse_years,
)

from helpers import shared_file


class Server:
    """A tiny HTTP server of in-memory files that honours ``Range: bytes=N-`` and can cut a
    response short (``cut[path] = n``: send the full Content-Length, then only ``n`` bytes)."""

    def __init__(self) -> None:
        self.files: dict[str, bytes] = {}
        self.cut: dict[str, int] = {}
        self.requests: list[tuple[str, str | None]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                server.requests.append((self.path, self.headers.get("Range")))
                body = server.files.get(self.path)
                if body is None:
                    self.send_error(404)
                    return
                start = 0
                rng = self.headers.get("Range")
                if rng and rng.startswith("bytes=") and rng.endswith("-"):
                    start = int(rng[6:-1])
                    if start >= len(body):
                        self.send_error(416)
                        return
                    self.send_response(206)
                    self.send_header("Content-Range", f"bytes {start}-{len(body) - 1}/{len(body)}")
                else:
                    self.send_response(200)
                rest = body[start:]
                self.send_header("Content-Length", str(len(rest)))
                self.end_headers()
                n = server.cut.pop(self.path, None)
                self.wfile.write(rest if n is None else rest[:n])
                if n is not None:
                    self.close_connection = True

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def server() -> Iterator[Server]:
    s = Server()
    yield s
    s.close()


@pytest.fixture(autouse=True)
def _no_user_data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Never touch the real user data folder or a configured mirror."""
    monkeypatch.setenv("OTHELLOLAB_DATA", str(tmp_path / "home"))
    for name in SOURCES:
        monkeypatch.delenv(f"OTHELLOLAB_{name.upper()}_URL", raising=False)


def _zip(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        for name, data in members.items():
            z.writestr(name, data)
    return buffer.getvalue()


TINY = b"f5d6c3d3c4f4f6f3\nf5d6c4d3c2b3b4b5\n" * 40
WTB = bytes(16) + b"\x01" * 68


@pytest.fixture
def tiny(monkeypatch: pytest.MonkeyPatch) -> DataSource:
    """A test data set: a raw file and a zip holding one member, both with checksums."""
    source = DataSource(
        name="tiny",
        title="test files",
        home="http://127.0.0.1/",
        base_url="http://127.0.0.1:9/",
        licence="test",
        files={
            "open.txt": ("lists/open.txt", "open.txt", hashlib.sha256(TINY).hexdigest(), None),
            "T.wtb": ("base_zip/T.ZIP", "T.wtb", hashlib.sha256(WTB).hexdigest(), len(WTB)),
        },
    )
    monkeypatch.setitem(SOURCES, "tiny", source)
    return source


def test_success_checks_the_checksum_extracts_the_zip_and_skips_what_is_there(
    server: Server, tiny: DataSource, tmp_path: Path
) -> None:
    server.files = {"/lists/open.txt": TINY, "/base_zip/T.ZIP": _zip({"T.WTB": WTB})}
    got = download("tiny", dest=tmp_path / "d", base_url=server.url)
    folder = tmp_path / "d" / "tiny"
    assert got == [folder / "T.wtb", folder / "open.txt"]
    assert (folder / "open.txt").read_bytes() == TINY and (folder / "T.wtb").read_bytes() == WTB
    assert sorted(p.name for p in folder.iterdir()) == ["T.wtb", "open.txt"]  # no zip, no .part
    n = len(server.requests)
    lines: list[str] = []
    download("tiny", dest=tmp_path / "d", base_url=server.url, log=lines.append)
    assert len(server.requests) == n and all("already there" in line for line in lines)
    assert data_path("tiny", dest=tmp_path / "d") == folder


def test_a_checksum_mismatch_is_an_error_and_leaves_no_file(
    server: Server, tiny: DataSource, tmp_path: Path
) -> None:
    server.files = {"/lists/open.txt": TINY[:-1] + b"X", "/base_zip/T.ZIP": _zip({"T.wtb": WTB})}
    with pytest.raises(ChecksumError) as info:
        download("tiny", dest=tmp_path, base_url=server.url)
    e = info.value
    assert e.url == server.url + "lists/open.txt" and e.url in str(e)
    assert e.expected == tiny.files["open.txt"][2] and "SHA-256 of open.txt" in str(e)
    assert isinstance(e, OthelloError) and not list((tmp_path / "tiny").iterdir())
    # a bad member of a zip: the same error, and the zip is not kept either
    server.files = {"/lists/open.txt": TINY, "/base_zip/T.ZIP": _zip({"T.wtb": WTB + b"!"})}
    with pytest.raises(ChecksumError, match="SHA-256 of T.wtb"):
        download("tiny", dest=tmp_path, base_url=server.url)
    assert [p.name for p in (tmp_path / "tiny").iterdir()] == ["open.txt"]
    # --no-verify keeps it
    download("tiny", dest=tmp_path, base_url=server.url, verify=False)
    assert (tmp_path / "tiny" / "T.wtb").read_bytes() == WTB + b"!"


def test_a_partial_download_resumes_with_a_range_request(
    server: Server, tiny: DataSource, tmp_path: Path
) -> None:
    server.files = {"/lists/open.txt": TINY, "/base_zip/T.ZIP": _zip({"T.wtb": WTB})}
    folder = tmp_path / "tiny"
    folder.mkdir()
    (folder / "open.txt.part").write_bytes(TINY[:100])  # left by a killed run
    download("tiny", dest=tmp_path, base_url=server.url)
    assert (folder / "open.txt").read_bytes() == TINY and not (folder / "open.txt.part").exists()
    assert ("/lists/open.txt", "bytes=100-") in server.requests


def test_a_connection_lost_midway_keeps_the_part_and_the_next_run_finishes(
    server: Server, tiny: DataSource, tmp_path: Path
) -> None:
    server.files = {"/lists/open.txt": TINY, "/base_zip/T.ZIP": _zip({"T.wtb": WTB})}
    server.cut["/lists/open.txt"] = 500
    with pytest.raises(DownloadError, match="run again to resume") as info:
        download("tiny", dest=tmp_path, base_url=server.url)
    assert info.value.url in str(info.value)
    part = tmp_path / "tiny" / "open.txt.part"
    assert part.stat().st_size == 500 and not (tmp_path / "tiny" / "open.txt").exists()
    download("tiny", dest=tmp_path, base_url=server.url)
    assert (tmp_path / "tiny" / "open.txt").read_bytes() == TINY and not part.exists()
    assert server.requests[-2] == ("/lists/open.txt", "bytes=500-")


def test_a_stale_part_past_the_end_starts_again(
    server: Server, tiny: DataSource, tmp_path: Path
) -> None:
    server.files = {"/lists/open.txt": TINY, "/base_zip/T.ZIP": _zip({"T.wtb": WTB})}
    (tmp_path / "tiny").mkdir()
    (tmp_path / "tiny" / "open.txt.part").write_bytes(b"x" * (len(TINY) + 5))
    download("tiny", dest=tmp_path, base_url=server.url)
    assert (tmp_path / "tiny" / "open.txt").read_bytes() == TINY


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_offline_is_a_clear_error_naming_the_url(tiny: DataSource, tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{_closed_port()}/"
    with pytest.raises(DownloadError) as info:
        download("tiny", dest=tmp_path, base_url=url)
    e = info.value
    assert e.url.startswith(url) and f"could not download {e.url}" in str(e)
    assert "refused" in e.reason.lower()


def test_http_errors_name_the_url_and_status(
    server: Server, tiny: DataSource, tmp_path: Path
) -> None:
    with pytest.raises(DownloadError, match=r"lists/open.txt: HTTP 404"):
        download("tiny", dest=tmp_path, base_url=server.url)


def test_unknown_names_list_the_known_ones(tmp_path: Path) -> None:
    with pytest.raises(DataNotFoundError) as info:
        download("wthr", dest=tmp_path)
    assert "unknown data set 'wthr'" in str(info.value)
    assert "ffo, wthor, xot" in str(info.value) and "xot-small" in str(info.value)
    with pytest.raises(DataNotFoundError):
        data_path("nope")
    with pytest.raises(OthelloError, match="only for wthor"):
        dataset_files("xot", years="2001")


def test_wthor_urls_years_and_the_base_url_override(monkeypatch: pytest.MonkeyPatch) -> None:
    files = dataset_files("wthor", years="1988-1989,2001")
    assert [f.name for f in files] == [
        "WTH_1988.wtb", "WTH_1989.wtb", "WTH_2001.wtb", "WTHOR.JOU", "WTHOR.TRN"
    ]  # fmt: skip
    assert files[0].url == files[1].url == "https://www.ffothello.org/wthor/base_zip/WTH_7789.ZIP"
    assert files[2].url.endswith("/base_zip/WTH_2001.ZIP") and files[2].member == "WTH_2001.wtb"
    assert files[3].url == "https://www.ffothello.org/wthor/base/WTHOR.JOU"
    assert files[2].sha256 is not None and files[3].sha256 is None
    assert len(dataset_files("wthor")) == 2023 - 1977 + 1 + 2
    assert dataset_files("wthor", years=2024)[0].sha256 is None  # none recorded
    monkeypatch.setenv("OTHELLOLAB_WTHOR_URL", "http://mirror.test/w")
    assert dataset_files("wthor", years=2001)[0].url == "http://mirror.test/w/base_zip/WTH_2001.ZIP"
    assert parse_years("2004, 2001-2002") == [2001, 2002, 2004]
    for bad in ("1950", "2001-1999", "x", ""):
        with pytest.raises(OthelloError, match="years"):
            parse_years(bad)


def test_real_wthor_years_download_from_a_zip_of_the_shared_copies(
    server: Server, tmp_path: Path
) -> None:
    """The recorded checksums are those of the real files: a zip of them passes."""
    wthor = shared_file("wthor/WTH_1977.wtb").parent
    old = {f"WTH_{y}.wtb": (wthor / f"WTH_{y}.wtb").read_bytes() for y in range(1977, 1990)}
    server.files = {
        "/base_zip/WTH_7789.ZIP": _zip(old),
        "/base_zip/WTH_2001.ZIP": _zip({"WTH_2001.wtb": (wthor / "WTH_2001.wtb").read_bytes()}),
        "/base/WTHOR.JOU": (wthor / "WTHOR.JOU").read_bytes(),
        "/base/WTHOR.TRN": (wthor / "WTHOR.TRN").read_bytes(),
    }
    got = download("wthor", years="1978,1980,2001", dest=tmp_path, base_url=server.url)
    assert [p.name for p in got] == [
        "WTHOR.JOU", "WTHOR.TRN", "WTH_1978.wtb", "WTH_1980.wtb", "WTH_2001.wtb"
    ]  # fmt: skip
    assert sum(path == "/base_zip/WTH_7789.ZIP" for path, _ in server.requests) == 1
    from othellolab.records import read_header

    assert read_header(tmp_path / "wthor" / "WTH_2001.wtb").n_games == 5575


def test_the_recorded_checksums_are_those_of_the_shared_copies() -> None:
    shared = shared_file("xot/openingssmall.txt").parent.parent
    for name, source in SOURCES.items():
        for _path, file, sha, size in source.files.values():
            if sha is None:
                continue
            copy = shared / name / file
            assert copy.stat().st_size == size and dl.sha256_file(copy) == sha, copy


def test_the_shipped_xot_lists_are_the_recorded_ones() -> None:
    small, large = BUNDLED["xot-small"][2], BUNDLED["xot-large"][2]
    table = SOURCES["xot"].files
    assert hashlib.sha256(small.read_bytes()).hexdigest() == table["openingssmall.txt"][2]
    assert (
        hashlib.sha256(gzip.decompress(large.read_bytes())).hexdigest()
        == (table["openingslarge.txt"][2])
    )


def test_data_home_follows_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    assert data_home() == tmp_path / "home"
    assert data_home(tmp_path / "x") == tmp_path / "x"
    monkeypatch.delenv("OTHELLOLAB_DATA")
    if dl.sys.platform.startswith("linux"):
        monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
        assert data_home() == tmp_path / "xdg" / "othellolab" / "data"
        monkeypatch.delenv("XDG_DATA_HOME")
        assert data_home() == Path.home() / ".local" / "share" / "othellolab" / "data"


def test_named_files_prefer_a_downloaded_copy(tmp_path: Path) -> None:
    assert data_path("xot-small") == BUNDLED["xot-small"][2]
    mine = tmp_path / "home" / "xot" / "openingssmall.txt"
    mine.parent.mkdir(parents=True)
    mine.write_text("f5d6\n")
    assert data_path("xot-small") == mine
