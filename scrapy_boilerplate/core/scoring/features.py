"""The per-block feature matrix: one numpy matrix per page, one row per block.

Columns, in groups (``DENSE_COLUMNS``: each column's name beside how it is computed):

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

The string statistics are one loop over the block texts, in _features (compiled where the
package was built, else run as Python; same values either way: the shipped model was trained
on them).
"""

from __future__ import annotations

import re
from collections import Counter
from types import SimpleNamespace
from typing import TYPE_CHECKING

import numpy as np

from .. import speedups
from ..document.elements import FLAG, FLAG_NAMES
from ..document.page import Page
from . import ttr
from .stopwords import STOPWORDS

if TYPE_CHECKING:
    from collections.abc import Callable

    from . import _features

TAG_GROUPS = {
    "p": "p",
    "div": "div",
    "section": "div",
    "article": "div",
    "main": "div",
    "li": "li",
    "dd": "li",
    "dt": "li",
    "h1": "h1",
    "h2": "h2",
    "h3": "h3",
    "h4": "h4",
    "h5": "h5",
    "h6": "h5",
    "td": "td",
    "th": "td",
    "pre": "pre",
    "blockquote": "blockquote",
    "figcaption": "figcaption",
    "caption": "figcaption",
    "body": "body",
    "header": "div",
    "footer": "div",
    "aside": "div",
    "nav": "div",
    "address": "p",
    "center": "div",
}
TAG_COLUMNS = ("p", "div", "li", "h1", "h2", "h3", "h4", "h5", "td", "pre", "blockquote", "figcaption", "body", "other")
_TAG_COLUMN = {tag: TAG_COLUMNS.index(group) for tag, group in TAG_GROUPS.items()}
_OTHER_TAG = TAG_COLUMNS.index("other")
#: Blocks that start as a caption, a credit, a byline or a call to action does.
CUE_START_WORDS = (
    "read more", "read also", "more:", "related", "see also", "also read", "advertisement", "advertising",
    "sponsored", "share", "subscribe", "sign up", "follow us", "click here", "continue reading", r"tags?\s*:",
    "photo", "image", "credit", "source:", "©", "copyright", "all rights reserved", "posted", "published",
    "updated", r"by\s", "lire aussi", "à lire", "mehr zum thema", "lesen sie", "auch interessant",
    "lea también", "leia também", "leer más", "leia mais", "anzeige", "werbung", "publicité",
)  # fmt: skip


def by_first_character(alternatives: tuple[str, ...]) -> str:
    """One regex alternation of `alternatives` (each starting with a literal character), grouped
    by that character. The regex engine tries an alternation's branches one by one: a block meets
    one branch per first character instead of one per word (a third of CUE_START_RE's time on the
    labelled sets' 127,292 blocks), and the same strings match."""
    groups: dict[str, list[str]] = {}
    for alternative in alternatives:
        groups.setdefault(alternative[0], []).append(alternative[1:])
    return "|".join(re.escape(first) + "(?:" + "|".join(rests) + ")" for first, rests in groups.items())


CUE_START_RE = re.compile(r"^\W{0,3}(?:" + by_first_character(CUE_START_WORDS) + ")", re.IGNORECASE)
# Blocks that start what follows an article (boilerpipe's terminating blocks).
END_MARKER_WORDS = (
    "comments?", "kommentare?", "commentaires?", "comentarios?", "leave a (?:reply|comment)", "post a comment",
    "related(?: posts| articles| stories)?", "you may also like", "recommended", "more from", "share this", "tags",
    "newsletter", "about the author", "weitere artikel", "à lire aussi",
)  # fmt: skip
END_MARKER_RE = re.compile(r"^\W*(?:\d+\s+)?(?:" + "|".join(END_MARKER_WORDS) + r")\b", re.IGNORECASE)
# A year or a numeric date. (?=\d): both branches start with a digit; checked first, it spares
# the branches at every other position of the text (a fifth of the search's time). A match holds
# four digits or more: the text statistics search no text with fewer.
DATE_RE = re.compile(r"\b(?=\d)(?:(?:19|20)\d\d|\d{1,2}[./-]\d{1,2}[./-]\d{2,4})\b")
WORD_RE = re.compile(r"\w+")

