"""What the web server allows each search by default (``othellolab serve`` can change both)."""

MAX_THINK_TIME = 5.0
"""Seconds after which every search stops and answers, whatever its own settings."""

MAX_NODES = 50_000_000
"""Search nodes, MCTS simulations or Monte Carlo playouts after which every search stops."""

MAX_ANALYSIS_TIME = 120.0
"""Seconds after which the analysis of a whole game stops (the plies left unevaluated)."""
