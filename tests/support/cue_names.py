"""What the cue tests share (tests/unit/test_cues.py, test_caches.py, tests/twins/test_compiled_walk.py):
class and id names, and emptying the cue caches."""

from __future__ import annotations

from scrapy_boilerplate.core.document import cue_words


def clear_cue_caches() -> None:
    """Empty the three cue caches kept across pages (per (id, class) pair, per name, per key)."""
    for cache in (cue_words.CUE_CACHE, cue_words.UNIT_CACHE, cue_words.KEY_CACHE):
        cache.clear()


#: Names of comment sections, as themes write them.
COMMENT_NAMES = sorted(cue_words.COMMENT_SECTION_NAMES) + [
    "comment",
    "comments",
    "comment-list",
    "comment-respond",
    *(
        f"{stem}{sep}{part}"
        for stem in ("comment", "comments")
        for sep in "-_"
        for part in ("area", "section", "wrapper", "container", "list", "block", "thread", "form")
    ),
]
