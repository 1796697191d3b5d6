"""The compiled speed-ups give exactly what the same code gives run as Python (a kernel with one
source, compiled or not) or what their pure-Python twins give (a `.pyx` twin).

The shipped model was trained on the pure-Python features, so "close" is
not enough: every value must be equal.
"""

import contextlib
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import FIXTURE_NAMES, cut_real_pages, fixture_bytes
from hypothesis import given, settings
from hypothesis import strategies as st

from scrapy_boilerplate.core import speedups
from scrapy_boilerplate.core.document.page import build_page
from scrapy_boilerplate.core.document.parse import parse_html
from scrapy_boilerplate.core.scoring import features, ttr

needs_compiled = pytest.mark.skipif(
    speedups.load("scoring._features") is None,
    reason="scrapy_boilerplate.core.scoring._features is not built (no C compiler at install time, "
    f"or {speedups.PURE_PYTHON_ENV} is set)",
)


@contextlib.contextmanager
def as_python(module, name):
    """A context in which `module` calls the source of its compiled kernel module (its attribute
    `name`) run as Python."""
    with pytest.MonkeyPatch.context() as m:
        m.setattr(module, name, speedups.source_of(getattr(module, name)))
        yield


def best_regions(page, tolerance):
    """ttr.best_region compiled and run as Python."""
    fast = ttr.best_region(page, tolerance)
    with as_python(ttr, "_ttr"):
        return fast, ttr.best_region(page, tolerance)


def compiled_and_pure(fn, *args):
    """fn(*args) with the compiled text statistics, then with their source run as Python."""
    fast = fn(*args)
    with as_python(features, "_features"):
        slow = fn(*args)
    return fast, slow


def test_pure_python_env_turns_the_speedups_off(monkeypatch):
    monkeypatch.setenv(speedups.PURE_PYTHON_ENV, "1")
    assert speedups.load("scoring._features") is None
    assert not any(speedups.available().values())


@needs_compiled
@pytest.mark.parametrize("name", FIXTURE_NAMES)
def test_dense_features_equal_on_fixtures(name):
    page = build_page(parse_html(fixture_bytes(name)))
    fast, slow = compiled_and_pure(features.dense_features, page)
    np.testing.assert_array_equal(fast, slow)


@needs_compiled
def test_dense_features_equal_on_cut_real_pages():
    for item in cut_real_pages():
        page = build_page(parse_html(item.read_html()))
        fast, slow = compiled_and_pure(features.dense_features, page)
        np.testing.assert_array_equal(fast, slow, err_msg=item.id)


@pytest.mark.needs_shared("150 pages of every type (cut pages: test_..._on_cut_real_pages)")
@needs_compiled
def test_dense_features_equal_on_real_pages(dataset_pages):
    # All page types of the development set; pages in many languages.
    for item in dataset_pages("wcxb-dev", 150):
        page = build_page(parse_html(item.read_html()))
        fast, slow = compiled_and_pure(features.dense_features, page)
        np.testing.assert_array_equal(fast, slow, err_msg=item.id)


# Characters where a typed loop could part ways with `re` and str methods:
# CJK, RTL, combining marks, digits and numerals of other scripts (\d is
# decimal digits only, \w takes every alphanumeric), 'İ' (lower-cases to two
# characters), the counted punctuation, upper case at the edges of UPPER_RE's
# ranges, a lone surrogate.
SPECIAL = list("İıßẞ_ \t\n.?!。,،、|»·:;-/()'\"©") + [
    "漢",
    "字",
    "か",
    "한",
    "ا",
    "ل",
    "ع",
    "ש",
    "ל",
    "\u200f",
    "\u0301",
    "\u0307",
    "\u0308",
    "٣",
    "۷",
    "७",
    "৫",
    "５",
    "²",
    "½",
    "Ⅻ",
    "〇",
    "A",
    "Z",
    "À",
    "Ö",
    "×",
    "Ø",
    "Þ",
    "ß",
    "А",
    "Я",
    "а",
    "я",
    "Ё",
    "Ω",
    "\ud800",
]
WORDS = [
    "the",
    "and",
    "der",
    "und",
    "Read more",
    "Related",
    "Comments",
    "Share this",
    "Photo:",
    "2023",
    "12.05.2021",
    "1999",
    "x_y",
    "İstanbul",
    "ΣΟΦΊΑ",
]
texts = st.lists(st.one_of(st.sampled_from(SPECIAL), st.sampled_from(WORDS), st.characters()), max_size=40).map("".join)


