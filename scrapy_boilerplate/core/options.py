"""Options: every option of an extraction, declared once.

`Extractor` builds one from its keyword arguments and each `extract()` call's (`replace`);
the selection steps and the renderers read its typed fields. The Scrapy settings
(`settings.py`, `BoilerplateSettings.extractor_options`), the console script's options
(`cli.py`) and the `scrapy boilerplate` command's (`commands.py`) are made from `OPTIONS`,
so an option added here reaches all of them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypedDict, TypeGuard, get_args

#: How far the decoder leans to keeping blocks (scoring/decode.py FAVOR_SHIFT, its keys).
Favor = Literal["balanced", "precision", "recall"]
#: The values of `favor`, in the order the command lines list them.
FAVORS: tuple[Favor, ...] = get_args(Favor)


def is_favor(value: object) -> TypeGuard[Favor]:
    """Whether `value` is one of FAVORS (a command line's or a setting's str, narrowed)."""
    return value in FAVORS


def _option(default: Any, doc: str, *, flag: bool = True) -> Any:
    """A field of `Options`: its default and its one-line meaning (the command lines' help).
    `flag`: a yes/no option the command lines spell `--include-x`."""
    return field(default=default, metadata={"doc": doc, "flag": flag})


@dataclass(frozen=True)
class Options:
    """The options of an extraction (the `Extractor` arguments other than the model and stores)."""

    include_title: bool = _option(False, "put the headline first in the text, Markdown and HTML")
    include_captions: bool = _option(
        False, "keep figure captions (a code listing's or table's own caption is kept either way)"
    )
    include_comments: bool = _option(False, "keep comment sections")
    include_links: bool = _option(False, "keep links in the Markdown and HTML (absolute http(s) URLs only)")
    include_images: bool = _option(False, "keep the content's images in place in the Markdown and HTML")
    favor: Favor = _option("balanced", '"precision" keeps less, "recall" keeps more', flag=False)
    #: CSS selectors of where the content is and of what is never content (selection/site_rules.py).
    content_selector: str | None = _option(
        None, "where the content is (a CSS selector): the rest of the page is not content", flag=False
    )
    exclude_selectors: tuple[str, ...] | None = _option(None, "what is never content (a CSS selector)", flag=False)

    def __post_init__(self) -> None:
        if not is_favor(self.favor):
            raise ValueError(f"favor must be one of {sorted(FAVORS)}, not {self.favor!r}")
        if not isinstance(self.exclude_selectors, tuple | None):
            # A call's keyword arguments are not typed: a list, a set, one str.
            object.__setattr__(self, "exclude_selectors", selector_tuple(self.exclude_selectors))

    @classmethod
    def make(cls, options: Mapping[str, Any]) -> Options:
        """Options from keyword arguments; TypeError naming any unknown one."""
        unknown = set(options) - set(OPTIONS)
        if unknown:
            raise TypeError(f"unknown option(s): {', '.join(sorted(unknown))}")
        return cls(**options)

    def replace(self, options: Mapping[str, Any]) -> Options:
        """These options with `options` (keyword arguments of a call) instead; TypeError naming
        any unknown one. Without any, these options themselves."""
        if not options:
            return self
        unknown = set(options) - set(OPTIONS)
        if unknown:
            raise TypeError(f"unknown option(s): {', '.join(sorted(unknown))}")
        return dataclasses.replace(self, **options)


class OptionArgs(TypedDict, total=False):
    """The options as one call's keyword arguments (`Extractor.extract(html, **options)`): what
    a type checker checks a call's names and values against. The same names and types as
    `Options` (tests/unit/test_options.py checks it); `exclude_selectors` may be any iterable."""

    include_title: bool
    include_captions: bool
    include_comments: bool
    include_links: bool
    include_images: bool
    favor: Favor
    content_selector: str | None
    exclude_selectors: Iterable[str] | str | None


#: Every option's field, by name, in declaration order.
OPTIONS: dict[str, dataclasses.Field[Any]] = {item.name: item for item in dataclasses.fields(Options)}
#: The yes/no options (`--include-title` ...).
FLAGS = tuple(name for name, item in OPTIONS.items() if item.metadata["flag"])


def selector_tuple(selectors: Iterable[str] | str | None) -> tuple[str, ...] | None:
    """Exclude selectors as `Options` keeps them: a str is one selector, any other iterable
    several (make_rule checks each), None none."""
    if selectors is None:
        return None
    return (selectors,) if isinstance(selectors, str) else tuple(selectors)
