"""Extraction quality metrics (docs/training.md, `scrapy-boilerplate evaluate`).

Content metrics follow the article-extraction-benchmark (scrapinghub,
evaluate.py), after DESIGN.md's Unicode step: text in NFC without soft hyphens (U+00AD), on
both sides; then ``\\w+`` tokens, multisets of word 4-grams ("shingles"),
per-page precision and recall, macro-averaged over pages, F1 from the two
averages. Bag-of-words F1 and LCS F1 (Yao & Zuo) are reported beside them.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from ..core.jsondata import JsonObject
from .datasets import DatasetPage

# Same pattern as the benchmark's _tokenize. It does NOT lower-case (its
# re.IGNORECASE flag has no effect on \w+), so neither do we: a tool that
# changes case is penalised, as in the benchmark.
_TOKEN_RE = re.compile(r"\w+")
_SPACE_RE = re.compile(r"\s+")

# Bound on len(a) * len(b) for the LCS; beyond it both token lists are cut to
# their first tokens (see lcs_f1). About 0.1 s at the bound; real pages are
# far below it (1000 x 1000 tokens take ~1 ms).
MAX_LCS_CELLS = 1_000_000_000


def normalize_unicode(text: str) -> str:
    """`text` in Unicode NFC, soft hyphens (U+00AD) removed (not replaced by a space): the same
    on the extracted and the gold side, so "Wa\u0308h\xadrend" and "Während" are one token."""
    if text.isascii():
        return text
    return unicodedata.normalize("NFC", text.replace("\xad", ""))


def tokens(text: str | None) -> list[str]:
    return _TOKEN_RE.findall(normalize_unicode(text or ""))


def shingle_counts(text: str | None, n: int = 4) -> Counter[tuple[str, ...]]:
    """Multiset of word n-grams.

    As in the benchmark, a text with fewer than n tokens (but at least one)
    gives one shingle made of all its tokens, so short texts still count.
    """
    toks = tokens(text)
    if not toks:
        return Counter()
    if len(toks) < n:
        return Counter([tuple(toks)])
    return Counter(tuple(toks[i : i + n]) for i in range(len(toks) - n + 1))


def shingle_scores(extracted: str, gold: str) -> tuple[float | None, float | None]:
    """Per-page (precision, recall) over shingles.

    Precision is None when the extraction has no shingles, recall is None when
    the gold has none: the benchmark leaves such pages out of that average
    (an empty output counts only in recall).
    """
    pred = shingle_counts(extracted)
    true = shingle_counts(gold)
    matched = sum((pred & true).values())  # multiset intersection
    n_pred = sum(pred.values())
    n_true = sum(true.values())
    precision = matched / n_pred if n_pred else None
    recall = matched / n_true if n_true else None
    return precision, recall


def _f1(matched: int, n_pred: int, n_true: int) -> float:
    # Nothing to find and nothing found is a perfect answer.
    if n_pred == 0 and n_true == 0:
        return 1.0
    return 2 * matched / (n_pred + n_true)


def bow_f1(extracted: str, gold: str) -> float:
    """Token-level bag-of-words F1 (multiset overlap of tokens)."""
    pred = Counter(tokens(extracted))
    true = Counter(tokens(gold))
    matched = sum((pred & true).values())
    return _f1(matched, sum(pred.values()), sum(true.values()))


def lcs_length(a: Sequence[str], b: Sequence[str]) -> int:
    """Length of the longest common subsequence of two token lists.

    Bit-parallel algorithm (Allison & Dix 1986; Crochemore et al. 2001): one
    Python big-int holds a whole DP row, so the cost is len(a) big-int
    operations on len(b) bits instead of len(a) * len(b) Python steps.
    Exact, and ~1 ms for 1000 x 1000 tokens.
    """
    if len(a) > len(b):
        a, b = b, a  # loop over the shorter list
    if not a:
        return 0
    # Bit j of masks[tok] is set when b[j] == tok.
    masks: dict[str, int] = {}
    for j, tok in enumerate(b):
        masks[tok] = masks.get(tok, 0) | (1 << j)
    full = (1 << len(b)) - 1
    row = full  # zero bits mark where the LCS length grows along b
    for tok in a:
        match = row & masks.get(tok, 0)
        row = ((row + match) | (row - match)) & full
    return len(b) - row.bit_count()


def lcs_f1(extracted: str, gold: str) -> float:
    """F1 from the LCS of the token sequences: 2 * LCS / (len(ext) + len(gold)).

    To keep the cost bounded, when len(ext) * len(gold) > MAX_LCS_CELLS both
    sequences are cut to their first sqrt(MAX_LCS_CELLS) tokens (about 31,600)
    and the score is computed on those prefixes; only very long pages are
    affected.
    """
    pred = tokens(extracted)
    true = tokens(gold)
    if len(pred) * len(true) > MAX_LCS_CELLS:
        keep = int(MAX_LCS_CELLS**0.5)
        pred, true = pred[:keep], true[:keep]
    return _f1(lcs_length(pred, true), len(pred), len(true))


def normalize_space(text: str) -> str:
    """Whitespace runs to one space, after the Unicode step of the content metric."""
    return _SPACE_RE.sub(" ", normalize_unicode(text)).strip()


def snippet_scores(text: str, with_: Iterable[str], without: Iterable[str]) -> tuple[float | None, float | None]:
    """(share of `with` snippets found, share of `without` snippets absent).

    Plain substring tests after whitespace normalisation on both sides (as
    in trafilatura's evaluation; with the content metric's NFC and soft-hyphen step
    first); None when there are no snippets of a kind.
    """
    text = normalize_space(text or "")
    with_ = [normalize_space(s) for s in with_]
    without = [normalize_space(s) for s in without]
    with_share = sum(s in text for s in with_) / len(with_) if with_ else None
    without_share = sum(s not in text for s in without) / len(without) if without else None
    return with_share, without_share


@dataclass
class PageResult:
    id: str
    page_type: str | None
    label: str | None
    precision: float | None
    recall: float | None
    bow_f1: float | None
    lcs_f1: float | None
    with_share: float | None
    without_share: float | None


def score_page(page: DatasetPage, extracted_text: str) -> PageResult:
    """All metrics for one page; gold-based fields are None without gold."""
    extracted_text = extracted_text or ""
    gold = page.read_gold()
    precision = recall = bow = lcs = None
    if gold is not None:
        precision, recall = shingle_scores(extracted_text, gold)
        bow = bow_f1(extracted_text, gold)
        lcs = lcs_f1(extracted_text, gold)
    with_share, without_share = snippet_scores(extracted_text, page.with_, page.without)
    return PageResult(
        id=page.id,
        page_type=page.page_type,
        label=page.label,
        precision=precision,
        recall=recall,
        bow_f1=bow,
        lcs_f1=lcs,
        with_share=with_share,
        without_share=without_share,
    )


def page_f1(result: PageResult) -> float | None:
    """The page's own shingle F1: None without gold; 0 for an empty output on a page with gold."""
    if result.recall is None:
        return None
    return f1_from(result.precision or 0.0, result.recall)


