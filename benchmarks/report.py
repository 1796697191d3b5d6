"""The benchmark report: scrapy_boilerplate beside every well-known extractor, on the same pages.

    python benchmarks/report.py [--datasets DIR] [--out DIR] [--jobs 2] [--timeout 20]
        [--limit N] [--quick] [--no-crawl] [--extractors NAME,...]

Writes ``RESULTS.md``, ``results.json`` and ``quality-speed.png`` into ``--out``
(default: this folder). See benchmarks/README.md for what is measured and how.

- Extraction: every extractor of extractors.py on each set of DIR (default
  ../shared/datasets): content precision, recall, F1 (the project's own scorer,
  scrapy_boilerplate.training.metrics, as `scrapy-boilerplate evaluate` and
  compare.py use it) with 95 % bootstrap half-widths, per page type where the set
  has types, the share of pages extracted catastrophically, snippet shares where
  there is no full gold; CPU ms per page (median, p90), pages per second on one
  core, peak memory of the worker, and lxml's parse of the same pages. Each library
  runs in its own worker process (isolated.py) with a per-page time limit: a
  timeout or a crash is that library's failure on that page (empty output).
- Overview detection: our detector beside Readability's isProbablyReaderable and
  newspaper4k's article checks, on the labelled pages of the validation sites.
- Crawl throughput: crawl_throughput.py, with the add-on and without.

Sets the shipped models were trained on count only with their held-aside
validation sites (training/datasets.py: is_validation_site), as in `evaluate`.
At most --jobs worker processes run at a time.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))  # this checkout's package
sys.path.insert(0, str(HERE))  # extractors.py, isolated.py (the workers import them too)

import extractors  # noqa: E402
from isolated import IsolatedRunner, NotInstalled  # noqa: E402
from machine import cpu_name, version_of  # noqa: E402

# "spawn" runs this file again in every worker, as __mp_main__: there, only the standard library
# and the library under test may be imported, or the worker's memory and imports would hold
# numpy and scrapy_boilerplate whatever library it measures.
if __name__ != "__mp_main__":
    import numpy as np

    from scrapy_boilerplate.training.datasets import DatasetPage, is_validation_site, load_dataset
    from scrapy_boilerplate.training.evaluate import TRAINED_ON
    from scrapy_boilerplate.training.metrics import PageResult, f1_from, score_page, summarize_by

DEFAULT_DATASETS = ROOT.parent / "shared" / "datasets"
# The extraction sets, in report order: (folder name, kind of gold).
EXTRACTION_SETS = (("wcxb-dev", "text"), ("readability", "text"), ("trafilatura-eval", "snippets"))
# The sets whose pages carry overview/article/other labels.
OVERVIEW_SETS = ("overview-dev", "wcxb-dev")
# The overview model was trained on both labelled sets (train --overview).
OVERVIEW_TRAINED_ON = ("overview-dev", "wcxb-dev")
# Sets whose validation sites guided development (features, thresholds, decoder) of the
# extractor: their figures are development figures, not a held-out test.
DEVELOPMENT_SETS = ("wcxb-dev", "trafilatura-eval")
CUTOFFS = (0.3, 0.4, 0.5, 0.6, 0.7, 0.8)  # overview score cutoffs of the trade-off table
CATASTROPHIC = 0.3  # a page whose F1 (or share of `with` snippets found) is below this
OURS = "ours"
BASELINE = extractors.BASELINE


# --- pages ----------------------------------------------------------------------------------


@dataclass
class PageSet:
    name: str
    gold: str  # "text" or "snippets"
    split: str  # "validation" or "all"
    pages: list[DatasetPage]
    htmls: list[bytes]


def select(folder: Path, trained_on: tuple[str, ...], limit: int | None, where=None) -> tuple[list, str]:
    pages = load_dataset(folder)
    if where is not None:
        pages = [p for p in pages if where(p)]
    split = "all"
    if folder.name in trained_on:
        split = "validation"
        pages = [p for p in pages if is_validation_site(p.site)]
    return (pages[:limit] if limit else pages), split


def load_sets(root: Path, limit: int | None) -> list[PageSet]:
    sets = []
    for name, gold in EXTRACTION_SETS:
        folder = root / name
        if not (folder / "pages.jsonl").is_file():
            print(f"{name}: not found in {root}, left out", file=sys.stderr)
            continue
        pages, split = select(folder, TRAINED_ON, limit)
        sets.append(PageSet(name, gold, split, pages, [p.read_html() for p in pages]))
    return sets


# --- running the libraries ------------------------------------------------------------------


@dataclass
class ToolRun:
    """One library over the pages of every set, in its worker process."""

    name: str
    status: str = "ok"  # "ok", or "not installed: ..." / "failed: ..."
    outputs: dict | None = None  # set name -> list of outputs (None on a failure)
    cpu_ms: dict | None = None  # set name -> list of CPU ms per page (nan on a failure)
    wall_ms: dict | None = None
    errors: dict | None = None  # set name -> list of error strings (None when fine)
    restarts: int = 0
    peak_rss_mb: float | None = None
    ready_rss_mb: float | None = None
    network_attempts: int = 0
    seconds: float = 0.0


def run_tool(
    kind: str,
    name: str,
    sets: list[tuple[str, list[DatasetPage], list[bytes]]],
    timeout: float,
    options: dict | None = None,
) -> ToolRun:
    run = ToolRun(name, outputs={}, cpu_ms={}, wall_ms={}, errors={})
    start = time.perf_counter()
    runner = IsolatedRunner(kind, name, timeout=timeout, options=options or {})
    try:
        runner.start()
        for set_name, pages, htmls in sets:
            outputs, cpu, wall, errors = [], [], [], []
            for page, html in zip(pages, htmls):
                call = runner.call(html, page.url)
                outputs.append(call.value)
                cpu.append(call.cpu_seconds * 1000 if call.cpu_seconds is not None else float("nan"))
                wall.append(call.seconds * 1000)
                errors.append(call.error)
            run.outputs[set_name], run.cpu_ms[set_name] = outputs, cpu
            run.wall_ms[set_name], run.errors[set_name] = wall, errors
            print(
                f"  {kind} {name}: {set_name} done ({len(pages)} pages, {sum(e is not None for e in errors)} failures)",
                file=sys.stderr,
                flush=True,
            )
    except NotInstalled as exc:
        run.status = f"not installed: {exc}"
    except Exception as exc:  # noqa: BLE001 - one library must not stop the report
        run.status = f"failed: {type(exc).__name__}: {exc}"
    finally:
        runner.close()
    run.restarts = runner.restarts
    run.peak_rss_mb = runner.peak_rss / 2**20 if runner.peak_rss else None
    run.ready_rss_mb = runner.ready_rss / 2**20 if runner.ready_rss else None
    run.network_attempts = runner.network_attempts
    run.seconds = time.perf_counter() - start
    return run


def run_all(
    kind: str, names: list[str], sets, jobs: int, timeout: float, options: dict[str, dict] | None = None
) -> dict[str, ToolRun]:
    """Every library in its own worker; at most `jobs` workers at a time (threads here only wait)."""
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = {
            name: pool.submit(run_tool, kind, name.split("@")[0], sets, timeout, (options or {}).get(name))
            for name in names
        }
        return {name: future.result() for name, future in futures.items()}


# --- extraction: scores ---------------------------------------------------------------------


def page_f1(result: PageResult) -> float | None:
    """F1 of one page against its gold text (0 for an empty output), None without gold."""
    if result.recall is None:
        return None
    return f1_from(result.precision if result.precision is not None else 0.0, result.recall)


def catastrophic_share(results: list[PageResult], gold: str) -> float | None:
    """Share of pages extracted catastrophically: page F1 < 0.3 against the gold text, or
    (snippet sets) fewer than 30 % of the page's `with` snippets found."""
    if gold == "text":
        scores = [page_f1(r) for r in results]
    else:
        scores = [r.with_share for r in results]
    scores = [s for s in scores if s is not None]
    return sum(s < CATASTROPHIC for s in scores) / len(scores) if scores else None


