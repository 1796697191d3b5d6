"""Valid Unicode in every output, and pages that declare no charset (issue 34, items 2 and 11).

A lone UTF-16 surrogate (JSON-LD may write "\\udfff") must never reach an output string: JSON and
CSV writers refuse it ("surrogates not allowed"). Bytes that declare no charset and are not UTF-8
are read in the encoding they look like; a declared charset is never second-guessed."""

from __future__ import annotations

import codecs
import csv
import io
import json
import re
import time

import pytest
from charset_pages import PARAGRAPH, RU_TITLE, ZH_SENTENCE, chinese_page, russian_page, surrogate_page
from conftest import real_page, unless_cut
from hostile_bytes import GENERATORS
from hypothesis import given, settings
from hypothesis import strategies as st
from lxml import etree
from parser_inputs import CHARSET_PIECES, soup
from scrapy.http import HtmlResponse
from scrapy.utils.test import get_crawler

from scrapy_boilerplate import extract
from scrapy_boilerplate.cli import main
from scrapy_boilerplate.core.document import charset, parse
from scrapy_boilerplate.core.render.explain import explain_html
from scrapy_boilerplate.crawl.charsets import better_encoding, declared
from scrapy_boilerplate.middlewares import CharsetMiddleware

SURROGATE = re.compile("[\ud800-\udfff]")


def strings(value, where="result"):
    """(where, string) for every string inside `value` (dicts, lists, tuples)."""
    if isinstance(value, str):
        yield where, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from strings(key, f"{where} key")
            yield from strings(item, f"{where}.{key}")
    elif isinstance(value, list | tuple):
        for i, item in enumerate(value):
            yield from strings(item, f"{where}[{i}]")


# -- item 2: lone surrogates ------------------------------------------------------------------


@pytest.mark.parametrize("as_bytes", [False, True])
def test_no_lone_surrogate_reaches_any_output(as_bytes):
    html = surrogate_page()
    result = extract(
        html.encode("utf-8") if as_bytes else html,
        url="https://example.com/pier",
        include_links=True,
        include_images=True,
    )
    fields = {
        "text": result.text,
        "markdown": result.markdown,
        "html": result.html,
        "title": result.title,
        "blocks": [b.text for b in result.blocks],
        "dict": result.to_dict(),
    }
    for where, value in strings(fields):
        assert not SURROGATE.search(value), where
    assert result.authors == ["Bob \ufffd"]
    assert result.description == "The pier plan \ufffd"
    assert result.site_name and "\ufffd" in result.site_name
    json.dumps(result.to_dict(), ensure_ascii=False).encode("utf-8")  # what feed exporters do
    assert PARAGRAPH in result.text


def test_surrogates_in_str_input_become_replacement_characters():
    html = f"<html><body><article><p>{PARAGRAPH} Caf\udce9 au lait.</p>" * 3 + "</article></body></html>"
    result = extract(html)
    assert "Caf\ufffd au lait" in result.text
    assert not SURROGATE.search(result.text + result.html + result.markdown)


def test_explain_page_of_surrogates_encodes():
    page = explain_html(surrogate_page().encode("utf-8"), url="https://example.com/pier")
    page.encode("utf-8")
    assert "Bob \ufffd" in page


@pytest.mark.parametrize("command", [["extract", "--format", "json"], ["explain"]])
def test_cli_json_and_explain_exit_0_on_surrogates(command, tmp_path, capsys):
    source = tmp_path / "page.html"
    source.write_text(surrogate_page(), encoding="utf-8")
    assert main([*command, str(source), "--url", "https://example.com/pier"]) == 0
    out = capsys.readouterr().out
    out.encode("utf-8")
    if command[0] == "extract":
        assert json.loads(out)["authors"] == ["Bob \ufffd"]


def test_csv_of_the_metadata_writes():
    result = extract(surrogate_page(), url="https://example.com/pier").to_dict()
    row = {k: json.dumps(v, ensure_ascii=False) if isinstance(v, list | dict) else v for k, v in result.items()}
    buffer = io.BytesIO()
    with io.TextIOWrapper(buffer, encoding="utf-8") as out:
        writer = csv.DictWriter(out, fieldnames=list(row))
        writer.writeheader()
        writer.writerow(row)
        out.flush()
        assert buffer.getvalue()


# -- item 11: no declared charset -------------------------------------------------------------


