"""Site memory: what repeats across the pages of a site is its template (ContentExtractor).

Debnath, Mitra and Giles's ContentExtractor scores each block by its inverse block-document
frequency (IBDF) over the pages of one site: a block found on many of the site's pages
(navigation, footer, newsletter box, "most read" list, cookie text) is template, a block
found on one page only is that page's content. A crawl sees exactly that data.

Here each block of a walked :class:`~scrapy_boilerplate.core.document.page.Page` gets a *fingerprint*:
a 64-bit hash of its text (lower case) and its tag path (the block-level tags from the root to
it), so the same words in the menu and in the body are two blocks. A store keeps, per site (the
URL's host without "www."), the number of pages recorded and, per fingerprint, the number of
those pages that held it.

For a new page of a site whose store has seen at least ``warmup`` pages, each block's share
of earlier pages holding it moves the model's log-odds: a block on at least ``REPEAT_SHARE``
of them (and on at least two) leans to boilerplate, more the more pages hold it (half as much
inside the span where the model finds content, and not at all for a heading there). Blocks the model is very sure about
(probability above ``SURE_CONTENT`` or below ``SURE_BOILERPLATE``) are not moved against its
verdict. (Evidence in the other direction was measured and left out: docs/site-memory.md.) The output is a
pure function of the page and the store's state; the page is recorded as its evidence is read
(one exchange per page).

Stores (same results for the same pages in the same order):

- :class:`MemoryTemplateStore`: in this process, LRU over sites, a cap on fingerprints per
  site; memory ceiling about ``max_sites * max_fingerprints * 100`` bytes (see its docstring).
- :class:`~scrapy_boilerplate.core.site_memory.redis_store.RedisTemplateStore`: one Redis hash per site,
  shared by every process of a crawl.

This module imports no Scrapy.
"""

from __future__ import annotations

import logging
import re
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING
from urllib.parse import urlsplit
from zlib import adler32, crc32

import numpy as np

from ..document.elements import HEADING_TAGS

if TYPE_CHECKING:
    from ..document.page import Page

logger = logging.getLogger(__name__)

#: Pages of a site the store must have seen before its evidence is used.
DEFAULT_WARMUP = 3
#: MemoryTemplateStore's caps: sites kept, block fingerprints kept per site (any store).
DEFAULT_MAX_SITES, DEFAULT_MAX_FINGERPRINTS = 500, 2000
#: A block on at least this share of the site's earlier pages (and on two or more) leans to boilerplate.
REPEAT_SHARE = 0.5
#: Log-odds taken from a block found on every earlier page (scaled down with its share).
REPEAT_WEIGHT = 3.0
#: Evidence inside the span the model finds content (first to last block of probability 0.5
#: or more) is scaled by this: there a repeated block is as often a label of the site's
#: content template ("Description", "Specifications" on every product page).
INSIDE_FACTOR = 0.5
#: ... and a repeated heading there by this: a section label of the content template
#: ("Description", "Ingredients", "Parameters"), which the gold sets count as content.
HEADINGS_INSIDE = 0.0
#: The model's verdict stands where it is this sure.
SURE_CONTENT = 0.95
SURE_BOILERPLATE = 0.05
#: Blocks shorter than this (characters) get no fingerprint: too common to tell pages apart.
MIN_CHARS = 1
#: At most this many distinct fingerprints of one page are looked up and recorded.
MAX_PAGE_FINGERPRINTS = 4000

_ARCHIVE_RE = re.compile(r"^https?://web\.archive\.org/web/[^/]*/(.+)$", re.I)


def site_key(url: str | None) -> str | None:
    """The site a URL belongs to: its host, lower case, without "www." (None without a host).

    A web.archive.org capture belongs to the site it captured."""
    if not url or not isinstance(url, str):
        return None
    archived = _ARCHIVE_RE.match(url)
    if archived:
        url = archived.group(1)
        if "://" not in url[:12]:
            url = "http://" + url
    try:
        host = urlsplit(url).hostname
    except ValueError:
        return None
    if not host:
        return None
    return host[4:] if host.startswith("www.") else host


def page_fingerprints(page: Page) -> list[int]:
    """One 64-bit fingerprint per block of `page` (0 for a block without text): its text, lower
    case, and its tag path (the block-level tags from the root down to it, and its own tag).

    Stable across processes and machines (CRC-32 and Adler-32, not Python's salted hash): the
    high half is the CRC of the text seeded with the CRC of the path, the low half the text's
    Adler-32. Digits are kept: prices, counts and dates tell pages apart."""
    return _fingerprints(page)[0]