def score_tool(run: ToolRun, page_set: PageSet, bootstrap: int) -> dict:
    outputs = run.outputs[page_set.name]
    texts = [value if isinstance(value, str) else "" for value in outputs]
    results = [score_page(page, text) for page, text in zip(page_set.pages, texts)]
    by_type = summarize_by(results, key="page_type", bootstrap=bootstrap)
    has_types = any(key not in ("all", "(none)") for key in by_type)
    failures = [e for e in run.errors[page_set.name] if e is not None]
    return {
        "all": by_type["all"],
        "by_type": {k: v for k, v in by_type.items() if k != "all"} if has_types else {},
        "catastrophic": catastrophic_share(results, page_set.gold),
        "catastrophic_by_type": (
            {
                t: catastrophic_share([r for r in results if r.page_type == t], page_set.gold)
                for t in by_type
                if t != "all"
            }
            if has_types
            else {}
        ),
        "failures": len(failures),
        "timeouts": sum(e == "timeout" for e in failures),
        "empty": sum(not t.strip() for t in texts),
    }


def speed_stats(cpu_ms: list[float], wall_ms: list[float]) -> dict:
    cpu = np.array([v for v in cpu_ms if not np.isnan(v)])
    wall = np.array([v for v in wall_ms if not np.isnan(v)])
    if not cpu.size:
        return {}
    return {
        "pages": int(cpu.size),
        "median_ms": float(np.median(cpu)),
        "p90_ms": float(np.percentile(cpu, 90)),
        "mean_ms": float(cpu.mean()),
        "pages_per_s": float(cpu.size / (cpu.sum() / 1000)),
        "wall_median_ms": float(np.median(wall)),
        "total_s": float(cpu.sum() / 1000),
    }