@pytest.mark.parametrize("encoding", ["gb18030", "big5", "shift_jis", "euc_kr", "cp1251"])
def test_undeclared_legacy_bytes_are_read_in_their_encoding(encoding):
    text = {
        "gb18030": ZH_SENTENCE,
        "big5": "市政府週一宣布，將在今年夏天之前重建老碼頭，並為附近的居民提供新的公共交通服務。",
        "shift_jis": "市役所は月曜日、夏までに古い桟橋を建て直し、近くの住民のために新しいバスを走らせると発表した。",
        "euc_kr": "시청은 월요일에 여름이 오기 전에 오래된 부두를 다시 짓고 주민들을 위한 새 버스를 운행하겠다고 발표했다.",
        "cp1251": "Городской совет в понедельник решил восстановить старый причал до начала летнего сезона.",
    }[encoding]
    html = (
        "<html><head><title>T</title></head><body><article>"
        + "".join(f"<p>{text} {i}</p>" for i in range(6))
        + "</article></body></html>"
    )
    data = html.encode(encoding)
    assert parse.to_unicode(data) == html
    assert text in extract(data).text


def test_a_declared_charset_is_never_second_guessed():
    # GB18030 bytes that say windows-1252: read as they say, as before.
    data = chinese_page('<meta charset="windows-1252">').encode("gb18030")
    assert parse.sniff_encoding(data) == "cp1252"
    data = chinese_page('<meta http-equiv="Content-Type" content="text/html; charset=big5">').encode("gb18030")
    assert parse.sniff_encoding(data) == "big5"


def test_valid_utf8_and_ascii_are_never_guessed_at(monkeypatch):
    def fail(data):
        raise AssertionError("guessed")

    monkeypatch.setattr(parse, "guess_encoding", fail)
    assert ZH_SENTENCE in extract(chinese_page().encode("utf-8")).text
    assert PARAGRAPH in extract(f"<html><body><p>{PARAGRAPH}</p></body></html>".encode("ascii")).text
    assert parse.sniff_encoding(chinese_page('<meta charset="gb2312">').encode("gb18030")) == "gb18030"


@pytest.mark.parametrize(
    "words",
    [
        "\u201cIt\u2019s done,\u201d she said \u2014 caf\u00e9 na\u00efve.",
        "Corey\u2019s camera\u2019s other\u2019s \u201c5 limb\u201d individual\u2019s",  # the same in windows-1251
        "\u00a33,000 \u00a315,000 \u00a36,000 \u00a38,000 \u00a34,405 \u00a33,415 and \u00a9 2007",  # Shift_JIS katakana
        "1.3\u00b7 1.026 \u00b0 \u00b0 \u00b0 \u00b0 \u00b0 \u00b0 \u00b0 \u00b0 \u00b0 \u00b0 \u00b0 \u00b0 (1.5)",  # Thai letters
    ],
)
def test_english_windows_1252_stays_windows_1252(words):
    # Quotes, symbols and accents among English, as on CleanEval's pages that declare nothing.
    html = f"<html><body><p>{PARAGRAPH} {words}</p><p>{PARAGRAPH}</p></body></html>"
    assert parse.to_unicode(html.encode("cp1252")) == html


def test_no_sample_and_no_detector_fall_back_to_windows_1252(monkeypatch):
    # Non-ASCII bytes only inside markup: nothing tells.
    assert (
        charset.guess_encoding('<html><body><img alt="caf\u00e9"><p>plain</p></body></html>'.encode("cp1252"))
        == "cp1252"
    )
    monkeypatch.setitem(__import__("sys").modules, "charset_normalizer", None)
    assert charset.guess_encoding(chinese_page().encode("gb18030")) == "cp1252"


def test_the_sample_is_linear_on_long_ascii_runs():
    data = b"<p>" + b"a" * 200_000 + b" \xc4\xe3\xba\xc3</p>"
    assert charset.text_sample(data) == b"\xc4\xe3\xba\xc3"


# -- issue 46: the markup stripping of the guess is linear -----------------------------------

