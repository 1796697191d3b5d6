"""Prove that a change of the code changed no output: snapshot every output of every page, then compare.

A refactor meant to change no behaviour is checked by its outputs, not by
reading it. `snapshot` runs the public API on every page of the development
sets and stores a short hash of each output field; `compare` says which
pages and fields differ between two snapshots (exit code 1 if any do).
Hashes keep a snapshot small (a few MB), so one can be kept as a baseline.

Passes per page: `default` options (and `detect_overview`); `all_on`
(include_title, include_captions, include_comments, include_links,
include_images, favor="recall"); `precision` (favor="precision"); and
`site_memory`, one MemoryTemplateStore per set, the pages in file order.
An exception is recorded as the value "EXC:<type name>", so it shows as a
difference instead of stopping the run.

    python benchmarks/same_outputs.py snapshot before.json.gz [--sets DIR...] [--limit N] [--pure]
    python benchmarks/same_outputs.py compare before.json.gz after.json.gz

Without --sets it reads the four sets in ../shared/datasets next to the
repository. --pure runs the snapshot with SCRAPY_BOILERPLATE_PURE_PYTHON=1
(the pure-Python twins of the compiled modules); compiled and pure
snapshots compare like any two. Only the standard library and the public
API are used, so the script runs unchanged before and after a refactor.
It imports the package of the current directory when that holds one (run
from a worktree, it checks that worktree's code), else of the repository
that holds the script.
"""

from __future__ import annotations

import argparse
import dataclasses
import gzip
import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "datasets"
CODE = Path.cwd() if (Path.cwd() / "scrapy_boilerplate" / "__init__.py").is_file() else ROOT
DEFAULT_SETS = ("wcxb-dev", "readability", "trafilatura-eval", "overview-dev")
PURE_ENV = "SCRAPY_BOILERPLATE_PURE_PYTHON"
FORMAT = 1
PASSES = {
    "default": {},
    "all_on": {
        "include_title": True,
        "include_captions": True,
        "include_comments": True,
        "include_links": True,
        "include_images": True,
        "favor": "recall",
    },
    "precision": {"favor": "precision"},
}
#: Extraction attributes hashed, besides the metadata's fields and to_dict (extraction_fields).
EXTRACTION_FIELDS = ("text", "markdown", "html", "title", "images", "blocks")
SITE_MEMORY_FIELDS = ("text", "blocks")
MAX_LISTED = 20  # differing (page, field) pairs listed per set and pass


def plain(value):
    """`value` as JSON-able data: objects as their public fields, numpy scalars as Python ones."""
    if isinstance(value, (str, bool, int, float)) or value is None:
        return value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value) if not f.name.startswith("_")}
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if hasattr(value, "dtype") and hasattr(value, "item"):
        return plain(value.item())  # a numpy scalar where a float or bool was
    if hasattr(value, "_asdict"):
        return plain(value._asdict())
    names = getattr(value, "__slots__", None) or list(getattr(value, "__dict__", ()))
    if names:
        return {n: plain(getattr(value, n)) for n in names if not n.startswith("_")}
    return f"{type(value).__name__}:{value}"


