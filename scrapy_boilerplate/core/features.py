"""The per-block feature matrix: one numpy matrix per page, one row per block.

Columns, in groups (names in ``dense_feature_names()``):

* shallow text (Kohlschütter; Yao & Zuo): words, characters, text density at
  80-character lines, link density, average sentence length, punctuation,
  digits, upper case, stopword density, cue phrases;
* context: the shallow values of the blocks at -2..+2, quotients to the
  previous and next block, Gaussian-smoothed words and link density, CETR's
  smoothed text-to-tag ratio and its derivative;
* position: relative block index and character offset;
* structure: tag one-hots, depth against the page's modal content depth,
  semantic-ancestor and id/class cue bits from the walk;
* region: Readability-style container score of the block's ancestors,
  "inside the best container", TextSweeper's best region, the parent's share
  of the page's net text;
* metadata overlaps: title, og:description, JSON-LD articleBody;
* id/class tokens: binary presence of the tokens chosen at training time by
  Naive-Bayes log-odds (Yao & Zuo), held by the model.
"""

from __future__ import annotations

import re
from collections import Counter

import numpy as np

from . import speedups, ttr
from .page import FLAG, FLAG_NAMES, Page
from .stopwords import STOPWORDS
from .textstats import count_sentences

TAG_GROUPS = {
    "p": "p", "div": "div", "section": "div", "article": "div", "main": "div",
    "li": "li", "dd": "li", "dt": "li", "h1": "h1", "h2": "h2", "h3": "h3", "h4": "h4",
    "h5": "h5", "h6": "h5", "td": "td", "th": "td", "pre": "pre", "blockquote": "blockquote",
    "figcaption": "figcaption", "caption": "figcaption", "body": "body", "header": "div",
    "footer": "div", "aside": "div", "nav": "div", "address": "p", "center": "div",
}
TAG_COLUMNS = ("p", "div", "li", "h1", "h2", "h3", "h4", "h5", "td", "pre", "blockquote",
               "figcaption", "body", "other")
CUE_START_RE = re.compile(
    r"^\W{0,3}(?:read more|read also|more:|related|see also|also read|advertisement|advertising|"
    r"sponsored|share|subscribe|sign up|follow us|click here|continue reading|tags?\s*:|"
    r"photo|image|credit|source:|©|copyright|all rights reserved|posted|published|updated|by\s|"
    r"lire aussi|à lire|mehr zum thema|lesen sie|auch interessant|lea también|leia também|"
    r"leer más|leia mais|anzeige|werbung|publicité)",
    re.IGNORECASE,
)
# Blocks that start what follows an article (boilerpipe's terminating blocks).
END_MARKER_RE = re.compile(
    r"^\W*(?:\d+\s+)?(?:comments?|kommentare?|commentaires?|comentarios?|leave a (?:reply|comment)|"
    r"post a comment|related(?: posts| articles| stories)?|you may also like|recommended|more from|"
    r"share this|tags|newsletter|about the author|weitere artikel|à lire aussi)\b",
    re.IGNORECASE,
)
DATE_RE = re.compile(r"\b(?:19|20)\d\d\b|\b\d{1,2}[./-]\d{1,2}[./-]\d{2,4}\b")
WORD_RE = re.compile(r"\w+")
DIGIT_RE = re.compile(r"\d")
UPPER_RE = re.compile(r"[A-ZÀ-ÖØ-ÞА-Я]")

_compiled = speedups.load("_textstats")

SHALLOW = ("lwords", "ld", "td")          # the values copied from neighbours
OFFSETS = (-2, -1, 1, 2)


def dense_feature_names() -> list[str]:
    names = ["lwords", "lchars", "td", "ld", "links", "link_only", "avg_sent", "sentences",
             "commas", "punct", "digits", "upper", "stop", "cue_start", "end_marker", "ends_colon",
             "has_date", "dup_text", "is_title", "title_sim", "desc_sim", "jsonld_overlap",
             "has_jsonld_body", "lttr", "lttr_s", "lttr_d", "lwords_s1", "lwords_s3", "ld_s2",
             "rel_pos", "rel_char", "depth", "depth_rel", "n_blocks", "in_top", "top_share",
             "anc_score", "in_region", "parent_share", "dist_top"]
    names += [f"{k}@{o:+d}" for o in OFFSETS for k in SHALLOW]
    names += ["q_words_prev", "q_words_next", "q_td_prev", "q_ld_prev"]
    names += [f"tag={t}" for t in TAG_COLUMNS]
    names += [f"flag={f}" for f in FLAG_NAMES]
    return names


def _shift(values: np.ndarray, offset: int, fill: float) -> np.ndarray:
    out = np.full_like(values, fill)
    if offset > 0:
        out[:-offset] = values[offset:]
    elif offset < 0:
        out[-offset:] = values[:offset]
    return out


def _word_set(text: str | None) -> frozenset:
    if not text:
        return frozenset()
    return frozenset(w.lower() for w in WORD_RE.findall(text))