# --- overview detection ---------------------------------------------------------------------


def labelled(page: DatasetPage) -> bool:
    return page.label in ("overview", "article", "other")


def overview_pages(root: Path, limit: int | None):
    """({set: validation pages}, training pages) of the labelled sets: the same sites held
    aside as for the extractor."""
    validation, training = {}, []
    for name in OVERVIEW_SETS:
        folder = root / name
        if not (folder / "pages.jsonl").is_file():
            continue
        pages = [p for p in load_dataset(folder) if labelled(p)]
        held = [p for p in pages if is_validation_site(p.site)]
        validation[name] = held[:limit] if limit else held
        training += [p for p in pages if not is_validation_site(p.site)]
    return validation, training


def train_held_out_overview_model(training: list[DatasetPage], path: Path, quick: bool) -> dict:
    """The overview model trained as the shipped one is (train --overview), on the training
    sites only. --quick: one site-to-fold split to choose the cutoff instead of six."""
    from scrapy_boilerplate.training import overview as training_overview

    logs: list[str] = []
    start = time.perf_counter()
    if quick:
        splits = training_overview.SPLITS[:1]
        original = training_overview.cross_validate
        training_overview.SPLITS = splits
        training_overview.cross_validate = lambda ev, **kw: original(ev, splits=splits, **kw)
    model = training_overview.train_overview(
        training, "benchmarks/report.py (training sites only)", sorted({p.dataset for p in training}), log=logs.append
    )
    model.save(path)
    return {
        "pages": len(training),
        "seconds": time.perf_counter() - start,
        "log": logs,
        "cutoff": model.decode.get("cutoff"),
        "quick": quick,
    }


