"""Read datasets in the format of docs/training.md ("Datasets").

A dataset is a folder with ``pages.jsonl``; each line names a raw HTML file
(optionally gzipped), an optional gold text file and some metadata.
"""

from __future__ import annotations

import gzip
import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal, overload
from urllib.parse import urlsplit

from ..core.jsondata import JsonObject

if TYPE_CHECKING:
    from .sites import SitePage

REQUIRED_KEYS = ("id", "html")


@dataclass(frozen=True)
class DatasetPage:
    id: str
    dataset: str  # name of the dataset folder
    root: Path  # the dataset folder; html_path and gold_path are relative to it
    html_path: str
    gold_path: str | None
    url: str | None
    lang: str | None
    label: str | None
    source: str | None
    page_type: str | None
    with_: tuple[str, ...]
    without: tuple[str, ...]

    def read_html(self) -> bytes:
        """Raw HTML bytes as served (gunzipped when stored as .gz)."""
        data = (self.root / self.html_path).read_bytes()
        if self.html_path.endswith(".gz"):
            data = gzip.decompress(data)
        return data

    def read_gold(self) -> str | None:
        if self.gold_path is None:
            return None
        return (self.root / self.gold_path).read_text(encoding="utf-8")

    @property
    def site(self) -> str:
        """Host of the URL, lower-cased, without "www.".

        A page without URL is its own site, so it can never leak between
        the train and validation parts together with other pages.
        """
        host = _hostname(self.url)
        if not host:
            return f"{self.dataset}:{self.id}"
        return host[4:] if host.startswith("www.") else host


def _hostname(url: str | None) -> str | None:
    if not url:
        return None
    try:
        return urlsplit(url).hostname  # already lower-cased
    except ValueError:  # e.g. a broken IPv6 literal
        return None


def load_dataset(path: str | Path) -> list[DatasetPage]:
    """Read ``pages.jsonl`` of one dataset folder."""
    root = Path(path)
    jsonl = root / "pages.jsonl"
    if not root.is_dir():
        raise ValueError(f"{root}: no such folder (a dataset is a folder holding pages.jsonl)")
    if not jsonl.is_file():
        raise ValueError(
            f"{root} is not a dataset: it has no pages.jsonl (one JSON object a line: "
            f"id, html, gold, url, label...; the format: docs/training.md)"
        )
    pages = []
    with jsonl.open(encoding="utf-8") as f:
        for line_no, line in enumerate(f, start=1):
            if not line.strip():
                continue  # tolerate blank lines, e.g. a trailing one
            record = _parse_line(line, jsonl, line_no)
            pages.append(_page_from_record(record, root))
    return pages


@overload
def load_datasets(paths: Iterable[str | Path], sites: Literal[False] = False) -> list[DatasetPage]: ...
@overload
def load_datasets(paths: Iterable[str | Path], sites: bool) -> list[DatasetPage | SitePage]: ...


def load_datasets(paths: Iterable[str | Path], sites: bool = False) -> list[DatasetPage] | list[DatasetPage | SitePage]:
    """The pages of each dataset folder; with `sites`, a crawl site's folder (site.json,
    training/sites.py) gives its labelled pages too (they have labels, no gold text)."""
    from .sites import is_site, load_site

    pages: list[DatasetPage | SitePage] = []
    for path in paths:
        if is_site(path):
            if not sites:
                raise ValueError(
                    f"{path} is a crawl site (site.json): its pages have page-type labels but no "
                    f"gold text, so only the overview model trains on them (train --overview)"
                )
            pages.extend(load_site(path))
        else:
            pages.extend(load_dataset(path))
    return pages


def _parse_line(line: str, jsonl: Path, line_no: int) -> JsonObject:
    try:
        record = json.loads(line)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{jsonl}, line {line_no}: malformed JSON ({exc})") from exc
    if not isinstance(record, dict):
        raise ValueError(f"{jsonl}, line {line_no}: expected a JSON object")
    missing = [key for key in REQUIRED_KEYS if not record.get(key)]
    if missing:
        raise ValueError(f"{jsonl}, line {line_no}: missing required key(s) {', '.join(missing)}")
    return record


def _page_from_record(record: JsonObject, root: Path) -> DatasetPage:
    return DatasetPage(
        id=str(record["id"]),
        dataset=root.name,
        root=root,
        html_path=record["html"],
        gold_path=record.get("gold"),
        url=record.get("url"),
        lang=record.get("lang"),
        label=record.get("label"),
        source=record.get("source"),
        page_type=record.get("page_type"),
        with_=tuple(record.get("with") or ()),
        without=tuple(record.get("without") or ()),
    )


def is_validation_site(site: str, fraction: float = 0.2) -> bool:
    """Stable choice of held-out sites: the same on every run and machine.

    sha1 rather than hash(), which is salted per process.
    """
    digest = hashlib.sha1(site.encode("utf-8")).digest()
    bucket = int.from_bytes(digest[:8], "big") / 2**64  # uniform in [0, 1)
    return bucket < fraction


def split_by_site(pages: Iterable[DatasetPage], fraction: float = 0.2) -> tuple[list[DatasetPage], list[DatasetPage]]:
    """Split into (train, validation), keeping all pages of a site together."""
    train, validation = [], []
    for page in pages:
        if is_validation_site(page.site, fraction):
            validation.append(page)
        else:
            train.append(page)
    return train, validation
