"""Public record files on demand: the WTHOR database, the FFO endgame positions and the XOT
openings, downloaded into one user data folder, checked and found again by name.

``SOURCES`` is the one table of where each data set comes from; ``download`` fetches a data
set's files into ``data_home()`` (resuming a partial download with an HTTP ``Range`` request on
a ``NAME.part`` file, checking each file's SHA-256 where one is recorded, renaming it onto its
name only when whole), and ``data_path`` gives the path other commands take as a default.

The data folder is ``$OTHELLOLAB_DATA`` when set, else ``$XDG_DATA_HOME/othellolab/data``
(``~/.local/share/othellolab/data`` when ``XDG_DATA_HOME`` is unset) on Linux and other Unix
systems, ``~/Library/Application Support/othellolab/data`` on macOS and
``%LOCALAPPDATA%\\othellolab\\data`` on Windows. Each data set has a folder of its name there
(``wthor/``, ``ffo/``, ``xot/``), laid out like the repository's shared test data, so a folder
of those files (``OTHELLOLAB_DATA=/path/to/data``) serves as well.

A data set's base URL is overridable, for a mirror or a test server: ``base_url=`` here,
``--base-url`` on the command line, or the environment variable ``OTHELLOLAB_<NAME>_URL``
(``OTHELLOLAB_WTHOR_URL``); each file's URL is the base URL joined with the file's path in
the table. The XOT lists also ship inside the package (``BUNDLED``), so ``xot-small`` and
``xot-large`` work with nothing downloaded.

>>> sorted(SOURCES)
['ffo', 'wthor', 'xot']
>>> [f.url for f in dataset_files("wthor", years="1985,2001")][:2]
['https://www.ffothello.org/wthor/base_zip/WTH_7789.ZIP', 'https://www.ffothello.org/wthor/base_zip/WTH_2001.ZIP']
>>> data_path("xot-small").name
'openingssmall.txt'
"""

from __future__ import annotations

import datetime
import hashlib
import http.client
import os
import sys
import urllib.error
import urllib.request
import zipfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from othellolab.core import ConfigError, OthelloError
from othellolab.core.files import sha256_file, write_bytes
from othellolab.core.progress import StepProgress

__all__ = [
    "BUNDLED",
    "DATA_ENV",
    "DATA_PREFIX",
    "SOURCES",
    "ChecksumError",
    "DataFile",
    "DataNotFoundError",
    "DataSource",
    "DownloadError",
    "base_url_of",
    "check_data_value",
    "config_path",
    "data_home",
    "data_path",
    "dataset_files",
    "download",
    "parse_years",
]

DATA_ENV = "OTHELLOLAB_DATA"
"""Environment variable naming the data folder (``data_home``)."""

USER_AGENT = "othellolab-data/0.1 (+https://github.com/othellolab)"
TIMEOUT = 60.0
"""Seconds to wait for a server to answer or send the next block."""
BLOCK = 1 << 16


class DownloadError(OthelloError):
    """A file that could not be fetched: ``url`` is what was asked for, ``reason`` what failed
    (connection refused, HTTP 404, connection lost after N bytes); a partial file is kept as
    ``NAME.part`` and the next run resumes it."""

    def __init__(self, reason: str, *, url: str, where: str | None = None) -> None:
        self.url = url
        self.reason = reason
        super().__init__(f"could not download {url}: {reason}", where=where)


class ChecksumError(DownloadError):
    """A downloaded file whose SHA-256 is not the recorded one: ``path`` names the file
    (removed, so that the next run fetches it again), ``expected`` and ``actual`` the hashes."""

    def __init__(self, *, url: str, path: Path, expected: str, actual: str) -> None:
        self.path = path
        self.expected = expected
        self.actual = actual
        super().__init__(
            f"SHA-256 of {path.name} is {actual}, expected {expected} (the file was removed; "
            "if the source has changed it on purpose, pass --no-verify)",
            url=url,
        )


class DataNotFoundError(OthelloError, FileNotFoundError):
    """A data set or named file that is not known, or not downloaded yet: the message says
    which names exist or which ``othellolab data download`` command fetches it."""