@needs_compiled
@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_text_stats_equal_on_weird_texts(data):
    blocks = data.draw(st.lists(texts, min_size=1, max_size=6))
    # long blocks (past the 200-character head) and repeated ones (dup_text)
    blocks += [t * 30 for t in blocks[:2]] + blocks[:1]
    meta = [features._word_set(" ".join(data.draw(st.lists(st.sampled_from(blocks + WORDS))))) for _ in range(3)]
    fast, slow = compiled_and_pure(features.text_stats, blocks, *meta)
    assert fast.shape == slow.shape == (len(blocks), 15)
    np.testing.assert_array_equal(fast, slow)


# A text of each cue and end-marker alternative (their regex syntax written out).
CUE_TEXTS = [
    "Read more", "read also", "More: x", "Related", "See also", "Also read", "Advertisement", "Advertising",
    "Sponsored", "Share", "Subscribe", "Sign up", "Follow us", "Click here", "Continue reading", "Tags: a",
    "tag :b", "Photo", "Image", "Credit", "Source: x", "© 2020", "Copyright", "All rights reserved", "Posted",
    "Published", "Updated", "By Jane", "Lire aussi", "À lire", "Mehr zum Thema", "Lesen Sie", "Auch interessant",
    "Lea también", "Leia também", "Leer más", "Leia mais", "Anzeige", "Werbung", "Publicité",
]  # fmt: skip
END_TEXTS = [
    "Comments", "Comment", "3 Comments", "Kommentare", "Kommentar", "Commentaires", "Comentarios",
    "Leave a reply", "Leave a Comment", "Post a comment", "Related posts", "Related", "You may also like",
    "Recommended", "More from", "Share this", "Tags", "Newsletter", "About the author", "Weitere Artikel",
    "À lire aussi",
]  # fmt: skip


def cue_columns(blocks):
    """The cue_start and end_marker statistics of `blocks`, compiled and as Python."""
    fast, slow = compiled_and_pure(features.text_stats, blocks, frozenset(), frozenset(), frozenset())
    return fast[:, 7:9], slow[:, 7:9]


@needs_compiled
def test_the_compiled_statistics_find_every_cue_and_end_marker():
    """The compiled loop calls the two regexes only where features.openings says a match can
    open: every alternative, in any case, still matches."""
    variants = [f(t) for t in CUE_TEXTS + END_TEXTS for f in (str, str.lower, str.upper, str.title)]
    variants += ["• " + t for t in variants] + ["_" + t for t in variants]
    fast, slow = cue_columns(variants)
    np.testing.assert_array_equal(fast, slow)
    n_cue = 4 * len(CUE_TEXTS)
    assert fast[:n_cue, 0].all() and fast[n_cue : 4 * (len(CUE_TEXTS) + len(END_TEXTS)), 1].all()


def test_openings_of_plain_and_of_pattern_alternatives():
    def opens(table, pair):
        return table[128 * ord(pair[0]) + ord(pair[1])] == 1

    plain = features.openings(("ab", "©"))  # "©" opens with no ASCII character
    assert sum(plain) == 4 and all(opens(plain, pair) for pair in ("ab", "AB", "aB", "Ab"))
    assert not opens(plain, "ac") and not opens(plain, "ba")
    for pattern in ("c?d", "[xy]z", "\\sx"):  # an optional or a class first character: any pair
        assert sum(features.openings((pattern,))) == 128 * 128
    assert sum(features.openings(("ab",), digits=True)) == 4 + 10 * 128
    assert opens(features.openings(("kelvin",)), "Ke")  # (the Kelvin sign K is not ASCII)


openings_text = st.lists(
    st.sampled_from(list("aAbBcCdDeEgGiIlLmMnNoOpPrRsStTuUwWyYzZ019_ :©àÀ•") + CUE_TEXTS + END_TEXTS), max_size=8
).map("".join)