def page_row(result: PageResult) -> JsonObject:
    """One page's scores, for per-page listings (`evaluate --per-page`, `--worst`)."""
    return {
        "id": result.id,
        "page_type": result.page_type,
        "precision": result.precision,
        "recall": result.recall,
        "f1": page_f1(result),
        "bow_f1": result.bow_f1,
        "lcs_f1": result.lcs_f1,
        "with_share": result.with_share,
        "without_share": result.without_share,
    }


def page_rank_score(result: PageResult) -> float | None:
    """What `evaluate --worst` orders pages by: the page's F1 where it has gold, else the mean of
    its snippet shares; None for a page with neither (never listed)."""
    f1 = page_f1(result)
    if f1 is not None:
        return f1
    return _mean((result.with_share, result.without_share))


def worst_pages(results: Sequence[PageResult], n: int) -> list[PageResult]:
    """The `n` pages with the lowest page_rank_score (ties in page order)."""
    scored = [(score, i) for i, r in enumerate(results) if (score := page_rank_score(r)) is not None]
    return [results[i] for _, i in sorted(scored)[:n]]


def _mean(values: Iterable[float | None]) -> float | None:
    kept = [v for v in values if v is not None]
    return sum(kept) / len(kept) if kept else None


def f1_from(precision: float | None, recall: float | None) -> float | None:
    if precision is None or recall is None:
        return None
    if precision + recall == 0:
        return 0.0
    return 2 * precision * recall / (precision + recall)