def overview_report(pred: list[bool | None], pages: list[DatasetPage]) -> dict:
    from scrapy_boilerplate.training.overview import classification_report

    y = np.array([p.label == "overview" for p in pages], dtype=int)
    labels = np.array([p.label for p in pages])
    failed = sum(v is None for v in pred)
    report = classification_report(np.array([bool(v) for v in pred]), y, labels)
    return {**report, "failures": failed}


def score_overview(runs: dict[str, ToolRun], pages_by_set: dict[str, list[DatasetPage]]) -> dict:
    rows = {}
    for name, run in runs.items():
        if run.status != "ok":
            rows[name] = {"status": run.status}
            continue
        variants = {name: lambda v: v}
        if name.startswith(OURS):
            variants = {name: lambda v: v["overview"]}
        if name.startswith("newspaper4k"):
            variants = {
                "newspaper4k (URL check)": lambda v: v["url"],
                "newspaper4k (body check)": lambda v: v["body"],
                "newspaper4k (either check)": lambda v: v["url"] or v["body"],
            }
        for row, pick in variants.items():
            per_set, pooled_pred, pooled_pages = {}, [], []
            for set_name, pages in pages_by_set.items():
                pred = [None if v is None else pick(v) for v in run.outputs[set_name]]
                per_set[set_name] = overview_report(pred, pages)
                pooled_pred += pred
                pooled_pages += pages
            cpu = [v for s in pages_by_set for v in run.cpu_ms[s]]
            wall = [v for s in pages_by_set for v in run.wall_ms[s]]
            rows[row] = {
                "status": "ok",
                "pooled": overview_report(pooled_pred, pooled_pages),
                "sets": per_set,
                "speed": speed_stats(cpu, wall),
            }
            if name.startswith(OURS):
                # What BOILERPLATE_OVERVIEW_CUTOFF trades: the same scores at other cutoffs.
                scores = [None if v is None else v["score"] for s in pages_by_set for v in run.outputs[s]]
                rows[row]["cutoffs"] = {
                    f"{cut:.1f}": overview_report([None if v is None else v >= cut for v in scores], pooled_pages)
                    for cut in CUTOFFS
                }
    return rows


# --- crawl throughput -----------------------------------------------------------------------


def crawl_throughput(root: Path, pages: int, executor: str) -> dict:
    """crawl_throughput.py in its own processes (a server and one crawl at a time)."""
    command = [
        sys.executable,
        str(HERE / "crawl_throughput.py"),
        str(root / "wcxb-dev"),
        "--pages",
        str(pages),
        "--executor",
        executor,
    ]
    done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT)
    if done.returncode != 0:
        return {"status": f"failed (exit {done.returncode}): {done.stderr[-500:]}"}
    result = json.loads(done.stderr.strip().splitlines()[-1])
    others = re.search(r"other processes ([\d.]+) s", done.stdout)
    return {
        "status": "ok",
        "executor": executor,
        "stdout": done.stdout,
        "other_cpu_s": float(others.group(1)) if others else None,
        **result,
    }


# --- machine and versions -------------------------------------------------------------------