def region_scores(page: Page, commas: np.ndarray):
    """Readability-style container scores per node (paragraph scores go to parent and grandparent)."""
    n_nodes = len(page.node_tags)
    score = np.zeros(n_nodes)
    if not n_nodes:
        return score
    chars = np.asarray(page.chars, float)
    owners = np.asarray(page.nodes)
    parents = np.asarray(page.node_parents)
    ok = (chars >= 25) & (owners >= 0)
    contrib = (1 + commas + np.minimum(chars / 100, 3))[ok]
    own = owners[ok]
    par = parents[own]
    has_par = par >= 0
    np.add.at(score, par[has_par], contrib[has_par])
    grand = parents[par[has_par]]
    has_grand = grand >= 0
    np.add.at(score, grand[has_grand], contrib[has_par][has_grand] / 2)
    nflags = np.asarray(page.node_flags)
    weight = 25.0 * (((nflags & (FLAG["positive"] | FLAG["body_prop"])) > 0).astype(float)
                     - ((nflags & (FLAG["negative"] | FLAG["comment"] | FLAG["related"])) > 0))
    nchars = np.maximum(np.asarray(page.node_chars, float), 1)
    ld = np.asarray(page.node_link_chars, float) / nchars
    return np.where(score > 0, (score + weight) * (1 - ld), 0.0)


def dense_features(page: Page) -> np.ndarray:
    """The dense feature matrix (n_blocks x len(dense_feature_names()))."""
    n = len(page)
    names = dense_feature_names()
    if n == 0:
        return np.zeros((0, len(names)))
    texts = page.texts
    chars = np.asarray(page.chars, float)
    words = np.maximum(np.asarray(page.words, float), 1)
    link_chars = np.asarray(page.link_chars, float)
    links = np.asarray(page.links, float)
    ld = link_chars / np.maximum(chars, 1)
    lwords = np.log1p(words)
    # boilerpipe's text density: words per 80-column line, the last partial line left out
    td = np.where(chars > 80, 80 * words / np.maximum(chars, 1), words)

    title_words = _word_set(page.main_title)
    desc_words = _word_set(page.og.get("description"))
    body_words = _word_set(page.jsonld.get("articleBody"))
    has_body = float(len(body_words) > 20)
    stats = text_stats(texts, title_words, desc_words, body_words)
    (sentences, commas, punct, digits, upper, head_len, stop, cue_start, end_marker, ends_colon,
     has_date, dup, title_sim, desc_sim, body_overlap) = stats.T
    head_len = np.maximum(head_len, 1)
    is_title = (title_sim >= 0.6) & (chars < 300)

    tag_counts = np.asarray(page.tag_counts, float)
    lttr_raw, lttr_s, lttr_d = ttr.block_ttr(chars, tag_counts)
    rel_pos = np.arange(n) / max(n - 1, 1)
    rel_char = (np.cumsum(chars) - chars) / max(chars.sum(), 1)
    depth = np.asarray(page.depths, float)
    long_blocks = depth[chars >= 200]
    modal = np.bincount(long_blocks.astype(int)).argmax() if len(long_blocks) else np.median(depth)

    # Containers: the Readability-style top candidate and TextSweeper's region.
    node_score = region_scores(page, commas)
    idx = np.arange(n)
    owners = np.asarray(page.nodes)
    in_top = np.zeros(n)
    top_share = 0.0
    dist_top = np.full(n, 1.0)
    anc_score = np.zeros(n)
    parent_share = np.zeros(n)
    in_region = np.zeros(n)
    if len(node_score) and node_score.max() > 0:
        first = np.asarray(page.node_first)
        last = np.asarray(page.node_last)
        top = int(node_score.argmax())
        in_top = ((idx >= first[top]) & (idx < last[top])).astype(float)
        total = max(chars.sum(), 1)
        top_share = page.node_chars[top] / total
        dist = np.where(idx < first[top], first[top] - idx, np.where(idx >= last[top], idx - last[top] + 1, 0))
        dist_top = np.minimum(dist / 20.0, 1.0)
        # best score among each block's ancestors, relative to the page's best
        anc = _ancestor_max(page.node_parents, node_score)
        anc_score = np.where(owners >= 0, anc[np.maximum(owners, 0)], 0) / node_score.max()
        net = np.asarray(page.node_chars, float) - np.asarray(page.node_link_chars, float)
        parents = np.asarray(page.node_parents)
        par = np.where(owners >= 0, parents[np.maximum(owners, 0)], -1)
        parent_share = np.where(par >= 0, net[np.maximum(par, 0)], 0) / max(chars.sum() - link_chars.sum(), 1)
        region, _ = ttr.best_region(page)
        if region >= 0:
            in_region = ((idx >= first[region]) & (idx < last[region])).astype(float)

    cols = [lwords, np.log1p(chars), td, ld, np.log1p(links), (ld > 0.9).astype(float),
            words / sentences, np.log1p(sentences), np.log1p(commas), punct / np.maximum(chars, 1) * 10,
            digits / head_len, upper / head_len, stop, cue_start, end_marker, ends_colon, has_date, dup,
            is_title.astype(float), title_sim, desc_sim, body_overlap, np.full(n, has_body),
            np.log1p(lttr_raw), np.log1p(lttr_s), np.log1p(lttr_d),
            ttr.smooth(lwords, 1.0), ttr.smooth(lwords, 3.0), ttr.smooth(ld, 2.0),
            rel_pos, rel_char, depth, depth - modal, np.full(n, np.log1p(n)),
            in_top, np.full(n, top_share), anc_score, in_region, parent_share, dist_top]
    shallow = {"lwords": lwords, "ld": ld, "td": td}
    for o in OFFSETS:
        for k in SHALLOW:
            cols.append(_shift(shallow[k], o, 0.0 if k != "ld" else 1.0))
    prev_w = _shift(lwords, -1, 0.0)
    next_w = _shift(lwords, 1, 0.0)
    cols += [lwords - prev_w, lwords - next_w, td - _shift(td, -1, 0.0), ld - _shift(ld, -1, 1.0)]
    tag_index = {t: i for i, t in enumerate(TAG_COLUMNS)}
    tag_ids = np.fromiter((tag_index[TAG_GROUPS.get(t, "other")] for t in page.tags), int, n)
    onehot = np.zeros((n, len(TAG_COLUMNS)))
    onehot[idx, tag_ids] = 1
    flags = np.asarray(page.flags, dtype=np.int64)
    bits = ((flags[:, None] >> np.arange(len(FLAG_NAMES))) & 1).astype(float)
    matrix = np.column_stack(cols + [onehot, bits])
    assert matrix.shape[1] == len(names)
    # The tree walker sends NaN left; keep every value finite instead.
    return np.nan_to_num(matrix, copy=False, posinf=1e6, neginf=-1e6)


