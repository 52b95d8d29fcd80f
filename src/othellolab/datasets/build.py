"""Build a training dataset from game records: replay, filter, split by game, deduplicate.

``build_dataset(sources, out_dir, ...)`` writes one row per position of every game (the
position before each action, passes included unless ``passes=False``) into the format of
``datasets.shards``. Rows store the two bitboards and the colour to move; planes are made at
load time by ``core.features``. The build is resumable: each source is replayed once into
``OUT.partial/`` (keyed by its SHA-256), and the dataset appears at ``OUT`` only when complete.
"""

from __future__ import annotations

import datetime as _dt
import itertools
import json
import re
import shutil
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from othellolab.config import CheckedTable, Option
from othellolab.core import ConfigError
from othellolab.core.features import symmetry_table, transform_bitboards
from othellolab.core.files import replace_dir, sha256_file, write_json
from othellolab.core.kernels import U64, hash_position_batch
from othellolab.core.numba_kernel import kernel
from othellolab.datasets.replay import Replayed, game_results, replay_games
from othellolab.datasets.shards import (
    FORMAT,
    FORMAT_VERSION,
    MANIFEST,
    SPLITS,
    DatasetExistsError,
    DatasetFormatError,
    load_replayed,
    read_manifest,
    save_replayed,
    write_arrays,
)
from othellolab.datasets.sources import (
    NO_SCORE,
    OLD_NO_SCORE,
    GameArrays,
    expand_sources,
    load_source,
    sha256_arrays,
)
from othellolab.records.report import RecordError

KEEP_CHOICES = ("all", "winner", "black", "white")
SPLIT_CHOICES = ("hash", "year")
SCORE_CHOICES = ("replay", "recorded")
CACHE_VERSION = 1

CONVENTIONS = {
    "squares": "square i = row * size + col; a1 = 0, h1 = 7, a8 = 56, h8 = 63; bit i of a "
    "bitboard is square i",
    "p": "uint64 bitboard of the side to move's discs",
    "o": "uint64 bitboard of the opponent's discs",
    "color": "colour of the side to move: 0 black, 1 white",
    "move": "policy index of the action played: 0..size*size-1 place a disc, size*size is pass",
    "outcome": "game result from the side to move: +1 win, 0 draw, -1 loss (dedup: mean)",
    "score": "final disc difference from the side to move, empties to the winner (dedup: mean)",
    "move_number": "1-based place of the action among the game's actions, passes counted",
    "game": "0-based game id over all sources in order (see sources[].first_game)",
    "year": "year of the game from the record, -1 if unknown",
    "symmetry": "symmetry k applied to the original position (core.kernels.SYMMETRY_NAMES)",
    "count": "dedup: number of merged occurrences of the position",
    "policy": "dedup: CSR policy: row r's moves are policy_moves[policy_offsets[r]:"
    "policy_offsets[r+1]] with policy_counts occurrences each",
    "planes": "not stored: core.features.encode_batch(p, o, spec) at load time",
}


def parse_year_range(text: str) -> tuple[int, int]:
    """``"2001-2015"`` or ``"2004"`` as an inclusive ``(first, last)`` pair."""
    m = re.fullmatch(r"\s*([0-9]{4})\s*(?:-\s*([0-9]{4})\s*)?", text)  # ASCII digits only
    if not m:
        raise ConfigError(f"invalid year range {text!r}: expected YYYY or YYYY-YYYY")
    first, last = int(m.group(1)), int(m.group(2) or m.group(1))
    if last < first:
        raise ConfigError(f"invalid year range {text!r}: the last year precedes the first")
    return first, last


def parse_split_years(text: str) -> tuple[tuple[str, int, int], ...]:
    """``"train=1977-2012,val=2013,test=2014-2015"`` as ``(split, first, last)`` triples."""
    out = []
    for part in filter(None, (s.strip() for s in text.split(","))):
        name, eq, years = part.partition("=")
        if not eq or name.strip() not in SPLITS:
            raise ConfigError(
                f"invalid split range {part!r}: expected SPLIT=YYYY[-YYYY], SPLIT one of {SPLITS}"
            )
        out.append((name.strip(), *parse_year_range(years)))
    return tuple(out)


