"""Each labelled set's gold convention: how its pages are scored, and which labels teach.

`wcxb-dev` and `trafilatura-eval` follow the project's rule (docs/training.md: the body, not
the headline, bylines, dates or captions); `readability`'s gold is Readability.js's own
output, a convention too. `dragnet`, `cleaneval` and `googletrends-2017` keep wider text
(../shared/datasets/README.md): the headline, the date and byline lines, captions. So:

- scoring: a wide set is scored on the output with `include_title` and `include_captions`,
  what its gold keeps (its bylines and dates stay a cost of precision: no option adds them);
- training: a wide gold's *negatives* are reliable (what even a wide gold leaves out is
  boilerplate), its *positives* are not (its headline, captions, datelines and stray lines
  would be taught as content: the very errors to remove). Only long body paragraphs stay
  positives; the other positives are masked (label -1, not trained on).

Code listings are a convention of their own: some golds keep a page's listings, others leave
them out (wcxb-dev does both, page by page). A listing the gold leaves out inside its
content is that choice, not boilerplate: a recipe with `mask_code` masks it too
(`unlabelled_code`), so that the model learns listings from the golds that keep them. A gutter of
line numbers stays a negative.
"""

from __future__ import annotations

import re

import numpy as np

from ..core.document.elements import FLAG, HEADING_TAGS
from ..core.options import OptionArgs

NARROW = ("wcxb-dev", "trafilatura-eval")
WIDE = ("dragnet", "cleaneval", "googletrends-2017")
#: Every labelled set of ../shared/datasets, in report order.
LABELLED = ("wcxb-dev", "trafilatura-eval", "readability", "dragnet", "cleaneval", "googletrends-2017")
#: Options a set is scored with (its gold's convention).
WIDE_OPTIONS: OptionArgs = {"include_title": True, "include_captions": True}
#: A wide gold's positive is kept as one when it is a body paragraph: this many words or more,
#: at most this share of its characters in links, not a heading, caption or list item.
BODY_MIN_WORDS = 25
BODY_MAX_LINK_SHARE = 0.2
_NOT_BODY = FLAG["caption"] | FLAG["nav"] | FLAG["footer"] | FLAG["comment"]
_GUTTER = re.compile(r"[\d\s]*")
_NOT_BODY_TAGS = frozenset((*HEADING_TAGS, "li", "dt", "dd", "figcaption", "caption", "td", "th"))


def scoring_options(dataset: str) -> OptionArgs:
    """The extraction options a page of `dataset` is scored with."""
    return WIDE_OPTIONS.copy() if dataset in WIDE else OptionArgs()


def training_labels(
    dataset: str,
    labels: np.ndarray,
    tags: list[str],
    words: np.ndarray,
    chars: np.ndarray,
    link_chars: np.ndarray,
    flags: np.ndarray,
) -> np.ndarray:
    """The labels a page of `dataset` teaches: a wide gold's positives masked (-1) unless they
    are long body paragraphs; a narrow gold's as they are."""
    if dataset not in WIDE or not len(labels):
        return labels
    body = (
        (np.asarray(words) >= BODY_MIN_WORDS)
        & (np.asarray(link_chars) <= BODY_MAX_LINK_SHARE * np.asarray(chars))
        & ((np.asarray(flags) & _NOT_BODY) == 0)
        & np.array([t not in _NOT_BODY_TAGS for t in tags], bool)
    )
    out: np.ndarray = labels.copy()
    out[(labels == 1) & ~body] = -1
    return out


def unlabelled_code(labels: np.ndarray, flags: np.ndarray, texts: list[str]) -> np.ndarray:
    """The labels with the code the gold leaves out inside its content masked (-1): the negatives
    inside a <pre> between the page's first and last positive, but for line numbers."""
    positives = np.flatnonzero(labels == 1)
    if len(positives) < 2:
        return labels
    out: np.ndarray = labels.copy()
    pre = FLAG["pre"]
    for i in range(int(positives[0]) + 1, int(positives[-1])):
        if labels[i] == 0 and int(flags[i]) & pre and not _GUTTER.fullmatch(texts[i]):
            out[i] = -1
    return out
