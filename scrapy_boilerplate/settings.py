"""Every ``BOILERPLATE_*`` Scrapy setting and ``Request.meta`` key: names, defaults, reading, checks.

Each setting is declared once, as a field of :class:`BoilerplateSettings`:
``setting(name, default, parser, doc)`` gives its name, its default (as a project would
write it), the parser that reads and checks a value, and the one-line meaning shown in the
README's settings table (``tests/unit/test_settings_docs.py`` holds the two together). From these
declarations come :data:`SETTINGS` (name -> :class:`Setting`, in declaration order),
:data:`DEFAULTS` (name -> default), the module constants naming each setting
(``EXECUTOR == "BOILERPLATE_EXECUTOR"``, ...) and :func:`read`.

Components never read a ``BOILERPLATE_*`` setting themselves: they call
:func:`read` once (in ``from_crawler``) and use the typed, validated values of the
:class:`BoilerplateSettings` it returns. A wrong value stops the crawl before it
starts with a :class:`SettingError` naming the setting, the value and what is
allowed; it is never guessed at or compared unchecked later.

Values may come from a project's ``settings.py`` (Python values), a spider's
``custom_settings`` or the command line (``-s NAME=VALUE``, always a string): each
parser accepts both. The defaults are those of :data:`DEFAULTS`, so the components
work when listed by hand, without the add-on (which stores the same defaults at
"addon" priority, where a project's values win).

This module imports nothing from Scrapy: ``read`` takes any object with a
``get(name, default)`` method (Scrapy's ``Settings``, or a dict).
"""

from __future__ import annotations

import difflib
import functools
import json
import logging
import math
import os
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import Any, Literal, TypeVar, cast, get_args

from .core.duplicates.index import DEFAULT_MIN_WORDS, DEFAULT_THRESHOLD
from .core.duplicates.store import DEFAULT_MAX_ITEMS
from .core.extractor import Extractor
from .core.jsondata import JsonObject
from .core.metadata.article import METADATA_FIELDS as ARTICLE_METADATA_FIELDS
from .core.options import FAVORS, OPTIONS
from .core.overview.detector import DEFAULT_NET_TEXT_THRESHOLD, OverviewDetector
from .core.redis_link import DEFAULT_RETRY_AFTER, DEFAULT_TIMEOUT, DEFAULT_TTL, redacted
from .core.scoring.model import ModelError
from .core.selection.site_rules import SiteRules
from .core.site_memory.redis_store import DEFAULT_PREFIX
from .core.site_memory.templates import DEFAULT_MAX_FINGERPRINTS, DEFAULT_MAX_SITES, DEFAULT_WARMUP, TemplateStore

#: Reads one setting's value: (setting name, value as given) -> typed value, or SettingError.
Parser = Callable[[str, Any], Any]
#: Checks a value against the settings read before it: (name, value as given, typed value,
#: the typed values so far by attribute) -> None, or SettingError.
Check = Callable[[str, Any, Any, dict[str, Any]], None]

logger = logging.getLogger(__name__)

PREFIX = "BOILERPLATE_"

C = TypeVar("C", bound=str)  # one of a setting's choices

# The values of the settings that name a choice, as types (mypy checks a comparison with a typo).
Executor = Literal["inline", "thread", "process"]
OverviewAction = Literal["follow", "drop", "flag", "off"]
DuplicatesAction = Literal["off", "flag", "drop"]
LinksAction = Literal["off", "prioritize", "focus"]
EXECUTORS: tuple[Executor, ...] = get_args(Executor)
OVERVIEW_ACTIONS: tuple[OverviewAction, ...] = get_args(OverviewAction)
DUPLICATES_ACTIONS: tuple[DuplicatesAction, ...] = get_args(DuplicatesAction)
LINKS_ACTIONS: tuple[LinksAction, ...] = get_args(LinksAction)
# The default number of workers: the CPUs, at most this many.
MAX_DEFAULT_WORKERS = 4

# Request.meta keys (all values are plain booleans, so requests stay picklable).
# False: do not extract for items from this request's response.
META_EXTRACT = "boilerplate_extract"
# False: do not classify this response as overview/article. True: classify it even when
# it is not an HtmlResponse (any 2xx text response) and, with action "drop", drop it even
# when it is a start request.
META_OVERVIEW = "boilerplate_overview"
# Set by LinkRolesMiddleware (BOILERPLATE_LINKS): the role of the link a request was made from.
META_LINK_ROLE = "boilerplate_link_role"

# response.flags marker set by OverviewMiddleware.
OVERVIEW_FLAG = "overview"


class SettingError(ValueError):
    """A BOILERPLATE_* setting has a value its component cannot use.

    The message names the setting, the value given and the values allowed, and what is wrong with
    the value where the value alone does not say it (a file that cannot be written).
    """

    # Set once the crawl logged it (components that read the settings again re-raise it).
    _boilerplate_reported = False

    def __init__(self, name: str, value: Any, allowed: str, *, problem: str = ""):
        self.setting, self.value, self.allowed, self.problem = name, value, allowed, problem
        super().__init__(f"{name} must be {allowed}, not {value!r}" + (f" ({problem})" if problem else ""))


# --- parsers: one per kind of value; each accepts Python values and -s strings -------------

_TRUE = ("true", "1", "yes", "on")
_FALSE = ("false", "0", "no", "off")
_BOOL_ALLOWED = "True or False (from the command line: true/false, 1/0, yes/no, on/off)"


