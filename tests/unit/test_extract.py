"""The public API: extract(), Extractor, Extraction (DESIGN.md, "Public Python API")."""

import lxml.html
import pytest
from conftest import FIXTURE_NAMES, fixture_bytes, real_page, shared_unless_cut
from lxml import etree
from parsel import Selector

from scrapy_boilerplate import Extraction, Extractor, extract
from scrapy_boilerplate.core.metadata.article import METADATA_FIELDS
from scrapy_boilerplate.training.datasets import is_validation_site
from scrapy_boilerplate.training.metrics import shingle_scores

# What each fixture holds. "body" paragraphs are given by their first words.
PAGES = {
    "article_en": {
        "title": "How Community Gardens Are Changing City Neighbourhoods",
        "subheading": "A question of soil and water",
        "body": [
            "When the old parking lot on Fenwick Street closed three years ago",
            "The Fenwick garden is one of more than sixty community plots",
            "Gardeners say the benefits go well beyond fresh vegetables",
            "Not every project has been a success",
            "Water is the other recurring problem",
            "Urban planners who study the programme believe",
        ],
        "caption": "Volunteers planting tomatoes at the Fenwick Street garden",
        "boilerplate": [
            "Contact us",
            "City Life",
            "We use cookies to improve your experience",
            "Accept all cookies",
            "Related articles",
            "Bike lanes expand downtown",
            "New central library opens",
            "GreenThumb42",
            "Our street has a waiting list",
            "fixing the potholes on Mill Road",
            "3 comments",
            "All rights reserved",
            "Privacy policy",
            "Terms of use",
            "Share on Twitter",
        ],
        "image": "/images/fenwick-garden.jpg",
    },
    "article_de": {
        "title": "Die Rückkehr der Nachtzüge",
        "subheading": "Zu wenige Wagen für zu viele Fahrgäste",
        "body": [
            "Noch vor zehn Jahren schien das Ende der Nachtzüge",
            "Die Nachfrage übertrifft die Erwartungen der Betreiber",
            "Das größte Problem ist das rollende Material",
            "Hinzu kommen die hohen Trassenpreise",
            "Verkehrsexperten fordern deshalb eine europäische Lösung",
        ],
        "caption": "Ein Nachtzug kurz vor der Abfahrt im Wiener Hauptbahnhof",
        "boilerplate": [
            "Startseite",
            "Wirtschaft",
            "Diese Website verwendet Cookies",
            "Mehr erfahren",
            "Mehr zum Thema",
            "Bahncard-Preise steigen",
            "Fernbusse unter Druck",
            "Kommentare",
            "Ich fahre seit Jahren mit dem Nachtzug",
            "Leider sind die Preise",
            "Impressum",
        ],
        "image": "bilder/nachtzug-wien.jpg",
    },
    "article_jsonld": {
        "title": "Five Tips for Better Sourdough at Home",
        "subheading": "Temperature is everything",
        "body": [
            "A good sourdough loaf starts long before the oven",
            "Flour matters more than most recipes admit",
            "Water temperature controls the speed of fermentation",
            "Finally, be patient with the bake itself",
        ],
        "caption": "The finished loaf after forty minutes in a cast-iron pot",
        "boilerplate": [
            "Recipes",
            "This site uses cookies",
            "Related articles",
            "The easiest focaccia",
            "Baking with rye",
            "I tried the warmer water trick",
            "Does the protein content advice",
            "independent food blog",
        ],
        "image": "https://cdn.example.org/img/loaf.jpg",
    },
}
URL = "https://news.example.com/2024/03/story.html"


@pytest.fixture(scope="module")
def extracted() -> dict:
    """Default extraction of every fixture, computed once."""
    return {name: extract(fixture_bytes(name), url=URL) for name in FIXTURE_NAMES}


@pytest.mark.parametrize("name", FIXTURE_NAMES)
def test_article_paragraphs_and_subheading_are_kept(extracted, name):
    result = extracted[name]
    assert isinstance(result, Extraction)
    for start in PAGES[name]["body"]:
        assert start in result.text
    assert PAGES[name]["subheading"] in result.text.splitlines()


@pytest.mark.parametrize("name", FIXTURE_NAMES)
def test_boilerplate_is_dropped(extracted, name):
    text = extracted[name].text
    for snippet in PAGES[name]["boilerplate"]:
        assert snippet not in text


