"""Build an opening book (``players.search.book``) from game records and the engine's searches.

1. Every position of the first ``max_plies`` plies of the games (WTHOR, Logistello's book,
   any record files) is put in canonical form and counted; those reached by at least
   ``min_count`` games, and the start, are the book's positions.
2. Each move of a book position that leads out of the book is searched by the alpha-beta engine
   (``depth`` plies from the book position); the searches are cached in ``DIR/work`` and
   saved every few seconds, so a killed build resumes where it stopped, and a later build with
   more games or the same depth reuses them.
3. Values are negamaxed from the deepest plies up: a position's value is the best, over its
   moves, of the book child's value or the searched value of a move out of the book.

``extend`` rebuilds a book with more record files or a deeper search, reusing its cache.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, ClassVar

import numba
import numpy as np

from othellolab.config import CheckedTable, Option
from othellolab.core import Board, ConfigError
from othellolab.core import kernels as _k
from othellolab.core.files import atomic_writer
from othellolab.core.progress import StepProgress
from othellolab.parallel import make_executor
from othellolab.players.search.book import (
    Book,
    canonical_batch,
    keys_of,
    load_book,
    save_book,
)
from othellolab.players.search.evaluation import EVALUATION_NAMES, check_evaluation_source

__all__ = ["BookOptions", "book_nodes", "build_book", "extend_book", "negamax_values"]

WORK = "work"
MAX_PLIES = 40
MAX_DEPTH = 30


@dataclass(frozen=True)
class BookOptions(CheckedTable):
    """What a book is built from and how deep its values are searched (``othellolab book
    build``'s options, each checked by its ``Option``)."""

    OPTIONS: ClassVar[dict[str, Option]] = {
        "wthor_dir": Option(str, optional=True, path=True, help="folder of WTHOR files"),
        "years": Option(str, digits=True, help="WTHOR years (never 2023, the held-out year)"),
        "sources": Option(
            str, items=Option(str, path=True), help="more record files (GGF, Logistello's book)"
        ),
        "max_plies": Option(int, 1, MAX_PLIES, help="deepest ply of a book position"),
        "min_count": Option(int, 1, 10**9, help="games that must reach a position to keep it"),
        "depth": Option(int, 1, MAX_DEPTH, help="search depth behind each move out of the book"),
        "evaluation": Option(
            str,
            check=check_evaluation_source,
            path=True,
            help="evaluation of those searches: patterns, heuristic, discs or pattern weights",
        ),
        "probcut": Option(
            float,
            0.0,
            10.0,
            unit="standard deviations",
            help="multi-ProbCut confidence of those searches (0: none), with the weights' fit",
        ),
        "workers": Option(int, 1, 256, help="processes searching at once"),
        "max_games": Option(int, 0, 10**9, help="games per source (0: all), for trials"),
        "name": Option(str, help="the book's name"),
        "progress": Option(bool, help="show a progress bar"),
        "notes": Option(object, spec=False, help="what the book's config records beside"),
    }
    TABLE: ClassVar[str] = "book"

    wthor_dir: str | None = None
    years: str = "1977-2022"
    sources: tuple[str, ...] = ()
    max_plies: int = 24
    min_count: int = 2
    depth: int = 8
    evaluation: str = "patterns"
    probcut: float = 0.0
    workers: int = 1
    max_games: int = 0
    name: str = "book"
    progress: bool = True
    notes: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.wthor_dir is None and not self.sources:
            raise ConfigError("no games: give a WTHOR folder or record files", option="sources")

    def described(self) -> dict[str, Any]:
        """The options as they go into the book's config (neither the progress flag nor the
        workers: they do not change the book)."""
        out = asdict(self)
        out.pop("progress")
        out.pop("workers")
        return out


def _positions(options: BookOptions) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Every position of the options' games (bitboards of the side to move), and a description."""
    from othellolab.datasets.feeds import parse_years
    from othellolab.datasets.heldout import load_positions
    from othellolab.fitting.patterns import HELD_OUT_YEAR

    ps, os_, what = [], [], []
    if options.wthor_dir is not None:
        if HELD_OUT_YEAR in parse_years(options.years):
            raise ConfigError(
                f"years: {HELD_OUT_YEAR} is the held-out year; build the book from others",
                option="years",
            )
        x = load_positions(
            [Path(options.wthor_dir)], years=options.years, max_games=options.max_games, size=8
        )
        ps.append(x.player)
        os_.append(x.opponent)
        what.append(f"WTHOR {options.years}: {x.games:,} games")
    for source in options.sources:
        x = load_positions([Path(source)], max_games=options.max_games, size=8)
        ps.append(x.player)
        os_.append(x.opponent)
        what.append(f"{Path(source).name}: {x.games:,} games")
    return np.concatenate(ps), np.concatenate(os_), what


def book_nodes(
    p: np.ndarray, o: np.ndarray, *, max_plies: int, min_count: int
) -> tuple[np.ndarray, np.ndarray]:
    """The canonical keys of the positions within ``max_plies`` plies that at least
    ``min_count`` of the given rows reach (the start always), sorted, with their counts."""
    p = np.asarray(p, dtype=np.uint64)
    o = np.asarray(o, dtype=np.uint64)
    plies = _k.popcount_batch(p | o).astype(np.int64) - 4
    keep = plies <= max_plies
    cp, co = canonical_batch(p[keep], o[keep])
    keys, counts = np.unique(keys_of(cp, co), return_counts=True)
    start = keys_of(*canonical_batch(*(np.array([x], np.uint64) for x in _k.start_position(8))))
    chosen = counts >= min_count
    chosen |= keys == start[0]
    keys, counts = keys[chosen], counts[chosen]
    if not np.any(keys == start[0]):
        keys = np.concatenate([keys, start])
        counts = np.concatenate([counts, [0]])
        order = np.argsort(keys)
        keys, counts = keys[order], counts[order]
    return keys, counts


@numba.njit(cache=True)
def _edges(p: np.ndarray, o: np.ndarray) -> tuple[np.ndarray, ...]:
    """Every move of every position: the parent's index, the child from its mover's side, and
    the kind (0 a move, 1 a pass, 2 a move that ends the game, with its final score from the
    child's mover)."""
    n = len(p)
    total = 0
    for i in range(n):
        m = _k.legal_mask(p[i], o[i], 8)
        total += max(_k.popcount(m), 1)
    parent = np.empty(total, np.int64)
    cp = np.empty(total, np.uint64)
    co = np.empty(total, np.uint64)
    kind = np.zeros(total, np.int8)
    final = np.zeros(total, np.int64)
    j = 0
    for i in range(n):
        m = _k.legal_mask(p[i], o[i], 8)
        if m == 0:
            parent[j] = i
            cp[j] = o[i]
            co[j] = p[i]
            kind[j] = 1
            j += 1
            continue
        while m:
            sq = _k.lowest_square(m)
            m &= m - np.uint64(1)
            a, b = _k.play(p[i], o[i], sq, 8)
            parent[j] = i
            cp[j] = a
            co[j] = b
            if _k.is_game_over(a, b, 8):
                kind[j] = 2
                final[j] = _k.final_score(a, b, 8)
            j += 1
    return parent, cp, co, kind, final


class SearchCache:
    """Searched values of positions (from their mover's side), kept in ``DIR/work`` per depth,
    evaluation and ProbCut confidence; saved atomically every few seconds, so a build resumes
    after a kill."""

    def __init__(self, folder: Path, depth: int, evaluation: str, probcut: float = 0.0) -> None:
        self.path = folder / WORK / f"searched-{_cache_tag(evaluation, probcut)}-d{depth}.npz"
        self.values: dict[tuple[int, int], float] = {}
        if self.path.is_file():
            try:
                with np.load(self.path, allow_pickle=False) as z:
                    for a, b, v in zip(
                        z["p"].tolist(), z["o"].tolist(), z["value"].tolist(), strict=True
                    ):
                        self.values[(a, b)] = v
            except (OSError, ValueError, KeyError) as e:
                raise ConfigError(
                    f"{self.path}: an unreadable search cache ({e}); delete it to search again"
                ) from None

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        items = list(self.values.items())
        p = np.array([k[0] for k, _ in items], dtype=np.uint64)
        o = np.array([k[1] for k, _ in items], dtype=np.uint64)
        v = np.array([x for _, x in items], dtype=np.float32)
        with atomic_writer(self.path, binary=True) as f:
            np.savez(f, p=p, o=o, value=v)


def _cache_tag(evaluation: str, probcut: float) -> str:
    """The cache file's name for searches with ``evaluation`` and ``probcut``: the evaluation's
    name (a weights folder's name and a digest of its path), then the confidence if any, so
    that the caches of books built before ProbCut keep their names."""
    tag = evaluation
    if evaluation not in EVALUATION_NAMES and "/" in evaluation:
        digest = hashlib.sha256(str(Path(evaluation).resolve()).encode()).hexdigest()[:8]
        tag = f"{Path(evaluation).name}-{digest}"
    return f"{tag}-pc{probcut:g}" if probcut > 0 else tag


CHUNK = 256
"""Positions per task of the book's searches (a few seconds each at depth 12)."""


@dataclass(frozen=True)
class SearchTask:
    """A chunk of positions to search, as a worker process gets it."""

    p: np.ndarray
    o: np.ndarray
    depth: int
    evaluation: str
    probcut: float

    def __str__(self) -> str:
        return f"{len(self.p)} book positions at depth {self.depth}"


@cache
def _searcher(evaluation: str) -> tuple[Any, Any]:
    """The evaluation that ``evaluation`` names and its ProbCut fit (the weights' own, else the
    shipped one), loaded once per process."""
    from othellolab.players.search.evaluation import evaluation_or_weights
    from othellolab.players.search.patterns import pattern_weights_dir
    from othellolab.players.search.probcut import shipped_probcut, weights_probcut

    fit = (
        shipped_probcut()
        if evaluation in EVALUATION_NAMES
        else weights_probcut(str(pattern_weights_dir(evaluation)))
    )
    return evaluation_or_weights(evaluation), fit


def search_chunk(task: SearchTask, progress: Callable[[int], None] | None = None) -> np.ndarray:
    """The searched values of a chunk's positions (their movers' side), on a fresh table."""
    from othellolab.players.search.midgame import search
    from othellolab.players.search.table import TranspositionTable

    evaluation, fit = _searcher(task.evaluation)
    table = TranspositionTable(20)
    out = np.empty(len(task.p), dtype=np.float64)
    for i, (a, b) in enumerate(zip(task.p.tolist(), task.o.tolist(), strict=True)):
        r = search(
            Board.from_bitboards(a, b),
            depth=task.depth,
            evaluation=evaluation,
            table=table,
            probcut=task.probcut,
            probcut_table=fit if task.probcut > 0 else None,
        )
        out[i] = float(r.score)
        if progress is not None:
            progress(i + 1)
    return out


def _search_all(
    keys: np.ndarray,
    depth: int,
    cache: SearchCache,
    options: BookOptions,
    log: Callable[[str], None] | None,
) -> np.ndarray:
    """The searched value of every canonical key at ``depth`` plies (cached ones from the
    cache), in chunks over ``options.workers`` processes; the cache is saved every 20 seconds
    and at the end, and at an interruption what finished is kept."""
    todo = [
        i for i in range(len(keys)) if (int(keys["p"][i]), int(keys["o"][i])) not in cache.values
    ]
    if log and todo:
        log(
            f"searching {len(todo):,} positions at depth {depth} ({len(keys) - len(todo):,} "
            f"cached) on {options.workers} worker(s)"
        )
    rows = np.array(todo, dtype=np.int64)
    tasks = [
        SearchTask(
            keys["p"][rows[k : k + CHUNK]].copy(),
            keys["o"][rows[k : k + CHUNK]].copy(),
            depth,
            options.evaluation,
            options.probcut,
        )
        for k in range(0, len(rows), CHUNK)
    ]
    bar = StepProgress(
        options.progress and bool(todo), total=len(todo), done=0, name="book", unit="positions"
    )
    saved = time.monotonic()
    executor = make_executor(min(options.workers, max(1, len(tasks))))
    try:
        for task, values in executor.map(
            search_chunk,
            tasks,
            progress=lambda k: bar.advance(f"depth {depth}", k),
            units=lambda task, _: len(task.p),
        ):
            for a, b, v in zip(task.p.tolist(), task.o.tolist(), values.tolist(), strict=True):
                cache.values[(a, b)] = v
            if time.monotonic() - saved > 20:
                cache.save()
                saved = time.monotonic()
    finally:
        executor.close()
        bar.close()
        if todo:
            cache.save()
    return np.array(
        [cache.values[(int(a), int(b))] for a, b in zip(keys["p"], keys["o"], strict=True)],
        dtype=np.float64,
    )


def negamax_values(
    keys: np.ndarray,
    searched: Callable[[np.ndarray], np.ndarray],
) -> tuple[np.ndarray, dict[str, int]]:
    """Values of the book positions ``keys`` (sorted canonical keys) from their movers' side:
    the best over each position's moves of minus the child's book value, minus the
    ``searched(child_keys)`` value of a child out of the book, or the final score of a move
    that ends the game. Positions are valued deepest first; a position that must pass takes
    minus the value of the position after the pass."""
    p, o = keys["p"], keys["o"]
    parent, cp, co, kind, final = _edges(p, o)
    ccp, cco = canonical_batch(cp, co)
    child = keys_of(ccp, cco)
    idx = np.searchsorted(keys, child)
    idx_c = np.minimum(idx, len(keys) - 1)
    in_book = (keys[idx_c] == child) & (kind != 2)
    out = (~in_book) & (kind != 2)
    out_keys, out_inverse = np.unique(child[out], return_inverse=True)
    out_values = searched(out_keys)
    edge_value = np.full(len(parent), np.nan)
    edge_value[kind == 2] = -final[kind == 2]
    edge_value[np.flatnonzero(out)] = -out_values[out_inverse]
    discs = _k.popcount_batch(p | o).astype(np.int64)
    value = np.full(len(keys), np.nan)
    book_edges = np.flatnonzero(in_book)
    is_pass = np.zeros(len(keys), bool)
    is_pass[parent[kind == 1]] = True
    for d in sorted(set(discs.tolist()), reverse=True):
        for passing in (False, True):
            layer = (discs == d) & (is_pass == passing)
            if not layer.any():
                continue
            e = book_edges[layer[parent[book_edges]]]
            edge_value[e] = -value[idx_c[e]]
            mine = np.flatnonzero(layer[parent])
            best = np.full(len(keys), -np.inf)
            np.maximum.at(best, parent[mine], edge_value[mine])
            value[layer] = best[layer]
    if np.isnan(value).any() or np.isinf(value).any():
        raise RuntimeError("book negamax left a position without a value")
    stats = {
        "moves": len(parent),
        "moves_in_book": int(in_book.sum()),
        "searched_positions": len(out_keys),
        "passes": int((kind == 1).sum()),
    }
    return value, stats


def build_book(
    out: str | Path,
    options: BookOptions,
    *,
    log: Callable[[str], None] | None = None,
) -> Book:
    """Build the book of ``options`` into the folder ``out`` (resuming its searches) and load it."""
    folder = Path(out)
    t0 = time.monotonic()
    p, o, described = _positions(options)
    keys, counts = book_nodes(p, o, max_plies=options.max_plies, min_count=options.min_count)
    if log:
        log(f"{len(keys):,} book positions from {len(p):,} positions of {'; '.join(described)}")
    cache = SearchCache(folder, options.depth - 1, options.evaluation, options.probcut)

    def searched(child_keys: np.ndarray) -> np.ndarray:
        return (
            _search_all(child_keys, options.depth - 1, cache, options, log)
            if options.depth > 1
            else _static(child_keys, options.evaluation)
        )

    value, stats = negamax_values(keys, searched)
    info = {
        "name": options.name,
        "options": options.described(),
        "sources": described,
        "stats": stats,
        "build_seconds": round(time.monotonic() - t0, 1),
    }
    save_book(folder, keys, np.rint(value), counts, np.full(len(keys), options.depth), info)
    (folder / WORK / "options.json").parent.mkdir(parents=True, exist_ok=True)
    with atomic_writer(folder / WORK / "options.json") as f:
        json.dump(options.described(), f, indent=2)
    return load_book(folder)


def _static(keys: np.ndarray, evaluation_name: str) -> np.ndarray:
    """The evaluation of each key (a depth-1 book: no search below the book's moves)."""
    ev = _searcher(evaluation_name)[0]
    return np.array(
        [
            ev(Board.from_bitboards(int(a), int(b)))
            for a, b in zip(keys["p"], keys["o"], strict=True)
        ]
    )


def extend_book(
    folder: str | Path,
    *,
    sources: Sequence[str] = (),
    depth: int | None = None,
    min_count: int | None = None,
    evaluation: str | None = None,
    probcut: float | None = None,
    workers: int = 1,
    progress: bool = True,
    log: Callable[[str], None] | None = None,
) -> Book:
    """Rebuild the book in ``folder`` with more record files, a deeper search (or one with
    another evaluation or ProbCut confidence) or a lower game count, from the options it was
    built with (``DIR/work/options.json``); each search is reused when its settings match."""
    path = Path(folder) / WORK / "options.json"
    try:
        saved = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"{path}: missing; extend a book that `book build` made here") from None
    except (OSError, ValueError) as e:
        raise ConfigError(f"{path}: unreadable build options ({e})") from None
    try:
        old = BookOptions(**{**saved, "sources": tuple(saved.get("sources", ()))})
    except TypeError as e:
        raise ConfigError(f"{path}: not a book's build options ({e})") from None
    new = BookOptions(
        **{
            **old.described(),
            "sources": tuple(dict.fromkeys([*old.sources, *map(str, sources)])),
            "depth": depth if depth is not None else old.depth,
            "min_count": min_count if min_count is not None else old.min_count,
            "evaluation": evaluation if evaluation is not None else old.evaluation,
            "probcut": probcut if probcut is not None else old.probcut,
            "workers": workers,
            "progress": progress,
        }
    )
    return build_book(folder, new, log=log)
