"""DuplicateIndex (core/duplicates/): exact and near copies of real article texts, the
threshold, short texts, the memory store's cap, and signatures that do not depend on the process."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
from conftest import needs_shared

from scrapy_boilerplate import DuplicateIndex, MemoryDuplicateStore
from scrapy_boilerplate.core.duplicates import minhash


@pytest.fixture
def articles(dataset_pages):
    """Gold texts of 12 real articles (wcxb-dev) of 150 words or more, one per site."""
    texts, sites = [], set()
    for page in dataset_pages("wcxb-dev", where=lambda p: p.label == "article" and p.gold_path):
        gold = page.read_gold()
        if page.site not in sites and len(minhash.words(gold)) >= 150:
            sites.add(page.site)
            texts.append(gold)
        if len(texts) == 12:
            break
    return texts


@needs_shared
def test_exact_copy_differs_only_in_case_spacing_and_punctuation(articles):
    index = DuplicateIndex()
    assert index.add(articles[0], "https://a.example/story") is None
    copy = "  " + articles[0].upper().replace("\n", "\n\n").replace(",", " ;")
    verdict = index.judge(copy, "https://b.example/print/story")
    assert (verdict.first, verdict.reason, verdict.similarity) == ("https://a.example/story", "exact", 1.0)


@needs_shared
def test_near_copies_and_different_articles(articles):
    index = DuplicateIndex()
    for i, text in enumerate(articles):
        assert index.add(text, f"https://site{i}.example/a") is None, i  # 12 different articles
    lines = articles[3].splitlines()
    repost = "\n".join(["Update: this story was updated with a statement from the council.", *lines[:-1]])
    verdict = index.judge(repost, "https://other.example/repost")
    assert verdict.reason == "near" and verdict.first == "https://site3.example/a"
    assert 0.5 <= verdict.similarity < 1.0
    assert len(index.store) == 12  # copies are not remembered: the first stays the reference


@needs_shared
def test_threshold_one_judges_exact_copies_only(articles):
    """At 1.0 a text one word away is no copy (a MinHash estimate may reach 1.0 for it); the same
    words are, however short (with min_words 0)."""
    words = articles[2].split()
    index = DuplicateIndex(threshold=1.0, min_words=0)
    assert index.add(" ".join(words), "a") is None
    one_word_off = " ".join([*words[:-1], "otherwise"])
    verdict = index.judge(one_word_off, "b")
    assert verdict.first is None and verdict.reason == "new"
    near = DuplicateIndex()  # the default threshold: a near copy
    near.add(" ".join(words), "a")
    assert near.judge(one_word_off, "c").reason == "near"
    assert index.add(" ".join(words).upper(), "d") == "a"
    assert index.add("A photo.", "e") is None and index.add("a photo", "f") == "e"


@needs_shared
def test_threshold_decides(articles):
    """150 words of an article then 150 of another, against the first 300 words of the first:
    Jaccard similarity about 1/3."""
    a, b = articles[0].split()[:300], articles[1].split()
    mixed = " ".join(a[:150] + b[:150])
    low, high = DuplicateIndex(threshold=0.2), DuplicateIndex(threshold=0.7)
    for index in (low, high):
        index.add(" ".join(a), "a")
    assert low.add(mixed, "m") == "a"
    assert high.add(mixed, "m") is None


def test_short_texts_are_not_judged():
    index = DuplicateIndex(min_words=50)
    text = " ".join(f"word{i}" for i in range(49))
    assert index.judge(text, "a").reason == "short"
    assert index.judge(text, "b").reason == "short"  # not remembered either
    assert not index.judge(text, "b").judged
    longer = text + " one more"
    assert index.judge(longer, "c").reason == "new"
    assert index.judge(longer, "d").first == "c"
    assert DuplicateIndex().judge("", "e").reason == "short"


def test_same_key_is_not_a_copy():
    """Several items of one page, or a page crawled again: not copies of themselves."""
    index = DuplicateIndex()
    text = " ".join(f"w{i % 97} x{i % 13}" for i in range(300))
    assert index.judge(text, "https://a.example/1").reason == "new"
    verdict = index.judge(text, "https://a.example/1")
    assert verdict.reason == "same_key" and verdict.first is None
    assert index.add(text, "https://b.example/1") == "https://a.example/1"


def recrawled_page_and_a_closer_page() -> list[tuple[str, str]]:
    """A page (A), then another page (C) no copy of it, then A crawled again with a text near
    its earlier one (0.45) but nearer still to C's (0.55)."""
    rng = np.random.default_rng(11)
    x, y = ([f"w{n}" for n in rng.integers(0, 10**6, size)] for size in (500, 600))
    return [
        (" ".join(x), "https://a.example/story"),
        (" ".join(y), "https://c.example/other"),
        (" ".join(x + y), "https://a.example/story"),
    ]


