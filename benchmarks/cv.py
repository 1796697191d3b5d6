"""Cross-validation grouped by site over every labelled set (training/cv.py): the figure every
model change is judged by. Writes benchmarks/CV.md (5 folds, the figure of record) and
CV-3folds.md (3 folds, screens): generated, do not edit by hand.

    OMP_NUM_THREADS=1 python benchmarks/cv.py --folds 3 --run shipped trafilatura today
    python benchmarks/cv.py --folds 5 --report          # the tables from the stored runs

Each run's per-page rows are stored in the cache folder (training/cache.py), so a report is
redrawn without extracting again and a new recipe is compared with the stored ones on the
same pages (paired bootstrap). Not in CI: a 5-fold run of one recipe takes about ten minutes
of two cores.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scrapy_boilerplate.core.scoring.model import load_model
from scrapy_boilerplate.core.selection import steps
from scrapy_boilerplate.training import cv, recipes
from scrapy_boilerplate.training.cache import cache_dir
from scrapy_boilerplate.training.conventions import LABELLED, NARROW
from scrapy_boilerplate.training.datasets import is_validation_site

DATASETS = Path(__file__).resolve().parent.parent.parent / "shared" / "datasets"
OUT = Path(__file__).resolve().parent / "CV.md"

SHIPPED_DECODER = {
    "threshold": 0.65,
    "switch_penalty": 0.5,
    "size_weight": 0.5,
    "min_segment_share": 0.05,
    "max_gap": 12,
    "min_probability": 0.3,
}
#: The recipes (training/recipes.py Recipe): what each makes from a fold's training sites.
RECIPES = {
    # today's `train wcxb-dev trafilatura-eval`: the decoder tuned on select_blocks
    "today": recipes.Recipe("today", sets=NARROW, tune="short"),
    # the same, its decoder tuned on the real selection (every step)
    "today-sel": recipes.Recipe("today-sel", sets=NARROW),
    # all six sets, the wide golds as they are
    "all-raw": recipes.Recipe("all-raw", mask_wide=False),
    # all six sets, the wide golds' positives masked but for long body paragraphs
    "all-masked": recipes.Recipe("all-masked"),
    "all-masked-w0.5": recipes.Recipe("all-masked-w0.5", wide_weight=0.5),
    "all-masked-w0.25": recipes.Recipe("all-masked-w0.25", wide_weight=0.25),
    # the decoder tuned on the narrow-convention sets only (wcxb-dev, trafilatura-eval)
    "all-masked-tn": recipes.Recipe("all-masked-tn", tune_sets=NARROW),
    "all-raw-tn": recipes.Recipe("all-raw-tn", mask_wide=False, tune_sets=NARROW),
    "all-masked-w0.5-tn": recipes.Recipe("all-masked-w0.5-tn", wide_weight=0.5, tune_sets=NARROW),
    # the shipped model's decoder parameters, not tuned (is the tuning the weak part?)
    "today-shipdec": recipes.Recipe("today-shipdec", sets=NARROW, tune="fixed", decoder=SHIPPED_DECODER),
    "all-masked-shipdec": recipes.Recipe("all-masked-shipdec", tune="fixed", decoder=SHIPPED_DECODER),
    # the learning curve: a quarter and a half of each fold's training sites
    "all-masked-25%": recipes.Recipe("all-masked-25%", train_share=0.25),
    "all-masked-50%": recipes.Recipe("all-masked-50%", train_share=0.5),
    # the learning curve of the shipped model's data (wcxb-dev, trafilatura-eval)
    "today-25%": recipes.Recipe("today-25%", sets=NARROW, tune="short", train_share=0.25),
    "today-50%": recipes.Recipe("today-50%", sets=NARROW, tune="short", train_share=0.5),
    # out-of-fold probabilities from 3 inner folds (grouped by site) tune the decoder on every
    # training page through the real selection (a coarse grid searched whole); each also makes
    # NAME+stack, a second stage over the OOF probabilities' context (core/scoring/context.py)
    "today-oof": recipes.Recipe("today-oof", sets=NARROW, tune="oof", stack=True),
    # all six sets, wide golds masked, each wide set's negatives weighed down to the narrow
    # sets' content : boilerplate ratio, the decoder tuned on the narrow sets
    "all-bal-oof": recipes.Recipe("all-bal-oof", tune="oof", stack=True, wide_negatives="balanced", tune_sets=NARROW),
    # the same weights, the decoder tuned as the older recipes (a quarter of the training sites):
    # a cheaper screen of the weights alone
    "all-bal-tn": recipes.Recipe("all-bal-tn", wide_negatives="balanced", tune_sets=NARROW),
    # the stacked recipe with a sequence model over the blocks (core/scoring/sequence.py, issue
    # 49): NAME+seq is it alone in place of the second stage's trees, NAME+seqstack the trees
    # reading its probability beside the context; NAME+stack is today-oof+stack (the same fits)
    "today-seq": recipes.Recipe("today-seq", sets=NARROW, tune="oof", stack=True, sequence="conv"),
    # the same with a bidirectional GRU (core/scoring/recurrent.py) as the sequence model
    "today-gru": recipes.Recipe("today-gru", sets=NARROW, tune="oof", stack=True, sequence="gru"),
    # the stacked recipe, the listings a gold leaves out inside its content not taught
    # (conventions.unlabelled_code): the shipped recipe, `train --recipe stacked`
    "today-code": recipes.SHIPPED_RECIPE,
    "all-raw-oof": recipes.Recipe("all-raw-oof", tune="oof", stack=True, mask_wide=False, tune_sets=NARROW),
}


#: What the report says of a run (a recipe's comment in RECIPES says the rest).
DESCRIPTIONS = {
    "trafilatura": "trafilatura 2.3 with tables, without comments",
    "today": "the split recipe, `train`'s default (the model shipped before issue 38)",
    "today-oof": "the stacked recipe's first stage alone",
    "today-oof+stack": "the stacked recipe without the code convention (the model shipped before it)",
    "today-seq+stack": "the stacked recipe (today-oof+stack), made by the same fits as the two below",
    "today-seq+seq": "the sequence model (core/scoring/sequence.py) in place of the second stage's trees",
    "today-seq+seqstack": "the second stage's trees reading the sequence model's probability beside the context",
    "today-code+stack": (
        "the stacked recipe, code a gold leaves out inside its content masked in training "
        "(`train --recipe stacked`: the shipped model's)"
    ),
    "today-gru+stack": "the stacked recipe (today-oof+stack), made by the same fits as the two below",
    "today-gru+seq": "a bidirectional GRU (core/scoring/recurrent.py) in place of the second stage's trees",
    "today-gru+seqstack": "the second stage's trees reading the GRU's probability beside the context",
}


def result_names() -> list[str]:
    """Every run name a recipe stores (a stacking recipe stores NAME and NAME+stack)."""
    out = []
    for name, r in RECIPES.items():
        if r.sequence:
            out += [name + "+stack", name + "+seq", name + "+seqstack"]
        else:
            out += [name, name + "+stack"] if r.stack else [name]
    return out


#: Extractors that do not learn from the folds: scored once on every page.
FIXED = ("shipped", "trafilatura")
#: The report's default run to compare with.
REFERENCE = "shipped"


def _shipped():
    from scrapy_boilerplate.core.extractor import Extractor

    return Extractor()


def _trafilatura():
    import trafilatura

    def run(html, url):
        # As benchmarks/extractors.py: plain text, tables kept, comments left out.
        return (
            trafilatura.extract(html, url=url, output_format="txt", include_comments=False, include_tables=True) or ""
        )

    return run


def results_dir(cache: str | None) -> Path:
    path = cache_dir(cache) / "results"
    path.mkdir(parents=True, exist_ok=True)
    return path


def run(names: list[str], folds: int, cache: str | None, processes: int, untouched: bool) -> None:
    items = cv.corpus([DATASETS / name for name in LABELLED], folds, cache, processes, log=_log)
    counted = {k: sum(1 for it in items if it.fold == k) for k in range(-1, folds)}
    _log(f"{len(items)} pages, {len({it.group for it in items})} site groups, pages per fold (-1: untouched) {counted}")
    out = results_dir(cache)
    cv_items = [it for it in items if it.fold != -1]
    learned = [name for name in names if name not in FIXED]
    if learned and not untouched:
        start = time.time()
        models_dir = out / "models"
        models_dir.mkdir(exist_ok=True)
        results = cv.cross_validate([RECIPES[name] for name in learned], cv_items, folds, processes, _log, models_dir)
        seconds = round(time.time() - start)
        for name, (rows, decoders) in results.items():
            file = out / f"{name}-{folds}f.json"
            file.write_text(
                json.dumps(
                    {
                        "name": name,
                        "folds": folds,
                        "rows": rows,
                        "decoders": decoders,
                        "seconds": seconds,
                        "together": learned,
                    }
                )
            )
            _log(f"{name} -> {file}")
    for name in names:
        start = time.time()
        if name in FIXED:
            file = out / f"{name}.json"
            make = _shipped if name == "shipped" else _trafilatura
            rows = cv.fixed_rows(make, items, processes)
            for row, it in zip(rows, items):
                row["fold"] = it.fold
            record = {"name": name, "rows": rows}
        elif untouched:
            for variant, rows in cv.untouched_rows(RECIPES[name], items, _log).items():
                file = out / f"{variant}-untouched.json"
                record = {"name": variant, "rows": rows, "seconds": round(time.time() - start)}
                file.write_text(json.dumps(record))
                _log(f"{variant}: {record['seconds']}s -> {file}")
            continue
        else:
            continue
        record["seconds"] = round(time.time() - start)
        file.write_text(json.dumps(record))
        _log(f"{name}: {record['seconds']}s -> {file}")


def _stored_run(source: str, folds: int, cache: str | None, processes: int) -> tuple[dict, list, list | None]:
    """A stored run, the corpus and the run's fold models (None when it did not keep them)."""
    out = results_dir(cache)
    stored = json.loads((out / f"{source}-{folds}f.json").read_text())
    items = cv.corpus([DATASETS / n for n in LABELLED], folds, cache, processes, log=_log)
    # The run's fold models, when it kept them: the whole extraction is replayed, fallbacks included.
    files = [out / "models" / f"{source}-fold{k}.json" for k in range(folds)]
    models = [load_model(f) for f in files] if all(f.exists() for f in files) else None
    _log(f"replaying {source} {'with its fold models' if models else 'from its probabilities (no fold models kept)'}")
    return stored, items, models


