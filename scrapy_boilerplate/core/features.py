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

The string statistics run in the compiled _textstats module where it was
built; _text_stats here is its reference twin (same values: the shipped
model was trained on them).
"""

from __future__ import annotations

import re
from collections import Counter

import numpy as np

from . import speedups, ttr
from .elements import FLAG, FLAG_NAMES
from .page import Page
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


DENSE_NAMES = dense_feature_names()
_COLUMN = {name: j for j, name in enumerate(DENSE_NAMES)}
_TAG_COLUMN = {tag: TAG_COLUMNS.index(group) for tag, group in TAG_GROUPS.items()}
_OTHER_TAG = TAG_COLUMNS.index("other")
assert DENSE_NAMES[-len(FLAG_NAMES):] == [f"flag={f}" for f in FLAG_NAMES] and len(FLAG_NAMES) <= 32


def _shift(values: np.ndarray, offset: int, fill: float, out: np.ndarray) -> None:
    """out[i] = values[i + offset], `fill` past the ends."""
    out[:] = fill
    if offset > 0:
        out[:-offset] = values[offset:]
    elif offset < 0:
        out[-offset:] = values[:offset]


def _word_set(text: str | None) -> frozenset:
    if not text:
        return frozenset()
    return frozenset(w.lower() for w in WORD_RE.findall(text))


class NodeArrays:
    """A page's node lists as numpy arrays, converted once per page (each conversion costs
    about as much as a numpy operation on the page)."""

    def __init__(self, page: Page):
        self.parents = np.asarray(page.node_parents)
        self.first = np.asarray(page.node_first)
        self.last = np.asarray(page.node_last)
        self.flags = np.asarray(page.node_flags)
        self.chars = np.asarray(page.node_chars, float)
        self.link_chars = np.asarray(page.node_link_chars, float)


def region_scores(nodes: NodeArrays, chars: np.ndarray, owners: np.ndarray, commas: np.ndarray):
    """Readability-style container scores per node (paragraph scores go to parent and grandparent).

    chars, owners and commas are per block: characters, owner node (-1: none), commas.
    """
    n_nodes = len(nodes.parents)
    if not n_nodes:
        return np.zeros(0)
    parents = nodes.parents
    ok = (chars >= 25) & (owners >= 0)
    contrib = (1 + commas + np.minimum(chars / 100, 3))[ok]
    par = parents[owners[ok]]
    has_par = par >= 0
    par, contrib = par[has_par], contrib[has_par]
    grand = parents[par]
    has_grand = grand >= 0
    # One bincount over parents then grandparents: the same additions in the
    # same order as np.add.at on each in turn, so the same sums.
    score = np.bincount(np.concatenate((par, grand[has_grand])),
                        weights=np.concatenate((contrib, contrib[has_grand] / 2)), minlength=n_nodes)
    nflags = nodes.flags
    weight = 25.0 * (((nflags & (FLAG["positive"] | FLAG["body_prop"])) > 0).astype(float)
                     - ((nflags & (FLAG["negative"] | FLAG["comment"] | FLAG["related"])) > 0))
    ld = nodes.link_chars / np.maximum(nodes.chars, 1)
    return np.where(score > 0, (score + weight) * (1 - ld), 0.0)


def dense_features(page: Page, out: np.ndarray | None = None) -> np.ndarray:
    """The dense feature matrix (n_blocks x len(dense_feature_names())), written into `out`
    when given (a float matrix of that shape, or a view of one)."""
    n = len(page)
    if n == 0:
        return np.zeros((0, len(DENSE_NAMES)))
    texts = page.texts
    chars = np.asarray(page.chars, float)
    words = np.maximum(np.asarray(page.words, float), 1)
    link_chars = np.asarray(page.link_chars, float)
    links = np.asarray(page.links, float)
    owners = np.asarray(page.nodes)
    nodes = NodeArrays(page)
    some_chars = np.maximum(chars, 1)
    ld = link_chars / some_chars
    lwords = np.log1p(words)
    # boilerpipe's text density: words per 80-column line, the last partial line left out
    td = np.where(chars > 80, 80 * words / some_chars, words)

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
    total_chars = chars.sum()
    rel_char = (np.cumsum(chars) - chars) / max(total_chars, 1)
    depth = np.asarray(page.depths, float)
    long_blocks = depth[chars >= 200]
    modal = np.bincount(long_blocks.astype(int)).argmax() if len(long_blocks) else np.median(depth)

    # Containers: the Readability-style top candidate and TextSweeper's region.
    node_score = region_scores(nodes, chars, owners, commas)
    idx = np.arange(n)
    in_top = top_share = anc_score = parent_share = in_region = 0.0
    dist_top = 1.0
    best = node_score.max() if len(node_score) else 0.0
    if best > 0:
        first, last = nodes.first, nodes.last
        top = int(node_score.argmax())
        in_top = ((idx >= first[top]) & (idx < last[top])).astype(float)
        top_share = page.node_chars[top] / max(total_chars, 1)
        dist = np.where(idx < first[top], first[top] - idx, np.where(idx >= last[top], idx - last[top] + 1, 0))
        dist_top = np.minimum(dist / 20.0, 1.0)
        # best score among each block's ancestors, relative to the page's best
        has_owner = owners >= 0
        owner = np.maximum(owners, 0)
        anc = _ancestor_max(nodes.parents, node_score)
        anc_score = np.where(has_owner, anc[owner], 0) / best
        net = nodes.chars - nodes.link_chars
        par = np.where(has_owner, nodes.parents[owner], -1)
        parent_share = np.where(par >= 0, net[np.maximum(par, 0)], 0) / max(total_chars - link_chars.sum(), 1)
        region, _ = ttr.best_region(page)
        if region >= 0:
            in_region = ((idx >= first[region]) & (idx < last[region])).astype(float)

    # One matrix filled column by column (scalars fill a whole column).
    X = np.empty((n, len(DENSE_NAMES))) if out is None else out
    cols = [lwords, np.log1p(chars), td, ld, np.log1p(links), ld > 0.9,
            words / sentences, np.log1p(sentences), np.log1p(commas), punct / some_chars * 10,
            digits / head_len, upper / head_len, stop, cue_start, end_marker, ends_colon, has_date, dup,
            is_title, title_sim, desc_sim, body_overlap, has_body,
            np.log1p(lttr_raw), np.log1p(lttr_s), np.log1p(lttr_d),
            ttr.smooth(lwords, 1.0), ttr.smooth(lwords, 3.0), ttr.smooth(ld, 2.0),
            rel_pos, rel_char, depth, depth - modal, np.log1p(n),
            in_top, top_share, anc_score, in_region, parent_share, dist_top]
    assert len(cols) == _COLUMN[f"{SHALLOW[0]}@{OFFSETS[0]:+d}"]   # X is not zeroed: every column is set
    for j, values in enumerate(cols):
        X[:, j] = values
    shallow = {"lwords": lwords, "ld": ld, "td": td}
    for o in OFFSETS:
        for k in SHALLOW:
            _shift(shallow[k], o, 1.0 if k == "ld" else 0.0, out=X[:, _COLUMN[f"{k}@{o:+d}"]])
    X[:, _COLUMN["q_words_prev"]] = lwords - X[:, _COLUMN["lwords@-1"]]
    X[:, _COLUMN["q_words_next"]] = lwords - X[:, _COLUMN["lwords@+1"]]
    X[:, _COLUMN["q_td_prev"]] = td - X[:, _COLUMN["td@-1"]]
    X[:, _COLUMN["q_ld_prev"]] = ld - X[:, _COLUMN["ld@-1"]]
    tags = X[:, _COLUMN[f"tag={TAG_COLUMNS[0]}"]:_COLUMN[f"tag={TAG_COLUMNS[-1]}"] + 1]
    tags[:] = 0
    tags[idx, [_TAG_COLUMN.get(t, _OTHER_TAG) for t in page.tags]] = 1
    # flag bits: the four little-endian bytes of each block's flags, unpacked low bit first
    flags = np.array(page.flags, dtype="<u4").view(np.uint8).reshape(n, 4)
    X[:, _COLUMN[f"flag={FLAG_NAMES[0]}"]:] = np.unpackbits(flags, axis=1, bitorder="little")[:, :len(FLAG_NAMES)]
    # The tree walker sends NaN left; keep every value finite instead.
    if not np.isfinite(X).all():
        np.nan_to_num(X, copy=False, posinf=1e6, neginf=-1e6)
    return X


def token_features(page: Page, vocabulary: dict, out: np.ndarray | None = None) -> np.ndarray:
    """Binary presence of the model's id/class tokens in each block's ancestor chain
    (written into `out` when given, a float matrix of n_blocks x len(vocabulary))."""
    n = len(page)
    if out is None:
        out = np.zeros((n, len(vocabulary)))
    else:
        out[:] = 0
    if not vocabulary or not n:
        return out
    cache: dict = {}
    rows, cols = [], []
    for i, chain in enumerate(page.tokens):
        hits = cache.get(chain)
        if hits is None:
            hits = cache[chain] = list({vocabulary[t] for t in chain if t in vocabulary})
        if hits:
            rows += [i] * len(hits)
            cols += hits
    out[rows, cols] = 1
    return out


def feature_matrix(page: Page, vocabulary: dict | None = None) -> np.ndarray:
    """Dense features, then the token features of `vocabulary`, in one matrix."""
    if not vocabulary:
        return dense_features(page)
    n_dense = len(DENSE_NAMES)
    X = np.empty((len(page), n_dense + len(vocabulary)))
    if len(page):
        dense_features(page, out=X[:, :n_dense])
        token_features(page, vocabulary, out=X[:, n_dense:])
    return X


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
    """max(score) over each node and its ancestors (parents: index, or -1 for a root).

    Pointer jumping: after step k every node holds the max over its 2**k - 1 nearest
    ancestors, so a tree of depth d takes log2(d) numpy steps, not a Python loop per node.
    """
    parents = np.asarray(parents)
    jump = np.where(parents >= 0, parents, np.arange(len(parents)))   # roots point to themselves
    out = score
    while True:
        out = np.maximum(out, out[jump])
        further = jump[jump]
        if np.array_equal(further, jump):
            return out
        jump = further


def _jaccard(a: frozenset, b: frozenset) -> float:
    if not a or not b:
        return 0.0
    return len(a & b) / len(a | b)


def _cover(a: frozenset, b: frozenset) -> float:
    """Share of the block's words found in b."""
    if not a or not b:
        return 0.0
    return len(a & b) / len(a)
