"""What the page objects extract with: the project's BOILERPLATE_* settings, read once per crawler.

``AnalysisConfig`` holds the extractor and the overview detector built from the settings, as the
add-on builds them (``crawl_settings``: the model, the options, the site rules, the overview
model and cutoff). scrapy-poet hands it to every ``PageAnalysis`` through ``ConfigProvider``,
(poet/provider.py), which ``scrapy_boilerplate.poet.Addon`` registers; without the provider (the module discovered
alone), the page objects use the defaults (``AnalysisConfig.default()``).
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass

from ..core.extractor import Extractor, default_extractor
from ..core.overview.detector import OverviewDetector, default_detector
from ..settings import BoilerplateSettings

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class AnalysisConfig:
    """The extractor, the overview detector and the feed cap the page objects use."""

    extractor: Extractor
    detector: OverviewDetector
    feed_max_entries: int

    @classmethod
    def from_settings(cls, settings: BoilerplateSettings) -> AnalysisConfig:
        return cls(
            settings.extractor(),
            settings.detector(),
            settings.feed_max_entries,
        )

    @classmethod
    def default(cls) -> AnalysisConfig:
        """The shipped models and the settings' defaults (shared by every page that has no provider)."""
        global _default
        if _default is None:
            with _lock:
                if _default is None:
                    logger.info(
                        "scrapy_boilerplate.poet: no ConfigProvider in SCRAPY_POET_PROVIDERS, so the "
                        "page objects use the shipped models and default options, not the BOILERPLATE_* "
                        "settings (add scrapy_boilerplate.poet.Addon to ADDONS to have them read)"
                    )
                    _default = cls(default_extractor(), default_detector(), BoilerplateSettings().feed_max_entries)
        return _default


_lock = threading.Lock()
_default: AnalysisConfig | None = None