def replay(source: str, name: str, folds: int, cache: str | None, processes: int) -> None:
    out = results_dir(cache)
    stored, items, models = _stored_run(source, folds, cache, processes)
    start = time.time()
    rows = cv.replay_rows(stored["rows"], stored["decoders"], items, processes, models)
    record = {
        "name": name,
        "folds": folds,
        "rows": rows,
        "decoders": stored["decoders"],
        "seconds": round(time.time() - start),
        "replayed_from": source,
    }
    file = out / f"{name}-{folds}f.json"
    file.write_text(json.dumps(record))
    _log(f"{name} (replay of {source}): {record['seconds']}s -> {file}")


#: Steps not put to elimination: the decoder, and the steps that serve an option or a structure
#: (comments, captions, data tables, code blocks, site rules, site memory), judged by their own
#: tests and the tables and structure checks.
NOT_ELIMINATED = frozenset(
    (
        "adjust_by_site_memory",
        "apply_site_rule",
        "decode",
        "drop_photo_captions",
        "keep_comments",
        "decide_data_tables",
        "decide_code_blocks",
        "keep_listing_captions",
        "keep_within_site_rule",
        "trust_site_rule",
    )
)


def eliminable() -> list[str]:
    """The steps --eliminate may remove, in the order they run: every step of selection/steps.py
    STEPS (the decoder's steps after its Viterbi pass and the fallbacks among them) but
    NOT_ELIMINATED."""
    return [step.name for step in steps.STEPS if step.name not in NOT_ELIMINATED]


