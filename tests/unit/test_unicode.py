"""Every output in Unicode NFC, without soft hyphens (issue 26, item 4): a search for "Während"
or "geprüft" finds them in the text, the Markdown, the HTML, the title, the blocks and the
metadata strings, whether the page wrote "Wa\u0308hrend" (a combining diaeresis) or "gepr&shy;üft"."""

import unicodedata

import pytest
from conftest import real_page, shared_unless_cut

from scrapy_boilerplate import extract
from scrapy_boilerplate.core.document.words import clean_text

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
