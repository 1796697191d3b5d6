"""Score an extractor on datasets with the metrics of DESIGN.md."""

from __future__ import annotations

from pathlib import Path

from .datasets import is_validation_site, load_dataset
from .metrics import format_table, score_page, summarize, summarize_by
from .train import progress

COLUMNS = ("pages", "precision", "recall", "f1", "f1_ci", "bow_f1", "lcs_f1", "with_share", "without_share")
#: Sets the shipped model was trained on: "auto" scores only their held-aside sites.
TRAINED_ON = ("wcxb-dev", "trafilatura-eval")


def select(pages, dataset_name: str, split: str):
    if split == "auto":
        split = "validation" if dataset_name in TRAINED_ON else "all"
    if split == "validation":
        return [p for p in pages if is_validation_site(p.site)], split
    if split == "train":
        return [p for p in pages if not is_validation_site(p.site)], split
    return list(pages), split


def evaluate_datasets(paths: list[Path], extractor, split: str = "auto", limit: int | None = None) -> dict:
    summaries, lines = {}, []
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
        summaries[path.name] = {"split": used, "summaries": table}
        lines.append(f"== {path.name} ({used} split, {len(pages)} pages)")
        lines.append(format_table(table, COLUMNS))
        lines.append("")
    return {"summaries": summaries, "text": "\n".join(lines)}