def _fingerprints(page: Page, with_slots: bool = False) -> tuple[list[int], list[int] | None]:
    """(text fingerprints, slot fingerprints or None) of the blocks of `page`.

    A block's *slot* is where it sits in the site's template: the path of tags with their
    id/class tokens, without its text. Slot fingerprints have a low half of 0 (an Adler-32 never
    is), so they share a store with text fingerprints."""
    node_tags, node_parents, node_tokens = page.node_tags, page.node_parents, page.node_tokens
    paths: list[int] = []
    slots: list[int] = []
    for i, tag in enumerate(node_tags):
        parent = node_parents[i]
        inside = 0 <= parent < i
        paths.append(crc32(tag.encode(), paths[parent] if inside else 0))
        if with_slots:
            named = tag + "." + ".".join(node_tokens[i]) if i < len(node_tokens) and node_tokens[i] else tag
            slots.append(crc32(named.encode(), slots[parent] if inside else 0))
    n_paths = len(paths)
    out, out_slots = [], []
    for text, tag, node, chars in zip(page.texts, page.tags, page.nodes, page.chars):
        if chars < MIN_CHARS:
            out.append(0)
            out_slots.append(0)
            continue
        data = text.lower().encode("utf-8", "surrogatepass")
        known_node = 0 <= node < n_paths
        tag_bytes = tag.encode()
        out.append((crc32(data, crc32(tag_bytes, paths[node] if known_node else 0)) << 32 | adler32(data)) or 1)
        if with_slots:
            out_slots.append((crc32(tag_bytes, slots[node] if known_node else 0) or 1) << 32)
    return out, (out_slots if with_slots else None)


@dataclass
class SiteCounts:
    """What a store knows of some fingerprints of a site, before the page asking was recorded."""

    pages: int = 0
    counts: dict[int, int] = field(default_factory=dict)  # fingerprint -> earlier pages holding it
    asked: frozenset[int] = frozenset()  # the fingerprints the counts are about


@dataclass
class TemplateEvidence:
    """The store's evidence for one page, applied to the model's probabilities."""

    site: str
    warmup: int
    known: SiteCounts | None  # None: the store failed on this page
    fingerprints: list[int] | None = None  # of the page the evidence was asked for
    page: object = field(default=None, repr=False, compare=False)  # that page

    @property
    def used(self) -> bool:
        return self.known is not None and self.known.pages >= self.warmup

    def summary(self) -> dict[str, str | bool]:
        """What happened to the site memory on this page (for a crawl's stats)."""
        return {
            "site": self.site,
            "recorded": self.known is not None,
            "used": self.used,
            "new_site": self.known is not None and self.known.pages == 0,
            "failed": self.known is None,
        }

    def adjust(self, page: Page, proba: np.ndarray) -> np.ndarray:
        """`proba` moved by the site's evidence (unchanged before the warm-up). `page` may be
        another walk of the page the evidence was asked for (with its comment sections)."""
        if not self.used or not len(proba):
            return proba
        if self.fingerprints is None or page is not self.page:
            fps = page_fingerprints(page)
        else:
            fps = self.fingerprints
        if len(fps) != len(proba):
            return proba
        # (`used` holds only with a known site)
        delta = evidence_log_odds(fps, self.known, proba, page.tags)  # type: ignore[arg-type]
        if not delta.any():
            return proba
        moved = delta != 0
        p = np.clip(proba[moved], 1e-6, 1 - 1e-6)
        out = np.array(proba, dtype=float)
        out[moved] = 1.0 / (1.0 + np.exp(-(np.log(p / (1 - p)) + delta[moved])))
        return out


def evidence_log_odds(
    fps: list[int], known: SiteCounts, proba: np.ndarray, tags: list[str] | None = None
) -> np.ndarray:
    """Per-block log-odds from the site's block-document frequencies (IBDF)."""
    n = len(fps)
    delta = np.zeros(n)
    pages = known.pages
    if pages <= 0:
        return delta
    counts, asked = known.counts, known.asked
    share = np.zeros(n)
    for i, fp in enumerate(fps):
        if not fp or fp not in asked:
            continue
        c = counts.get(fp, 0)
        if c >= 2:
            share[i] = c / pages
    repeated = share >= REPEAT_SHARE
    delta[repeated] = (-REPEAT_WEIGHT * np.minimum(share, 1.0))[repeated]
    if INSIDE_FACTOR != 1.0:
        # Inside the span the model finds content, a repeated block is as often a label of
        # the site's content template (product pages' "Description", "Specifications").
        likely = np.flatnonzero(proba >= 0.5)
        if len(likely):
            delta[likely[0] : likely[-1] + 1] *= INSIDE_FACTOR
            if HEADINGS_INSIDE != 1.0 and tags is not None:
                for i in range(likely[0], likely[-1] + 1):
                    if delta[i] and tags[i] in HEADING_TAGS:
                        delta[i] *= HEADINGS_INSIDE
    # The model's verdict stands where it is very sure.
    delta[(proba >= SURE_CONTENT) & (delta < 0)] = 0.0
    delta[(proba <= SURE_BOILERPLATE) & (delta > 0)] = 0.0
    return delta


