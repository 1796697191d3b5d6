"""ArticleSpider's seen file (crawl/articles/seen.py): what it reads and appends, the files it refuses at
start-up with what is wrong with them, and a write that fails later (issue 46). Real crawls, with
files that cannot be read or written: tests/crawl/test_article_spider_bounds.py."""

from __future__ import annotations

import errno
import os

import pytest

from scrapy_boilerplate.crawl.articles.seen import SeenFile
from scrapy_boilerplate.settings import SettingError
from scrapy_boilerplate.spiders import ArticleSpider


def test_reads_the_urls_and_appends_each_new_one_at_once(tmp_path):
    path = tmp_path / "seen.txt"
    path.write_bytes(b"https://a.example/1/\r\n\n  https://a.example/2/  \nhttps://a.example/3/")  # no last newline
    seen = SeenFile(str(path))
    assert seen.urls == {"https://a.example/1/", "https://a.example/2/", "https://a.example/3/"}
    assert seen.add("https://a.example/4/") is None
    # Flushed: a crawl killed now keeps it; the last line was not joined to it.
    assert path.read_text().splitlines()[-2:] == ["https://a.example/3/", "https://a.example/4/"]
    assert seen.add("https://a.example/4/") is None and seen.add("https://a.example/1/") is None
    assert path.read_text().count("https://a.example/4/") == 1 and path.read_text().count("/1/") == 1
    seen.close()
    assert SeenFile(str(path)).urls == seen.urls


def test_a_new_file_is_created_at_start_up(tmp_path):
    path = tmp_path / "seen.txt"
    seen = SeenFile(str(path))
    assert seen.urls == set() and path.is_file()
    seen.add("https://a.example/1/")
    assert path.read_text() == "https://a.example/1/\n"


def problem(path) -> str:
    with pytest.raises(SettingError) as raised:
        SeenFile(str(path))
    message = str(raised.value)
    assert message.startswith("ArticleSpider's seen file (-a seen=PATH, or seen_file) must be a UTF-8 text file")
    assert repr(str(path)) in message
    return raised.value.problem


def test_files_that_cannot_be_used_are_refused_with_what_is_wrong(tmp_path):
    folder = tmp_path / "folder"
    folder.mkdir()
    assert problem(folder) == "it is a directory"
    latin = tmp_path / "latin.txt"
    latin.write_bytes(b"https://a.example/caf\xc3\xa9/\nhttps://a.example/caf\xe9/\n")
    assert problem(latin) == "it is not UTF-8 text: byte 0xe9 on line 2"
    assert problem(tmp_path / "missing" / "seen.txt") == f"its folder {tmp_path / 'missing'} does not exist"
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)  # opening it to read would wait for a writer forever
    assert problem(fifo) == "it is not a regular file"
    assert problem("/dev/zero") == "it is not a regular file"  # reading it would never end


def test_the_spider_refuses_it_when_it_is_made(tmp_path):
    with pytest.raises(SettingError, match="it is a directory"):
        ArticleSpider(url="https://a.example/", seen=str(tmp_path))
    spider = ArticleSpider(url="https://a.example/", seen=str(tmp_path / "seen.txt"))
    assert spider.seen == set() and (tmp_path / "seen.txt").is_file()


def test_a_write_that_fails_is_returned_not_raised(tmp_path):
    seen = SeenFile(str(tmp_path / "seen.txt"))
    seen._handle.close()
    seen._handle = open("/dev/full", "a", encoding="utf-8")  # every write: ENOSPC, as a full disk
    error = seen.add("https://a.example/1/")
    assert isinstance(error, OSError) and error.errno == errno.ENOSPC
    assert "https://a.example/1/" in seen.urls  # not fetched again in this crawl
    assert isinstance(seen.add("https://a.example/2/"), OSError)
    seen.close()  # the unwritten lines are not raised again
