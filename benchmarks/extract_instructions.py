"""Count the instructions `extract()` takes (valgrind), to compare two versions of the code exactly.

Wall-clock times on a shared machine move by 20 to 70 % from run to run;
instruction counts do not (callgrind counts what the CPU executes, whatever
else the machine is doing). The script runs the same pages twice under
callgrind: reading only (the files read and gunzipped, the package imported
and its model loaded), then also `extract(html, url=url).text` on each page's
raw bytes, as a crawl calls it. The difference is the extraction alone.
Markdown, HTML, blocks and metadata are made only when read, so they are
not counted; --metadata counts a third run that also reads `.metadata` (the
article metadata: authors, dates, language...), and prints the metadata
step's own count (that run less the extraction's).

    python benchmarks/extract_instructions.py [DATASET_DIR] [--limit N] [--label L] [--pure] [--metadata]

Without DATASET_DIR it counts the first 120 article pages ("label":
"article") of ../shared/datasets/wcxb-dev; --label "" takes every page.
--pure counts the pure-Python twins (SCRAPY_BOILERPLATE_PURE_PYTHON=1).
Needs valgrind (Debian: apt-get install valgrind). Takes about two minutes
(three with --pure).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_SET = ROOT.parent / "shared" / "datasets" / "wcxb-dev"
STEPS = ("read", "extract", "metadata")


def read_pages(dataset: Path, limit: int, label: str) -> list:
    """(raw HTML bytes, url) of the first `limit` pages of `dataset` with `label` ("": any), in file order."""
    with open(dataset / "pages.jsonl", encoding="utf-8") as lines:
        records = [json.loads(line) for line in lines if line.strip()]
    pages = []
    for record in records:
        if len(pages) == limit:
            break
        if label and record.get("label") != label:
            continue
        data = (dataset / record["html"]).read_bytes()
        pages.append((gzip.decompress(data) if record["html"].endswith(".gz") else data, record.get("url")))
    return pages


def run_step(step: str, dataset: Path, limit: int, label: str) -> None:
    """The pages of `dataset`, processed up to `step` (the part callgrind counts)."""
    sys.path.insert(0, str(ROOT))
    from scrapy_boilerplate import extract

    pages = read_pages(dataset, limit, label)
    # In every step, not counted: the model, and the language identifier of the metadata.
    extract(b"<html><body><p>load the model and the language identifier</p></body></html>").metadata  # noqa: B018
    if step == "extract":
        for html, url in pages:
            extract(html, url=url).text  # noqa: B018 - reading .text is what is counted
    elif step == "metadata":
        for html, url in pages:
            result = extract(html, url=url)
            result.text  # noqa: B018 - as in "extract"
            result.metadata  # noqa: B018 - and the metadata step: what this step adds


def count(step: str, args) -> int:
    env = {**os.environ, "PYTHONHASHSEED": "0"}  # the same string hashes: the same counts
    if args.pure:
        env["SCRAPY_BOILERPLATE_PURE_PYTHON"] = "1"
    else:
        env.pop("SCRAPY_BOILERPLATE_PURE_PYTHON", None)
    result = subprocess.run(
        [
            "valgrind",
            "--tool=callgrind",
            "--callgrind-out-file=/dev/null",
            sys.executable,
            __file__,
            "--step",
            step,
            "--limit",
            str(args.limit),
            "--label",
            args.label,
            str(args.dataset),
        ],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    return int(re.search(r"I\s+refs:\s+([\d,]+)", result.stderr).group(1).replace(",", ""))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dataset", nargs="?", type=Path, default=DEFAULT_SET, metavar="DATASET_DIR")
    parser.add_argument("--limit", type=int, default=120, help="count the first N pages (default 120)")
    parser.add_argument("--label", default="article", help='only pages with this label (default article; "" for all)')
    parser.add_argument("--pure", action="store_true", help="count the pure-Python twins of the compiled modules")
    parser.add_argument("--metadata", action="store_true", help="also count the metadata step (a third run)")
    parser.add_argument("--step", choices=STEPS, help=argparse.SUPPRESS)  # the counted run itself
    args = parser.parse_args(argv)
    if args.step:
        run_step(args.step, args.dataset, args.limit, args.label)
        return 0
    if shutil.which("valgrind") is None:
        parser.error("valgrind is not installed (Debian: apt-get install valgrind)")
    total = {step: count(step, args) for step in STEPS if args.metadata or step != "metadata"}
    n = len(read_pages(args.dataset, args.limit, args.label))
    extraction = total["extract"] - total["read"]
    print(
        f"{args.dataset.name}: {n} {args.label or 'all'} pages, "
        f"{'pure Python' if args.pure else 'compiled modules'}, millions of instructions (callgrind)\n"
        f"  import + reading {total['read'] / 1e6:.1f}, with extract() {total['extract'] / 1e6:.1f}\n"
        f"  extract() {extraction / 1e6:.1f} in total, {extraction / n / 1e6:.2f} per page"
    )
    if args.metadata:
        metadata = total["metadata"] - total["extract"]
        print(f"  the metadata step {metadata / 1e6:.1f} in total, {metadata / n / 1e6:.3f} per page")
    return 0


if __name__ == "__main__":
    sys.exit(main())