@pytest.mark.parametrize("name", FIXTURE_NAMES)
def test_paragraphs_are_in_page_order_one_per_line(extracted, name):
    lines = extracted[name].text.splitlines()
    found = [next(i for i, line in enumerate(lines) if line.startswith(start)) for start in PAGES[name]["body"]]
    assert found == sorted(found)


@pytest.mark.parametrize("name", FIXTURE_NAMES)
def test_title_is_found_but_not_in_the_text_by_default(extracted, name):
    result = extracted[name]
    assert result.title == PAGES[name]["title"]
    assert PAGES[name]["title"] not in result.text.splitlines()


@pytest.mark.parametrize("name", FIXTURE_NAMES)
def test_include_title_puts_the_title_first(name):
    result = extract(fixture_bytes(name), include_title=True)
    lines = result.text.splitlines()
    assert lines[0] == PAGES[name]["title"]
    assert lines.count(PAGES[name]["title"]) == 1
    assert PAGES[name]["body"][0] in result.text


@pytest.mark.parametrize("name", FIXTURE_NAMES)
def test_captions_only_on_request(extracted, name):
    caption = PAGES[name]["caption"]
    assert caption not in extracted[name].text
    with_captions = extract(fixture_bytes(name), include_captions=True)
    assert caption in with_captions.text
    assert PAGES[name]["body"][0] in with_captions.text


def test_comments_only_on_request(extracted):
    assert "Our street has a waiting list" not in extracted["article_en"].text
    with_comments = extract(fixture_bytes("article_en"), include_comments=True).text
    assert "Our street has a waiting list" in with_comments
    assert "fixing the potholes on Mill Road" in with_comments
    assert PAGES["article_en"]["body"][0] in with_comments


def test_a_walk_without_comments_is_walked_again_when_they_are_kept():
    """extract_page on the walk overview detection makes (comments skipped) gives what extract()
    gives when the extraction keeps comment sections."""
    from scrapy_boilerplate.core.document.page import build_page
    from scrapy_boilerplate.core.document.parse import to_element

    html = fixture_bytes("article_en")
    page = build_page(to_element(html))
    assert not page.include_comments
    extractor = Extractor(include_comments=True)
    from_walk = extractor.extract_page(page)
    assert "Our street has a waiting list" in from_walk.text
    assert from_walk.text == extractor.extract(html).text


@pytest.mark.parametrize("name", FIXTURE_NAMES)
def test_markdown_has_the_subheading_as_level_two(extracted, name):
    markdown = extracted[name].markdown
    assert f"## {PAGES[name]['subheading']}" in markdown.splitlines()
    for start in PAGES[name]["body"]:
        assert start in markdown
    assert "\n\n" in markdown  # paragraphs are separated by blank lines


@pytest.mark.parametrize("name", FIXTURE_NAMES)
def test_html_is_well_formed(extracted, name):
    html = extracted[name].html
    root = etree.fromstring(f"<div>{html}</div>")  # the strict XML parser: no recovery
    assert root.findtext(".//h2") == PAGES[name]["subheading"]
    paragraphs = [p.text for p in root.iter("p")]
    for start in PAGES[name]["body"]:
        assert any(p.startswith(start) for p in paragraphs)


def test_html_escapes_markup_characters():
    body = "".join(
        f"<p>Paragraph {i}: if a &lt; b &amp;&amp; c &gt; d then the &quot;rule&quot; holds "
        f"for every value we tried in this long experiment.</p>"
        for i in range(5)
    )
    result = extract(f"<html><body><article>{body}</article></body></html>")
    assert "if a < b && c > d" in result.text
    root = etree.fromstring(f"<div>{result.html}</div>")
    assert "if a < b && c > d" in root.findtext("p")


@pytest.mark.parametrize("name", FIXTURE_NAMES)
def test_images_are_absolute_urls(extracted, name):
    images = extracted[name].images
    from urllib.parse import urljoin

    assert images == [urljoin(URL, PAGES[name]["image"])]
    assert all(src.startswith("https://") for src in images)