def git_revision() -> str:
    try:
        out = subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no"], capture_output=True, text=True
        ).stdout.strip()
        return out + (" (with uncommitted changes)" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def machine_info() -> dict:
    import lxml.etree

    from scrapy_boilerplate.core import speedups

    versions = {adapter.distribution: version_of(adapter.distribution) for adapter in extractors.EXTRACTORS.values()}
    versions.update(
        {
            "scrapy": version_of("scrapy"),
            "lxml": ".".join(map(str, lxml.etree.LXML_VERSION)),
            "libxml2": ".".join(map(str, lxml.etree.LIBXML_VERSION)),
            "numpy": np.__version__,
        }
    )
    return {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "revision": git_revision(),
        "platform": platform.platform(),
        "cpu": cpu_name(),
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "versions": versions,
        "compiled_modules": all(speedups.available().values()),
        "load_average": os.getloadavg() if hasattr(os, "getloadavg") else None,
    }


# --- main -----------------------------------------------------------------------------------


def parse_args(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--datasets", type=Path, default=DEFAULT_DATASETS, help="folder holding the sets (default: ../shared/datasets)"
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=HERE,
        help="where RESULTS.md, results.json and quality-speed.png go (default: this folder)",
    )
    parser.add_argument("--jobs", type=int, default=2, help="worker processes at a time (default 2)")
    parser.add_argument(
        "--timeout", type=float, default=20.0, help="seconds a library may take on one page (default 20)"
    )
    parser.add_argument("--limit", type=int, help="the first N selected pages of each set (development)")
    parser.add_argument("--bootstrap", type=int, default=1000, help="bootstrap resamples (default 1000)")
    parser.add_argument("--extractors", help="comma-separated subset of: " + ", ".join(extractors.EXTRACTORS))
    parser.add_argument(
        "--quick", action="store_true", help="the held-out overview model's cutoff from one split, not six; one crawl"
    )
    parser.add_argument("--no-crawl", action="store_true", help="leave out the crawl throughput")
    parser.add_argument("--no-overview", action="store_true", help="leave out overview detection")
    parser.add_argument("--crawl-pages", type=int, default=600)
    parser.add_argument("--crawl-runs", type=int, default=2, help="crawl pairs per executor (default 2)")
    parser.add_argument("--from-json", type=Path, help=argparse.SUPPRESS)  # re-render only
    return parser.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)
    if args.from_json:
        results = json.loads(args.from_json.read_text())
        write_outputs(results, args.out)
        return 0
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    started = time.perf_counter()
    results: dict = {
        "machine": machine_info(),
        "command": " ".join(["python", "benchmarks/report.py", *(argv or sys.argv[1:])]),
        "settings": {
            "timeout_s": args.timeout,
            "jobs": args.jobs,
            "limit": args.limit,
            "catastrophic_below": CATASTROPHIC,
            "bootstrap": args.bootstrap,
        },
    }

    # 1. Extraction.
    sets = load_sets(args.datasets, args.limit)
    if not sets:
        raise SystemExit(f"no dataset found in {args.datasets} (give --datasets DIR)")
    names = [n.strip() for n in args.extractors.split(",")] if args.extractors else list(extractors.EXTRACTORS)
    names = [OURS] + [n for n in names if n != OURS]
    # The slowest libraries first, so the two workers end at about the same time.
    order = [
        "newspaper4k",
        "goose3",
        "readability",
        "justext",
        "trafilatura",
        "boilerpy3",
        OURS,
        "ours_recall",
        "ours_no_model",
        "ours_pure_python",
        "html_text",
        "resiliparse",
    ]
    queue = sorted(names, key=lambda n: order.index(n) if n in order else 0) + [BASELINE]
    print(
        f"extraction: {', '.join(f'{s.name} ({len(s.pages)})' for s in sets)}; {len(queue)} workers, "
        f"{args.jobs} at a time",
        file=sys.stderr,
    )
    runs = run_all("extract", queue, [(s.name, s.pages, s.htmls) for s in sets], args.jobs, args.timeout)
    extraction: dict = {
        "sets": {
            s.name: {
                "pages": len(s.pages),
                "split": s.split,
                "gold": s.gold,
                "page_types": _count(p.page_type for p in s.pages),
                "development": s.name in DEVELOPMENT_SETS,
            }
            for s in sets
        },
        "tools": {},
    }
    for name in names + [BASELINE]:
        run = runs[name]
        adapter = extractors.adapter("extract", name)
        entry = {
            "label": adapter.label,
            "distribution": adapter.distribution,
            "version": version_of(adapter.distribution),
            "status": run.status,
            "restarts": run.restarts,
            "peak_rss_mb": run.peak_rss_mb,
            "ready_rss_mb": run.ready_rss_mb,
            "network_attempts": run.network_attempts,
        }
        if run.status == "ok":
            all_cpu = [v for s in sets for v in run.cpu_ms[s.name]]
            all_wall = [v for s in sets for v in run.wall_ms[s.name]]
            entry["speed"] = speed_stats(all_cpu, all_wall)
            entry["speed_by_set"] = {s.name: speed_stats(run.cpu_ms[s.name], run.wall_ms[s.name]) for s in sets}
            if name != BASELINE:
                entry["quality"] = {s.name: score_tool(run, s, args.bootstrap) for s in sets}
        extraction["tools"][name] = entry
    results["extraction"] = extraction
    print(f"extraction done at {time.perf_counter() - started:.0f} s", file=sys.stderr)

    # 2. Overview detection.
    if not args.no_overview:
        validation, training = overview_pages(args.datasets, args.limit)
        if validation:
            model_path = args.out / ".overview-held-out.json"
            print(f"overview: training a model on {len(training)} pages of the training sites", file=sys.stderr)
            trained = train_held_out_overview_model(training, model_path, args.quick)
            by_set = validation
            check_sets = [(name, pages, [p.read_html() for p in pages]) for name, pages in by_set.items()]
            checks = {"ours@held-out": {"model": str(model_path)}, "ours@shipped": {}}
            overview_runs = run_all(
                "overview",
                ["ours@held-out", "newspaper4k", "readability", "ours@shipped"],
                check_sets,
                args.jobs,
                args.timeout,
                options=checks,
            )
            model_path.unlink(missing_ok=True)
            results["overview"] = {
                "sets": {
                    name: {
                        "pages": len(pages),
                        "overviews": sum(p.label == "overview" for p in pages),
                        "articles": sum(p.label == "article" for p in pages),
                        "others": sum(p.label == "other" for p in pages),
                    }
                    for name, pages in by_set.items()
                },
                "held_out_model": {k: v for k, v in trained.items() if k != "log"},
                "held_out_model_log": trained["log"],
                "rows": score_overview(overview_runs, by_set),
            }
            print(f"overview done at {time.perf_counter() - started:.0f} s", file=sys.stderr)

    # 3. Crawl throughput.
    if not args.no_crawl and (args.datasets / "wcxb-dev" / "pages.jsonl").is_file():
        runs = 1 if args.quick else args.crawl_runs
        results["crawl"] = {
            executor: [crawl_throughput(args.datasets, args.crawl_pages, executor) for _ in range(runs)]
            for executor in (("inline",) if args.quick else ("inline", "process"))
        }
        print(f"crawl done at {time.perf_counter() - started:.0f} s", file=sys.stderr)

    results["seconds"] = time.perf_counter() - started
    write_outputs(results, args.out)
    print(f"report written to {args.out} in {results['seconds']:.0f} s", file=sys.stderr)
    return 0


def _count(values) -> dict:
    counts: dict = {}
    for value in values:
        counts[value or "(none)"] = counts.get(value or "(none)", 0) + 1
    return dict(sorted(counts.items(), key=lambda kv: -kv[1]))


def write_outputs(results: dict, out: Path) -> None:
    from render import render_markdown, render_plot

    out.mkdir(parents=True, exist_ok=True)
    slim = json.loads(json.dumps(results, default=_json_default))
    (out / "results.json").write_text(json.dumps(slim, indent=1) + "\n", encoding="utf-8")
    (out / "RESULTS.md").write_text(render_markdown(slim), encoding="utf-8")
    try:
        render_plot(slim, out / "quality-speed.png")
    except ImportError as exc:  # matplotlib is in the bench extra
        print(f"no figure: {exc} (pip install -e '.[bench]')", file=sys.stderr)


def _json_default(value):
    if isinstance(value, (np.floating, np.integer)):
        return value.item()
    if hasattr(value, "__dataclass_fields__"):
        return asdict(value)
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


if __name__ == "__main__":
    sys.exit(main())
