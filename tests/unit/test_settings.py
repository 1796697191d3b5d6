"""Every BOILERPLATE_* setting is read and checked in scrapy_boilerplate/settings.py, the same
way for every component: a bad value stops the crawl with an error naming the setting and
what it allows."""

from __future__ import annotations

import ast
import json
import logging
import re
from pathlib import Path

import pytest
from scrapy import Spider
from scrapy.exceptions import NotConfigured
from scrapy.settings import Settings
from scrapy.utils.misc import build_from_crawler
from scrapy.utils.test import get_crawler

from scrapy_boilerplate import settings as bp
from scrapy_boilerplate.commands import extractor_from_settings
from scrapy_boilerplate.middlewares import ItemResponseMiddleware, OverviewLinksOnlyMiddleware, OverviewMiddleware
from scrapy_boilerplate.pipelines import MainContentPipeline

PACKAGE = Path(bp.__file__).resolve().parent
COMPONENTS = (OverviewMiddleware, OverviewLinksOnlyMiddleware, ItemResponseMiddleware, MainContentPipeline)


def make_crawler(**settings):
    crawler = get_crawler(Spider, settings)
    crawler.spider = crawler._create_spider("test")
    return crawler


def test_defaults_read_back_as_the_documented_defaults():
    read = bp.read({})
    assert read == bp.BoilerplateSettings()
    assert (read.text_field, read.executor, read.executor_timeout, read.max_body_size) == (
        "main_text",
        "inline",
        30.0,
        8 * 1024 * 1024,
    )
    assert read.overview_action == "follow" and read.overview_threshold == 1500
    assert read.extractor_options() == {
        "include_title": False,
        "include_captions": False,
        "include_comments": False,
        "include_links": False,
        "include_images": False,
        "favor": "balanced",
        "site_rules": None,
    }
    assert read.detector_options() == {"threshold": 1500, "model": None, "cutoff": None}
    assert 1 <= read.executor_workers <= bp.MAX_DEFAULT_WORKERS


def test_metadata_fields_are_opt_in_one_by_one_or_all_at_once():
    assert bp.read({}).outputs == {"text": "main_text"}
    assert bp.read({"BOILERPLATE_LANGUAGE_FIELD": "lang"}).outputs == {"text": "main_text", "language": "lang"}
    every = bp.read({"BOILERPLATE_METADATA_FIELDS": "true", "BOILERPLATE_AUTHORS_FIELD": "by"}).outputs
    assert every == {
        "text": "main_text",
        "authors": "by",
        "date_published": "date_published",
        "date_modified": "date_modified",
        "language": "language",
        "site_name": "site_name",
        "canonical_url": "canonical_url",
        "description": "description",
        "image": "image",
    }


def test_duplicate_of_field_needs_duplicates_on():
    with pytest.raises(bp.SettingError, match="BOILERPLATE_DUPLICATE_OF_FIELD"):
        bp.read({"BOILERPLATE_DUPLICATE_OF_FIELD": "first"})
    read = bp.read({"BOILERPLATE_DUPLICATES": "flag", "BOILERPLATE_DUPLICATE_OF_FIELD": "first"})
    assert read.outputs == {"text": "main_text", "duplicate_of": "first"}


def test_every_setting_has_a_field():
    """A new setting must be added to DEFAULTS and to BoilerplateSettings together."""
    fields = set(bp.BoilerplateSettings.__dataclass_fields__)
    assert {name.removeprefix(bp.PREFIX).lower() for name in bp.DEFAULTS} == fields


