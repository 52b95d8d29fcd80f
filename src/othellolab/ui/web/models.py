"""The JSON shapes of the web board's HTTP API, as pydantic models (they make the OpenAPI schema).

Requests forbid unknown fields and are strict about types (``8.0`` is not the integer ``8``,
``"8"`` is not a number), so a typo in a client is a 422 that names the field, not a silently
ignored or converted option. The app refuses duplicate keys before these models see a body.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

JSONScalar = int | float | bool | str | None


def _board_size(size: int) -> int:
    if size not in (8, 6, 4):
        raise ValueError("the board size must be 8, 6 or 4")
    return size


class _Request(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class NewGame(_Request):
    """Start a game: which game (and board size), the human's side, the opponent, optionally a
    start position and a recorded game."""

    game: str = Field(
        "othello",
        min_length=1,
        max_length=40,
        description="a registered game: 'othello' (with size) or 'animal-shogi', or a key "
        "such as 'othello6'",
    )
    size: Annotated[int, AfterValidator(_board_size)] = Field(
        8, json_schema_extra={"enum": [8, 6, 4]}, description="the board size of Othello"
    )
    human: str = Field(
        "first",
        min_length=1,
        max_length=20,
        description="the human's side: a side name of the game ('black', 'white'; 'sente', "
        "'gote'), 'first' or 'second', 'random', or 'both' (no AI moves: two people, replay)",
    )
    opponent: str | None = Field(
        None,
        max_length=500,
        description="player spec such as 'greedy:seed=1' (default: the server's opponent for "
        "this game)",
    )
    position: str | None = Field(
        None,
        max_length=200,
        description="a start position in the game's position notation (animal shogi: SFEN)",
    )
    record: str | None = Field(
        None,
        max_length=20_000,
        description="a game to load: its moves ('f5d6c3d3c4', passes optional; 'b3b2 b2b3') "
        "or a GGF game '(;GM[Othello]...;)'",
    )
    record_format: Literal["auto", "transcript", "ggf"] = Field(
        "auto", description="'auto' reads GGF when the record contains '(;', else moves"
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
        None, ge=0, le=2**63 - 1, description="seed for choosing a random side"
    )


class MoveRequest(_Request):
    """The human's move: a square name like ``f5``, or ``pass`` when there is no legal move."""

    move: str = Field(..., min_length=1, max_length=16, examples=["f5", "pass"])


class GotoRequest(_Request):
    """Show the position after ``ply`` moves of the recorded game (0 = the start)."""

    ply: int = Field(..., ge=0, le=10_000)


class HintRequest(_Request):
    """Ask the hint player; with ``all_moves`` it also scores every legal move (each within a
    share of the server's time cap)."""

    all_moves: bool = False


class AnalyseRequest(_Request):
    """Evaluate every position of the game with the hint player, ``time_per_move`` seconds
    each (at most the server's max_think_time; the whole analysis stops at its own cap)."""

    time_per_move: float = Field(0.5, gt=0, le=60)


class MoveInfo(BaseModel):
    """A legal move: its name and where it acts on the board drawn (``Game.move_parts``)."""

    name: str
    from_: str | None = Field(None, alias="from")
    to: str | None = None
    drop: str | None = Field(None, description="the letter of a piece dropped from a hand")

    model_config = ConfigDict(populate_by_name=True)


class MoveEval(BaseModel):
    """What a search says of one legal move, for the side to move: its ``prior`` or policy
    share, ``visits`` and mean value ``q`` (in [-1, 1]) of a tree search, and ``score`` (in the
    evaluation's unit) when each move was searched on its own."""

    move: str
    to: str | None = None
    prior: float | None = None
    visits: int | None = None
    q: float | None = None
    score: float | None = None
    exact: bool = False


class Evaluation(BaseModel):
    """What a player reported about a position, from the human's point of view.

    ``value`` is the expected (or, when ``exact``, proven) final score for the human (Othello:
    the disc difference), or with ``unit="result"`` the expected result in [-1, 1]; ``policy``
    has one probability per action of the game (Othello: ``size*size + 1``, pass last).
    """

    ply: int = Field(description="the position evaluated: after this many moves")
    by: Literal["ai", "hint", "analysis"]
    player: str
    move: str
    value: float | None = None
    unit: Literal["discs", "result"] = Field(
        "discs", description="'discs': a final disc difference; 'result': a result in [-1, 1]"
    )
    exact: bool = False
    win_prob: float | None = None
    policy: list[float] | None = None
    pv: list[str] | None = Field(None, description="the principal variation, from the move")
    depth: int | None = None
    nodes: int | None = None
    simulations: int | None = None
    seconds: float | None = None
    moves: list[MoveEval] | None = Field(
        None, description="per legal move: policy, visits, Q and scores, best first"
    )


class Result(BaseModel):
    """A finished game: the winner's side, how it ended, and for Othello the disc counts with
    the empties given to the winner (as WTHOR scores)."""

    winner: str | None = Field(description="the winning side's name; none for a draw")
    black: int | None = Field(None, description="Othello: black's final count")
    white: int | None = Field(None, description="Othello: white's final count")
    text: str = Field(description="e.g. 'black wins 40-24', 'try'")
    reason: str | None = Field(None, description="the rule that ended the game, explained")
    human_score: int | None = Field(
        None, description="final score for the human (none when both sides are human)"
    )