def token_features(page: Page, vocabulary: dict) -> np.ndarray:
    """Binary presence of the model's id/class tokens in each block's ancestor chain."""
    n = len(page)
    out = np.zeros((n, len(vocabulary)))
    if not vocabulary or not n:
        return out
    cache: dict = {}
    rows, cols = [], []
    for i, chain in enumerate(page.tokens):
        hits = cache.get(chain)
        if hits is None:
            hits = cache[chain] = list({vocabulary[t] for t in chain if t in vocabulary})
        for j in hits:
            rows.append(i)
            cols.append(j)
    out[rows, cols] = 1
    return out


def feature_matrix(page: Page, vocabulary: dict | None = None) -> np.ndarray:
    dense = dense_features(page)
    if not vocabulary:
        return dense
    return np.hstack([dense, token_features(page, vocabulary)])


def text_stats(texts: list, title_words: frozenset, desc_words: frozenset,
               body_words: frozenset) -> np.ndarray:
    """The string statistics of every block (n_blocks x 15, columns as in _text_stats)."""
    counts = Counter(texts)
    if _compiled is not None:
        return _compiled.text_stats(texts, counts, title_words, desc_words, body_words, STOPWORDS,
                                    CUE_START_RE, END_MARKER_RE, DATE_RE)
    # One pass over the block texts for every string statistic (one Python
    # loop instead of a dozen): sets of lower-cased words give the stopword
    # share and the metadata overlaps as C-level set operations.
    return np.array([_text_stats(t, counts, title_words, desc_words, body_words) for t in texts], float)


def _text_stats(t: str, counts: Counter, title_words, desc_words, body_words) -> tuple:
    """The string statistics of one block, in the order dense_features unpacks them.

    The reference for the compiled _textstats.text_stats, which must give the same numbers.
    """
    head = t[:200]
    n_digits = len(DIGIT_RE.findall(head))
    words = frozenset(WORD_RE.findall(t.lower()))
    n_words = len(words)
    short = len(t)
    return (
        count_sentences(t),
        t.count(",") + t.count("،") + t.count("、"),
        t.count(".") + t.count("|") + t.count("»") + t.count("·"),
        n_digits,
        len(UPPER_RE.findall(head)),
        len(head),
        len(words & STOPWORDS) / n_words if n_words else 0.0,
        CUE_START_RE.match(t) is not None,
        short < 60 and END_MARKER_RE.match(t) is not None,
        t.endswith(":"),
        n_digits > 0 and short < 120 and DATE_RE.search(t) is not None,
        counts[t] > 1,
        _jaccard(words, title_words),
        _cover(words, desc_words),
        _cover(words, body_words),
    )


def _ancestor_max(parents, score: np.ndarray) -> np.ndarray:
    """max(score) over each node and its ancestors; nodes are in pre-order, parents first."""
    out = score.copy()
    for i, p in enumerate(parents):
        if p >= 0 and out[p] > out[i]:
            out[i] = out[p]
    return out


def _jaccard(a: frozenset, b: frozenset) -> float:
    if not a or not b:
        return 0.0
    return len(a & b) / len(a | b)


def _cover(a: frozenset, b: frozenset) -> float:
    """Share of the block's words found in b."""
    if not a or not b:
        return 0.0
    return len(a & b) / len(a)
