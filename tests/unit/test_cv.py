"""The cross-validation protocol's grouping, folds, conventions and statistics (training/cv.py);
the CV run itself is benchmarks/cv.py, out of CI."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from conftest import load_shared_pages, needs_shared, slow

from scrapy_boilerplate.core.document.elements import FLAG
from scrapy_boilerplate.training import cv, recipes
from scrapy_boilerplate.training.conventions import scoring_options, training_labels, unlabelled_code
from scrapy_boilerplate.training.datasets import DatasetPage
from scrapy_boilerplate.training.groups import assign_folds, page_group, pages_in_two_sets, registered_domain


def _page(dataset: str, id_: str, url: str | None) -> DatasetPage:
    return DatasetPage(id_, dataset, Path("."), "x.html", "x.txt", url, None, None, None, None, (), ())


def test_registered_domain():
    assert registered_domain("news.bbc.co.uk") == "bbc.co.uk"
    assert registered_domain("www.nytimes.com") == "nytimes.com"
    assert registered_domain("edition.cnn.com") == "cnn.com"
    assert registered_domain("foo.blogspot.com") == "foo.blogspot.com"
    assert registered_domain("foo.blogspot.co.uk") == "foo.blogspot.co.uk"
    assert registered_domain("alice.wordpress.com") == "alice.wordpress.com"
    assert registered_domain("example.de") == "example.de"
    assert registered_domain("10.0.0.1") == "10.0.0.1"


def test_groups_across_sets_and_without_url():
    assert (
        page_group(_page("dragnet", "1", "http://blog.example.com/a"))
        == page_group(_page("cleaneval", "2", "https://www.example.com/b"))
        == "example.com"
    )
    # an archive capture belongs to the site it captured
    assert (
        page_group(_page("trafilatura-eval", "3", "https://web.archive.org/web/2020/https://example.com/c"))
        == "example.com"
    )
    assert page_group(_page("readability", "nytimes-3", None)) == "readability:nytimes"
    assert page_group(_page("readability", "001", None)) == "readability:001"
    assert page_group(_page("dragnet", "9", None)) == page_group(_page("dragnet", "10", None)) == "dragnet:no-url"
    assert page_group(_page("dragnet", "9", None)) != page_group(_page("googletrends-2017", "9", None))


def test_pages_in_two_sets():
    pages = [
        _page("a", "1", "http://x.org/p/"),
        _page("b", "1", "http://www.x.org/p"),
        _page("a", "2", None),
        _page("b", "2", None),
        _page("a", "3", "http://x.org/q"),
    ]
    digests = ["d1", "d2", "same", "same", "d3"]
    assert pages_in_two_sets(pages, digests) == {0, 1, 2, 3}


def test_folds_are_stable_balanced_and_keep_untouched_groups():
    groups = [f"site{k}.com" for k in range(400) for _ in range(k % 7 + 1)]
    three = assign_folds(groups, 3)
    five = assign_folds(groups, 5)
    assert three == assign_folds(list(reversed(groups)), 3)  # order does not matter
    untouched = {g for g, f in three.items() if f == -1}
    assert untouched == {g for g, f in five.items() if f == -1}  # the same whatever the folds
    assert 0.10 < len(untouched) / len(three) < 0.20
    sizes = [sum(1 for g in groups if five[g] == k) for k in range(5)]
    assert max(sizes) - min(sizes) <= 7  # at most one group apart
    assert set(five.values()) == {-1, 0, 1, 2, 3, 4}


def test_wide_gold_positives_masked_but_body_paragraphs():
    labels = np.array([1, 1, 1, 0, 1, 1], np.int8)
    tags = ["h1", "p", "p", "p", "p", "li"]
    words = np.array([8, 60, 12, 40, 50, 60])
    chars = words * 6
    link_chars = np.array([0, 0, 0, 0, 0, 0])
    flags = np.array([0, 0, 0, 0, FLAG["caption"], 0])
    wide = training_labels("dragnet", labels, tags, words, chars, link_chars, flags)
    assert wide.tolist() == [-1, 1, -1, 0, -1, -1]
    assert training_labels("wcxb-dev", labels, tags, words, chars, link_chars, flags).tolist() == labels.tolist()
    assert scoring_options("cleaneval") == {"include_title": True, "include_captions": True}
    assert scoring_options("wcxb-dev") == {}


def test_code_the_gold_leaves_out_inside_its_content_is_not_taught():
    from scrapy_boilerplate.core.document.page import build_page
    from scrapy_boilerplate.core.document.parse import parse_html

    page = build_page(
        parse_html(
            "<html><body><p>First paragraph of the post, long enough to be one.</p>"
            "<pre><div>let x = 1;</div><div>let y = x + 1;</div></pre>"
            "<pre>1\n2\n3</pre><pre>print(x)</pre>"
            "<p>Last paragraph of the post, long enough to be one.</p>"
            "<aside><pre>&lt;script src=/embed.js&gt;&lt;/script&gt;</pre></aside></body></html>"
        )
    )
    assert page.texts[1:6] == [
        "let x = 1;",
        "let y = x + 1;",
        "1\n2\n3",
        "print(x)",
        "Last paragraph of the post, long enough to be one.",
    ]
    labels = np.array([1, 0, 0, 0, 0, 1, 0], np.int8)
    flags = np.asarray(page.flags)
    # the listings inside the content: masked; the gutter and the code after the content: negatives
    assert unlabelled_code(labels, flags, page.texts).tolist() == [1, -1, -1, 0, -1, 1, 0]
    kept = np.array([1, 1, 1, 0, 1, 1, 0], np.int8)
    assert unlabelled_code(kept, flags, page.texts).tolist() == kept.tolist()
    assert unlabelled_code(np.array([0, 0, 0, 0, 0, 1, 0], np.int8), flags, page.texts).tolist() == [0] * 5 + [1, 0]


def _rows(pairs, dataset="s"):
    return [
        {
            "set": dataset,
            "id": str(k),
            "page_type": None,
            "p": p,
            "r": r,
            "f1": None if p is None and r is None else cv.f1_from(p or 0.0, r),
        }
        for k, (p, r) in enumerate(pairs)
    ]


def test_summary_and_paired_bootstrap():
    a = _rows([(1.0, 1.0), (0.5, 0.5), (None, 0.0), (1.0, 0.8)])
    s = cv.summary(a)
    assert s["pages"] == 4 and s["catastrophic"] == 1
    p, r = (1.0 + 0.5 + 1.0) / 3, (1.0 + 0.5 + 0.0 + 0.8) / 4
    assert abs(s["f1"] - 2 * p * r / (p + r)) < 1e-12
    same = cv.paired_bootstrap(a, a)
    assert same["diff"] == 0 and same["se"] == 0
    better = _rows([(1.0, 1.0), (0.9, 0.9), (0.9, 0.9), (1.0, 0.9)])
    b = cv.paired_bootstrap(a, better)
    assert b["diff"] > 0 and b["low"] > 0 and b["pages"] == 4


@needs_shared
@slow
def test_stacked_recipe_trains_reproducibly_and_its_model_file_predicts_the_same(monkeypatch):
    """train_recipe on 30 real pages (small trees): the second stage is fitted, exported and read
    back giving the probabilities the extraction uses; the same pages give the same file."""
    import json

    from scrapy_boilerplate.core.document.page import build_page
    from scrapy_boilerplate.core.document.parse import parse_html
    from scrapy_boilerplate.core.extractor import Extractor
    from scrapy_boilerplate.core.scoring.features import feature_matrix
    from scrapy_boilerplate.core.scoring.model import Model
    from scrapy_boilerplate.training import train as training

    pages = load_shared_pages("wcxb-dev", 30)
    monkeypatch.setattr(
        recipes,
        "SHIPPED_RECIPE",
        recipes.with_recipe(recipes.SHIPPED_RECIPE, hgb={**training.HGB_PARAMS, "max_iter": 10}),
    )
    monkeypatch.setattr(recipes, "STACK_HGB", {**recipes.STACK_HGB, "max_iter": 10})
    monkeypatch.setattr(recipes, "TUNE_MAX_PAGES", 20)
    monkeypatch.setattr(recipes, "OOF_GRID", {"threshold": [0.35, 0.5]})
    models = [recipes.train_recipe(pages, "test", ["wcxb-dev"], log=lambda m: None, all_sites=True) for _ in range(2)]
    first, second = (m.to_json() for m in models)
    assert json.dumps(first) == json.dumps(second)  # the whole file, its meta too
    assert first["format_version"] == 3 and first["meta"]["recipe"].endswith("+stack")
    model = Model.from_json(json.loads(json.dumps(models[0].to_json())))
    page = build_page(parse_html(pages[0].read_html()))
    X = feature_matrix(page, model.token_index)
    stacked, alone = model.predict_proba(X, page), model.predict_proba(X)
    assert stacked.shape == alone.shape and ((stacked >= 0) & (stacked <= 1)).all()
    assert not np.allclose(stacked, alone)  # the second stage moved them
    np.testing.assert_array_equal(Extractor(model=model).block_probabilities(page), stacked)


def test_wide_negatives_balanced_to_the_narrow_ratio():
    from types import SimpleNamespace

    from scrapy_boilerplate.training import train as training

    def data(dataset, labels, words):
        page = SimpleNamespace(words=words)
        d = training.PageData(dataset, "g", page, "gold", np.zeros((len(labels), 1)), np.array(labels))
        return d, SimpleNamespace(dataset=dataset)

    pairs = [
        data("wcxb-dev", [1, 1, 0], [100, 100, 100]),  # content : boilerplate = 2 : 1
        data("dragnet", [1, 0, 0, 0, -1], [100, 100, 100, 100, 100]),  # 1 : 3
        data("cleaneval", [0, 0], [10, 10]),  # no content left: left as it is
    ]
    ds, items = [d for d, _ in pairs], [it for _, it in pairs]
    recipes.balance_wide_negatives(ds, items)  # type: ignore[arg-type]

    def ratio(d):
        w = training.sample_weights(d)
        return w[d.labels == 1].sum() / w[d.labels == 0].sum()

    assert ds[0].negative_weight == 1.0 and ds[2].negative_weight == 1.0
    assert ratio(ds[1]) == pytest.approx(ratio(ds[0])) == pytest.approx(2.0)


def test_inner_folds_are_stable_and_all_used():
    groups = [f"site{i}.example" for i in range(60)]
    folds = [recipes.inner_fold(g) for g in groups]
    assert folds == [recipes.inner_fold(g) for g in groups]
    assert set(folds) == set(range(recipes.INNER_FOLDS))


@needs_shared
def test_replay_scores_again_with_the_fold_models_or_the_stored_probabilities():
    """replay_rows: with the run's fold models it is the stored run again (the whole extraction);
    from the stored probabilities alone it runs select(), so a decoder change shows."""
    from scrapy_boilerplate.core.extractor import Extractor
    from scrapy_boilerplate.core.scoring.features import feature_matrix
    from scrapy_boilerplate.core.scoring.model import load_model
    from scrapy_boilerplate.training.cache import walk_page

    model = load_model()
    items = [recipes.Item(dp, walk_page(dp), page_group(dp), 0) for dp in load_shared_pages("wcxb-dev", 12)]
    rows = cv.extract_rows(Extractor(model=model), items)
    extractor = Extractor(model=model)
    for row, it in zip(rows, items):
        page = recipes.walk_item(it)
        row["proba"] = model.predict_proba(feature_matrix(page, model.token_index), page).tolist()
        assert extractor.block_probabilities(page).tolist() == row["proba"]
    decoders = [dict(model.decode)]
    exact = cv.replay_rows(rows, decoders, items, processes=1, models=[model])
    assert [r["f1"] for r in exact] == [r["f1"] for r in rows]
    from_proba = cv.replay_rows(rows, decoders, items, processes=2)
    assert [r["id"] for r in from_proba] == [r["id"] for r in rows]
    assert sum(a["f1"] == b["f1"] for a, b in zip(from_proba, rows)) >= 10  # a fallback may differ
    strict = cv.replay_rows(rows, [{**decoders[0], "threshold": 0.999}], items, processes=1)
    assert [r["f1"] for r in strict] != [r["f1"] for r in rows]