def _as_array(values: list[float | None]) -> np.ndarray:
    return np.array([np.nan if v is None else v for v in values], dtype=float)


def _nanmean(values: np.ndarray) -> float:
    # np.nanmean warns on all-NaN input; an empty mean is simply NaN here.
    kept = values[~np.isnan(values)]
    return float(kept.mean()) if kept.size else float("nan")


def bootstrap_f1_ci(results: Sequence[PageResult], bootstrap: int = 1000, seed: int = 0) -> float | None:
    """Half-width of the 95% percentile bootstrap interval of the macro F1.

    Pages are resampled with replacement (only pages with a gold-based
    score); each resample gets its macro P, R and F1 as in summarize().
    """
    scored = [r for r in results if r.precision is not None or r.recall is not None]
    if not scored or bootstrap <= 0:
        return None
    precision = _as_array([r.precision for r in scored])
    recall = _as_array([r.recall for r in scored])
    rng = np.random.default_rng(seed)
    f1s = []
    for _ in range(bootstrap):
        idx = rng.integers(0, len(scored), size=len(scored))
        p, r = _nanmean(precision[idx]), _nanmean(recall[idx])
        if not (np.isnan(p) or np.isnan(r)):
            f1s.append(2 * p * r / (p + r) if p + r else 0.0)
    if not f1s:
        return None
    low, high = np.percentile(f1s, [2.5, 97.5])
    return float(high - low) / 2


def summarize(results: Sequence[PageResult], bootstrap: int = 1000, seed: int = 0) -> JsonObject:
    """Macro averages over pages (docs/training.md, `scrapy-boilerplate evaluate`)."""
    precision = _mean(r.precision for r in results)
    recall = _mean(r.recall for r in results)
    has_gold = [r for r in results if r.bow_f1 is not None]
    return {
        "pages": len(results),
        "precision": precision,
        "recall": recall,
        "f1": f1_from(precision, recall),
        "f1_ci": bootstrap_f1_ci(results, bootstrap, seed),
        "bow_f1": _mean(r.bow_f1 for r in results),
        "lcs_f1": _mean(r.lcs_f1 for r in results),
        "with_share": _mean(r.with_share for r in results),
        "without_share": _mean(r.without_share for r in results),
        "counts": {
            "gold": len(has_gold),
            "empty_output": sum(r.precision is None for r in has_gold),
            "with": sum(r.with_share is not None for r in results),
            "without": sum(r.without_share is not None for r in results),
        },
    }


def summarize_by(
    results: Sequence[PageResult],
    key: str = "page_type",
    bootstrap: int = 1000,
    seed: int = 0,
) -> dict[str, JsonObject]:
    """Summary per value of `key` (None grouped as "(none)"), plus "all"."""
    groups: dict[str, list[PageResult]] = {}
    for result in results:
        value = getattr(result, key)
        groups.setdefault("(none)" if value is None else str(value), []).append(result)
    summaries = {name: summarize(group, bootstrap, seed) for name, group in sorted(groups.items())}
    summaries["all"] = summarize(results, bootstrap, seed)
    return summaries


def _cell(value: object) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)


def format_table(rows: dict[str, JsonObject], columns: Sequence[str], name: str = "") -> str:
    """Plain aligned text table: one line per row, first column the row name.

    Floats are shown with 3 decimals, None as "-", anything else with str();
    pre-format a value as a string to show it otherwise.
    """
    header = [name, *columns]
    body = [[row_name, *(_cell(row.get(col)) for col in columns)] for row_name, row in rows.items()]
    widths = [max(len(line[i]) for line in [header, *body]) for i in range(len(header))]

    def render(line: list[str]) -> str:
        first = line[0].ljust(widths[0])
        rest = (cell.rjust(width) for cell, width in zip(line[1:], widths[1:]))
        return "  ".join([first, *rest]).rstrip()

    rule = "  ".join("-" * w for w in widths)
    return "\n".join([render(header), rule, *(render(line) for line in body)])
