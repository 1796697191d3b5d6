"""Site groups for cross-validation over all labelled sets (docs/training.md, "Cross-validation").

A page's group is its site: the registered domain of its URL, the same across sets (a site
in two sets is one group, so it is never on both sides of a split). Readability's test pages
have no URL: their group is the id's stem ("nytimes-1".."nytimes-5" are one site). Other
pages without a URL are one group per set (nothing says they are not of one site). Pages
that are in two sets (the same URL or the same bytes) are dropped: which set's gold would
score them?
"""

from __future__ import annotations

import hashlib
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence

from ..core.site_memory.templates import site_key
from .datasets import DatasetPage

#: Second-level labels under which a country's registered domains sit ("bbc.co.uk").
COUNTRY_SECOND_LEVEL = frozenset(("co", "com", "org", "net", "ac", "gov", "edu", "ne"))
#: Hosting platforms whose subdomains are different publishers: the full host is the site.
PLATFORMS = frozenset(
    (
        "blogspot",
        "wordpress.com",
        "tumblr.com",
        "typepad.com",
        "livejournal.com",
        "github.io",
        "substack.com",
        "wixsite.com",
        "weebly.com",
        "medium.com",
        "blogger.com",
        "over-blog.com",
        "canalblog.com",
        "hatenablog.com",
    )
)
#: Readability's test ids: a site's pages are "name-1", "name-2"...
_STEM_RE = re.compile(r"-\d+$")
_IP_RE = re.compile(r"^\d+(?:\.\d+){3}$")


def registered_domain(host: str) -> str:
    """The registered domain of `host` (lower case, no "www."): the last two labels, three under
    a country's co/com/org/... ("bbc.co.uk"); the whole host on a hosting platform or an IP."""
    host = host.lower().rstrip(".")
    if _IP_RE.match(host):
        return host
    labels = host.split(".")
    if len(labels) >= 3 and (
        labels[-2] == "blogspot" or labels[-3] == "blogspot" or ".".join(labels[-2:]) in PLATFORMS
    ):
        return host[4:] if host.startswith("www.") else host
    if len(labels) >= 3 and len(labels[-1]) == 2 and labels[-2] in COUNTRY_SECOND_LEVEL:
        return ".".join(labels[-3:])
    return ".".join(labels[-2:])


def page_group(page: DatasetPage) -> str:
    """The page's site group (module docstring)."""
    site = site_key(page.url) if page.url else None
    if site:
        return registered_domain(site)
    if page.dataset == "readability":
        return "readability:" + _STEM_RE.sub("", page.id)
    return page.dataset + ":no-url"


def _url_key(url: str | None) -> str | None:
    if not url:
        return None
    site = site_key(url)
    if not site:
        return None
    rest = url.split("://", 1)[-1].split("/", 1)
    path = rest[1] if len(rest) > 1 else ""
    return site + "/" + path.split("#")[0].rstrip("/")


def pages_in_two_sets(pages: Sequence[DatasetPage], html_digests: Sequence[str]) -> set[int]:
    """Indices of pages whose URL or bytes (`html_digests`, one per page) are in another set too."""
    sets_of: defaultdict[tuple[str, str], set[str]] = defaultdict(set)
    keys = []
    for page, digest in zip(pages, html_digests):
        own = [("html", digest)]
        url = _url_key(page.url)
        if url:
            own.append(("url", url))
        keys.append(own)
        for key in own:
            sets_of[key].add(page.dataset)
    return {i for i, own in enumerate(keys) if any(len(sets_of[key]) > 1 for key in own)}


def _unit(key: str) -> float:
    """A stable number in [0, 1) for `key` (sha1: the same on every run and machine)."""
    return int.from_bytes(hashlib.sha1(key.encode("utf-8")).digest()[:8], "big") / 2**64


def assign_folds(groups: Iterable[str], folds: int, untouched: float = 0.15, salt: str = "cv") -> dict[str, int]:
    """Group -> fold (0..folds-1), or -1 for the untouched groups (`untouched` of the groups,
    by a hash of the name: the same groups whatever the number of folds).

    The other groups are dealt to the folds largest first, each to the fold with the fewest
    pages so far (ties by hash order), so that folds hold about as many pages each.
    """
    sizes: defaultdict[str, int] = defaultdict(int)
    for group in groups:
        sizes[group] += 1
    out: dict[str, int] = {}
    pool = []
    for group, size in sizes.items():
        if _unit(f"untouched:{group}") < untouched:
            out[group] = -1
        else:
            pool.append((-size, _unit(f"{salt}:{group}"), group))
    load = [0] * folds
    for neg_size, _, group in sorted(pool):
        fold = min(range(folds), key=lambda k: (load[k], k))
        out[group] = fold
        load[fold] -= neg_size
    return out
