"""The explain page: one self-contained HTML file showing what the extractor did with a page, and why.

Every block in reading order, kept or dropped, with its content probability, the step that
decided (`Block.reason`), its tag path and class/id cues and its text as extracted; at the top
the overview verdict with its evidence, the title and each metadata field with its source. The
blocks the walk never read (hidden content, comment sections) are shown too, from a second
walk that reads them. Only text is copied from the page, escaped: its scripts, styles, event
handlers and URLs never reach the file, and a Content-Security-Policy forbids any script and any
request in it. No network, no script: the dropped runs fold with <details>.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..document.cues import COMMENT_SAFE_TAGS, class_cues
from ..document.elements import FLAG_NAMES
from ..document.hidden import ToggleTargets, is_hidden
from ..document.page import Page
from ..document.parse import to_element
from ..document.walk import walk_blocks
from ..metadata.article import METADATA_FIELDS
from ..metadata.sources import field_sources
from ..selection.steps import REASONS

if TYPE_CHECKING:
    from lxml import etree

    from ..extraction import Extraction
    from ..extractor import Extractor
    from ..links.roles import Link
    from ..overview.detector import OverviewDetector, OverviewVerdict
    from ..selection.site_rules import RuleSummary

#: Reasons the explain page gives to blocks the extraction never saw (the walk skips them).
HIDDEN, COMMENT_SECTION, NOT_READ = "hidden", "comment_section", "not_read"
#: What each reason means, for the legend and the tooltips (docs/extraction.md lists the same).
REASON_WORDS = {
    **REASONS,  # the steps', in their order (selection/steps.py STEPS)
    HIDDEN: "hidden on the page (hidden, display:none, aria-hidden...): never read",
    COMMENT_SECTION: "a comment section: not read (include_comments reads it)",
    NOT_READ: "not read by the extraction's walk (its text may be part of a neighbouring block)",
}
#: This many dropped blocks in a row or more fold into one line (opened by a click).
FOLD_RUN = 6
#: Ancestors shown in a block's tag path.
PATH_DEPTH = 4
#: Kept is 'kept', everything else 'dropped'.
KEPT, DROPPED = "kept", "dropped"


@dataclass
class Row:
    """One block as the explain page shows it."""

    text: str
    path: str  # tag path, with the class/id words of each element
    cues: str  # the semantic flags of the block and its ancestors (nav, aside, comment...)
    kept: bool
    probability: float | None  # None: never scored (hidden, comment section)
    reason: str


def written_note(path: str) -> str:
    """The line both commands (`scrapy-boilerplate explain -o`, `scrapy boilerplate --explain`)
    print on standard error once the page is written: one wording, saying what to do with it."""
    return f"Explain page written to {path}: open it in a browser"


def explain_html(
    html_input: Any,
    url: str | None = None,
    extractor: Extractor | None = None,
    detector: OverviewDetector | None = None,
    extraction: Extraction | None = None,
    source: str | None = None,
) -> str:
    """The explain page of `html_input` (str, bytes, parsel Selector or lxml element) as a string.

    `extraction`: the extraction already made of the same input with `extractor`, else one is made.
    `source`: where the page was read from (a file name), shown when there is no `url`.
    """
    from ..extractor import default_extractor
    from ..overview.detector import default_detector

    extractor = extractor or default_extractor()
    root = to_element(html_input)
    if extraction is None:
        extraction = extractor.extract(root if root is not None else "", url=url)
    verdict = (detector or default_detector()).detect(root if root is not None else "", url=url)
    page = extraction._source_page()
    rows = block_rows(page, extraction, root, url)
    sources: dict[str, str] = {}
    if page is not None and extraction._meta_source is not None:
        mask = extraction._meta_source.mask
        sources = field_sources(page, mask, extraction.title, url, extraction.metadata)
    return _document(extraction, verdict, sources, rows, url, source)


def block_rows(page: Page | None, extraction: Extraction, root: etree._Element | None, url: str | None) -> list[Row]:
    """The extraction's blocks, with the blocks its walk skipped (hidden, comment sections) put
    where they stand in the page: a second walk reads everything, and its blocks are matched to
    the extraction's by their element (and their order in it)."""
    blocks = extraction.blocks
    if page is None or len(page) != len(blocks):
        return []
    own = [
        Row(b.text, _path(page, i), _cues(page.flags[i]), b.is_content, b.probability, b.reason)
        for i, b in enumerate(blocks)
    ]
    if root is None or page.root is not root:
        return own  # a stated body: its blocks are not the page's
    full = Page(base_url=url, skip_hidden=False, opened=ToggleTargets(root))
    walk_blocks(root, full, True, False)
    index = {key: i for i, key in enumerate(_keys(page))}
    rows: list[Row] = []
    done = 0  # the extraction's blocks before this one are shown
    for j, key in enumerate(_keys(full)):
        i = index.get(key)
        if i is not None and i >= done:
            rows.extend(own[done : i + 1])
            done = i + 1
        elif i is None:
            reason = _skipped_reason(key[0], page)
            rows.append(Row(full.texts[j], _path(full, j), _cues(full.flags[j]), False, None, reason))
    rows.extend(own[done:])
    return rows


