"""The ``scrapy-boilerplate`` command line (also ``python -m scrapy_boilerplate``)."""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator, Sequence

    from .core.extractor import Extractor

#: What `extract --format` (and `scrapy boilerplate --format`) print.
FORMATS = ("text", "markdown", "html", "json")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="scrapy-boilerplate",
        description="Main-content extraction: extract and explain pages, evaluate and train models.",
    )
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    _add_page_commands(sub)
    _add_dataset_commands(sub)
    return parser


def _add_page_commands(sub: Any) -> None:
    """extract, explain, overview: commands on pages."""
    from .core.overview.detector import DEFAULT_NET_TEXT_THRESHOLD

    p = sub.add_parser("extract", help="print the main content of a file, a URL or stdin (-)")
    p.add_argument("source", help="an HTML file, an http(s) URL, or - for standard input")
    p.add_argument("--url", help="the page's URL, to resolve relative links and image URLs")
    p.add_argument("--format", choices=FORMATS, default="text")
    add_option_arguments(p, ("include_links", "include_images"), default=False)
    _add_selector_options(p)
    _add_model_options(p)

    p = sub.add_parser(
        "explain",
        help="write an HTML page showing every block of a page, kept or dropped, and why (one self-contained file)",
        description="Write one self-contained HTML file (no script, nothing fetched when "
        "it is opened) that shows the page as blocks in reading order: each "
        "block kept or dropped, its content probability, the step that "
        "decided, its tag path and class/id words, and its text; at the top "
        "the overview verdict, the title and each metadata field with its "
        "source.",
    )
    p.add_argument("source", help="an HTML file, an http(s) URL, or - for standard input")
    p.add_argument("--url", help="the page's URL, to resolve relative links and image URLs")
    p.add_argument("--output", "-o", metavar="OUT.html", help="where to write the page (default: standard output)")
    _add_selector_options(p)
    _add_model_options(p)

    p = sub.add_parser("overview", help="is each page an overview page? verdict, score, reason per file")
    p.add_argument(
        "sources", nargs="+", metavar="FILE", help="HTML files (.gz too), http(s) URLs, or - for standard input"
    )
    p.add_argument("--url", help="the page's URL (its shape is evidence); only with one FILE")
    p.add_argument("--model", help="an overview model JSON file (default: the shipped overview model)")
    p.add_argument("--no-model", action="store_true", help="the plain net-text rule (TextSweeper)")
    p.add_argument(
        "--threshold",
        type=int,
        default=DEFAULT_NET_TEXT_THRESHOLD,
        help="net-text threshold in characters (the whole rule with --no-model)",
    )
    p.add_argument(
        "--cutoff", type=float, help="score at or above which a page is an overview (default: the model's own)"
    )
    p.add_argument("--json", action="store_true", help="one JSON object per file and line")