def test_relative_images_need_a_url_to_be_output():
    # Every URL in the outputs is absolute http(s): a relative one is resolved against the
    # page URL (or <base href>), and dropped when there is nothing to resolve it against.
    assert extract(fixture_bytes("article_de")).images == []
    assert extract(fixture_bytes("article_de"), url="https://zug.example/reise/").images == [
        "https://zug.example/reise/bilder/nachtzug-wien.jpg"
    ]
    based = fixture_bytes("article_de").replace(b"<head>", b'<head><base href="https://cdn.example/x/">', 1)
    assert extract(based).images == ["https://cdn.example/x/bilder/nachtzug-wien.jpg"]
    assert extract(based, url="https://zug.example/").images == ["https://cdn.example/x/bilder/nachtzug-wien.jpg"]


def test_to_dict():
    result = extract(fixture_bytes("article_en"), url=URL)
    data = result.to_dict()
    assert set(data) == {
        "title",
        "text",
        "markdown",
        "html",
        "images",
        *METADATA_FIELDS,
    }
    assert data["text"] == result.text and data["images"] == result.images
    with_blocks = result.to_dict(include_blocks=True)
    assert set(with_blocks) == set(data) | {"blocks"}
    assert len(with_blocks["blocks"]) == len(result.blocks)
    assert set(with_blocks["blocks"][0]) >= {"text", "is_content", "probability"}


def test_blocks_explain_the_decision(extracted):
    blocks = extracted["article_en"].blocks
    kept = [b.text for b in blocks if b.is_content]
    assert "\n".join(kept) == extracted["article_en"].text
    assert all(0.0 <= b.probability <= 1.0 for b in blocks)
    assert any(b.text == "Home" and not b.is_content for b in blocks)


def test_empty_extraction():
    empty = Extraction()
    assert (empty.text, empty.title, empty.markdown, empty.html, empty.images, empty.blocks) == (
        "",
        None,
        "",
        "",
        [],
        [],
    )
    assert not empty
    assert extract(fixture_bytes("article_en"))


@pytest.mark.parametrize("name", FIXTURE_NAMES)
def test_precision_is_not_longer_than_recall(name):
    data = fixture_bytes(name)
    precision = extract(data, favor="precision").text
    balanced = extract(data, favor="balanced").text
    recall = extract(data, favor="recall").text
    assert len(precision) <= len(balanced) <= len(recall)
    assert PAGES[name]["body"][0] in precision


def test_unknown_option_raises_type_error():
    with pytest.raises(TypeError, match="include_tittle"):
        extract(fixture_bytes("article_en"), include_tittle=True)
    with pytest.raises(TypeError):
        Extractor(include_tittle=True)


def test_invalid_favor_raises_value_error_in_extractor():
    with pytest.raises(ValueError):
        Extractor(favor="speed")


def test_invalid_favor_raises_value_error_in_extract():
    with pytest.raises(ValueError):
        extract(fixture_bytes("article_en"), favor="speed")


@pytest.mark.parametrize("name", FIXTURE_NAMES)
def test_model_free_mode(name):
    result = Extractor(model=False).extract(fixture_bytes(name))
    assert result.text.strip()
    assert sum(start in result.text for start in PAGES[name]["body"]) >= len(PAGES[name]["body"]) // 2
    assert "Accept all cookies" not in result.text


def test_extractor_options_are_defaults_for_its_calls():
    extractor = Extractor(include_captions=True)
    data = fixture_bytes("article_en")
    assert PAGES["article_en"]["caption"] in extractor.extract(data).text
    assert PAGES["article_en"]["caption"] not in extractor.extract(data, include_captions=False).text


@pytest.mark.parametrize("name", FIXTURE_NAMES)
def test_selector_and_tree_give_the_same_result_as_bytes(name):
    data = fixture_bytes(name)
    expected = extract(data, url=URL)
    selector = Selector(text=data.decode("utf-8"))
    before = etree.tostring(selector.root)
    assert extract(selector, url=URL) == expected
    assert etree.tostring(selector.root) == before
    assert extract(lxml.html.document_fromstring(data.decode("utf-8")), url=URL) == expected


def test_sub_selector_extracts_only_its_part():
    selector = Selector(text=fixture_bytes("article_en").decode("utf-8"))
    footer = selector.css("footer")[0]
    assert "All rights reserved" in extract(footer).text


def test_unsupported_selector_content_gives_empty_result():
    assert extract(Selector(text='{"a": 1}', type="json")).text == ""


# -- real pages -------------------------------------------------------------------------------


