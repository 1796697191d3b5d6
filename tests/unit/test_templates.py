"""Site memory (core/site_memory/templates.py): fingerprints, the memory store, the evidence, and that
extraction without a store (or before the warm-up) is exactly what it was."""

from __future__ import annotations

import os
import subprocess
import sys
import tracemalloc

import numpy as np
import pytest
from conftest import FIXTURE_NAMES, fixture_bytes
from template_site import APPEAL, MOST_READ, PRINT_NOTE, article, page_html, page_url

from scrapy_boilerplate import Extractor, MemoryTemplateStore, extract
from scrapy_boilerplate.core.document.page import build_page
from scrapy_boilerplate.core.document.parse import to_element
from scrapy_boilerplate.core.site_memory import templates as tpl


def walked(i: int, host: str = "courier.example"):
    return build_page(to_element(page_html(i)), base_url=page_url(i, host))


def test_site_key():
    assert tpl.site_key("https://www.Example.org/a/b?c") == "example.org"
    assert tpl.site_key("http://news.example.org:8080/") == "news.example.org"
    assert tpl.site_key("https://web.archive.org/web/2019/https://www.blog.example.de/post") == "blog.example.de"
    assert tpl.site_key("https://web.archive.org/web/2019/blog.example.de/post") == "blog.example.de"
    for bad in (None, "", "not a url", "http://[::1", "/relative/path", 42):
        assert tpl.site_key(bad) is None


def test_fingerprints_text_and_path():
    page = build_page(
        to_element(
            "<div><p>Same words</p></div><nav><p>Same words</p></nav>"
            "<div><p>Same words</p></div><div><p>SAME   words</p></div>"
        )
    )
    fps = tpl.page_fingerprints(page)
    assert len(fps) == len(page) == 4
    assert fps[0] == fps[2] == fps[3]  # same text (case, spaces) under the same path
    assert fps[0] != fps[1]  # the same words in <nav> are another block
    other = build_page(to_element("<div><p>Other words</p></div>"))
    assert tpl.page_fingerprints(other)[0] != fps[0]


def test_fingerprints_stable_across_processes():
    """Not Python's salted str hash: a worker process or another machine gets the same."""
    code = (
        "import sys; sys.path.insert(0, 'tests/support'); from template_site import page_html;"
        "from scrapy_boilerplate.core.document.page import build_page; from scrapy_boilerplate.core.document.parse import to_element;"
        "from scrapy_boilerplate.core.site_memory.templates import page_fingerprints;"
        "print(page_fingerprints(build_page(to_element(page_html(3)))))"
    )
    outs = set()
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        outs.add(
            subprocess.run(
                [sys.executable, "-c", code],
                env=env,
                capture_output=True,
                text=True,
                check=True,
                cwd=os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
            ).stdout
        )
    assert len(outs) == 1
    assert outs.pop().strip() == str(tpl.page_fingerprints(walked(3)))


@pytest.mark.parametrize("name", FIXTURE_NAMES)
def test_without_store_output_unchanged(name):
    """No `templates`: the default path; a store's first page of a site: the same output."""
    html = fixture_bytes(name)
    plain = extract(html, url="https://fixture.example/a")
    with_store = extract(html, url="https://fixture.example/a", templates=MemoryTemplateStore())
    assert with_store.text == plain.text
    assert with_store.markdown == plain.markdown
    assert [b.probability for b in with_store.blocks] == [b.probability for b in plain.blocks]


def test_real_pages_unchanged_before_warmup(dataset_pages):
    """Real pages, each the first of its site in a fresh store, and a store that has seen
    fewer than `warmup` pages of the site: exactly today's output."""
    pages = dataset_pages("wcxb-dev", 25)
    store = MemoryTemplateStore(warmup=3)
    for page in pages:
        html = page.read_html()
        assert extract(html, url=page.url, templates=store).text == extract(html, url=page.url).text, page.id
    # The same page twice more: the site has 1 then 2 pages, still under the warm-up.
    html = pages[0].read_html()
    for _ in range(2):
        assert extract(html, url=pages[0].url, templates=store).text == extract(html, url=pages[0].url).text