def test_a_page_crawled_again_is_never_a_copy_even_of_a_closer_page():
    index = DuplicateIndex()
    (a, key), (c, other), (again, _) = recrawled_page_and_a_closer_page()
    assert index.judge(a, key).reason == "new" and index.judge(c, other).reason == "new"
    sig = [minhash.signature(minhash.shingle_hashes(minhash.words(t))) for t in (a, c, again)]
    assert 0.4 <= minhash.similarity(sig[2], sig[0]) < minhash.similarity(sig[2], sig[1])
    verdict = index.judge(again, key)
    assert verdict.reason == "same_key" and verdict.first is None
    assert index.add(again, "https://b.example/copy") == "https://c.example/other"  # others: the closest


def _text(i: int, words: int = 200) -> str:
    rng = np.random.default_rng(i)
    return " ".join(f"t{n}" for n in rng.integers(0, 50_000, words))


def test_cap_forgets_the_oldest_and_its_bands():
    store = MemoryDuplicateStore(max_items=3)
    index = DuplicateIndex(store=store)
    for i in range(5):
        assert index.add(_text(i), f"k{i}") is None
    assert len(store) == 3
    assert index.add(_text(0), "again0") is None  # forgotten: remembered anew, 1 evicted
    assert index.add(_text(4), "again4") == "k4"  # still remembered
    # No band leads to a forgotten item.
    held = {d for v in store._buckets.values() for d in ([v] if isinstance(v, str) else v)}
    assert held == set(store._items)
    assert all(not isinstance(v, list) or len(v) > 1 for v in store._buckets.values())


def _alike_signatures(count: int) -> list:
    """Signatures and bands of texts sharing 500 common shingles, each with 600 of its own
    (Jaccard ~0.3: alike enough to share bands, no copies), made from shingle hashes directly."""
    rng = np.random.default_rng(7)
    common = rng.integers(0, 2**32, 500, dtype=np.uint64)
    bands, rows = minhash.lsh_bands(0.4)
    made = []
    for i in range(count):
        own = rng.integers(0, 2**32, 600, dtype=np.uint64)
        sig = minhash.signature(np.unique(np.concatenate([common, own])))
        made.append((f"{i:016x}", minhash.stored(sig), minhash.band_keys(sig, bands, rows)))
    return made


def test_buckets_are_capped_and_work_per_item_is_flat():
    """Texts sharing their common words filled a bucket with most items (1,604 at 5,000 here),
    each item checking them all: time per item grew with the crawl. Capped at BUCKET_CAP. The
    work an item costs is the candidates it is compared with (counted, not timed: a timing
    moves with the machine's load)."""
    store = MemoryDuplicateStore()
    made = _alike_signatures(5000)
    compared: list[int] = []
    candidates = store._candidates

    def counted(bands: list[int]) -> list[str]:
        found = candidates(bands)
        compared.append(len(found))
        return found

    store._candidates = counted  # type: ignore[method-assign]

    def work(part: list) -> float:
        """The mean number of candidates an item of `part` is compared with."""
        compared.clear()
        for digest, sig, bands in part:
            store.find_or_add(digest, sig, bands, f"https://a.example/{digest}", 0.4)
        return float(np.mean(compared))

    work(made[:800])
    early = work(made[800:1000])
    work(made[1000:4800])
    late = work(made[4800:])
    largest = max(len(v) if isinstance(v, list) else 1 for v in store._buckets.values())
    assert largest == 64  # as the Redis store caps a band
    assert len(store) > 4900  # a few pairs pass 0.4 by chance (the estimate's spread)
    # Uncapped, the candidates grew with the items stored (5x from 1,000 to 5,000 items).
    assert late < 1.5 * early, f"{early:.0f} candidates an item at 1,000 items, {late:.0f} at 5,000"


def test_signature_is_the_same_in_another_process():
    """Processes sharing a Redis must compute the same signature (no hash() of str)."""
    text = _text(7)
    code = (
        "import sys; from scrapy_boilerplate.core.duplicates import minhash as m; "
        "t = sys.stdin.read(); print(m.signature(m.shingle_hashes(m.words(t))).tobytes().hex())"
    )
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    out = subprocess.run(
        [sys.executable, "-c", code], input=text, capture_output=True, text=True, env=env, check=True
    ).stdout.strip()
    assert out == minhash.signature(minhash.shingle_hashes(minhash.words(text))).tobytes().hex()