def average_f1(pages) -> float:
    """The benchmark's F1: precision and recall averaged over pages, then combined."""
    precisions, recalls = [], []
    for page in pages:
        precision, recall = shingle_scores(extract(page.read_html(), url=page.url).text, page.read_gold())
        if precision is not None:
            precisions.append(precision)
        if recall is not None:
            recalls.append(recall)
    p = sum(precisions) / len(precisions) if precisions else 0.0
    r = sum(recalls) / len(recalls)
    return 2 * p * r / (p + r) if p + r else 0.0


@pytest.mark.needs_shared("a quality floor: F1 over 30 articles of held-out sites")
def test_wcxb_dev_articles(dataset_pages):
    # Articles of the sites held out from training (see training/datasets.py).
    pages = dataset_pages(
        "wcxb-dev", 30, where=lambda p: p.page_type == "article" and p.gold_path and is_validation_site(p.site)
    )
    assert len(pages) == 30
    assert average_f1(pages) > 0.85


@pytest.mark.needs_shared("a quality floor: F1 over 20 pages")
def test_readability_pages(dataset_pages):
    pages = dataset_pages("readability", 20, where=lambda p: p.gold_path)
    assert len(pages) == 20
    assert average_f1(pages) > 0.85


def test_extract_page_reuses_a_walk_and_equals_extract():
    from scrapy_boilerplate.core.document.page import build_page
    from scrapy_boilerplate.core.document.parse import parse_html

    html = fixture_bytes("article_en")
    extractor = Extractor()
    page = build_page(parse_html(html))
    assert extractor.extract_page(page).text == extractor.extract(html).text
    with pytest.raises(TypeError):
        extractor.extract_page(page, colour="red")


@pytest.mark.parametrize(
    "text, is_byline",
    [
        ("By Tom Hale · 2 March 2026", True),
        ("by Jane Doe and John Smith", True),
        ("Von Max Muster", True),
        ("By contrast, the council said no.", False),
        ("By 2030 the city will have ten parks.", False),
        ("By the time we arrived, it was late.", False),
    ],
)
def test_byline_pattern(text, is_byline):
    from scrapy_boilerplate.core.metadata.bylines import BYLINE_RE

    assert bool(BYLINE_RE.match(text)) is is_byline


def _fixture_with(old: bytes, new: bytes, name: str = "article_en") -> bytes:
    html = fixture_bytes(name)
    assert old in html
    return html.replace(old, new, 1)


def test_a_page_wide_caption_class_on_body_does_not_empty_the_extraction(extracted):
    # Themes put options such as "caption-dark" on <body>: a cue there would mark every block.
    html = _fixture_with(b"<body", b'<body class="single-post caption-dark"')
    result = extract(html)
    assert result.text == extracted["article_en"].text
    assert PAGES["article_en"]["caption"] not in result.text


def test_taxonomy_classes_of_a_post_are_not_cues():
    from scrapy_boilerplate.core.document.elements import FLAG
    from scrapy_boilerplate.core.document.page import build_page
    from scrapy_boilerplate.core.document.parse import parse_html

    # WordPress's post_class(): the post's tags and categories become classes.
    html = (
        b'<html><body><article class="post-90871 tag-creditshelf category-comments">'
        b"<p>" + b"Creditshelf and finleap plan to work together on loans. " * 6 + b"</p>"
        b"</article></body></html>"
    )
    page = build_page(parse_html(html))
    assert page.texts and not page.flags[0] & (FLAG["caption"] | FLAG["comment"])
    assert "creditshelf" not in page.tokens[0]
    assert extract(html).text.startswith("Creditshelf and finleap")


def test_captions_are_kept_when_they_would_be_most_of_the_content():
    body = "".join(
        f"<p>Paragraph {i} of the story tells what happened in the valley that year, "
        f"and why the river changed its course after the storm.</p>"
        for i in range(8)
    )
    plain = extract(f"<html><body><div>{body}</div></body></html>")
    # A caption cue on the wrapper of the whole text: it cannot be a caption.
    wrapped = extract(f'<html><body><div class="photo-info">{body}</div></body></html>')
    for i in range(2, 8):
        assert f"Paragraph {i} of the story" in plain.text
        assert f"Paragraph {i} of the story" in wrapped.text


