"""External engines as players: ``nboard:cmd='edax -n 1',depth=10`` drives any engine that
speaks the NBoard protocol (Edax, NTest, othellolab's own ``othellolab nboard``) through
``protocols.nboard.NBoardClient``.

The command is split like a shell would (no shell runs it); a TOML file can name it instead
(``nboard:config=engines/edax.toml``) with the keys ``cmd`` (a string or a list of arguments),
``depth``, ``timeout``, ``start_timeout``, ``cwd`` and ``name``. The engine is told the position
of each move by ``set game`` and searches to ``depth`` (or the ``Limit``'s depth); a move that
takes longer than ``timeout`` seconds kills it and raises ``EngineTimeout``.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any, ClassVar

from othellolab.config.options import Option, checked_options
from othellolab.core import Board, ConfigError, Limit, PlayResult, Score
from othellolab.core.parsing import clip
from othellolab.players.base import Player, playable_actions
from othellolab.protocols.nboard import MAX_DEPTH, NBoardError, format_move
from othellolab.protocols.nboard_client import NBoardClient

__all__ = ["NBoardError", "NBoardPlayer"]

_CONFIG_KEYS = ("cmd", "depth", "timeout", "start_timeout", "cwd", "name")


class NBoardPlayer(Player):
    """An external NBoard engine: ``cmd`` (or ``config``, a TOML file), search ``depth``
    (1-60), ``timeout`` per move and ``start_timeout`` for the handshake (seconds, 0.1-86400),
    ``cwd`` to run it in, and a display ``name`` (default: the name the engine gives)."""

    name = "nboard"
    OPTIONS: ClassVar[dict[str, Option]] = {
        "cmd": Option(str, optional=True, help="the engine's command line"),
        "config": Option(str, optional=True, help="a TOML file with cmd and the other options"),
        "depth": Option(int, 1, MAX_DEPTH, help="search depth sent to the engine"),
        "timeout": Option(float, 0.1, 86400, unit="seconds", help="longest wait for a move"),
        "start_timeout": Option(float, 0.1, 86400, unit="seconds", help="longest handshake"),
        "cwd": Option(str, optional=True, help="folder to run the engine in"),
        "name": Option(str, optional=True, help="display name (default: the engine's)"),
    }

    @checked_options
    def __init__(
        self,
        *,
        cmd: str | None = None,
        config: str | None = None,
        depth: int = 8,
        timeout: float = 60.0,
        start_timeout: float = 60.0,
        cwd: str | None = None,
        name: str | None = None,
    ) -> None:
        where = "nboard"
        settings: dict[str, Any] = {}
        if config is not None:
            if cmd is not None:
                raise ConfigError("give cmd or config, not both", where=where, option="cmd")
            settings = _read_config(Path(str(config)))
        command = settings.get("cmd", cmd)
        if command is None or (isinstance(command, str) and not command.strip()):
            raise ConfigError(
                "missing: the engine's command line, e.g. nboard:cmd='edax -n 1'",
                where=where,
                option="cmd",
            )
        if not isinstance(command, str) and not (
            isinstance(command, list) and command and all(isinstance(a, str) for a in command)
        ):
            raise ConfigError(
                f"{command!r} is not a string or a list of strings", where=where, option="cmd"
            )
        self.depth = self._setting(settings, "depth", depth)
        self.timeout = self._setting(settings, "timeout", timeout)
        start = self._setting(settings, "start_timeout", start_timeout)
        folder = settings.get("cwd", cwd)
        if folder is not None and not Path(str(folder)).is_dir():
            raise ConfigError(f"{folder!r} is not a folder", where=where, option="cwd")
        label = settings.get("name", name)
        if label is not None and not isinstance(label, str):
            raise ConfigError(f"{label!r} is not a string", where=where, option="name")
        self.command = command
        self.client = NBoardClient(command, cwd=folder, start_timeout=start)
        self.name = label or self.client.engine_name or "nboard"
        self._depth_sent: int | None = None

    def _setting(self, settings: dict[str, Any], key: str, given: Any) -> Any:
        """``key`` from the config file, checked as the spec's option is, else ``given``."""
        if key not in settings:
            return given
        try:
            return self.OPTIONS[key].convert(settings[key], key)
        except ConfigError as e:
            raise ConfigError(e.what, where="nboard config", option=key) from None

    def choose(self, board: Board, limit: Limit | None = None) -> PlayResult:
        actions = playable_actions(board)
        if actions == [board.pass_action]:
            return PlayResult(board.pass_action)
        depth = limit.depth if limit is not None and limit.depth else self.depth
        depth = max(1, min(int(depth), MAX_DEPTH))
        if depth != self._depth_sent:
            self.client.set_depth(depth)
            self._depth_sent = depth
        reply = self.client.request_move(board, timeout=self.timeout)
        last = reply.searches[-1] if reply.searches else None
        info: dict[str, Any] = {"engine": self.client.engine_name, "depth": depth}
        if reply.nodes is not None:
            info["nodes"] = reply.nodes
        if reply.seconds is not None:
            info["seconds"] = reply.seconds
        if last is not None and (last.move or "").upper() == format_move(reply.move, board.size):
            info["pv"] = [m.lower() for m in last.pv]
        score = Score(reply.eval) if reply.eval is not None else None
        return PlayResult(reply.move, score=score, info=info)

    def close(self) -> None:
        self.client.close()


def _read_config(path: Path) -> dict[str, Any]:
    where = str(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError("no such file", where="nboard", option="config") from None
    except OSError as e:
        raise ConfigError(
            f"{clip(str(path))!r}: {e.strerror or e}", where="nboard", option="config"
        ) from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise ConfigError(f"not valid TOML: {e}", where=where) from None
    unknown = sorted(set(data) - set(_CONFIG_KEYS))
    if unknown:
        raise ConfigError(f"unknown keys {unknown}", where=where, allowed=", ".join(_CONFIG_KEYS))
    if "cwd" in data and not Path(str(data["cwd"])).is_absolute():
        data["cwd"] = str(path.parent / str(data["cwd"]))
    return data
