"""The optional compiled speed-ups (Cython modules built by setup.py), and the one list of them.

Each compiled module `_x.pyx` sits beside the Python module `x.py` whose hot kernels it
mirrors (the functions `x.py` calls through `_compiled`: same names, same order; the `.pyx`
may add compiled-only helpers, and `x.py` keeps everything else) and is found by that name:
`twin(__name__)`; tests/twins/test_twin_names.py checks the names and their order. The
Python module is used where the extension was not built (no C compiler at
install time) or when the environment variable SCRAPY_BOILERPLATE_PURE_PYTHON
is set to anything but "" or "0" (to compare both, or to rule the compiled
code out).
"""

from __future__ import annotations

import importlib
import logging
import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from types import ModuleType

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


def load(name: str) -> ModuleType | None:
    """The compiled module `scrapy_boilerplate.core.<name>` (a name in COMPILED), or None."""
    if os.environ.get(PURE_PYTHON_ENV, "") not in ("", "0"):
        return None
    try:
        return importlib.import_module(f"{__package__}.{name}")
    except ImportError:
        # Not built (no C compiler at install time): say so once, since it costs about 2x.
        if name not in _missing:
            _missing.add(name)
            logger.warning(
                "compiled module %s is not built; using its pure-Python twin (about 2x "
                "slower; a C compiler at install time builds it)",
                name,
            )
        return None
    except Exception:  # a broken build must not break the package
        logger.warning("compiled module %s failed to load; using its pure-Python twin", name, exc_info=True)
        return None


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
