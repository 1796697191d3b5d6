"""Class, id, role and itemprop cues: the words that say what an element holds.

The class and id vocabularies, their caches and `key_bits` are in ``cue_words``; ``unit_cues``
and ``class_cues`` are in ``_cues`` (compiled where the package was built, else run as Python),
which reads them. Both are published here, beside the role and itemprop cues.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import speedups
from .cue_words import TOKEN_SPLIT_RE
from .elements import FLAG

if TYPE_CHECKING:
    from . import _cues
else:
    _cues = speedups.kernels(__name__)  # compiled, or the same source run as Python

ROLE_FLAGS = {
    "main": FLAG["main"],
    "article": FLAG["article"],
    "navigation": FLAG["nav"],
    "complementary": FLAG["aside"],
    "banner": FLAG["header"],
    "contentinfo": FLAG["footer"],
}
# itemprop values that mark the article's body (schema.org).
BODY_PROPS = frozenset(("articlebody", "text", "articletext"))


# A comment class on these names the page ("single-comments" on <body>), not a section.
COMMENT_SAFE_TAGS = frozenset(("body", "html", "article", "main"))

#: Class-name words of boxes that a click opens (split at non-letters, lower case).
OPENS_ON_CLICK_WORDS = frozenset(
    ("accordion", "answer", "collapse", "collapsible", "expandable", "faq", "readmore", "spoiler")
)


def opens_on_click(cls: str) -> bool:
    """Whether a class attribute names a box that a click opens (an accordion, a FAQ answer)."""
    return not OPENS_ON_CLICK_WORDS.isdisjoint(TOKEN_SPLIT_RE.split(cls.lower()))


unit_cues = _cues.unit_cues
class_cues = _cues.class_cues
