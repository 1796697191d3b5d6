"""The optional compiled speed-ups (Cython modules built by setup.py).

Each has a pure-Python twin that gives the same results, only slower; the
twin is used where the extension was not built (no C compiler at install
time) or when the environment variable SCRAPY_BOILERPLATE_PURE_PYTHON is set
to anything but "" or "0" (to compare both, or to rule the compiled code out).
"""

from __future__ import annotations

import importlib
import os

PURE_PYTHON_ENV = "SCRAPY_BOILERPLATE_PURE_PYTHON"


def load(name: str):
    """The compiled module `scrapy_boilerplate.core.<name>`, or None."""
    if os.environ.get(PURE_PYTHON_ENV, "") not in ("", "0"):
        return None
    try:
        return importlib.import_module(f"{__package__}.{name}")
    except ImportError:
        return None


def available() -> dict:
    """Which compiled modules are in use, by name (printed by `scrapy-boilerplate bench`)."""
    return {name: load(name) is not None for name in ("_walk", "_textstats", "_trees")}
