"""What a compiled kernel's source needs of the `cython` module when it runs as Python without
Cython installed (a pure install: Cython is a build-time dependency only).

A kernel module starts with

    try:
        import cython
    except ModuleNotFoundError:  # run as Python, without Cython: this shim
        from .. import _cython as cython  # type: ignore[no-redef]

Compiled, `import cython` is Cython's own (the `except` branch is never run); run as Python with
Cython installed it is Cython's pure-mode module (Cython.Shadow), else this one. Only what the
kernels use is here: types (as their Python counterparts), casts, and the decorators (no-ops).
"""

from __future__ import annotations

from typing import Any, TypeVar

_T = TypeVar("_T")

compiled = False

# C types, as the Python type their values have when the code runs as Python.
bint = bool
int = int
uint = int
long = int
Py_ssize_t = int
size_t = int
double = float
uchar = int


def cast(kind: type[_T], value: Any, typecheck: bool = False) -> _T:
    """cython.cast run as Python: the value, converted as Python converts it."""
    return kind(value)  # type: ignore[call-arg]


def _directive(*args: Any, **kwargs: Any) -> Any:
    """A decorator or directive (cython.boundscheck(False), cython.cfunc...): a no-op."""
    if len(args) == 1 and callable(args[0]) and not kwargs:
        return args[0]
    return lambda function: function


boundscheck = wraparound = cdivision = initializedcheck = locals = _directive
cfunc = ccall = inline = final = exceptval = _directive
