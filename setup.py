"""Builds the optional compiled speed-ups; everything else is declared in setup.cfg.

The extensions are optional: where they cannot be built (no C compiler, no
Cython), the package installs and works with the pure-Python code paths,
which give the same results, only slower.
"""

import sys

from setuptools import setup

# Python's own CFLAGS hold -g: on Linux the modules would carry about 5 MB of DWARF debug
# information a user never needs (6.6 MB of modules instead of 1.2). The linker leaves it out;
# the code is the same. (macOS and Windows do not put debug information into the module.)
LINK_ARGS = ["-Wl,--strip-debug"] if sys.platform.startswith("linux") else []

try:
    import lxml
    from Cython.Build import cythonize
    from setuptools import Extension
except ImportError:   # no build tools: a pure-Python install
    ext_modules = []
else:
    ext_modules = cythonize(
        [Extension(f"scrapy_boilerplate.core.{name}", [f"scrapy_boilerplate/core/{name}.pyx"],
                   extra_link_args=LINK_ARGS, optional=True)
         for name in ("_trees", "_textstats", "_utf8", "_evidence")]
        # reads lxml's C nodes: needs lxml's headers (lxml ships them)
        + [Extension("scrapy_boilerplate.core._walk", ["scrapy_boilerplate/core/_walk.pyx"],
                     include_dirs=lxml.get_include(), extra_link_args=LINK_ARGS, optional=True)],
        compiler_directives={"language_level": "3"},
        quiet=True,
    )

setup(ext_modules=ext_modules)
