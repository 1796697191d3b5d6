"""LinkRolesMiddleware: requests ordered (or dropped) by the role of the link they were made from.

With BOILERPLATE_LINKS = "prioritize" or "focus", each request a callback yields from an HTML
response is matched, by its URL, to the links of that response (core/links/roles.py: the walk
OverviewMiddleware already made, its verdict); its priority gets the offset of the link's role,
the role goes into ``request.meta["boilerplate_link_role"]``, and with "focus" requests whose
link is boilerplate or related are dropped. Requests whose URL is not a link of the page (made
by the spider) pass unchanged. See docs/links.md.
"""

from __future__ import annotations

import hashlib
import logging
import time
import weakref
from typing import TYPE_CHECKING

from scrapy.exceptions import NotConfigured
from scrapy.http import HtmlResponse
from scrapy.spidermiddlewares.base import BaseSpiderMiddleware

from . import settings as bp
from .core.links.roles import BOILERPLATE, CONTENT, NAVIGATION, NEXT, RELATED, crowding, page_links, url_roles
from .crawl.config import crawl_settings
from .crawl.response_pages import response_page
from .crawl.stats import add_seconds

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler
    from scrapy.http import Response

logger = logging.getLogger(__name__)

#: Added to a request's priority by the role of its link: an offset, so that the spider's own
#: priorities and DEPTH_PRIORITY still count (Scrapy fetches higher priorities first).
PRIORITY_OFFSETS = {NEXT: 40, CONTENT: 30, NAVIGATION: 10, RELATED: 0, BOILERPLATE: -10}
#: The most a navigation link loses to the crowd of its shape (roles.crowding): it stays above
#: a related link.
MAX_CROWDING = PRIORITY_OFFSETS[NAVIGATION] - PRIORITY_OFFSETS[RELATED] - 1


def priority_offsets(roles: dict[str, str]) -> dict[str, int]:
    """URL -> the offset of a request for a link of the page: its role's (PRIORITY_OFFSETS), a
    navigation link's lowered by the number of links of its shape (roles.crowding)."""
    crowded = crowding(roles)
    return {url: PRIORITY_OFFSETS[role] - min(crowded.get(url, 0), MAX_CROWDING) for url, role in roles.items()}


#: Roles whose requests "focus" drops.
FOCUS_DROPS = frozenset((BOILERPLATE, RELATED))


class LinkRolesMiddleware(BaseSpiderMiddleware):
    """Spider middleware of BOILERPLATE_LINKS ("prioritize", "focus"); not enabled with "off"."""

    @bp.stops_crawl
    def __init__(self, crawler: Crawler):
        super().__init__(crawler)
        settings = crawl_settings(crawler)
        if not settings.enabled or settings.links == "off":
            raise NotConfigured  # nothing computed, nothing changed
        self.action = settings.links
        # The overview verdict in response.flags, when OverviewMiddleware judges pages.
        self.verdicts = settings.overview_action != "off"
        self.stats = crawler.stats
        self._roles: weakref.WeakKeyDictionary[Response, tuple[dict[str, str], dict[str, int]]] = (
            weakref.WeakKeyDictionary()
        )
        # The URLs of the requests passed on: Scrapy's dupefilter drops a later request for one of
        # them whatever its role, so a page whose requests are all such repeats (a site's menus,
        # tags, the posts it already linked) needs no roles worked out.
        # Held as digests: a URL may be of any length, a digest is 16 bytes.
        self._passed: set[bytes] = set()

    def get_processed_request(self, request: Request, response: Response | None) -> Request | None:
        # response: None for start requests, a Failure for an errback's output.
        if not isinstance(response, HtmlResponse):
            return request
        url = request.url.split("#", 1)[0]
        digest = _digest(url)
        if digest in self._passed and not request.dont_filter:
            self.stats.inc_value("boilerplate/links/repeated")
            return request  # the dupefilter's: no role changes its fate
        roles, offsets = self._page_roles(response)
        role = roles.get(url) if roles else None
        if role is None:
            if roles:
                self.stats.inc_value("boilerplate/links/unmatched")
            self._passed.add(digest)
            return request
        self.stats.inc_value(f"boilerplate/links/{role}")
        # A link to the page itself is kept, last: dropped, the start page (which Scrapy's
        # dupefilter does not record) would be fetched again as soon as a menu links to it.
        if self.action == "focus" and role in FOCUS_DROPS and url != response.url.split("#", 1)[0]:
            self.stats.inc_value("boilerplate/links/dropped")
            logger.debug(
                "Dropped a request for a %(role)s link of %(response)s: %(request)s",
                {"role": role, "response": response, "request": request},
                extra={"spider": self.crawler.spider},
            )
            return None
        request.meta[bp.META_LINK_ROLE] = role
        request.priority += offsets[url]
        self._passed.add(digest)
        return request

    def _page_roles(self, response: HtmlResponse) -> tuple[dict[str, str], dict[str, int]]:
        """URL -> role, and URL -> priority offset, of the links of `response`, worked out once
        per response ({} on failure)."""
        known = self._roles.get(response)
        if known is not None:
            return known
        start = time.perf_counter()
        try:
            is_overview = bp.OVERVIEW_FLAG in response.flags if self.verdicts else None
            roles = url_roles(page_links(response_page(response), response.url, is_overview=is_overview))
        except Exception:
            # A bug or an unexpected page must not cost the page's requests.
            self.stats.inc_value("boilerplate/links/errors")
            logger.warning(
                "Link roles failed on %(response)s; its requests pass unchanged",
                {"response": response},
                exc_info=True,
                extra={"spider": self.crawler.spider},
            )
            roles = {}
        seconds = time.perf_counter() - start
        self.stats.inc_value("boilerplate/links/pages")
        add_seconds(self.stats, "boilerplate/links/seconds_total", "boilerplate/links/seconds_max", seconds)
        known = (roles, priority_offsets(roles))
        self._roles[response] = known
        return known


def _digest(url: str) -> bytes:
    return hashlib.blake2b(url.encode("utf-8", "surrogatepass"), digest_size=16).digest()
