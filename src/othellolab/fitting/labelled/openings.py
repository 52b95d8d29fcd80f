"""Where labelled games start: XOT openings, WTHOR games cut at a random ply, or the start
position, drawn by ``draw_opening`` with the game's own generator so that a shard's games are
a function of its seed. The books are read once per process (``opening_book``)."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from othellolab.arena.openings import opening_list_path, read_openings
from othellolab.core import Board, ConfigError, OthelloError
from othellolab.core.files import sha256_file
from othellolab.datasets.feeds import parse_years, wthor_paths
from othellolab.datasets.sources import read_wtb_arrays
from othellolab.fitting.labelled.config import OpeningsConfig
from othellolab.records.download import config_path

__all__ = ["OpeningBook", "draw_opening", "opening_book", "opening_files"]


@dataclass(frozen=True, eq=False)
class OpeningBook:
    """The openings a run draws from: XOT lines (actions) and WTHOR games (action rows padded
    with -1, passes left out, each long enough to reach ``max_ply`` plies and play on)."""

    xot: tuple[tuple[int, ...], ...]
    wthor: np.ndarray
    wthor_length: np.ndarray


def xot_path(cfg: OpeningsConfig) -> Path:
    """The XOT list ``cfg.xot`` names: a file, a shipped list (``xot-large``: a downloaded
    copy first, else the packaged one) or ``data:NAME``."""
    return opening_list_path(config_path(cfg.xot, where=cfg.TABLE, option="xot"))


def opening_files(cfg: OpeningsConfig) -> list[Path]:
    """The data files ``cfg`` reads (for the run's record of its sources)."""
    files = []
    if cfg.source in ("xot", "mixed"):
        files.append(xot_path(cfg))
    if cfg.source in ("wthor", "mixed"):
        wthor = config_path(cfg.wthor_dir, where=cfg.TABLE, option="wthor_dir")
        try:
            files += wthor_paths(wthor, parse_years(cfg.years))
        except OthelloError as e:
            raise ConfigError(str(e), where="[openings]", option="wthor_dir") from None
    return files


def source_checksums(cfg: OpeningsConfig) -> dict[str, str]:
    """SHA-256 of every data file ``cfg`` reads, by path; a missing one is a ``ConfigError``."""
    files = opening_files(cfg)
    for path in files:
        if not path.is_file():
            raise ConfigError(f"{path}: no such opening list", where="[openings]", option="xot")
    return {str(p): sha256_file(p) for p in files}


@functools.cache
def opening_book(cfg: OpeningsConfig) -> OpeningBook:
    """Read the openings ``cfg`` names (once per process); a missing or bad file is a
    ``ConfigError`` naming the key."""
    xot: tuple[tuple[int, ...], ...] = ()
    rows = np.zeros((0, 60), dtype=np.int16)
    if cfg.source in ("xot", "mixed"):
        path = xot_path(cfg)
        if not path.is_file():
            raise ConfigError(f"{path}: no such opening list", where="[openings]", option="xot")
        try:
            xot = tuple(read_openings(path))
        except OthelloError as e:
            raise ConfigError(str(e), where="[openings]", option="xot") from None
        if not xot:
            raise ConfigError(f"{path} holds no openings", where="[openings]", option="xot")
    if cfg.source in ("wthor", "mixed"):
        games = [read_wtb_arrays(p).moves for p in opening_files(cfg) if p.suffix == ".wtb"]
        moves = np.concatenate(games) if games else rows
        length = (moves >= 0).sum(axis=1)
        rows = moves[length > cfg.max_ply]
        if len(rows) == 0:
            raise ConfigError(
                f"no WTHOR game of {cfg.years} is longer than max_ply {cfg.max_ply}",
                where="[openings]",
                option="years",
            )
    return OpeningBook(xot, rows, (rows >= 0).sum(axis=1))


def _replay(moves: np.ndarray, plies: int) -> Board:
    """The board after the first ``plies`` recorded moves of a WTHOR game (passes inserted)."""
    board = Board()
    for a in moves[:plies]:
        if board.must_pass():
            board = board.play(board.pass_action)
        board = board.play(int(a))
    return board


def draw_opening(
    book: OpeningBook, cfg: OpeningsConfig, rng: np.random.Generator
) -> tuple[Board, int, str]:
    """One game's start: the board, the plies played to reach it, and its source's name."""
    source = cfg.source
    if source == "mixed":
        source = "xot" if rng.random() < cfg.xot_share else "wthor"
    if source == "xot":
        line = book.xot[int(rng.integers(len(book.xot)))]
        board = Board()
        for a in line:
            board = board.play(a)
        return board, len(line), source
    if source == "wthor":
        game = int(rng.integers(len(book.wthor)))
        plies = int(rng.integers(cfg.min_ply, cfg.max_ply + 1))
        return _replay(book.wthor[game], plies), plies, source
    return Board(), 0, source