@pytest.mark.parametrize(
    "name, given, expected",
    [
        ("BOILERPLATE_ENABLED", "false", False),
        ("BOILERPLATE_INCLUDE_TITLE", "1", True),
        ("BOILERPLATE_INCLUDE_LINKS", "Yes", True),
        ("BOILERPLATE_HTML_FIELD_REMOVE", 1, True),
        ("BOILERPLATE_TEXT_FIELD", "", None),
        ("BOILERPLATE_TITLE_FIELD", " headline ", "headline"),
        ("BOILERPLATE_EXECUTOR", " Process ", "process"),
        ("BOILERPLATE_EXECUTOR_WORKERS", "3", 3),
        ("BOILERPLATE_EXECUTOR_TIMEOUT", "2.5", 2.5),
        ("BOILERPLATE_EXECUTOR_TIMEOUT", 0, None),
        ("BOILERPLATE_EXECUTOR_TIMEOUT", None, None),
        ("BOILERPLATE_FAVOR", "RECALL", "recall"),
        ("BOILERPLATE_MAX_BODY_SIZE", "0", 0),
        ("BOILERPLATE_OVERVIEW_ACTION", "", "off"),
        ("BOILERPLATE_OVERVIEW_ACTION", "Drop", "drop"),
        ("BOILERPLATE_OVERVIEW_THRESHOLD", "900", 900),
        ("BOILERPLATE_OVERVIEW_MODEL", "false", False),
        ("BOILERPLATE_OVERVIEW_MODEL", "rule", False),
        ("BOILERPLATE_OVERVIEW_CUTOFF", "0.7", 0.7),
        ("BOILERPLATE_OVERVIEW_CUTOFF", "", None),
        ("BOILERPLATE_OVERVIEW_FIELD", " overview ", "overview"),
        ("BOILERPLATE_OVERVIEW_FIELD", "", None),
        ("BOILERPLATE_TEMPLATE_STORE", "redis://localhost:6379/0", "redis://localhost:6379/0"),
        ("BOILERPLATE_DUPLICATES", " Drop ", "drop"),
        ("BOILERPLATE_DUPLICATES", None, "off"),
        ("BOILERPLATE_DUPLICATES_THRESHOLD", "0.7", 0.7),
        ("BOILERPLATE_DUPLICATES_STORE", None, "memory"),
        ("BOILERPLATE_DUPLICATES_STORE", "redis://h:1/2", "redis://h:1/2"),
    ],
)
def test_values_from_python_and_from_the_command_line(name, given, expected):
    value = getattr(bp.read({name: given}), name.removeprefix(bp.PREFIX).lower())
    assert value == expected and type(value) is type(expected)


# One bad value for every setting (ENABLED apart: a bad switch is tested below).
BAD = {
    "BOILERPLATE_TEXT_FIELD": 3,
    "BOILERPLATE_TITLE_FIELD": ["title"],
    "BOILERPLATE_MARKDOWN_FIELD": True,
    "BOILERPLATE_CLEAN_HTML_FIELD": 1.5,
    "BOILERPLATE_IMAGES_FIELD": {"a": 1},
    "BOILERPLATE_METADATA_FIELDS": "all",
    "BOILERPLATE_AUTHORS_FIELD": ["authors"],
    "BOILERPLATE_DATE_PUBLISHED_FIELD": 2024,
    "BOILERPLATE_DATE_MODIFIED_FIELD": True,
    "BOILERPLATE_LANGUAGE_FIELD": 1,
    "BOILERPLATE_SITE_NAME_FIELD": b"site",
    "BOILERPLATE_CANONICAL_URL_FIELD": {"url"},
    "BOILERPLATE_DESCRIPTION_FIELD": 0.5,
    "BOILERPLATE_IMAGE_FIELD": ("image",),
    "BOILERPLATE_HTML_FIELD": b"html",
    "BOILERPLATE_HTML_FIELD_REMOVE": "maybe",
    "BOILERPLATE_EXECUTOR": "threads",
    "BOILERPLATE_EXECUTOR_WORKERS": "two",
    "BOILERPLATE_EXECUTOR_TIMEOUT": "soon",
    "BOILERPLATE_INCLUDE_TITLE": "yes please",
    "BOILERPLATE_INCLUDE_CAPTIONS": 2,
    "BOILERPLATE_INCLUDE_COMMENTS": None,
    "BOILERPLATE_INCLUDE_LINKS": "",
    "BOILERPLATE_INCLUDE_IMAGES": [],
    "BOILERPLATE_FAVOR": "speed",
    "BOILERPLATE_MODEL": "/nonexistent/model.json",
    "BOILERPLATE_SITE_RULES": {"example.com": {"content": "div[["}},
    "BOILERPLATE_MAX_BODY_SIZE": -1,
    "BOILERPLATE_DETECT_CHARSET": "maybe",
    "BOILERPLATE_OVERVIEW_ACTION": "skip",
    "BOILERPLATE_OVERVIEW_THRESHOLD": 0,
    "BOILERPLATE_OVERVIEW_MODEL": "/nonexistent/overview.json",
    "BOILERPLATE_OVERVIEW_CUTOFF": "high",
    "BOILERPLATE_OVERVIEW_DROP_START": "sometimes",
    "BOILERPLATE_OVERVIEW_FIELD": 1,
    "BOILERPLATE_LINKS": "everything",
    "BOILERPLATE_FEED_MAX_ENTRIES": 0,
    "BOILERPLATE_ROBOTS_MAX_SITEMAPS": "fifty",
    "BOILERPLATE_SITEMAP_MAX_DEPTH": -1,
    "BOILERPLATE_SITEMAP_MAX_URLS": 2.5,
    "BOILERPLATE_TEMPLATE_STORE": "postgres://db",
    "BOILERPLATE_TEMPLATE_WARMUP": -1,
    "BOILERPLATE_TEMPLATE_MAX_FINGERPRINTS": 0,
    "BOILERPLATE_TEMPLATE_MAX_SITES": "many",
    "BOILERPLATE_TEMPLATE_PREFIX": 7,
    "BOILERPLATE_TEMPLATE_TTL": "a week",
    "BOILERPLATE_TEMPLATE_TIMEOUT": 0,
    "BOILERPLATE_TEMPLATE_RETRY_AFTER": -5,
    "BOILERPLATE_DUPLICATES": "merge",
    "BOILERPLATE_DUPLICATE_OF_FIELD": ["first"],
    "BOILERPLATE_DUPLICATES_THRESHOLD": 1.5,
    "BOILERPLATE_DUPLICATES_MIN_WORDS": -1,
    "BOILERPLATE_DUPLICATES_TITLE": "perhaps",
    "BOILERPLATE_DUPLICATES_STORE": "sqlite://x.db",
    "BOILERPLATE_DUPLICATES_MAX_ITEMS": 0,
    "BOILERPLATE_DUPLICATES_PREFIX": "",
    "BOILERPLATE_DUPLICATES_TTL": "forever",
}


