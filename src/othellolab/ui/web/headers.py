"""The security headers of every answer of the web board: a Content-Security-Policy that lets
the page run only its own scripts and styles (no inline code, nothing from elsewhere, never in
a frame), with its usual companions."""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

CONTENT_SECURITY_POLICY = "; ".join(
    [
        "default-src 'none'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",  # the page's empty favicon is a data: URL
        "connect-src 'self'",
        "form-action 'self'",
        "base-uri 'none'",
        "frame-ancestors 'none'",
    ]
)

SECURITY_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",  # frame-ancestors for browsers that predate it
    "Cross-Origin-Opener-Policy": "same-origin",
}


class SecurityHeaders:
    """ASGI middleware: ``SECURITY_HEADERS`` on every HTTP answer (a header the app set
    itself is kept)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.raw = [
            (k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in SECURITY_HEADERS.items()
        ]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                present = {name.lower() for name, _ in headers}
                headers += [(k, v) for k, v in self.raw if k not in present]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)
