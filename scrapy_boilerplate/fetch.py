"""The command line's page fetch (``scrapy-boilerplate extract https://...``): bounded in size,
inflated size and time, whatever the server does. The extractor itself never fetches.

- At most ``limit`` bytes plus one are kept (the parser's limit, MAX_INPUT_BYTES: the parser cuts
  the rest and says so), before and after inflating: a gzip or deflate body (Content-Encoding, or
  gzip bytes whatever the headers say) is inflated in steps, never past that size, so a small
  compressed "bomb" costs no more memory than a large page.
- One deadline for everything (connecting, redirects, headers, body): a server sending a byte a
  second is cut off at ``timeout`` seconds, not ``timeout`` seconds a byte.
- Redirects are followed to http(s) URLs only (never ``ftp://`` or ``file://``), at most 10.
"""

from __future__ import annotations

import http.client
import socket
import ssl
import threading
import time
import urllib.request
import zlib
from typing import IO, Any
from urllib.error import HTTPError, URLError
from urllib.parse import urljoin, urlsplit

from .core.document.parse import MAX_INPUT_BYTES

#: Seconds the whole fetch may take.
DEFAULT_TIMEOUT = 30.0
_CHUNK = 64 * 1024
_GZIP_MAGIC = b"\x1f\x8b"


class FetchError(ValueError):
    """The page could not be fetched (the message says why, with the URL)."""


class Inflater:
    """Inflates a gzip (``"gzip"``, also several members) or deflate (``"deflate"``: zlib, or raw
    deflate as some servers send it) stream given in pieces, giving out at most `limit` bytes in
    all: once there, the rest of the input is not inflated."""

    def __init__(self, encoding: str, limit: int) -> None:
        self.encoding, self.left = encoding, limit
        self._raw_fallback = encoding == "deflate"
        self._new()

    def _new(self) -> None:
        self._z = zlib.decompressobj(16 + zlib.MAX_WBITS if self.encoding == "gzip" else zlib.MAX_WBITS)

    @property
    def full(self) -> bool:
        return self.left <= 0

    @property
    def finished(self) -> bool:
        """Whether the stream ended (rather than being cut short)."""
        return self._z.eof

    def feed(self, data: bytes) -> bytes:
        out = []
        while data and not self.full:
            try:
                piece = self._z.decompress(data, self.left)
            except zlib.error:
                if not self._raw_fallback:
                    raise
                self._raw_fallback = False  # raw deflate, without the zlib header
                self._z = zlib.decompressobj(-zlib.MAX_WBITS)
                continue
            self._raw_fallback = False
            out.append(piece)
            self.left -= len(piece)
            data = self._z.unconsumed_tail
            if self._z.eof:  # another gzip member may follow
                data = self._z.unused_data
                if self.encoding != "gzip" or not data.startswith(_GZIP_MAGIC):
                    break
                self._new()
        return b"".join(out)


def gunzip_bounded(data: bytes, limit: int = MAX_INPUT_BYTES + 1) -> bytes:
    """Gzip bytes inflated, at most `limit` bytes of them; ValueError if they are not gzip."""
    inflater = Inflater("gzip", limit)
    try:
        out = inflater.feed(data)
    except zlib.error as exc:
        raise ValueError(f"not a readable gzip file ({exc})") from None
    if not (inflater.full or inflater.finished):
        raise ValueError("not a readable gzip file (it is cut short)")
    return out