@dataclass(frozen=True)
class BuildOptions(CheckedTable):
    """What a dataset holds; saved in its manifest (a rebuild with other options is refused
    unless ``overwrite``).

    - ``keep``: whose moves become rows: ``all``, the game's ``winner`` (draws give none), or
      one colour (``black``/``white``).
    - ``passes``: include forced-pass rows (move ``size*size``).
    - ``dedup``: merge identical positions (per split) into one row with a policy
      distribution of the moves played there and mean outcome and score.
    - ``symmetries``: store all 8 symmetric images of every row (before dedup).
    - ``split``: ``hash`` (each game by a hash of its moves and ``seed``: ``val_fraction``
      and ``test_fraction`` of the games) or ``year`` (``split_years`` ranges; games in no
      range are left out).
    - ``years``: keep only games of these years (inclusive), if given.
    - ``score``: the final result from the ``replay`` of the moves or as ``recorded``.
    - ``strict``: a bad game stops the build (naming file, game and move); else it is skipped
      and counted.
    """

    OPTIONS: ClassVar[dict[str, Option]] = {
        "keep": Option(str, choices=KEEP_CHOICES, help="whose moves become rows"),
        "passes": Option(bool, help="include forced-pass rows"),
        "dedup": Option(bool, help="merge identical positions of a split into one row"),
        "symmetries": Option(bool, help="store all 8 symmetric images of every row"),
        "split": Option(str, choices=SPLIT_CHOICES, help="how games are split"),
        "val_fraction": Option(float, 0.0, 1.0, help="share of the games in val (split hash)"),
        "test_fraction": Option(float, 0.0, 1.0, help="share of the games in test (split hash)"),
        "seed": Option(int, 0, 2**63 - 1, help="seed of the hash split"),
        "split_years": Option(object, spec=False, help="(split, first, last) year ranges"),
        "years": Option(object, spec=False, optional=True, help="keep only these years"),
        "score": Option(str, choices=SCORE_CHOICES, help="the final result: replay or recorded"),
        "strict": Option(bool, help="a bad game stops the build"),
    }
    TABLE: ClassVar[str] = "dataset build"

    keep: str = "all"
    passes: bool = True
    dedup: bool = False
    symmetries: bool = False
    split: str = "hash"
    val_fraction: float = 0.05
    test_fraction: float = 0.05
    seed: int = 0
    split_years: tuple[tuple[str, int, int], ...] = ()
    years: tuple[int, int] | None = None
    score: str = "replay"
    strict: bool = True

    def __post_init__(self) -> None:
        super().__post_init__()
        object.__setattr__(self, "split_years", tuple(tuple(r) for r in self.split_years))
        if self.years is not None:
            object.__setattr__(self, "years", tuple(self.years))
        if self.val_fraction + self.test_fraction > 1.0:
            raise ConfigError("val_fraction + test_fraction exceeds 1")
        if self.split == "year":
            if not self.split_years:
                raise ConfigError("split='year' needs split_years, e.g. train=1977-2012,val=2013")
            ranges = sorted((lo, hi, s) for s, lo, hi in self.split_years)
            for (_lo1, hi1, s1), (lo2, _, s2) in itertools.pairwise(ranges):
                if lo2 <= hi1:
                    raise ConfigError(f"split_years: the ranges of {s1} and {s2} overlap")
            for s, lo, hi in self.split_years:
                if s not in SPLITS or lo > hi:
                    raise ConfigError(f"split_years: invalid range {s}={lo}-{hi}")

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (lists for tuples)."""
        d = asdict(self)
        d["split_years"] = [list(r) for r in self.split_years]
        d["years"] = list(self.years) if self.years else None
        return d

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> BuildOptions:
        """Options from ``to_dict``'s output; unknown keys are rejected."""
        known = set(cls.__dataclass_fields__)
        extra = set(data) - known
        if extra:
            raise ConfigError(f"BuildOptions: unknown keys {sorted(extra)}")
        d = dict(data)
        d["split_years"] = tuple(tuple(r) for r in d.get("split_years", ()))
        d["years"] = tuple(d["years"]) if d.get("years") else None
        return cls(**d)


