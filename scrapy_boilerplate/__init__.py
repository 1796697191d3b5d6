"""Main-content extraction and overview-page detection for Scrapy crawls.

Public API (stable): :func:`extract`, :class:`Extraction`, :class:`Extractor`.
"""

from typing import Any

from .core.duplicates.index import DuplicateIndex, Judgement
from .core.duplicates.store import MemoryDuplicateStore
from .core.extractor import Extraction, Extractor, extract
from .core.overview.detector import OverviewDetector, OverviewVerdict, detect_overview
from .core.scoring.model import Model, ModelError, load_model
from .core.site_memory.templates import MemoryTemplateStore

__version__ = "0.1.0"

# The Scrapy components, imported on first use: `import scrapy_boilerplate`
# (the core) must not import Scrapy.
_SCRAPY_COMPONENTS = {
    "Addon": "addon",
    "MainContentPipeline": "pipelines",
    "OverviewMiddleware": "middlewares",
    "CharsetMiddleware": "middlewares",
    "OverviewLinksOnlyMiddleware": "middlewares",
    "ItemResponseMiddleware": "middlewares",
    "LinkRolesMiddleware": "link_roles",
    # Imports the optional `redis` package only when asked for.
    "RedisTemplateStore": "core.site_memory.redis_store",
    "RedisDuplicateStore": "core.duplicates.redis_store",
}

__all__ = [
    "DuplicateIndex",
    "Extraction",
    "Extractor",
    "Judgement",
    "MemoryDuplicateStore",
    "MemoryTemplateStore",
    "Model",
    "ModelError",
    "OverviewDetector",
    "OverviewVerdict",
    "detect_overview",
    "extract",
    "load_model",
    "__version__",
    *_SCRAPY_COMPONENTS,
]


def __getattr__(name: str) -> Any:
    module = _SCRAPY_COMPONENTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value
