"""The add-on (ADDONS = {"scrapy_boilerplate.Addon": 0}) and the package's lazy Scrapy names."""

from __future__ import annotations

import subprocess
import sys

import pytest
from scrapy import Spider
from scrapy.settings import SETTINGS_PRIORITIES
from scrapy.utils.conf import build_component_list
from scrapy.utils.misc import load_object
from scrapy.utils.test import get_crawler

import scrapy_boilerplate
from scrapy_boilerplate import settings as bp
from scrapy_boilerplate.link_roles import LinkRolesMiddleware
from scrapy_boilerplate.middlewares import (
    CharsetMiddleware,
    ItemResponseMiddleware,
    OverviewLinksOnlyMiddleware,
    OverviewMiddleware,
)
from scrapy_boilerplate.pipelines import MainContentPipeline

ADDON = {"ADDONS": {"scrapy_boilerplate.Addon": 0}}


def settings_of(settings: dict | None = None, custom_settings: dict | None = None):
    spidercls = type("S", (Spider,), {"name": "s", "custom_settings": custom_settings or {}})
    return get_crawler(spidercls, settings or {}).settings


def ordered(settings, name: str) -> list:
    """The component classes of `name` (merged with Scrapy's _BASE) in Scrapy's order."""
    return [load_object(c) for c in build_component_list(settings.getwithbase(name))]


def ours(settings, name: str) -> dict:
    return {
        load_object(k): v
        for k, v in settings.getdict(name).items()
        if load_object(k).__module__.startswith("scrapy_boilerplate")
    }


def test_addon_enables_every_component_at_its_priority():
    s = settings_of(ADDON)
    assert ours(s, "DOWNLOADER_MIDDLEWARES") == {CharsetMiddleware: 575, OverviewMiddleware: 570}
    assert ours(s, "SPIDER_MIDDLEWARES") == {
        OverviewLinksOnlyMiddleware: 100,
        ItemResponseMiddleware: 10,
        LinkRolesMiddleware: 110,
    }
    assert ours(s, "ITEM_PIPELINES") == {MainContentPipeline: 100}


def test_component_order_among_scrapys_own():
    s = settings_of(ADDON)
    downloader = ordered(s, "DOWNLOADER_MIDDLEWARES")
    names = [c.__name__ for c in downloader]
    # process_response runs from the end of the list: OverviewMiddleware sees the
    # response after decompression and meta-refresh handling.
    assert (
        names.index("OverviewMiddleware")
        < names.index("MetaRefreshMiddleware")
        < names.index("HttpCompressionMiddleware")
    )
    spider = ordered(s, "SPIDER_MIDDLEWARES")
    # Nearest the engine: it only sees items that reach the item pipelines.
    assert spider[0] is ItemResponseMiddleware
    assert spider.index(ItemResponseMiddleware) < spider.index(OverviewLinksOnlyMiddleware)


def test_defaults_are_set_at_addon_priority():
    s = settings_of(ADDON)
    for name, value in bp.DEFAULTS.items():
        assert s[name] == value, name
        assert s.getpriority(name) == SETTINGS_PRIORITIES["addon"], name


def test_user_settings_win_over_the_addon():
    s = settings_of({**ADDON, "BOILERPLATE_TEXT_FIELD": "body"}, custom_settings={"BOILERPLATE_EXECUTOR": "thread"})
    assert s["BOILERPLATE_TEXT_FIELD"] == "body"
    assert s["BOILERPLATE_EXECUTOR"] == "thread"
    assert s["BOILERPLATE_OVERVIEW_ACTION"] == "follow"


def test_addon_in_custom_settings():
    s = settings_of(custom_settings=ADDON)
    assert ours(s, "ITEM_PIPELINES") == {MainContentPipeline: 100}


@pytest.mark.parametrize(
    "listed",
    [
        "scrapy_boilerplate.MainContentPipeline",  # the short path from the README
        "scrapy_boilerplate.pipelines.MainContentPipeline",
        MainContentPipeline,
    ],
)
def test_a_component_the_user_lists_is_not_added_twice(listed):
    s = settings_of(
        {
            **ADDON,
            "ITEM_PIPELINES": {listed: 300},
            "SPIDER_MIDDLEWARES": {"scrapy_boilerplate.ItemResponseMiddleware": 5},
        }
    )
    assert ours(s, "ITEM_PIPELINES") == {MainContentPipeline: 300}
    assert ours(s, "SPIDER_MIDDLEWARES") == {
        ItemResponseMiddleware: 5,
        OverviewLinksOnlyMiddleware: 100,
        LinkRolesMiddleware: 110,
    }


def test_a_component_the_user_disables_stays_disabled():
    s = settings_of({**ADDON, "DOWNLOADER_MIDDLEWARES": {"scrapy_boilerplate.OverviewMiddleware": None}})
    assert OverviewMiddleware not in ordered(s, "DOWNLOADER_MIDDLEWARES")
    assert MainContentPipeline in ordered(s, "ITEM_PIPELINES")


def test_disabled_addon_changes_nothing():
    s = settings_of({**ADDON, "BOILERPLATE_ENABLED": False})
    for name in ("DOWNLOADER_MIDDLEWARES", "SPIDER_MIDDLEWARES", "ITEM_PIPELINES"):
        assert ours(s, name) == {}
    assert s.get("BOILERPLATE_TEXT_FIELD") is None


def test_components_listed_by_hand_work_without_the_addon():
    from scrapy.utils.misc import build_from_crawler

    crawler = get_crawler(Spider, {})
    crawler.spider = crawler._create_spider("s")
    pipeline = build_from_crawler(MainContentPipeline, crawler)
    assert (pipeline.outputs[0].setting, pipeline.outputs[0].field) == ("BOILERPLATE_TEXT_FIELD", "main_text")
    assert pipeline.extractions.executor == "inline" and pipeline.extractions.max_body_size == 8 * 1024 * 1024


def test_import_does_not_import_scrapy():
    code = (
        "import sys, scrapy_boilerplate as b; assert 'scrapy' not in sys.modules, 'scrapy imported'; "
        "b.extract('<p>x</p>'); assert 'scrapy' not in sys.modules; "
        "from scrapy_boilerplate import Addon, MainContentPipeline, OverviewMiddleware, "
        "OverviewLinksOnlyMiddleware, ItemResponseMiddleware; print(MainContentPipeline.__module__)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "scrapy_boilerplate.pipelines"


def test_lazy_names_are_the_classes_and_unknown_names_fail():
    assert scrapy_boilerplate.MainContentPipeline is MainContentPipeline
    assert scrapy_boilerplate.OverviewMiddleware is OverviewMiddleware
    assert load_object("scrapy_boilerplate.Addon") is scrapy_boilerplate.addon.Addon
    with pytest.raises(AttributeError):
        scrapy_boilerplate.NoSuchThing  # noqa: B018
    assert {"Addon", "MainContentPipeline", "extract"} <= set(scrapy_boilerplate.__all__)
