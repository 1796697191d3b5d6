"""Overview verdicts on every page of the real static sites of ../shared/sites, with crawler URLs.

    python benchmarks/site_overview.py [--sites NAME ...] [--models loso|shipped|FILE] [--examples N]
        [--no-site-signs]

Each page is judged by an overview detector with the URL a crawler sees for it
(benchmarks/crawl_sites.py: the live site's origin, a folder's index.html as the folder): by
default with the model trained without the page's site (benchmarks/loso_models.py), the figure of
record; ``--models shipped``, the shipped model (which saw every site). Per site and over all
sites: list pages (label overview; those with no text of their own, an empty tag page or a
redirect stub, left out: crawl_sites.has_text) flagged, articles flagged, other pages flagged;
with --examples, the first N articles flagged and lists missed of each site. --no-site-signs: the
model's score alone (OverviewDetector(site_signs=False): no "pager of its own on a listing's URL",
no "links to no other page of its site"). The signs fit nothing to these sites (their one value,
0.9, is the content link's of core/links/roles.py), so leave-one-site-out figures are these.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from crawl_sites import has_text, load_site, site_names
from loso_models import site_models

from scrapy_boilerplate.core.document.page import build_page
from scrapy_boilerplate.core.document.parse import parse_html
from scrapy_boilerplate.core.overview.detector import OverviewDetector


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sites", nargs="*", default=None)
    parser.add_argument("--examples", type=int, default=0)
    parser.add_argument(
        "--no-site-signs",
        action="store_true",
        help="the model's score alone, without the signs of the page's own links",
    )
    parser.add_argument(
        "--models",
        default="loso",
        help="'loso' (default: each site judged by the model trained without it), 'shipped', or a model file",
    )
    args = parser.parse_args()
    names = args.sites or site_names()
    models = site_models(names, args.models)
    totals = {"overview": [0, 0], "article": [0, 0], "other": [0, 0]}
    print(f"{'site':22}{'lists flagged':>16}{'articles flagged':>19}{'other flagged':>16}")
    for name in names:
        detector = OverviewDetector(model=models[name], site_signs=not args.no_site_signs)
        site = load_site(name)
        counts = {"overview": [0, 0], "article": [0, 0], "other": [0, 0]}
        wrong: dict = {"article": [], "overview": []}
        for file, label in sorted(site.labels.items()):
            if label == "overview" and not has_text(site, file):
                continue
            url = site.url_of(file)
            page = build_page(parse_html((site.root / file).read_bytes()), base_url=url)
            flagged = detector.detect_page(page, url).is_overview
            counts[label][0] += flagged
            counts[label][1] += 1
            if (label == "article") == flagged and label in wrong:
                wrong[label].append(file)
        for label, (hit, n) in counts.items():
            totals[label][0] += hit
            totals[label][1] += n
        print(
            f"{name:22}{counts['overview'][0]:>9}/{counts['overview'][1]:<6}{counts['article'][0]:>12}/"
            f"{counts['article'][1]:<6}{counts['other'][0]:>9}/{counts['other'][1]:<6}"
        )
        if args.examples:
            print("    articles flagged:", ", ".join(wrong["article"][: args.examples]))
            print("    lists missed:", ", ".join(wrong["overview"][: args.examples]))
    print(
        f"{'all':22}{totals['overview'][0]:>9}/{totals['overview'][1]:<6}{totals['article'][0]:>12}/"
        f"{totals['article'][1]:<6}{totals['other'][0]:>9}/{totals['other'][1]:<6}"
    )


if __name__ == "__main__":
    main()
