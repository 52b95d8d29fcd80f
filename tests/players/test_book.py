"""The opening book: canonical keys, the negamax of its values, the files, and a build.

The negamax is checked against an independent recursive minimax over ``Board`` (the rules that
perft checks), on a book holding every position of the first three plies."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from othellolab.core import Board, ConfigError
from othellolab.fitting.book import (
    CHUNK,
    BookOptions,
    SearchCache,
    _search_all,
    book_nodes,
    build_book,
    negamax_values,
)
from othellolab.nn.files import ModelFileError
from othellolab.players.search.book import (
    Book,
    canonical,
    canonical_batch,
    keys_of,
    load_book,
    save_book,
)

WTHOR = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "wthor"


def _disc_value(board: Board) -> float:
    return float(board.player.bit_count() - board.opponent.bit_count())


def _tree(plies: int) -> list[Board]:
    out, layer = [Board()], [Board()]
    for _ in range(plies):
        layer = [b.play(a) for b in layer for a in b.legal_actions()]
        out += layer
    return out


def _minimax(board: Board, depth: int) -> float:
    """Plain negamax with the disc count at depth 0 (independent of the book's code)."""
    if board.is_game_over():
        return _disc_value(board)
    if depth == 0:
        return _disc_value(board)
    return max(-_minimax(board.play(a), depth - 1) for a in board.legal_actions())


def _static(keys: np.ndarray) -> np.ndarray:
    return np.array([
        float(int(a).bit_count() - int(b).bit_count()) for a, b in zip(keys["p"], keys["o"], strict=True)
    ])  # fmt: skip


def test_canonical_is_the_same_for_every_symmetric_image() -> None:
    board = Board().play("f5").play("d6").play("c3")
    images = board.symmetries()
    assert len({canonical(b.player, b.opponent) for b in images}) == 1
    p = np.array([b.player for b in images], np.uint64)
    o = np.array([b.opponent for b in images], np.uint64)
    cp, co = canonical_batch(p, o)
    assert set(zip(cp.tolist(), co.tolist(), strict=True)) == {
        canonical(board.player, board.opponent)
    }


def test_negamax_of_a_full_three_ply_book_is_the_four_ply_minimax() -> None:
    boards = _tree(3)
    p = np.array([b.player for b in boards], np.uint64)
    o = np.array([b.opponent for b in boards], np.uint64)
    keys, counts = book_nodes(p, o, max_plies=3, min_count=1)
    # 1 + 4 + 12 + 56 positions (perft 0-3), fewer after the symmetries merge them
    assert len(keys) < 73 and counts.sum() == 73
    value, stats = negamax_values(keys, _static)
    book = Book(keys, np.rint(value).astype(np.int8), counts, np.zeros(len(keys), np.uint8))
    for board in boards:
        assert book.lookup(board) == round(_minimax(board, 8 - (64 - board.num_empties)))
    assert stats["moves_in_book"] > 0 and stats["searched_positions"] > 0


def test_the_book_plays_its_best_move_and_hands_over_to_the_search() -> None:
    boards = _tree(2)
    p = np.array([b.player for b in boards], np.uint64)
    o = np.array([b.opponent for b in boards], np.uint64)
    keys, counts = book_nodes(p, o, max_plies=2, min_count=1)
    value, _ = negamax_values(keys, _static)
    book = Book(keys, np.rint(value).astype(np.int8), counts, np.zeros(len(keys), np.uint8))
    start = Board()
    moves = book.moves(start)
    assert [m.value for m in moves] == sorted((m.value for m in moves), reverse=True)
    assert book.choose(start) is not None and book.choose(start).value == book.lookup(start)
    # one ply past the book's last positions: nothing to look up
    deep = start.play("f5").play("d6").play("c3")
    assert book.lookup(deep) is None and book.choose(deep) is None


def test_files_round_trip_and_damage_is_named(tmp_path: Path) -> None:
    keys = keys_of(*canonical_batch(np.array([Board().player], np.uint64),
                                    np.array([Board().opponent], np.uint64)))  # fmt: skip
    d = save_book(tmp_path / "b", keys, np.array([0]), np.array([7]), np.array([8]), {"x": 1})
    book = load_book(d)
    assert len(book) == 1 and book.entry(Board()) == {"value": 0, "count": 7, "depth": 8}
    data = (d / "book.safetensors").read_bytes()
    (d / "book.safetensors").write_bytes(data[:-3])
    with pytest.raises(ModelFileError, match="book.safetensors"):
        load_book(d)
    (d / "book.safetensors").write_bytes(data)
    config = json.loads((d / "config.json").read_text())
    (d / "config.json").write_text(json.dumps({**config, "format": "edax-book"}))
    with pytest.raises(ModelFileError, match="not an othellolab opening book"):
        load_book(d)
    with pytest.raises(FileNotFoundError, match="no opening book"):
        load_book(tmp_path / "nowhere")


def test_options_are_checked() -> None:
    with pytest.raises(Exception, match="max_plies"):
        BookOptions(wthor_dir="x", max_plies=0)
    with pytest.raises(Exception, match="depth"):
        BookOptions(wthor_dir="x", depth=99)
    with pytest.raises(Exception, match="no games"):
        BookOptions()
    with pytest.raises(ConfigError, match="probcut"):
        BookOptions(wthor_dir="x", probcut=float("nan"))
    with pytest.raises(ConfigError, match="probcut"):
        BookOptions(wthor_dir="x", probcut=11.0)
    with pytest.raises(ConfigError, match="workers"):
        BookOptions(wthor_dir="x", workers=0)
    with pytest.raises(ConfigError, match="evaluation.*patterns-r1"):
        BookOptions(wthor_dir="x", evaluation="nosuch")
    assert "workers" not in BookOptions(wthor_dir="x", workers=2).described()


def test_searches_on_worker_processes_give_the_serial_values(tmp_path: Path) -> None:
    """Two worker processes, each searching its chunks on a fresh table, value every position as
    one process does; each evaluation and ProbCut confidence keeps its own cache file, and a
    search without ProbCut keeps the name the books built before it used."""
    boards = _tree(5)
    p, o = canonical_batch(
        np.array([b.player for b in boards], np.uint64),
        np.array([b.opponent for b in boards], np.uint64),
    )
    keys = np.unique(keys_of(p, o))
    assert len(keys) > CHUNK  # two tasks at least
    values = {}
    for workers in (1, 2):
        options = BookOptions(
            wthor_dir="x", evaluation="patterns-r1", probcut=1.5, workers=workers, progress=False
        )
        cache = SearchCache(tmp_path / str(workers), 4, options.evaluation, options.probcut)
        values[workers] = _search_all(keys, 4, cache, options, None)
        assert cache.path.name == "searched-patterns-r1-pc1.5-d4.npz" and cache.path.is_file()
    assert np.array_equal(values[1], values[2])
    assert SearchCache(tmp_path, 5, "patterns").path.name == "searched-patterns-d5.npz"


@pytest.mark.skipif(not WTHOR.is_dir(), reason=f"WTHOR files not found at {WTHOR}")
def test_a_build_from_wthor_resumes_from_its_search_cache(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    options = BookOptions(
        wthor_dir=str(WTHOR), years="2022", max_plies=4, min_count=5, depth=2, progress=False
    )
    book = build_book(tmp_path / "book", options)
    assert len(book) > 5 and book.lookup(Board()) is not None
    assert all(b.lookup(b2) is not None for b2 in [Board().play("f5")] for b in [book])
    # a second build searches nothing: every search comes from DIR/work
    import othellolab.players.search.midgame as midgame

    def no_search(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise AssertionError("searched again")

    monkeypatch.setattr(midgame, "search", no_search)
    again = build_book(tmp_path / "book", options)
    assert np.array_equal(again.value, book.value)
