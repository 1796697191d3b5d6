"""The crawl's BOILERPLATE_* settings, read once per crawler and handed to its components.

Every component of a crawl (the pipeline, the middlewares, the worker pool, site memory) asks
`crawl_settings(crawler)`: the first read checks every setting (a SettingError stops the crawl
before it starts) and the typed `BoilerplateSettings` it gives is shared from then on.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import settings as bp
from .weakcache import WeakCache

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

_read: WeakCache[Crawler, bp.BoilerplateSettings] = WeakCache(lambda crawler: bp.read(crawler.settings))


def crawl_settings(crawler: Crawler) -> bp.BoilerplateSettings:
    """The crawler's settings, read on first use (crawler settings are frozen by then)."""
    return _read(crawler)