def _add_dataset_commands(sub: Any) -> None:
    """evaluate, bench, duplicates, train: commands on sets of pages."""
    from .core.duplicates.index import DEFAULT_MIN_WORDS, DEFAULT_THRESHOLD

    p = sub.add_parser(
        "evaluate",
        help="score the extractor on datasets (shingle precision, recall and F1 per page type; docs/training.md)",
    )
    p.add_argument("datasets", nargs="+", metavar="DATASET_DIR")
    p.add_argument(
        "--split",
        choices=("auto", "all", "validation", "train"),
        default="auto",
        help="pages to score: auto = the held-aside validation sites of a set the "
        "default model was trained on (wcxb-dev), all pages otherwise",
    )
    p.add_argument("--limit", type=int, help="score at most N pages per dataset")
    p.add_argument(
        "--per-page", action="store_true", help="also list every page's own precision, recall, F1 and snippet shares"
    )
    p.add_argument(
        "--worst",
        type=_count,
        default=0,
        metavar="N",
        help="also list the N pages with the lowest F1 (the lowest snippet share for pages without gold text)",
    )
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    _add_model_options(p)

    p = sub.add_parser("bench", help="time the extractor on a dataset beside lxml's parse")
    p.add_argument("dataset", metavar="DATASET_DIR")
    p.add_argument("--limit", type=int, help="time at most N pages")
    p.add_argument("--page-type", help="only pages of this page_type (e.g. article)")
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    _add_model_options(p)

    p = sub.add_parser(
        "duplicates",
        help="list the items or pages whose main text repeats an "
        "earlier one's, each with the first (docs/duplicates.md)",
        description="One line per copy: the copy, the first item or page it repeats, "
        "their similarity and how it was found (exact or near); a summary "
        "on standard error.",
    )
    p.add_argument(
        "source",
        metavar="FOLDER|ITEMS.jsonl",
        help="a folder of HTML pages (.html, .htm, .gz; extracted, in name order) or a JSON-lines file of items",
    )
    p.add_argument("--field", default="main_text", help="JSONL: the item field holding the text (default: main_text)")
    p.add_argument(
        "--key-field", default="url", help="JSONL: the field naming the item (default: url; else the line number)"
    )
    p.add_argument(
        "--threshold",
        type=float,
        default=DEFAULT_THRESHOLD,
        help=f"similarity from which two texts are copies (default: {DEFAULT_THRESHOLD})",
    )
    p.add_argument(
        "--min-words",
        type=int,
        default=DEFAULT_MIN_WORDS,
        help=f"shorter texts are not judged (default: {DEFAULT_MIN_WORDS})",
    )
    p.add_argument("--json", action="store_true", help="one JSON object per copy and line")

    p = sub.add_parser("train", help="train a block model on datasets with gold text or snippets")
    p.add_argument(
        "datasets",
        nargs="+",
        metavar="DATASET_DIR",
        help="dataset folders (pages.jsonl); with --overview also crawl sites' folders "
        "(site.json and site.tar.gz, their pages labelled: docs/training.md)",
    )
    p.add_argument("--output", "-o", required=True, help="where to write the model (JSON)")
    p.add_argument(
        "--overview",
        action="store_true",
        help='train the overview-page model from the pages\' labels ("label": "overview", '
        '"article" or "other" in pages.jsonl) instead of the block model',
    )
    p.add_argument(
        "--all-sites",
        action="store_true",
        help="block model: train on the pages of every site (by default about 20%% of the "
        "sites are held out for 'evaluate --split validation'); the overview model "
        "always uses every labelled page",
    )
    p.add_argument(
        "--recipe",
        choices=("stacked", "split"),
        default="split",
        help="block model: 'split' (default: one tree ensemble, the decoder tuned on a quarter of "
        "the training sites) or 'stacked' (the shipped model's: out-of-fold probabilities from 3 "
        "inner folds grouped by site tune the decoder on the real selection, and a second stage "
        "learns each block's context; needs pages of many sites; docs/training.md)",
    )


def _count(value: str) -> int:
    """A whole number of 1 or more (argparse type: a bad value is a usage error)."""
    try:
        number = int(value)
    except ValueError:
        number = 0
    if number < 1:
        raise argparse.ArgumentTypeError(f"expected a number of pages (1 or more), not {value!r}")
    return number


def add_option_arguments(p: argparse.ArgumentParser, names: Iterable[str], *, default: Any) -> None:
    """The extraction options `names` (core/options.py OPTIONS) as command-line options: a
    flag for a yes/no option, ``--favor`` with its choices; `default` for each (None: not given).
    `scrapy boilerplate` (commands.py) adds them the same way."""
    from .core.options import FAVORS, OPTIONS

    for name in names:
        option, doc = "--" + name.replace("_", "-"), OPTIONS[name].metadata["doc"]
        if name == "favor":
            p.add_argument(option, choices=FAVORS, default=default, help=doc)
        else:
            p.add_argument(option, action="store_true", default=default, help=doc)


def _add_model_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--model", help="a model JSON file (default: the shipped model)")
    p.add_argument("--no-model", action="store_true", help="model-free mode (CETR clustering)")
    add_option_arguments(p, ("favor",), default="balanced")
    add_option_arguments(p, ("include_title", "include_captions", "include_comments"), default=False)


def _add_selector_options(p: argparse.ArgumentParser) -> None:
    from .core.options import OPTIONS

    p.add_argument("--content-selector", metavar="CSS", help=OPTIONS["content_selector"].metadata["doc"])
    p.add_argument(
        "--exclude-selector",
        metavar="CSS",
        action="append",
        dest="exclude_selectors",
        help=OPTIONS["exclude_selectors"].metadata["doc"][:-1] + "; repeat the option for several)",
    )


def _extractor(args: argparse.Namespace) -> Extractor:
    """An Extractor with the options of the command line (the ones its subcommand has)."""
    from .core.extractor import Extractor
    from .core.options import OPTIONS

    options = {name: getattr(args, name) for name in OPTIONS if getattr(args, name, None) is not None}
    return Extractor(False if args.no_model else args.model, **options)


