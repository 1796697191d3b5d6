"""Code listings' line numbers left in the outputs, on every article of the real static sites.

    python benchmarks/numbered_lines.py [--sites NAME ...] [--examples N] [--json OUT]

A listing's gutter of line numbers, kept as text, shows as a run of lines that are each one
number, counting up by one ("1", "2", "3", ...). Every article of every site of ../shared/sites
is extracted with the URL a crawler sees for it (benchmarks/crawl_sites.py), and the articles
whose text, Markdown or HTML holds such a run of RUN lines or more are counted per site. An
extraction's own numbered content (an ordered list, a table of figures) does not count: its
lines hold more than one number.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from crawl_sites import load_site, site_names

from scrapy_boilerplate import extract

#: A run of this many lines counting up by one is a gutter of line numbers.
RUN = 5
OUTPUTS = ("text", "markdown", "html")
# A line that is one number, in the text, in a Markdown code block or at the start of an HTML <pre>.
_NUMBER_LINE = re.compile(r"^\s*(?:<pre><code>|<pre>)?(\d{1,6})\s*$")


def longest_count(text: str) -> int:
    """The longest run of lines that are each one number, each one more than the line before."""
    best = run = 0
    previous = None
    for line in text.split("\n"):
        m = _NUMBER_LINE.match(line)
        number = int(m.group(1)) if m else None
        run = run + 1 if number is not None and previous is not None and number == previous + 1 else int(m is not None)
        previous = number
        best = max(best, run)
    return best


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sites", nargs="*", default=None)
    parser.add_argument("--examples", type=int, default=0, help="list the first N articles with a run, per site")
    parser.add_argument("--json", type=Path, help="write the per-site counts and the articles' files here")
    args = parser.parse_args()
    totals = dict.fromkeys(OUTPUTS, 0)
    articles_total = 0
    report: dict = {}
    print(f"{'site':22}{'articles':>9}" + "".join(f"{name:>10}" for name in OUTPUTS))
    for name in args.sites or site_names():
        site = load_site(name)
        counts = dict.fromkeys(OUTPUTS, 0)
        found: dict[str, list[str]] = {output: [] for output in OUTPUTS}
        files = sorted(file for file, label in site.labels.items() if label == "article")
        for file in files:
            extraction = extract((site.root / file).read_bytes(), url=site.url_of(file))
            for output in OUTPUTS:
                if longest_count(getattr(extraction, output)) >= RUN:
                    counts[output] += 1
                    found[output].append(file)
        articles_total += len(files)
        for output in OUTPUTS:
            totals[output] += counts[output]
        report[name] = {"articles": len(files), **counts, "files": found["text"]}
        print(f"{name:22}{len(files):>9}" + "".join(f"{counts[o]:>10}" for o in OUTPUTS))
        for file in found["text"][: args.examples]:
            print(f"    {file}")
    print(f"{'all':22}{articles_total:>9}" + "".join(f"{totals[o]:>10}" for o in OUTPUTS))
    if args.json:
        args.json.write_text(json.dumps(report, indent=1, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