#: The pattern strip_markup replaced: its result is the reference (it costs time in the square of
#: the number of "<" without an end).
MARKUP_RE = re.compile(rb"<(?:script\b.*?</script\s*>|style\b.*?</style\s*>|!--.*?-->|[^>]*>)", re.I | re.S)
MARKUP_PIECES = [
    *(b"<", b">", b"<script", b"<SCRIPT", b"script", b"<style", b"style>", b"</script", b"</Style"),
    *(b"<!--", b"-->", b"--", b"!", b"-", b" ", b"\t", b"\n", b"x", b"_", b"1", b"/", b"\xe9", b"\xff"),
]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(MARKUP_PIECES), max_size=40).map(b"".join))
def test_strip_markup_gives_what_the_pattern_gave(data):
    assert charset.strip_markup(data) == MARKUP_RE.sub(b" ", data)


def test_strip_markup_on_a_real_page():
    page = russian_page().replace("<h1>", "<!-- a comment --><style>p {}</style ><h1>").encode("cp1251")
    assert charset.strip_markup(page) == MARKUP_RE.sub(b" ", page)
    assert RU_TITLE.encode("cp1251") in charset.strip_markup(page)
    assert b"<" not in charset.strip_markup(page)


# Any bytes, and bytes of markup pieces and legacy words (parser_inputs.py): no exception, and
# what each step gives has its documented shape. Their work per byte: tests/scaling.
ANY_BYTES = st.one_of(soup(CHARSET_PIECES), st.binary())


@settings(max_examples=200, deadline=None)
@given(ANY_BYTES)
def test_the_sample_is_words_of_the_page_that_hold_non_ascii_bytes(data):
    sample = charset.text_sample(data)
    assert isinstance(sample, bytes) and len(sample) <= charset.MAX_SAMPLE
    for word in sample.split():
        assert word in data and any(byte >= 0x80 for byte in word)


@settings(max_examples=200, deadline=None)
@given(ANY_BYTES)
def test_any_bytes_are_guessed_sniffed_and_parsed_without_an_exception(data):
    assert charset.guess_encoding(data) in charset.LEGACY_ENCODINGS
    codecs.lookup(parse.sniff_encoding(data))  # a codec Python has
    root = parse.to_element(data)
    assert root is None or isinstance(root, etree._Element)
    encoding = better_encoding(response(data))
    assert encoding is None or codecs.lookup(encoding)


HOSTILE_MARKUP = [
    "lt_without_end",
    "scripts_without_end",
    "styles_and_comments_without_end",
    "comments_without_end",
    "script_end_tags_without_gt",
]


@pytest.mark.parametrize("name", HOSTILE_MARKUP)
def test_the_sample_of_hostile_markup_takes_bounded_time(name):
    # 512 KB: 5 to 35 s of CPU with the pattern (a few tens of ms now). CPU time, not wall time
    # (other processes do not count); the scaling tests count the work itself.
    data = GENERATORS[name](512 * 1024)
    start = time.process_time()
    assert charset.text_sample(data) == b""
    assert time.process_time() - start < 1.0


# -- issue 46: a stray byte in a UTF-8 page -------------------------------------------------

PODOLSKI = ("trafilatura-eval", "football.ua.podolski")  # a Russian article, declared UTF-8
DECLARATION_RE = re.compile(rb"<meta http-equiv=\"Content-Type\"[^>]*>")
FIRST_WORDS = "Ветеран сборной"


def podolski(declared: bool = True) -> bytes:
    data = real_page(*PODOLSKI).read_html()
    assert DECLARATION_RE.search(data)
    return data if declared else DECLARATION_RE.sub(b"", data)


def with_stray_byte(data: bytes) -> bytes:
    """`data` with a byte that is no UTF-8 (0xFF) before the first words of the article."""
    at = data.index(FIRST_WORDS.encode(), data.index(b"<body"))
    return data[:at] + b"\xff" + data[at:]


@unless_cut(PODOLSKI)
@pytest.mark.parametrize("declared", [True, False], ids=["declared", "undeclared"])
def test_a_stray_byte_in_a_utf8_page_is_one_replacement_character(declared):
    # As a browser and Scrapy read a page that declares UTF-8; here declared or not.
    data = podolski(declared)
    clean = extract(data)
    assert FIRST_WORDS in clean.text and clean.title
    stray = extract(with_stray_byte(data))
    assert stray.text == clean.text.replace(FIRST_WORDS, "\ufffd" + FIRST_WORDS, 1)
    assert stray.title == clean.title
    assert stray.description == clean.description
    assert parse.declared_encoding(data) == ("utf-8" if declared else None)


