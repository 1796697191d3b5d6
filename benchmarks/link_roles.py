"""Link roles on the real static sites of ../shared/sites: every link against its target's label.

    python benchmarks/link_roles.py [--sites NAME ...] [--library] [--json FILE]

For every HTML page of every site (with the URL a crawler sees: benchmarks/crawl_sites.py), the
roles of its links (core/links/roles.py) as a crawl computes them (the walk, the overview verdict,
no extraction), or with --library as ``extract(...).links`` does (with the extraction's kept
blocks). Prints:

- a confusion matrix: each link's role against its target: self (the page itself: a fragment),
  article, overview, other (the site's labels), missing (an own URL that is no HTML page: a 404,
  a feed, a file), external (another host), not-http (mailto:, javascript:...), per site and over all sites;
- the next page of the paginated lists: on each list page whose site has a next page (by the
  generator's pagination paths, benchmarks/crawl_sites.gold_next) that the page links to, whether a link with role
  ``next`` leads to it (found), and whether a ``next`` link leads elsewhere (wrong); with URL
  patterns and without (``url_patterns=False``: rel hints, words, arrows and pagers only);
- the time of the roles per page beside the time of overview detection on the same walk.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from crawl_sites import gold_next, load_site, site_names
from loso_models import site_models

from scrapy_boilerplate.core.document.page import build_page
from scrapy_boilerplate.core.document.parse import parse_html
from scrapy_boilerplate.core.extractor import default_extractor
from scrapy_boilerplate.core.links.roles import ROLES, page_links
from scrapy_boilerplate.core.overview.detector import OverviewDetector, default_detector

TARGETS = ("self", "article", "overview", "other", "missing", "external", "not-http")


def target_of(site, url: str, own: str | None = None) -> str:
    if url == own:
        return "self"
    if not url.startswith(("http://", "https://")):
        return "not-http"
    if not site.is_own(url):
        return "external"
    return site.label(url) or "missing"


def evaluate_site(name: str, library: bool, model: str | None = None) -> dict:
    site = load_site(name)
    matrix: Counter = Counter()
    by_source: dict = {label: Counter() for label in ("overview", "article", "other")}
    nexts = {"lists": 0, "found": 0, "wrong": 0, "found_no_patterns": 0, "wrong_no_patterns": 0}
    misses: list = []
    seconds = {"roles": 0.0, "detect": 0.0, "pages": 0}
    detector = OverviewDetector(model=model) if model else default_detector()
    for file, label in sorted(site.labels.items()):
        url = site.url_of(file)
        html = (site.root / file).read_bytes()
        root = parse_html(html)
        page = build_page(root, base_url=url)
        start = time.perf_counter()
        verdict = detector.detect_page(page, url)
        seconds["detect"] += time.perf_counter() - start
        start = time.perf_counter()
        if library:
            links = default_extractor().extract_page(page, url).links
        else:
            links = page_links(page, url, is_overview=verdict.is_overview)
        seconds["roles"] += time.perf_counter() - start
        seconds["pages"] += 1
        for link in links:
            target = target_of(site, link.url, url)
            matrix[link.role, target] += 1
            by_source[label][link.role, target] += 1
        gold = gold_next(site, file) if label == "overview" else None
        if gold is None or all(site.file_for(link.url) != gold for link in links):
            continue  # no next page, or one the page does not link to (a home page without pager)
        nexts["lists"] += 1
        without = page_links(page, url, is_overview=verdict.is_overview, url_patterns=False)
        for suffix, found_links in (("", links), ("_no_patterns", without)):
            targets = {site.file_for(link.url) for link in found_links if link.role == "next"}
            found = gold in targets
            nexts["found" + suffix] += found
            nexts["wrong" + suffix] += bool(targets - {gold})
            if not found and not suffix:
                misses.append(file)
    return {
        "matrix": {f"{r}|{t}": n for (r, t), n in matrix.items()},
        # The same from the pages of each label: what a list page's links lead to, an article's.
        "by_source": {label: {f"{r}|{t}": n for (r, t), n in m.items()} for label, m in by_source.items()},
        "next": nexts,
        "next_misses": misses[:5],
        "seconds": seconds,
    }


def print_matrix(title: str, matrix: dict) -> None:
    print(f"\n{title}")
    print("role".ljust(12) + "".join(t.rjust(10) for t in TARGETS) + "total".rjust(9))
    for role in ROLES:
        row = [matrix.get(f"{role}|{t}", 0) for t in TARGETS]
        print(role.ljust(12) + "".join(str(n).rjust(10) for n in row) + str(sum(row)).rjust(9))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sites", nargs="*", default=None)
    parser.add_argument("--library", action="store_true", help="roles as extract(...).links gives them")
    parser.add_argument("--json", help="write the figures to this file")
    parser.add_argument(
        "--models",
        default="loso",
        help="the overview model that judges each site's pages (the roles read its verdict): 'loso' "
        "(default: trained without the site, benchmarks/loso_models.py) or 'shipped'",
    )
    args = parser.parse_args()
    names = args.sites or site_names()
    models = site_models(names, args.models)
    results = {name: evaluate_site(name, args.library, models[name]) for name in names}
    total: Counter = Counter()
    nexts: Counter = Counter()
    seconds: Counter = Counter()
    print("site".ljust(22) + "lists  next found  wrong  found(no URL patterns)  wrong  ms roles/page  ms detect/page")
    for name, r in results.items():
        total.update(r["matrix"])
        nexts.update(r["next"])
        seconds.update(r["seconds"])
        n, s = r["next"], r["seconds"]
        print(
            f"{name:22}{n['lists']:5}  {n['found']:10}  {n['wrong']:5}  {n['found_no_patterns']:22}  "
            f"{n['wrong_no_patterns']:5}  {1000 * s['roles'] / s['pages']:13.2f}  "
            f"{1000 * s['detect'] / s['pages']:14.2f}"
        )
        if r["next_misses"]:
            print("    missed:", ", ".join(r["next_misses"]))
    lists = max(nexts["lists"], 1)
    print(
        f"{'all':22}{nexts['lists']:5}  {nexts['found']:10}  {nexts['wrong']:5}  "
        f"{nexts['found_no_patterns']:22}  {nexts['wrong_no_patterns']:5}  "
        f"{1000 * seconds['roles'] / seconds['pages']:13.2f}  {1000 * seconds['detect'] / seconds['pages']:14.2f}"
    )
    print(
        f"next found on {nexts['found'] / lists:.1%} of the paginated lists ({nexts['wrong'] / lists:.1%} "
        f"with a wrong next); without URL patterns {nexts['found_no_patterns'] / lists:.1%} "
        f"({nexts['wrong_no_patterns'] / lists:.1%} wrong)"
    )
    for name, r in results.items():
        print_matrix(name, r["matrix"])
    print_matrix("all sites", dict(total))
    for label in ("overview", "article", "other"):
        by: Counter = Counter()
        for r in results.values():
            by.update(r["by_source"][label])
        print_matrix(f"all sites, the links of the pages labelled {label}", dict(by))
    lists: Counter = Counter()
    for r in results.values():
        lists.update(r["by_source"]["overview"])
    content = sum(n for key, n in lists.items() if key.startswith("content|"))
    astray = sum(
        n
        for key, n in lists.items()
        if key.startswith("content|") and key.split("|")[1] in ("overview", "other", "missing")
    )
    print(
        f"\nlist pages: next links to articles {lists.get('next|article', 0)}; content links to pages of the "
        f"site that are not articles {astray} of {content} ({astray / max(content, 1):.2%})"
    )
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
