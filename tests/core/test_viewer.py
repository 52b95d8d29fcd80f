"""A game as an offline HTML viewer (``core.viewer``): one frame per position, each a drawing
that parses, the move that led to it marked, the final position shown first, and nothing that
reaches the network."""

from __future__ import annotations

import random
import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

import pytest

from othellolab.core import Board, ConfigError, MoveError, square_name
from othellolab.core.animal_shogi import AnimalShogi
from othellolab.core.viewer import game_html
from othellolab.records import GameRecord

from helpers import shared_file


class Frames(HTMLParser):
    """The frames of a viewer page: whether each is hidden, and the page's tags."""

    def __init__(self) -> None:
        super().__init__()
        self.hidden: list[bool] = []
        self.tags: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)
        named = dict(attrs)
        if "ol-frame" in (named.get("class") or "").split():
            self.hidden.append("hidden" in named)


def frames(page: str) -> Frames:
    parser = Frames()
    parser.feed(page)
    parser.close()
    return parser


def drawings(page: str) -> list[ET.Element]:
    return [ET.fromstring(m) for m in re.findall(r"<svg.*?</svg>", page, flags=re.S)]


def marked(root: ET.Element, cls: str) -> list[str]:
    return [e.get("data-square", "") for e in root.iter() if e.get("class") == cls]


def test_an_othello_game_has_one_frame_per_position() -> None:
    moves = ["f5", "d6", "c3", "d3", "c4"]
    page = game_html(Board(), moves, title="a <short> game")
    found = frames(page)
    assert len(found.hidden) == len(moves) + 1
    assert found.hidden == [True] * len(moves) + [False]  # the final position shows first
    assert "http" not in page.lower() and "script" not in found.tags and "link" not in found.tags
    assert "a &lt;short&gt; game" in page
    pictures = drawings(page)
    assert len(pictures) == len(moves) + 1
    assert marked(pictures[0], "last") == []
    assert [marked(p, "last") for p in pictures[1:]] == [[m] for m in moves]
    assert f'max="{len(moves)}"' in page and 'type="range"' in page


def test_a_wthor_game_renders_in_jupyter() -> None:
    from othellolab.records.wthor import read_wthor

    game = next(read_wthor(shared_file("wthor/WTH_2004.wtb")))
    page = game._repr_html_()
    assert len(frames(page).hidden) == len(game.boards)
    assert "http" not in page.lower()
    final = drawings(page)[-1]
    assert len(marked(final, "disc black")) == game.final_board.disc_count(0)
    assert marked(final, "last") == [square_name(game.moves[-1])]
    assert str(game.headers.get("black", "?")) in page


def test_a_record_with_a_pass() -> None:
    rng = random.Random(0)  # this random 4x4 game has a pass at move 12
    board, moves = Board(size=4), []
    while not board.is_game_over():
        move = rng.choice(board.legal_actions())
        moves.append(move)
        board = board.play(move)
    record = GameRecord(tuple(moves), start=Board(size=4))
    page = record._repr_html_()
    assert len(frames(page).hidden) == len(moves) + 1
    passes = [i for i, m in enumerate(moves, 1) if m == 16]
    assert passes
    pictures = drawings(page)
    for i in passes:
        assert marked(pictures[i], "last") == []  # a pass is nowhere on the board
        assert f"{i}. pass (" in page


def test_an_animal_shogi_game_by_move_names() -> None:
    moves = ["b3b2", "b1b2", "a4b3"]
    page = game_html(AnimalShogi(), moves, legal=True)
    pictures = drawings(page)
    assert len(frames(page).hidden) == len(pictures) == 4
    assert marked(pictures[1], "last-from") == ["b3"] and marked(pictures[1], "last") == ["b2"]
    assert "1. b3b2 (sente)" in page and "http" not in page.lower()
    ids = re.findall(r'id="([^"]+)"', page)
    assert len(ids) == len(set(ids))  # no two frames define the same id


def test_bad_games_and_options_are_named() -> None:
    with pytest.raises(MoveError, match="move 2"):
        game_html(Board(), ["f5", "a1"])
    for options, option in (
        ({"size": -3}, "size"),
        ({"size": None}, "size"),
        ({"legal": "no"}, "legal"),
        ({"title": 3}, "title"),
    ):
        with pytest.raises(ConfigError) as error:
            game_html(Board(), ["f5"], **options)
        assert error.value.option == option
