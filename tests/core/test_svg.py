"""Boards that draw themselves (``core.svg``): the drawing parses as XML, holds the position's
discs or pieces, marks exactly the legal moves the rules give, names its coordinates, writes
the values of its heat map, and refuses bad options naming them."""

from __future__ import annotations

import math
import random
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from othellolab.core import BLACK, WHITE, Board, ConfigError, parse_move, square_name, svg
from othellolab.core import animal_shogi as shogi
from othellolab.core.animal_shogi import AnimalShogi
from othellolab.core.games import position_game

from helpers import FIXTURES, REPO, shared_file

NS = "{http://www.w3.org/2000/svg}"


def parse(text: str) -> ET.Element:
    root = ET.fromstring(text)
    assert root.tag == f"{NS}svg"
    return root


def marked(root: ET.Element, cls: str) -> list[str]:
    """The ``data-square`` of every element of class ``cls`` (a class among several counts)."""
    return [e.get("data-square", "") for e in root.iter() if cls in (e.get("class") or "").split()]


def texts(root: ET.Element, cls: str) -> list[str]:
    return [e.text or "" for e in root.iter() if e.get("class") == cls]


def random_position(size: int, plies: int, seed: int) -> Board:
    rng = random.Random(seed)
    board = Board(size=size)
    for _ in range(plies):
        if board.is_game_over():
            break
        board = board.play(rng.choice(board.legal_actions()))
    return board


def test_the_start_position_has_its_four_discs_and_four_legal_moves() -> None:
    root = parse(svg.board(Board()))
    assert sorted(marked(root, "black")) == ["d5", "e4"]  # DESIGN.md: black on e4 and d5
    assert sorted(marked(root, "white")) == ["d4", "e5"]
    # DESIGN.md: black's four legal first moves are d3, c4, f5, e6.
    assert sorted(marked(root, "legal")) == ["c4", "d3", "e6", "f5"]


@pytest.mark.parametrize("size", [4, 6, 8])
@pytest.mark.parametrize("seed", range(6))
def test_discs_and_legal_marks_follow_the_rules(size: int, seed: int) -> None:
    board = random_position(size, plies=3 * seed + 2, seed=seed)
    root = parse(svg.board(board))
    for colour, name in ((BLACK, "black"), (WHITE, "white")):
        assert len(marked(root, f"{name}")) == board.disc_count(colour)
        assert set(marked(root, name)) == {square_name(s, size) for s in board.discs(colour)}
    legal = {square_name(a, size) for a in board.legal_actions() if a != size * size}
    assert set(marked(root, "legal")) == legal
    assert len(marked(root, "legal")) == len(legal)
    assert not marked(parse(svg.board(board, legal=False)), "legal")


def test_a_wthor_game_s_final_position_and_last_move() -> None:
    from othellolab.records.wthor import read_wthor

    game = next(read_wthor(shared_file("wthor/WTH_2004.wtb")))
    final = game.final_board
    root = parse(svg.board(final, last=game.moves[-1]))
    assert len(marked(root, "black")) == final.disc_count(BLACK)
    assert len(marked(root, "white")) == final.disc_count(WHITE)
    assert marked(root, "last") == [square_name(game.moves[-1])]
    assert not marked(root, "legal")  # the game is over


def test_ffo_positions_draw_their_discs() -> None:
    from othellolab.records.obf import parse_obf_line

    lines = (FIXTURES / "fforum-1-19.obf").read_text().splitlines()
    for line in [x for x in lines if x.strip()][:5]:
        board = parse_obf_line(line).board
        root = parse(svg.board(board))
        assert len(marked(root, "black")) == board.disc_count(BLACK)
        assert len(marked(root, "white")) == board.disc_count(WHITE)


@pytest.mark.parametrize("size", [4, 6, 8])
def test_coordinates_name_every_column_and_row(size: int) -> None:
    root = parse(svg.board(Board(size=size)))
    labels = texts(root, "coord")
    assert labels == list("abcdefgh"[:size]) + [str(r) for r in range(1, size + 1)]
    assert not texts(parse(svg.board(Board(size=size), coordinates=False)), "coord")
    flipped = texts(parse(svg.board(Board(size=size), flipped=True)), "coord")
    assert sorted(flipped) == sorted(labels)