@dataclass(frozen=True)
class DataFile:
    """One file of a data set: ``name`` in the data set's folder, fetched from ``url`` (a zip
    when ``member`` is set: the file is that member of it), with its SHA-256 and size in bytes
    when known (``None``: not recorded, the file is not checked)."""

    name: str
    url: str
    member: str | None = None
    sha256: str | None = None
    size: int | None = None


@dataclass(frozen=True)
class DataSource:
    """A downloadable data set: where it comes from and what its files are.

    ``files`` maps a key (a year for WTHOR, else the file name) to ``(path, name, sha256,
    size)``: ``path`` is joined to the base URL, ``name`` is the file written (the member of a
    zip when ``path`` ends in ``.zip``)."""

    name: str
    title: str
    home: str
    base_url: str
    licence: str
    files: dict[str, tuple[str, str, str | None, int | None]]
    default_keys: tuple[str, ...] = ()
    always: tuple[str, ...] = ()
    notes: str = ""


# SHA-256 and sizes below were computed from the repository's shared copies
# (../shared/data/README.md): WTHOR 1977-2014 are byte-identical to the FFO zips of 2015,
# 2015-2023 to the FFO's download of February 2026. Years after 2023 have no recorded copy:
# they are downloaded unchecked. WTHOR.JOU and WTHOR.TRN grow each time the federation adds
# a player or a tournament, so no checksum is recorded for them either.
_WTHOR_YEARS: dict[int, tuple[str, int]] = {
    1977: ("9c44b6bf9dca9c9226252a99678d298cec7ae26a39368fdfff207e61ab3cef94", 832),
    1978: ("46e1ecef62dc7e7e5d6dd315aa6de9d9e4147b19cc94bf4a45ef10e8dc22499d", 560),
    1979: ("b210e8334d49b8c29cd5e6671efa3283c03f320019df1bd07db7c915b8e40546", 764),
    1980: ("38a6f4a121883621e11ac5ea9943c5342bc18bbf9c7ea3ef72fb2a9717343331", 10896),
    1981: ("ed654368797faf50e005e07b3c457d34ba6a06833fd52a1f186aa07bf74f82c9", 10420),
    1982: ("a9f113b77034584184f103ead32030097739eb30600a6c6bf1d4cbc040429e29", 7496),
    1983: ("a962233829c420d78a133aecfab466ad2da456b87db98c8a62087446540d16a6", 13548),
    1984: ("c4f848c5a5e99e6a80be0e29af541958914a25e0515f51184d48ade9aa03546d", 39932),
    1985: ("cff42294d01eec1784a194dbb5af250b302bf6a725f0158f4d99282fc58f4722", 64888),
    1986: ("ccaff79b4e6f86dc6f4b917178b0ef01784aba4c39500143f87b0c70af0ac299", 97936),
    1987: ("9410c7a166248de66649ae80f9da67f4ef2cbc520956d3117d56848747813156", 94264),
    1988: ("8e70a6f6c2e79ed60af3c593505d5b87e8b81d16f87f0788e9ddcab755430b15", 123980),
    1989: ("459d9c22674ee5033f38249c20260eba9b4773e4ac9caaeab4fbd2f974729539", 148664),
    1990: ("8100ff898e9c1c13d44dd6cfbfd78d8753cda731e1dc4db05cb31add10f8e209", 203064),
    1991: ("246cb916d0af1d229e541ccb2cafff7e64d5d0174f191b4d3ace564642260206", 214352),
    1992: ("44f9c95612fdbe75a285a51e66dbb83712f7f1b5822910fb41b5b5a6434d3872", 227612),
    1993: ("2fdba7cbc3d771b6d23be3889445c7580c36c05745916d9f9049c33ea65f023b", 236928),
    1994: ("5bdb8b6c394ff0f85952256d88015b3dfcda59939e2be48af05d6889f42dedb2", 295340),
    1995: ("77102226943bd869233b9a9c58e70f83b3308170a9c2d10abece64a68a64a9d7", 337840),
    1996: ("cf10aae185db77c6e1089a56351d6ce7436f4e5fc910b5e71f03c712859258b7", 397952),
    1997: ("4b0b9f403e2a1bb1c9ba0ed02c1c39cea0127db056fcdfc6c4c6ce74baf5eb50", 522324),
    1998: ("a5d39409c5e3a84519fa0c2a84f368cb97ce63be4964ef1321be9381976aae5a", 549252),
    1999: ("e78208e66ff6b2dca9c37754c1a840cd177c53d8691926d35e75b6cce5b37a4f", 522596),
    2000: ("f70faa94377a6f8b67792da6ac0e905593712352d8b26ac064da54506dd53944", 289220),
    2001: ("21920f4776d810126ee1b68c99541f8ac389cf98055c19cb5fa815ed95b846dd", 379116),
    2002: ("fe36942863354622a6cc307e73307202348c262c5e49a99371d4743284218852", 368780),
    2003: ("57bcab596cc10e7668c898642094219213c0d3293d7e2180852e0c4ac9c6a95c", 262360),
    2004: ("90e5dc4f4cd37a5e02f3833e9b82128a330534f8afd22e780011748f1683cc97", 619700),
    2005: ("a2793df2b806f2933a16c8c615de7192f0d778f8c8ed9683a1a8790f417013dc", 285548),
    2006: ("596504fe8435acd73d479bf570ae3fb8d033796db5b3f2ef3c61bde9492b1955", 200072),
    2007: ("a29e8a1d26913bc704ddb7d7a8a0ee01a8b9def101428cd661411cd1da39e4fc", 168520),
    2008: ("9e4b4501a8c48e464148409d7f3583220ed1426f75f50a0420333fe471056701", 151792),
    2009: ("a25036acbbe03ccaa0236445d5176174040d57f7b9941d21979013bd616a6112", 295680),
    2010: ("b7fdbcb1d64c08cc012792404fe297b07f9e0eac8cd73d2afab48303d4d92a91", 147712),
    2011: ("ebea481ed09095247b107abf8e348b79bb398ced5c0854166027a6abeeff2030", 128604),
    2012: ("a92d7b251986dabde2aa6774456a6dcb3785e9e0db7a2b11094aa49bf903e611", 150160),
    2013: ("f71f1981b6519b7bcc768f832f6c25e3bb9d2b896dc5375a6b681fc1ddad8f2d", 162944),
    2014: ("45728d4de4f2b1a40a83bdd46fcffe48e21c85aa4e786f2c6aec6fe6db8bd230", 123572),
    2015: ("7fac0f0a4fb2734a7ac6d98f85a9d6969e02250b8a61f46bbebcfe11cacff59e", 130984),
    2016: ("afaccc1ab00502da45416010621566d808ca8d00de09232b196dc3e3451af446", 136900),
    2017: ("854ce8189596c87846d78ee151776ef74dcdc8972bf02eac6f4d8e60f5308c18", 166548),
    2018: ("db9e475aa33cbbd68f9a1231421656b6c9f4939cccec386f1761e2d19661edf4", 165188),
    2019: ("5907d39469ef7a67846c59e50f4368fcd0458bb4bf9802a7d6050dca2c71bf1f", 134860),
    2020: ("2987c5a149ff88a6087c863a065d54d0c0d586255b41cfd06976495a173ac573", 60944),
    2021: ("f7c2672aaae2badeb1c21bccfc7e4936a11277c68fcb9775f6c7375872f22208", 46256),
    2022: ("f48859be434a916be20e7dacc5a403acaaf6ba9ee0c2ca6129446e001d84f72a", 93448),
    2023: ("eb4988e1f34d44c1d8ae82aea620422d7b9762a51eb12fd07ad79fb23b0a54ea", 168520),
}
FIRST_WTHOR_YEAR = 1977
LAST_CHECKED_WTHOR_YEAR = max(_WTHOR_YEARS)
"""The last WTHOR year with a recorded checksum; later years download unchecked."""


