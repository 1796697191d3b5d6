"""BOILERPLATE_SITE_RULES in a crawl: the stats of what the rules did, and one WARNING per
site whose rule stops matching (a changed template), not one per page. A rule skipped on a page
for its cost (css_match.py) is logged by the extractor, once for that page; one skipped because
its selectors failed there, once for the rule.

The rules themselves are applied by the Extractor (core/selection/site_rules.py), wherever
it runs: its options carry them to threads and worker processes alike.
"""

from __future__ import annotations

import logging
import weakref
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

    from ..core.extraction import Extraction

logger = logging.getLogger(__name__)

STAT_PREFIX = "boilerplate/site_rules/"


class SiteRuleStats:
    """Counts each extracted page a rule served: `applied`, `no_match`, `over_budget` (its
    selectors tested more elements than css_match.MAX_WORK there: skipped on that page), or
    `error` (its selectors failed there: skipped on that page)."""

    def __init__(self, crawler: Crawler) -> None:
        # Weakly: the crawl's PageExtractions holds this, and lives in a WeakCache keyed by the crawler.
        self._crawler = weakref.ref(crawler)
        self._warned: set[Any] = set()

    def account(self, extraction: Extraction, url: str | None) -> None:
        info = extraction.site_rule
        if info is None:
            return
        crawler = self._crawler()
        if crawler is None:
            return
        stats = crawler.stats
        if info.get("over_budget") or info.get("error"):
            # Skipped on this page (its WARNING is the extractor's).
            if stats is not None:
                stats.inc_value(STAT_PREFIX + ("error" if info.get("error") else "over_budget"))
            return
        if info["matched"]:
            if stats is not None:
                stats.inc_value(STAT_PREFIX + "applied")
            return
        if stats is not None:
            stats.inc_value(STAT_PREFIX + "no_match")
        site = info.get("site")
        if site in self._warned:
            return
        self._warned.add(site)
        content = info.get("content")
        selectors = [content["selector"]] if content else [e["selector"] for e in info.get("exclude", ())]
        logger.warning(
            "Site rule for %(site)s: %(selectors)s matched nothing on %(url)s; such pages "
            "are extracted without the rule (has the site's template changed? %(stat)s "
            "counts them; this is logged once per site)",
            {
                "site": site,
                "selectors": ", ".join(repr(s) for s in selectors),
                "url": url or "a page",
                "stat": STAT_PREFIX + "no_match",
            },
            extra={"spider": crawler.spider},
        )