@dataclass(frozen=True)
class BuildReport:
    """What a build did: where the dataset is, its manifest, the time it took, how many
    sources came from the resume cache, and whether it was already up to date."""

    out_dir: Path
    manifest: dict[str, Any] = field(repr=False)
    seconds: float
    reused_sources: int
    up_to_date: bool = False

    def rows(self, split: str) -> int:
        """Rows of one split."""
        return int(self.manifest["splits"][split]["rows"])


# ----------------------------------------------------------------------------------------------
# Hashes of games: content-defined (placing moves and start), so a game lands in the same split
# whatever file or order it comes from.


@kernel
def _mix(x: int) -> int:
    z = U64(x) + U64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> U64(30))) * U64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> U64(27))) * U64(0x94D049BB133111EB)
    return z ^ (z >> U64(31))


@kernel
def _game_hashes(
    moves: np.ndarray, start_p: np.ndarray, start_o: np.ndarray, size: int
) -> np.ndarray:
    out = np.empty(moves.shape[0], dtype=np.uint64)
    npass = size * size
    for g in range(moves.shape[0]):
        h = _mix(_mix(U64(start_p[g])) ^ U64(start_o[g]))
        for j in range(moves.shape[1]):
            m = moves[g, j]
            if m < 0:
                break
            if m != npass:
                h = _mix(h ^ U64(m + 1))
        out[g] = h
    return out


@kernel
def _salted(h: np.ndarray, seed: int) -> np.ndarray:
    out = np.empty(h.shape[0], dtype=np.uint64)
    s = _mix(U64(seed))
    for i in range(h.shape[0]):
        out[i] = _mix(h[i] ^ s)
    return out


def game_split_fractions(
    game_hash: np.ndarray, *, seed: int, val: float, test: float
) -> np.ndarray:
    """Split index per game (0 train, 1 val, 2 test) from its hash salted by ``seed``."""
    u = (_salted(np.ascontiguousarray(game_hash, dtype=np.uint64), seed) >> np.uint64(11)).astype(
        np.float64
    ) * 2.0**-53
    return np.where(u < test, 2, np.where(u < test + val, 1, 0)).astype(np.int8)


# ----------------------------------------------------------------------------------------------
# Per-source cache (resume)


_GAME_CACHE = ("n_rows", "n_passes", "final_black", "complete", "valid")


def _cache_key(sha: str, strict: bool) -> str:
    return f"{sha[:32]}-{'strict' if strict else 'lenient'}-v{CACHE_VERSION}"


def _replay_source(games: GameArrays, strict: bool) -> dict[str, np.ndarray]:
    r = replay_games(games, strict=strict)
    out = {name: getattr(r, name) for name in Replayed.ROW_FIELDS + _GAME_CACHE}
    out["year"] = games.year
    out["recorded_score"] = games.recorded_score
    out["game_hash"] = _game_hashes(
        np.ascontiguousarray(games.moves), games.start_p, games.start_o, games.size
    )
    out["size"] = np.array([games.size])
    return out


def _load_cached(folder: Path) -> dict[str, np.ndarray] | None:
    """A source's cached replay, its ``recorded_score`` in ``NO_SCORE`` even when the cache
    was written with ``OLD_NO_SCORE``."""
    cached = load_replayed(folder)
    if cached is None:
        return None
    recorded = cached.get("recorded_score")
    if recorded is not None:
        recorded[recorded == OLD_NO_SCORE] = NO_SCORE
    return cached


