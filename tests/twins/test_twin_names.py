"""Each compiled module is one source, or a twin that mirrors its Python module's hot kernels.

One source: `_x.py`, in Cython's pure-Python mode, compiled as it is; it defines every kernel
`x.py` calls on it, and so does the built module, when there is one. A twin: a `_x.pyx` mirrors the hot
kernels of its `x.py` (not the whole module), and may add compiled-only helpers (a cdef class, a
trie builder). What is checked: the names defined in both come in the same order; every kernel
`x.py` calls on `_compiled` is one of them; and the built module, when there is one, has each of
them.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from scrapy_boilerplate.core import speedups

CORE = Path(speedups.__file__).resolve().parent
PYX_DEF = re.compile(r"^(?:cpdef\s+\w+\s+|def\s+|cdef\s+class\s+|class\s+)(\w+)", re.MULTILINE)


def names(twin: str) -> tuple[list[str], list[str], set[str]]:
    """(names defined in the .pyx, in the .py, in order; the names the .py calls on `_compiled`)."""
    package, module = twin.split(".")
    pyx = (CORE / package / f"{module}.pyx").read_text(encoding="utf-8")
    source = (CORE / package / f"{module[1:]}.py").read_text(encoding="utf-8")
    py = defined(source)
    called = set(re.findall(r"\b_compiled\.(\w+)", source))
    return PYX_DEF.findall(pyx), py, called


def one_source(name: str) -> bool:
    package, module = name.split(".")
    return not (CORE / package / f"{module}.pyx").exists()


def defined(source: str) -> list[str]:
    return [node.name for node in ast.parse(source).body if isinstance(node, ast.FunctionDef | ast.ClassDef)]


@pytest.mark.parametrize("name", [n for n in speedups.COMPILED if one_source(n)])
def test_a_compiled_source_has_what_its_module_calls(name):
    package, module = name.split(".")
    caller = (CORE / package / f"{module[1:]}.py").read_text(encoding="utf-8")
    called = set(re.findall(rf"\b{module}\.(\w+)", caller))
    assert called, f"{module[1:]}.py calls nothing of {name}"
    assert called <= set(defined((CORE / package / f"{module}.py").read_text(encoding="utf-8")))
    built = speedups.load(name)
    if built is not None:
        assert all(hasattr(built, n) for n in called)


@pytest.mark.parametrize("twin", [n for n in speedups.COMPILED if not one_source(n)])
def test_the_twin_mirrors_the_kernels_by_name_and_order(twin):
    pyx, py, called = names(twin)
    mirrored = set(pyx) & set(py)
    assert mirrored, f"{twin} mirrors nothing of its Python module"
    # (The walk's and the cues' twins are called from page.py and from the compiled walk.)
    assert called <= mirrored, f"{twin}: kernels missing from one side: {called - mirrored}"
    assert [n for n in pyx if n in mirrored] == [n for n in py if n in mirrored]
    built = speedups.load(twin)
    if built is not None:
        assert all(hasattr(built, name) for name in mirrored)