def _wthor_archive(year: int) -> str:
    """The zip of the FFO archive that holds a year: 1977-1989 share one (``WTH_7789.ZIP``)."""
    return "base_zip/WTH_7789.ZIP" if year < 1990 else f"base_zip/WTH_{year}.ZIP"


def _wthor_entry(year: int) -> tuple[str, str, str | None, int | None]:
    sha, size = _WTHOR_YEARS.get(year, (None, None))
    return (_wthor_archive(year), f"WTH_{year}.wtb", sha, size)


SOURCES: dict[str, DataSource] = {
    "wthor": DataSource(
        name="wthor",
        title="WTHOR database of the Fédération Française d'Othello: tournament games by year "
        "(WTH_YYYY.wtb), player names (WTHOR.JOU), tournament names (WTHOR.TRN)",
        home="https://www.ffothello.org/informatique/la-base-wthor/",
        base_url="https://www.ffothello.org/wthor/",
        licence="free download from the FFO; no licence text attached",
        files={
            **{str(y): _wthor_entry(y) for y in _WTHOR_YEARS},
            "WTHOR.JOU": ("base/WTHOR.JOU", "WTHOR.JOU", None, None),
            "WTHOR.TRN": ("base/WTHOR.TRN", "WTHOR.TRN", None, None),
        },
        default_keys=tuple(str(y) for y in _WTHOR_YEARS),
        always=("WTHOR.JOU", "WTHOR.TRN"),
        notes=f"years {FIRST_WTHOR_YEAR}-{LAST_CHECKED_WTHOR_YEAR} checked by SHA-256; later "
        "years (--years 2024) and the name files are downloaded unchecked",
    ),
    "ffo": DataSource(
        name="ffo",
        title="FFO endgame test suite #1-#59 in OBF, every legal move with its exact score",
        home="https://github.com/abulmo/edax-reversi/tree/master/problem",
        base_url="https://raw.githubusercontent.com/abulmo/edax-reversi/master/problem/",
        licence="Edax's problem files (GPL-3.0)",
        files={
            name: (name, name, sha, size)
            for name, sha, size in (
                (
                    "fforum-1-19.obf",
                    "898a13889df1cc83ede69b014f9df40650af6697f47cd96b4a0fb494ca404105",
                    2383,
                ),
                (
                    "fforum-20-39.obf",
                    "b522fcdfd36811d5e07b56dc531e2d6272ec370caa45638e63f134e878558c25",
                    2756,
                ),
                (
                    "fforum-40-59.obf",
                    "235b6f74466959a73aa4bbd6e52fdd301e0b5d0f91bccb183a0af1eef19d8997",
                    2970,
                ),
            )
        },
    ),
    "xot": DataSource(
        name="xot",
        title="XOT balanced 8-move openings: openingssmall.txt (3,623, within ±1 disc), "
        "openingslarge.txt (10,784, within ±2)",
        home="https://berg.earthlingz.de/xot/aboutxot.php",
        base_url="https://berg.earthlingz.de/xot/downloads/",
        licence="Berg and Moreno's XOT lists, free download",
        files={
            "openingssmall.txt": (
                "openingssmall.txt",
                "openingssmall.txt",
                "8a441b077b1093af7b0d1cb55fa5a0d3d1700ce200a1b2d5b6e28d7b17139580",
                61591,
            ),
            "openingslarge.txt": (
                "openingslarge.txt",
                "openingslarge.txt",
                "ccbeb0ed7b7ae23de20013a3992b9a6ede77610bbb5cacda82ccbaedaab72530",
                183328,
            ),
        },
        notes="both lists also ship inside the package: xot-small and xot-large work offline",
    ),
}
"""Every downloadable data set, by name: the one table of sources (docs/data.md shows it)."""