def _save_cached(folder: Path, arrays: dict[str, np.ndarray]) -> None:
    save_replayed(folder, arrays)


# ----------------------------------------------------------------------------------------------
# Dedup


@kernel
def _top_moves(
    pm_pos: np.ndarray, pm_move: np.ndarray, pm_counts: np.ndarray, n_pos: int
) -> np.ndarray:
    """Most played move of each position (entries sorted by position, then move: the first
    strict maximum is the lowest move among ties)."""
    top = np.zeros(n_pos, dtype=np.uint8)
    best = np.zeros(n_pos, dtype=np.int64)
    for j in range(pm_pos.shape[0]):
        q = pm_pos[j]
        if pm_counts[j] > best[q]:
            best[q] = pm_counts[j]
            top[q] = pm_move[j]
    return top


def _sort_positions(
    p: np.ndarray, o: np.ndarray, move: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """An order of the rows grouping equal positions, moves ascending within each position,
    with ``p`` and ``o`` in that order.

    Sorts one 64-bit key (the position's Zobrist hash with the move in the low 7 bits) and
    falls back to an exact three-key sort if two different positions share a key.
    """
    key = (hash_position_batch(p, o) & np.uint64(~0x7F & (2**64 - 1))) | move.astype(np.uint64)
    order = np.argsort(key)
    ks = key[order] >> np.uint64(7)
    same_key = ks[1:] == ks[:-1]
    ps, os_ = p[order], o[order]
    if np.any(same_key & ((ps[1:] != ps[:-1]) | (os_[1:] != os_[:-1]))):
        order = np.lexsort((move, o, p))
        return order, p[order], o[order]
    return order, ps, os_


def dedup_rows(rows: dict[str, np.ndarray], size: int) -> dict[str, np.ndarray]:
    """Merge rows of identical positions ``(p, o)``: one row each, in order of first
    occurrence, with the moves played there as a CSR policy (``policy_offsets``,
    ``policy_moves``, ``policy_counts``), ``count`` occurrences, ``move`` the most played
    move (lowest index on ties), mean ``outcome`` and ``score``; the other columns are those
    of the first occurrence."""
    p, o, move = rows["p"], rows["o"], rows["move"]
    n = p.shape[0]
    if n == 0:
        out = {k: v[:0] for k, v in rows.items()}
        out["outcome"] = np.zeros(0, dtype=np.float32)
        out["score"] = np.zeros(0, dtype=np.float32)
        out["count"] = np.zeros(0, dtype=np.uint32)
        out["policy_offsets"] = np.zeros(1, dtype=np.int64)
        out["policy_moves"] = np.zeros(0, dtype=np.uint8)
        out["policy_counts"] = np.zeros(0, dtype=np.uint32)
        return out
    order, ps, os_ = _sort_positions(p, o, move)
    ms = move[order]
    new_pos = np.ones(n, dtype=bool)
    new_pos[1:] = (ps[1:] != ps[:-1]) | (os_[1:] != os_[:-1])
    new_pm = new_pos.copy()
    new_pm[1:] |= ms[1:] != ms[:-1]
    pos_starts = np.flatnonzero(new_pos)
    counts = np.diff(pos_starts, append=n)
    pos_id = np.cumsum(new_pos) - 1
    pm_starts = np.flatnonzero(new_pm)
    pm_counts = np.diff(pm_starts, append=n)
    pm_pos = pos_id[pm_starts]
    pm_move = ms[pm_starts]
    n_pos = pos_starts.shape[0]
    first_row = np.minimum.reduceat(order, pos_starts)
    outcome_sum = np.add.reduceat(rows["outcome"][order].astype(np.float64), pos_starts)
    score_sum = np.add.reduceat(rows["score"][order].astype(np.float64), pos_starts)
    top_move = _top_moves(pm_pos, pm_move, pm_counts, n_pos)
    # Reorder positions by first occurrence and re-lay the CSR policy to match.
    perm = np.argsort(first_row)
    npm = np.bincount(pm_pos, minlength=n_pos)
    old_off = np.zeros(n_pos + 1, dtype=np.int64)
    np.cumsum(npm, out=old_off[1:])
    new_npm = npm[perm]
    new_off = np.zeros(n_pos + 1, dtype=np.int64)
    np.cumsum(new_npm, out=new_off[1:])
    src = np.repeat(old_off[:-1][perm] - new_off[:-1], new_npm) + np.arange(new_off[-1])
    first = first_row[perm]
    out = {k: v[first] for k, v in rows.items() if k not in ("outcome", "score", "move")}
    out["move"] = top_move[perm]
    cnt = counts[perm]
    out["count"] = cnt.astype(np.uint32)
    out["outcome"] = (outcome_sum[perm] / cnt).astype(np.float32)
    out["score"] = (score_sum[perm] / cnt).astype(np.float32)
    out["policy_offsets"] = new_off
    out["policy_moves"] = pm_move[src].astype(np.uint8)
    out["policy_counts"] = pm_counts[src].astype(np.uint32)
    return out


def expand_symmetries(rows: dict[str, np.ndarray], size: int) -> dict[str, np.ndarray]:
    """All 8 symmetric images of every row, as 8 consecutive blocks (block ``k`` = symmetry
    ``k``), with a ``symmetry`` column."""
    n = rows["p"].shape[0]
    table = symmetry_table(size)
    out: dict[str, np.ndarray] = {}
    for name, a in rows.items():
        if name in ("p", "o"):
            out[name] = np.concatenate([transform_bitboards(a, k, size) for k in range(8)])
        elif name == "move":
            out[name] = np.concatenate([table[k][a].astype(a.dtype) for k in range(8)])
        else:
            out[name] = np.tile(a, 8)
    out["symmetry"] = np.repeat(np.arange(8, dtype=np.uint8), n)
    return out


# ----------------------------------------------------------------------------------------------
# The build


def _progress(enabled: bool) -> Any:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        disable=not enabled,
        transient=False,
    )


