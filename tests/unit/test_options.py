"""Options (core/options.py): the extraction options, declared once; the settings, the console
script and the `scrapy boilerplate` command derive theirs from it."""

from __future__ import annotations

import dataclasses
import typing
from argparse import ArgumentParser

import pytest
from scrapy.settings import Settings

from scrapy_boilerplate import Extractor
from scrapy_boilerplate import settings as bp
from scrapy_boilerplate.cli import build_parser
from scrapy_boilerplate.commands import Command
from scrapy_boilerplate.core.options import FAVORS, FLAGS, OPTIONS, OptionArgs, Options, is_favor
from scrapy_boilerplate.core.scoring.decode import FAVOR_SHIFT

PAGE = "<html><body><article>" + "<p>A paragraph of the article, long enough to be content.</p>" * 8


def test_options_are_frozen_and_checked():
    options = Options()
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.favor = "recall"  # type: ignore[misc]
    with pytest.raises(ValueError, match="favor must be one of"):
        Options(favor="everything")
    with pytest.raises(TypeError, match="unknown option"):
        options.replace({"include_everything": True})
    assert options.replace({}) is options
    assert Options(exclude_selectors=["nav"]).exclude_selectors == ("nav",)  # type: ignore[arg-type]
    assert Options().replace({"exclude_selectors": ".ad"}).exclude_selectors == (".ad",)


def test_an_extractor_holds_one_options_and_a_call_replaces_some():
    extractor = Extractor(include_title=True, exclude_selectors=[".promo"])
    assert extractor.options == Options(include_title=True, exclude_selectors=(".promo",))
    with pytest.raises(TypeError, match="unknown option"):
        extractor.extract(PAGE, include_everything=True)
    with pytest.raises(ValueError, match="favor must be one of"):
        extractor.extract(PAGE, favor="everything")
    assert extractor.extract(PAGE, favor="recall").text


def test_the_settings_give_the_options_of_a_crawl_with_the_same_defaults():
    read = bp.read({})
    options = read.extractor_options()
    assert list(options) == [*bp.EXTRACTION_OPTIONS, "site_rules"]
    # Every option but the selectors of one call is a setting (site rules give those by site).
    assert set(OPTIONS) - set(bp.EXTRACTION_OPTIONS) == {"content_selector", "exclude_selectors"}
    defaults = Options()
    for name in bp.EXTRACTION_OPTIONS:
        assert options[name] == getattr(defaults, name), name
    Extractor(False, **options)  # the settings' options are Extractor's arguments


def test_the_console_script_has_every_option_and_passes_it_on():
    from scrapy_boilerplate.cli import _extractor

    argv = [
        "extract",
        "page.html",
        "--favor",
        "recall",
        "--content-selector",
        "main",
        "--exclude-selector",
        "nav",
        "--exclude-selector",
        ".ad",
        "--no-model",
        *("--" + name.replace("_", "-") for name in FLAGS),
    ]
    options = _extractor(build_parser().parse_args(argv)).options
    assert options == Options(
        **dict.fromkeys(FLAGS, True), favor="recall", content_selector="main", exclude_selectors=("nav", ".ad")
    )
    assert _extractor(build_parser().parse_args(["extract", "page.html", "--no-model"])).options == Options()


def test_the_scrapy_command_has_the_options_that_are_settings():
    parser, command = ArgumentParser(), Command()
    command.settings = Settings()
    command.add_options(parser)
    args = parser.parse_args(["--favor", "precision", "--include-comments"])
    for name in bp.EXTRACTION_OPTIONS:
        expected = {"favor": "precision", "include_comments": True}.get(name)
        assert getattr(args, name) == expected, name
    assert set(FAVORS) == {"precision", "balanced", "recall"}


def test_the_keyword_arguments_type_is_the_options():
    """OptionArgs (a call's keyword arguments, for type checkers) names every option with its
    type; Favor's choices are the decoder's."""
    hints = typing.get_type_hints(OptionArgs)
    assert list(hints) == list(OPTIONS)
    fields = typing.get_type_hints(Options)
    assert all(hints[name] == fields[name] for name in OPTIONS if name != "exclude_selectors")
    assert set(FAVORS) == set(FAVOR_SHIFT) and FAVORS[0] == Options().favor
    assert is_favor("recall") and not is_favor("everything") and not is_favor(None)