_PACKAGE_DATA = Path(__file__).resolve().parent / "data"

BUNDLED: dict[str, tuple[str, str, Path]] = {
    "xot-small": ("xot", "openingssmall.txt", _PACKAGE_DATA / "openingssmall.txt"),
    "xot-large": ("xot", "openingslarge.txt", _PACKAGE_DATA / "openingslarge.txt.gz"),
}
"""Named files that ship inside the package: name -> (data set, file, packaged copy). A
downloaded copy in the data folder takes precedence (same bytes unless a mirror differs)."""


def base_url_of(name: str, base_url: str | None = None) -> str:
    """The base URL of data set ``name``: ``base_url`` if given, else the environment variable
    ``OTHELLOLAB_<NAME>_URL``, else the table's; always ending in ``/``."""
    source = _source(name)
    env = f"OTHELLOLAB_{source.name.upper().replace('-', '_')}_URL"
    url = base_url or os.environ.get(env) or source.base_url
    return url if url.endswith("/") else url + "/"


def data_home(dest: str | Path | None = None) -> Path:
    """The user data folder: ``dest`` if given, else ``$OTHELLOLAB_DATA``, else the platform's
    per-user data folder followed by ``othellolab/data`` (module docstring)."""
    if dest is not None:
        return Path(dest).expanduser()
    if os.environ.get(DATA_ENV):
        return Path(os.environ[DATA_ENV]).expanduser()
    if sys.platform == "win32":
        root = Path(os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local")
    elif sys.platform == "darwin":
        root = Path.home() / "Library" / "Application Support"
    else:
        xdg = os.environ.get("XDG_DATA_HOME")
        root = Path(xdg) if xdg and Path(xdg).is_absolute() else Path.home() / ".local" / "share"
    return root / "othellolab" / "data"


def data_path(name: str, *, dest: str | Path | None = None) -> Path:
    """The path a command takes for data set or named file ``name``: the data set's folder in
    ``data_home(dest)`` (``wthor``, ``ffo``, ``xot``; it may not exist yet), or a named file
    (``xot-small``, ``xot-large``): the downloaded copy if there is one, else the packaged one.

    Raises ``DataNotFoundError`` listing the names for an unknown one."""
    key = name.strip().lower()
    if key in BUNDLED:
        dataset, file, packaged = BUNDLED[key]
        downloaded = data_home(dest) / dataset / file
        return downloaded if downloaded.is_file() else packaged
    return data_home(dest) / _source(key).name


DATA_PREFIX = "data:"
"""A config value ``data:NAME`` (``data:wthor``) names the data folder's copy of data set
``NAME``, the folder ``othellolab data path NAME`` prints, found when the value is used: the
default of every WTHOR folder key, so that a config works wherever ``othellolab data
download wthor`` has filled the data folder."""


def check_data_value(value: str) -> str:
    """``value`` unchanged, unless it is a ``data:NAME`` whose ``NAME`` is no data set or
    named file (a ``ConfigError`` listing them): an ``Option.check`` of path keys."""
    text = value.strip()
    if text.lower().startswith(DATA_PREFIX):
        name = text[len(DATA_PREFIX) :].strip().lower()
        if name not in SOURCES and name not in BUNDLED:
            raise ConfigError(
                f"{value!r} names no data set; the data sets are "
                f"{', '.join(DATA_PREFIX + n for n in sorted(SOURCES) + sorted(BUNDLED))}"
            )
    return value


def config_path(value: str, *, where: str, option: str) -> Path:
    """The file or folder a config key names: for ``data:NAME`` the data folder's copy
    (``data_path``), which must exist, else a ``ConfigError`` naming the key and the
    ``othellolab data download`` command that fetches it; any other value as the path it is."""
    text = value.strip()
    if not text.lower().startswith(DATA_PREFIX):
        return Path(value)
    name = text[len(DATA_PREFIX) :].strip().lower()
    try:
        check_data_value(text)
    except ConfigError as e:
        raise ConfigError(e.what, where=where, option=option) from None
    path = data_path(name)
    if not path.exists():
        dataset = BUNDLED[name][0] if name in BUNDLED else name
        raise ConfigError(
            f"{value}: the data folder has no {dataset} data ({path} is missing); run "
            f"`othellolab data download {dataset}`, set {DATA_ENV} to a folder that has it, "
            "or give the path",
            where=where,
            option=option,
        )
    return path


def _source(name: str) -> DataSource:
    source = SOURCES.get(name.strip().lower())
    if source is None:
        raise DataNotFoundError(
            f"unknown data set {name!r}; the data sets are {', '.join(sorted(SOURCES))}"
            f" (named files: {', '.join(sorted(BUNDLED))})",
            where="data",
        )
    return source


def parse_years(text: str | int | Iterable[int]) -> list[int]:
    """WTHOR years from ``"2000-2023"``, ``"2001,2004-2006"``, a year or years, sorted, no
    repeats; each from 1977 to next year.

    >>> parse_years("2004, 2001-2002")
    [2001, 2002, 2004]
    """
    last = datetime.date.today().year + 1
    if isinstance(text, int):
        parts = [str(text)]
    elif isinstance(text, str):
        parts = [p.strip() for p in text.split(",") if p.strip()]
    else:
        parts = [str(int(y)) for y in text]
    years: set[int] = set()
    for part in parts:
        lo, dash, hi = part.partition("-")
        try:
            a, b = int(lo), int(hi) if dash else int(lo)
        except ValueError:
            raise OthelloError(
                f"{part!r} is not a year or a range like 2000-2023", where="years"
            ) from None
        if not FIRST_WTHOR_YEAR <= a <= b <= last:
            raise OthelloError(
                f"{part!r}: WTHOR years run from {FIRST_WTHOR_YEAR} to {last}, first to last",
                where="years",
            )
        years.update(range(a, b + 1))
    if not years:
        raise OthelloError("no year given", where="years")
    return sorted(years)


def dataset_files(
    name: str, *, years: str | int | Iterable[int] | None = None, base_url: str | None = None
) -> list[DataFile]:
    """The files ``download`` fetches for data set ``name`` (``years`` only for ``wthor``:
    default, every year with a recorded checksum), with their URLs under ``base_url``."""
    source = _source(name)
    if years is not None and source.name != "wthor":
        raise OthelloError(f"years are only for wthor, not {source.name}", where="data")
    if source.name == "wthor" and years is not None:
        keys = [str(y) for y in parse_years(years)] + list(source.always)
    else:
        keys = list(source.default_keys or source.files) + list(source.always)
    root = base_url_of(source.name, base_url)
    out = []
    for key in keys:
        path, file, sha, size = source.files[key] if key in source.files else _wthor_entry(int(key))
        zipped = path.lower().endswith(".zip")
        out.append(DataFile(file, root + path, file if zipped else None, sha, size))
    return out


def download(
    name: str,
    *,
    years: str | int | Iterable[int] | None = None,
    dest: str | Path | None = None,
    base_url: str | None = None,
    verify: bool = True,
    progress: bool = False,
    log: Callable[[str], None] | None = None,
) -> list[Path]:
    """Download data set ``name`` into ``data_home(dest)/NAME/``; return the files' paths.

    A file already there (and matching its checksum) is kept; a partial download left by an
    interrupted run (``NAME.part``) is resumed; each file is checked against its SHA-256
    unless ``verify`` is false and renamed onto its name only when complete and checked.
    Raises ``DownloadError`` naming the URL and what failed (offline, HTTP error, a lost
    connection: run again to resume), ``ChecksumError`` for a file that is not the recorded
    one, ``DataNotFoundError`` for an unknown name."""
    say = log or (lambda _: None)
    source = _source(name)
    files = dataset_files(source.name, years=years, base_url=base_url)
    folder = data_home(dest) / source.name
    folder.mkdir(parents=True, exist_ok=True)
    done: list[Path] = []
    archives: dict[str, list[DataFile]] = {}
    for f in files:
        target = folder / f.name
        if target.is_file() and (not verify or f.sha256 is None or sha256_file(target) == f.sha256):
            say(f"{target}: already there")
            done.append(target)
        elif f.member is not None:
            archives.setdefault(f.url, []).append(f)
        else:
            _fetch(f.url, target, sha256=f.sha256 if verify else None, progress=progress)
            say(f"{target}: downloaded from {f.url}")
            done.append(target)
    for url, members in archives.items():
        archive = folder / url.rsplit("/", 1)[1]
        _fetch(url, archive, sha256=None, progress=progress)
        try:
            for f in members:
                done.append(_extract(archive, f, folder / f.name, verify=verify))
                say(f"{folder / f.name}: extracted from {url}")
        finally:
            archive.unlink(missing_ok=True)
    return sorted(done)


def _extract(archive: Path, f: DataFile, target: Path, *, verify: bool) -> Path:
    """Write member ``f.member`` of the zip ``archive`` to ``target`` atomically, checked."""
    assert f.member is not None
    try:
        with zipfile.ZipFile(archive) as z:
            names = {n.rsplit("/", 1)[-1].lower(): n for n in z.namelist()}
            entry = names.get(f.member.lower())
            if entry is None:
                raise DownloadError(
                    f"the zip holds no {f.member} (it holds {', '.join(sorted(names)) or 'nothing'})",
                    url=f.url,
                )
            data = z.read(entry)
    except zipfile.BadZipFile as e:
        raise DownloadError(f"not a zip file ({e})", url=f.url) from None
    if verify and f.sha256 is not None:
        actual = hashlib.sha256(data).hexdigest()
        if actual != f.sha256:
            raise ChecksumError(url=f.url, path=target, expected=f.sha256, actual=actual)
    write_bytes(target, data)
    return target


def _fetch(url: str, target: Path, *, sha256: str | None, progress: bool) -> None:
    """Download ``url`` to ``target`` through ``target.part``, resuming what a previous run
    left there; check ``sha256`` if given; rename onto ``target`` when complete."""
    part = target.with_name(target.name + ".part")
    total: int | None = None
    for attempt in range(2):
        have = part.stat().st_size if part.is_file() else 0
        headers = {"User-Agent": USER_AGENT}
        if have:
            headers["Range"] = f"bytes={have}-"
        request = urllib.request.Request(url, headers=headers)
        try:
            response = urllib.request.urlopen(request, timeout=TIMEOUT)
        except urllib.error.HTTPError as e:
            if e.code == 416 and have and attempt == 0:
                part.unlink()  # the range is past the end: the partial file is stale
                continue
            raise DownloadError(f"HTTP {e.code} {e.reason}", url=url) from None
        except (urllib.error.URLError, OSError) as e:
            reason = getattr(e, "reason", None) or e
            raise DownloadError(f"{reason} (offline?)", url=url) from None
        with response:
            status = response.status
            if status == 206 and not _range_starts_at(response.headers, have):
                status = 200  # a range we did not ask for: start again
            if status != 206:
                have = 0
            length = response.headers.get("Content-Length")
            total = have + int(length) if length and length.isdigit() else None
            _receive(
                response,
                part,
                append=have > 0,
                have=have,
                total=total,
                url=url,
                progress=progress,
                label=target.name,
            )
        break
    size = part.stat().st_size
    if total is not None and size != total:
        raise DownloadError(f"got {size:,} of {total:,} bytes (run again to resume)", url=url)
    if sha256 is not None:
        actual = sha256_file(part)
        if actual != sha256:
            part.unlink()
            raise ChecksumError(url=url, path=target, expected=sha256, actual=actual)
    fd = os.open(part, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(part, target)


def _range_starts_at(headers: Any, start: int) -> bool:
    return str(headers.get("Content-Range") or "").startswith(f"bytes {start}-")


def _receive(
    response: Any,
    part: Path,
    *,
    append: bool,
    have: int,
    total: int | None,
    url: str,
    progress: bool,
    label: str,
) -> None:
    """Copy the body of ``response`` to ``part`` (appending when resuming), with a bar in KiB."""
    bar = StepProgress(
        progress,
        total=-(-(total or 0) // 1024),
        done=-(-have // 1024),
        name=label,
        unit="KiB",
    )
    got = have
    try:
        with part.open("ab" if append else "wb") as out:
            while True:
                try:
                    block = response.read(BLOCK)
                except (OSError, http.client.HTTPException) as e:
                    raise DownloadError(
                        f"connection lost after {got:,} bytes ({e}); run again to resume",
                        url=url,
                    ) from None
                if not block:
                    break
                out.write(block)
                before = -(-got // 1024)
                got += len(block)
                bar.advance("", -(-got // 1024) - before)
            out.flush()
            os.fsync(out.fileno())
    finally:
        bar.close()
