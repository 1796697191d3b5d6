"""The add-on: ``ADDONS = {"scrapy_boilerplate.Addon": 0}`` enables everything."""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import settings as bp
from .link_roles import LinkRolesMiddleware
from .middlewares import CharsetMiddleware, ItemResponseMiddleware, OverviewLinksOnlyMiddleware, OverviewMiddleware
from .pipelines import MainContentPipeline

if TYPE_CHECKING:
    from scrapy.settings import BaseSettings

# Component priorities. OverviewMiddleware sits below MetaRefreshMiddleware (580)
# and HttpCompressionMiddleware (590), so that it judges the final, decompressed
# page. ItemResponseMiddleware is the spider middleware closest to the engine
# (below StartSpiderMiddleware, 25), so it only records items that reach the item
# pipelines; OverviewLinksOnlyMiddleware drops items before it sees them. CharsetMiddleware
# (off unless BOILERPLATE_DETECT_CHARSET) re-decodes the decompressed page before it is judged.
COMPONENTS = (
    ("DOWNLOADER_MIDDLEWARES", CharsetMiddleware, 575),
    ("DOWNLOADER_MIDDLEWARES", OverviewMiddleware, 570),
    ("SPIDER_MIDDLEWARES", OverviewLinksOnlyMiddleware, 100),
    ("SPIDER_MIDDLEWARES", ItemResponseMiddleware, 10),
    # BOILERPLATE_LINKS: disabled (NotConfigured, nothing computed) while it is "off".
    ("SPIDER_MIDDLEWARES", LinkRolesMiddleware, 110),
    ("ITEM_PIPELINES", MainContentPipeline, 100),
)


class Addon:
    """Enables the overview middlewares and the main-content pipeline, and
    stores the BOILERPLATE_* defaults at "addon" priority, so that values from
    a project's settings.py or a spider's custom_settings win.

    A component the user already lists (as a class or an import path, under
    any name it can be imported by) keeps the user's priority; with
    BOILERPLATE_ENABLED = False the add-on changes nothing.
    """

    def update_settings(self, settings: BaseSettings) -> None:
        # Only the switch is read here: the components read and check every setting
        # (settings.read) once the project's and the spider's values are in.
        if not bp.read_enabled(settings):
            return
        for name, value in bp.DEFAULTS.items():
            settings.set(name, value, priority="addon")
        for setting, cls, priority in COMPONENTS:
            settings.setdefault_in_component_priority_dict(setting, cls, priority)
