"""Who may reach the web board and how much each client may ask: the address the server
listens on, and the per-client request rate (a token bucket per address, refused with 429 and
``Retry-After``). The per-client bound on open games is kept by ``store.GameStore``."""

from __future__ import annotations

import ipaddress
import math
import re
import time
from collections import OrderedDict
from collections.abc import Callable

from fastapi.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from othellolab.core import ConfigError

MAX_CLIENTS = 65_536
"""Clients whose request rate is tracked at once; past it the idle ones are forgotten first."""

_LABEL = re.compile(r"[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?")


def check_host(text: str) -> tuple[str, bool]:
    """The address of ``--host`` (an IPv4 or IPv6 address, or a host name) and whether it is
    this machine only (loopback); anything else raises ``ConfigError`` naming the option."""
    host = text.strip()
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        pass
    else:
        return str(ip), ip.is_loopback
    labels = host.rstrip(".").split(".")
    if (
        not host
        or len(host) > 253
        or not all(_LABEL.fullmatch(label) for label in labels)
        or labels[-1].isdigit()
    ):
        shown = host[:60] + ("..." if len(host) > 60 else "")
        raise ConfigError(
            f"{shown!r} is neither an IP address nor a host name (e.g. 127.0.0.1, 0.0.0.0, ::, "
            "localhost, board.example.org)",
            option="host",
        )
    return host, host.lower() == "localhost"


def client_key(scope: Scope) -> str:
    """The client a request counts against: its IP address, an IPv6 one by its /64 network
    (one subscriber's block, which one machine may hop around in)."""
    client = scope.get("client")
    host = str(client[0]) if client else "unknown"
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return host[:100]
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)


class RateLimiter:
    """A token bucket per client: ``burst`` requests at once, then ``rate`` a second.
    At most ``max_clients`` buckets are kept; past them the least recently used ones go (a
    forgotten client starts again with a full bucket)."""

    def __init__(
        self,
        rate: float,
        burst: int,
        *,
        max_clients: int = MAX_CLIENTS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if isinstance(rate, bool) or not isinstance(rate, int | float):
            raise ConfigError(f"expected requests a second, got {rate!r}", option="rate_limit")
        if not (math.isfinite(rate) and 0 < rate <= 10_000):
            raise ConfigError(
                f"must be requests a second in (0, 10000], got {rate!r}", option="rate_limit"
            )
        if isinstance(burst, bool) or not isinstance(burst, int) or not 1 <= burst <= 100_000:
            raise ConfigError(
                f"must be a whole number of requests in 1..100000, got {burst!r}",
                option="rate_burst",
            )
        self.rate = float(rate)
        self.burst = burst
        self.max_clients = max_clients
        self.clock = clock
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._buckets)

    def take(self, client: str) -> float:
        """Spend one of ``client``'s tokens: 0.0 when it had one, else the seconds until it
        will have one (the request is refused and spends nothing)."""
        now = self.clock()
        tokens, then = self._buckets.pop(client, (float(self.burst), now))
        tokens = min(float(self.burst), tokens + (now - then) * self.rate)
        wait = 0.0
        if tokens >= 1.0:
            tokens -= 1.0
        else:
            wait = (1.0 - tokens) / self.rate
        self._buckets[client] = (tokens, now)
        while len(self._buckets) > self.max_clients:
            self._buckets.popitem(last=False)
        return wait


class ClientLimits:
    """ASGI middleware: each client's requests spend its ``RateLimiter`` tokens; one over its
    rate gets a 429 with ``Retry-After`` and a message naming the limit."""

    def __init__(self, app: ASGIApp, *, limiter: RateLimiter) -> None:
        self.app = app
        self.limiter = limiter

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            client = client_key(scope)
            wait = self.limiter.take(client)
            if wait > 0:
                retry = max(1, math.ceil(wait))
                limiter = self.limiter
                response = JSONResponse(
                    {
                        "detail": f"too many requests from {client}: the limit is "
                        f"{limiter.rate:g} a second, in bursts of at most {limiter.burst}, per "
                        f"client (othellolab serve --rate-limit, --rate-burst); try again in "
                        f"{retry} s"
                    },
                    status_code=429,
                    headers={"Retry-After": str(retry)},
                )
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)