def _skipped_reason(el: etree._Element | None, page: Page) -> str:
    """Why the extraction's walk skipped the block of `el`: hidden, or in a comment section (what
    walk.py's `attributes` skips); NOT_READ when neither shows (its text may be in a block above)."""
    while el is not None:
        if page.skip_hidden and is_hidden(el, page.opened):
            return HIDDEN
        if (
            not page.include_comments
            and el.tag not in COMMENT_SAFE_TAGS
            and class_cues(el.get("id"), el.get("class"))[2]
        ):
            return COMMENT_SECTION
        el = el.getparent()
    return NOT_READ


def _keys(page: Page) -> list[tuple[etree._Element | None, int]]:
    """Per block: (its element, how many blocks of that element come before it)."""
    seen: dict[int, int] = {}
    keys: list[tuple[etree._Element | None, int]] = []
    for node in page.nodes:
        k = seen[node] = seen.get(node, -1) + 1
        keys.append((page.node_elements[node] if node >= 0 else None, k))
    return keys


def _path(page: Page, i: int) -> str:
    """The block's element and its ancestors, outermost first: "article.post > div.body > p"."""
    names: list[str] = []
    node = page.nodes[i]
    while node >= 0 and len(names) <= PATH_DEPTH:
        words = "".join("." + w for w in page.node_tokens[node][:3])
        names.append(page.node_tags[node] + words)
        node = page.node_parents[node]
    if node >= 0:
        names.append("…")
    return " > ".join(reversed(names))


def _cues(flags: int) -> str:
    return " ".join(name for bit, name in enumerate(FLAG_NAMES) if flags >> bit & 1)


def reason_words(reason: str) -> str:
    return REASON_WORDS.get(reason, reason.replace("_", " "))


# --- the document -------------------------------------------------------------------------


def _document(
    extraction: Extraction,
    verdict: OverviewVerdict,
    sources: dict[str, str],
    rows: list[Row],
    url: str | None,
    source: str | None = None,
) -> str:
    e = html.escape
    kept = [r for r in rows if r.kept]
    title = extraction.title or "(no title found)"
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        # Nothing runs and nothing is fetched, whatever text the page holds.
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'\">",
        '<meta name="referrer" content="no-referrer">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>Explain: {e(_no_bidi(title))}</title>",
        f"<style>{CSS}</style></head><body>",
        '<header class="top">',
        '<p class="kicker">scrapy-boilerplate · explain</p>',
        f'<h1 dir="auto">{e(title)}</h1>',
        f'<p class="url" dir="ltr">{e(url or source or "(no URL given)")}</p>',
        '<div class="cols"><div>',
        _verdict(verdict),
        f'<p class="counts"><b>{len(rows)}</b> blocks: <b class="ck">{len(kept)} kept</b> '
        f"({sum(len(r.text) for r in kept):,} characters of text), "
        f'<b class="cd">{len(rows) - len(kept)} dropped</b></p>',
        _site_rule(extraction.site_rule),
        "</div>",
        _metadata(extraction, sources),
        "</div></header>",
        _legend(rows),
        '<main class="blocks">',
        _blocks(rows) if rows else '<p class="empty">No text found on this page.</p>',
        "</main>",
        _links(extraction.links),
        "</body></html>",
    ]
    return "\n".join(parts) + "\n"


def _verdict(verdict: OverviewVerdict) -> str:
    e = html.escape
    kind, label = ("ov", "Overview page") if verdict.is_overview else ("art", "Not an overview page")
    return (
        f'<div class="verdict {kind}"><span class="pill">{label}</span> '
        f'<span class="score">score {verdict.score:.2f}</span>'
        f'<p class="evidence">{e(verdict.reason)}</p></div>'
    )