@contextlib.contextmanager
def _without_steps(names: tuple[str, ...]) -> Iterator[None]:
    """selection/steps.py's STEPS without `names` (the replay's workers are forked from this
    process, so they run the steps it left)."""
    saved = steps.STEPS
    steps.STEPS = tuple(step for step in saved if step.name not in names)
    try:
        yield
    finally:
        steps.STEPS = saved


def eliminate(source: str, folds: int, cache: str | None, processes: int) -> list[str]:
    """Backward elimination of the selection's steps on a stored run's fold models (issue 38):
    each round replays the run without each remaining step, removes the one whose removal costs
    least (the highest worst slice, as a paired-bootstrap difference over its standard error, of
    every set and page type), and stops when every removal would lower a slice by more than one
    standard error. Prints each candidate's worst slice and the pages it moves (F1 by .05 or
    more); returns the steps removed. One page's loss alone is about one standard error of its
    slice, so a step that moves one page sits on the line."""
    stored, items, models = _stored_run(source, folds, cache, processes)

    def scored(removed: tuple[str, ...]) -> list[dict]:
        with _without_steps(removed):
            return cv.replay_rows(stored["rows"], stored["decoders"], items, processes, models)

    candidates = eliminable()
    _log(f"steps that may be removed: {', '.join(candidates)}")
    removed: tuple[str, ...] = ()
    base = scored(removed)
    while True:
        costs = {}
        for name in candidates:
            if name in removed:
                continue
            rows = scored((*removed, name))
            sa, sb = cv.slices(base), cv.slices(rows)
            ratios = {}
            for slice_name, part in sa.items():
                b = cv.paired_bootstrap(part, sb[slice_name], n=400)
                ratios[slice_name] = b["diff"] / b["se"] if b["se"] > 0 else 0.0
            worst = min(ratios, key=lambda k: ratios[k])
            moved = sum(abs((x["f1"] or 0) - (y["f1"] or 0)) >= 0.05 for x, y in zip(base, rows))
            costs[name] = (ratios[worst], rows)
            _log(f"  without {name}: worst {worst} {ratios[worst]:+.2f} SE, {moved} pages moved")
        if not costs:
            break
        name = max(costs, key=lambda k: costs[k][0])
        if costs[name][0] < -1:
            _log(f"stop: removing {name}, the cheapest, would lower a slice by {-costs[name][0]:.2f} SE")
            break
        removed, base = (*removed, name), costs[name][1]
        _log(f"removed: {', '.join(removed)}")
    return list(removed)


