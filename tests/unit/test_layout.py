"""The house rules of the package's layout (CONTRIBUTING.md): small functions, small folders,
the algorithm apart from Scrapy."""

from __future__ import annotations

import ast
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "scrapy_boilerplate"
MAX_FUNCTION_LINES = 100
MAX_MODULES_PER_FOLDER = 15
# A function in a .pyx: def, cpdef or cdef with a parameter list (not a cdef class, struct or variable).
PYX_FUNCTION = re.compile(r"^(\s*)(?:def|cpdef|cdef)\s[^=]*?\b(\w+)\s*\(")


def test_no_function_is_over_100_lines():
    long = []
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = node.end_lineno - node.lineno + 1
                if lines > MAX_FUNCTION_LINES:
                    long.append(f"{path.relative_to(PACKAGE)}:{node.lineno} {node.name} ({lines} lines)")
    assert not long, long


def pyx_function_lengths(source: str) -> list[tuple[str, int, int]]:
    """(name, first line, lines) of each function in Cython source: from its def line to its last
    line indented deeper than the def (blank lines and comments at the end not counted)."""
    lines = source.splitlines()
    found = []
    for i, line in enumerate(lines):
        match = PYX_FUNCTION.match(line)
        if not match:
            continue
        indent, last = len(match.group(1)), i
        for j in range(i + 1, len(lines)):
            text = lines[j].strip()
            if not text or text.startswith("#"):
                continue
            if len(lines[j]) - len(lines[j].lstrip()) <= indent and not lines[j - 1].rstrip().endswith(("\\", ",")):
                break
            last = j
        found.append((match.group(2), i + 1, last - i + 1))
    return found


def test_pyx_function_lengths_are_measured():
    source = "cdef int f(int a,\n          int b) except -1:\n    x = 1\n\n    return x\n# end\ncdef class C:\n    cdef int n\n"
    source += "    cdef int g(self) except -1:\n        return 0\n    def h(self):\n        pass\n"
    assert pyx_function_lengths(source) == [("f", 1, 5), ("g", 9, 2), ("h", 11, 2)]


def test_no_pyx_function_is_over_100_lines():
    long = []
    for path in PACKAGE.rglob("*.pyx"):
        for name, first, lines in pyx_function_lengths(path.read_text(encoding="utf-8")):
            if lines > MAX_FUNCTION_LINES:
                long.append(f"{path.relative_to(PACKAGE)}:{first} {name} ({lines} lines)")
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


def test_no_merge_or_editor_leftovers_in_the_package():
    """A `.orig` of a merge once sat beside its module, committed, for a day."""
    leftovers = [
        str(path.relative_to(PACKAGE))
        for pattern in ("*.orig", "*.rej", "*.bak", "*~", "*.swp")
        for path in PACKAGE.rglob(pattern)
    ]
    assert not leftovers, leftovers