def test_images_are_found_when_read_and_survive_pickling_and_trimming():
    """The images' URLs are resolved on first read (a crawl storing only the text never pays),
    and an extraction sent to another process, or trimmed of its markup first, still has them."""
    import pickle
    from urllib.parse import urljoin

    name = FIXTURE_NAMES[0]
    expected = [urljoin(URL, PAGES[name]["image"])]
    result = extract(fixture_bytes(name), url=URL)
    assert result._found_images is None
    copy = pickle.loads(pickle.dumps(result))
    assert copy.images == expected and copy._content_source is None
    assert result.trim(markup=False).images == expected and result.markdown == ""
    unread = extract(fixture_bytes(name), url=URL).trim(markup=False, metadata=False, images=False)
    assert pickle.loads(pickle.dumps(unread)).images == []  # not resolved: nobody reads them
    read_by_metadata = extract(fixture_bytes(name), url=URL).trim(markup=False, images=False)
    assert read_by_metadata.images == expected  # the metadata's lead image is read from them
    fresh = extract(fixture_bytes(name), url=URL, include_images=True)
    assert f"]({expected[0]})" in fresh.markdown and fresh.images == expected
    assert fresh.metadata.image is not None


def test_markdown_and_html_are_rendered_when_read_and_survive_pickling():
    import pickle

    result = extract(fixture_bytes("article_en"), include_title=True)
    copy = pickle.loads(pickle.dumps(result))  # as worker processes send it back, before any read
    assert result._markup is None
    assert result.markdown.startswith("# ") and "<p>" in result.html
    assert (copy.markdown, copy.html) == (result.markdown, result.html)
    assert result.to_dict()["markdown"] == result.markdown


def test_a_tiny_page_of_links_only_gives_their_text():
    html = '<html><body><p><a href="/a">abc</a></p><p><a href="/b">def</a> <a href="/c">ghi</a></p></body></html>'
    assert extract(html).text.split() == ["abc", "def", "ghi"]
    # With some plain text, the links are left out as before.
    mixed = html.replace("<body>", "<body><p>A short note about the three pages below.</p>")
    assert extract(mixed).text == "A short note about the three pages below."


def test_an_h1_without_letters_is_not_the_title():
    # A vote count in an h1 before the post's own heading (seen on a forum of long posts).
    body = "<p>" + "A long post about forecasting and the reasons it goes wrong. " * 10 + "</p>"
    html = f"<html><body><h1>94</h1><h1>Forecasting, again</h1>{body}</body></html>"
    assert extract(html).title == "Forecasting, again"


def test_adjacent_code_values_on_a_real_page_are_separate_words():
    # Cut down from a real post: each character is annotated with two <code> values side by side
    # (its code point and its UTF-8 bytes), "U+00DF0x C3 9F" when glued.
    result = extract(fixture_bytes("inline_code_values"), url="https://ashvardanian.com/posts/search-utf8")
    assert "U+00DF 0x C3 9F" in result.text
    assert "U+00DF0x" not in result.text
    assert "`U+00DF` `0x C3 9F`" in result.markdown
    assert "<code>U+00DF</code> <code>0x C3 9F</code>" in result.html


def test_adjacent_code_values_on_the_whole_page():
    page = real_page("wcxb-dev", "0415")
    text = extract(page.read_html(), url=page.url).text
    assert text.count("U+00DF 0x C3 9F") >= 3 and "U+00DF0x" not in text


@pytest.mark.parametrize(
    "name, page_id, title",
    [
        # LessWrong: a vote count "94" in an h1 first
        shared_unless_cut("wcxb-dev", "0384", "Scalable End-to-End Interpretability"),
        shared_unless_cut("wcxb-dev", "0491", "001"),  # a project named 001: its own h1 and og:title
    ],
)
def test_real_page_titles(name, page_id, title):
    page = real_page(name, page_id)
    assert extract(page.read_html(), url=page.url).title == title


@pytest.mark.parametrize(
    "name, page_id", [shared_unless_cut("wcxb-dev", page_id) for page_id in ("0661", "0662", "0663", "0664", "0665")]
)
def test_real_sphinx_pages_keep_no_heading_anchor_marks(name, page_id):
    # Sphinx documentation (Django, Flask, Requests, SQLAlchemy, Celery): "Quickstart¶".
    page = real_page(name, page_id)
    result = extract(page.read_html(), url=page.url)
    assert result.text and "¶" not in result.text and "¶" not in result.markdown
