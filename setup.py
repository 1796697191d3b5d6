"""Builds the optional compiled speed-ups; everything else is declared in setup.cfg.

The extensions are optional: where they cannot be built (no C compiler, no
Cython), the package installs and works with the pure-Python code paths,
which give the same results, only slower.
"""

import ast
import sys
from pathlib import Path

from setuptools import setup

# Python's own CFLAGS hold -g: on Linux the modules would carry about 5 MB of DWARF debug
# information a user never needs (6.6 MB of modules instead of 1.2). The linker leaves it out;
# the code is the same. (macOS and Windows do not put debug information into the module.)
LINK_ARGS = ["-Wl,--strip-debug"] if sys.platform.startswith("linux") else []


def compiled_modules() -> tuple[tuple, tuple]:
    """The one list of compiled modules (COMPILED and NEEDS_LXML in scrapy_boilerplate/core/speedups.py),
    read without importing the package (its dependencies are not installed at build time)."""
    tree = ast.parse(Path(__file__).with_name("scrapy_boilerplate").joinpath("core", "speedups.py").read_text())
    values = {
        target.id: ast.literal_eval(node.value)
        for node in tree.body
        if isinstance(node, ast.Assign)
        for target in node.targets
        if isinstance(target, ast.Name) and target.id in ("COMPILED", "NEEDS_LXML")
    }
    return values["COMPILED"], values["NEEDS_LXML"]


def source(name: str) -> str:
    """A compiled module's source: its `.py` (one source, in Cython's pure-Python mode) or, for a
    compiled twin not converted yet, its `.pyx`."""
    path = f"scrapy_boilerplate/core/{name.replace('.', '/')}"
    return f"{path}.pyx" if (Path(__file__).parent / f"{path}.pyx").exists() else f"{path}.py"


try:
    import lxml
    from Cython.Build import cythonize
    from setuptools import Extension
except ImportError:  # no build tools: a pure-Python install
    ext_modules = []
else:
    COMPILED, NEEDS_LXML = compiled_modules()
    ext_modules = cythonize(
        [
            Extension(
                f"scrapy_boilerplate.core.{name}",
                [source(name)],
                # reads lxml's C nodes: needs lxml's headers (lxml ships them)
                include_dirs=lxml.get_include() if name in NEEDS_LXML else [],
                extra_link_args=LINK_ARGS,
                optional=True,
            )
            for name in COMPILED
        ],
        compiler_directives={"language_level": "3"},
        quiet=True,
    )

setup(ext_modules=ext_modules)
