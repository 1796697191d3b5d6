"""Every output in Unicode NFC, without soft hyphens (issue 26, item 4): a search for "Während"
or "geprüft" finds them in the text, the Markdown, the HTML, the title, the blocks and the
metadata strings, whether the page wrote "Wa\u0308hrend" (a combining diaeresis) or "gepr&shy;üft".
And without control characters (issue 46): a page's U+0002 or U+0090 reaches no output."""

import re
import unicodedata

import pytest
from conftest import real_page, shared_unless_cut, unless_cut
from parsel import Selector

from scrapy_boilerplate import extract
from scrapy_boilerplate.core.document.words import clean_text, drop_controls

DECOMPOSED = "Wa\u0308hrend"  # "Während" with a combining diaeresis
HYPHENATED = "gepr\u00fc\u00adft"  # "geprüft" with a soft hyphen inside


def assert_clean(value: str, where: str) -> None:
    assert "\xad" not in value, f"a soft hyphen in {where}"
    assert unicodedata.is_normalized("NFC", value), f"{where} is not NFC"


def outputs(result) -> dict:
    return {
        "text": result.text,
        "markdown": result.markdown,
        "html": result.html,
        "title": result.title or "",
        "authors": " ".join(result.authors),
        "description": result.description or "",
        "site_name": result.site_name or "",
        "blocks": " ".join(b.text for b in result.blocks),
    }


def test_clean_text():
    assert clean_text(DECOMPOSED) == "Während"
    assert clean_text(HYPHENATED) == "geprüft"  # removed, not replaced by a space
    assert clean_text("Stra\u00adße e\u0301t\u00e9") == "Straße été"
    plain = "plain ASCII text"
    assert clean_text(plain) is plain
    already = "schon geprüft"
    assert clean_text(already) is already  # clean text is not copied


def made_page() -> str:
    paragraphs = "".join(
        f"<p>{DECOMPOSED} der Sitzung wurde der Antrag {HYPHENATED} und von <em>{DECOMPOSED}</em> "
        f"des Jahres im Ausschuss <a href='/a'>Bespre&shy;chung {i}</a> lange besprochen.</p>"
        for i in range(8)
    )
    return (
        f"<html><head><title>Bericht {DECOMPOSED} der Pru\u0308fung | Su\u0308dkurier</title>"
        "<meta name='author' content='Jo\u0308rg Mu&#776;&shy;ller'>"
        "<meta name='description' content='Die Pru\u0308&shy;fung des Antrags'>"
        "<meta property='og:site_name' content='Su\u0308d&shy;kurier'></head><body><article>"
        f"<h1>Bericht {DECOMPOSED} der Pru\u0308fung</h1>{paragraphs}"
        f"<table><tr><th>Wann</th><th>Was</th></tr><tr><td>{DECOMPOSED}</td><td>{HYPHENATED}</td></tr>"
        "<tr><td>danach</td><td>abgelehnt</td></tr></table></article></body></html>"
    )


@pytest.mark.parametrize("include_links", [False, True])
def test_every_output_of_a_made_page_is_nfc_without_soft_hyphens(include_links):
    result = extract(made_page(), include_links=include_links)
    for where, value in outputs(result).items():
        assert_clean(value, where)
    for where in ("text", "markdown", "html", "blocks"):
        value = outputs(result)[where]
        assert "Während" in value and "geprüft" in value and "Besprechung" in value, where
    assert result.title == "Bericht Während der Prüfung"
    assert result.authors == ["Jörg Müller"]
    assert result.description == "Die Prüfung des Antrags"
    assert result.site_name == "Südkurier"


def test_title_from_the_metadata_is_nfc_without_soft_hyphens():
    body = "".join(f"<p>Ein Absatz mit genug Wörtern für den Inhalt der Seite, Nummer {i}.</p>" for i in range(8))
    result = extract(
        f"<html><head><meta property='og:title' content='Pru\u0308&shy;fung bestanden'></head>"
        f"<body><article>{body}</article></body></html>"
    )
    assert result.title == "Prüfung bestanden"


# Real pages whose outputs held soft hyphens or decomposed letters before (measured on the
# shared sets: 56 pages; these are some of each kind).
REAL_PAGES = [
    ("wcxb-dev", "4554"),  # soft hyphens in the text and the title
    ("wcxb-dev", "0415"),  # combining marks in the text
    ("readability", "wapo-2"),  # soft hyphens in the text
    ("trafilatura-eval", "bmas.de-anforderungen"),  # soft hyphens in text, title and description
    ("trafilatura-eval", "bka.de-messengerdienste"),  # a soft hyphen in the title
    ("trafilatura-eval", "adac.de.kindersitze"),  # combining marks in the text
]


