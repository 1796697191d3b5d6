"""The optional compiled speed-ups (Cython modules built by setup.py), and the one list of them.

A hot kernel has one source, `_x.py` beside the module `x.py` that calls it, written in Cython's
pure-Python mode (`cython` annotations type its locals): setup.py compiles it where there is a C
compiler, and it runs as Python where there is none. `x.py` imports it and takes it through
`kernels()`: `from . import _x` then `_x = speedups.kernels(_x)`. The modules not converted yet
are compiled twins: `_x.pyx` mirrors the hot kernels of `x.py` (the functions `x.py` calls
through `_compiled`: same names, same order; the `.pyx` may add compiled-only helpers), found by
`twin(__name__)`, and `x.py` keeps their Python versions; tests/twins/test_twin_names.py checks
the names and their order.

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


def kernels(module: _M) -> _M:
    """The kernel module `module` (one source, imported by its caller: `from . import _x`) as it
    is to run: itself where it is compiled, else, or when pure Python is asked for, its source
    run as Python."""
    if not is_compiled(module):
        _report_missing(module.__name__.removeprefix(__package__ + "."))
        return module
    if not pure_python():
        return module
    return source_of(module)


def source_of(module: _M) -> _M:
    """The compiled kernel module `module`'s source `.py` run as Python (a module of its own,
    under the same name, not in sys.modules; one per process)."""
    if not is_compiled(module):
        return module
    if module.__name__ not in _sources:
        assert module.__file__ is not None
        path = os.path.join(os.path.dirname(module.__file__), module.__name__.rpartition(".")[2] + ".py")
        spec = importlib.util.spec_from_file_location(module.__name__, path)
        assert spec is not None and spec.loader is not None
        source = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(source)
        _sources[module.__name__] = source
    return _sources[module.__name__]  # type: ignore[return-value]


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
    package, _, name = module.rpartition(".")
    prefix = __package__ + "."
    if not package.startswith(__package__) or name.startswith("_"):
        raise ValueError(f"{module} is not a Python module of {__package__}")
    twin_name = f"{package[len(prefix) :]}._{name}" if package != __package__ else f"_{name}"
    if twin_name not in COMPILED:
        raise ValueError(f"{module} has no compiled twin in COMPILED")
    return load(twin_name)


def available() -> dict[str, bool]:
    """Which compiled modules are in use, by name (printed by `scrapy-boilerplate bench`)."""
    return {name: load(name) is not None for name in COMPILED}
