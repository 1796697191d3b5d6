"""Score an extractor on datasets (the metrics: docs/training.md, `scrapy-boilerplate evaluate`)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from ..core.jsondata import JsonObject
from .datasets import DatasetPage, is_validation_site, load_dataset
from .metrics import format_table, page_row, score_page, summarize, summarize_by, worst_pages
from .train import progress

if TYPE_CHECKING:
    from ..core.extractor import Extractor

COLUMNS = ("pages", "precision", "recall", "f1", "f1_ci", "bow_f1", "lcs_f1", "with_share", "without_share")
#: Columns of the per-page tables (--per-page, --worst): the page's own scores.
PAGE_COLUMNS = ("page_type", "precision", "recall", "f1", "bow_f1", "lcs_f1", "with_share", "without_share")
#: Sets the shipped model was trained on: "auto" scores only their held-aside sites.
TRAINED_ON = ("wcxb-dev", "trafilatura-eval")


def select(pages: Iterable[DatasetPage], dataset_name: str, split: str) -> tuple[list[DatasetPage], str]:
    if split == "auto":
        split = "validation" if dataset_name in TRAINED_ON else "all"
    if split == "validation":
        return [p for p in pages if is_validation_site(p.site)], split
    if split == "train":
        return [p for p in pages if not is_validation_site(p.site)], split
    return list(pages), split


def evaluate_datasets(
    paths: list[Path],
    extractor: Extractor,
    split: str = "auto",
    limit: int | None = None,
    per_page: bool = False,
    worst: int = 0,
) -> JsonObject:
    """Scores per dataset and page type; with `per_page` every page's own scores, with `worst`
    the `worst` pages of lowest F1 (or snippet share, for pages without gold).

    Returns {"summaries": {dataset: {"split", "summaries"[, "pages"][, "worst"]}}, "text": str}.
    """
    summaries: JsonObject = {}
    lines: list[str] = []
    for path in paths:
        pages, used = select(load_dataset(path), path.name, split)
        if limit:
            pages = pages[:limit]
        results = []
        for n, page in enumerate(pages, 1):
            progress(f"{path.name}: {n}/{len(pages)}")
            extraction = extractor.extract(page.read_html(), url=page.url)
            results.append(score_page(page, extraction.text))
        progress("")
        if any(r.page_type for r in results):
            table = summarize_by(results, "page_type")
        else:
            table = {"all": summarize(results)}
        entry = summaries[path.name] = {"split": used, "summaries": table}
        lines.append(f"== {path.name} ({used} split, {len(pages)} pages)")
        lines.append(format_table(table, COLUMNS))
        lines.append("")
        urls = {page.id: page.url for page in pages}
        if per_page:
            entry["pages"] = [{**page_row(r), "url": urls[r.id]} for r in results]
            lines.append(f"-- {path.name}: every page")
            lines.append(_page_table(entry["pages"]))
            lines.append("")
        if worst:
            entry["worst"] = [{**page_row(r), "url": urls[r.id]} for r in worst_pages(results, worst)]
            lines.append(
                f"-- {path.name}: the {len(entry['worst'])} worst pages (lowest F1; "
                "snippet share where a page has no gold)"
            )
            lines.append(_page_table(entry["worst"]))
            lines.append("")
    return {"summaries": summaries, "text": "\n".join(lines)}


def _page_table(rows: list[JsonObject]) -> str:
    """One line per page, named by its id, its URL last."""
    table = {row["id"]: {**row, "page_type": row["page_type"] or "-", "url": row["url"] or "-"} for row in rows}
    return format_table(table, (*PAGE_COLUMNS, "url"), name="id")