def test_estimate_follows_the_jaccard_similarity():
    base = [f"w{i}" for i in range(1000)]
    for keep in (900, 600, 300):
        other = base[:keep] + [f"v{i}" for i in range(1000 - keep)]
        a, b = (set(minhash.shingle_hashes(x).tolist()) for x in (base, other))
        exact = len(a & b) / len(a | b)
        sa, sb = (minhash.signature(minhash.shingle_hashes(x)) for x in (base, other))
        assert abs(minhash.similarity(sa, sb) - exact) < 0.12, keep


def test_bands_fit_the_threshold():
    for threshold in (0.3, 0.5, 0.8):
        bands, rows = minhash.lsh_bands(threshold)
        assert bands * rows <= minhash.NUM_PERM
        # A pair at the threshold is a candidate most of the time, a bit above it nearly always,
        # far below it rarely.
        assert 1 - (1 - threshold**rows) ** bands > 0.65
        assert 1 - (1 - min(1, threshold + 0.1) ** rows) ** bands > 0.93
        assert 1 - (1 - (threshold / 3) ** rows) ** bands < 0.1


def test_bad_arguments():
    with pytest.raises(ValueError):
        DuplicateIndex(threshold=0)
    with pytest.raises(ValueError):
        MemoryDuplicateStore(0)


@needs_shared
def test_cli_folder_of_pages_prints_each_copy_and_its_first(dataset_pages, tmp_path, capsys):
    from duplicate_pages import make_copy

    from scrapy_boilerplate.cli import main

    pages = dataset_pages("wcxb-dev", 3, where=lambda p: p.label == "article" and p.gold_path)
    for page in pages:
        (tmp_path / f"{page.id}.html").write_bytes(page.read_html())
    lines = [g for g in pages[1].read_gold().splitlines() if g.strip()]
    (tmp_path / "z-print.html").write_text(
        make_copy("print", pages[1].read_html(), "A headline", lines), encoding="utf-8"
    )
    assert main(["duplicates", str(tmp_path)]) == 0
    out, err = capsys.readouterr()
    copy, first, similarity, reason = out.strip().split("\t")
    assert (copy, first) == (str(tmp_path / "z-print.html"), str(tmp_path / f"{pages[1].id}.html"))
    assert float(similarity) >= 0.5 and reason in ("exact", "near")  # the same words, or nearly
    assert "4 items" in err and "1 copy" in err


def test_cli_jsonl_of_items(tmp_path, capsys):
    import json

    from scrapy_boilerplate.cli import main

    items = [
        {"url": "https://a.example/1", "body": _text(1)},
        {"url": "https://b.example/1", "body": _text(2)},
        {"url": "https://c.example/1", "body": _text(1).upper()},
        {"body": "too short"},
        {"body": None},
    ]
    source = tmp_path / "items.jsonl"
    source.write_text("\n".join(json.dumps(i) for i in items) + "\n", encoding="utf-8")
    assert main(["duplicates", str(source), "--field", "body", "--json"]) == 0
    out, err = capsys.readouterr()
    assert [json.loads(line) for line in out.splitlines()] == [
        {"key": "https://c.example/1", "first": "https://a.example/1", "similarity": 1.0, "reason": "exact"}
    ]
    assert "5 items, 3 judged" in err
    source.write_text("not json\n", encoding="utf-8")
    assert main(["duplicates", str(source)]) == 1
    assert "items.jsonl:1: not a JSON object" in capsys.readouterr().err


def test_chinese_and_japanese_characters_are_words():
    assert minhash.words("Hello, Wörld! 中文字，日本語の abc 한국어") == [
        "hello",
        "wörld",
        "中",
        "文",
        "字",
        "日",
        "本",
        "語",
        "の",
        "abc",
        "한국어",
    ]


@needs_shared
def test_chinese_copies_and_different_chinese_articles(dataset_pages):
    """Written without spaces: judged on 5-character shingles."""
    pages = {p.id: p for p in dataset_pages("readability", where=lambda p: p.id in ("gmw", "pixnet", "youth"))}
    gmw, pixnet, youth = (pages[name].read_gold() for name in ("gmw", "pixnet", "youth"))
    index = DuplicateIndex()
    assert index.add(gmw, "gmw") is None
    assert index.add(pixnet, "pixnet") is None and index.add(youth, "youth") is None
    lines = gmw.splitlines()
    repost = "\n".join(["更新：本文已根据最新消息修改。", *lines[1:]])
    verdict = index.judge(repost, "repost")
    assert verdict.first == "gmw" and verdict.reason == "near"
