"""RESULTS.md and quality-speed.png from the results of report.py (results.json).

python benchmarks/report.py --from-json benchmarks/results.json   # re-render only
"""

from __future__ import annotations

import math
from pathlib import Path

OURS = "ours"
BASELINE = "lxml"
# Our other modes: in the tables below the others, not in the figure nor the bold of the main table.
VARIANTS = ("ours_recall", "ours_no_model", "ours_pure_python")
SET_TITLES = {"wcxb-dev": "wcxb-dev", "readability": "readability", "trafilatura-eval": "trafilatura-eval"}


def fmt(value, spec: str = ".3f", none: str = "–") -> str:
    return none if value is None else format(value, spec)


def pct(value, none: str = "–") -> str:
    return none if value is None else f"{100 * value:.1f} %"


def tools_in_order(extraction: dict) -> list[str]:
    """Ours first, then by F1 on the first gold-text set, lxml's parse apart."""
    tools = extraction["tools"]
    first = next((s for s, info in extraction["sets"].items() if info["gold"] == "text"), None)

    def key(name):
        quality = tools[name].get("quality", {}).get(first, {}).get("all", {})
        return -(quality.get("f1") or 0)

    rest = sorted((n for n in tools if n not in (OURS, BASELINE, *VARIANTS)), key=key)
    variants = [n for n in VARIANTS if n in tools]
    return ([OURS] if OURS in tools else []) + rest + variants


def set_caption(name: str, info: dict) -> str:
    split = "validation sites" if info["split"] == "validation" else "all pages"
    return f"{name} ({info['pages']} pages, {split})"


# --- Markdown -------------------------------------------------------------------------------