def test_a_value_per_square_is_shaded_and_written() -> None:
    values = np.full((8, 8), np.nan)
    values[2, 3] = 12.0  # d3
    values[4, 5] = -4.0  # f5
    root = parse(svg.board(Board(), values=values))
    assert sorted(marked(root, "heat")) == ["d3", "f5"]
    written = dict(zip(marked(root, "heat-label"), texts(root, "heat-label"), strict=True))
    assert written == {"d3": "+12", "f5": "-4"}
    shades = {e.get("data-square"): e.get("fill") for e in root.iter() if e.get("class") == "heat"}
    assert shades["d3"] != shades["f5"]  # positive and negative values differ in colour
    legend = [e for e in root.iter() if e.get("class") == "legend"]
    assert len(legend) == 1 and "+12" in ET.tostring(legend[0], encoding="unicode")
    plain = parse(svg.board(Board(), values=values, labels=False, legend=False))
    assert not texts(plain, "heat-label") and not [
        e for e in plain.iter() if e.get("class") == "legend"
    ]


def test_a_policy_is_summed_onto_its_squares_as_percentages() -> None:
    board = Board()
    policy = np.zeros(board.n_actions)
    for move, p in {"d3": 0.5, "c4": 0.25, "f5": 0.2, "e6": 0.05}.items():
        policy[parse_move(move)] = p
    policy[0] = 0.9  # a1 is not legal: a policy's illegal actions are not drawn
    root = parse(svg.board(board, values=policy))
    written = dict(zip(marked(root, "heat-label"), texts(root, "heat-label"), strict=True))
    assert written == {"d3": "50%", "c4": "25%", "f5": "20%", "e6": "5%"}
    mapping = parse(svg.board(board, values={"a1": 3, "h8": -1.5}, value_format="+.1f"))
    assert set(texts(mapping, "heat-label")) == {"+3.0", "-1.5"}


def test_arrows_and_the_last_move() -> None:
    root = parse(svg.board(Board(), arrows=[("d3", "d5"), svg.Arrow("c4", "c4", "green")]))
    arrows = [
        (e.get("data-from"), e.get("data-to")) for e in root.iter() if e.get("class") == "arrow"
    ]
    assert arrows == [("d3", "d5"), ("c4", "c4")]
    root = parse(svg.board(Board().play("f5"), last="f5"))
    assert marked(root, "last") == ["f5"] and not marked(root, "last-from")


def test_size_sets_the_width_and_keeps_the_shape() -> None:
    natural = parse(svg.board(Board()))
    scaled = parse(svg.board(Board(), size=200))
    assert scaled.get("width") == "200"
    ratio = float(natural.get("height")) / float(natural.get("width"))
    assert math.isclose(float(scaled.get("height")) / 200, ratio, rel_tol=1e-3)
    assert scaled.get("viewBox") == natural.get("viewBox")


@pytest.mark.parametrize(
    ("options", "option"),
    [
        ({"size": math.nan}, "size"),
        ({"size": math.inf}, "size"),
        ({"size": 0}, "size"),
        ({"size": svg.SIZE_RANGE[1] + 1}, "size"),
        ({"size": True}, "size"),
        ({"size": "big"}, "size"),
        ({"legal": "yes"}, "legal"),
        ({"coordinates": 1}, "coordinates"),
        ({"flipped": None}, "flipped"),
        ({"values": np.zeros((6, 6))}, "values"),
        ({"values": np.zeros(63)}, "values"),
        ({"values": [math.inf] * 64}, "values"),
        ({"values": {"z9": 1.0}}, "values"),
        ({"values": "hot"}, "values"),
        ({"value_format": "%d"}, "value_format"),
        ({"value_format": 3}, "value_format"),
        ({"arrows": [("d3", "j9")]}, "arrows"),
        ({"arrows": ["d3"]}, "arrows"),
        ({"arrows": "d3d5"}, "arrows"),
        ({"arrows": [svg.Arrow("d3", "d5", 'red" onload="alert(1)')]}, "arrows"),
        ({"last": "i1"}, "last"),
        ({"last": ("a1", "b1", "c1")}, "last"),
    ],
)
def test_bad_options_are_refused_naming_the_option(options: dict, option: str) -> None:
    with pytest.raises(ConfigError) as error:
        svg.board(Board(), **options)
    assert error.value.option == option
    assert f"option {option}" in str(error.value)


