"""A loopback HTTP server for crawl tests: real sockets on 127.0.0.1, pages from memory.

    with LoopbackServer({"/": b"<html>...", "/a.html": (body, {"Content-Type": ...})}) as server:
        server.url("/a.html")

Routes map a path (with its query string, if any) to a body, or to (body, headers)
or (status, body, headers), or to a function called at request time with the request's
headers that returns one of those (a page held back until a test lets it go). Bodies are served as they are; a route's headers
replace the default ``Content-Type: text/html; charset=utf-8``. A gzip-encoded
route answers 406 to a client that does not accept gzip. Requests for unknown
paths get a 404. The server runs in a daemon thread, so a test crawling
it in-process shares the GIL with it; the benchmark runs it in another process.
"""

from __future__ import annotations

import gzip
import threading
from html import escape
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

DEFAULT_HEADERS = {"Content-Type": "text/html; charset=utf-8"}


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:  # http.server's naming
        server: LoopbackServer = self.server.owner
        server.requests.append(self.path)
        route = server.routes.get(self.path)
        if callable(route):
            route = route(self.headers)
        if route is None:
            status, body, headers = 404, b"not found", {"Content-Type": "text/plain"}
        elif isinstance(route, bytes):
            status, body, headers = 200, route, DEFAULT_HEADERS
        elif len(route) == 2:
            status, (body, headers) = 200, route
        else:
            status, body, headers = route
        if headers.get("Content-Encoding") == "gzip" and "gzip" not in self.headers.get("Accept-Encoding", ""):
            # As a real server would: no compressed body for a client that cannot read it.
            status, body, headers = 406, b"", {}
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args) -> None:
        pass


class BackloggedHTTPServer(ThreadingHTTPServer):
    # The default backlog of 5 drops connections when several crawls start at once,
    # and TCP then retries after 1, 3, 7... seconds: crawls stall for minutes.
    request_queue_size = 128


class LoopbackServer:
    def __init__(self, routes: dict | None = None):
        self.routes: dict = dict(routes or {})
        self.requests: list[str] = []
        self._httpd = BackloggedHTTPServer(("127.0.0.1", 0), _Handler)
        self._httpd.daemon_threads = True
        self._httpd.owner = self
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def port(self) -> int:
        return self._httpd.server_address[1]

    def url(self, path: str = "/") -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def __enter__(self) -> LoopbackServer:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()


def gzipped(body: bytes, content_type: str = "text/html; charset=utf-8") -> tuple:
    """A route serving `body` gzip-compressed (Content-Encoding: gzip)."""
    return gzip.compress(body), {"Content-Type": content_type, "Content-Encoding": "gzip"}


def index_page(links: list[str], title: str = "Index") -> bytes:
    """A bare listing page linking to `links` (paths)."""
    items = "".join(f'<li><a href="{escape(href)}">{escape(href)}</a></li>' for href in links)
    return (
        f"<!DOCTYPE html><html><head><title>{escape(title)}</title></head><body><ul>{items}</ul></body></html>"
    ).encode()