_METACHARACTERS = frozenset("\\.^$*+?{}[]|()")
_QUANTIFIERS = frozenset("?*+{")


def openings(alternatives: tuple[str, ...], digits: bool = False) -> bytes:
    """The pairs of ASCII characters a case-blind match of one of `alternatives` can open with,
    as a 128 x 128 table (byte 128 * a + b is 1 where characters a, b can open one). The compiled
    text statistics call CUE_START_RE and END_MARKER_RE only on texts that open with a pair of
    the table, or not with two ASCII characters the first of which is a word character (then
    the patterns' leading \\W cannot take it): a regex call costs more than the rest of a block's
    statistics, and three blocks in four open otherwise. Built from the words, so the table follows
    the lists; where an alternative's first two characters are not plain characters (one
    optional, a class...), every pair is kept. `digits`: every pair opening with a digit is kept
    (END_MARKER_RE's "3 comments")."""
    ascii_chars = [chr(c) for c in range(128)]

    def plain(alternative: str, k: int) -> bool:  # the k-th character matches itself, once
        return (
            len(alternative) > k
            and alternative[k] not in _METACHARACTERS
            and alternative[k + 1 : k + 2] not in _QUANTIFIERS
        )

    def case_blind(character: str) -> list[int]:
        pattern = re.compile(re.escape(character), re.IGNORECASE)
        return [c for c in range(128) if pattern.fullmatch(ascii_chars[c])]

    table = bytearray(128 * 128)
    every = list(range(128))
    for alternative in alternatives:
        first = case_blind(alternative[0]) if plain(alternative, 0) else every
        second = case_blind(alternative[1]) if plain(alternative, 0) and plain(alternative, 1) else every
        for a in first:
            for b in second:
                table[128 * a + b] = 1
    if digits:
        for a in range(ord("0"), ord("9") + 1):
            table[128 * a : 128 * (a + 1)] = b"\x01" * 128
    return bytes(table)


CUE_OPENINGS = openings(CUE_START_WORDS)
END_MARKER_OPENINGS = openings(END_MARKER_WORDS, digits=True)

if not TYPE_CHECKING:
    _features = speedups.kernels(__name__)  # compiled, or the same source run as Python

#: A model's id/class token features are named so: "tok=" and the token.
TOKEN_PREFIX = "tok="

SHALLOW = ("lwords", "ld", "td")  # the values copied from neighbours
OFFSETS = (-2, -1, 1, 2)


def dense_feature_names() -> list[str]:
    """The dense columns' names, in the matrix's (and the shipped model's) order."""
    return [name for name, _column in DENSE_COLUMNS]


def _shifted(values: np.ndarray, offset: int, fill: float) -> np.ndarray:
    """out[i] = values[i + offset], `fill` past the ends."""
    out = np.full(len(values), fill)
    if offset > 0:
        out[:-offset] = values[offset:]
    elif offset < 0:
        out[-offset:] = values[:offset]
    return out


def _word_set(text: str | None) -> frozenset[str]:
    if not text:
        return frozenset()
    return frozenset(w.lower() for w in WORD_RE.findall(text))


class NodeArrays:
    """A page's node lists as numpy arrays, converted once per page (each conversion costs
    about as much as a numpy operation on the page)."""

    def __init__(self, page: Page) -> None:
        self.parents = page.arrays.node_parents
        self.first = page.arrays.node_first
        self.last = page.arrays.node_last
        self.flags = page.arrays.node_flags
        self.chars = page.arrays.node_chars
        self.link_chars = page.arrays.node_link_chars


def region_scores(nodes: NodeArrays, chars: np.ndarray, owners: np.ndarray, commas: np.ndarray) -> np.ndarray:
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
    score = np.bincount(
        np.concatenate((par, grand[has_grand])),
        weights=np.concatenate((contrib, contrib[has_grand] / 2)),
        minlength=n_nodes,
    )
    nflags = nodes.flags
    weight = 25.0 * (
        ((nflags & (FLAG["positive"] | FLAG["body_prop"])) > 0).astype(float)
        - ((nflags & (FLAG["negative"] | FLAG["comment"] | FLAG["related"])) > 0)
    )
    ld = nodes.link_chars / np.maximum(nodes.chars, 1)
    return np.where(score > 0, (score + weight) * (1 - ld), 0.0)


