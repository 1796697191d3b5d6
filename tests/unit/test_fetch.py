"""The command line's URL fetch (scrapy_boilerplate/fetch.py) against loopback servers that
misbehave: a gzip bomb, a body over the parser's limit, a server sending a byte at a time,
redirects to other schemes."""

from __future__ import annotations

import socket
import threading
import time
import tracemalloc
import zlib

import pytest
from server import LoopbackServer

from scrapy_boilerplate import cli
from scrapy_boilerplate.core.document.parse import MAX_INPUT_BYTES

PAGE = b"<html><head><title>Bomb</title></head><body><p>" + b"word " * 200 + b"</p></body></html>"


def gzip_bomb(inflated_mb: int) -> bytes:
    """A gzip stream of PAGE then `inflated_mb` MB of spaces (about 1 KB a MB compressed)."""
    z = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    parts = [z.compress(PAGE)]
    block = b" " * (1 << 20)
    parts += [z.compress(block) for _ in range(inflated_mb)]
    parts.append(z.flush())
    return b"".join(parts)


@pytest.fixture(scope="module")
def bomb():
    return gzip_bomb(150)


def peak_mb(call):
    tracemalloc.start()
    try:
        result = call()
        return result, tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("encoded", [True, False], ids=["content-encoding", "gzip-bytes"])
def test_a_gzip_bomb_inflates_no_further_than_the_parse_limit(bomb, encoded):
    headers = {"Content-Type": "text/html", **({"Content-Encoding": "gzip"} if encoded else {})}
    with LoopbackServer({"/bomb": (bomb, headers)}) as server:
        (data, _), peak = peak_mb(lambda: cli._read_source(server.url("/bomb"), None))
    assert len(bomb) < 200_000
    assert data.startswith(PAGE) and len(data) == MAX_INPUT_BYTES + 1
    assert peak < 40, f"{peak:.0f} MB to read a {len(bomb) // 1000} KB page"


def test_deflate_zlib_and_raw():
    raw = zlib.compressobj(6, zlib.DEFLATED, -zlib.MAX_WBITS)
    routes = {
        "/zlib": (zlib.compress(PAGE), {"Content-Encoding": "deflate"}),
        "/raw": (raw.compress(PAGE) + raw.flush(), {"Content-Encoding": "deflate"}),
    }
    with LoopbackServer(routes) as server:
        assert cli._read_source(server.url("/zlib"), None)[0] == PAGE
        assert cli._read_source(server.url("/raw"), None)[0] == PAGE


def test_a_body_over_the_limit_is_read_to_the_limit_and_one_byte():
    big = PAGE + b" " * (MAX_INPUT_BYTES + 5_000_000)
    with LoopbackServer({"/big": big}) as server:
        data, url = cli._read_source(server.url("/big"), None)
    assert len(data) == MAX_INPUT_BYTES + 1 and data.startswith(PAGE) and url.endswith("/big")


class Trickle:
    """A server that sends its answer one byte every `pause` seconds for `seconds` (in the
    headers, or in the body after whole headers)."""

    def __init__(self, where: str, pause: float = 0.1, seconds: float = 6.0):
        self.where, self.pause, self.seconds = where, pause, seconds
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        conn, _ = self.sock.accept()
        conn.recv(65536)
        head = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 100000\r\n"
        if self.where == "body":
            conn.sendall(head + b"\r\n")
        else:
            conn.sendall(b"HTTP/1.1 200 OK\r\n")
        end = time.monotonic() + self.seconds
        try:
            while time.monotonic() < end:
                conn.sendall(b"x" if self.where == "body" else b"X-Slow: a\r\n"[:1])
                time.sleep(self.pause)
        except OSError:
            pass
        conn.close()


@pytest.mark.parametrize("where", ["headers", "body"])
def test_one_deadline_for_the_whole_fetch(where, monkeypatch, capsys):
    monkeypatch.setattr(cli, "FETCH_TIMEOUT", 1.0, raising=False)
    server = Trickle(where)
    start = time.monotonic()
    with pytest.raises(ValueError, match=r"cannot fetch it .no complete answer within 1 s"):
        cli._read_source(f"http://127.0.0.1:{server.port}/", None)
    took = time.monotonic() - start
    assert took < 2.5, f"{took:.1f} s for a 1 s deadline"
    assert cli.main(["extract", f"http://127.0.0.1:{Trickle(where).port}/"]) == 1  # one line
    assert "within 1 s" in capsys.readouterr().err


def test_redirects_to_other_schemes_are_not_followed(capsys):
    ftp = socket.create_server(("127.0.0.1", 0))
    ftp.settimeout(0.5)
    ftp_port = ftp.getsockname()[1]
    routes = {
        "/ftp": (302, b"", {"Location": f"ftp://127.0.0.1:{ftp_port}/page.html"}),
        "/file": (301, b"", {"Location": "file:///etc/hostname"}),
        "/hop": (302, b"", {"Location": "/page"}),
        "/page": PAGE,
    }
    with LoopbackServer(routes) as server:
        for path in ("/ftp", "/file"):
            assert cli.main(["extract", server.url(path)]) == 1
            err = capsys.readouterr().err
            assert "cannot fetch it" in err and "only http(s)" in err, err
        data, url = cli._read_source(server.url("/hop"), None)  # http redirects are followed
    assert data == PAGE and url == server.url("/page")
    with pytest.raises(TimeoutError):  # nothing connected to the ftp:// address
        ftp.accept()
    ftp.close()
