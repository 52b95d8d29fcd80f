"""The ``alphabeta`` player: iterative-deepening alpha-beta (``search.midgame``) with a
pluggable evaluation, handing over to the exact solver (``search.endgame``) near the end.

>>> from othellolab import Board, Limit
>>> result = AlphaBetaPlayer(depth=3).choose(Board())
>>> result.info["depth"], result.move in Board().legal_actions()
(3, True)
"""

from __future__ import annotations

import random
import time
from pathlib import Path
from typing import ClassVar

from othellolab.config.options import SEED, Option, checked_options, device_option
from othellolab.core import Board, ConfigError, Limit, PlayResult, Score, square_name
from othellolab.core.games import position_game
from othellolab.core.othello_game import Othello
from othellolab.players.base import Player, playable_actions
from othellolab.players.clock import plan
from othellolab.players.search import (
    EVALUATION_NAMES,
    Evaluation,
    SolveAborted,
    TranspositionTable,
    default_evaluation,
    named_evaluation,
    search,
    solve,
)
from othellolab.players.search.evaluation import weights_evaluation
from othellolab.players.search.midgame import MAX_DEPTH, MovePriors, ready_timed_search
from othellolab.players.search.patterns import pattern_weights_dir
from othellolab.players.search.probcut import weights_probcut
from othellolab.players.search.smp import MAX_THREADS


def weights_option(value: str) -> str:
    """``value`` if it names pattern weights (a shipped set or a directory holding a
    ``config.json``), else a ``ConfigError`` listing the shipped sets."""
    try:
        pattern_weights_dir(value)
    except FileNotFoundError as e:
        raise ConfigError(str(e), option="weights") from None
    return value


WEIGHTS = Option(
    str,
    optional=True,
    check=weights_option,
    path=True,
    help="pattern weights: a shipped set name or a weights directory",
)
"""The ``weights`` option of the players that evaluate with pattern weights."""

DEADLINE_OVER_TARGET = 1.5
"""On a game clock, the search's deadline over the plan's target time for the move (within the
plan's cap): no iteration starts after the target (``midgame.search(target=...)``), and one
started before it may run on to the deadline; what a move leaves or takes over its target the
plan gives to or takes from later moves."""


def book_option(value: str) -> str:
    """``value`` if it is ``off``, ``on`` (the shipped book) or names a book (a shipped book's
    name or a folder), else a ``ConfigError`` listing the shipped books."""
    if value in ("off", "on"):
        return value
    from othellolab.players.search.book import available_books

    if value in available_books() or (Path(value) / "config.json").is_file():
        return value
    raise ConfigError(
        f"expected off, on or a book (shipped: {', '.join(available_books()) or 'none'}; or a "
        f"folder that `othellolab book build` wrote), got {value[:60]!r}",
        option="book",
    )


def player_weights(player: str, source: str) -> Evaluation:
    """The pattern evaluation of ``source`` for a player, a bad file's error naming the player."""
    from othellolab.core import OthelloError

    try:
        return weights_evaluation(source)
    except OthelloError as e:
        raise e.at(f"player {player!r}, option weights") from None


ORDER_CACHE = 50_000
"""Positions whose priors the order network remembers: the root of the next move was a
position two plies deep in this one's."""


def near_root(board: Board, plies: int) -> list[Board]:
    """``board`` and the positions within ``plies - 1`` moves of it that have a move to order
    (no position twice; a pass is followed, not counted as a ply)."""
    seen: set[tuple[int, int]] = set()
    out: list[Board] = []
    frontier = [board]
    for ply in range(plies):
        nxt: list[Board] = []
        for b in frontier:
            while b.must_pass():
                b = b.play(b.size * b.size)
            key = (b.player, b.opponent)
            if b.is_game_over() or key in seen:
                continue
            seen.add(key)
            out.append(b)
            if ply + 1 < plies:
                nxt.extend(b.play(a) for a in b.legal_actions())
        frontier = nxt
    return out