@needs_compiled
@settings(max_examples=500, deadline=None)
@given(st.lists(openings_text, min_size=1, max_size=8))
def test_the_compiled_cue_columns_equal_the_regexes(blocks):
    fast, slow = cue_columns(blocks)
    np.testing.assert_array_equal(fast, slow)


@st.composite
def forests(draw):
    """Parent lists in pre-order (a parent comes before its children; -1: a root) and scores."""
    n = draw(st.integers(1, 60))
    parents = [-1] + [draw(st.integers(-1, i - 1)) for i in range(1, n)]
    scores = draw(st.lists(st.floats(-1e6, 1e6), min_size=n, max_size=n))
    return parents, np.array(scores)


@settings(max_examples=300, deadline=None)
@given(forests())
def test_ancestor_max_is_the_max_over_ancestors(forest):
    parents, score = forest
    expected = []
    for i in range(len(parents)):
        best, node = score[i], parents[i]
        while node >= 0:
            best, node = max(best, score[node]), parents[node]
        expected.append(best)
    assert features._ancestor_max(parents, score).tolist() == expected


def test_ancestor_max_on_a_deep_chain():
    n = 50_000
    score = np.random.default_rng(0).random(n)
    assert np.array_equal(features._ancestor_max([-1] + list(range(n - 1)), score), np.maximum.accumulate(score))


@pytest.mark.skipif(
    speedups.load("scoring._model") is None, reason="scrapy_boilerplate.core.scoring._model is not built"
)
def test_compiled_trees_score_as_numpy_does():
    from scrapy_boilerplate.core.scoring.model import load_model

    trees = load_model().trees
    rng = np.random.default_rng(0)
    X = rng.normal(size=(500, int(trees.feature.max()) + 1)) * rng.choice([0.1, 1, 100], size=(500, 1))
    X[::7] = 0  # ties with thresholds at zero
    # Sums are taken in another order (numpy: pairwise), so the last bits may differ.
    np.testing.assert_allclose(trees.raw_scores(X), trees.raw_scores_numpy(X), rtol=0, atol=1e-12)
    from scrapy_boilerplate.core.scoring import model

    with as_python(model, "_model"):  # the same source run as Python: numpy's sums
        np.testing.assert_array_equal(trees.raw_scores(X), trees.raw_scores_numpy(X))


utf8_pieces = st.lists(
    st.one_of(
        st.binary(max_size=12),
        st.text(max_size=6).map(lambda t: t.encode("utf-8", "surrogatepass")),  # lone surrogates too
        st.sampled_from(
            [
                b"\xc0\x80",
                b"\xc2",
                b"\xe0\x9f\x80",
                b"\xed\xa0\x80",
                b"\xf0\x8f\xbf\xbf",
                b"\xf4\x90\x80\x80",
                b"\xf5\x80\x80\x80",
                b"\xef\xbf\xbf",
                b"\xf4\x8f\xbf\xbf",
                b"abcdefgh" * 3,
            ]
        ),
    ),
    max_size=8,
).map(b"".join)


@pytest.mark.skipif(
    speedups.load("document._parse") is None, reason="scrapy_boilerplate.core.document._parse is not built"
)
@settings(max_examples=1000, deadline=None)
@given(utf8_pieces)
def test_compiled_utf8_check_agrees_with_python(data):
    compiled = speedups.load("document._parse")
    # run as Python, the same source asks the decoder
    assert compiled._is_utf8(data) == speedups.source_of(compiled)._is_utf8(data)


needs_evidence = pytest.mark.skipif(
    speedups.load("overview._evidence") is None,
    reason="scrapy_boilerplate.core.overview._evidence is not built (no C compiler at install time, "
    f"or {speedups.PURE_PYTHON_ENV} is set)",
)


# Real pages of every kind (overviews, articles, others) from the shared sets, or the fixtures.
EVIDENCE_SOURCES = [
    pytest.param("fixtures", id="fixtures"),
    pytest.param("shared", id="shared", marks=pytest.mark.needs_shared("pages of every kind of the sets")),
]