def digest(value) -> str:
    """A short sha1 of `value`'s canonical JSON (floats as their repr, which json writes)."""
    data = json.dumps(plain(value), sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha1(data.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def failed(exc: BaseException) -> str:
    return f"EXC:{type(exc).__name__}"


def field_hashes(make, fields) -> dict:
    """{field: hash} of the object `make()` returns; "EXC:<type>" where it, or a field, raised."""
    try:
        obj = make()
    except Exception as exc:  # noqa: BLE001 - recorded, so that it shows in the comparison
        return {name: failed(exc) for name in fields}
    out = {}
    for name in fields:
        try:
            value = getattr(obj, name)
            out[name] = digest(value() if name == "to_dict" else value)
        except Exception as exc:  # noqa: BLE001
            out[name] = failed(exc)
    return out


def overview_hashes(detect_overview, html, url) -> dict:
    try:
        verdict = plain(detect_overview(html, url=url))
    except Exception as exc:  # noqa: BLE001
        return {"overview": failed(exc)}
    return {f"overview.{k}": digest(v) for k, v in verdict.items()}


def read_pages(dataset: Path, limit: int | None):
    """(id, raw HTML bytes, url) of the pages of `dataset`, in file order."""
    with open(dataset / "pages.jsonl", encoding="utf-8") as lines:
        records = [json.loads(line) for line in lines if line.strip()]
    for record in records[:limit]:
        data = (dataset / record["html"]).read_bytes()
        if record["html"].endswith(".gz"):
            data = gzip.decompress(data)
        yield str(record["id"]), data, record.get("url")


def extraction_fields(extract) -> tuple:
    """The fields hashed: EXTRACTION_FIELDS, the metadata's (those of `Extraction.metadata`, a
    dataclass: the code under test lists them, once) and to_dict."""
    metadata = extract(b"<html><body><p>The fields of the metadata.</p></body></html>").metadata
    return (*EXTRACTION_FIELDS, *(f.name for f in dataclasses.fields(metadata)), "to_dict")


def snapshot_set(dataset: Path, limit: int | None) -> dict:
    """{pass: {page id: {field: hash}}} for one dataset."""
    from scrapy_boilerplate import MemoryTemplateStore, detect_overview, extract

    fields = extraction_fields(extract)
    out = {name: {} for name in (*PASSES, "site_memory")}
    store = MemoryTemplateStore()
    for page_id, html, url in read_pages(dataset, limit):
        for name, options in PASSES.items():
            out[name][page_id] = field_hashes(
                lambda: extract(html, url=url, **options),  # noqa: B023 - called here
                fields,
            )
        out["default"][page_id].update(overview_hashes(detect_overview, html, url))
        out["site_memory"][page_id] = field_hashes(
            lambda: extract(html, url=url, templates=store),  # noqa: B023
            SITE_MEMORY_FIELDS,
        )
    return out


def describe_code() -> dict:
    """Where the snapshot's code came from: the commit, the package file, the compiled modules."""
    import scrapy_boilerplate

    info = {
        "package": scrapy_boilerplate.__file__,
        "pure_python": os.environ.get(PURE_ENV, ""),
        "python": sys.version.split()[0],
    }
    try:
        info["commit"] = subprocess.run(
            ["git", "-C", str(CODE), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        info["commit"] = None
    try:  # not public API: only a note, never compared
        from scrapy_boilerplate.core import speedups

        info["compiled"] = speedups.available()
    except Exception:  # noqa: BLE001
        info["compiled"] = None
    return info


def snapshot(args, argv: list) -> int:
    if args.pure and os.environ.get(PURE_ENV) != "1":
        # The variable is read at import: set it in a fresh process, before anything is imported.
        return subprocess.call(
            [sys.executable, str(Path(__file__).resolve()), *argv], env={**os.environ, PURE_ENV: "1"}
        )
    sys.path.insert(0, str(CODE))
    sets = args.sets or [SHARED / name for name in DEFAULT_SETS]
    started = time.time()
    result = {"format": FORMAT, "code": describe_code(), "limit": args.limit, "sets": {}}
    for dataset in sets:
        t0 = time.time()
        result["sets"][dataset.name] = snapshot_set(dataset, args.limit)
        pages = len(result["sets"][dataset.name]["default"])
        print(f"{dataset.name}: {pages} pages in {time.time() - t0:.0f} s", file=sys.stderr)
    result["seconds"] = round(time.time() - started, 1)
    with gzip.open(args.out, "wt", encoding="utf-8") as out:
        json.dump(result, out, sort_keys=True)
    print(f"snapshot {args.out}: {result['seconds']:.0f} s, code {result['code']}")
    return 0


def load(path: Path) -> dict:
    with gzip.open(path, "rt", encoding="utf-8") as f:
        data = json.load(f)
    if data.get("format") != FORMAT:
        sys.exit(f"{path}: not a snapshot of format {FORMAT}")
    return data


def compare_pass(a: dict, b: dict) -> tuple[int, list]:
    """(identical pages, [(page id, field)] that differ) between two {page id: {field: hash}}."""
    same, differing = 0, []
    for page_id in sorted(a.keys() | b.keys()):
        if page_id not in a or page_id not in b:
            differing.append((page_id, "<page missing in %s>" % ("A" if page_id not in a else "B")))
            continue
        fields = [f for f in sorted(a[page_id].keys() | b[page_id].keys()) if a[page_id].get(f) != b[page_id].get(f)]
        differing.extend((page_id, f) for f in fields)
        same += not fields
    return same, differing


def compare(args) -> int:
    a, b = load(args.a), load(args.b)
    print(f"A {args.a}: {a['code']}\nB {args.b}: {b['code']}")
    if a.get("limit") != b.get("limit"):
        print(f"warning: the snapshots were made with --limit {a.get('limit')} and {b.get('limit')}")
    pages, passes, total = set(), set(), 0
    for name in sorted(a["sets"].keys() | b["sets"].keys()):
        set_a, set_b = a["sets"].get(name, {}), b["sets"].get(name, {})
        for pass_name in sorted(set_a.keys() | set_b.keys()):
            pass_a, pass_b = set_a.get(pass_name, {}), set_b.get(pass_name, {})
            same, differing = compare_pass(pass_a, pass_b)
            n = len(pass_a.keys() | pass_b.keys())
            pages.update((name, page_id) for page_id in pass_a.keys() | pass_b.keys())
            passes.add(pass_name)
            total += len(differing)
            print(f"{name} {pass_name}: {same}/{n} pages identical")
            for page_id, field in differing[:MAX_LISTED]:
                print(f"  differs: {page_id} {field}")
            if len(differing) > MAX_LISTED:
                print(f"  ... and {len(differing) - MAX_LISTED} more")
    print(f"same outputs: {len(pages)} pages x {len(passes)} passes, {total} differences")
    return 1 if total else 0


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    snap = commands.add_parser("snapshot", help="hash every output of every page into OUT")
    snap.add_argument("out", type=Path, metavar="OUT.json.gz")
    snap.add_argument("--sets", nargs="+", type=Path, metavar="DIR", help="dataset folders (default: the four)")
    snap.add_argument("--limit", type=int, help="the first N pages of each set")
    snap.add_argument("--pure", action="store_true", help=f"with {PURE_ENV}=1 (no compiled modules)")
    comp = commands.add_parser("compare", help="list the pages and fields that differ")
    comp.add_argument("a", type=Path, metavar="A.json.gz")
    comp.add_argument("b", type=Path, metavar="B.json.gz")
    args = parser.parse_args(argv)
    return snapshot(args, argv) if args.command == "snapshot" else compare(args)


if __name__ == "__main__":
    sys.exit(main())
