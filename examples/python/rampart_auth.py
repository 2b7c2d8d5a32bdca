"""Rampart-HMAC-SHA256 request signing for httpx (docs/signature.md).

    import httpx
    from rampart_auth import RampartAuth

    auth = RampartAuth(app_id="my-app", secret=os.environ["RAMPART_APP_SECRET"])
    client = httpx.Client(base_url="http://localhost:3000", auth=auth)
    client.get("/v1/whoami")

httpx runs ``auth_flow`` for every request it sends, so each request -- and
each retry of a client built on httpx, such as the official ``openai``
package -- gets a fresh timestamp and nonce. Works with httpx 0.23 (Debian
bookworm's python3-httpx) and later; only the standard library otherwise.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from typing import Generator, List, Optional, Tuple
from urllib.parse import quote, unquote_to_bytes

import httpx

EMPTY_BODY_SHA256 = hashlib.sha256(b"").hexdigest()


def _reencode(raw: str) -> str:
    """Percent-decode to bytes, re-encode per RFC 3986 (A-Z a-z 0-9 - . _ ~ kept, %XX upper case).

    A literal ``+`` stays a plus (``%2B``), a ``%`` without two hex digits is a literal ``%``.
    """
    return quote(unquote_to_bytes(raw), safe="-._~")


def canonical_query(raw_query: str) -> str:
    """Split on ``&`` and the first ``=``, re-encode, sort by name then value, ``k=`` when empty."""
    pairs: List[Tuple[str, str]] = []
    for piece in raw_query.split("&"):
        if piece == "":
            continue
        name, _, value = piece.partition("=")
        pairs.append((_reencode(name), _reencode(value)))
    pairs.sort()
    return "&".join(f"{n}={v}" for n, v in pairs)


def canonical_target(target: str) -> str:
    """The path exactly as sent, then ``?`` and the canonical query when there is one."""
    path, sep, query = target.partition("?")
    canonical = canonical_query(query) if sep else ""
    return f"{path}?{canonical}" if canonical else path


def string_to_sign(
    app_id: str, timestamp: str, nonce: str, method: str, target: str, body: bytes
) -> str:
    """The six lines joined by a newline, no trailing newline."""
    body_hash = hashlib.sha256(body).hexdigest() if body else EMPTY_BODY_SHA256
    return "\n".join(
        [app_id, timestamp, nonce, method.upper(), canonical_target(target), body_hash]
    )


def signature(secret: str, text: str) -> str:
    """Lower-case hex HMAC-SHA256 of the string to sign; the key is the secret's UTF-8 bytes."""
    return hmac.new(secret.encode("utf-8"), text.encode("utf-8"), hashlib.sha256).hexdigest()


class RampartAuth(httpx.Auth):
    """Signs every request (X-App-Id, X-Timestamp, X-Nonce, X-Signature, optional X-Key-Id)."""

    # The signature covers the body bytes: httpx reads a streamed request body before auth_flow.
    requires_request_body = True

    def __init__(self, app_id: str, secret: str, key_id: Optional[str] = None) -> None:
        self.app_id = app_id
        self._secret = secret
        self.key_id = key_id

    def __repr__(self) -> str:  # never show the secret
        return f"RampartAuth(app_id={self.app_id!r}, key_id={self.key_id!r})"

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        timestamp = str(int(time.time() * 1000))
        nonce = secrets.token_urlsafe(16)  # 22 characters of [A-Za-z0-9_-]
        target = request.url.raw_path.decode("ascii")  # path and query exactly as sent
        text = string_to_sign(
            self.app_id, timestamp, nonce, request.method, target, request.content
        )
        request.headers["X-App-Id"] = self.app_id
        request.headers["X-Timestamp"] = timestamp
        request.headers["X-Nonce"] = nonce
        request.headers["X-Signature"] = signature(self._secret, text)
        if self.key_id is not None:
            request.headers["X-Key-Id"] = self.key_id
        yield request