def _block_values(page: Page) -> SimpleNamespace:
    """The per-block arrays (and per-page scalars) the dense columns are made of."""
    n = len(page)
    texts = page.texts
    chars = page.arrays.chars
    words = np.maximum(page.arrays.words, 1)
    link_chars = page.arrays.link_chars
    links = page.arrays.links
    owners = page.arrays.nodes
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
    (
        sentences,
        commas,
        punct,
        digits,
        upper,
        head_len,
        stop,
        cue_start,
        end_marker,
        ends_colon,
        has_date,
        dup,
        title_sim,
        desc_sim,
        body_overlap,
    ) = stats.T
    head_len = np.maximum(head_len, 1)
    is_title = (title_sim >= 0.6) & (chars < 300)

    tag_counts = page.arrays.tag_counts
    lttr_raw, lttr_s, lttr_d = ttr.block_ttr(chars, tag_counts)
    rel_pos = np.arange(n) / max(n - 1, 1)
    total_chars = chars.sum()
    rel_char = (np.cumsum(chars) - chars) / max(total_chars, 1)
    depth = page.arrays.depths.astype(float)
    long_blocks = depth[chars >= 200]
    modal = np.bincount(long_blocks.astype(int)).argmax() if len(long_blocks) else np.median(depth)

    in_top, top_share, anc_score, parent_share, in_region, dist_top = _containers(
        page, nodes, owners, chars, link_chars, commas
    )

    return SimpleNamespace(
        n=n,
        chars=chars,
        words=words,
        links=links,
        ld=ld,
        lwords=lwords,
        td=td,
        some_chars=some_chars,
        sentences=sentences,
        commas=commas,
        punct=punct,
        digits=digits,
        upper=upper,
        head_len=head_len,
        stop=stop,
        cue_start=cue_start,
        end_marker=end_marker,
        ends_colon=ends_colon,
        has_date=has_date,
        dup=dup,
        is_title=is_title,
        title_sim=title_sim,
        desc_sim=desc_sim,
        body_overlap=body_overlap,
        has_body=has_body,
        lttr_raw=lttr_raw,
        lttr_s=lttr_s,
        lttr_d=lttr_d,
        rel_pos=rel_pos,
        rel_char=rel_char,
        depth=depth,
        modal=modal,
        in_top=in_top,
        top_share=top_share,
        anc_score=anc_score,
        in_region=in_region,
        parent_share=parent_share,
        dist_top=dist_top,
        tag_index=np.array([_TAG_COLUMN.get(t, _OTHER_TAG) for t in page.tags]),
        # the four little-endian bytes of each block's flags, unpacked low bit first
        flag_bits=np.unpackbits(
            page.arrays.flags.astype("<u4").view(np.uint8).reshape(n, 4), axis=1, bitorder="little"
        )[:, : len(FLAG_NAMES)],
    )


def _containers(
    page: Page, nodes: NodeArrays, owners: np.ndarray, chars: np.ndarray, link_chars: np.ndarray, commas: np.ndarray
) -> tuple[float | np.ndarray, float, float | np.ndarray, float | np.ndarray, float | np.ndarray, float | np.ndarray]:
    """The block's place in the page's containers: the Readability-style top candidate and
    TextSweeper's region (in_top, top_share, anc_score, parent_share, in_region, dist_top)."""
    node_score = region_scores(nodes, chars, owners, commas)
    n, total_chars = len(page), chars.sum()
    idx = np.arange(n)
    in_top: float | np.ndarray
    top_share: float
    anc_score: float | np.ndarray
    parent_share: float | np.ndarray
    in_region: float | np.ndarray
    dist_top: float | np.ndarray
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
    return in_top, top_share, anc_score, parent_share, in_region, dist_top


