"""The memory of one worker process of BOILERPLATE_EXECUTOR = "process" over many pages.

Does a worker's memory keep growing (a leak, which recycling workers after N pages
would bound), or level off? One WorkerPool worker extracts the pages of the shared
development sets in turn; its resident memory (VmRSS, Linux) is printed after its
start and every `--every` pages.

    python benchmarks/worker_memory.py [DATASET_DIR...] [--every 250]

Without DATASET_DIR it reads wcxb-dev, trafilatura-eval and readability from
../shared/datasets next to the repository.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "datasets"
DEFAULT_SETS = [SHARED / name for name in ("wcxb-dev", "trafilatura-eval", "readability")]


def resident_mib(pid: int) -> int:
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) // 1024
    raise RuntimeError(f"no VmRSS for process {pid}")


def pages(datasets: list[Path]):
    for dataset in datasets:
        with open(dataset / "pages.jsonl", encoding="utf-8") as lines:
            for line in lines:
                record = json.loads(line)
                data = (dataset / record["html"]).read_bytes()
                if record["html"].endswith(".gz"):
                    data = gzip.decompress(data)
                yield data, record.get("url")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("datasets", nargs="*", type=Path, default=DEFAULT_SETS)
    parser.add_argument("--every", type=int, default=250)
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from scrapy_boilerplate.crawl.tasks import extract_timed, in_worker, init_worker
    from scrapy_boilerplate.crawl.worker_pool import WorkerPool

    pool = WorkerPool(1, init_worker, (None, {}))
    try:
        pid = pool.submit(os.getpid).result(timeout=120)
        print(f"after start: {resident_mib(pid)} MiB", flush=True)
        n = 0
        for n, (html, url) in enumerate(pages(args.datasets), 1):
            pool.submit(in_worker, extract_timed, html, url).result(timeout=120)
            if n % args.every == 0:
                print(f"after {n} pages: {resident_mib(pid)} MiB", flush=True)
        print(f"after {n} pages: {resident_mib(pid)} MiB")
    finally:
        pool.shutdown()


if __name__ == "__main__":
    main()