def render_markdown(results: dict) -> str:
    m = results["machine"]
    ex = results["extraction"]
    sets = ex["sets"]
    tools = ex["tools"]
    order = tools_in_order(ex)
    lines: list[str] = []
    add = lines.append

    add("# Benchmark results")
    add("")
    add(
        "Main-content extraction and overview detection of `scrapy_boilerplate` beside the well-known "
        "Python extractors, on the same pages, in one run. Regenerate everything on this page with "
        "`python benchmarks/report.py` (see [README.md](README.md) in this folder)."
    )
    add("")
    add(
        f"- Date: {m['date']}; code: revision {m['revision']}; command: `{results['command']}` "
        f"({results.get('seconds', 0) / 60:.1f} minutes)."
    )
    add(
        f"- Machine: {m['cpu']}, {m['cpus']} CPUs (shared with other work; load average at the start "
        f"{', '.join(f'{v:.1f}' for v in m['load_average'] or [])}); {m['platform']}; Python {m['python']}; "
        f"compiled modules {'built' if m['compiled_modules'] else 'NOT built'}."
    )
    add("- Versions: " + ", ".join(f"{k} {v}" for k, v in m["versions"].items()) + ".")
    dev = [s for s, info in sets.items() if info.get("development")]
    add(
        "- Pages: " + "; ".join(set_caption(s, info) for s, info in sets.items()) + ". Sets the shipped "
        "model was trained on count with their held-aside validation sites only (chosen by a hash of "
        "the site name); the other sets entirely."
    )
    if dev:
        add(
            f"- **Development figures.** The validation sites of {' and '.join(dev)} were used to guide "
            "the extractor's development (features, thresholds, decoder choices were kept when they "
            "helped there), so its figures on them are development figures, not a blind test; "
            "`readability` was never trained or tuned on as a whole but was looked at too. Other "
            "libraries were never fitted to any of these pages."
        )
    s = results["settings"]
    add(
        f"- Each library runs in its own worker process, at most {s['jobs']} at a time, with a limit of "
        f"{s['timeout_s']:g} s per page: a timeout or a crash is that library's failure on that page "
        "(empty output). Workers cannot reach the network."
    )
    add("")

    lines += cv_section(Path(__file__).with_name("CV.md"))

    # The main table.
    add("## Main table")
    add("")
    add(
        "Content F1 (word 4-gram shingles, macro-averaged precision and recall over pages, "
        "± the 95 % bootstrap half-width), the share of pages extracted catastrophically "
        f"(page F1 below {s['catastrophic_below']}; on trafilatura-eval, which has snippets instead of "
        "full gold, fewer than 30 % of the page's `with` snippets found), and speed over all pages of "
        "the three sets (CPU time of the extraction call on one core, library loaded and warmed up)."
    )
    add("")
    text_sets = [n for n, info in sets.items() if info["gold"] == "text"]
    snippet_sets = [n for n, info in sets.items() if info["gold"] == "snippets"]
    header = ["extractor"]
    for name in text_sets:
        header += [f"{name} F1", f"{name} catastrophic"]
    for name in snippet_sets:
        header += [f"{name} with / without", f"{name} catastrophic"]
    header += ["median ms", "p90 ms", "pages/s"]
    add("| " + " | ".join(header) + " |")
    add("|" + "---|" * len(header))
    best = _best(ex, text_sets, snippet_sets, order)
    for name in order:
        tool = tools[name]
        row = [_label(tool, name)]
        if tool["status"] != "ok":
            add("| " + " | ".join(row + [tool["status"]] + [""] * (len(header) - 2)) + " |")
            continue
        for set_name in text_sets:
            q = tool["quality"][set_name]
            f1 = fmt(q["all"]["f1"]) + f" ± {fmt(q['all']['f1_ci'], '.3f')}"
            row += [
                _bold(f1, best.get((set_name, "f1")) == name),
                _bold(pct(q["catastrophic"]), best.get((set_name, "cat")) == name),
            ]
        for set_name in snippet_sets:
            q = tool["quality"][set_name]
            row += [
                f"{fmt(q['all']['with_share'])} / {fmt(q['all']['without_share'])}",
                _bold(pct(q["catastrophic"]), best.get((set_name, "cat")) == name),
            ]
        sp = tool.get("speed", {})
        row += [fmt(sp.get("median_ms"), ".1f"), fmt(sp.get("p90_ms"), ".1f"), fmt(sp.get("pages_per_s"), ".0f")]
        add("| " + " | ".join(row) + " |")
    base = tools.get(BASELINE, {}).get("speed")
    if base:
        blanks = " |" * (len(header) - 4)
        add(
            f"| *lxml parse only (the floor)* |{blanks} {fmt(base['median_ms'], '.1f')} | "
            f"{fmt(base['p90_ms'], '.1f')} | {fmt(base['pages_per_s'], '.0f')} |"
        )
    add("")
    add(
        "Bold: the best value of a column among the extractors (`html-text` returns all the page's "
        "text: it is the recall baseline, not an extractor). In italics, other modes of "
        '`scrapy_boilerplate`: `Extractor(favor="recall")`, the model-free `Extractor(model=False)`, '
        "and the default extractor without its compiled modules (`SCRAPY_BOILERPLATE_PURE_PYTHON=1`, "
        "the same output, as where they cannot be built). Full gold: `wcxb-dev` (human-reviewed main "
        "text of articles, listings, forums, products, documentation and service pages) and "
        "`readability` (Mozilla Readability.js's expected output, which leans towards Readability's "
        "own choices)."
    )
    add("")
    add("![F1 against pages per second](quality-speed.png)")
    add("")

    # Per page type.
    for set_name in text_sets:
        types = sets[set_name].get("page_types", {})
        if len(types) <= 1:
            continue
        add(f"## {set_name}: F1 and catastrophic share by page type")
        add("")
        type_names = list(types)
        add("| extractor | " + " | ".join(f"{t} ({types[t]})" for t in type_names) + " |")
        add("|---|" + "---|" * len(type_names))
        for name in order:
            tool = tools[name]
            if tool["status"] != "ok":
                continue
            q = tool["quality"][set_name]
            cells = [
                f"{fmt(q['by_type'].get(t, {}).get('f1'))} ({pct(q['catastrophic_by_type'].get(t), '–')})"
                for t in type_names
            ]
            add(f"| {_label(tool, name)} | " + " | ".join(cells) + " |")
        add("")
        add("Each cell: F1 (share of pages below F1 0.3). Page counts in the header.")
        add("")

    # Details per set.
    add("## Quality in detail")
    add("")
    add(
        "P and R: shingle precision and recall averaged over pages (a page with an empty output counts "
        "in recall only); BoW and LCS: bag-of-words and longest-common-subsequence F1 per page, averaged "
        "(Yao & Zuo); with / without: the share of `with` snippets found and of `without` snippets "
        "absent; failures: timeouts and exceptions (timeouts in brackets); empty: pages with no output."
    )
    add("")
    for set_name, info in sets.items():
        add(f"**{set_caption(set_name, info)}**")
        add("")
        snippets = info["gold"] == "snippets"
        if snippets:
            add("| extractor | with | without | snippet F1 | failures | empty |")
            add("|---|---|---|---|---|---|")
        else:
            add("| extractor | P | R | F1 ± | BoW F1 | LCS F1 | with | without | failures | empty |")
            add("|---|---|---|---|---|---|---|---|---|---|")
        for name in order:
            tool = tools[name]
            if tool["status"] != "ok":
                continue
            q = tool["quality"][set_name]
            a = q["all"]
            if snippets:
                add(
                    f"| {_label(tool, name)} | {fmt(a['with_share'])} | {fmt(a['without_share'])} | "
                    f"{fmt(_harmonic(a['with_share'], a['without_share']))} | {q['failures']} ({q['timeouts']}) | "
                    f"{q['empty']} |"
                )
                continue
            add(
                f"| {_label(tool, name)} | {fmt(a['precision'])} | {fmt(a['recall'])} | "
                f"{fmt(a['f1'])} ± {fmt(a['f1_ci'])} | {fmt(a['bow_f1'])} | {fmt(a['lcs_f1'])} | "
                f"{fmt(a['with_share'])} | {fmt(a['without_share'])} | {q['failures']} ({q['timeouts']}) | "
                f"{q['empty']} |"
            )
        add("")
        if snippets:
            add("Snippet F1: the harmonic mean of the two shares.")
            add("")

    # Speed.
    add("## Speed and memory")
    add("")
    add(
        "CPU milliseconds per page of the extraction call on one core (the library imported and warmed "
        "up on a small page first), per set; × lxml: total time over lxml's own parse of the same pages "
        "(`lxml.html.fromstring`); peak MB: the worker process's peak resident memory (interpreter, "
        "library and the largest page it met); idle MB: the same after import and warm-up."
    )
    add("")
    header = ["extractor"] + [f"{s} median / p90 ms" for s in sets] + ["pages/s", "× lxml", "peak MB", "idle MB"]
    add("| " + " | ".join(header) + " |")
    add("|" + "---|" * len(header))
    base_total = (tools.get(BASELINE, {}).get("speed") or {}).get("total_s")
    for name in order + [BASELINE]:
        tool = tools.get(name)
        if not tool or tool["status"] != "ok":
            continue
        by_set = tool["speed_by_set"]
        cells = [f"{fmt(by_set[s].get('median_ms'), '.1f')} / {fmt(by_set[s].get('p90_ms'), '.1f')}" for s in sets]
        ratio = tool["speed"]["total_s"] / base_total if base_total else None
        label = "*lxml parse only*" if name == BASELINE else _label(tool, name)
        add(
            f"| {label} | " + " | ".join(cells) + f" | {fmt(tool['speed']['pages_per_s'], '.0f')} | "
            f"{fmt(ratio, '.1f')} | {fmt(tool['peak_rss_mb'], '.0f')} | {fmt(tool['ready_rss_mb'], '.0f')} |"
        )
    add("")

    # Overview detection.
    ov = results.get("overview")
    if ov:
        add("## Overview detection")
        add("")
        ho = ov["held_out_model"]
        counts = "; ".join(
            f"{n}: {c['pages']} pages ({c['overviews']} overview, {c['articles']} article, {c['others']} other)"
            for n, c in ov["sets"].items()
        )
        add(
            f"Labelled pages of the validation sites ({counts}). Precision, recall and F1 of the overview "
            "class, accuracy, and the share of articles and of other single items (products, threads, "
            "documentation) called overviews; CPU ms per page."
        )
        add("")
        add(
            f"- `scrapy_boilerplate` (held-out model): the overview model trained exactly as the shipped "
            f"one (`scrapy-boilerplate train --overview`) but on the {ho['pages']} pages of the training "
            f"sites only, so these pages are new to it (cutoff {ho['cutoff']}"
            f"{', chosen on one site-to-fold split' if ho.get('quick') else ''})."
        )
        add(
            "- `scrapy_boilerplate` (shipped model): the model in the package, which was trained on "
            "these pages too: in-sample, shown for reference only."
        )
        add(
            "- Readability: not `isProbablyReaderable` (Readability.js's check, as ported in "
            "`trafilatura.readability_lxml.is_probably_readerable`)."
        )
        add(
            "- newspaper4k: its article tests as `Source.build` applies them to a site's links: the URL "
            "check (`Article.is_valid_url`: the URL does not look like an article's), the body check "
            "(`is_valid_body` after parsing), either."
        )
        add("")
        add("| detector | P | R | F1 | accuracy | articles flagged | others flagged | median ms |")
        add("|---|---|---|---|---|---|---|---|")
        labels = {
            "ours@held-out": "**scrapy_boilerplate** (held-out model)",
            "ours@shipped": "scrapy_boilerplate (shipped model, in-sample)",
            "readability": "Readability: not isProbablyReaderable",
        }
        order_rows = [
            "ours@held-out",
            "readability",
            "newspaper4k (URL check)",
            "newspaper4k (body check)",
            "newspaper4k (either check)",
            "ours@shipped",
        ]
        for row in [r for r in order_rows if r in ov["rows"]] + [r for r in ov["rows"] if r not in order_rows]:
            r = ov["rows"][row]
            if r.get("status") != "ok":
                add(f"| {labels.get(row, row)} | {r.get('status')} | | | | | | |")
                continue
            p = r["pooled"]
            add(
                f"| {labels.get(row, row)} | {fmt(p['precision'])} | {fmt(p['recall'])} | {fmt(p['f1'])} | "
                f"{fmt(p['accuracy'])} | {pct(p['articles_flagged'])} | {pct(p['others_flagged'])} | "
                f"{fmt(r['speed'].get('median_ms'), '.1f')} |"
            )
        add("")
        held = ov["rows"].get("ours@held-out", {})
        if held.get("cutoffs"):
            add(
                f"The held-out model's scores at other cutoffs (`BOILERPLATE_OVERVIEW_CUTOFF`; its own "
                f"cutoff is {ho['cutoff']}):"
            )
            add("")
            add("| cutoff | P | R | F1 | articles flagged | others flagged |")
            add("|---|---|---|---|---|---|")
            for cut, p in held["cutoffs"].items():
                add(
                    f"| {cut} | {fmt(p['precision'])} | {fmt(p['recall'])} | {fmt(p['f1'])} | "
                    f"{pct(p['articles_flagged'])} | {pct(p['others_flagged'])} |"
                )
            add("")
        add("By set (F1 / articles flagged):")
        add("")
        set_names = list(ov["sets"])
        add("| detector | " + " | ".join(set_names) + " |")
        add("|---|" + "---|" * len(set_names))
        for row in [r for r in order_rows if r in ov["rows"]]:
            r = ov["rows"][row]
            if r.get("status") != "ok":
                continue
            add(
                f"| {labels.get(row, row)} | "
                + " | ".join(f"{fmt(r['sets'][n]['f1'])} / {pct(r['sets'][n]['articles_flagged'])}" for n in set_names)
                + " |"
            )
        add("")

    # Crawl.
    crawl = results.get("crawl")
    if crawl:
        add("## Scrapy crawl throughput")
        add("")
        add(
            "`benchmarks/crawl_throughput.py`: real wcxb-dev pages served from memory by a server process "
            "on 127.0.0.1 (behind listing pages), crawled by a `CrawlSpider` following every link, each "
            "crawl in a fresh process, once without the add-on and once with "
            '`ADDONS = {"scrapy_boilerplate.Addon": 0}` (overview detection and extraction of every '
            "page). Loopback makes the crawl CPU-bound: this is the add-on's worst case; behind a real "
            "network its cost hides in the waiting."
        )
        add("")
        add(
            "| executor | pages | without the add-on | with the add-on | ratio "
            "| CPU used by other processes meanwhile |"
        )
        add("|---|---|---|---|---|---|")
        for executor, runs in crawl.items():
            for c in runs if isinstance(runs, list) else [runs]:
                if c.get("status") != "ok":
                    add(f"| `{executor}` | {c.get('status')} | | | | |")
                    continue
                w, a = c["without"], c["with"]
                other = c.get("other_cpu_s")
                if other is None:
                    other = _other_cpu(c.get("stdout", ""))
                add(
                    f"| `{executor}` | {a['pages']} | {w['pages_per_second']:.1f} pages/s | "
                    f"{a['pages_per_second']:.1f} pages/s | {pct(c['ratio'])} | {fmt(other, '.1f')} s |"
                )
        add("")
        add(
            "One line per run. Pages per second as the crawl reports them; the ratio is the add-on's "
            'crawl over the crawl without it, run right after it. With `"process"` the add-on\'s work '
            "runs on the second core, which other processes on a shared machine also use: the last column "
            "says how much CPU they took during the two crawls (more than about a second disturbs the "
            "figures)."
        )
        add("")
    return "\n".join(lines) + "\n"