def build_dataset(
    sources: Sequence[str | Path | GameArrays],
    out_dir: str | Path,
    *,
    keep: str = "all",
    passes: bool = True,
    dedup: bool = False,
    symmetries: bool = False,
    split: str = "hash",
    val_fraction: float = 0.05,
    test_fraction: float = 0.05,
    seed: int = 0,
    split_years: str | Sequence[tuple[str, int, int]] = (),
    years: str | tuple[int, int] | None = None,
    score: str = "replay",
    strict: bool = True,
    overwrite: bool = False,
    progress: bool = True,
) -> BuildReport:
    """Build a dataset at ``out_dir`` from record files (a folder stands for its ``.wtb``
    files) or ``GameArrays``; see ``BuildOptions`` for the options.

    An existing dataset with the same options and source contents is left as it is
    (``up_to_date``); one with others is replaced only with ``overwrite``. An interrupted build
    resumes from ``OUT.partial/`` (sources already replayed are reused).
    """
    t0 = time.perf_counter()
    options = BuildOptions(
        keep=keep,
        passes=passes,
        dedup=dedup,
        symmetries=symmetries,
        split=split,
        val_fraction=val_fraction,
        test_fraction=test_fraction,
        seed=seed,
        split_years=parse_split_years(split_years)
        if isinstance(split_years, str)
        else tuple(split_years),
        years=parse_year_range(years) if isinstance(years, str) else years,
        score=score,
        strict=strict,
    )
    out = Path(out_dir)
    items: list[Path | GameArrays] = []
    for s in sources:
        items.extend([s] if isinstance(s, GameArrays) else expand_sources([s]))
    if not items:
        raise ConfigError("build_dataset: no sources given")
    described = []
    for s in items:
        if isinstance(s, GameArrays):
            described.append({"name": s.name, "path": None, "sha256": sha256_arrays(s)})
        else:
            described.append({"name": s.name, "path": str(s), "sha256": sha256_file(s)})

    if (out / MANIFEST).is_file():
        try:
            old = read_manifest(out)
        except DatasetFormatError:
            old = {}
        same = old.get("options") == options.to_dict() and [
            x["sha256"] for x in old.get("sources", [])
        ] == [x["sha256"] for x in described]
        if same:
            return BuildReport(out, old, time.perf_counter() - t0, 0, up_to_date=True)
        if not overwrite:
            raise DatasetExistsError(
                f"{out} holds a dataset built from other sources or options (pass overwrite)"
            )
    elif out.exists() and not overwrite:
        raise DatasetExistsError(
            f"{out} exists and is not a dataset (pass overwrite to replace it)"
        )

    work = out.with_name(out.name + ".partial")
    state = {"cache_version": CACHE_VERSION}
    if work.exists():
        try:
            ok = json.loads((work / "state.json").read_text()) == state
        except (OSError, ValueError):
            ok = False
        if not ok:
            shutil.rmtree(work)
    (work / "sources").mkdir(parents=True, exist_ok=True)
    write_json(work / "state.json", state)

    parts: list[dict[str, np.ndarray]] = []
    reused = 0
    with _progress(progress) as bar:
        task = bar.add_task("replaying sources", total=len(items))
        for item, desc in zip(items, described, strict=True):
            folder = work / "sources" / _cache_key(desc["sha256"], options.strict)
            cached = _load_cached(folder)
            if cached is None:
                games = item if isinstance(item, GameArrays) else load_source(item)
                cached = _replay_source(games, options.strict)
                _save_cached(folder, cached)
            else:
                reused += 1
            parts.append(cached)
            bar.update(task, advance=1, description=f"replayed {desc['name']}")
        assemble = bar.add_task("writing splits", total=len(SPLITS))
        manifest = _assemble(parts, described, options, out, overwrite, bar, assemble)
    seconds = time.perf_counter() - t0
    manifest["build"]["seconds"] = round(seconds, 2)
    write_json(out / MANIFEST, manifest)
    shutil.rmtree(work, ignore_errors=True)
    return BuildReport(out, manifest, seconds, reused)


