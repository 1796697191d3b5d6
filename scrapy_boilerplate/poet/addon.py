"""The add-on of the page objects: discovers them and lets them read the project's settings."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from scrapy.settings import BaseSettings

#: The module scrapy-poet imports for the page objects' rules (SCRAPY_POET_DISCOVER).
PAGES_MODULE = "scrapy_boilerplate.poet"
#: The provider's place among scrapy-poet's (its own run 400 to 1000).
PROVIDER_ORDER = 1100


class Addon:
    """``ADDONS = {"scrapy_poet.Addon": 300, "zyte_common_items.Addon": 400,
    "scrapy_boilerplate.poet.Addon": 500}``: adds this package to SCRAPY_POET_DISCOVER and its
    ConfigProvider to SCRAPY_POET_PROVIDERS, so that the page objects extract with the
    BOILERPLATE_* settings. (It does not enable the extraction add-on: the page objects are the
    extraction here.)"""

    def update_settings(self, settings: BaseSettings) -> None:
        from .provider import ConfigProvider

        discover = settings.getlist("SCRAPY_POET_DISCOVER")
        if PAGES_MODULE not in discover:
            _set(settings, "SCRAPY_POET_DISCOVER", [*discover, PAGES_MODULE])
        providers = settings.getdict("SCRAPY_POET_PROVIDERS")
        if not any(key in (ConfigProvider, "scrapy_boilerplate.poet.ConfigProvider") for key in providers):
            _set(settings, "SCRAPY_POET_PROVIDERS", {**providers, ConfigProvider: PROVIDER_ORDER})


def _set(settings: BaseSettings, name: str, value: object) -> None:
    """Sets `name` at the priority it was given at (a project's own list, extended), else the add-ons'."""
    settings.set(name, value, priority=settings.getpriority(name) or "addon")