def test_warmup_then_template_blocks_lean_to_boilerplate():
    store = MemoryTemplateStore(warmup=3)
    extractor = Extractor()
    for i in range(3):
        with_store = extractor.extract(page_html(i), url=page_url(i), templates=store)
        plain = extractor.extract(page_html(i), url=page_url(i))
        assert [b.probability for b in with_store.blocks] == [b.probability for b in plain.blocks]
    assert store.stats["pages_recorded"] == 3 and store.stats["evidence_used"] == 0
    with_store = extractor.extract(page_html(3), url=page_url(3), templates=store)
    plain = extractor.extract(page_html(3), url=page_url(3))
    assert store.stats["evidence_used"] == 1
    _, paragraphs = article(3)
    for a, b in zip(with_store.blocks, plain.blocks):
        if a.text in MOST_READ or a.text in ("Most read", "News", "Sport", "Culture"):
            assert a.probability < b.probability  # template: down
        elif a.text in paragraphs:
            assert a.probability == b.probability  # unique to the page: as the model says
        elif a.text == APPEAL:
            assert a.is_content  # the model is very sure: it stands
    # The print note at the end of every article body: kept by the model on one page alone,
    # template once the site's pages are known.
    assert PRINT_NOTE in plain.text and PRINT_NOTE not in with_store.text
    assert with_store.text == plain.text.replace("\n" + PRINT_NOTE, "")
    # Another site in the same store: its own first page, unchanged.
    other = extractor.extract(page_html(3), url=page_url(3, "other.example"), templates=store)
    assert [b.probability for b in other.blocks] == [b.probability for b in plain.blocks]


def test_evidence_moves_unsure_blocks_not_sure_ones():
    page = build_page(
        to_element("<div><p>repeated one</p><p>repeated two</p><p>unique</p><p>repeated three</p></div>"),
        base_url="http://s.example/x",
    )
    fps = tpl.page_fingerprints(page)
    known = tpl.SiteCounts(4, {fps[0]: 4, fps[1]: 4, fps[3]: 1}, frozenset(fps))
    evidence = tpl.TemplateEvidence("s.example", 3, known, fps, page)
    proba = np.array([0.3, 0.97, 0.3, 0.3])
    adjusted = evidence.adjust(page, proba)
    assert adjusted[0] < 0.1  # on every earlier page, model unsure: boilerplate
    assert adjusted[1] == proba[1]  # the model is very sure: it stands
    assert adjusted[2] == proba[2]  # on no earlier page
    assert adjusted[3] == proba[3]  # on one earlier page only: no evidence
    # Under the warm-up: nothing moves.
    early = tpl.TemplateEvidence("s.example", 5, known, fps, page)
    assert early.adjust(page, proba) is proba


def test_deterministic_given_store_state():
    outputs = []
    for _ in range(2):
        store = MemoryTemplateStore()
        texts = [extract(page_html(i), url=page_url(i), templates=store).text for i in range(6)]
        outputs.append((texts, store.site_state("courier.example")))
    assert outputs[0] == outputs[1]


def test_lru_over_sites_and_cap_per_site():
    store = MemoryTemplateStore(max_sites=2, max_fingerprints=30, warmup=1)
    for host in ("a.example", "b.example"):
        store.evidence(walked(0, host), page_url(0, host))
    store.evidence(walked(1, "a.example"), page_url(1, "a.example"))  # a is now the most recent
    store.evidence(walked(0, "c.example"), page_url(0, "c.example"))  # evicts b
    assert len(store) == 2
    assert store.site_state("b.example") is None
    assert store.site_state("a.example")[0] == 2
    for i in range(2, 12):
        store.evidence(walked(i, "a.example"), page_url(i, "a.example"))
    pages, counts = store.site_state("a.example")
    assert pages == 12 and len(counts) <= 30
    # The template survives the pruning, pages' own blocks do not.
    template = set(tpl.page_fingerprints(walked(20))) & set(tpl.page_fingerprints(walked(21)))
    assert template <= set(counts)
    assert min(counts[fp] for fp in template) >= 2


