"""ArticleSpider's seen file: the article URLs yielded in earlier runs, appended to as it yields.

The file is checked when the spider is made, so that a file the crawl cannot use stops it before
it starts (a SettingError: one ERROR line naming the file and what is wrong with it): it must be a
regular file of UTF-8 text the crawl can read and append to, or not exist yet in a folder the crawl
can write to (it is created then). It stays open in append mode, and every URL is flushed as it is
written, so a crawl that is killed keeps what it wrote. A write that fails later (a full disk, a
file size limit) costs no item: `add` says so and the spider counts it.
"""

from __future__ import annotations

import os
import stat

from ...settings import SettingError

#: How the error names the file: what a user gives it as.
SEEN = "ArticleSpider's seen file (-a seen=PATH, or seen_file)"
ALLOWED = "a UTF-8 text file the crawl can read and append to, or a new one in a folder it can write to"


class SeenFile:
    """The URLs of the file at `path` (`urls`), and the file open for appending."""

    def __init__(self, path: str):
        self.path = path
        data = _read(path)
        self.urls: set[str] = set()
        if data is not None:
            text = _decoded(path, data)
            self.urls = {line.strip() for line in text.replace("\r", "\n").split("\n") if line.strip()}
        folder = os.path.dirname(os.path.abspath(path))
        if data is None and not os.path.isdir(folder):
            raise _error(path, f"its folder {folder} does not exist")
        try:
            self._handle = open(path, "a", encoding="utf-8")  # open until close()
        except OSError as exc:
            raise _error(path, f"it cannot be {'created' if data is None else 'appended to'}: {exc.strerror}") from None
        # A last line without its newline (a crawl killed mid-line, an edit) is not joined to the next.
        self._pending = "\n" if data and not data.endswith((b"\n", b"\r")) else ""

    def add(self, url: str) -> OSError | None:
        """Appends `url` (once) and flushes it; the error, if the write failed (nothing is raised)."""
        if url in self.urls:
            return None
        self.urls.add(url)
        try:
            self._handle.write(f"{self._pending}{url}\n")
            self._handle.flush()
        except OSError as exc:
            return exc
        self._pending = ""
        return None

    def close(self) -> None:
        try:
            self._handle.close()
        except OSError:
            pass  # what could not be written was reported when it was added


def _read(path: str) -> bytes | None:
    """The file's bytes, None when there is no file yet; SettingError for what cannot be read."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise _error(path, f"it cannot be read: {exc.strerror}") from None
    if stat.S_ISDIR(mode):
        raise _error(path, "it is a directory")
    if not stat.S_ISREG(mode):
        # A FIFO would block the start, a device such as /dev/zero never end.
        raise _error(path, "it is not a regular file")
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except OSError as exc:
        raise _error(path, f"it cannot be read: {exc.strerror}") from None


def _decoded(path: str, data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise _error(path, f"it is not UTF-8 text: byte 0x{data[exc.start]:02x} on line {line}") from None


def _error(path: str, problem: str) -> SettingError:
    return SettingError(SEEN, path, ALLOWED, problem=problem)