@pytest.mark.parametrize("dataset, page_id", [shared_unless_cut(*page) for page in REAL_PAGES])
def test_real_pages_are_nfc_without_soft_hyphens(dataset, page_id):
    page = real_page(dataset, page_id)
    raw = page.read_html()
    assert (
        b"\xc2\xad" in raw
        or b"&shy;" in raw
        or "\u0308" in raw.decode("utf-8", "replace")
        or any(0x300 <= ord(c) <= 0x36F for c in raw.decode("utf-8", "replace"))
    )
    result = extract(raw, page.url)
    assert result.text
    for where, value in outputs(result).items():
        assert_clean(value, where)


# -- issue 46: control characters ------------------------------------------------------------

CONTROL_RE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def strings(value, where="result"):
    """(where, string) for every string inside `value` (dicts, lists, tuples)."""
    if isinstance(value, str):
        yield where, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from strings(item, f"{where}.{key}")
    elif isinstance(value, list | tuple):
        for i, item in enumerate(value):
            yield from strings(item, f"{where}[{i}]")


def test_drop_controls():
    assert drop_controls("he\x02llo \x7f wor\x1bld") == "hello world"
    assert drop_controls("\x02 a \x02\x03 b \x02") == "a b"  # normalised whitespace stays so
    assert drop_controls("one\n\x02 two") == "one\ntwo"
    # C1 is windows-1252 read as Latin-1 (as HTML reads &#146;); its five holes go
    assert drop_controls("we\x92re \x93here\x94 \x96 Wait\x85") == "we’re “here” – Wait…"
    assert drop_controls("lim\x8fpio\x81") == "limpio"
    assert drop_controls("a\x0cb\x1fc") == "a b c"  # what str.split() takes for whitespace
    plain = "tab\tnew\nline\r"
    assert drop_controls(plain) is plain
    assert clean_text("Stra\u00adße \x02e\u0301t\u00e9\x7f") == "Straße été"


CONTROLS_PAGE = ("trafilatura-eval", "reuters.com.parasite")
JSONLD_RE = re.compile(rb"(<script[^>]*ld\+json[^>]*>)(.*?)(</script>)", re.S)


def with_controls(data: bytes) -> bytes:
    """The page with control characters in its words: in the text, the title and the <meta>
    tags, as bytes (U+0002, DEL, U+009D); in its JSON-LD, as JSON escapes (U+0002, U+0007, U+0090:
    JSON holds no raw control character)."""
    raw = [(b"Parasite", b"Para\x02site"), (b"thriller", b"thri\x7fller"), (b"Korean", b"Kor\xc2\x9dean")]
    raw += [(b"U.S.", b"U.\x02S."), (b" was ", b" \x02 was ")]
    raw += [(b"-idUSKBN1ZI0EH", b"-id\x02USKBN1ZI0EH"), (b"&amp;w=800", b"&amp;w=\x7f800")]  # in URLs
    escaped = [(b"Parasite", b"Para\\u0002site"), (b"Serjeant", b"Serj\\u0090eant"), (b"Reuters", b"Reu\\u0007ters")]
    escaped += [(b"-idUSKBN1ZI0EH", b"-id\\u0002USKBN1ZI0EH")]
    pieces, at = [], 0
    for script in JSONLD_RE.finditer(data):
        pieces += [_replaced(data[at : script.start(2)], raw), _replaced(script.group(2), escaped)]
        at = script.end(2)
    return b"".join([*pieces, _replaced(data[at:], raw)])


def _replaced(data: bytes, pairs: list[tuple[bytes, bytes]]) -> bytes:
    for old, new in pairs:
        data = data.replace(old, new)
    return data


@unless_cut(CONTROLS_PAGE)
@pytest.mark.parametrize("form", ["bytes", "str", "selector"])
def test_no_output_of_a_real_page_holds_control_characters(form):
    page = real_page(*CONTROLS_PAGE)
    data = with_controls(page.read_html())
    assert data.count(b"\x02") > 10 and b"\\u0090" in data and b"\\u0002" in data
    html = {"bytes": data, "str": data.decode("utf-8"), "selector": Selector(text=data.decode("utf-8"))}[form]
    for options in ({}, {"include_links": True, "include_images": True, "include_comments": True}):
        result = extract(html, url=page.url, **options)
        fields = {"dict": result.to_dict(include_blocks=True), "blocks": [b.text for b in result.blocks]}
        for where, value in strings(fields):
            assert not CONTROL_RE.search(value), where
        clean = extract(page.read_html(), url=page.url, **options)
        assert result.text == clean.text  # the words joined again, the spaces as they were
        assert result.title == clean.title and "Parasite" in result.title
        assert result.authors == clean.authors == ["Jill Serjeant"]
        assert result.description == clean.description
        assert result.site_name == clean.site_name
        assert result.canonical_url == clean.canonical_url and result.image == clean.image
