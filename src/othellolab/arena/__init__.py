"""Games between players: the match kernel, openings, resumable tournaments and ratings."""

from othellolab.arena.match import MatchResult, play_game, play_match
from othellolab.arena.openings import opening_set, random_openings, read_openings
from othellolab.arena.ratings import Rating, RatingError, Ratings, fit_ratings, write_report
from othellolab.arena.results import load_results
from othellolab.arena.tournament import pairing_results, run_tournament
from othellolab.arena.tournament_config import (
    Entrant,
    TournamentConfig,
    TournamentError,
    load_config,
    schedule,
)

__all__ = [
    "Entrant",
    "MatchResult",
    "Rating",
    "RatingError",
    "Ratings",
    "TournamentConfig",
    "TournamentError",
    "fit_ratings",
    "load_config",
    "load_results",
    "opening_set",
    "pairing_results",
    "play_game",
    "play_match",
    "random_openings",
    "read_openings",
    "run_tournament",
    "schedule",
    "write_report",
]