class _Deadline:
    """The time left, and a watchdog that shuts the fetch's sockets at the deadline (a read
    blocked on a slow server returns then)."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.at = time.monotonic() + seconds
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        self._timer = threading.Timer(seconds, self._expire)
        self._timer.daemon = True
        self._timer.start()

    def left(self) -> float:
        return self.at - time.monotonic()

    def check(self, url: str) -> None:
        if self.left() <= 0:
            raise FetchError(f"{url}: cannot fetch it (no complete answer within {self.seconds:g} s)")

    def watch(self, sock: socket.socket) -> None:
        with self._lock:
            self._sockets.append(sock)
        if self.left() <= 0:
            self._expire()

    def _expire(self) -> None:
        with self._lock:
            sockets = list(self._sockets)
        for sock in sockets:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def cancel(self) -> None:
        self._timer.cancel()


def _connection_class(base: type[http.client.HTTPConnection], deadline: _Deadline) -> Any:
    class Connection(base):  # type: ignore[valid-type,misc]
        def connect(self) -> None:
            self.timeout = max(deadline.left(), 0.001)
            super().connect()
            deadline.watch(self.sock)

    return Connection


class _HttpRedirects(urllib.request.HTTPRedirectHandler):
    """Follows redirects to http(s) URLs only (urllib's own also follows ftp://)."""

    def http_error_302(
        self, req: urllib.request.Request, fp: IO[bytes], code: int, msg: str, headers: http.client.HTTPMessage
    ) -> IO[bytes] | None:
        location = headers.get("Location") or headers.get("URI") or ""
        newurl = urljoin(req.full_url, location.strip())
        if location and urlsplit(newurl).scheme.lower() not in ("http", "https"):
            raise HTTPError(newurl, code, f"redirected to {newurl}, not followed: only http(s) is", headers, fp)
        return super().http_error_302(req, fp, code, msg, headers)

    http_error_301 = http_error_303 = http_error_307 = http_error_308 = http_error_302


def _opener(deadline: _Deadline) -> urllib.request.OpenerDirector:
    http_class = _connection_class(http.client.HTTPConnection, deadline)
    https_class = _connection_class(http.client.HTTPSConnection, deadline)

    class HTTPHandler(urllib.request.HTTPHandler):
        def http_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
            return self.do_open(http_class, req)

    class HTTPSHandler(urllib.request.HTTPSHandler):
        def https_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
            # urllib's HTTPSHandler keeps its SSL context there (not in typeshed's stub).
            context: ssl.SSLContext | None = getattr(self, "_context", None)
            return self.do_open(https_class, req, context=context)

    # build_opener keeps its other default handlers (proxies from the environment, errors).
    return urllib.request.build_opener(HTTPHandler, HTTPSHandler, _HttpRedirects)


def fetch(url: str, timeout: float = DEFAULT_TIMEOUT, limit: int = MAX_INPUT_BYTES) -> tuple[bytes, str]:
    """The body of `url` (at most `limit` + 1 bytes, inflated) and the URL it came from after
    redirects; FetchError when it cannot be had within `timeout` seconds in all."""
    if urlsplit(url).scheme.lower() not in ("http", "https"):
        raise FetchError(f"{url}: only http(s) URLs are fetched")
    deadline = _Deadline(timeout)
    request = urllib.request.Request(
        url, headers={"User-Agent": "scrapy-boilerplate", "Accept-Encoding": "gzip, deflate"}
    )
    try:
        with _opener(deadline).open(request, timeout=timeout) as response:
            deadline.check(url)
            encoding = (response.headers.get("Content-Encoding") or "").strip().lower()
            encoding = {"x-gzip": "gzip"}.get(encoding, encoding)
            inflater = Inflater(encoding, limit + 1) if encoding in ("gzip", "deflate") else None
            body, size = [], 0
            while size <= limit:
                chunk = response.read1(_CHUNK)
                deadline.check(url)
                if not chunk:
                    break
                if inflater is not None:
                    chunk = inflater.feed(chunk)
                body.append(chunk)
                size += len(chunk)
                if inflater is not None and inflater.full:
                    break
            return b"".join(body)[: limit + 1], response.geturl()
    except URLError as exc:  # HTTPError too: "HTTP Error 404: Not Found"
        deadline.check(url)
        raise FetchError(f"{url}: cannot fetch it ({getattr(exc, 'reason', exc)})") from None
    except (OSError, http.client.HTTPException, zlib.error) as exc:
        deadline.check(url)
        raise FetchError(f"{url}: cannot fetch it ({exc!r})") from None
    finally:
        deadline.cancel()