class AnalysedMove(BaseModel):
    """One move of an analysed game: what the analysing player preferred and what it cost."""

    ply: int = Field(description="the move's index in the game (0: the first move)")
    side: str
    move: str
    best: str | None = None
    loss: float | None = Field(None, description="value lost for the mover, in [0, 2]")
    verdict: Literal["good", "inaccuracy", "mistake", "blunder"] | None = None


class Analysis(BaseModel):
    """Every position of the game evaluated: ``values[i]`` is the value after ``i`` moves for
    the first side, in [-1, 1] (``None`` where the time ran out)."""

    player: str
    time_per_move: float
    values: list[float | None]
    moves: list[AnalysedMove]
    complete: bool = Field(description="false when the analysis' time cap cut it short")
    seconds: float


class GameState(BaseModel):
    """Everything the board page shows: the position at the cursor and the recorded moves."""

    id: str
    game: str = Field(description="the game's key: 'othello8', 'othello6', 'animal-shogi'")
    title: str = Field(description="the game for people")
    sides: list[str] = Field(description="the sides' names, the first player's first")
    size: int = Field(description="board rows (Othello: the size)")
    human: str = Field(description="the human's side name, or 'both'")
    opponent: str = Field(description="the opponent's player spec")
    view: dict[str, Any] = Field(description="what to draw (``Game.board_view``)")
    cells: list[Any] = Field(
        description="the view's cells; Othello: a1, b1, ... : 0 empty, 1 black, 2 white"
    )
    turn: str = Field(description="the side to move")
    to_move: Literal["human", "ai", "nobody"]
    legal: list[str] = Field(description="legal moves of the side to move, but a pass")
    legal_moves: list[MoveInfo] = Field(description="the same with where each acts")
    must_pass: bool
    game_over: bool
    black_discs: int | None = Field(None, description="Othello: black's discs")
    white_discs: int | None = Field(None, description="Othello: white's discs")
    result: Result | None
    ply: int = Field(description="moves played up to the position shown")
    moves: list[str] = Field(description="every recorded move (beyond ply: redo), passes as 'pass'")
    last_move: str | None
    last_parts: MoveInfo | None = Field(None, description="where the last move acted")
    transcript: str = Field(description="the moves up to ply in the game's notation, no passes")
    position: str | None = Field(None, description="the position in the game's notation (SFEN)")
    score_scale: float = Field(description="a final score divided by this lies in [-1, 1]")
    can_undo: bool
    can_redo: bool
    busy: Literal["ai", "hint", "analysis"] | None = Field(
        description="what the server is thinking about"
    )
    evaluation: Evaluation | None = Field(description="the AI's report on its latest move")
    hint: Evaluation | None = Field(description="a hint for the position shown, once asked")
    analysis: Analysis | None = Field(None, description="the whole game's analysis, once asked")
    version: int = Field(description="increases with every change of the game")
    queue: int | None = Field(
        None,
        description="while its search waits for a free search worker: its place in the queue "
        "(1: next)",
    )


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
    models: list[str] | None = Field(
        None,
        description="the names its 'model=' option may give on this server for this game: the "
        "shipped models and those of --models ('RUN/genNNNN' for a run's); none: no such option",
    )


class ServerLimits(BaseModel):
    """What this server allows every search: it stops each one by ``max_think_time`` seconds
    (plus a small margin) and after ``max_nodes`` nodes, simulations or playouts."""

    max_think_time: float
    max_nodes: int
    max_analysis_time: float = Field(description="seconds after which an analysis stops")
    models: list[str] = Field(
        description="model names that a 'model=' option may give, of every game (each player's "
        "'models' has those of the game asked for)"
    )


class GameVariant(BaseModel):
    """A game at one board size: its key and the server's default opponent there."""

    key: str
    size: int | None
    default_opponent: str


class GameInfo(BaseModel):
    """A game the board plays: its name, sizes, side names, position notation and the server's
    default opponent (the strongest shipped player of it)."""

    name: str
    title: str
    sizes: list[int] = Field(description="its board sizes (empty: one board)")
    sides: list[str]
    position_format: str | None
    variants: list[GameVariant] = Field(description="one per size")


class PlayersResponse(BaseModel):
    """The players of one game (strongest first) and the server's default opponent and hinter
    for it, with every game the board plays."""

    game: str = Field(description="the game's key these players play")
    players: list[PlayerInfo]
    default_opponent: str
    hint_player: str
    formats: list[str] = Field(description="record formats that games can be loaded from")
    limits: ServerLimits | None = None
    games: list[GameInfo] = Field(default_factory=list)


class ErrorResponse(BaseModel):
    """Any 4xx/5xx answer: a message saying what was wrong and where."""

    detail: str


class SavedGame(BaseModel):
    """A game kept in the server's games database, as the list of games shows it."""

    id: str
    game: str = Field(description="the game's key")
    title: str
    human: str = Field(description="the human's side name, or 'both'")
    opponent: str
    moves: int = Field(description="moves recorded, passes included")
    result: str | None = Field(description="how it ended; none while it goes on")
    created: float = Field(description="seconds since the epoch")
    updated: float = Field(description="seconds since the epoch, at its last change")


class SavedGames(BaseModel):
    """Games kept in the server's database, the latest changed first."""

    games: list[SavedGame]
    total: int = Field(description="games in the database")
