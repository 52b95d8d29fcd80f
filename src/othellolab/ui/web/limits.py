"""What the web server allows each search by default (``othellolab serve`` can change both)."""

MAX_THINK_TIME = 5.0
"""Seconds after which every search stops and answers, whatever its own settings."""

MAX_NODES = 50_000_000
"""Search nodes, MCTS simulations or Monte Carlo playouts after which every search stops."""

MAX_ANALYSIS_TIME = 120.0
"""Seconds after which the analysis of a whole game stops (the plies left unevaluated)."""

MAX_QUEUE = 200
"""Searches that may wait for a worker; one more is refused with a 503 and ``Retry-After``."""

MAX_WAIT = 60.0
"""Seconds a search may wait for a worker (expected, when it asks; waited, at most)."""

PLAYERS_PER_WORKER = 4
"""Players (with their tables) a search worker keeps for reuse, by spec."""

MAX_GAMES = 10_000
"""Most games a server may hold in memory (``--max-games``): a game is its record and settings;
measured, 100 games grew the server and its workers by 7 MB (76 KB a game: docs/benchmarks.md),
so 10,000 games stay under 1 GB beside the workers."""

MAX_GAMES_PER_CLIENT = 20
"""Open games (held in memory, not over) one client address may have (``othellolab serve``);
one more is refused with a 429 and ``Retry-After``."""

RATE_LIMIT = 10.0
"""Requests a second one client address may send on average (``othellolab serve``)."""

RATE_BURST = 50
"""Requests one client address may send at once (loading the page takes about a dozen)."""

WORKER_NICE = 10
"""The niceness added to each search worker process: the request handler outranks the searches
for a core, so that reads and the human's moves answer at once while every worker searches."""

MAX_SEARCH_THREADS = 256
"""Most threads one search may use (``othellolab serve --search-threads``; default 1, so that
each worker is one core and the workers are the parallelism)."""