def _assemble(
    parts: list[dict[str, np.ndarray]],
    described: list[dict[str, Any]],
    options: BuildOptions,
    out: Path,
    overwrite: bool,
    bar: Any,
    task: Any,
) -> dict[str, Any]:
    sizes = {int(p["size"][0]) for p in parts}
    if len(sizes) != 1:
        raise ConfigError(f"sources mix board sizes {sorted(sizes)}")
    size = sizes.pop()
    npass = size * size
    game_offsets = np.cumsum([0] + [len(p["valid"]) for p in parts])
    cat = {
        k: np.concatenate([p[k] for p in parts])
        for k in (*_GAME_CACHE, "year", "recorded_score", "game_hash")
    }
    n_games = int(game_offsets[-1])
    score_black = game_results(
        cat["final_black"], cat["complete"], cat["recorded_score"], options.score
    )
    if options.score == "recorded":
        missing = np.flatnonzero(cat["valid"] & (score_black == NO_SCORE))
        if missing.size:
            g = int(missing[0])
            src = int(np.searchsorted(game_offsets, g, side="right")) - 1
            raise RecordError(
                "records no score (use score='replay')",
                source=described[src]["name"],
                game=g - game_offsets[src] + 1,
            )
    used = cat["valid"].copy()
    if options.years is not None:
        lo, hi = options.years
        used &= (cat["year"] >= lo) & (cat["year"] <= hi)
    if options.split == "hash":
        game_split = game_split_fractions(
            cat["game_hash"],
            seed=options.seed,
            val=options.val_fraction,
            test=options.test_fraction,
        )
    else:
        game_split = np.full(n_games, -1, dtype=np.int8)
        for name, lo, hi in options.split_years:
            game_split[(cat["year"] >= lo) & (cat["year"] <= hi)] = SPLITS.index(name)
    game_split[~used] = -1

    rows_game = np.concatenate(
        [p["game"].astype(np.int64) + off for p, off in zip(parts, game_offsets, strict=False)]
    )
    color = np.concatenate([p["color"] for p in parts])
    move = np.concatenate([p["move"] for p in parts])
    sign = 1 - 2 * color.astype(np.int64)
    row_score = score_black[rows_game] * sign
    row_split = game_split[rows_game]
    keep = row_split >= 0
    if options.keep == "winner":
        keep &= row_score > 0
    elif options.keep in ("black", "white"):
        keep &= color == (0 if options.keep == "black" else 1)
    if not options.passes:
        keep &= move != npass

    columns = {
        "p": np.concatenate([p["p"] for p in parts]),
        "o": np.concatenate([p["o"] for p in parts]),
        "color": color,
        "move": move,
        "outcome": np.sign(row_score).astype(np.int8),
        "score": row_score.astype(np.int8),
        "game": rows_game.astype(np.int32),
        "move_number": np.concatenate([p["move_number"] for p in parts]),
        "year": cat["year"][rows_game].astype(np.int16),
    }
    splits_manifest: dict[str, Any] = {}
    with replace_dir(out, overwrite=overwrite) as tmp:
        for index, name in enumerate(SPLITS):
            sel = np.flatnonzero(keep & (row_split == index))
            rows = {k: v[sel] for k, v in columns.items()}
            rows_before = int(sel.size)
            if options.symmetries:
                rows = expand_symmetries(rows, size)
            if options.dedup:
                rows = dedup_rows(rows, size)
            arrays = write_arrays(tmp / name, rows)
            split_games = int(np.count_nonzero(game_split == index))
            splits_manifest[name] = {
                "rows": int(rows["p"].shape[0]),
                "games": split_games,
                "games_with_rows": int(
                    np.count_nonzero(np.bincount(columns["game"][sel], minlength=n_games))
                ),
                "positions_before_dedup": rows_before * (8 if options.symmetries else 1),
                "arrays": arrays,
            }
            bar.update(task, advance=1)
        manifest = {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "created": _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "othellolab_version": _version(),
            "size": size,
            "policy_size": npass + 1,
            "options": options.to_dict(),
            "conventions": CONVENTIONS,
            "sources": [
                {
                    **d,
                    "games": int(game_offsets[i + 1] - game_offsets[i]),
                    "first_game": int(game_offsets[i]),
                    "years": _years(cat["year"][game_offsets[i] : game_offsets[i + 1]]),
                }
                for i, d in enumerate(described)
            ],
            "counts": {
                "games": n_games,
                "games_invalid": int(np.count_nonzero(~cat["valid"])),
                "games_used": int(np.count_nonzero(game_split >= 0)),
                "games_incomplete": int(np.count_nonzero(cat["valid"] & ~cat["complete"])),
                "games_score_mismatch": int(
                    np.count_nonzero(
                        cat["valid"]
                        & (cat["recorded_score"] != NO_SCORE)
                        & (cat["recorded_score"] != cat["final_black"])
                    )
                ),
                "actions": int(cat["n_rows"][game_split >= 0].sum()),
                "passes": int(cat["n_passes"][game_split >= 0].sum()),
                "placing_moves": int((cat["n_rows"] - cat["n_passes"])[game_split >= 0].sum()),
                "rows": int(sum(s["rows"] for s in splits_manifest.values())),
            },
            "splits": splits_manifest,
            "build": {},
        }
        write_json(tmp / MANIFEST, manifest)
    return manifest


def _years(year: np.ndarray) -> list[int] | None:
    known = year[year >= 0]
    return [int(known.min()), int(known.max())] if known.size else None


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("othellolab")
    except Exception:
        return "unknown"