#: Seconds a URL given on the command line may take to fetch, in all.
FETCH_TIMEOUT = 30.0


def _read_source(source: str, url: str | None) -> tuple[bytes, str | None]:
    """The bytes of a file, a URL or standard input (-), gunzipped when gzip-compressed."""
    data, url = _read_raw(source, url)
    if data[:2] == b"\x1f\x8b":  # a .gz file (the datasets' .html.gz), whatever its name
        from .fetch import gunzip_bounded

        try:
            data = gunzip_bounded(data)  # no further than the parser reads
        except ValueError as exc:
            raise ValueError(f"{source}: {exc}") from None
    return data, url


def _read_raw(source: str, url: str | None) -> tuple[bytes, str | None]:
    if source == "-":
        return sys.stdin.buffer.read(), url
    if source.startswith(("http://", "https://")):
        # Fetching is the CLI's job, never the extractor's; bounded in size and time (fetch.py).
        from .fetch import fetch

        data, final = fetch(source, FETCH_TIMEOUT)
        return data, url or final
    if "://" in source and not Path(source).exists():
        raise ValueError(f"{source}: only http(s) URLs are fetched")
    return Path(source).read_bytes(), url


def _binary_input(source: str, data: bytes) -> bool:
    """Binary input (an executable, an image, a PDF): one line on stderr; the result is empty."""
    from .core.document.parse import looks_binary

    if not looks_binary(data):
        return False
    name = "standard input" if source == "-" else source
    print(f"scrapy-boilerplate: error: {name}: binary data, not an HTML page: nothing extracted", file=sys.stderr)
    return True


def cmd_extract(args: argparse.Namespace) -> int:
    extractor = _extractor(args)
    data, url = _read_source(args.source, args.url)
    binary = _binary_input(args.source, data)
    result = extractor.extract(data, url=url)  # empty for binary input
    if args.format == "json":
        out = json.dumps({"url": url, **result.to_dict()}, ensure_ascii=False, indent=2)
    else:
        out = {"text": result.text, "markdown": result.markdown, "html": result.html}[args.format]
    sys.stdout.write(out + ("\n" if out else ""))
    return 1 if binary else 0


def cmd_explain(args: argparse.Namespace) -> int:
    """The explain page of one page (core/render/explain.py), to a file or standard output."""
    from .core.render.explain import explain_html, written_note

    if args.output and Path(args.output).is_dir():
        raise ValueError(f"{args.output}: is a folder; give the HTML file to write")
    extractor = _extractor(args)
    data, url = _read_source(args.source, args.url)
    if _binary_input(args.source, data):
        return 1
    page = explain_html(
        data, url=url, extractor=extractor, source="standard input" if args.source == "-" else args.source
    )
    if args.output:
        Path(args.output).write_text(page, encoding="utf-8")
        print(written_note(args.output), file=sys.stderr)
    else:
        sys.stdout.write(page)
    return 0


def cmd_overview(args: argparse.Namespace) -> int:
    """One line per file: PATH, overview|article-like, score, net text length, reason (tab-separated)."""
    from .core.overview.detector import OverviewDetector

    if args.url and len(args.sources) > 1:
        raise ValueError("--url names one page: give a single FILE with it")
    detector = OverviewDetector(
        threshold=args.threshold, model=False if args.no_model else args.model, cutoff=args.cutoff
    )
    status = 0
    for source in args.sources:
        try:
            data, url = _read_source(source, args.url)
        except (OSError, ValueError) as exc:
            # One unreadable file must not hide the verdicts on the others.
            message = str(exc) if str(exc).startswith(source) else f"{source}: {exc}"
            print(f"scrapy-boilerplate: error: {message}", file=sys.stderr)
            status = 1
            continue
        verdict = detector.detect(data, url=url)
        if args.json:
            print(json.dumps({"path": source, "url": url, **verdict.to_dict()}, ensure_ascii=False))
        else:
            label = "overview" if verdict.is_overview else "article-like"
            print(f"{source}\t{label}\t{verdict.score:.4f}\t{verdict.net_text_length}\t{verdict.reason}")
        sys.stdout.flush()
    return status


