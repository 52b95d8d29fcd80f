"""Games between players: the match kernel, openings, and match summaries."""

from othellolab.arena.match import MatchResult, play_game, play_match
from othellolab.arena.openings import read_openings

__all__ = ["MatchResult", "play_game", "play_match", "read_openings"]