def _log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def _fmt(value, digits: int = 3) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _in_sample(row: dict, sites: dict) -> bool:
    """A page the shipped model was trained on: wcxb-dev and trafilatura-eval outside its
    validation sites (training/datasets.py is_validation_site)."""
    return row["set"] in NARROW and not is_validation_site(sites[(row["set"], row["id"])])


def _load_runs(folds: int, cache: str | None, names: list[str] | None, untouched: bool):
    out = results_dir(cache)
    runs: dict[str, list[dict]] = {}
    meta: dict[str, dict] = {}
    for name in FIXED:
        if (out / f"{name}.json").exists():
            rows = json.loads((out / f"{name}.json").read_text())["rows"]
            runs[name] = [r for r in rows if (r["fold"] == -1) == untouched]
    for name in names or result_names():
        file = out / (f"{name}-untouched.json" if untouched else f"{name}-{folds}f.json")
        if file.exists():
            record = json.loads(file.read_text())
            runs[name], meta[name] = record["rows"], record
    return runs, meta


def _tables(runs: dict[str, list[dict]], reference: str, outside: set) -> list[str]:
    """One table per slice (set, set/page type): every run's P, R, F1, catastrophic pages and
    its difference to `reference` (and, on the narrow sets, on the out-of-sample pages only)."""
    lines = []
    ref = runs.get(reference)
    all_rows = [row for rows in runs.values() for row in rows]
    for slice_name in cv.slices(all_rows):
        narrow = slice_name.split("/")[0] in NARROW and bool(outside)
        lines += [
            f"### {slice_name}",
            "",
            "| extractor | pages | P | R | F1 | cat | Δ F1 [95 %] |"
            + (" Δ F1 out of sample [95 %] (pages) |" if narrow else ""),
            "|---|---:|---:|---:|---:|---:|---|" + ("---|" if narrow else ""),
        ]
        for name, rows in runs.items():
            part = cv.slices(rows).get(slice_name)
            if not part or (name == "shipped (out of sample)" and not narrow):
                continue
            s = cv.summary(part)
            delta = ""
            if ref is not None and name != reference and not name.startswith(reference + " ("):
                ref_part = cv.slices(ref).get(slice_name, [])
                b = cv.paired_bootstrap(ref_part, part)
                if b.get("pages"):
                    delta = f"{b['diff']:+.3f} [{b['low']:+.3f}, {b['high']:+.3f}]"
                if narrow:
                    # against the shipped model on the pages it was not trained on only
                    b = cv.paired_bootstrap(
                        [r for r in ref_part if (r["set"], r["id"]) in outside],
                        [r for r in part if (r["set"], r["id"]) in outside],
                    )
                    delta += " | " + (
                        f"{b['diff']:+.3f} [{b['low']:+.3f}, {b['high']:+.3f}] ({b['pages']})" if b.get("pages") else ""
                    )
            elif narrow:
                delta += " | "
            lines.append(
                f"| {name} | {s['pages']} | {_fmt(s['p'])} | {_fmt(s['r'])} | {_fmt(s['f1'])} | "
                f"{s['catastrophic']} | {delta} |"
            )
        lines.append("")
    return lines


