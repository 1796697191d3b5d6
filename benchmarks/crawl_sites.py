"""The real static sites of ../shared/sites as a crawler sees them (for the crawl and link benchmarks).

Each site is unpacked once into a cache folder (default /tmp/scrapy_boilerplate_sites, or
$SITES_CACHE). Its pages get the URLs of the live site: the own domain its pages link to most
(``https://blog.example.com``), or ``http://NAME.example`` for a site whose links are all relative.
``file_for(url)`` maps such a URL back to the file as the site README says (decode ``%xx``,
``/`` is ``index.html``, then ``PATH``, ``PATH/index.html``, ``PATH.html``).
"""

from __future__ import annotations

import json
import os
import re
import tarfile
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlsplit

from scrapy_boilerplate.training.sites import site_origin, url_of

SITES_DIR = Path(__file__).resolve().parents[2] / "shared" / "sites"
CACHE = Path(os.environ.get("SITES_CACHE", "/tmp/scrapy_boilerplate_sites"))


@dataclass
class Site:
    name: str
    root: Path  # the unpacked files
    origin: str  # scheme://host of the live site, as its pages link to it
    own_hosts: set  # hosts (with port) whose links point into the site
    labels: dict  # file path -> "article" | "overview" | "other"
    meta: dict = field(repr=False, default_factory=dict)

    def is_own(self, url: str) -> bool:
        try:
            return urlsplit(url).netloc.lower() in self.own_hosts
        except ValueError:  # a host no browser would take (a typo on the site)
            return False

    def file_for(self, url: str) -> str | None:
        """The site's file a URL of the site serves, or None (another host, or a 404)."""
        parts = urlsplit(url)
        if parts.netloc.lower() not in self.own_hosts:
            return None
        path = unquote(parts.path).lstrip("/")
        if not path:
            return "index.html" if (self.root / "index.html").is_file() else None
        target = self.root / path
        if target.is_file():
            return path
        for candidate in (path.rstrip("/") + "/index.html", path.rstrip("/") + ".html"):
            if (self.root / candidate).is_file():
                return candidate
        return None

    def label(self, url: str) -> str | None:
        """The label of the page a URL serves: article, overview, other; None when not an HTML page."""
        file = self.file_for(url)
        return self.labels.get(file) if file is not None else None

    def url_of(self, file: str) -> str:
        """The URL a crawler sees for a file (a folder's index.html as the folder)."""
        return url_of(self.origin, file)


def load_site(name: str) -> Site:
    folder = SITES_DIR / name
    meta = json.loads((folder / "site.json").read_text())
    root = CACHE / name
    if not (root / ".unpacked").exists():
        root.mkdir(parents=True, exist_ok=True)
        with tarfile.open(folder / "site.tar.gz") as tar:
            tar.extractall(root, filter="data")
        (root / ".unpacked").write_text("")
    own = [h.lower() for h in meta["own_domains"]]
    origin_file = root / ".origin"
    if origin_file.exists():
        origin = origin_file.read_text()
    else:
        origin = site_origin(name, own, (p.read_bytes() for p in root.rglob("*.htm*")))
        origin_file.write_text(origin)
    hosts = set(own) | {urlsplit(origin).netloc.lower()}
    return Site(name, root, origin, hosts, meta["labels"], meta)


def site_names() -> list[str]:
    return sorted(p.parent.name for p in SITES_DIR.glob("*/site.json"))


def site_files_middleware(site: Site, *, one_scheme: bool = False) -> type:
    """A Scrapy downloader middleware class that serves the site's own URLs from its files (a 404
    for a path that is no file): other hosts never reach the network. `one_scheme`: an own URL of
    the other scheme than the origin's is redirected (301) to it, as the live sites answer one
    scheme and redirect the other (both are linked)."""
    import mimetypes

    from scrapy.http import Headers, Response
    from scrapy.responsetypes import responsetypes

    origin_scheme = site.origin.partition("://")[0]

    class SiteFiles:
        def process_request(self, request, spider=None):
            scheme, _, rest = request.url.partition("://")
            if one_scheme and scheme != origin_scheme and site.is_own(request.url):
                location = f"{origin_scheme}://{rest}"
                return Response(request.url, status=301, headers={"Location": location}, request=request)
            file = site.file_for(request.url)
            if file is None:
                return Response(request.url, status=404, body=b"", request=request)
            body = (site.root / file).read_bytes()
            headers = Headers({"Content-Type": mimetypes.guess_type(file)[0] or "text/html"})
            cls = responsetypes.from_args(headers=headers, url=request.url, body=body)
            return cls(request.url, status=200, body=body, headers=headers, request=request)

    return SiteFiles


#: Series of a paginated list: the number in its URL path ("page/3/", "page3/", "index3.html",
#: "tag/python3.html"): for the gold next page only, never for the detector.
_SERIES = (
    (re.compile(r"^(?P<base>(?:.*/)?)page/(?P<n>\d+)/index\.html$"), "{base}page/{n}/index.html"),
    (re.compile(r"^(?P<base>(?:.*/)?)page(?P<n>\d+)/index\.html$"), "{base}page{n}/index.html"),
    (re.compile(r"^(?P<base>(?:.*/)?[^/]*?)(?P<n>\d+)\.html$"), "{base}{n}.html"),
)


def gold_next(site: Site, file: str) -> str | None:
    """The file of the next page of the list `file`, when the site has one (by the generator's
    pagination paths), else None."""
    for pattern, template in _SERIES:
        m = pattern.match(file)
        if m is not None:
            candidate = template.format(base=m["base"], n=int(m["n"]) + 1)
            if candidate in site.labels:
                return candidate
    # Page 1: no number; page 2 is the first of the series.
    base = file[: -len("index.html")] if file.endswith("index.html") else None
    stem = file[: -len(".html")] if file.endswith(".html") and base is None else None
    candidates = []
    if base is not None:
        candidates += [f"{base}page/2/index.html", f"{base}page2/index.html", f"{base}index2.html"]
    if stem is not None:
        candidates.append(f"{stem}2.html")
    return next((c for c in candidates if c in site.labels), None)


def has_text(site, file: str) -> bool:
    """Whether the page has text of its own: a block of text outside its menus, header, footer
    and sidebars (an empty tag page, a redirect stub have none)."""
    from scrapy_boilerplate.core.document.elements import FLAG
    from scrapy_boilerplate.core.document.page import build_page
    from scrapy_boilerplate.core.document.parse import parse_html

    page = build_page(parse_html((site.root / file).read_bytes()))
    outside = FLAG["nav"] | FLAG["header"] | FLAG["footer"] | FLAG["aside"]
    return any(chars and not flags & outside for chars, flags in zip(page.chars, page.flags))
