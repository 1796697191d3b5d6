"""The house rules of the package's layout (CONTRIBUTING.md): small functions, small folders,
the algorithm apart from Scrapy."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "scrapy_boilerplate"
MAX_FUNCTION_LINES = 100
MAX_MODULES_PER_FOLDER = 15


def test_no_function_is_over_100_lines():
    long = []
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = node.end_lineno - node.lineno + 1
                if lines > MAX_FUNCTION_LINES:
                    long.append(f"{path.relative_to(PACKAGE)}:{node.lineno} {node.name} ({lines} lines)")
    assert not long, long


def test_no_folder_holds_more_than_15_modules():
    for folder in [PACKAGE, *(p for p in PACKAGE.rglob("*") if p.is_dir() and p.name != "__pycache__")]:
        modules = [p for p in folder.iterdir() if p.suffix in (".py", ".pyx") and p.name != "__init__.py"]
        assert len(modules) <= MAX_MODULES_PER_FOLDER, (folder, len(modules))


def test_the_core_imports_no_scrapy():
    for path in (PACKAGE / "core").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            assert not any(n == "scrapy" or n.startswith("scrapy.") for n in names), path