def _evidence_pages(source, dataset_pages):
    """Parsed pages of a source (with a few odd ones), and how many of them have teaser cards at least."""
    if source == "fixtures":
        pages = [build_page(parse_html(fixture_bytes(name))) for name in FIXTURE_NAMES]
        with_cards = 2  # two of the fixture pages have teaser cards
    else:
        pages = [
            build_page(parse_html(p.read_html()), base_url=p.url)
            for name in ("overview-dev", "wcxb-dev")
            for p in dataset_pages(name, 60)
        ]
        with_cards = 20
    return pages + [build_page(None), build_page(parse_html("<p>one block</p>"))], with_cards


def _longest_run(flags):
    if not flags.any():
        return 0
    edges = np.flatnonzero(np.diff(np.concatenate(([0], flags.view(np.int8), [0]))))
    return int((edges[1::2] - edges[::2]).max())


def numpy_block_sums(page, teaser, first, last):
    """evidence.block_sums in numpy (the kernel's Python twin before it had one source): an
    independent check of the one loop."""
    from scrapy_boilerplate.core.overview.evidence import HEADING_TAGS, PAGINATION_TOKENS, BlockSums

    n = len(page)
    chars = np.asarray(page.chars, np.int64)
    links = np.asarray(page.link_chars, np.int64)
    links[teaser] = chars[teaser]
    net = np.maximum(chars - links, 0)
    ld = links / np.maximum(chars, 1)
    long_para = (chars >= 200) & (ld < 0.2)
    headings = np.fromiter(map(HEADING_TAGS.__contains__, page.tags), bool, n)
    link_block = ld >= 0.8
    return BlockSums(
        int(chars.sum()),
        int(links.sum()),
        int(net.sum()),
        int(net.max()) if n else 0,
        int(chars[first:last].sum()),
        int(links[first:last].sum()),
        int(net[first:last].sum()),
        int(long_para.sum()),
        _longest_run(long_para),
        int(chars[long_para].sum()),
        int(headings.sum()),
        int((headings & link_block).sum()),
        int(link_block.sum()),
        int((link_block & (chars < 60)).sum()),
        int(((links >= 25) & (ld >= 0.6) & (chars < 200)).sum()),
        page.tags.count("h1"),
        n - sum(map(PAGINATION_TOKENS.isdisjoint, page.tokens)),
    )


def card_groups_teaser_cards(page):
    """evidence.teaser_cards on selection.cards.card_groups (the kernel's Python twin before it had
    one source): an independent check of the one loop."""
    from itertools import accumulate

    from scrapy_boilerplate.core.document.elements import FLAG
    from scrapy_boilerplate.core.selection.cards import HEAD_BLOCKS, card_groups

    acc_chars = list(accumulate(page.chars, initial=0))
    acc_links = list(accumulate(page.link_chars, initial=0))
    groups, signatures = [], {}
    for (_, tag, tokens), cards in card_groups(page, FLAG["nav"]).items():
        groups.append(
            (
                len(cards),
                sum(acc_links[min(stop, start + HEAD_BLOCKS)] - acc_links[start] for start, stop in cards),
                sum(acc_chars[stop] - acc_chars[start] - acc_links[stop] + acc_links[start] for start, stop in cards),
            )
        )
        if tokens:
            signatures[tag, tokens] = signatures.get((tag, tokens), 0) + len(cards)
    big = [g for g in groups if g[0] >= 3]
    items = sum(c for c, _, _ in big)
    max_group = max((c for c, _, _ in big), default=0)
    repeated = max(signatures.values(), default=0)
    mean_link = sum(t for _, t, _ in big) / items if items else 0.0
    mean_net = sum(max(x, 0) for _, _, x in big) / items if items else 0.0
    return len(big), items, mean_link, max_group, repeated, mean_net


def python_page_tokens(page):
    """evidence.page_tokens in plain Python: an independent check of the loops."""
    from scrapy_boilerplate.core.overview.evidence import LINK_WORD_RE, SHORT_LINK_CHARS

    node_tokens = set()
    for tokens in page.node_tokens:
        node_tokens.update(tokens or ())
    texts = [t for t, c, lc in zip(page.texts, page.chars, page.link_chars) if c < SHORT_LINK_CHARS and lc >= 0.8 * c]
    return node_tokens, set(LINK_WORD_RE.findall(" ".join(texts).lower()))


