"""Per-site selectors (core/selection/site_rules.py): content_selector, exclude_selectors and
site_rules on extract() and Extractor, on made pages and on real pages of ../shared/datasets."""

from __future__ import annotations

import copy
import logging
import pickle
import re

import pytest
from conftest import needs_shared
from lxml import etree
from parsel import Selector

from scrapy_boilerplate import Extractor, extract
from scrapy_boilerplate.core.document.page import build_page
from scrapy_boilerplate.core.document.parse import to_element
from scrapy_boilerplate.core.selection.site_rules import (
    SiteRule,
    SiteRules,
    _cached_rule,
    compile_selector,
    make_rule,
)

STORY = " ".join(["The river council met on Tuesday to discuss the new bridge over the old ford."] * 4)
SIDE = " ".join(["Our most read stories this week, picked by the editors for our readers."] * 4)
PROMO = "Get the app today and read every story first, for only five dollars a month."


def page(body: str = "") -> str:
    return f"""<html><head><title>Bridge news</title>
<meta name="author" content="Jane Roe"></head><body>
<nav class="menu"><a href="/">Home</a> <a href="/news">News</a> <a href="/sport">Sport</a></nav>
<div class="sidebar"><p>{SIDE} SIDEBAR</p></div>
<article><h1>Bridge news</h1><div class="body"><p>{STORY} ONE</p>
<div class="promo"><p>{PROMO}</p></div>
<p>{STORY} TWO <span class="note">a note</span> end</p>
<p><span class="credit">Photo credit: the river council archive</span></p>{body}</div></article>
<footer>Copyright 2026 The Bridge Times</footer></body></html>"""


HTML = page()


def test_without_selectors_the_promo_is_kept_and_there_is_no_rule_summary():
    result = extract(HTML)
    assert PROMO in result.text and "ONE" in result.text
    assert result.site_rule is None


def test_exclude_selector_keeps_the_excluded_element_out():
    result = extract(HTML, exclude_selectors=[".promo"])
    assert PROMO not in result.text
    assert "ONE" in result.text and "TWO a note end" in result.text
    rule = result.site_rule
    assert rule["matched"] and rule["content"] is None
    assert rule["exclude"] == [{"selector": ".promo", "elements": 1, "blocks": 1}]
    # The blocks forced out are the promo's block, which the extraction lists as dropped.
    [out] = rule["forced_out"]
    assert result.blocks[out].text == PROMO and not result.blocks[out].is_content


def test_content_selector_limits_the_page_to_the_matched_element():
    result = extract(HTML, content_selector=".sidebar")
    # The model scores the sidebar low, but the caller says it is the content.
    assert "SIDEBAR" in result.text and "ONE" not in result.text
    result = extract(HTML, content_selector="article .body", exclude_selectors=[".promo"])
    assert "ONE" in result.text and "TWO" in result.text and PROMO not in result.text
    assert "SIDEBAR" not in result.text and "Home" not in result.text
    rule = result.site_rule
    assert rule["content"] == {"selector": "article .body", "elements": 1, "blocks": 4}
    forced = {result.blocks[i].text for i in rule["forced_out"]}
    assert PROMO in forced and "Copyright 2026 The Bridge Times" in forced
    assert all(not result.blocks[i].is_content for i in rule["forced_out"])


def test_title_and_metadata_still_come_from_the_whole_page():
    result = extract(HTML, url="https://news.example/a", content_selector="article .body")
    assert result.title == "Bridge news"   # the <h1> and <title> are outside the content element
    assert result.authors == ["Jane Roe"]


def test_inline_elements_exclude_whole_blocks_only():
    result = extract(HTML, exclude_selectors=[".note", ".credit"])
    # "a note" is part of a paragraph of other text: the paragraph stays whole.
    assert "TWO a note end" in result.text
    # The credit span is the whole of its paragraph's text: that block goes.
    assert "Photo credit" in extract(HTML).text
    assert "Photo credit" not in result.text
    notes = {e["selector"]: e for e in result.site_rule["exclude"]}
    assert notes[".note"] == {"selector": ".note", "elements": 1, "blocks": 0}
    assert notes[".credit"]["blocks"] == 1