def cv_section(cv_md: Path) -> list[str]:
    """CV.md's figures (benchmarks/cv.py --report, generated from the stored cross-validation
    runs) as a section of RESULTS.md, its headings one level down, without the decoders' list."""
    if not cv_md.exists():
        return []
    lines = [
        "## Cross-validated figures (the figure of record)",
        "",
        "Five folds grouped by site over the six labelled sets, every page scored by a model trained "
        "without its site: copied from [CV.md](CV.md), which `python benchmarks/cv.py --folds 5 "
        "--report` writes from the stored runs (docs/training.md, Cross-validation). The figures "
        "below this section are the held-aside benchmark of the shipped model against the other "
        "libraries.",
        "",
    ]
    keep = False
    for line in cv_md.read_text(encoding="utf-8").splitlines():
        if line.startswith("Runs: "):  # the legend of the run names
            lines += [line, ""]
        if line.startswith("## "):
            keep = line != "## Runs"
        if keep:
            lines.append("#" + line if line.startswith("#") else line)
    return lines + [""]


def _other_cpu(stdout: str):
    import re

    found = re.search(r"other processes ([\d.]+) s", stdout)
    return float(found.group(1)) if found else None


def _harmonic(a, b):
    if a is None or b is None:
        return None
    return 2 * a * b / (a + b) if a + b else 0.0


