"""Engine protocols: NBoard, both sides. ``nboard`` holds what both share (formats, errors,
search lines), ``nboard_engine`` the engine loop that serves any move chooser, ``nboard_client``
the client that drives an external engine. Imports ``core`` and ``records`` only."""

from othellolab.protocols.nboard import EngineTimeout, MoveReply, NBoardError, SearchLine
from othellolab.protocols.nboard_client import NBoardClient
from othellolab.protocols.nboard_engine import NBoardEngine, serve

__all__ = [
    "EngineTimeout",
    "MoveReply",
    "NBoardClient",
    "NBoardEngine",
    "NBoardError",
    "SearchLine",
    "serve",
]