def test_inline_content_element_holding_block_elements():
    html = page(f"<span class='more'><p>{STORY} THREE</p><p>{STORY} FOUR</p></span>")
    result = extract(html, content_selector="span.more")
    assert result.site_rule["content"]["blocks"] == 2
    assert "THREE" in result.text and "FOUR" in result.text and "ONE" not in result.text


def test_no_match_leaves_the_extraction_as_without_it_with_a_debug_line(caplog):
    plain = extract(HTML)
    with caplog.at_level(logging.DEBUG, logger="scrapy_boilerplate.core.selection.site_rules"):
        result = extract(HTML, content_selector="div.story-text", exclude_selectors=[".ad-slot"])
    assert result.text == plain.text and result.html == plain.html
    assert [b.is_content for b in result.blocks] == [b.is_content for b in plain.blocks]
    assert not result.site_rule["matched"] and result.site_rule["forced_out"] == []
    messages = [r.getMessage() for r in caplog.records if r.levelno == logging.DEBUG]
    assert any("'div.story-text' matches no content" in m for m in messages)
    assert any("'.ad-slot'" in m for m in messages)


def test_a_matched_element_without_text_counts_as_no_match():
    html = HTML.replace("<footer>", "<div class='story-text' hidden><p>old</p></div><footer>")
    result = extract(html, content_selector=".story-text")
    assert result.site_rule["content"] == {"selector": ".story-text", "elements": 1, "blocks": 0}
    assert not result.site_rule["matched"] and result.text == extract(html).text


@pytest.mark.parametrize("bad", ["div[[", "p::text", "", "a >", ":nth-child(x)"])
def test_an_invalid_selector_raises_value_error_naming_it(bad):
    with pytest.raises(ValueError, match="invalid CSS selector") as raised:
        extract(HTML, content_selector=bad)
    assert repr(bad) in str(raised.value)
    with pytest.raises(ValueError, match=re.escape(f"invalid CSS selector {bad!r}")):
        extract(HTML, exclude_selectors=[".promo", bad])
    with pytest.raises(ValueError, match=re.escape(f"invalid CSS selector {bad!r}")):
        Extractor(model=False, exclude_selectors=[bad])


def test_constructor_selectors_are_the_default_and_a_call_overrides_them():
    extractor = Extractor(content_selector="article .body", exclude_selectors=[".promo"])
    assert PROMO not in extractor.extract(HTML).text
    assert "SIDEBAR" not in extractor.extract(HTML).text
    # Per call: other selectors, or none (None and [] switch the constructor's off).
    assert "SIDEBAR" in extractor.extract(HTML, content_selector=".sidebar", exclude_selectors=[]).text
    unruled = extractor.extract(HTML, content_selector=None, exclude_selectors=None)
    assert unruled.site_rule is None and unruled.text == extract(HTML).text


def test_selectors_compile_once():
    compile_selector.cache_clear()
    _cached_rule.cache_clear()
    for _ in range(3):
        extract(HTML, content_selector="article .body", exclude_selectors=[".promo"])
    # Compiled at the first call, never again on a page.
    assert compile_selector.cache_info()[:2] == (0, 2)
    extractor = Extractor(site_rules={"example.com": {"content": "main article", "exclude": [".x"]}})
    for _ in range(3):
        extractor.extract(HTML, url="https://example.com/")
    assert compile_selector.cache_info()[:2] == (0, 4)


def test_a_parsel_selector_and_an_lxml_tree_are_never_changed():
    selector = Selector(text=HTML)
    before = etree.tostring(selector.root)
    result = extract(selector, content_selector="article .body", exclude_selectors=[".promo", ".credit"])
    assert PROMO not in result.text and "ONE" in result.text
    assert etree.tostring(selector.root) == before
    tree = etree.fromstring(HTML, etree.HTMLParser())
    before = etree.tostring(tree)
    extract(tree, exclude_selectors=["nav", ".promo"])
    assert etree.tostring(tree) == before
    # The same tree again, without the rule: as if the rule had never been used.
    assert extract(tree).text == extract(HTML).text


