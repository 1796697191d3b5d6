"""Read crawl sites: whole static websites whose every page is labelled, as training pages.

A site is a folder holding ``site.json`` and ``site.tar.gz`` (the format of ``../shared/sites``,
its README): the tarball holds the site's built files, paths as served; ``site.json`` names the
hosts whose absolute links point into the site (``own_domains``) and labels every HTML file
``article``, ``overview`` or ``other``. Each labelled page is read with the URL a crawler would
see for it: the own domain the site's pages link to most (``https://blog.example.com``), or
``http://NAME.example`` for a site whose links are all relative; a folder's ``index.html`` as
the folder. All pages of a site are one group (``site``) for cross-validation: a site's template
never stands on both sides of a split.
"""

from __future__ import annotations

import json
import re
import tarfile
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from w3lib.url import safe_url_string

SITE_FILE = "site.json"
ARCHIVE = "site.tar.gz"
LABELS = ("article", "overview", "other")


@dataclass(frozen=True)
class SitePage:
    """One labelled page of a crawl site: what training reads of a DatasetPage."""

    id: str  # the file's path in the site
    dataset: str  # the site's folder name
    url: str
    label: str
    site: str  # the site's folder name: one group per site
    html: bytes
    lang: str | None = None
    page_type: str | None = None
    gold_path: str | None = None
    with_: tuple[str, ...] = ()
    without: tuple[str, ...] = ()

    def read_html(self) -> bytes:
        return self.html

    def read_gold(self) -> str | None:
        return None


def is_site(path: str | Path) -> bool:
    """Whether `path` is a crawl site's folder (it holds site.json)."""
    return (Path(path) / SITE_FILE).is_file()


def load_site(path: str | Path) -> list[SitePage]:
    """Every labelled HTML page of the site in `path`, in file order, with its crawler URL."""
    root = Path(path)
    meta = json.loads((root / SITE_FILE).read_text(encoding="utf-8"))
    labels: dict[str, str] = meta.get("labels") or {}
    bad = sorted({label for label in labels.values() if label not in LABELS})
    if bad:
        raise ValueError(f"{root / SITE_FILE}: unknown labels {', '.join(bad)} (allowed: {', '.join(LABELS)})")
    files: dict[str, bytes] = {}
    with tarfile.open(root / ARCHIVE) as tar:
        for member in tar:
            name = member.name.removeprefix("./")
            if member.isfile() and name in labels:
                handle = tar.extractfile(member)
                if handle is not None:
                    files[name] = handle.read()
    origin = site_origin(root.name, [h.lower() for h in meta.get("own_domains") or []], files.values())
    return [
        SitePage(id=name, dataset=root.name, url=url_of(origin, name), label=labels[name], site=root.name, html=html)
        for name, html in sorted(files.items())
    ]


def site_origin(name: str, own_domains: list[str], pages: Iterable[bytes]) -> str:
    """The origin a crawler sees for the site: the own domain its pages (bytes) link to most,
    else ``http://NAME.example``."""
    if not own_domains:
        return f"http://{name}.example"
    hosts = "|".join(re.escape(h) for h in own_domains)
    pattern = re.compile(r"https?://(?:" + hosts + r""")(?=[/"'\s>])""")
    counts: Counter[str] = Counter()
    for html in pages:
        counts.update(pattern.findall(html.decode("utf-8", "replace")))
    if not counts:
        return f"http://{own_domains[0]}"
    return counts.most_common(1)[0][0]


def url_of(origin: str, file: str) -> str:
    """The URL a crawler sees for a site's file (a folder's index.html as the folder)."""
    if file == "index.html":
        path = "/"
    elif file.endswith("/index.html"):
        path = "/" + file[: -len("index.html")]
    else:
        path = "/" + file
    return str(safe_url_string(origin + path))
