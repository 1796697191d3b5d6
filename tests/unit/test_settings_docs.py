"""The settings tables of README.md and docs/*.md agree with the declarations in
scrapy_boilerplate/settings.py: the README lists every setting, no table lists a setting that is
not declared, every documented default is the declared one, and the README's meaning column is
the declared one-line doc (Markdown links apart: ``[text](target)`` reads as ``text``)."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import pytest

from scrapy_boilerplate import settings as bp

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
DOCS = sorted((ROOT / "docs").glob("*.md"))

# A table row whose first cell is a setting's name: | `BOILERPLATE_X` | default | meaning |
SETTING_ROW = re.compile(r"^\|\s*`(BOILERPLATE_[A-Z0-9_]+)`\s*\|")
META_ROW = re.compile(r"^\|\s*`(boilerplate_[a-z0-9_]+)`\s*\|")
CELL_SPLIT = re.compile(r"(?<!\\)\|")
LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
_MISSING = object()


def setting_rows(text: str) -> list[tuple[str, str, str]]:
    """(name, default cell, meaning cell) of every settings-table row, in order."""
    rows = []
    for line in text.splitlines():
        match = SETTING_ROW.match(line.strip())
        if match:
            cells = [cell.strip() for cell in CELL_SPLIT.split(line.strip().strip("|"))]
            rows.append((match.group(1), cells[1] if len(cells) > 1 else "", "|".join(cells[2:])))
    return rows


def documented_default(cell: str) -> Any:
    """The Python literal of the first `code span` of a default cell ("`8388608` (8 MiB)")."""
    match = re.match(r"`([^`]*)`", cell)
    if match is None:
        return _MISSING
    try:
        return ast.literal_eval(match.group(1))
    except (ValueError, SyntaxError):
        return _MISSING


def same_default(documented: Any, declared: Any) -> bool:
    """Equal values of the same kind (30 and 30.0 agree; True and 1 do not)."""
    return (
        documented is not _MISSING
        and isinstance(documented, bool) == isinstance(declared, bool)
        and documented == declared
    )


def plain(markdown: str) -> str:
    return LINK.sub(r"\1", markdown)


def disagreements(text: str, *, complete: bool, meanings: bool) -> list[str]:
    """What a page's settings tables get wrong against settings.SETTINGS: settings missing
    (`complete`: the page must list them all), listed twice, not declared, defaults that differ,
    and (`meanings`) meanings other than the declared doc."""
    problems: list[str] = []
    seen: set[str] = set()
    for name, default, meaning in setting_rows(text):
        spec = bp.SETTINGS.get(name)
        if name in seen:
            problems.append(f"{name} is listed twice")
        seen.add(name)
        if spec is None:
            problems.append(f"{name} is listed but no such setting is declared")
            continue
        if not same_default(documented_default(default), spec.default):
            problems.append(f"{name}: documented default {default} is not the declared {spec.default!r}")
        if meanings and plain(meaning) != spec.doc:
            problems.append(f"{name}: documented meaning {plain(meaning)!r} is not the declared doc {spec.doc!r}")
    if complete:
        problems += [f"{name} is declared but not listed" for name in bp.SETTINGS if name not in seen]
    return problems


def test_the_readme_lists_every_setting_with_its_default_and_meaning():
    assert disagreements(README.read_text(encoding="utf-8"), complete=True, meanings=True) == []


@pytest.mark.parametrize("path", DOCS, ids=lambda path: path.name)
def test_the_docs_tables_give_the_declared_defaults(path):
    assert disagreements(path.read_text(encoding="utf-8"), complete=False, meanings=False) == []


def test_the_docs_have_settings_tables():
    """The docs tests above look at something: the pages that list settings still do."""
    assert {path.name for path in DOCS if setting_rows(path.read_text(encoding="utf-8"))} >= {
        "executors.md",
        "overview.md",
        "site-memory.md",
    }


def test_the_readme_lists_every_request_meta_key():
    keys = {
        match.group(1)
        for line in README.read_text(encoding="utf-8").splitlines()
        if (match := META_ROW.match(line.strip()))
    }
    assert keys == {bp.META_EXTRACT, bp.META_OVERVIEW, bp.META_LINK_ROLE}


def test_a_disagreeing_table_is_found():
    """The check itself: a missing row, an undeclared one, a changed default or meaning."""
    text = README.read_text(encoding="utf-8")
    text = re.sub(r"^\| `BOILERPLATE_FAVOR` .*\n", "", text, flags=re.MULTILINE)
    text = text.replace(
        "| `BOILERPLATE_OVERVIEW_THRESHOLD` | `1500` |", "| `BOILERPLATE_OVERVIEW_THRESHOLD` | `1200` |"
    )
    text = text.replace("| `BOILERPLATE_TEMPLATE_TTL` | `604800` (7 days) |", "| `BOILERPLATE_TEMPLATE_TTL` | 7 days |")
    text = text.replace("keep comment sections |", "keep the comments |")
    text += "| `BOILERPLATE_SPEED` | `True` | go faster |\n"
    problems = disagreements(text, complete=True, meanings=True)
    assert [problem.split(":")[0].split(" ")[0] for problem in problems] == [
        "BOILERPLATE_INCLUDE_COMMENTS",
        "BOILERPLATE_OVERVIEW_THRESHOLD",
        "BOILERPLATE_TEMPLATE_TTL",
        "BOILERPLATE_SPEED",
        "BOILERPLATE_FAVOR",
    ]
    assert "documented default `1200` is not the declared 1500" in problems[1]
    assert problems[-1] == "BOILERPLATE_FAVOR is declared but not listed"


@pytest.mark.parametrize(
    "documented, declared, same",
    [
        ("`30`", 30.0, True),
        ("`0.25`", 0.25, True),
        ('`"main_text"`', "main_text", True),
        ("`None`", None, True),
        ("`8388608` (8 MiB)", 8 * 1024 * 1024, True),
        ("`1`", True, False),
        ("`None`", False, False),
        ("`'x'`", "y", False),
        ("none", None, False),
    ],
)
def test_defaults_compare_as_python_values(documented, declared, same):
    assert same_default(documented_default(documented), declared) is same