def _site_rule(rule: RuleSummary | None) -> str:
    """What a per-site selector did on the page: each selector, what it matched, the blocks it
    kept out (those blocks carry the reason site_selector)."""
    if rule is None:
        return ""
    e = html.escape
    items = []
    if rule["content"] is not None:
        c = rule["content"]
        items.append(
            f"<li>content <code>{e(c['selector'])}</code>: {c['elements']} element(s), {c['blocks']} block(s)</li>"
        )
    for x in rule["exclude"]:
        items.append(
            f"<li>exclude <code>{e(x['selector'])}</code>: {x['elements']} element(s), {x['blocks']} block(s)</li>"
        )
    state = (
        "skipped: its selectors tested too many elements on this page (the extraction is as without it)"
        if rule.get("over_budget")
        else "skipped: its selectors failed on this page (the extraction is as without it)"
        if rule.get("error")
        else "applied"
        if rule["matched"]
        else "did not match (the extraction is as without it)"
    )
    site_name = rule.get("site")
    site = f" for {e(site_name)}" if site_name else ""
    return (
        f'<div class="rule"><b>Site rule{site}</b>: {state}; {len(rule["forced_out"])} block(s) '
        f"kept out<ul>{''.join(items)}</ul></div>"
    )


def _metadata(extraction: Extraction, sources: dict[str, str]) -> str:
    e = html.escape
    lines = [
        '<table class="meta"><caption>Metadata</caption>',
        '<colgroup><col class="cf"><col><col class="cs"></colgroup>',
        "<tr><th>field</th><th>value</th><th>source</th></tr>",
    ]
    for name in METADATA_FIELDS:
        value = getattr(extraction, name)
        shown = ", ".join(value) if isinstance(value, list) else value
        if not shown:
            lines.append(f'<tr class="none"><th>{name}</th><td>—</td><td></td></tr>')
            continue
        lines.append(
            f'<tr><th>{name}</th><td dir="auto" title="{e(_no_bidi(str(shown)))}">'
            f'{e(_snippet(str(shown), 120))}</td><td class="src">{e(sources.get(name, ""))}</td></tr>'
        )
    lines.append("</table>")
    return "\n".join(lines)


def _legend(rows: list[Row]) -> str:
    counts: dict[tuple[str, bool], int] = {}
    for r in rows:
        counts[r.reason, r.kept] = counts.get((r.reason, r.kept), 0) + 1
    items = []
    for reason in dict.fromkeys([*REASON_WORDS, *(r for r, _ in counts)]):
        k, d = counts.get((reason, True), 0), counts.get((reason, False), 0)
        if k or d:
            items.append(
                f'<li><span class="rs">{html.escape(reason)}</span> '
                f"{html.escape(reason_words(reason))}: "
                f'<span class="ck">{k} kept</span>, <span class="cd">{d} dropped</span></li>'
            )
    return (
        '<section class="legend"><h2>How to read this page</h2>'
        '<p><span class="sw k">kept</span> blocks are the extraction\'s text, in order; '
        '<span class="sw d">dropped</span> blocks are greyed, and long runs of them are folded '
        "(click to open). Each block shows its number, its content probability (the bar), the "
        "reason (the step that decided), its tag path with class/id words, and the flags of its "
        "ancestors (nav, aside, comment, related...).</p>"
        f'<ul class="reasons">{"".join(items)}</ul></section>'
    )


def _blocks(rows: list[Row]) -> str:
    """The rows in order; FOLD_RUN or more dropped rows in a row fold into a <details>."""
    out: list[str] = []
    run: list[int] = []

    def flush() -> None:
        if len(run) >= FOLD_RUN:
            reasons = ", ".join(f"{r} ×{n}" for r, n in _tally(rows[i].reason for i in run))
            first = html.escape(_snippet(rows[run[0]].text))
            out.append(
                f'<details class="run"><summary>{len(run)} dropped blocks ({html.escape(reasons)})'
                f' <bdi class="snip">{first}</bdi></summary>'
            )
            out.extend(_block(i, rows[i]) for i in run)
            out.append("</details>")
        else:
            out.extend(_block(i, rows[i]) for i in run)
        run.clear()

    for i, row in enumerate(rows):
        if row.kept:
            flush()
            out.append(_block(i, row))
        else:
            run.append(i)
    flush()
    return "\n".join(out)