class TemplateStore:
    """What a template store does: `exchange` (read a site's counts of some fingerprints, then
    record them as one more page of the site), and `evidence` for a walked page."""

    warmup: int = DEFAULT_WARMUP

    def __init__(self) -> None:
        # pages_recorded; sites (first pages of a site seen here); evidence_used (pages past the
        # warm-up); errors (pages the store failed on, extracted without it).
        self.stats = {"pages_recorded": 0, "sites": 0, "evidence_used": 0, "errors": 0}
        self._stats_lock = threading.Lock()

    def exchange(self, site: str, fingerprints: list[int]) -> SiteCounts | None:
        raise NotImplementedError

    def _count(self, name: str, n: int = 1) -> None:
        with self._stats_lock:
            self.stats[name] = self.stats.get(name, 0) + n

    def evidence(self, page: Page, url: str | None, proba: np.ndarray | None = None) -> TemplateEvidence | None:
        """The site's evidence for `page` (walked from `url`), recording the page. None when
        the URL has no site or the page no block (nothing recorded); evidence that is not
        `used` when the store failed (the page is extracted without it). `proba`, the model's
        block probabilities, is not read (the stores' interface keeps it)."""
        site = site_key(url or page.base_url)
        if site is None or not len(page):
            return None
        fps = page_fingerprints(page)
        wanted = [fp for fp in fps if fp]
        distinct = list(dict.fromkeys(wanted))[:MAX_PAGE_FINGERPRINTS]
        if not distinct:
            return None
        known = self.exchange(site, distinct)
        if known is None:
            return TemplateEvidence(site, self.warmup, None, fps, page)
        evidence = TemplateEvidence(site, self.warmup, known, fps, page)
        self._count("pages_recorded")
        if known.pages == 0:
            self._count("sites")
        if evidence.used:
            self._count("evidence_used")
        return evidence


class MemoryTemplateStore(TemplateStore):
    """Site memory in this process: LRU over ``max_sites`` sites, at most ``max_fingerprints``
    fingerprints per site.

    When a site's fingerprints pass the cap, those held by only one page are forgotten (then
    two pages, ...: until under the cap), so the template, which repeats, stays. Memory ceiling:
    a fingerprint costs about 100 bytes (a dict entry and two Python ints), so at most about
    ``max_sites * max_fingerprints * 100`` bytes: 100 MB with the defaults (500 sites, 2000
    fingerprints). Thread-safe.
    """

    def __init__(
        self,
        max_sites: int = DEFAULT_MAX_SITES,
        max_fingerprints: int = DEFAULT_MAX_FINGERPRINTS,
        warmup: int = DEFAULT_WARMUP,
    ) -> None:
        super().__init__()
        if max_sites < 1 or max_fingerprints < 1 or warmup < 0:
            raise ValueError("max_sites and max_fingerprints must be positive, warmup not negative")
        self.max_sites = int(max_sites)
        self.max_fingerprints = int(max_fingerprints)
        self.warmup = int(warmup)
        self._sites: OrderedDict[str, tuple[int, dict[int, int]]] = OrderedDict()  # site -> (pages, {fp: count})
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._sites)

    def exchange(self, site: str, fingerprints: list[int]) -> SiteCounts:
        with self._lock:
            entry = self._sites.get(site)
            if entry is None:
                entry = self._sites[site] = (0, {})
                while len(self._sites) > self.max_sites:
                    self._sites.popitem(last=False)
            else:
                self._sites.move_to_end(site)
            pages, counts = entry
            known = {fp: counts[fp] for fp in fingerprints if fp in counts}
            for fp in fingerprints:
                counts[fp] = counts.get(fp, 0) + 1
            self._sites[site] = (pages + 1, counts)  # the same place in the order
            _prune(counts, self.max_fingerprints)
        return SiteCounts(pages, known, frozenset(fingerprints))

    def site_state(self, site: str) -> tuple[int, dict[int, int]] | None:
        """(pages, {fingerprint: pages holding it}) of a site, a copy; None if unknown."""
        with self._lock:
            entry = self._sites.get(site)
            return (entry[0], dict(entry[1])) if entry is not None else None

    def clear(self) -> None:
        with self._lock:
            self._sites.clear()


def _prune(counts: dict[int, int], cap: int) -> None:
    """Forget the fingerprints held by fewest pages until at most `cap` are left (deterministic:
    by count only, whatever the order they came in)."""
    floor = 1
    while len(counts) > cap:
        for fp in [fp for fp, c in counts.items() if c <= floor]:
            del counts[fp]
        floor += 1
