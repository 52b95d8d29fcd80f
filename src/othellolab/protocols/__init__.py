"""Engine protocols: NBoard, both sides (an engine loop serving any move chooser, and a client
that drives an external engine). Imports ``core`` and ``records`` only."""

from othellolab.protocols.nboard import (
    EngineTimeout,
    MoveReply,
    NBoardClient,
    NBoardEngine,
    NBoardError,
    SearchLine,
    serve,
)

__all__ = [
    "EngineTimeout",
    "MoveReply",
    "NBoardClient",
    "NBoardEngine",
    "NBoardError",
    "SearchLine",
    "serve",
]