def _block(i: int, row: Row) -> str:
    e = html.escape
    decision = KEPT if row.kept else DROPPED
    p = row.probability
    shown = "not scored" if p is None else f"{p:.2f}"
    bar = "" if p is None else f'<span class="bar"><i style="width:{round(p * 100)}%"></i></span>'
    note = "" if row.reason == "model" else " step"
    cues = f' <span class="cues">{e(row.cues)}</span>' if row.cues else ""
    return (
        f'<div class="b {decision}" data-decision="{decision}" data-probability="{p or 0:.2f}" '
        f'data-reason="{e(row.reason)}" id="b{i}">'
        f'<div class="m"><span class="n">#{i}</span> <span class="dec">{decision}</span> {bar}'
        f'<span class="pr">{shown}</span> <span class="rs{note}" title="{e(reason_words(row.reason))}">'
        f'{e(row.reason)}</span> <code class="path" dir="ltr">{e(row.path)}</code>{cues}</div>'
        f'<div class="t{" code" if "pre" in row.cues.split() else ""}" dir="auto">{e(row.text)}</div></div>'
    )


#: What each link role means (core/links/roles.py; docs/links.md).
ROLE_WORDS = {
    "content": "a teaser or headline of the listing, or a link in the article's text",
    "next": "the next page of this listing or article",
    "navigation": "menus, sections, tags, categories, breadcrumbs, footers, the pager",
    "related": "a related-stories box",
    "boilerplate": "legal, login, share, feeds, files, replies, sort variants, the page itself",
}


def _links(links: list[Link]) -> str:
    """Every link of the page with its role (BOILERPLATE_LINKS; extract(...).links). URLs are shown
    as text, never as links."""
    if not links:
        return ""
    e = html.escape
    counts = _tally(link.role for link in links)
    legend = "".join(
        f'<li><span class="role {e(r)}">{e(r)}</span> {e(ROLE_WORDS.get(r, r))}: {n}</li>' for r, n in counts
    )
    rows = "".join(
        f'<tr><td><span class="role {e(link.role)}">{e(link.role)}</span></td>'
        f'<td dir="auto">{e(_snippet(link.text, 80)) or "<i>(no text)</i>"}</td>'
        f'<td class="lu">{e(link.url)}</td></tr>'
        for link in links
    )
    return (
        f'<section class="links"><h2>Links ({len(links)})</h2><ul class="roles">{legend}</ul>'
        f'<table class="links"><tr><th>role</th><th>text</th><th>URL</th></tr>{rows}</table></section>'
    )


def _tally(reasons: Any) -> list[tuple[str, int]]:
    counts: dict[str, int] = {}
    for r in reasons:
        counts[r] = counts.get(r, 0) + 1
    return sorted(counts.items(), key=lambda item: -item[1])


#: Bidirectional controls (embeddings, overrides, isolates, marks). Page text in the body is
#: isolated (dir="auto", <bdi>) so that an override cannot run past it; the tab title is no
#: element and cannot be isolated: they are taken out there ("Invoice \u202ecod.exe").
_BIDI = dict.fromkeys([*range(0x202A, 0x202F), *range(0x2066, 0x206A), 0x200E, 0x200F, 0x061C])


def _no_bidi(text: str) -> str:
    return text.translate(_BIDI)


def _snippet(text: str, size: int = 70) -> str:
    return text if len(text) <= size else text[:size].rstrip() + "…"


