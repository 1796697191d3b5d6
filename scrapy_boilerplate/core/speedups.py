"""The optional compiled speed-ups (Cython modules built by setup.py), and the one list of them.

Each compiled module `_x.pyx` sits beside the Python module `x.py` it mirrors
(same functions, same order) and is found by that name: `twin(__name__)`. The
Python module is used where the extension was not built (no C compiler at
install time) or when the environment variable SCRAPY_BOILERPLATE_PURE_PYTHON
is set to anything but "" or "0" (to compare both, or to rule the compiled
code out).
"""

from __future__ import annotations

import importlib
import logging
import os

logger = logging.getLogger(__name__)

#: Every compiled module, as its path under scrapy_boilerplate.core. setup.py (what to build)
#: and .ci/artifacts (what a wheel must hold) read this tuple from this file without importing
#: the package: keep it a literal.
COMPILED = (
    "document._walk",
    "document._utf8",
    "scoring._textstats",
    "scoring._trees",
    "overview._evidence",
)
#: The compiled modules that read lxml's C nodes: built with lxml's headers (lxml ships them).
NEEDS_LXML = ("document._walk",)

PURE_PYTHON_ENV = "SCRAPY_BOILERPLATE_PURE_PYTHON"
_missing: set = set()   # modules already reported as not built


def load(name: str):
    """The compiled module `scrapy_boilerplate.core.<name>` (a name in COMPILED), or None."""
    if os.environ.get(PURE_PYTHON_ENV, "") not in ("", "0"):
        return None
    try:
        return importlib.import_module(f"{__package__}.{name}")
    except ImportError:
        # Not built (no C compiler at install time): say so once, since it costs about 2x.
        if name not in _missing:
            _missing.add(name)
            logger.warning("compiled module %s is not built; using its pure-Python twin (about 2x "
                           "slower; a C compiler at install time builds it)", name)
        return None
    except Exception:   # noqa: BLE001 - a broken build must not break the package
        logger.warning("compiled module %s failed to load; using its pure-Python twin", name,
                       exc_info=True)
        return None


def available() -> dict:
    """Which compiled modules are in use, by name (printed by `scrapy-boilerplate bench`)."""
    return {name: load(name) is not None for name in COMPILED}