@pytest.mark.parametrize("source", EVIDENCE_SOURCES)
@pytest.mark.parametrize("as_python_too", [False, True], ids=["as_built", "as_python"])
def test_evidence_loops_equal_their_python_twins(source, as_python_too, dataset_pages):
    """The loops, compiled (where built) and run as Python, against the numpy and card_groups
    versions they replace."""
    from scrapy_boilerplate.core.overview import evidence as overview

    rng = np.random.default_rng(0)
    pages, with_cards = _evidence_pages(source, dataset_pages)
    with as_python(overview, "_evidence") if as_python_too else contextlib.nullcontext():
        for page in pages:
            n = len(page)
            # teaser phrases anywhere (as links) and regions of every kind: the page, a node, none
            teasers = [[], sorted(rng.choice(n, size=min(n, 5), replace=False).tolist()) if n else []]
            nodes = rng.integers(0, len(page.node_tags), 3) if page.node_tags else []
            regions = [(0, n)] + [(page.node_first[i], page.node_last[i]) for i in nodes]
            for teaser in teasers:
                for first, last in regions:
                    sums = overview.block_sums(page, teaser, first, last)
                    assert sums == numpy_block_sums(page, teaser, first, last)
                    assert all(type(v) is int for v in sums)
            for tolerance in (0.9, 0.5, 1.0):
                fast, slow = best_regions(page, tolerance)
                assert fast == slow
            assert overview.teaser_cards(page) == card_groups_teaser_cards(page)
            assert overview.page_tokens(page) == python_page_tokens(page)
        # the cards were really counted
        assert sum(overview.teaser_cards(p)[0] > 0 for p in pages) >= with_cards


@needs_evidence
@pytest.mark.parametrize("source", EVIDENCE_SOURCES)
def test_compiled_evidence_equals_python_evidence(source, dataset_pages):
    from scrapy_boilerplate.core.overview import evidence as overview

    pages, _ = _evidence_pages(source, dataset_pages)
    fast = [overview.page_evidence(page, page.base_url) for page in pages if len(page)]
    with as_python(overview, "_evidence"):
        assert fast == [overview.page_evidence(page, page.base_url) for page in pages if len(page)]


def numpy_best_region(page, tolerance):
    """TextSweeper's region in numpy (the kernel's Python twin before it had one source): an
    independent check of the one loop."""
    if not page.node_tags:
        return -1, 0
    chars = np.asarray(page.node_chars, float)
    links = np.asarray(page.node_link_chars, float)
    ratio = ttr.node_ratios(chars, links, page.node_tag_counts, page.node_depths)
    ratio[(chars - links) < 25] = 0
    best = float(ratio.max())
    if best <= 0:
        return -1, 0
    chosen = np.flatnonzero(ratio >= tolerance * best)
    chain, a, b = set(), int(chosen[0]), int(chosen[-1])
    while a >= 0:
        chain.add(a)
        a = page.node_parents[a]
    while b >= 0 and b not in chain:
        b = page.node_parents[b]
    if b < 0:
        return -1, int(np.sum(page.chars) - np.sum(page.link_chars))
    return b, int(chars[b] - links[b])


@settings(max_examples=300, deadline=None)
@given(forest=forests(), data=st.data())
def test_best_region_compiled_and_as_python_equal_numpy_on_any_tree(forest, data):
    """Forests of nodes (several roots too) with any text and link text, ties included."""
    from scrapy_boilerplate.core.document.page import Page

    parents, _ = forest
    n = len(parents)
    counts = st.lists(st.integers(0, 400), min_size=n, max_size=n)
    node_chars = data.draw(counts)
    page = Page(
        node_tags=["div"] * n,
        node_parents=parents,
        node_chars=node_chars,
        node_link_chars=[min(c, x) for c, x in zip(node_chars, data.draw(counts))],
        node_tag_counts=data.draw(st.lists(st.integers(0, 30), min_size=n, max_size=n)),
        node_depths=data.draw(st.lists(st.integers(1, 12), min_size=n, max_size=n)),
        chars=[7, 30, 500],
        link_chars=[7, 0, 20],
    )
    for tolerance in (0.9, 0.0, 1.0):
        expected = numpy_best_region(page, tolerance)
        assert ttr.best_region(page, tolerance) == expected
        with as_python(ttr, "_ttr"):
            assert ttr.best_region(page, tolerance) == expected