def _shifted_column(key: str, offset: int) -> Callable[[SimpleNamespace], np.ndarray]:
    """The column of `key`'s values of the block `offset` places away (link density 1 past the ends)."""
    return lambda v: _shifted(getattr(v, key), offset, 1.0 if key == "ld" else 0.0)


# The dense columns, in order: (name, its values from _block_values). The names come from
# this table too, so a column cannot move without its name (and the shipped model's
# feature_names, checked at load, say which order it was trained on).
DENSE_COLUMNS: tuple[tuple[str, Callable[[SimpleNamespace], np.ndarray]], ...] = (
    # shallow text
    ("lwords", lambda v: v.lwords),
    ("lchars", lambda v: np.log1p(v.chars)),
    ("td", lambda v: v.td),
    ("ld", lambda v: v.ld),
    ("links", lambda v: np.log1p(v.links)),
    ("link_only", lambda v: v.ld > 0.9),
    ("avg_sent", lambda v: v.words / v.sentences),
    ("sentences", lambda v: np.log1p(v.sentences)),
    ("commas", lambda v: np.log1p(v.commas)),
    ("punct", lambda v: v.punct / v.some_chars * 10),
    ("digits", lambda v: v.digits / v.head_len),
    ("upper", lambda v: v.upper / v.head_len),
    ("stop", lambda v: v.stop),
    ("cue_start", lambda v: v.cue_start),
    ("end_marker", lambda v: v.end_marker),
    ("ends_colon", lambda v: v.ends_colon),
    ("has_date", lambda v: v.has_date),
    ("dup_text", lambda v: v.dup),
    # metadata overlaps
    ("is_title", lambda v: v.is_title),
    ("title_sim", lambda v: v.title_sim),
    ("desc_sim", lambda v: v.desc_sim),
    ("jsonld_overlap", lambda v: v.body_overlap),
    ("has_jsonld_body", lambda v: v.has_body),
    # text-to-tag ratios (CETR) and smoothed context
    ("lttr", lambda v: np.log1p(v.lttr_raw)),
    ("lttr_s", lambda v: np.log1p(v.lttr_s)),
    ("lttr_d", lambda v: np.log1p(v.lttr_d)),
    ("lwords_s1", lambda v: ttr.smooth(v.lwords, 1.0)),
    ("lwords_s3", lambda v: ttr.smooth(v.lwords, 3.0)),
    ("ld_s2", lambda v: ttr.smooth(v.ld, 2.0)),
    # position and depth
    ("rel_pos", lambda v: v.rel_pos),
    ("rel_char", lambda v: v.rel_char),
    ("depth", lambda v: v.depth),
    ("depth_rel", lambda v: v.depth - v.modal),
    ("n_blocks", lambda v: np.log1p(v.n)),
    # regions
    ("in_top", lambda v: v.in_top),
    ("top_share", lambda v: v.top_share),
    ("anc_score", lambda v: v.anc_score),
    ("in_region", lambda v: v.in_region),
    ("parent_share", lambda v: v.parent_share),
    ("dist_top", lambda v: v.dist_top),
    # neighbours
    *((f"{key}@{offset:+d}", _shifted_column(key, offset)) for offset in OFFSETS for key in SHALLOW),
    ("q_words_prev", lambda v: v.lwords - _shifted(v.lwords, -1, 0.0)),
    ("q_words_next", lambda v: v.lwords - _shifted(v.lwords, 1, 0.0)),
    ("q_td_prev", lambda v: v.td - _shifted(v.td, -1, 0.0)),
    ("q_ld_prev", lambda v: v.ld - _shifted(v.ld, -1, 1.0)),
    # structure: tag one-hots, then semantic-ancestor and cue bits
    *((f"tag={tag}", lambda v, j=j: v.tag_index == j) for j, tag in enumerate(TAG_COLUMNS)),
    *((f"flag={flag}", lambda v, j=j: v.flag_bits[:, j]) for j, flag in enumerate(FLAG_NAMES)),
)
DENSE_NAMES = dense_feature_names()
assert len(set(DENSE_NAMES)) == len(DENSE_NAMES) and len(FLAG_NAMES) <= 32  # flags: four bytes