def _boolean(name: str, value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        text = value.strip().lower()
        if text in _TRUE:
            return True
        if text in _FALSE:
            return False
    raise SettingError(name, value, _BOOL_ALLOWED)


def _choice(name: str, value: Any, choices: tuple[C, ...]) -> C:
    """The one of `choices` that `value` names (case and spaces aside)."""
    text = value.strip().lower() if isinstance(value, str) else None
    for choice in choices:
        if choice == text:
            return choice
    raise SettingError(name, value, "one of " + ", ".join(choices))


def _field_name(name: str, value: Any) -> str | None:
    """An item field name, or None (also for "") for "do not write"."""
    if value is None:
        return None
    if isinstance(value, str):
        return value.strip() or None
    raise SettingError(name, value, 'an item field name (a string), or None for "not written"')


def _integer(name: str, value: Any, allowed: str, minimum: int) -> int:
    if isinstance(value, bool):
        raise SettingError(name, value, allowed)
    try:
        number = int(value.strip()) if isinstance(value, str) else value
    except ValueError:
        raise SettingError(name, value, allowed) from None
    if isinstance(number, float) and number.is_integer():
        number = int(number)
    if not isinstance(number, int) or number < minimum:
        raise SettingError(name, value, allowed)
    return number


def _number(name: str, value: Any, allowed: str, minimum: float = 0.0) -> float:
    if isinstance(value, bool):
        raise SettingError(name, value, allowed)
    try:
        number = float(value.strip()) if isinstance(value, str) else float(value)
    except (TypeError, ValueError):
        raise SettingError(name, value, allowed) from None
    if not math.isfinite(number) or number < minimum:
        raise SettingError(name, value, allowed)
    return number


def _positive(name: str, value: Any, allowed: str) -> float:
    number = _number(name, value, allowed)
    if number <= 0:
        raise SettingError(name, value, allowed)
    return number


def _is_blank(value: Any) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


def _model_path(name: str, value: Any, allowed: str) -> Any:
    """A model file path (checked to exist), or a loaded model object passed through."""
    if isinstance(value, (str, os.PathLike)):
        path = os.fspath(value).strip() if isinstance(value, str) else os.fspath(value)
        if not os.path.isfile(path):
            raise SettingError(name, value, f"{allowed}; there is no file {path!r}")
        return path
    if hasattr(value, "feature_names"):  # a loaded Model, as a Python setting
        return value
    raise SettingError(name, value, allowed)


def default_workers() -> int:
    """Workers when BOILERPLATE_EXECUTOR_WORKERS is None: the CPUs, at most 4."""
    return max(1, min(MAX_DEFAULT_WORKERS, os.cpu_count() or 1))


# The parsers of the settings that need more than one of the above.


def _workers(name: str, value: Any) -> int:
    if _is_blank(value) or value == 0:
        return default_workers()
    return _integer(name, value, "a number of workers (1 or more), or None for the CPUs, at most 4", 1)


def _timeout(name: str, value: Any) -> float | None:
    if _is_blank(value):
        return None
    return _number(name, value, "a number of seconds (0 or None: no bound)") or None


def _model(name: str, value: Any) -> Any:
    if _is_blank(value):
        return None
    return _model_path(
        name,
        value,
        "the path of a model JSON file (written by `scrapy-boilerplate train`), or None for the shipped model",
    )


def _max_body_size(name: str, value: Any) -> int:
    return 0 if value is None else _integer(name, value, "a number of bytes (0: no limit)", 0)


def _overview_action(name: str, value: Any) -> OverviewAction:
    return "off" if _is_blank(value) else _choice(name, value, OVERVIEW_ACTIONS)


def _overview_model(name: str, value: Any) -> Any:
    if _is_blank(value):
        return None
    if value is False or (isinstance(value, str) and value.strip().lower() in ("false", "0", "rule")):
        return False
    return _model_path(
        name,
        value,
        "the path of an overview model JSON file (written by "
        "`scrapy-boilerplate train --overview`), None for the shipped "
        "model, or False for the net-text rule alone",
    )


def _overview_cutoff(name: str, value: Any) -> float | None:
    if _is_blank(value):
        return None
    return _number(
        name, value, "a score from 0 to 1 (above 1: nothing is an overview), or None for the model's own cutoff"
    )


def _judged_pages(name: str, value: Any, field_name: str | None, earlier: dict[str, Any]) -> None:
    """BOILERPLATE_OVERVIEW_FIELD: the verdict comes from OverviewMiddleware, which "off" disables."""
    if field_name is not None and earlier["overview_action"] == "off":
        raise SettingError(
            name,
            value,
            f'None while {PREFIX}OVERVIEW_ACTION is "off" (no page '
            'is judged then): set the action to "flag", "follow" or "drop"',
        )


def _site_rules(name: str, value: Any) -> dict[str, JsonObject] | None:
    """Host -> {"content": CSS, "exclude": [CSS]}, as a dict or its JSON; every selector compiled."""
    if _is_blank(value) or value == {}:
        return None
    allowed = 'a dict (or its JSON) of host -> {"content": CSS selector, "exclude": [CSS selectors]}'
    rules = value
    if isinstance(value, str):
        try:
            rules = json.loads(value)
        except ValueError as exc:
            raise SettingError(name, value, f"{allowed}; it is not JSON ({exc})") from None
    try:
        # Scrapy's BaseSettings (a dict given in settings.py) has items() but is no Mapping.
        rules = dict(rules.items()) if hasattr(rules, "items") else rules
        SiteRules(rules)
    except ValueError as exc:
        raise SettingError(name, value, f"{allowed}; the {exc}") from None
    # Plain data: the rules go to worker processes with the extractor's options.
    return {host: dict(rule.items()) for host, rule in rules.items()}


def _judged_items(name: str, value: Any, field_name: str | None, earlier: dict[str, Any]) -> None:
    """BOILERPLATE_DUPLICATE_OF_FIELD: nothing is judged while BOILERPLATE_DUPLICATES is "off"."""
    if field_name is not None and earlier["duplicates"] == "off":
        raise SettingError(
            name, value, f'None while {PREFIX}DUPLICATES is "off" (no item is judged then): set it to "flag"'
        )


def _template_store(name: str, value: Any) -> str | None:
    if _is_blank(value):
        return None
    allowed = 'None, "memory", or a Redis URL (redis://, rediss:// or unix://)'
    if isinstance(value, str):
        text = value.strip()
        if text.lower() == "memory" or text.lower().startswith(("redis://", "rediss://", "unix://")):
            return text
        value = redacted(value)  # a mistyped URL may hold a password
    raise SettingError(name, value, allowed)


def _duplicates_action(name: str, value: Any) -> DuplicatesAction:
    return "off" if _is_blank(value) else _choice(name, value, DUPLICATES_ACTIONS)


def _links_action(name: str, value: Any) -> LinksAction:
    return "off" if _is_blank(value) else _choice(name, value, LINKS_ACTIONS)


def _duplicates_store(name: str, value: Any) -> str:
    return _template_store(name, value) or "memory"


def _similarity(name: str, value: Any) -> float:
    number = _number(name, value, "a similarity above 0 and at most 1")
    if not 0 < number <= 1:
        raise SettingError(name, value, "a similarity above 0 and at most 1")
    return number


def _template_prefix(name: str, value: Any) -> str:
    if isinstance(value, str):
        return value
    raise SettingError(name, value, "a string (the Redis key prefix)")


def _duplicates_prefix(name: str, value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, str) and value.strip():
        return value
    raise SettingError(
        name,
        value,
        "None (the project's own prefix, from BOT_NAME) or a string that is "
        "not empty (an empty prefix puts the keys at the top level of the database, and "
        "two projects sharing a prefix flag each other's items)",
    )


def duplicates_prefix(settings: BoilerplateSettings, bot_name: str | None) -> str:
    """BOILERPLATE_DUPLICATES_PREFIX, or the project's own: one per BOT_NAME, so that projects
    sharing a Redis never flag each other's items."""
    return settings.duplicates_prefix or f"{bot_name or 'scrapybot'}:boilerplate:duplicates:"


def _integer_of(allowed: str, minimum: int) -> Parser:
    """A parser of whole numbers from `minimum` on."""
    return functools.partial(_integer, allowed=allowed, minimum=minimum)


def _number_of(allowed: str) -> Parser:
    """A parser of finite numbers from 0 on."""
    return functools.partial(_number, allowed=allowed)


# --- the settings: one declaration each ----------------------------------------------------


@dataclass(frozen=True)
class Setting:
    """One BOILERPLATE_* setting, as declared in :class:`BoilerplateSettings`."""

    #: "BOILERPLATE_...", the field's name in upper case after the prefix.
    name: str
    #: As a project would write it: what DEFAULTS holds and the add-on stores.
    default: Any
    #: (name, value as given) -> the typed value; raises SettingError.
    parse: Parser
    #: The one-line meaning (the README's settings table shows the same text).
    doc: str
    #: A check against settings read before this one, if any.
    check: Check | None = None

    @property
    def attr(self) -> str:
        """Its attribute on BoilerplateSettings."""
        return self.name.removeprefix(PREFIX).lower()

    def parse_default(self) -> Any:
        return self.parse(self.name, self.default)


def setting(name: str, default: Any, parse: Parser, doc: str, *, check: Check | None = None) -> Any:
    """Declares a field of BoilerplateSettings: a setting, its typed default parsed from `default`."""
    spec = Setting(name, default, parse, doc, check)
    return field(default_factory=spec.parse_default, metadata={"setting": spec})


@dataclass(frozen=True)
class BoilerplateSettings:
    """The BOILERPLATE_* settings in force, typed and checked (see :func:`read`).

    Also the declaration of every setting, in the order they are read and checked.
    """

    enabled: bool = setting(
        "BOILERPLATE_ENABLED",
        True,
        _boolean,
        "master switch of every component (they raise `NotConfigured` when `False`; the add-on then adds nothing)",
    )
    # Item fields the pipeline writes. None (or "") means "do not write".
    text_field: str | None = setting(
        "BOILERPLATE_TEXT_FIELD",
        "main_text",
        _field_name,
        'item field for the main text (one block per line; `""` when nothing was found); `None`: not written',
    )
    title_field: str | None = setting(
        "BOILERPLATE_TITLE_FIELD", None, _field_name, "item field for the headline; `None`: not written"
    )
    markdown_field: str | None = setting(
        "BOILERPLATE_MARKDOWN_FIELD", None, _field_name, "item field for the content as Markdown"
    )
    clean_html_field: str | None = setting(
        "BOILERPLATE_CLEAN_HTML_FIELD", None, _field_name, "item field for the content as clean HTML"
    )
    images_field: str | None = setting(
        "BOILERPLATE_IMAGES_FIELD",
        None,
        _field_name,
        "item field for the absolute URLs of the content's images (a list)",
    )
    # Article metadata (core/metadata/article.py): one field setting per value, and a switch that
    # writes all of them under their own names unless named one by one.
    metadata_fields: bool = setting(
        "BOILERPLATE_METADATA_FIELDS",
        False,
        _boolean,
        "`True`: write the article metadata under its own names (`authors`, `date_published`, "
        "`date_modified`, `language`, `site_name`, `canonical_url`, `description`, `image`), "
        "except those named by the settings below",
    )
    authors_field: str | None = setting(
        "BOILERPLATE_AUTHORS_FIELD",
        None,
        _field_name,
        "item field for the authors (a list of names, a forum thread's starter on a thread; `[]` when unknown)",
    )
    date_published_field: str | None = setting(
        "BOILERPLATE_DATE_PUBLISHED_FIELD",
        None,
        _field_name,
        "item field for the publication date (ISO 8601; `None` when unknown)",
    )
    date_modified_field: str | None = setting(
        "BOILERPLATE_DATE_MODIFIED_FIELD", None, _field_name, "item field for the date of the last update (ISO 8601)"
    )
    language_field: str | None = setting(
        "BOILERPLATE_LANGUAGE_FIELD", None, _field_name, "item field for the language (ISO 639-1, lower case)"
    )
    site_name_field: str | None = setting(
        "BOILERPLATE_SITE_NAME_FIELD", None, _field_name, "item field for the site's name"
    )
    canonical_url_field: str | None = setting(
        "BOILERPLATE_CANONICAL_URL_FIELD", None, _field_name, "item field for the canonical URL (absolute http(s))"
    )
    description_field: str | None = setting(
        "BOILERPLATE_DESCRIPTION_FIELD",
        None,
        _field_name,
        "item field for the page's description (og:description, meta description)",
    )
    image_field: str | None = setting(
        "BOILERPLATE_IMAGE_FIELD", None, _field_name, "item field for the lead image (absolute http(s))"
    )
    html_field: str | None = setting(
        "BOILERPLATE_HTML_FIELD",
        None,
        _field_name,
        "item field holding page HTML (str or bytes) stored by the spider, used instead of the response when not empty",
    )
    html_field_remove: bool = setting(
        "BOILERPLATE_HTML_FIELD_REMOVE", False, _boolean, "remove that field from the item once used"
    )
    executor: Executor = setting(
        "BOILERPLATE_EXECUTOR",
        "inline",
        functools.partial(_choice, choices=EXECUTORS),
        'where the work runs: `"inline"`, `"thread"` or `"process"` (below)',
    )
    executor_workers: int = setting(
        "BOILERPLATE_EXECUTOR_WORKERS",
        None,
        _workers,
        "threads or worker processes; `None` or `0`: the number of CPUs, at most 4",
    )
    executor_timeout: float | None = setting(
        "BOILERPLATE_EXECUTOR_TIMEOUT",
        30,
        _timeout,
        "seconds a page may take in a worker before it is given up (its items go on with empty "
        "fields); `0` or `None`: no bound",
    )
    # Extraction options passed to Extractor().
    include_title: bool = setting(
        "BOILERPLATE_INCLUDE_TITLE", False, _boolean, "put the headline first in the text, Markdown and HTML"
    )
    include_captions: bool = setting(
        "BOILERPLATE_INCLUDE_CAPTIONS",
        False,
        _boolean,
        "keep figure captions (a code listing's or table's own caption is kept either way)",
    )
    include_comments: bool = setting("BOILERPLATE_INCLUDE_COMMENTS", False, _boolean, "keep comment sections")
    include_links: bool = setting(
        "BOILERPLATE_INCLUDE_LINKS",
        False,
        _boolean,
        "keep links in the Markdown and HTML fields (absolute http(s) URLs only)",
    )
    include_images: bool = setting(
        "BOILERPLATE_INCLUDE_IMAGES",
        False,
        _boolean,
        "keep the content's images in place in the Markdown and HTML fields",
    )
    favor: str = setting(
        "BOILERPLATE_FAVOR",
        "balanced",
        functools.partial(_choice, choices=FAVORS),
        '`"precision"` keeps less, `"recall"` keeps more',
    )
    model: Any = setting(
        "BOILERPLATE_MODEL",
        None,
        _model,
        "path to a block model JSON file (docs/training.md); `None`: the shipped model",
    )
    site_rules: dict[str, JsonObject] | None = setting(
        "BOILERPLATE_SITE_RULES",
        None,
        _site_rules,
        'per-site CSS selectors for the sites where the model is wrong: `{"example.com": {"content": '
        '"article .body", "exclude": [".promo"]}}` (a host serves its subdomains; the longest match '
        "wins; hosts lowercased, in IDNA, without ports or wildcards); checked at start-up "
        "(docs/extraction.md)",
    )
    max_body_size: int = setting(
        "BOILERPLATE_MAX_BODY_SIZE",
        8 * 1024 * 1024,
        _max_body_size,
        "larger bodies (and HTML fields) are neither judged nor extracted: WARNING with the URL, "
        "a stat, empty fields; `0`: no limit",
    )
    detect_charset: bool = setting(
        "BOILERPLATE_DETECT_CHARSET",
        False,
        _boolean,
        "`CharsetMiddleware` re-decodes an HTML response whose charset is declared nowhere (no "
        "BOM, none in `Content-Type` or `<meta>`) and whose bytes are not valid UTF-8 in the "
        "encoding its bytes tell (GB18030, Shift_JIS, windows-1251, UTF-8 with a stray byte...), as "
        "`extract(bytes)` does, so the "
        "spider reads it right too",
    )
    overview_action: OverviewAction = setting(
        "BOILERPLATE_OVERVIEW_ACTION",
        "follow",
        _overview_action,
        'overview pages: `"follow"` (drop their items, follow their links), `"drop"` (ignore '
        'them), `"flag"` (only flag them), `"off"`',
    )
    overview_threshold: int = setting(
        "BOILERPLATE_OVERVIEW_THRESHOLD",
        DEFAULT_NET_TEXT_THRESHOLD,
        _integer_of("a number of characters (1 or more)", 1),
        "TextSweeper's net-text threshold (characters)",
    )
    overview_model: Any = setting(
        "BOILERPLATE_OVERVIEW_MODEL",
        None,
        _overview_model,
        "overview model JSON file; `None`: the shipped one; `False`: the net-text rule alone",
    )
    overview_cutoff: float | None = setting(
        "BOILERPLATE_OVERVIEW_CUTOFF",
        None,
        _overview_cutoff,
        "score (0..1) from which a page is an overview; `None`: the model's own cutoff",
    )
    overview_drop_start: bool = setting(
        "BOILERPLATE_OVERVIEW_DROP_START", False, _boolean, 'with `"drop"`, drop start pages that are overviews too'
    )
    overview_field: str | None = setting(
        "BOILERPLATE_OVERVIEW_FIELD",
        None,
        _field_name,
        'item field for the overview verdict on the item\'s page: `{"is_overview", "score", '
        '"net_text_length", "threshold", "reason"}` (as `detect_overview(...).to_dict()`), `None` '
        'where the page was not judged; needs an action other than `"off"` (docs/overview.md)',
        check=_judged_pages,
    )
    # Link roles in a crawl (core/links/roles.py, link_roles.py; docs/links.md).
    links: LinksAction = setting(
        "BOILERPLATE_LINKS",
        "off",
        _links_action,
        'requests by the role of the link they were made from: `"prioritize"` (next and content '
        'first, boilerplate last: a priority offset), `"focus"` (also drop boilerplate and related '
        'links), `"off"` (docs/links.md)',
    )
    # What ArticleSpider reads of feeds, robots.txt and sitemaps (spiders.py, crawl/articles/;
    # docs/links.md): caps no real site meets, so a hostile one costs bounded work.
    feed_max_entries: int = setting(
        "BOILERPLATE_FEED_MAX_ENTRIES",
        50000,
        _integer_of("a number of entries (1 or more)", 1),
        "`ArticleSpider` and the page objects' `ArticleNavigation` of a feed: entries read of a feed "
        "(RSS items, Atom entries); the rest are left out, with a WARNING (and for `ArticleSpider` a stat)",
    )
    robots_max_sitemaps: int = setting(
        "BOILERPLATE_ROBOTS_MAX_SITEMAPS",
        50,
        _integer_of("a number of sitemaps (1 or more)", 1),
        "`ArticleSpider`: sitemaps fetched of robots.txt's `Sitemap:` lines; the rest are left out, "
        "with a stat and one WARNING",
    )
    sitemap_max_depth: int = setting(
        "BOILERPLATE_SITEMAP_MAX_DEPTH",
        10,
        _integer_of("a number of levels (0 or more)", 0),
        "`ArticleSpider`: how deep sitemap indexes are followed (robots.txt's sitemaps are at depth 0, "
        "the sitemaps an index lists one deeper); deeper ones are not fetched, with a stat and one WARNING",
    )
    sitemap_max_urls: int = setting(
        "BOILERPLATE_SITEMAP_MAX_URLS",
        50000,
        _integer_of("a number of URLs (1 or more)", 1),
        "`ArticleSpider`: entries read of a sitemap or sitemap index (the sitemap protocol's own limit); "
        "the rest are left out, with a stat and one WARNING",
    )
    # Site memory (core/site_memory/templates.py, core/site_memory/redis_store.py).
    template_store: str | None = setting(
        "BOILERPLATE_TEMPLATE_STORE",
        None,
        _template_store,
        'site memory: `"memory"` or `"redis://host:port/db"` learns each site\'s template during '
        "the crawl (blocks repeated across its pages lean to boilerplate); its settings, API, "
        "stats and measured effect: docs/site-memory.md",
    )
    template_warmup: int = setting(
        "BOILERPLATE_TEMPLATE_WARMUP",
        DEFAULT_WARMUP,
        _integer_of("a number of pages (0 or more)", 0),
        "site memory: pages of a site recorded before its evidence is used",
    )
    template_max_fingerprints: int = setting(
        "BOILERPLATE_TEMPLATE_MAX_FINGERPRINTS",
        DEFAULT_MAX_FINGERPRINTS,
        _integer_of("a number of fingerprints (1 or more)", 1),
        "site memory: block fingerprints kept per site",
    )
    template_max_sites: int = setting(
        "BOILERPLATE_TEMPLATE_MAX_SITES",
        DEFAULT_MAX_SITES,
        _integer_of("a number of sites (1 or more)", 1),
        '`"memory"` store: sites kept, least recently crawled forgotten first',
    )
    template_prefix: str = setting(
        "BOILERPLATE_TEMPLATE_PREFIX",
        DEFAULT_PREFIX,
        _template_prefix,
        "Redis store: key prefix of the per-site hashes",
    )
    template_ttl: int = setting(
        "BOILERPLATE_TEMPLATE_TTL",
        DEFAULT_TTL,
        _integer_of("a number of seconds (0: no expiry)", 0),
        "Redis store: seconds a site's hash lives after its last page; `0`: forever",
    )
    template_timeout: float = setting(
        "BOILERPLATE_TEMPLATE_TIMEOUT",
        DEFAULT_TIMEOUT,
        functools.partial(_positive, allowed="a number of seconds (more than 0)"),
        "Redis stores (site memory, duplicates): seconds to wait for it on a page (then the page "
        "goes on without evidence, the item without a verdict)",
    )
    template_retry_after: float = setting(
        "BOILERPLATE_TEMPLATE_RETRY_AFTER",
        DEFAULT_RETRY_AFTER,
        _number_of("a number of seconds (0 or more)"),
        "Redis stores (site memory, duplicates): seconds without it after a failure",
    )
    # Near-duplicate items (core/duplicates/, crawl/duplicates.py; docs/duplicates.md).
    duplicates: DuplicatesAction = setting(
        "BOILERPLATE_DUPLICATES",
        "off",
        _duplicates_action,
        "items whose main text repeats an earlier item's: `\"flag\"` (write the first item's URL in "
        '`BOILERPLATE_DUPLICATE_OF_FIELD`), `"drop"` (drop them, `DropItem` naming the first), '
        '`"off"` (docs/duplicates.md)',
    )
    duplicate_of_field: str | None = setting(
        "BOILERPLATE_DUPLICATE_OF_FIELD",
        None,
        _field_name,
        "item field for the URL of the first item whose text this one repeats (`None` for the "
        "first, or when not judged); `None`: not written",
        check=_judged_items,
    )
    duplicates_threshold: float = setting(
        "BOILERPLATE_DUPLICATES_THRESHOLD",
        DEFAULT_THRESHOLD,
        _similarity,
        "similarity (estimated Jaccard of 5-word shingles, 0..1) from which two texts are copies; "
        "`1.0`: exact copies only (the same words)",
    )
    duplicates_min_words: int = setting(
        "BOILERPLATE_DUPLICATES_MIN_WORDS",
        DEFAULT_MIN_WORDS,
        _integer_of("a number of words (0 or more)", 0),
        "texts with fewer words are not judged",
    )
    duplicates_title: bool = setting(
        "BOILERPLATE_DUPLICATES_TITLE",
        False,
        _boolean,
        "judge the headline with the text (two posts of one text under two headlines are no "
        "copies); an empty text is not judged then",
    )
    duplicates_store: str = setting(
        "BOILERPLATE_DUPLICATES_STORE",
        "memory",
        _duplicates_store,
        'where the texts seen are remembered: `"memory"` (this process) or `"redis://host:port/db"` '
        "(shared by every process of a distributed crawl)",
    )
    duplicates_max_items: int = setting(
        "BOILERPLATE_DUPLICATES_MAX_ITEMS",
        DEFAULT_MAX_ITEMS,
        _integer_of("a number of items (1 or more)", 1),
        '`"memory"` store: items remembered, the oldest forgotten first (about 4.5 KB each)',
    )
    duplicates_prefix: str | None = setting(
        "BOILERPLATE_DUPLICATES_PREFIX",
        None,
        _duplicates_prefix,
        "Redis store: key prefix of the duplicates keys (not empty); `None`: "
        '`"<BOT_NAME>:boilerplate:duplicates:"`, one per project',
    )
    duplicates_ttl: int = setting(
        "BOILERPLATE_DUPLICATES_TTL",
        DEFAULT_TTL,
        _integer_of("a number of seconds (0: no expiry)", 0),
        "Redis store: seconds a remembered text lives; `0`: forever",
    )

    @property
    def outputs(self) -> dict[str, str]:
        """Extraction attribute -> item field, for the fields to write."""
        named = {
            "text": self.text_field,
            "title": self.title_field,
            "markdown": self.markdown_field,
            "html": self.clean_html_field,
            "images": self.images_field,
            "overview": self.overview_field,
            "duplicate_of": self.duplicate_of_field,
        }
        for attr in METADATA_SETTINGS:
            # BOILERPLATE_METADATA_FIELDS: the metadata not named one by one, under its own name.
            named[attr] = getattr(self, f"{attr}_field") or (attr if self.metadata_fields else None)
        return {attr: name for attr, name in named.items() if name}

    def extractor_options(self) -> dict[str, Any]:
        """Extractor keyword arguments (the model apart: ``Extractor(settings.model, **these)``):
        the extraction options that are settings (core/options.py OPTIONS, in its order; the
        selectors of one call are not), and the site rules."""
        options = {name: getattr(self, name) for name in EXTRACTION_OPTIONS}
        return {**options, "site_rules": self.site_rules}

    def detector_options(self) -> dict[str, Any]:
        """OverviewDetector keyword arguments."""
        return {"threshold": self.overview_threshold, "model": self.overview_model, "cutoff": self.overview_cutoff}

    def extractor(self, templates: TemplateStore | None = None) -> Extractor:
        """The crawl's Extractor (ModelError naming BOILERPLATE_MODEL for a model file it cannot
        load); `templates`: the crawl's template store (site memory)."""
        try:
            return Extractor(self.model, templates=templates, **self.extractor_options())
        except ModelError as exc:
            raise ModelError(f"{MODEL} = {self.model!r}: {exc}") from None

    def detector(self) -> OverviewDetector:
        """The crawl's OverviewDetector (ModelError naming BOILERPLATE_OVERVIEW_MODEL for a model
        file it cannot load)."""
        try:
            return OverviewDetector(**self.detector_options())
        except ModelError as exc:
            raise ModelError(f"{OVERVIEW_MODEL} = {self.overview_model!r}: {exc}") from None


def _declared() -> dict[str, Setting]:
    """Name -> Setting, in declaration order; checks each name matches its field."""
    declared: dict[str, Setting] = {}
    for item in fields(BoilerplateSettings):
        spec = item.metadata["setting"]
        if spec.attr != item.name:
            raise TypeError(f"{spec.name} is declared as BoilerplateSettings.{item.name}")
        declared[spec.name] = spec
    return declared


#: Every setting: name -> Setting, in the order they are read and checked.
SETTINGS = _declared()
#: Name -> default, as a project would write it (the add-on stores these).
DEFAULTS: dict[str, Any] = {name: spec.default for name, spec in SETTINGS.items()}
# The setting names as module constants, in declaration order (tests/unit/test_settings.py
# checks there is one for each setting, and nothing else).
ENABLED = "BOILERPLATE_ENABLED"
TEXT_FIELD = "BOILERPLATE_TEXT_FIELD"
TITLE_FIELD = "BOILERPLATE_TITLE_FIELD"
MARKDOWN_FIELD = "BOILERPLATE_MARKDOWN_FIELD"
CLEAN_HTML_FIELD = "BOILERPLATE_CLEAN_HTML_FIELD"
IMAGES_FIELD = "BOILERPLATE_IMAGES_FIELD"
METADATA_FIELDS = "BOILERPLATE_METADATA_FIELDS"
AUTHORS_FIELD = "BOILERPLATE_AUTHORS_FIELD"
DATE_PUBLISHED_FIELD = "BOILERPLATE_DATE_PUBLISHED_FIELD"
DATE_MODIFIED_FIELD = "BOILERPLATE_DATE_MODIFIED_FIELD"
LANGUAGE_FIELD = "BOILERPLATE_LANGUAGE_FIELD"
SITE_NAME_FIELD = "BOILERPLATE_SITE_NAME_FIELD"
CANONICAL_URL_FIELD = "BOILERPLATE_CANONICAL_URL_FIELD"
DESCRIPTION_FIELD = "BOILERPLATE_DESCRIPTION_FIELD"
IMAGE_FIELD = "BOILERPLATE_IMAGE_FIELD"
HTML_FIELD = "BOILERPLATE_HTML_FIELD"
HTML_FIELD_REMOVE = "BOILERPLATE_HTML_FIELD_REMOVE"
EXECUTOR = "BOILERPLATE_EXECUTOR"
EXECUTOR_WORKERS = "BOILERPLATE_EXECUTOR_WORKERS"
EXECUTOR_TIMEOUT = "BOILERPLATE_EXECUTOR_TIMEOUT"
INCLUDE_TITLE = "BOILERPLATE_INCLUDE_TITLE"
INCLUDE_CAPTIONS = "BOILERPLATE_INCLUDE_CAPTIONS"
INCLUDE_COMMENTS = "BOILERPLATE_INCLUDE_COMMENTS"
INCLUDE_LINKS = "BOILERPLATE_INCLUDE_LINKS"
INCLUDE_IMAGES = "BOILERPLATE_INCLUDE_IMAGES"
FAVOR = "BOILERPLATE_FAVOR"
MODEL = "BOILERPLATE_MODEL"
SITE_RULES = "BOILERPLATE_SITE_RULES"
MAX_BODY_SIZE = "BOILERPLATE_MAX_BODY_SIZE"
DETECT_CHARSET = "BOILERPLATE_DETECT_CHARSET"
OVERVIEW_ACTION = "BOILERPLATE_OVERVIEW_ACTION"
OVERVIEW_THRESHOLD = "BOILERPLATE_OVERVIEW_THRESHOLD"
OVERVIEW_MODEL = "BOILERPLATE_OVERVIEW_MODEL"
OVERVIEW_CUTOFF = "BOILERPLATE_OVERVIEW_CUTOFF"
OVERVIEW_DROP_START = "BOILERPLATE_OVERVIEW_DROP_START"
OVERVIEW_FIELD = "BOILERPLATE_OVERVIEW_FIELD"
LINKS = "BOILERPLATE_LINKS"
FEED_MAX_ENTRIES = "BOILERPLATE_FEED_MAX_ENTRIES"
ROBOTS_MAX_SITEMAPS = "BOILERPLATE_ROBOTS_MAX_SITEMAPS"
SITEMAP_MAX_DEPTH = "BOILERPLATE_SITEMAP_MAX_DEPTH"
SITEMAP_MAX_URLS = "BOILERPLATE_SITEMAP_MAX_URLS"
TEMPLATE_STORE = "BOILERPLATE_TEMPLATE_STORE"
TEMPLATE_WARMUP = "BOILERPLATE_TEMPLATE_WARMUP"
TEMPLATE_MAX_FINGERPRINTS = "BOILERPLATE_TEMPLATE_MAX_FINGERPRINTS"
TEMPLATE_MAX_SITES = "BOILERPLATE_TEMPLATE_MAX_SITES"
TEMPLATE_PREFIX = "BOILERPLATE_TEMPLATE_PREFIX"
TEMPLATE_TTL = "BOILERPLATE_TEMPLATE_TTL"
TEMPLATE_TIMEOUT = "BOILERPLATE_TEMPLATE_TIMEOUT"
TEMPLATE_RETRY_AFTER = "BOILERPLATE_TEMPLATE_RETRY_AFTER"
DUPLICATES = "BOILERPLATE_DUPLICATES"
DUPLICATE_OF_FIELD = "BOILERPLATE_DUPLICATE_OF_FIELD"
DUPLICATES_THRESHOLD = "BOILERPLATE_DUPLICATES_THRESHOLD"
DUPLICATES_MIN_WORDS = "BOILERPLATE_DUPLICATES_MIN_WORDS"
DUPLICATES_TITLE = "BOILERPLATE_DUPLICATES_TITLE"
DUPLICATES_STORE = "BOILERPLATE_DUPLICATES_STORE"
DUPLICATES_MAX_ITEMS = "BOILERPLATE_DUPLICATES_MAX_ITEMS"
DUPLICATES_PREFIX = "BOILERPLATE_DUPLICATES_PREFIX"
DUPLICATES_TTL = "BOILERPLATE_DUPLICATES_TTL"
#: The extraction options (core/options.py) that are settings too, in their order: the ones of
#: the whole crawl (a call's selectors are not; BOILERPLATE_SITE_RULES gives them by site).
EXTRACTION_OPTIONS = tuple(name for name in OPTIONS if name in {spec.attr for spec in SETTINGS.values()})
#: Extraction attribute -> its field setting (one per article metadata value).
METADATA_SETTINGS = {name: f"{PREFIX}{name.upper()}_FIELD" for name in ARTICLE_METADATA_FIELDS}


# --- reading --------------------------------------------------------------------------------


class _ReportedMisconfiguration(logging.Filter):
    """Drops asyncio's "Task exception was never retrieved" record of a misconfiguration that
    stops_crawl() has already logged as one line (Scrapy re-raises a failed start so that asyncio
    logs it with the whole traceback)."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        return not getattr(exc, "_boilerplate_reported", False)


_REPORTED_FILTER = _ReportedMisconfiguration()


_Init = TypeVar("_Init", bound=Callable[..., None])


def stops_crawl(init: _Init) -> _Init:
    """Decorates a component's __init__: a bad setting value or model file (SettingError,
    ModelError, both ValueErrors) is logged as one ERROR line, the message alone, and still raised,
    so the crawl stops before it starts (exit status 1), without a traceback on the console."""

    @functools.wraps(init)
    def wrapper(self: Any, *args: Any, **kwargs: Any) -> None:
        try:
            return init(self, *args, **kwargs)
        except ValueError as exc:
            from .core.scoring.model import ModelError

            if not isinstance(exc, SettingError | ModelError):
                raise
            if not getattr(exc, "_boilerplate_reported", False):
                logger.error("%s: the crawl stops", exc)
                exc._boilerplate_reported = True
                asyncio_logger = logging.getLogger("asyncio")
                if _REPORTED_FILTER not in asyncio_logger.filters:
                    asyncio_logger.addFilter(_REPORTED_FILTER)
            raise

    return cast("_Init", wrapper)


def read_enabled(settings: Any) -> bool:
    """BOILERPLATE_ENABLED alone (the add-on reads it before the other settings are final)."""
    spec = SETTINGS[f"{PREFIX}ENABLED"]
    enabled: bool = spec.parse(spec.name, settings.get(spec.name, spec.default))
    return enabled


def read(settings: Any) -> BoilerplateSettings:
    """Read and check every BOILERPLATE_* setting; raise SettingError on the first bad one.

    With BOILERPLATE_ENABLED False the other settings are not checked (nothing uses them).
    """
    if not read_enabled(settings):
        return BoilerplateSettings(enabled=False)
    warn_unknown(settings)
    values: dict[str, Any] = {}
    for spec in SETTINGS.values():
        given = settings.get(spec.name, spec.default)
        value = spec.parse(spec.name, given)
        if spec.check is not None:
            spec.check(spec.name, given, value, values)
        values[spec.attr] = value
    return BoilerplateSettings(**values)


_warned_unknown: set[str] = set()


def warn_unknown(settings: Any) -> list[str]:
    """Log one WARNING per BOILERPLATE_* name that is no setting (a typo would otherwise
    be ignored silently), with the closest known name; returns the unknown names."""
    try:
        names = [name for name in settings if isinstance(name, str) and name.startswith(PREFIX)]
    except TypeError:  # an object that cannot list its names
        return []
    unknown = [name for name in names if name not in SETTINGS]
    for name in unknown:
        if name in _warned_unknown:
            continue
        _warned_unknown.add(name)
        close = difflib.get_close_matches(name, SETTINGS, n=1)
        logger.warning(
            "%s is not a scrapy_boilerplate setting%s; it is ignored",
            name,
            f" (did you mean {close[0]}?)" if close else "",
        )
    return unknown
