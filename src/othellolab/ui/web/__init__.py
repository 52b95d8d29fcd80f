"""The web board: a local FastAPI server and a plain HTML/CSS/JS page to play any registered
player in the browser (``othellolab serve``)."""

from othellolab.ui.web.app import create_app

__all__ = ["create_app"]