def test_site_rules_as_a_dict_or_json_and_their_errors():
    rules = {"example.com": {"content": "article .body", "exclude": [".promo"]}}
    assert bp.read({"BOILERPLATE_SITE_RULES": rules}).site_rules == rules
    assert bp.read({"BOILERPLATE_SITE_RULES": json.dumps(rules)}).site_rules == rules
    assert bp.read({"BOILERPLATE_SITE_RULES": Settings({"X": rules})["X"]}).site_rules == rules
    assert bp.read({"BOILERPLATE_SITE_RULES": ""}).site_rules is None
    assert bp.read({"BOILERPLATE_SITE_RULES": {}}).site_rules is None
    for bad, words in [
        ('{"example.com": ', "it is not JSON"),
        (
            {"news.example.com": {"exclude": [".ok", "p::text"]}},
            "the site rule for 'news.example.com': invalid CSS selector 'p::text'",
        ),
        ({"example.com": ["main"]}, "the site rule for 'example.com' must be a dict"),
        ('["main"]', "site rules must be a dict of host -> rule"),
        ({"example.com:8080": {"content": "main"}}, "'example.com:8080' is not a host name"),
        ({"Example.com": {"content": "main"}, "example.com": {"content": "main"}}, "are the same host ('example.com')"),
        ({"example.com": {"content": "ns|p"}}, "invalid CSS selector 'ns|p'"),
    ]:
        with pytest.raises(bp.SettingError) as info:
            bp.read({"BOILERPLATE_SITE_RULES": bad})
        assert words in str(info.value) and repr(bad) in str(info.value)


def test_every_setting_has_a_bad_value_here():
    assert set(BAD) == set(bp.DEFAULTS) - {bp.ENABLED}


@pytest.mark.parametrize("name", sorted(BAD))
def test_a_bad_value_names_the_setting_and_what_it_allows(name):
    with pytest.raises(bp.SettingError) as info:
        bp.read({name: BAD[name]})
    message = str(info.value)
    assert message.startswith(f"{name} must be ") and repr(BAD[name]) in message
    assert info.value.setting == name


