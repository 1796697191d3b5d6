"""Builds the optional compiled speed-ups; everything else is declared in setup.cfg.

The extensions are optional: where they cannot be built (no C compiler, no
Cython), the package installs and works with the pure-Python code paths,
which give the same results, only slower.
"""

from setuptools import setup

try:
    import lxml
    from Cython.Build import cythonize
    from setuptools import Extension
except ImportError:   # no build tools: a pure-Python install
    ext_modules = []
else:
    ext_modules = cythonize(
        [Extension(f"scrapy_boilerplate.core.{name}", [f"scrapy_boilerplate/core/{name}.pyx"],
                   optional=True)
         for name in ("_trees", "_textstats", "_utf8", "_evidence")]
        # reads lxml's C nodes: needs lxml's headers (lxml ships them)
        + [Extension("scrapy_boilerplate.core._walk", ["scrapy_boilerplate/core/_walk.pyx"],
                     include_dirs=lxml.get_include(), optional=True)],
        compiler_directives={"language_level": "3"},
        quiet=True,
    )

setup(ext_modules=ext_modules)