@unless_cut(PODOLSKI)
@pytest.mark.parametrize("encoding", ["cp1251", "koi8_r"])
def test_a_legacy_page_with_a_few_utf8_characters_is_still_guessed(encoding):
    # The page re-encoded, undeclared, with a UTF-8 dash and copyright sign pasted in: mostly
    # not UTF-8, so its encoding is guessed as before.
    text = podolski(declared=False).decode("utf-8")
    data = text.encode(encoding, errors="xmlcharrefreplace").replace(b"<body", "<p>— ©</p><body".encode(), 1)
    assert parse.sniff_encoding(data) == encoding
    assert FIRST_WORDS in extract(data).text
    characters, bad = parse.utf8_counts(data)
    assert 2 <= characters < 10 and bad > 1000  # the two pasted, and one or none by chance


def test_the_share_of_bad_sequences_decides():
    utf8 = "Пример текста, ".encode() * 4  # 48 characters of two bytes
    assert parse.utf8_counts(utf8 + b"\xff\xfe") == (48, 2)
    assert parse.utf8_counts("\ufffd".encode() + b"\xff") == (1, 1)  # a real U+FFFD is a character
    assert parse.sniff_encoding(b"<p>" + utf8 + b"\xff" * 12) == "utf-8"  # 48 >= 4 x 12
    assert parse.sniff_encoding(b"<p>" + utf8 + b"\xff" * 13) != "utf-8"
    declared = b'<meta charset="utf-8"><p>' + utf8
    assert parse.sniff_encoding(declared + b"\xff" * 48) == "utf-8"  # declared: 48 >= 48
    assert parse.sniff_encoding(declared + b"\xff" * 49) == "cp1252"  # as before
    # A declared legacy encoding gives way to bytes that are mostly UTF-8, as to valid UTF-8.
    assert parse.sniff_encoding(b'<meta charset="windows-1251"><p>' + utf8 + b"\xff") == "utf-8"


# -- item 11 in a crawl: CharsetMiddleware ----------------------------------------------------


def middleware(**settings):
    return CharsetMiddleware.from_crawler(get_crawler(settings_dict={"BOILERPLATE_DETECT_CHARSET": True, **settings}))


def response(body: bytes, content_type: str = "text/html") -> HtmlResponse:
    return HtmlResponse("https://example.com/a", body=body, headers={"Content-Type": content_type})


def test_middleware_re_decodes_only_a_guess():
    body = russian_page().encode("koi8_r")
    guessed = response(body)
    assert not declared(guessed)
    assert guessed.css("title::text").get() != RU_TITLE  # Scrapy's own guess is wrong here
    mw = middleware()
    fixed = mw.process_response(None, guessed)
    assert fixed.encoding == "koi8_r"
    assert fixed.css("title::text").get() == RU_TITLE
    assert mw.stats.get_value("boilerplate/charset/detected") == 1
    assert mw.stats.get_value("boilerplate/charset/detected/koi8_r") == 1
    # Declared in Content-Type, in <meta>, by a BOM; UTF-8; or guessed right: left as Scrapy read it.
    for kept in (
        response(body, "text/html; charset=windows-1252"),
        response(russian_page().replace("<head>", '<head><meta charset="windows-1252">').encode("koi8_r")),
        response(b"\xef\xbb\xbf" + chinese_page().encode("utf-8")),
        response(chinese_page().encode("utf-8")),
        response(chinese_page().encode("gb18030")),
    ):
        assert better_encoding(kept) is None
        assert mw.process_response(None, kept) is kept
    assert mw.stats.get_value("boilerplate/charset/detected") == 1


@unless_cut(PODOLSKI)
def test_middleware_reads_an_undeclared_page_with_a_stray_byte_as_utf8():
    guessed = response(with_stray_byte(podolski(declared=False)))
    assert "\ufffd" in guessed.css("title::text").get()  # Scrapy's guess: every letter lost
    mw = middleware()
    fixed = mw.process_response(None, guessed)
    assert fixed.encoding == "utf-8"
    assert fixed.css("title::text").get() == "Подольски завершил карьеру в сборной — football.ua"
    assert mw.stats.get_value("boilerplate/charset/detected/utf-8") == 1


def test_middleware_is_off_by_default():
    from scrapy.exceptions import NotConfigured

    with pytest.raises(NotConfigured):
        CharsetMiddleware.from_crawler(get_crawler())