def test_the_size_range_is_inclusive() -> None:
    low, high = svg.SIZE_RANGE
    for size in (low, high, np.float32(300)):
        parse(svg.board(Board(size=4), size=size))


def test_board_draws_itself_for_jupyter() -> None:
    board = Board().play("f5")
    assert board._repr_svg_() == svg.board(board)


# animal shogi --------------------------------------------------------------------------------


def pieces(root: ET.Element) -> list[tuple[str, str]]:
    """``(letter, square)`` of each piece on the board (pieces in hand have no square)."""
    return [
        (e.get("data-piece", ""), e.get("data-square", ""))
        for e in root.iter()
        if e.get("class") == "piece" and e.get("data-square")
    ]


def test_animal_shogi_start_position() -> None:
    position = AnimalShogi()
    root = parse(svg.board(position))
    on_board = {
        (letter.upper(), shogi.square_name(s))
        for s in range(12)
        if (letter := position.piece_at(s)) is not None
    }
    assert len(pieces(root)) == 8 and set(pieces(root)) == on_board
    # The package's docstring: the first moves are b3b2, b4a3, c4c3, b4c3.
    assert sorted(marked(root, "legal")) == ["a3", "b2", "c3"]
    assert texts(root, "coord") == ["a", "b", "c", "1", "2", "3", "4"]


@pytest.mark.parametrize("seed", range(8))
def test_animal_shogi_pieces_hands_and_legal_destinations(seed: int) -> None:
    rng = random.Random(seed)
    position = AnimalShogi()
    for _ in range(4 + 3 * seed):
        if position.is_game_over():
            break
        position = position.play(rng.choice(position.legal_actions()))
    game = position_game(position)
    root = parse(svg.board(position))
    assert len(pieces(root)) == sum(position.piece_at(s) is not None for s in range(12))
    in_hand = [e for e in root.iter() if e.get("class") == "piece" and not e.get("data-square")]
    kinds = sum(1 for side in (0, 1) for n in position.hand(side).values() if n)
    assert len(in_hand) == kinds
    destinations = {game.move_parts(position, a)["to"] for a in position.legal_actions()}
    assert set(marked(root, "legal")) == destinations


def test_animal_shogi_last_move_arrows_and_policy() -> None:
    before = AnimalShogi()
    action = before.parse_move("b3b2")
    game = position_game(before)
    after = before.play(action)
    policy = np.zeros(game.n_actions)
    for a in after.legal_actions():
        policy[a] = 1 / len(after.legal_actions())
    root = parse(
        svg.board(after, last=game.move_parts(before, action), arrows=[("b1", "b2")], values=policy)
    )
    assert marked(root, "last") == ["b2"] and marked(root, "last-from") == ["b3"]
    assert [
        (e.get("data-from"), e.get("data-to")) for e in root.iter() if e.get("class") == "arrow"
    ] == [("b1", "b2")]
    destinations = {game.move_parts(after, a)["to"] for a in after.legal_actions()}
    assert set(marked(root, "heat")) == destinations
    assert after._repr_svg_() == svg.board(after)
    flipped = parse(svg.board(after, flipped=True))
    assert sorted(pieces(flipped)) == sorted(pieces(root))


def test_a_game_drawn_as_text_refuses_marks() -> None:
    class TextGame:
        label = "a text game"
        side_names = ("first", "second")

        def board_view(self, position: object) -> dict:
            return {"kind": "text", "rows": 1, "cols": 1, "squares": [], "cells": [], "text": "x<y"}

    root = parse(svg.board("pos", game=TextGame()))  # type: ignore[arg-type]
    assert "x<y" in ET.tostring(root, encoding="unicode").replace("&lt;", "<")
    with pytest.raises(ConfigError, match="option values"):
        svg.board("pos", game=TextGame(), values=[1.0])  # type: ignore[arg-type]


def test_the_docs_example_is_what_its_script_draws() -> None:
    """docs/drawing.md shows docs/img/board-example.svg, made by docs/img/board_example.py."""
    import importlib.util

    script = REPO / "docs" / "img" / "board_example.py"
    spec = importlib.util.spec_from_file_location("board_example", script)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    committed = (REPO / "docs" / "img" / "board-example.svg").read_text()
    assert committed == module.example() + "\n", f"run .venv/bin/python {script.relative_to(REPO)}"
    assert "board-example.svg" in (REPO / "docs" / "drawing.md").read_text()
