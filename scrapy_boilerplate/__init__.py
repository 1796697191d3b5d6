"""Main-content extraction and overview-page detection for Scrapy crawls.

Public API (stable): :func:`extract`, :class:`Extraction`, :class:`Extractor`.
"""

from .core.extractor import Extraction, Extractor, extract
from .core.model import Model, ModelError, load_model
from .core.overview import OverviewDetector, OverviewVerdict, detect_overview

__version__ = "0.1.0"

__all__ = [
    "Extraction", "Extractor", "Model", "ModelError", "OverviewDetector", "OverviewVerdict",
    "detect_overview", "extract", "load_model", "__version__",
]