class AlphaBetaPlayer(Player):
    """Iterative-deepening alpha-beta with a pluggable evaluation, exact near the end.

    ``depth``, ``time`` (seconds) and ``nodes`` bound the search unless the ``Limit`` of a call
    says otherwise; with ``endgame`` or fewer empty squares it solves exactly instead. ``seed``
    breaks ties between equally scored moves (deterministically for a given seed).
    ``evaluation`` names the evaluation at the leaves: ``auto`` (the default: the shipped
    learned ``patterns`` on 8x8, where they are far stronger at equal time, and the hand-written
    ``heuristic`` on 6x6 and 4x4, which have no pattern weights), ``heuristic``, ``patterns``
    (8x8 only) or ``discs``. ``weights`` names the pattern weights of ``auto``/``patterns`` (a
    shipped set such as ``patterns-wthor``, or a weights directory); they then also order the
    exact solver's moves.

    ``book`` plays from an opening book (``on``: the shipped ``book-wthor``; off by default, as
    for analysis and benchmarks), choosing among the book moves within ``book_margin`` discs of
    the best at random (seeded by ``seed``). ``probcut`` turns on multi-ProbCut in the midgame
    search with that confidence in standard deviations (0: off), with the fit kept beside the
    ``weights`` (``probcut.json``) when they have one, else the shipped fit. On a game clock
    (``Limit.clock``) the player plans its time: more in the midgame, a reserve for the exact
    solve (``players.clock.plan``). ``threads`` > 1 runs the midgame search on that many
    threads (lazy SMP over one table, ``search.smp``), and the exact solve too
    (``search.parallel_solve``); a game in the terminal (``othellolab
    play``) gives it the machine's cores, the arena one thread a player unless told.
    """

    name = "alphabeta"
    plans_time = True
    OPTIONS: ClassVar[dict[str, Option]] = {
        "depth": Option(int, 1, MAX_DEPTH, optional=True, help="plies of iterative deepening"),
        "time": Option(float, 0.001, 3600, optional=True, unit="seconds", help="time per move"),
        "nodes": Option(int, 1, 10**12, optional=True, help="search nodes per move"),
        "endgame": Option(int, 0, 60, help="solve exactly from this many empty squares"),
        "seed": SEED,
        "table_bits": Option(
            int, 16, 24, help="transposition table of 2**bits entries of 16 bytes"
        ),
        "evaluation": Option(
            str, choices=("auto", *EVALUATION_NAMES), help="evaluation at the leaves"
        ),
        "weights": WEIGHTS,
        "book": Option(
            str,
            check=book_option,
            switch=True,
            path=True,
            help="opening book: off, on or a book's name",
        ),
        "book_margin": Option(
            int, 0, 16, unit="discs", help="play any book move this close to the best"
        ),
        "probcut": Option(
            float, 0.0, 10.0, help="multi-ProbCut confidence in standard deviations (0: off)"
        ),
        "order": Option(
            str, optional=True, model=True, help="policy network ordering the moves near the root"
        ),
        "order_plies": Option(int, 1, 3, help="plies from the root whose moves the network orders"),
        "device": Option(str, check=device_option, help="torch device of the order network"),
        "threads": Option(int, 1, MAX_THREADS, help="search threads (lazy SMP, one table)"),
    }

    @checked_options
    def __init__(
        self,
        *,
        depth: int | None = None,
        time: float | None = None,
        nodes: int | None = None,
        endgame: int = 16,
        seed: int | None = None,
        table_bits: int = 20,
        evaluation: str = "auto",
        weights: str | None = None,
        book: str = "off",
        book_margin: int = 0,
        probcut: float = 0.0,
        order: str | None = None,
        order_plies: int = 2,
        device: str = "cpu",
        threads: int = 1,
    ) -> None:
        if weights is not None and evaluation not in ("auto", "patterns"):
            raise ConfigError(
                f"pattern weights go with evaluation auto or patterns, not {evaluation}",
                where="player 'alphabeta'",
                option="weights",
            )
        self.evaluation_name = evaluation
        self.weights = weights
        self._evaluation = (
            None if evaluation in ("auto", "patterns") else named_evaluation(evaluation)
        )
        self._patterns = None if weights is None else player_weights(self.name, weights)
        self.depth = depth
        self.time = time
        self.nodes = nodes
        self.endgame = endgame
        self.seed = seed
        self.table = TranspositionTable(table_bits)
        self.solver_table = TranspositionTable(table_bits + 1)
        self.book_name = book
        self.book_margin = book_margin
        self.probcut = probcut
        self._probcut_table = (
            None if weights is None else weights_probcut(str(pattern_weights_dir(weights)))
        )
        self._book = None
        if book != "off":
            from othellolab.players.search.book import DEFAULT_BOOK, shipped_book

            self._book = shipped_book(DEFAULT_BOOK if book == "on" else book)
        self._rng = random.Random(seed)
        self.order = order
        self.order_plies = order_plies
        self.threads = threads
        ready_timed_search()  # a first call loads kernels (0.1-0.2 s): not in a move's time
        self._orderer = None
        if order is not None:
            from othellolab.players.network import _evaluator

            self._orderer = _evaluator(order, device, ORDER_CACHE)
            rules = self._orderer.config.rules
            if not isinstance(rules, Othello):
                raise ConfigError(
                    f"the order network plays {rules.title}, not Othello",
                    where="player 'alphabeta'",
                    option="order",
                )

    def evaluation_for(self, size: int) -> Evaluation:
        """The evaluation this player uses on a board of ``size`` (the pattern table is shared
        with the solver's, not copied: it is 16 MB)."""
        if self._evaluation is not None:
            return self._evaluation
        if self.evaluation_name == "patterns" and size != 8:
            raise ConfigError(
                f"the pattern evaluation is 8x8 only, not {size}x{size}; use auto or heuristic",
                where="player 'alphabeta'",
                option="evaluation",
            )
        if self._patterns is not None and size == 8:
            return self._patterns
        return default_evaluation(size)

    def move_priors(self, board: Board) -> MovePriors:
        """The order network's priors of the positions near ``board`` (``near_root``)."""
        assert self._orderer is not None
        rules = self._orderer.config.rules
        if rules != position_game(board):
            raise ConfigError(
                f"the order network plays {rules.label}, not {position_game(board).label}",
                where="player 'alphabeta'",
                option="order",
            )
        boards = near_root(board, self.order_plies)
        ev = self._orderer.evaluate_boards(boards)
        return MovePriors.build(boards, ev.priors[:, : board.size * board.size])

    def reset(self) -> None:
        self.table.clear()
        self.solver_table.clear()

    def choose(self, board: Board, limit: Limit | None = None) -> PlayResult:
        playable_actions(board)  # raises for a finished game
        limit = limit or Limit()
        t0 = time.perf_counter()
        if self._book is not None:
            chosen = self._book.choose(board, margin=self.book_margin, rng=self._rng)
            if chosen is not None:
                return PlayResult(
                    chosen.move,
                    score=Score(float(chosen.value)),
                    info={"book": self._book.name, "score": chosen.value, "depth": 0},
                )
        use_own = limit.time is None and limit.depth is None and limit.nodes is None
        depth = self.depth if use_own else limit.depth
        time_limit = limit.capped_time(self.time if use_own else limit.time)
        solve_time = time_limit
        nodes = limit.capped_nodes(self.nodes if use_own else limit.nodes)
        target = None
        if limit.clock is not None:
            share = plan(limit.clock, board.num_empties, endgame=self.endgame)
            depth = limit.depth if limit.depth is not None else self.depth
            time_limit = limit.capped_time(min(share.cap, DEADLINE_OVER_TARGET * share.target))
            target = share.target
            solve_time = limit.capped_time(share.solve)
        evaluation = self.evaluation_for(board.size)
        if board.num_empties <= self.endgame:
            try:
                solved = solve(
                    board,
                    table=self.solver_table,
                    max_nodes=nodes,
                    time_limit=solve_time,
                    evaluation=self._patterns if board.size == 8 else None,
                    stop=limit.stop,
                    threads=self.threads,
                )
            except SolveAborted:
                solved = None
            if solved is not None and solved.best_move is not None:
                return solved.play_result(board)
            if time_limit is not None:
                spent = time.perf_counter() - t0
                t0 = time.perf_counter()
                time_limit = max(0.01, time_limit - spent)
                if limit.clock is not None:  # a failed solve used the clock's reserve
                    left = limit.clock - spent
                    target = max(0.01, plan(left, board.num_empties, endgame=0).target)
                    time_limit = min(time_limit, target)
        priors = None
        if self._orderer is not None:
            priors = self.move_priors(board)
        if time_limit is not None:  # less what the book, a failed solve and the priors took
            spent = time.perf_counter() - t0
            time_limit = max(0.001, time_limit - spent)
            if target is not None:
                target = min(time_limit, max(0.001, target - spent))
        result = search(
            board,
            depth=depth,
            time_limit=time_limit,
            max_nodes=nodes,
            evaluation=evaluation,
            table=self.table,
            seed=self.seed,
            stop=limit.stop,
            probcut=self.probcut,
            probcut_table=self._probcut_table,
            target=target,
            priors=priors,
            threads=self.threads,
        )
        return PlayResult(
            result.best_move,
            score=Score(result.score, exact=result.exact),
            info={
                "score": result.score,
                "depth": result.depth,
                "nodes": result.nodes,
                "seconds": result.seconds,
                "pv": [square_name(a, board.size) for a in result.pv],
                "solved": result.exact,
                "evaluation": evaluation.name,
            },
        )
