"""The optional compiled speed-ups (Cython modules built by setup.py), and the one list of them.

A hot kernel has one source, `_x.py` beside the module `x.py` that calls it, written in Cython's
pure-Python mode (`cython` annotations type its locals, a `_x.pxd` what annotations cannot say):
setup.py compiles it where there is a C compiler, and it runs as Python where there is none.
`x.py` takes it with `_x = speedups.kernels(__name__)` (and imports it under TYPE_CHECKING, for
mypy); tests/twins/test_twin_names.py checks it has what `x.py` calls. The modules not converted
yet are compiled twins: `_x.pyx` mirrors the hot kernels of `x.py` (the functions `x.py` calls
through `_compiled`: same names, same order; the `.pyx` may add compiled-only helpers), found by
`twin(__name__)`, and `x.py` keeps their Python versions; the same test checks the names and
their order.

Python runs where the extension was not built (no C compiler at install time) or when the
environment variable SCRAPY_BOILERPLATE_PURE_PYTHON is set to anything but "" or "0" (to compare
both, or to rule the compiled code out).
"""

from __future__ import annotations

import importlib
import importlib.machinery
import importlib.util
import logging
import os
import sys
from types import ModuleType
from typing import TypeVar

logger = logging.getLogger(__name__)

#: Every compiled module, as its path under scrapy_boilerplate.core. setup.py (what to build)
#: and .ci/artifacts (what a wheel must hold) read this tuple from this file without importing
#: the package: keep it a literal.
COMPILED = (
    "document._parse",
    "document._cues",
    "document._walk",
    "scoring._features",
    "scoring._ttr",
    "scoring._model",
    "scoring._context",
    "overview._evidence",
)
#: The compiled modules that read lxml's C nodes: built with lxml's headers (lxml ships them).
NEEDS_LXML = ("document._walk",)  # (it cimports document/_cues.pxd: build _cues first)

PURE_PYTHON_ENV = "SCRAPY_BOILERPLATE_PURE_PYTHON"
_missing: set[str] = set()  # modules already reported as not built
_M = TypeVar("_M", bound=ModuleType)
_sources: dict[str, ModuleType] = {}  # compiled kernels' sources, run as Python


def pure_python() -> bool:
    """Whether SCRAPY_BOILERPLATE_PURE_PYTHON asks for the pure-Python code."""
    return os.environ.get(PURE_PYTHON_ENV, "") not in ("", "0")


def is_compiled(module: ModuleType) -> bool:
    """Whether `module` was loaded from a compiled extension (not from its `.py`)."""
    return isinstance(getattr(module, "__loader__", None), importlib.machinery.ExtensionFileLoader)


def _report_missing(name: str) -> None:
    # Not built (no C compiler at install time): say so once, since it costs about 2x.
    if name not in _missing:
        _missing.add(name)
        logger.warning(
            "compiled module %s is not built; running its Python code (about 2x slower; a C "
            "compiler at install time builds it)",
            name,
        )


def kernels(module: str) -> ModuleType:
    """The kernel module of the Python module named `module` (`scrapy_boilerplate.core.a.x` ->
    `scrapy_boilerplate.core.a._x`, one source) as it is to run: compiled where it was built (and
    loads), else, or when pure Python is asked for, its source run as Python."""
    name = _kernel_name(module)
    full = f"{__package__}.{name}"
    if not pure_python():
        try:
            loaded = importlib.import_module(full)
        except Exception:  # a broken build must not break the package
            logger.warning("compiled module %s failed to load; running its Python code", name, exc_info=True)
        else:
            if not is_compiled(loaded):
                _report_missing(name)
            return loaded
    imported = sys.modules.get(full)
    if imported is not None and not is_compiled(imported):
        return imported
    return _run_source(full, os.path.join(os.path.dirname(__file__), *name.split(".")) + ".py")


def source_of(module: _M) -> _M:
    """The compiled kernel module `module`'s source run as Python (`module` itself where it is
    not compiled)."""
    if not is_compiled(module):
        return module
    assert module.__file__ is not None
    path = os.path.join(os.path.dirname(module.__file__), module.__name__.rpartition(".")[2] + ".py")
    return _run_source(module.__name__, path)  # type: ignore[return-value]


def _run_source(name: str, path: str) -> ModuleType:
    """The module `name` run from its source file `path` (a module of its own, not in
    sys.modules, where the compiled one may be; one per process)."""
    if name not in _sources:
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None and spec.loader is not None
        source = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(source)
        _sources[name] = source
    return _sources[name]


def _kernel_name(module: str) -> str:
    """`scrapy_boilerplate.core.a.x` -> `a._x`, which must be in COMPILED."""
    package, _, name = module.rpartition(".")
    prefix = __package__ + "."
    if not package.startswith(__package__) or name.startswith("_"):
        raise ValueError(f"{module} is not a Python module of {__package__}")
    kernel = f"{package[len(prefix) :]}._{name}" if package != __package__ else f"_{name}"
    if kernel not in COMPILED:
        raise ValueError(f"{module} has no compiled module in COMPILED")
    return kernel


def load(name: str) -> ModuleType | None:
    """The compiled module `scrapy_boilerplate.core.<name>` (a name in COMPILED), or None."""
    if pure_python():
        return None
    try:
        module = importlib.import_module(f"{__package__}.{name}")
    except ImportError:
        _report_missing(name)
        return None
    except Exception:  # a broken build must not break the package
        logger.warning("compiled module %s failed to load; using its pure-Python twin", name, exc_info=True)
        return None
    if not is_compiled(module):  # a kernel's source, not built
        _report_missing(name)
        return None
    return module


def twin(module: str) -> ModuleType | None:
    """The compiled twin of the Python module named `module` (`scrapy_boilerplate.core.a.x` ->
    `scrapy_boilerplate.core.a._x`), or None: not built, or pure Python asked for."""
    return load(_kernel_name(module))


def available() -> dict[str, bool]:
    """Which compiled modules are in use, by name (printed by `scrapy-boilerplate bench`)."""
    return {name: load(name) is not None for name in COMPILED}