def _label(tool: dict, name: str) -> str:
    label = tool.get("label", name)
    version = tool.get("version")
    text = f"{label} {version}" if version and version != "not installed" else label
    if name in VARIANTS:
        return f"*{label}*"
    return f"**{text}**" if name == OURS else text


def _bold(text: str, yes: bool) -> str:
    return f"**{text}**" if yes else text


def _best(ex: dict, text_sets, snippet_sets, order) -> dict:
    """(set, "f1" | "cat") -> the extractor with the best value (html-text, the baseline, apart)."""
    best = {}
    candidates = [n for n in order if ex["tools"][n]["status"] == "ok" and n not in ("html_text", *VARIANTS)]
    for set_name in text_sets + snippet_sets:
        q = {n: ex["tools"][n]["quality"][set_name] for n in candidates}
        if set_name in text_sets:
            best[(set_name, "f1")] = max(q, key=lambda n: q[n]["all"]["f1"] or 0)
        best[(set_name, "cat")] = min(q, key=lambda n: q[n]["catastrophic"] if q[n]["catastrophic"] is not None else 1)
    return best


# --- the figure -----------------------------------------------------------------------------


def render_plot(results: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ex = results["extraction"]
    tools = ex["tools"]
    text_sets = [n for n, info in ex["sets"].items() if info["gold"] == "text"]
    if not text_sets:
        return
    order = [n for n in tools_in_order(ex) if tools[n]["status"] == "ok" and n not in VARIANTS]
    fig, axes = plt.subplots(1, len(text_sets), figsize=(6.2 * len(text_sets), 5.4), squeeze=False)
    cmap = plt.get_cmap("tab10")
    colors = {name: cmap(i % 10) for i, name in enumerate(order)}
    base = (tools.get(BASELINE, {}).get("speed") or {}).get("pages_per_s")
    for ax, set_name in zip(axes[0], text_sets):
        info = ex["sets"][set_name]
        points = {
            n: (tools[n]["speed_by_set"][set_name]["pages_per_s"], tools[n]["quality"][set_name]["all"]["f1"])
            for n in order
        }
        ys = [y for _, y in points.values()]
        span = (max(ys) - min(ys)) or 1.0
        placed: list[tuple[float, float]] = []
        for name in order:
            tool = tools[name]
            x = tool["speed_by_set"][set_name]["pages_per_s"]
            y = tool["quality"][set_name]["all"]["f1"]
            ci = tool["quality"][set_name]["all"]["f1_ci"] or 0
            ours = name == OURS
            ax.errorbar(
                [x],
                [y],
                yerr=[[ci], [ci]],
                fmt="*" if ours else "o",
                ms=16 if ours else 8,
                color=colors[name],
                ecolor=colors[name],
                elinewidth=1,
                capsize=3,
                zorder=3 if ours else 2,
                mec="black" if ours else colors[name],
            )
            # A label whose point is close to one already labelled goes to the left of its point.
            crowded = any(abs(math.log10(x) - math.log10(px)) < 0.3 and abs(y - py) < 0.04 * span for px, py in placed)
            placed.append((x, y))
            ax.annotate(
                tool["label"].split(" (")[0],
                (x, y),
                xytext=(-7 if crowded else 7, -3 if not ours else 6),
                textcoords="offset points",
                fontsize=9,
                fontweight="bold" if ours else "normal",
                ha="right" if crowded else "left",
            )
        if base:
            set_base = tools[BASELINE]["speed_by_set"][set_name]["pages_per_s"]
            ax.axvline(set_base, color="grey", ls="--", lw=1)
            ax.annotate(
                "lxml parse only",
                (set_base, ax.get_ylim()[0]),
                xytext=(-4, 6),
                textcoords="offset points",
                rotation=90,
                fontsize=8,
                color="grey",
                ha="right",
                va="bottom",
            )
        ax.set_xscale("log")
        split = "validation sites" if info["split"] == "validation" else "all pages"
        note = "; development figures" if info.get("development") else ""
        ax.set_title(f"{set_name}: {info['pages']} pages ({split}{note})", fontsize=11)
        ax.set_xlabel("pages per second on one core (log scale; right is faster)")
        ax.set_ylabel("content F1 (word 4-grams), ± 95 % bootstrap")
        ax.grid(True, which="both", alpha=0.3)
        xmin, xmax = ax.get_xlim()
        ax.set_xlim(xmin, xmax * 1.9)  # room for the labels of the fastest
    fig.suptitle(f"Main-content extraction: quality against speed ({results['machine']['date'][:10]})", fontsize=12)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


# --- the README's summary -------------------------------------------------------------------


def render_readme_summary(results: dict) -> str:
    """The quality-and-speed table of the project README, from the same results (so that every
    figure there is one of RESULTS.md's). `python benchmarks/render.py benchmarks/results.json`."""
    ex = results["extraction"]
    tools = ex["tools"]
    sets = ex["sets"]
    text_sets = [n for n, info in sets.items() if info["gold"] == "text"]
    snippet_sets = [n for n, info in sets.items() if info["gold"] == "snippets"]
    header = (
        ["extractor", f"{text_sets[0]} F1", f"{text_sets[0]} catastrophic"]
        + [f"{n} F1" for n in text_sets[1:]]
        + [f"{n} snippets with / without" for n in snippet_sets]
        + ["median ms", "pages/s"]
    )
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for name in tools_in_order(ex):
        tool = tools[name]
        if tool["status"] != "ok" or name in VARIANTS:
            continue
        q = tool["quality"]
        f1 = {n: f"{fmt(q[n]['all']['f1'])} ± {fmt(q[n]['all']['f1_ci'])}" for n in text_sets}
        row = [_label(tool, name), f1[text_sets[0]], pct(q[text_sets[0]]["catastrophic"])]
        row += [f1[n] for n in text_sets[1:]]
        row += [f"{fmt(q[n]['all']['with_share'])} / {fmt(q[n]['all']['without_share'])}" for n in snippet_sets]
        row += [fmt(tool["speed"]["median_ms"], ".1f"), fmt(tool["speed"]["pages_per_s"], ".0f")]
        lines.append("| " + " | ".join(row) + " |")
    base = tools.get(BASELINE, {}).get("speed")
    if base:
        lines.append(
            f"| *lxml parse only* |{' |' * (len(header) - 3)} {fmt(base['median_ms'], '.1f')} | "
            f"{fmt(base['pages_per_s'], '.0f')} |"
        )
    ov = results.get("overview")
    if ov and ov["rows"].get("ours@held-out", {}).get("status") == "ok":
        rows = ov["rows"]
        pages = sum(c["pages"] for c in ov["sets"].values())
        news = [rows[r]["pooled"]["f1"] for r in rows if r.startswith("newspaper4k") and rows[r].get("status") == "ok"]
        held = rows["ours@held-out"]["pooled"]
        lines += [
            "",
            f"Overview detection, on {pages} labelled pages of held-aside sites (with a model trained "
            f"without them): F1 {fmt(held['f1'])}, {pct(held['articles_flagged'])} of the articles flagged; "
            f"Readability's `isProbablyReaderable`: F1 {fmt(rows['readability']['pooled']['f1'])}; "
            f"newspaper4k's article checks: F1 {fmt(min(news))} to {fmt(max(news))}.",
        ]
    crawl = results.get("crawl", {})
    ratios = {
        e: [c["ratio"] for c in (runs if isinstance(runs, list) else [runs]) if c.get("status") == "ok"]
        for e, runs in crawl.items()
    }
    if ratios.get("inline"):
        parts = [f"{' and '.join(pct(r) for r in rs)} (`{e}`)" for e, rs in ratios.items() if rs]
        lines += [
            "",
            "A loopback crawl of 612 real pages with the add-on ran at "
            + ", ".join(parts)
            + " of the pages per second of the same crawl without it: CPU-bound, the add-on's worst "
            "case, and on a machine shared with other work the figures move from run to run.",
        ]
    return "\n".join(lines) + "\n"


README_START, README_END = "<!-- results: start -->", "<!-- results: end -->"


def update_readme(results: dict, readme: Path) -> None:
    """Replace the README's block between the two markers by the summary."""
    text = readme.read_text(encoding="utf-8")
    start, end = text.index(README_START) + len(README_START), text.index(README_END)
    readme.write_text(text[:start] + "\n" + render_readme_summary(results) + text[end:], encoding="utf-8")


if __name__ == "__main__":
    # python benchmarks/render.py benchmarks/results.json [README.md]
    import json
    import sys

    loaded = json.loads(Path(sys.argv[1]).read_text())
    if len(sys.argv) > 2:
        update_readme(loaded, Path(sys.argv[2]))
    else:
        print(render_readme_summary(loaded), end="")
