"""The web board: a local FastAPI server and a plain HTML/CSS/JS page to play any registered
player in the browser (``othellolab serve``).

``create_app`` loads lazily, so that ``limits`` (the server's defaults) imports without the
web extra (FastAPI) installed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from othellolab.ui.web.app import create_app

__all__ = ["create_app"]


def __getattr__(name: str) -> Any:
    if name == "create_app":
        from othellolab.ui.web.app import create_app

        return create_app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