def test_a_module_that_is_not_built_is_reported_once(caplog, monkeypatch):
    monkeypatch.delenv(speedups.PURE_PYTHON_ENV, raising=False)  # (the pure-Python CI pass sets it)
    with caplog.at_level("WARNING", logger="scrapy_boilerplate.core.speedups"):
        assert speedups.load("_not_a_module") is None
        assert speedups.load("_not_a_module") is None
    warnings = [r for r in caplog.records if "_not_a_module" in r.getMessage()]
    assert len(warnings) == 1 and "is not built" in warnings[0].getMessage()


def test_pure_python_env_runs_a_kernels_source(monkeypatch):
    from scrapy_boilerplate.core.scoring import ttr

    monkeypatch.setenv(speedups.PURE_PYTHON_ENV, "1")
    kernels = speedups.kernels(ttr.__name__)
    assert not speedups.is_compiled(kernels) and kernels.__file__.endswith("_ttr.py")


def test_a_kernel_that_fails_to_load_runs_its_source(monkeypatch, caplog):
    from scrapy_boilerplate.core.scoring import ttr

    def broken(name):
        raise ImportError("undefined symbol: built against another Python")

    monkeypatch.setattr(speedups.importlib, "import_module", broken)
    monkeypatch.delenv(speedups.PURE_PYTHON_ENV, raising=False)
    monkeypatch.delitem(sys.modules, "scrapy_boilerplate.core.scoring._ttr", raising=False)
    with caplog.at_level("WARNING", logger=speedups.logger.name):
        kernels = speedups.kernels(ttr.__name__)
    assert not speedups.is_compiled(kernels) and kernels._best_region([30], [0], [1], [1], [-1], [30], [0], 0.9) == (
        0,
        30,
    )
    assert "scoring._ttr failed to load; running its Python code" in caplog.text


WITHOUT_CYTHON = """
import sys
if sys.argv[2] == "block":
    sys.modules["cython"] = None  # import cython fails, as where Cython is not installed
from scrapy_boilerplate import extract
from scrapy_boilerplate.core.scoring import ttr
sys.stderr.write(ttr._ttr.cython.__name__)
sys.stdout.write(extract(open(sys.argv[1], "rb").read()).text)
"""


def test_the_python_code_runs_without_cython():
    """A pure install has no Cython (a build-time dependency): the kernels' sources run on
    core/_cython.py, and give what they give on Cython's own pure-mode module."""
    page = Path(__file__).parents[1] / "fixtures" / "article_en.html"
    env = {**os.environ, speedups.PURE_PYTHON_ENV: "1"}
    runs = {
        how: subprocess.run([sys.executable, "-c", WITHOUT_CYTHON, str(page), how], capture_output=True, env=env)
        for how in ("block", "allow")
    }
    assert [run.returncode for run in runs.values()] == [0, 0], runs
    assert runs["block"].stderr.decode() == "scrapy_boilerplate.core._cython"
    assert runs["allow"].stderr.decode() == "cython"
    assert runs["block"].stdout == runs["allow"].stdout
    assert len(runs["block"].stdout) > 500


def context_both_ways(proba, structure):
    """context.context_features compiled (when built) and with its kernel's source run as Python."""
    from scrapy_boilerplate.core.scoring import context

    fast = context.context_features(proba, structure)
    with as_python(context, "_context"):
        return fast, context.context_features(proba, structure)


@st.composite
def structures(draw):
    """A page's context inputs: per block, words, container spans that hold it, sibling keys,
    and first-stage probabilities with ties at the likely-content cut."""
    from scrapy_boilerplate.core.scoring.context import HIGH, Structure

    n = draw(st.integers(1, 80))
    spans = []
    for _ in range(2):
        firsts = [draw(st.integers(0, i)) for i in range(n)]
        lasts = [draw(st.integers(i + 1, n)) for i in range(n)]
        spans += [np.array(firsts, np.int64), np.array(lasts, np.int64)]
    words = draw(st.lists(st.integers(0, 60), min_size=n, max_size=n))
    keys = draw(st.lists(st.integers(0, 5), min_size=n, max_size=n))
    p = draw(st.lists(st.sampled_from([0.0, 1.0, HIGH, 0.2, 0.7]) | st.floats(0, 1), min_size=n, max_size=n))
    structure = Structure(np.array(words, float), *spans, np.array(keys, np.int64))
    return np.array(p), structure