def test_site_rules_by_host_subdomains_and_longest_match():
    rules = {"example.com": {"content": ".sidebar"},
             "news.example.com": {"content": "article .body", "exclude": [".promo"]}}
    extractor = Extractor(site_rules=rules)
    assert "SIDEBAR" in extractor.extract(HTML, url="https://example.com/a").text
    assert "SIDEBAR" in extractor.extract(HTML, url="https://www.example.com/a").text
    deep = extractor.extract(HTML, url="https://m.news.example.com/a")
    assert "SIDEBAR" not in deep.text and PROMO not in deep.text
    assert deep.site_rule["site"] == "news.example.com"
    # Not a subdomain: no rule.
    other = extractor.extract(HTML, url="https://badexample.com/a")
    assert other.site_rule is None and other.text == extract(HTML).text
    assert extractor.extract(HTML).site_rule is None   # no URL: no site
    # Selectors given for a call win over the site's rule.
    assert "SIDEBAR" not in extractor.extract(HTML, url="https://example.com/a",
                                              content_selector="article .body").text


def test_site_rules_lookup():
    rules = SiteRules({"Example.com": {"exclude": ".promo"}, "a.example.com": {"content": "main"}})
    assert rules.for_url("http://EXAMPLE.com./x").site == "example.com"
    assert rules.for_url("http://b.a.example.com:8080/x").site == "a.example.com"
    assert rules.for_url("http://example.org/") is None
    assert rules.for_url("not a url") is None and rules.for_url(None) is None
    assert rules.for_url("http://[::1/") is None   # a URL urlsplit rejects


@pytest.mark.parametrize(("rules", "message"), [
    ({"example.com": {"content": "div[["}}, "site rule for 'example.com': invalid CSS selector 'div[['"),
    ({"example.com": {"exclude": [".ok", "p::text"]}}, "site rule for 'example.com': invalid CSS selector 'p::text'"),
    ({"example.com": {"contents": "main"}}, "site rule for 'example.com' must be a dict"),
    ({"example.com": {}}, "site rule for 'example.com' must be a dict"),
    ({"example.com": "main"}, "site rule for 'example.com' must be a dict"),
    ({"example.com": {"exclude": [1]}}, "'exclude' must be a list of CSS selectors"),
    ({"example.com": {"content": ["main"]}}, "'content' must be a CSS selector"),
    ({"https://example.com/": {"content": "main"}}, "is not a host name"),
    (["example.com"], "must be a dict of host -> rule"),
])
def test_bad_site_rules_raise_value_error_naming_the_host(rules, message):
    with pytest.raises(ValueError) as raised:
        Extractor(model=False, site_rules=rules)
    assert message in str(raised.value)


def test_rules_pickle_small_and_compare_equal():
    rule = make_rule("article .body", [".promo"], "example.com")
    copied = pickle.loads(pickle.dumps(rule))
    assert copied == rule and len(pickle.dumps(rule)) < 300
    # The copy compiled its selectors again: it applies as the original does.
    walked = build_page(to_element(HTML))
    assert copied.apply(walked)[1] == rule.apply(walked)[1]
    assert copied.apply(walked)[1]["exclude"][0]["blocks"] == 1
    assert copy.deepcopy(rule) == SiteRule("article .body", (".promo",), "example.com")
    assert make_rule(None, None) is None and make_rule(None, []) is None


def test_the_rule_applies_to_the_comment_fallback_walk_too():
    # A page whose text is in its comment section is walked again with the comments
    # (selection/fallbacks.py, THREAD_FALLBACK_CHARS): the rule still holds on that walk.
    replies = "".join(f"<div class='comment'><p>{STORY} REPLY{i}</p></div>" for i in range(4))
    html = f"<html><body><div id='comments'>{replies}</div><p>short</p></body></html>"
    assert "REPLY2" in extract(html).text
    result = extract(html, exclude_selectors=[".comment:nth-child(3)"])
    assert "REPLY1" in result.text and "REPLY2" not in result.text
    assert result.site_rule["matched"]