def cmd_evaluate(args: argparse.Namespace) -> int:
    from .training.evaluate import evaluate_datasets

    extractor = _extractor(args)
    report = evaluate_datasets(
        [Path(d) for d in args.datasets],
        extractor,
        split=args.split,
        limit=args.limit,
        per_page=args.per_page,
        worst=args.worst,
    )
    if args.json:
        print(json.dumps(report["summaries"], indent=2, ensure_ascii=False))
    else:
        print(report["text"])
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    from .training.bench import bench_dataset, format_bench

    result = bench_dataset(Path(args.dataset), _extractor(args), limit=args.limit, page_type=args.page_type)
    print(json.dumps(result, indent=2) if args.json else format_bench(Path(args.dataset).name, result))
    return 0


def cmd_duplicates(args: argparse.Namespace) -> int:
    """One line per copy: its key, the first's key, the similarity, exact|near (tab-separated);
    a summary on standard error."""
    from .core.duplicates.index import DuplicateIndex

    index = DuplicateIndex(args.threshold, args.min_words, max_items=10**9)
    counts = {"items": 0, "judged": 0, "copies": 0}
    for key, text in _duplicate_sources(args):
        verdict = index.judge(text, key)
        counts["items"] += 1
        counts["judged"] += verdict.judged
        if not verdict.is_copy:
            continue
        counts["copies"] += 1
        if args.json:
            print(
                json.dumps(
                    {
                        "key": key,
                        "first": verdict.first,
                        "similarity": round(verdict.similarity, 4),
                        "reason": verdict.reason,
                    },
                    ensure_ascii=False,
                )
            )
        else:
            print(f"{key}\t{verdict.first}\t{verdict.similarity:.3f}\t{verdict.reason}")
        sys.stdout.flush()
    print(
        f"{counts['items']} items, {counts['judged']} judged (at least {args.min_words} words), "
        f"{counts['copies']} {'copy' if counts['copies'] == 1 else 'copies'}",
        file=sys.stderr,
    )
    return 0


def _duplicate_sources(args: argparse.Namespace) -> Iterator[tuple[str, str]]:
    """(key, text) of each page of a folder (extracted) or item of a JSONL file."""
    source = Path(args.source)
    if source.is_dir():
        extractor = _extractor_default()
        for path in sorted(
            p
            for p in source.rglob("*")
            if p.is_file() and p.name.lower().endswith((".html", ".htm", ".html.gz", ".htm.gz"))
        ):
            data, _ = _read_source(str(path), None)
            yield str(path), extractor.extract(data).text
        return
    with source.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                item = json.loads(line)
            except ValueError as exc:
                raise ValueError(f"{source}:{number}: not a JSON object ({exc})") from None
            if not isinstance(item, dict):
                raise ValueError(f"{source}:{number}: not a JSON object")
            text = item.get(args.field)
            key = item.get(args.key_field)
            yield (key if isinstance(key, str) and key else f"{source}:{number}", text if isinstance(text, str) else "")


def _extractor_default() -> Extractor:
    from .core.extractor import Extractor

    return Extractor()


def cmd_train(args: argparse.Namespace) -> int:
    from .training.datasets import load_datasets
    from .training.train import train

    pages = load_datasets([Path(d) for d in args.datasets], sites=args.overview)
    command = "scrapy-boilerplate " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    names = [Path(d).name for d in args.datasets]
    log = lambda m: print(m, file=sys.stderr)  # noqa: E731
    if args.overview:
        from .training.overview import train_overview

        model = train_overview(pages, command, names, log=log)
    else:
        from .training.recipes import train_recipe

        make = train_recipe if args.recipe == "stacked" else train
        model = make(pages, command, names, log=log, all_sites=args.all_sites)
    model.save(args.output)
    print(f"model written to {args.output}", file=sys.stderr)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.version:
        from . import __version__
        from .core import speedups

        built = speedups.available()
        compiled = ", ".join(name for name, ok in built.items() if ok) or "none"
        print(f"{__version__} (compiled modules: {compiled}; Python {sys.version.split()[0]})")
        return 0
    handlers = {
        "extract": cmd_extract,
        "explain": cmd_explain,
        "overview": cmd_overview,
        "evaluate": cmd_evaluate,
        "bench": cmd_bench,
        "train": cmd_train,
        "duplicates": cmd_duplicates,
    }
    if args.command not in handlers:
        parser.print_help()
        return 2
    try:
        return handlers[args.command](args)
    except (OSError, ValueError) as exc:
        print(f"scrapy-boilerplate: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
