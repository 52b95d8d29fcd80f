"""The JSON shapes of the web board's HTTP API, as pydantic models (they make the OpenAPI schema).

Requests forbid unknown fields and are strict about types (``8.0`` is not the integer ``8``,
``"8"`` is not a number), so a typo in a client is a 422 that names the field, not a silently
ignored or converted option. The app refuses duplicate keys before these models see a body.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

ColorName = Literal["black", "white"]
JSONScalar = int | float | bool | str | None


def _board_size(size: int) -> int:
    if size not in (8, 6, 4):
        raise ValueError("the board size must be 8, 6 or 4")
    return size


class _Request(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class NewGame(_Request):
    """Start a game: board size, the human's colour, the opponent, optionally a recorded game."""

    size: Annotated[int, AfterValidator(_board_size)] = Field(
        8, json_schema_extra={"enum": [8, 6, 4]}
    )
    human: Literal["black", "white", "random", "both"] = Field(
        "black", description="the human's colour; 'both' means no AI moves (two people, replay)"
    )
    opponent: str | None = Field(
        None,
        max_length=500,
        description="player spec such as 'greedy:seed=1' (default: the server's opponent)",
    )
    record: str | None = Field(
        None,
        max_length=20_000,
        description="a game to load: a transcript such as 'f5d6c3d3c4' (passes optional) or a "
        "GGF game '(;GM[Othello]...;)'",
    )
    record_format: Literal["auto", "transcript", "ggf"] = Field(
        "auto", description="'auto' reads GGF when the record contains '(;', else a transcript"
    )
    ply: int | None = Field(
        None, ge=0, description="with a record: the ply to show first (default: its end)"
    )
    think_time: float | None = Field(
        None,
        gt=0,
        le=3600,
        description="seconds the AI may think per move (default: its own; at most the "
        "server's max_think_time)",
    )
    seed: int | None = Field(
        None, ge=0, le=2**63 - 1, description="seed for choosing a random colour"
    )


class MoveRequest(_Request):
    """The human's move: a square name like ``f5``, or ``pass`` when there is no legal move."""

    move: str = Field(..., min_length=1, max_length=16, examples=["f5", "pass"])


class GotoRequest(_Request):
    """Show the position after ``ply`` moves of the recorded game (0 = the start)."""

    ply: int = Field(..., ge=0, le=10_000)


class Evaluation(BaseModel):
    """What a player reported about a position, from the human's point of view.

    ``value`` is the expected (or, when ``exact``, proven) final disc difference for the human,
    or with ``unit="result"`` the expected result in [-1, 1]; ``policy`` has one probability per action (``size*size + 1``, pass last).
    """

    ply: int = Field(description="the position evaluated: after this many moves")
    by: Literal["ai", "hint"]
    player: str
    move: str
    value: float | None = None
    unit: Literal["discs", "result"] = Field(
        "discs", description="'discs': a final disc difference; 'result': a result in [-1, 1]"
    )
    exact: bool = False
    win_prob: float | None = None
    policy: list[float] | None = None


class Result(BaseModel):
    """A finished game: disc counts with the empties given to the winner, as WTHOR scores."""

    winner: ColorName | None
    black: int
    white: int
    text: str = Field(description="e.g. 'black wins 40-24'")
    human_score: int | None = Field(
        None, description="final disc difference for the human (none when both sides are human)"
    )


class GameState(BaseModel):
    """Everything the board page shows: the position at the cursor and the recorded moves."""

    id: str
    size: int
    human: Literal["black", "white", "both"]
    opponent: str = Field(description="the opponent's player spec")
    cells: list[int] = Field(description="a1, b1, ... : 0 empty, 1 black, 2 white")
    turn: ColorName
    to_move: Literal["human", "ai", "nobody"]
    legal: list[str] = Field(description="legal placing moves of the side to move")
    must_pass: bool
    game_over: bool
    black_discs: int
    white_discs: int
    result: Result | None
    ply: int = Field(description="moves played up to the position shown")
    moves: list[str] = Field(description="every recorded move (beyond ply: redo), passes as 'pass'")
    last_move: str | None
    transcript: str = Field(description="the moves up to ply, passes omitted")
    can_undo: bool
    can_redo: bool
    busy: Literal["ai", "hint"] | None = Field(description="what the server is thinking about")
    evaluation: Evaluation | None = Field(description="the AI's report on its latest move")
    hint: Evaluation | None = Field(description="a hint for the position shown, once asked")
    version: int = Field(description="increases with every change of the game")


class PlayerInfo(BaseModel):
    """A registered player, with the options its spec accepts, their defaults and ranges."""

    name: str
    help: str
    strength: int
    aliases: list[str]
    options: dict[str, Any]
    defaults: dict[str, Any]
    ranges: dict[str, str] = Field(
        default_factory=dict, description="each option's allowed values, in words"
    )
    rating: dict[str, Any] | None = Field(
        None,
        description="the ladder's rating of its default setting (elo, low, high, spec, games)",
    )


class ServerLimits(BaseModel):
    """What this server allows every search: it stops each one by ``max_think_time`` seconds
    (plus a small margin) and after ``max_nodes`` nodes, simulations or playouts."""

    max_think_time: float
    max_nodes: int
    models: list[str] = Field(description="model names that a 'model=' option may give")


class PlayersResponse(BaseModel):
    """Every registered player (strongest first) and the server's default opponent and hinter."""

    players: list[PlayerInfo]
    default_opponent: str
    hint_player: str
    formats: list[str] = Field(description="record formats that games can be loaded from")
    limits: ServerLimits | None = None


class ErrorResponse(BaseModel):
    """Any 4xx/5xx answer: a message saying what was wrong and where."""

    detail: str
