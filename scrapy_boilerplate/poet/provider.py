"""scrapy-poet's provider of the crawler's AnalysisConfig (poet/config.py)."""

from __future__ import annotations

# At run time, not under TYPE_CHECKING: scrapy-poet reads __call__'s annotations (andi).
from collections.abc import Callable, Sequence
from typing import Any

from scrapy_poet.page_input_providers import PageObjectInputProvider

from .. import settings as bp
from ..crawl.config import crawl_settings
from .config import AnalysisConfig


class ConfigProvider(PageObjectInputProvider):
    """Provides AnalysisConfig, built once per crawler from its BOILERPLATE_* settings when the
    crawl starts (a bad setting or model file: one ERROR line, the crawl stops)."""

    provided_classes = {AnalysisConfig}

    @bp.stops_crawl
    def __init__(self, injector: Any) -> None:
        super().__init__(injector)  # type: ignore[no-untyped-call]  # scrapy-poet leaves it untyped
        self.config = AnalysisConfig.from_settings(crawl_settings(injector.crawler))

    def __call__(self, to_provide: set[Callable[..., Any]]) -> Sequence[Any]:
        return [self.config]