CSS = """
*{box-sizing:border-box}
body{margin:0;background:#eef0f3;color:#1d2330;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,
"Noto Sans",sans-serif}
.top,.legend,.blocks{max-width:980px;margin:0 auto;padding:0 20px}
.top{background:#fff;border-bottom:1px solid #d5d9e0;max-width:none;padding:18px max(20px,calc(50% - 470px))}
.cols{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1.25fr);gap:20px;align-items:start}
@media (max-width:760px){.cols{grid-template-columns:1fr}}
.kicker{margin:0;color:#6b7280;font-size:12px;letter-spacing:.06em;text-transform:uppercase}
h1{margin:4px 0 2px;font-size:24px;line-height:1.25}
.url{margin:0 0 10px;color:#4b5563;font:13px ui-monospace,SFMono-Regular,Menlo,monospace;word-break:break-all}
.verdict{margin:8px 0;padding:8px 12px;border-radius:8px;background:#f3f4f6}
.verdict.ov{background:#fff4e5}.verdict.art{background:#eaf6ee}
.pill{display:inline-block;padding:1px 10px;border-radius:99px;font-weight:600;font-size:13px;color:#fff}
.ov .pill{background:#c2410c}.art .pill{background:#15803d}
.score{color:#4b5563;font-size:13px;margin-left:6px}
.evidence{margin:4px 0 0;font-size:13px;color:#374151}
.counts{margin:8px 0}
.ck{color:#15803d}.cd{color:#6b7280}
table.meta{border-collapse:collapse;font-size:13px;width:100%;margin:8px 0 4px;table-layout:fixed}
table.meta caption{text-align:left;font-weight:600;padding-bottom:2px}
table.meta th,table.meta td{text-align:left;vertical-align:top;padding:2px 10px 2px 0;border-top:1px solid #eceef2}
table.meta th{color:#4b5563;font-weight:500}
col.cf{width:8.5em}col.cs{width:10em}
table.meta td{word-break:break-word}
table.meta tr.none td,table.meta tr.none th{color:#9ca3af}
td.src{color:#1d4ed8}
.rule{margin:8px 0;padding:8px 12px;border-radius:8px;background:#eef2ff;font-size:13px}
.rule ul{margin:4px 0 0;padding-left:18px}
.legend{margin-top:14px;font-size:13px;color:#374151}
.legend h2{font-size:15px;margin:0 0 4px}
.legend p{margin:0 0 6px}
.reasons{margin:0;padding-left:18px;columns:2;column-gap:28px}
.sw{padding:0 6px;border-radius:4px}
.sw.k{background:#fff;border-left:4px solid #16a34a}
.sw.d{background:#e5e7eb;color:#6b7280;border-left:4px solid #9ca3af}
.blocks{margin:14px auto 40px}
.b{margin:6px 0;padding:6px 12px 8px;border-radius:6px;background:#fff;border-left:5px solid #16a34a;
box-shadow:0 1px 2px rgba(0,0,0,.06)}
.b.dropped{background:#e9ebef;border-left:5px solid #b6bcc6;box-shadow:none}
.b.dropped .t{color:#6b7280;font-size:14px}
.m{font-size:12px;color:#6b7280;display:flex;flex-wrap:wrap;gap:4px 8px;align-items:center}
.n{font-variant-numeric:tabular-nums;color:#9ca3af}
.dec{font-weight:700;text-transform:uppercase;letter-spacing:.04em;color:#15803d}
.dropped .dec{color:#6b7280}
.bar{display:inline-block;width:60px;height:7px;background:#d1d5db;border-radius:4px;overflow:hidden}
.bar i{display:block;height:100%;background:#2563eb}
.pr{font-variant-numeric:tabular-nums;min-width:2.6em}
.rs{padding:0 6px;border-radius:4px;background:#e0e7ff;color:#3730a3;font:12px ui-monospace,Menlo,monospace}
.rs.step{background:#fde68a;color:#78350f}
.path{color:#4b5563;font:12px ui-monospace,Menlo,monospace;word-break:break-all}
.cues{color:#9d174d;font-size:11px}
.t{margin-top:2px;white-space:pre-wrap;word-break:break-word}
.t.code{font:13px/1.45 ui-monospace,SFMono-Regular,Menlo,monospace;background:#f6f8fa;padding:4px 6px;border-radius:4px}
details.run{margin:6px 0;border-radius:6px;background:#e9ebef;border-left:5px solid #b6bcc6}
details.run>summary{cursor:pointer;padding:6px 12px;color:#4b5563;font-size:13px}
details.run[open]{padding:0 6px 2px}
.snip{color:#9ca3af;margin-left:6px}
.empty{color:#6b7280}
.links{max-width:980px;margin:0 auto 40px;padding:0 20px;font-size:13px}
.links h2{font-size:15px}
ul.roles{padding-left:18px;margin:0 0 8px}
table.links{border-collapse:collapse;width:100%;table-layout:fixed}
table.links th,table.links td{text-align:left;vertical-align:top;padding:2px 8px 2px 0;border-top:1px solid #d5d9e0}
table.links th:first-child{width:8em}
td.lu{font:12px ui-monospace,Menlo,monospace;word-break:break-all;color:#4b5563}
.role{padding:0 6px;border-radius:4px;font:12px ui-monospace,Menlo,monospace;background:#e5e7eb}
.role.content{background:#dcfce7;color:#166534}.role.next{background:#dbeafe;color:#1e40af}
.role.navigation{background:#f3f4f6;color:#374151}.role.related{background:#fef3c7;color:#92400e}
.role.boilerplate{background:#fee2e2;color:#991b1b}
"""