def dense_columns(feature_names: list[str]) -> tuple[int, ...] | None:
    """The dense columns a model's feature names start with (its id/class tokens, "tok=...",
    follow them), as indices into DENSE_COLUMNS; None when they are all of them, in order.

    Columns are only ever appended: a model trained before a column was added names fewer
    columns, and gets the ones it names. ValueError when it names a column this version
    does not compute."""
    dense = [name for name in feature_names if not name.startswith(TOKEN_PREFIX)]
    if feature_names[: len(dense)] != dense:
        raise ValueError("the model's dense features do not all come before its tokens")
    if dense == DENSE_NAMES:
        return None
    index = {name: j for j, name in enumerate(DENSE_NAMES)}
    unknown = [name for name in dense if name not in index]
    if unknown:
        raise ValueError(f"unknown features: {', '.join(unknown[:5])}")
    return tuple(index[name] for name in dense)


def dense_features(page: Page, out: np.ndarray | None = None, columns: tuple[int, ...] | None = None) -> np.ndarray:
    """The dense feature matrix (n_blocks x len(DENSE_COLUMNS), or the `columns` chosen, in
    their order), written into `out` when given (a float matrix of that shape, or a view of one)."""
    chosen = list(enumerate(DENSE_COLUMNS)) if columns is None else [(j, DENSE_COLUMNS[j]) for j in columns]
    if len(page) == 0:
        return np.zeros((0, len(chosen)))
    values = _block_values(page)
    X = np.empty((values.n, len(chosen))) if out is None else out
    for k, (_j, (_name, column)) in enumerate(chosen):
        X[:, k] = column(values)  # (a scalar fills the whole column)
    # The tree walker sends NaN left; keep every value finite instead.
    if not np.isfinite(X).all():
        np.nan_to_num(X, copy=False, posinf=1e6, neginf=-1e6)
    return X


def token_features(page: Page, vocabulary: dict[str, int], out: np.ndarray | None = None) -> np.ndarray:
    """Binary presence of the model's id/class tokens in each block's ancestor chain
    (written into `out` when given, a float matrix of n_blocks x len(vocabulary))."""
    if out is None:
        out = np.empty((len(page), len(vocabulary)))
    _features._token_rows(page.tokens, vocabulary, out)
    return out


def feature_matrix(
    page: Page, vocabulary: dict[str, int] | None = None, columns: tuple[int, ...] | None = None
) -> np.ndarray:
    """Dense features (all, or the `columns` of dense_columns), then the token features of
    `vocabulary`, in one matrix."""
    if not vocabulary:
        return dense_features(page, columns=columns)
    n_dense = len(DENSE_NAMES) if columns is None else len(columns)
    X = np.empty((len(page), n_dense + len(vocabulary)))
    if len(page):
        dense_features(page, out=X[:, :n_dense], columns=columns)
        token_features(page, vocabulary, out=X[:, n_dense:])
    return X


def text_stats(
    texts: list[str], title_words: frozenset[str], desc_words: frozenset[str], body_words: frozenset[str]
) -> np.ndarray:
    """The string statistics of every block (n_blocks x 15, columns in the order _block_values
    unpacks them)."""
    return _features._text_stats(
        texts,
        Counter(texts),
        title_words,
        desc_words,
        body_words,
        STOPWORDS,
        CUE_START_RE,
        CUE_OPENINGS,
        END_MARKER_RE,
        END_MARKER_OPENINGS,
        DATE_RE,
    )


def _ancestor_max(parents: np.ndarray, score: np.ndarray) -> np.ndarray:
    """max(score) over each node and its ancestors (parents: index, or -1 for a root).

    Pointer jumping: after step k every node holds the max over its 2**k - 1 nearest
    ancestors, so a tree of depth d takes log2(d) numpy steps, not a Python loop per node.
    """
    parents = np.asarray(parents)
    jump = np.where(parents >= 0, parents, np.arange(len(parents)))  # roots point to themselves
    out: np.ndarray = score
    while True:
        out = np.maximum(out, out[jump])
        further = jump[jump]
        if np.array_equal(further, jump):
            return out
        jump = further
