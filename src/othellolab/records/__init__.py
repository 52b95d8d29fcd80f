"""Game-record formats: readers and writers, streaming and strict.

Every reader yields checked ``GameRecord`` records and raises a ``RecordError`` naming the file, the
game and the move at the first bad game, unless ``lenient=True`` (then bad games are skipped
and counted in a ``ReadReport``). ``read_games``/``write_games`` pick the format by extension.
"""

from othellolab.records.game import GameRecord
from othellolab.records.ggf import format_ggf, parse_ggf, read_ggf, write_ggf
from othellolab.records.io import format_of, read_games, write_games
from othellolab.records.logistello import read_logistello, write_logistello
from othellolab.records.obf import ObfEntry, format_obf_line, parse_obf_line, read_obf, write_obf
from othellolab.records.report import ReadReport, RecordError
from othellolab.records.transcript import (
    parse_transcript_line,
    read_transcripts,
    write_transcripts,
)
from othellolab.records.wthor import (
    WthorError,
    name_table,
    read_header,
    read_names,
    read_wthor,
    write_names,
    write_wthor,
)

__all__ = [
    "GameRecord",
    "ObfEntry",
    "ReadReport",
    "RecordError",
    "WthorError",
    "format_ggf",
    "format_obf_line",
    "format_of",
    "name_table",
    "parse_ggf",
    "parse_obf_line",
    "parse_transcript_line",
    "read_games",
    "read_ggf",
    "read_header",
    "read_logistello",
    "read_names",
    "read_obf",
    "read_transcripts",
    "read_wthor",
    "write_games",
    "write_ggf",
    "write_logistello",
    "write_names",
    "write_obf",
    "write_transcripts",
    "write_wthor",
]