@settings(max_examples=300, deadline=None)
@given(structures())
def test_context_features_compiled_equal_numpy(drawn):
    proba, structure = drawn
    fast, slow = context_both_ways(proba, structure)
    np.testing.assert_array_equal(fast, slow)
    assert np.isfinite(fast).all()


@pytest.mark.parametrize(
    "source",
    [
        pytest.param("cut", id="cut"),
        pytest.param("shared", id="shared", marks=pytest.mark.needs_shared("150 pages of wcxb-dev")),
    ],
)
def test_context_features_compiled_equal_numpy_on_real_pages(source, dataset_pages):
    """With the shipped first stage's probabilities: the numbers the second stage reads."""
    from scrapy_boilerplate.core.scoring.context import page_structure
    from scrapy_boilerplate.core.scoring.features import feature_matrix
    from scrapy_boilerplate.core.scoring.model import load_model

    model = load_model()
    items = cut_real_pages() if source == "cut" else dataset_pages("wcxb-dev", 150)
    for item in items:
        page = build_page(parse_html(item.read_html()))
        if not len(page):
            continue
        X = feature_matrix(page, model.token_index, features.dense_columns(model.feature_names))
        fast, slow = context_both_ways(model.predict_proba(X), page_structure(page))
        np.testing.assert_array_equal(fast, slow, err_msg=item.id)


def structure_both_ways(page):
    """context.page_structure compiled (when built) and with its kernel's source run as Python."""
    from scrapy_boilerplate.core.scoring import context

    fast = context.page_structure(page)
    with as_python(context, "_context"):
        return fast, context.page_structure(page)


def assert_same_structure(fast, slow, msg=""):
    for name in ("words", "parent_first", "parent_last", "grand_first", "grand_last", "sibling_key"):
        np.testing.assert_array_equal(getattr(fast, name), getattr(slow, name), err_msg=f"{msg} {name}")


@settings(max_examples=200, deadline=None)
@given(forest=forests(), data=st.data())
def test_page_structure_compiled_equal_numpy_on_any_tree(forest, data):
    """Blocks on any nodes of any forest (or on none), tags and id/class paths repeating."""
    from scrapy_boilerplate.core.document.page import Page

    parents, _ = forest
    n_nodes = len(parents)
    n = data.draw(st.integers(1, 40))
    nodes = sorted(data.draw(st.lists(st.integers(-1, n_nodes - 1), min_size=n, max_size=n)))
    page = Page(
        texts=["x"] * n,
        tags=data.draw(st.lists(st.sampled_from(["p", "li", "div"]), min_size=n, max_size=n)),
        tokens=data.draw(st.lists(st.sampled_from([(), ("a",), ("a", "b"), ("b", "a")]), min_size=n, max_size=n)),
        nodes=nodes,
        node_tags=["div"] * n_nodes,
        node_parents=parents,
        # spans that need not hold their blocks, or lie in the page (a walk's odd case)
        node_first=data.draw(st.lists(st.integers(-3, n + 3), min_size=n_nodes, max_size=n_nodes)),
        node_last=data.draw(st.lists(st.integers(-3, n + 3), min_size=n_nodes, max_size=n_nodes)),
    )
    fast, slow = structure_both_ways(page)
    assert_same_structure(fast, slow)
    for first, last in ((fast.parent_first, fast.parent_last), (fast.grand_first, fast.grand_last)):
        assert (0 <= first).all() and (first <= np.arange(n)).all()
        assert (last > np.arange(n)).all() and (last <= n).all()


@pytest.mark.parametrize(
    "source",
    [
        pytest.param("cut", id="cut"),
        pytest.param("shared", id="shared", marks=pytest.mark.needs_shared("150 pages of wcxb-dev")),
    ],
)
def test_page_structure_compiled_equal_numpy_on_real_pages(source, dataset_pages):
    items = cut_real_pages() if source == "cut" else dataset_pages("wcxb-dev", 150)
    for item in items:
        page = build_page(parse_html(item.read_html()))
        fast, slow = structure_both_ways(page)
        assert_same_structure(fast, slow, item.id)