def test_prune_deterministic():
    a = {1: 1, 2: 3, 3: 1, 4: 2, 5: 5}
    b = dict(reversed(list(a.items())))
    tpl._prune(a, 3)
    tpl._prune(b, 3)
    assert a == b == {2: 3, 4: 2, 5: 5}
    tpl._prune(a, 1)
    assert a == {5: 5}


def test_failing_store_gives_plain_extraction(caplog):
    class Broken(MemoryTemplateStore):
        def exchange(self, site, fingerprints):
            raise ConnectionError("down")

    html = page_html(1)
    assert extract(html, url=page_url(1), templates=Broken()).text == extract(html, url=page_url(1)).text
    assert "template store failed" in caplog.text


def test_no_url_no_record():
    store = MemoryTemplateStore()
    assert extract(page_html(1), templates=store).text == extract(page_html(1)).text
    assert len(store) == 0 and store.stats["pages_recorded"] == 0


def test_bad_input_with_store():
    store = MemoryTemplateStore()
    for bad in (b"", b"\x00\xff\xfe", "   ", b"%PDF-1.4 binary", "<html></html>"):
        url = "http://bad.example/"
        assert extract(bad, url=url, templates=store).text == extract(bad, url=url).text


def test_memory_ceiling_500_pages():
    """A crawl of 600 pages over 300 sites stays under the documented ceiling
    (max_sites * max_fingerprints * 100 bytes), and the store holds at most max_sites sites."""
    store = MemoryTemplateStore(max_sites=100, max_fingerprints=200)
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for i in range(600):
            host = f"site{i % 300}.example"
            store.exchange(host, [((i * 7919 + k) * 2654435761) % (1 << 64) or 1 for k in range(150)])
        used = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert len(store) == 100
    assert used <= 100 * 200 * 100, used


def test_unique_across_stores_by_site():
    """Sites never share evidence."""
    store = MemoryTemplateStore(warmup=1)
    for i in range(3):
        store.evidence(walked(i, "one.example"), page_url(i, "one.example"))
    evidence = store.evidence(walked(5, "two.example"), page_url(5, "two.example"))
    assert evidence.known.pages == 0 and not evidence.used


def test_memory_ceiling_in_a_500_page_extraction_run():
    """500 generated pages of 50 sites through extract(): the store holds at most max_sites
    sites and max_fingerprints fingerprints each, and its memory stays under the documented
    ceiling (about 100 bytes a fingerprint)."""
    store = MemoryTemplateStore(max_sites=20, max_fingerprints=60)
    extractor = Extractor()
    tracemalloc.start()
    try:
        for i in range(500):
            host = f"site{i % 50}.example"
            extractor.extract(page_html(i), url=page_url(i, host), templates=store)
        gc_free = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert len(store) == 20
    sizes = [len(store.site_state(site)[1]) for site in list(store._sites)]
    assert max(sizes) <= 60
    assert store.stats["pages_recorded"] == 500
    # What is left allocated after the run: the store (and caches of the extractor's first
    # pages): under the ceiling plus a margin for those.
    assert gc_free <= 20 * 60 * 100 + 2_000_000, gc_free


def test_repeated_heading_inside_the_content_is_not_moved():
    page = build_page(
        to_element("<div><p>menu</p><h3>Description</h3><p>own text</p><p>repeated note</p></div>"),
        base_url="http://s.example/x",
    )
    fps = tpl.page_fingerprints(page)
    known = tpl.SiteCounts(4, {fps[0]: 4, fps[1]: 4, fps[3]: 4}, frozenset(fps))
    evidence = tpl.TemplateEvidence("s.example", 3, known, fps, page)
    proba = np.array([0.3, 0.6, 0.9, 0.7])
    adjusted = evidence.adjust(page, proba)
    assert adjusted[0] < 0.05  # outside the content span: the full weight
    assert adjusted[1] == proba[1]  # a heading inside it: a label of the template
    assert 0.3 < adjusted[3] < proba[3]  # a repeated block inside it: half the weight
