"""Fitting the alpha-beta engine: its pattern evaluation, the labelled positions it learns
from, multi-ProbCut and the opening book, round after round from one config.

``positions`` (the fit's position rows), ``labelled/`` (search-labelled self-play positions
as checksummed shards, in worker processes or on Ray), ``patterns`` (the least-squares fit of
the pattern weights), ``probcut`` (multi-ProbCut's regression per depth and empties), ``book``
(the opening book's build and extension) and ``engine`` (all of them in rounds:
``othellolab train engine``). The fitted files reach the players as data
(``players/search/data``), not as imports.
"""
