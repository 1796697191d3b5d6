"""The caches kept across pages hold a bounded number of characters, whatever the pages hold."""

import pytest
from cue_names import clear_cue_caches

from scrapy_boilerplate.core import speedups
from scrapy_boilerplate.core.caches import BoundedCache, text_size
from scrapy_boilerplate.core.document import cue_words, cues, elements
from scrapy_boilerplate.core.document.page import build_page
from scrapy_boilerplate.core.document.parse import to_element


def cached_chars(cache: BoundedCache) -> int:
    return sum(text_size(key) + text_size(value) for part in (cache.young, cache.old) for key, value in part.items())


def test_bounded_cache_keeps_entries_in_use_and_forgets_one_offs():
    cache = BoundedCache(limit=3, max_chars=1000)
    cache.put("menu-item", 1)
    for i in range(10):
        cache.put(f"hash-{i}", i)
        assert cache.get("menu-item") == 1  # in use: survives every generation change
    assert len(cache) <= 6
    assert cache.get("hash-0") is None  # a one-off name aged out


def test_bounded_cache_holds_at_most_twice_its_characters():
    cache = BoundedCache(limit=1000, max_chars=10_000)
    for i in range(100):
        cache.put(f"{i:04d}" + "x" * 996, (i, ("token",) * 10))
        assert cached_chars(cache) <= 2 * 10_000
    assert cache.get("0099" + "x" * 996) == (99, ("token",) * 10)  # the newest are kept
    cache.put("y" * 10_001, 1)  # more than the whole cache may hold: not kept
    assert cache.get("y" * 10_001) is None
    assert cache.young_chars == text_size(tuple(cache.young.items()))


def test_text_size_counts_the_strings_of_tuples_nested():
    assert text_size(("ab", None, ("cde", 7, ("f",)), 3.5)) == 6
    assert text_size(12) == 0


@pytest.fixture
def empty_cue_caches():
    clear_cue_caches()
    yield
    clear_cue_caches()


@pytest.mark.parametrize("pure", [False, True], ids=["compiled", "pure"])
def test_class_name_caches_hold_a_bounded_number_of_characters(empty_cue_caches, monkeypatch, pure):
    # Thirty pages of ten 100 KB class attributes each (30 MB of class names, 300 entries:
    # far under the caches' entry limits): the walk's cue caches keep at most twice their
    # character limits, on the compiled walk and cues (_cues.py compiled) and on the Python
    # ones (_cues.py run as Python) alike.
    if pure:
        from scrapy_boilerplate.core.document import page as page_module
        from scrapy_boilerplate.core.document import walk

        monkeypatch.setattr(page_module, "_compiled", None)
        monkeypatch.setattr(walk, "class_cues", speedups.source_of(cues._cues).class_cues)
    elif speedups.twin("scrapy_boilerplate.core.document.walk") is None:
        pytest.skip("the compiled walk is not built here")
    for n in range(30):
        boxes = "".join(
            f'<div class="{f"p{n}x{k}-" * 20_000}"><p>Box {k} of page {n}, with some words.</p></div>'
            for k in range(10)
        )
        build_page(to_element(f"<html><body>{boxes}</body></html>"))
    for cache in (cue_words.CUE_CACHE, cue_words.UNIT_CACHE, cue_words.KEY_CACHE):
        assert cached_chars(cache) <= 2 * cache.max_chars
        # The compiled walk counts what it puts as put() does.
        assert cache.young_chars == sum(text_size(key) + text_size(value) for key, value in cache.young.items())


def test_tag_names_are_cached_short_only():
    # libxml2's HTML parser cuts tag names at 100 characters; a tree handed in (lxml's XML
    # parser, a tree built in code) may hold names of 50,000: 300 of 10,000 here, none kept.
    from lxml import etree

    root = etree.Element("html")
    body = etree.SubElement(root, "body")
    for k in range(300):
        etree.SubElement(body, f"x-{k}-{'a' * 10_000}").text = f"text {k}"
    page = build_page(root)
    assert "text 299" in page.texts[-1]
    assert max(len(tag) for tag in elements.TAG_INFO) <= elements.MAX_TAG_INFO_CHARS


def test_link_keys_of_what_is_no_web_url_are_cached_as_none():
    # BoundedCache keeps no None (its "not there"): link_key keeps "" for it and gives None back.
    from scrapy_boilerplate.core.links import urls

    urls._KEYS.clear()
    for _ in range(2):
        assert urls.link_key("mailto:editor@example.org", "https://example.org/a/") is None
        assert urls.link_key("/b", "https://example.org/a/") == "https://example.org/b"
    assert urls._KEYS.get(("mailto:editor@example.org", "https://example.org/a/")) == ""