def test_the_overview_field_needs_an_action_that_judges_pages():
    with pytest.raises(bp.SettingError) as info:
        bp.read({"BOILERPLATE_OVERVIEW_FIELD": "overview", "BOILERPLATE_OVERVIEW_ACTION": "off"})
    assert str(info.value).startswith(
        'BOILERPLATE_OVERVIEW_FIELD must be None while BOILERPLATE_OVERVIEW_ACTION is "off"'
    )
    assert (
        bp.read({"BOILERPLATE_OVERVIEW_FIELD": "overview", "BOILERPLATE_OVERVIEW_ACTION": "flag"}).outputs["overview"]
        == "overview"
    )


@pytest.mark.parametrize(
    "value, allowed",
    [
        ("threads", "one of inline, thread, process"),
        ("INLINE ", None),
    ],
)
def test_every_component_checks_the_executor_the_same_way(value, allowed):
    """The executor was checked by the pipeline only and compared unchecked by the middleware."""
    for cls in COMPONENTS:
        crawler = make_crawler(BOILERPLATE_EXECUTOR=value)
        if allowed is None:
            build_from_crawler(cls, crawler)
            continue
        with pytest.raises(bp.SettingError, match=f"BOILERPLATE_EXECUTOR must be {allowed}"):
            build_from_crawler(cls, crawler)


def test_a_bad_switch_stops_every_component():
    for cls in COMPONENTS:
        with pytest.raises(bp.SettingError, match="BOILERPLATE_ENABLED must be True or False"):
            build_from_crawler(cls, make_crawler(BOILERPLATE_ENABLED="maybe"))


def test_disabled_components_do_not_check_the_other_settings():
    for cls in COMPONENTS:
        with pytest.raises(NotConfigured):
            build_from_crawler(cls, make_crawler(BOILERPLATE_ENABLED=False, BOILERPLATE_EXECUTOR="threads"))


def test_scrapy_command_reads_the_same_settings():
    extractor = extractor_from_settings(
        make_crawler(BOILERPLATE_FAVOR="precision", BOILERPLATE_INCLUDE_TITLE="true").settings
    )
    assert extractor.options.favor == "precision" and extractor.options.include_title is True
    with pytest.raises(bp.SettingError, match="BOILERPLATE_FAVOR"):
        extractor_from_settings(make_crawler(BOILERPLATE_FAVOR="fast").settings)


def test_a_misspelt_setting_is_named_with_the_closest_one(caplog):
    bp._warned_unknown.discard("BOILERPLATE_EXECUTER")
    with caplog.at_level(logging.WARNING, logger="scrapy_boilerplate.settings"):
        build_from_crawler(MainContentPipeline, make_crawler(BOILERPLATE_EXECUTER="thread"))
    assert (
        "BOILERPLATE_EXECUTER is not a scrapy_boilerplate setting (did you mean BOILERPLATE_EXECUTOR?); it is ignored"
    ) in caplog.text


def test_components_read_no_setting_themselves():
    """Every BOILERPLATE_* value goes through settings.read: no component calls
    settings.get/getbool/getint with one of our names."""
    direct = re.compile(r"\.get(?:bool|int|float|list|dict)?\(\s*bp\.(?!META_)[A-Z_]+")
    offenders = [
        f"{path.name}:{n}"
        for path in PACKAGE.glob("*.py")
        if path.name != "settings.py"
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if direct.search(line)
    ]
    assert offenders == []


def test_each_setting_is_named_by_a_module_constant():
    assert all(getattr(bp, name.removeprefix(bp.PREFIX)) == name for name in bp.SETTINGS)
    assert list(bp.DEFAULTS) == list(bp.SETTINGS)
    # Written out, one assignment each, in declaration order (what a type checker and grep see):
    # no module __getattr__ that would let a misspelt name through.
    tree = ast.parse(Path(bp.__file__).read_text(encoding="utf-8"))
    constants = [
        (node.targets[0].id, node.value.value)
        for node in tree.body
        if isinstance(node, ast.Assign)
        and isinstance(node.targets[0], ast.Name)
        and isinstance(node.value, ast.Constant)
        and str(node.value.value).startswith(bp.PREFIX)
        and node.value.value != bp.PREFIX
    ]
    assert constants == [(name.removeprefix(bp.PREFIX), name) for name in bp.SETTINGS]
    assert not hasattr(bp, "__getattr__")


def test_every_article_metadata_value_has_its_field_setting():
    assert set(bp.METADATA_SETTINGS.values()) <= set(bp.SETTINGS)
