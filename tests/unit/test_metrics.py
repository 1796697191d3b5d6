from pathlib import Path

import pytest

from scrapy_boilerplate.training.datasets import DatasetPage
from scrapy_boilerplate.training.metrics import (
    PageResult,
    bow_f1,
    format_table,
    lcs_f1,
    lcs_length,
    normalize_unicode,
    score_page,
    shingle_counts,
    shingle_scores,
    snippet_scores,
    summarize,
    summarize_by,
    tokens,
)

TEXT = "The quick brown fox jumps over the lazy dog near the river bank."


def test_tokens_keep_case_and_unicode():
    assert tokens("Hello, wörld! 2024") == ["Hello", "wörld", "2024"]
    assert tokens("") == [] and tokens(None) == []


def test_texts_are_nfc_without_soft_hyphens_on_both_sides():
    """DESIGN.md, Metrics: NFC and no soft hyphens (removed, not a space) before tokenising."""
    decomposed, hyphenated, plain = "Wa\u0308hrend der Sitzung", "Wäh\xadrend der Sitzung", "Während der Sitzung"
    assert normalize_unicode(decomposed) == normalize_unicode(hyphenated) == plain
    assert tokens(decomposed) == tokens(hyphenated) == ["Während", "der", "Sitzung"]
    gold = "Der Antrag wurde während der Sitzung gepr\xadüft und angenommen."
    extracted = "Der Antrag wurde wa\u0308hrend der Sitzung geprüft und angenommen."
    assert shingle_scores(extracted, gold) == (1.0, 1.0)
    assert bow_f1(extracted, gold) == lcs_f1(extracted, gold) == 1.0
    assert snippet_scores(extracted, ["wäh\xadrend der Sitzung"], ["gepru\u0308ft und abgelehnt"]) == (1.0, 1.0)


def test_short_text_is_one_shingle():
    assert shingle_counts("a b") == {("a", "b"): 1}
    assert shingle_counts("a b c d e") == {("a", "b", "c", "d"): 1, ("b", "c", "d", "e"): 1}
    assert shingle_counts("  ,. ") == {}


def test_identical_text_scores_one():
    assert shingle_scores(TEXT, TEXT) == (1.0, 1.0)
    assert bow_f1(TEXT, TEXT) == 1.0
    assert lcs_f1(TEXT, TEXT) == 1.0


def test_disjoint_text_scores_zero():
    other = "Completely different words appear in this other sentence here."
    assert shingle_scores(other, TEXT) == (0.0, 0.0)
    assert bow_f1(other, TEXT) == 0.0
    assert lcs_f1(other, TEXT) == 0.0


def test_empty_extraction_has_no_precision():
    precision, recall = shingle_scores("", TEXT)
    assert precision is None
    assert recall == 0.0


def test_partial_extraction():
    # First half of the gold: every extracted shingle is right, recall is partial.
    half = "The quick brown fox jumps over"
    precision, recall = shingle_scores(half, TEXT)
    assert precision == 1.0
    assert recall == pytest.approx(3 / 10)


def test_lcs_known_case():
    assert lcs_length(list("ABCBDAB"), list("BDCABA")) == 4
    assert lcs_length([], list("abc")) == 0
    # tokens: a b c d / a c d e -> LCS "a c d" = 3, F1 = 2*3 / (4+4)
    assert lcs_f1("a b c d", "a c d e") == pytest.approx(0.75)


def test_lcs_penalises_order_bow_does_not():
    assert bow_f1("d c b a", "a b c d") == 1.0
    assert lcs_f1("d c b a", "a b c d") == pytest.approx(0.25)


def test_snippet_scores_normalise_whitespace():
    text = "Some   body\n text here.\nFooter"
    assert snippet_scores(text, ["body text", "missing"], ["Footer", "Menu"]) == (0.5, 0.5)
    assert snippet_scores(text, [], []) == (None, None)


def _result(precision, recall, page_type="article"):
    return PageResult("x", page_type, None, precision, recall, 0.5, 0.5, None, None)


def test_summarize_macro_averages_and_skips_empty_output():
    results = [_result(1.0, 0.5), _result(0.5, 1.0), _result(None, 0.0)]
    summary = summarize(results, bootstrap=0)
    assert summary["pages"] == 3
    assert summary["precision"] == pytest.approx(0.75)
    assert summary["recall"] == pytest.approx(0.5)
    assert summary["f1"] == pytest.approx(2 * 0.75 * 0.5 / 1.25)
    assert summary["counts"]["empty_output"] == 1
    assert summary["with_share"] is None


def test_bootstrap_reproducible_by_seed():
    results = [_result(p / 10, (10 - p) / 10) for p in range(1, 10)]
    first = summarize(results, bootstrap=200, seed=3)["f1_ci"]
    assert first == summarize(results, bootstrap=200, seed=3)["f1_ci"]
    assert first != summarize(results, bootstrap=200, seed=4)["f1_ci"]
    assert 0 < first < 0.5


def test_summarize_by_groups_and_all():
    results = [_result(1.0, 1.0, "article"), _result(0.0, 0.0, "listing"), _result(1.0, 1.0, None)]
    summaries = summarize_by(results, bootstrap=0)
    assert set(summaries) == {"article", "listing", "(none)", "all"}
    assert summaries["all"]["pages"] == 3
    assert summaries["listing"]["f1"] == 0.0


def test_score_page(tmp_path: Path):
    (tmp_path / "gold.txt").write_text(TEXT, encoding="utf-8")
    page = DatasetPage(
        "p1",
        "tmp",
        tmp_path,
        "p1.html",
        "gold.txt",
        None,
        None,
        "article",
        "test",
        "article",
        ("lazy dog",),
        ("Menu",),
    )
    result = score_page(page, TEXT)
    assert (result.precision, result.recall, result.bow_f1, result.lcs_f1) == (1.0, 1.0, 1.0, 1.0)
    assert (result.with_share, result.without_share) == (1.0, 1.0)
    no_gold = DatasetPage("p2", "tmp", tmp_path, "p2.html", None, None, None, None, None, None, (), ())
    assert score_page(no_gold, TEXT).precision is None


def test_format_table_aligns():
    table = format_table({"a": {"x": 0.5, "y": None}, "long name": {"x": 12, "y": "s"}}, ["x", "y"])
    lines = table.splitlines()
    assert lines[2].startswith("a          0.500")
    assert lines[3].split() == ["long", "name", "12", "s"]
    assert len({len(line) for line in lines[:2]}) == 1
