"""Every stage that reads web input does work linear in its input: counted, not timed.

docs/design.md "Cost bounds" states each stage's bound (work_bounds.py reads its table); these
tests hold the stages to it on inputs made to be slow (pathological.py, hostile_bytes.py), each
at two sizes four times apart. The work is the instructions callgrind counts in the
stage's call alone (work_counts.py, count_work.py), so a loaded machine gives the same figures
as an idle one. Two rules, at every size:

- growth: 4x the input costs at most 5x the work (a stage gone quadratic costs 16x);
- bound: at most ``fixed + per_byte x bytes`` instructions (per stage): a stage may be linear
  and still spend a page's worth of work on every byte (a page of pager links whose numbers it
  counts up to, a window of markup it scans again from every ``<``).

The counts come from two runner processes under callgrind, started once for all the cases a
session selects (the ``counted`` fixture); each test reads its case's counts. Without
valgrind, gcc or valgrind's callgrind.h the tests are skipped, saying which is missing
(.ci/run installs Debian's valgrind, which brings callgrind.h). They take a few minutes
(marked ``slow`` as well as ``scaling``).
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest
import stage_calls
from work_bounds import BOUNDS, GROWTH
from work_properties import PROPERTIES

#: Two sizes four times apart: the heavier stages (a few thousand instructions a byte) on pages
#: up to 64 KB, the lighter ones up to 128 KB, so that the whole suite takes a few minutes; not
#: smaller, where a page's fixed part (its head, an article) would weigh more at the first size
#: than at the second. Pages nested deep up to 32 KB: at 64 KB they go past the 2,048 levels of
#: Scrapy's tree, where libxml2 stops the parse (the larger size would be the same page).
SMALL = (16384, 65536)
MID = (32768, 131072)
DEEP = (8192, 32768)

#: The URL each kind of input is served at ({salt}: the input's own); a page's is a listing's
#: numbered page, where overview detection also reads the page's own pager.
PAGE_URL = "https://example.org/{salt}/page/2/"
URLS = {
    "feed": "https://example.org/{salt}/feed.xml",
    "sitemap": "https://example.org/{salt}/sitemap.xml",
    "robots": "https://example.org/robots.txt",
}


@dataclass(frozen=True)
class Case:
    stage: str  # stage_calls.STAGES
    input: str  # a maker of pathological.py
    sizes: tuple[int, ...]

    @property
    def key(self) -> str:
        return f"{self.stage}/{self.input}"

    def expected_work(self) -> float:
        bound = BOUNDS[self.stage]
        return sum(bound.limit(size) for size in self.sizes)

    def request(self) -> dict:
        bound = BOUNDS[self.stage]
        return {
            "key": self.key,
            "stage": self.stage,
            "input": self.input,
            "sizes": list(self.sizes),
            "url": URLS.get(self.stage, PAGE_URL),
            "growth": GROWTH,
            "fixed": bound.fixed,
            "per_byte": bound.per_byte,
        }


def _cases(stage: str, sizes: tuple[int, ...], inputs: str) -> list[Case]:
    return [Case(stage, name, sizes) for name in inputs.split()]


CASES = [
    # Bytes that are not UTF-8 and declare no charset (their encoding is guessed), and the bytes
    # path's hostile inputs (hostile_bytes.py).
    *_cases(
        "parse",
        MID,
        "lt_undeclared tags_undeclared lt_without_end scripts_without_end styles_and_comments_without_end "
        "non_ascii_words one_byte_run meta_without_end stray_bytes_in_utf8 control_characters run_of_entities",
    ),
    *_cases("charset_middleware", MID, "tags_undeclared lt_without_end"),
    *_cases(
        "walk", MID, "long_class class_lists long_attributes meta_tags jsonld_big jsonld_many hidden_boxes wide_table"
    ),
    *_cases("walk", SMALL, "long_class_word"),
    *_cases("walk_scrapy", DEEP, "deep_divs deep_inline_links deep_lists"),
    *_cases("walk_scrapy", MID, "run_of_spaces"),
    *_cases("features", SMALL, "headings line_breaks number_text"),
    *_cases("extraction", SMALL, "table_cells code_blocks near_identical_cards"),
    *_cases("overview", SMALL, "pager_groups pager_numbers many_links"),
    *_cases("overview", DEEP, "deep_inline_links nested_links"),
    *_cases("link_roles", SMALL, "pager_groups many_links long_href"),
    *_cases("link_roles", DEEP, "deep_inline_links nested_links"),
    *_cases("metadata", SMALL, "bylines"),
    *_cases("render", SMALL, "table_cells code_blocks many_links"),
    *_cases("render", DEEP, "deep_lists"),
    *_cases("css_selectors", SMALL, "near_identical_paragraphs many_links"),
    *_cases("css_selectors", DEEP, "deep_divs deep_lists"),
    *_cases("feed_links", MID, "feed_announcements"),
    # A request per entry costs Scrapy some thousands of instructions: smaller sizes.
    *_cases("feed", SMALL, "rss_items atom_entries feed_junk"),
    *_cases("sitemap", SMALL, "sitemap_urls sitemap_index sitemap_relative"),
    *_cases("robots", SMALL, "robots_sitemaps robots_rules robots_long_line"),
]


def test_every_stage_has_its_bound_in_the_design():
    # The stages (stage_calls.py) and the design's table of bounds name the same stages, and
    # every stage has its cases here or a property (test_work_properties.py).
    assert set(BOUNDS) == set(stage_calls.STAGES)
    assert {case.stage for case in CASES} | {prop.stage for prop in PROPERTIES.values()} == set(BOUNDS)


@pytest.mark.scaling
@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=lambda case: case.key)
def test_work_is_linear(case: Case, counted: dict) -> None:
    result = counted.get(case.key)
    assert result is not None, f"{case.key}: not counted (the runners' time ran out on earlier cases)"
    bound = BOUNDS[case.stage]
    rows = []
    problems = []
    previous = None
    for length, n in zip(result["bytes"], result["instructions"]):
        if n is None:
            rows.append(f"{length:>9,} bytes: not counted (over its bound at a smaller size)")
            continue
        rows.append(f"{length:>9,} bytes: {n:>15,} instructions ({n / length:,.0f} a byte)")
        if n > bound.limit(length):
            problems.append(f"{n:,} instructions for {length:,} bytes: over {bound.limit(length):,.0f}")
        if previous is not None and n > GROWTH * previous[1] * length / (4 * previous[0]):
            problems.append(
                f"{length / previous[0]:.1f}x the input cost {n / previous[1]:.1f}x the work "
                f"({previous[0]:,} -> {length:,} bytes; at most {GROWTH:g}x for 4x)"
            )
        previous = (length, n)
    assert not problems, f"{case.key}: " + "; ".join(problems) + "\n" + "\n".join(rows)
