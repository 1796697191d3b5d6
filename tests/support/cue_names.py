"""Class and id names the cue tests share (tests/unit/test_cues.py, tests/twins/test_compiled_walk.py)."""

from __future__ import annotations

from scrapy_boilerplate.core.document import cue_words

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