def _overview(runs: dict[str, list[dict]]) -> list[str]:
    """F1 per set, one row per run (catastrophic pages in brackets)."""
    sets = [name for name in LABELLED if any(r["set"] == name for rows in runs.values() for r in rows)]
    lines = ["| extractor | " + " | ".join(sets) + " |", "|---|" + "---:|" * len(sets)]
    for name, rows in runs.items():
        by_set = cv.slices(rows)
        cells = []
        for set_name in sets:
            part = by_set.get(set_name)
            if part:
                s = cv.summary(part)
                cells.append(f"{s['f1']:.3f} ({s['catastrophic']})")
            else:
                cells.append("-")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return lines + [""]


def _describe(name: str, record: dict) -> str:
    if record.get("replayed_from"):
        return f"`{record['replayed_from']}`'s fold models replayed through this revision's code (`--replay`)"
    for share in ("25%", "50%"):
        if name.endswith("-" + share):
            return f"`{name[: -len(share) - 1]}` on {share} of each fold's training sites"
    return DESCRIPTIONS.get(name, "")


def report(folds: int, cache: str | None, reference: str, names: list[str] | None) -> str:
    from scrapy_boilerplate.training.datasets import load_dataset

    runs, meta = _load_runs(folds, cache, names, untouched=False)
    sites = {(p.dataset, p.id): p.site for name in NARROW for p in load_dataset(DATASETS / name)}
    if "shipped" in runs:
        runs["shipped (out of sample)"] = [r for r in runs["shipped"] if not _in_sample(r, sites)]
    described = {name: _describe(name, meta.get(name, {})) for name in runs}
    outside = {(r["set"], r["id"]) for r in runs.get("shipped (out of sample)", [])}
    # the command that makes this file again: the options given, not only the defaults
    command = f"benchmarks/cv.py --folds {folds} --report"
    if reference != REFERENCE:
        command += f" --reference {reference}"
    if names:
        command += " --names " + " ".join(names)
    lines = [
        f"# Cross-validated figures ({folds} folds, grouped by site)",
        "",
        f"Generated by `{command}` (do not edit by hand); "
        'the protocol: docs/training.md, "Cross-validation"; the recipes: `RECIPES` in '
        "benchmarks/cv.py.",
        "",
        "Each page is scored by the model made without its fold (recipes) or by a fixed "
        "extractor (`shipped`: the shipped model, trained on wcxb-dev and trafilatura-eval "
        "outside their validation sites, so its figures on those two sets are mostly *in "
        "sample*; `shipped (out of sample)` keeps only the pages it did not see; "
        "`trafilatura`: trafilatura 2.3 with tables, without comments). dragnet, cleaneval "
        "and googletrends-2017 are scored with include_title and include_captions (their "
        "gold keeps them); trafilatura-eval's P and R are the shares of `without` snippets "
        "left out and of `with` snippets found. cat = pages with F1 < 0.3. "
        f"Δ = F1 minus `{reference}`'s on the same pages, with the paired bootstrap's "
        "95 % interval (1,000 resamples of pages).",
        "",
        "Runs: " + "; ".join(f"`{name}`: {text}" for name, text in described.items() if text) + ".",
        "",
        "## F1 per set (catastrophic pages)",
        "",
        *_overview(runs),
    ]
    for base in ("today", "all-masked"):
        curve = [name for name in (f"{base}-25%", f"{base}-50%", base) if name in runs]
        if len(curve) > 1:
            lines += [
                f"## Learning curve ({base})",
                "",
                f"The `{base}` recipe on a quarter, a half and all of each fold's training sites:",
                "",
                *_overview({name: runs[name] for name in curve}),
            ]
    untouched_runs, _ = _load_runs(folds, cache, names, untouched=True)
    if "shipped" in untouched_runs:
        untouched_runs["shipped (out of sample)"] = [r for r in untouched_runs["shipped"] if not _in_sample(r, sites)]
    if any(name not in FIXED for name in untouched_runs):
        lines += [
            "## Untouched sites",
            "",
            "The 15 % of site groups held out of every fold, scored once: the recipes trained on "
            "all the other sites. The shipped model was trained on most untouched sites of "
            "wcxb-dev and trafilatura-eval: `shipped (out of sample)` and the last column "
            "compare on the others only.",
            "",
            *_overview(untouched_runs),
            *_tables(
                untouched_runs,
                reference,
                {(r["set"], r["id"]) for r in untouched_runs.get("shipped (out of sample)", [])},
            ),
        ]
    lines += ["## Runs", ""]
    for name in runs:
        if name in meta and meta[name].get("replayed_from"):
            lines.append(
                f"- `{name}`: `{meta[name]['replayed_from']}`'s fold models and decoders replayed through "
                "the code of the report's revision (`--replay`)"
            )
        elif name in meta and meta[name].get("decoders"):
            lines.append(
                f"- `{name}`: decoder per fold: "
                + "; ".join(json.dumps(d, sort_keys=True) for d in meta[name]["decoders"])
            )
    lines += ["", "## Per set and page type", "", *_tables(runs, reference, outside)]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--folds", type=int, default=3)
    parser.add_argument("--run", nargs="*", default=[], help=f"recipes {sorted(RECIPES)} or {FIXED}".replace("%", "%%"))
    parser.add_argument(
        "--untouched",
        action="store_true",
        help="train the --run recipes on all CV sites, score the untouched ones (once)",
    )
    parser.add_argument(
        "--replay",
        nargs=2,
        metavar=("RUN", "AS"),
        help="score the stored run RUN again from its out-of-fold probabilities through today's selection, "
        "stored as AS (a change to the decoder or the steps, screened without training: training/cv.py replay_rows)",
    )
    parser.add_argument(
        "--eliminate",
        metavar="RUN",
        help="backward elimination of the selection's steps (the decoder's and the fallbacks among them; "
        "--list-steps), replaying the stored run RUN (with its fold models)",
    )
    parser.add_argument(
        "--list-steps", action="store_true", help="list the steps --eliminate may remove, in the order they run"
    )
    parser.add_argument("--report", action="store_true", help=f"write {OUT.name} from the stored runs")
    parser.add_argument(
        "--reference", default=REFERENCE, help=f"the run the others are compared with (default: {REFERENCE})"
    )
    parser.add_argument("--names", nargs="*", help="the recipes in the report (default: all stored)")
    parser.add_argument(
        "--output", type=Path, default=None, help=f"default: {OUT.name} for 5 folds, CV-3folds.md for 3 (screens)"
    )
    parser.add_argument("--cache", default=None, help="cache folder (default ~/.cache/scrapy-boilerplate-cv)")
    parser.add_argument("--processes", type=int, default=2)
    args = parser.parse_args()
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    if args.run:
        unknown = [n for n in args.run if n not in RECIPES and n not in FIXED]
        if unknown:
            parser.error(f"unknown recipe(s): {unknown}")
        run(args.run, args.folds, args.cache, args.processes, args.untouched)
    if args.replay:
        replay(*args.replay, args.folds, args.cache, args.processes)
    if args.list_steps:
        print("\n".join(eliminable()))
    if args.eliminate:
        eliminate(args.eliminate, args.folds, args.cache, args.processes)
    if args.report:
        if args.output is None:
            args.output = OUT if args.folds == 5 else OUT.with_name(f"CV-{args.folds}folds.md")
        args.output.write_text(report(args.folds, args.cache, args.reference, args.names) + "\n")
        _log(f"wrote {args.output}")


if __name__ == "__main__":
    main()