def test_json_ld_body_is_not_used_when_the_content_selector_matched():
    body = " ".join([STORY] * 6)
    html = (f'<html><head><script type="application/ld+json">{{"@type": "NewsArticle", '
            f'"articleBody": "{body}"}}</script></head><body><div class="teaser"><p>Short teaser.</p></div>'
            "<nav><a href='/'>Home</a></nav></body></html>")
    assert extract(html).text.startswith("The river council")   # the stated body
    assert extract(html, content_selector=".teaser").text == "Short teaser."
    # A rule that matches nothing leaves the fallback as it is, and says so.
    result = extract(html, content_selector=".story")
    assert result.text == extract(html).text
    assert result.site_rule["matched"] is False and result.site_rule["forced_out"] == []


@needs_shared
def test_real_page_content_selector_fixes_a_kept_form_and_a_missed_line(dataset_pages):
    # seelenradio.de: the model keeps the comment form ("Say your words", "Name (required)")
    # and misses the post's last line ("=)"); the post's own element fixes both.
    [p] = dataset_pages("trafilatura-eval", where=lambda p: p.id == "seelenradio.de.leo")
    html = p.read_html()
    plain = extract(html, url=p.url)
    assert "Say your words" in plain.text and "=)" not in plain.text
    result = extract(html, url=p.url, content_selector="div.postentry")
    assert all(s in result.text for s in p.with_)
    assert not any(s in result.text for s in p.without)
    assert result.title == plain.title


@needs_shared
def test_real_pages_exclude_selectors_drop_a_heading_and_teaser_lines(dataset_pages):
    # correctiv.org: the hero's "Alle Artikel zu unseren Recherchen" heading is kept.
    [p] = dataset_pages("trafilatura-eval", where=lambda p: p.id == "correctiv.org.zusage")
    html = p.read_html()
    assert "Alle Artikel zu unseren Recherchen" in extract(html, url=p.url).text
    result = extract(html, url=p.url, exclude_selectors=[".hero"])
    assert all(s in result.text for s in p.with_) and not any(s in result.text for s in p.without)
    # 100noticias.com: "Lea más: ..." links to other stories inside the story's body, found by
    # their text (cssselect's :contains()).
    [p] = dataset_pages("trafilatura-eval", where=lambda p: p.id == "100noticias.com-millones")
    html = p.read_html()
    assert sum(s in extract(html, url=p.url).text for s in p.without) == 2
    result = extract(html, url=p.url, exclude_selectors=[".story-body p:contains('Lea')"])
    assert all(s in result.text for s in p.with_) and not any(s in result.text for s in p.without)
    assert result.site_rule["exclude"][0]["elements"] == 3


def test_blocks_a_rule_keeps_out_or_decides_give_the_site_selector_reason():
    result = extract(HTML, exclude_selectors=[".promo"])
    [out] = result.site_rule["forced_out"]
    assert result.blocks[out].reason == "site_selector"
    assert all(b.reason != "site_selector" for i, b in enumerate(result.blocks) if i != out)
    # Outside the content element every block is the rule's; inside, the decoder's steps decide.
    result = extract(HTML, content_selector=".sidebar")
    out = set(result.site_rule["forced_out"])
    assert out and all(result.blocks[i].reason == "site_selector" for i in out)
    assert [b.reason for i, b in enumerate(result.blocks) if i not in out] != ["site_selector"]


def test_the_explain_page_shows_the_rule_and_what_it_kept_out(tmp_path):
    from lxml import html as lxml_html

    from scrapy_boilerplate.cli import main

    path = tmp_path / "page.html"
    path.write_text(HTML, encoding="utf-8")
    out = tmp_path / "explain.html"
    assert main(["explain", str(path), "--exclude-selector", ".promo", "-o", str(out)]) == 0
    doc = lxml_html.fromstring(out.read_bytes())
    [box] = doc.find_class("rule")
    assert "exclude .promo: 1 element(s), 1 block(s)" in " ".join(box.text_content().split())
    dropped = [b for b in doc.xpath("//*[@data-reason='site_selector']")]
    assert [b.get("data-decision") for b in dropped] == ["dropped"]
    assert PROMO in dropped[0].text_content()
    # Without a rule there is no box.
    assert main(["explain", str(path), "-o", str(out)]) == 0
    assert not lxml_html.fromstring(out.read_bytes()).find_class("rule")
