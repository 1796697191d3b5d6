"""The package's modules import each other without a circle (issue 51): what a module needs is
below it, never beside it and back. The graph is read from the source with ast: imports inside
functions count (they are a circle put off to run time), imports under `if TYPE_CHECKING:` do not
(they never run), and the package `__init__` files are left out (they re-export, they hold no
code of their own)."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "scrapy_boilerplate"


def module_names(root: Path) -> dict[str, Path]:
    """Every module of the package under `root` by its dotted name, `__init__` files left out."""
    return {
        ".".join(path.relative_to(root.parent).with_suffix("").parts): path
        for path in sorted(root.rglob("*.py"))
        if path.name != "__init__.py"
    }


def is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def import_nodes(tree: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    """The imports that run: everywhere (functions, classes, try blocks) but in the body of an
    `if TYPE_CHECKING:` (its `else:` runs)."""
    found: list[ast.Import | ast.ImportFrom] = []
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            found.append(node)
        elif isinstance(node, ast.If) and is_type_checking(node.test):
            stack.extend(node.orelse)
        else:
            stack.extend(ast.iter_child_nodes(node))
    return found


def imported_modules(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The package's modules that module `name` imports."""
    package = name.rsplit(".", 1)[0]
    targets: set[str] = set()
    for node in import_nodes(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets.update(alias.name for alias in node.names)
            continue
        base = node.module or ""
        if node.level:
            parts = package.split(".")
            anchor = ".".join(parts[: len(parts) - node.level + 1])
            base = f"{anchor}.{base}" if base else anchor
        # `from .x import y`: module x.y when it is one, else what x (a module) defines.
        submodules = {f"{base}.{alias.name}" for alias in node.names} & modules.keys()
        targets.update(submodules or {base})
    return (targets & modules.keys()) - {name}


def import_graph(root: Path) -> dict[str, set[str]]:
    modules = module_names(root)
    return {name: imported_modules(name, path, modules) for name, path in modules.items()}


def find_cycle(graph: dict[str, set[str]]) -> list[str]:
    """One circle of the graph as its modules in order, the first repeated at the end; [] if none."""
    state: dict[str, int] = {}  # 1: on the path being walked, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str]:
        state[node] = 1
        path.append(node)
        for target in sorted(graph[node]):
            if state.get(target) == 1:
                return [*path[path.index(target) :], target]
            if target not in state and (cycle := visit(target)):
                return cycle
        path.pop()
        state[node] = 2
        return []

    for node in sorted(graph):
        if node not in state and (cycle := visit(node)):
            return cycle
    return []


def write(root: Path, files: dict[str, str]) -> Path:
    for name, source in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(source, encoding="utf-8")
    return root / "pkg"


def test_the_graph_counts_function_imports_and_not_type_checking_ones(tmp_path):
    root = write(
        tmp_path,
        {
            "pkg/__init__.py": "from .a import f\n",
            "pkg/a.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .b import g\n",
            "pkg/b.py": "def g():\n    from . import c\n    from .sub import d\n",
            "pkg/c.py": "import pkg.sub.d\n",
            "pkg/sub/__init__.py": "",
            "pkg/sub/d.py": "from ..a import f\nfrom .. import sub\n",
        },
    )
    assert import_graph(root) == {
        "pkg.a": set(),
        "pkg.b": {"pkg.c", "pkg.sub.d"},
        "pkg.c": {"pkg.sub.d"},
        "pkg.sub.d": {"pkg.a"},
    }
    assert find_cycle(import_graph(root)) == []


def test_a_circle_through_a_function_import_is_found(tmp_path):
    root = write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/a.py": "from .b import g\n",
            "pkg/b.py": "def g():\n    from .c import h\n",
            "pkg/c.py": "import typing\nif typing.TYPE_CHECKING:\n    pass\nelse:\n    from pkg import a\n",
        },
    )
    assert find_cycle(import_graph(root)) == ["pkg.a", "pkg.b", "pkg.c", "pkg.a"]


def test_the_package_imports_without_a_circle():
    graph = import_graph(PACKAGE)
    assert len(graph) > 100 and graph["scrapy_boilerplate.core.extractor"]
    cycle = find_cycle(graph)
    assert not cycle, "import circle: " + " -> ".join(cycle)
