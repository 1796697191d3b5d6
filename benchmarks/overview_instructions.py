"""Count the instructions overview detection takes beside those of the parse (valgrind).

Wall-clock times on a shared machine move by 20 to 70 % from run to run;
instruction counts do not (callgrind counts what the CPU executes, whatever
else the machine is doing), so two versions of the code compare exactly.
For each dataset the script runs the same pages four times under callgrind:
decoding only, then also the parse (parsel Selector), then also the walk of
the parsed page, then also `OverviewDetector.detect` on it (walk included),
and prints the differences per page.

    python benchmarks/overview_instructions.py [DATASET_DIR...] [--limit N]

Needs valgrind (Debian: apt-get install valgrind). Without DATASET_DIR it
counts the first 200 pages of ../shared/datasets/overview-dev and wcxb-dev.
Takes about three minutes per dataset.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "datasets"
DEFAULT_SETS = [SHARED / "overview-dev", SHARED / "wcxb-dev"]
STEPS = ("decode", "parse", "walk", "detect")


def run_step(step: str, dataset: Path, limit: int) -> None:
    """The pages of `dataset`, processed up to `step` (the part callgrind counts)."""
    sys.path.insert(0, str(ROOT))
    from parsel import Selector

    from scrapy_boilerplate.core.document.page import build_page
    from scrapy_boilerplate.core.document.parse import to_element
    from scrapy_boilerplate.core.overview.detector import OverviewDetector
    from scrapy_boilerplate.training.datasets import load_dataset

    docs = [(p.read_html().decode("utf-8", "replace"), p.url) for p in load_dataset(dataset)[:limit]]
    detector = OverviewDetector()
    detector.detect(Selector(text="<html><body><p>load the model</p></body></html>"))
    for text, url in docs:
        if step == "decode":
            continue
        selector = Selector(text=text)  # what response.selector builds
        if step == "walk":
            build_page(to_element(selector), base_url=url)
        elif step == "detect":
            detector.detect(selector, url=url)


def count(step: str, dataset: Path, limit: int) -> int:
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
            str(limit),
            str(dataset),
        ],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONHASHSEED": "0"},
    )  # the same string hashes: the same counts
    return int(re.search(r"I\s+refs:\s+([\d,]+)", result.stderr).group(1).replace(",", ""))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("datasets", nargs="*", type=Path, metavar="DATASET_DIR")
    parser.add_argument("--limit", type=int, default=200, help="count the first N pages (default 200)")
    parser.add_argument("--step", choices=STEPS, help=argparse.SUPPRESS)  # the counted run itself
    args = parser.parse_args(argv)
    if args.step:
        run_step(args.step, args.datasets[0], args.limit)
        return 0
    sys.path.insert(0, str(ROOT))
    from scrapy_boilerplate.training.datasets import load_dataset

    if shutil.which("valgrind") is None:
        parser.error("valgrind is not installed (Debian: apt-get install valgrind)")
    for dataset in args.datasets or DEFAULT_SETS:
        total = {step: count(step, dataset, args.limit) for step in STEPS}
        n = len(load_dataset(dataset)[: args.limit])
        parse = (total["parse"] - total["decode"]) / n
        walk = (total["walk"] - total["parse"]) / n
        detect = (total["detect"] - total["parse"]) / n
        print(
            f"{dataset.name}: {n} pages, millions of instructions per page (callgrind)\n"
            f"  parse (parsel Selector) {parse / 1e6:.2f}\n"
            f"  detect on the parse {detect / 1e6:.2f} ({detect / parse:.2f}x the parse): "
            f"the walk {walk / 1e6:.2f}, evidence and model {(detect - walk) / 1e6:.2f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
