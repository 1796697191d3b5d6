"""Every ``BOILERPLATE_*`` Scrapy setting and ``Request.meta`` key: names, defaults, reading, checks.

Components never read a ``BOILERPLATE_*`` setting themselves: they call
:func:`read` once (in ``from_crawler``) and use the typed, validated values of the
:class:`BoilerplateSettings` it returns. A wrong value stops the crawl before it
starts with a :class:`SettingError` naming the setting, the value and what is
allowed; it is never guessed at or compared unchecked later.

Values may come from a project's ``settings.py`` (Python values), a spider's
``custom_settings`` or the command line (``-s NAME=VALUE``, always a string): each
reader accepts both. The defaults are those of :data:`DEFAULTS`, so the components
work when listed by hand, without the add-on (which stores the same defaults at
"addon" priority, where a project's values win).

This module imports nothing from Scrapy: ``read`` takes any object with a
``get(name, default)`` method (Scrapy's ``Settings``, or a dict).
"""

from __future__ import annotations

import difflib
import logging
import math
import os
from dataclasses import dataclass, field
from typing import Any

logger = logging.getLogger(__name__)

# Master switch for every scrapy_boilerplate component.
ENABLED = "BOILERPLATE_ENABLED"

# Item fields the pipeline writes. ``None`` (or "") means "do not write".
TEXT_FIELD = "BOILERPLATE_TEXT_FIELD"
TITLE_FIELD = "BOILERPLATE_TITLE_FIELD"
MARKDOWN_FIELD = "BOILERPLATE_MARKDOWN_FIELD"
CLEAN_HTML_FIELD = "BOILERPLATE_CLEAN_HTML_FIELD"
IMAGES_FIELD = "BOILERPLATE_IMAGES_FIELD"
# Article metadata (core/metadata/article.py): one field setting per value, and a switch that
# writes all of them under their own names (authors, date_published, ...) unless named here.
METADATA_FIELDS = "BOILERPLATE_METADATA_FIELDS"
AUTHORS_FIELD = "BOILERPLATE_AUTHORS_FIELD"
DATE_PUBLISHED_FIELD = "BOILERPLATE_DATE_PUBLISHED_FIELD"
DATE_MODIFIED_FIELD = "BOILERPLATE_DATE_MODIFIED_FIELD"
LANGUAGE_FIELD = "BOILERPLATE_LANGUAGE_FIELD"
SITE_NAME_FIELD = "BOILERPLATE_SITE_NAME_FIELD"
CANONICAL_URL_FIELD = "BOILERPLATE_CANONICAL_URL_FIELD"
DESCRIPTION_FIELD = "BOILERPLATE_DESCRIPTION_FIELD"
IMAGE_FIELD = "BOILERPLATE_IMAGE_FIELD"
#: Extraction attribute -> its field setting.
METADATA_SETTINGS = {"authors": AUTHORS_FIELD, "date_published": DATE_PUBLISHED_FIELD,
                     "date_modified": DATE_MODIFIED_FIELD, "language": LANGUAGE_FIELD,
                     "site_name": SITE_NAME_FIELD, "canonical_url": CANONICAL_URL_FIELD,
                     "description": DESCRIPTION_FIELD, "image": IMAGE_FIELD}

# An item field holding page HTML the spider stored itself; used instead of the response.
HTML_FIELD = "BOILERPLATE_HTML_FIELD"
# Remove that field from the item once it has been used (keeps feeds small).
HTML_FIELD_REMOVE = "BOILERPLATE_HTML_FIELD_REMOVE"

# Where extraction runs: "inline" (in the reactor thread), "thread" or "process".
EXECUTOR = "BOILERPLATE_EXECUTOR"
# Workers for the "thread" and "process" executors (None: a size from the CPU count).
EXECUTOR_WORKERS = "BOILERPLATE_EXECUTOR_WORKERS"
# Seconds a page may take in a worker ("thread", "process") before it is given up; 0/None: no bound.
EXECUTOR_TIMEOUT = "BOILERPLATE_EXECUTOR_TIMEOUT"

# Extraction options passed to Extractor().
INCLUDE_TITLE = "BOILERPLATE_INCLUDE_TITLE"
INCLUDE_CAPTIONS = "BOILERPLATE_INCLUDE_CAPTIONS"
INCLUDE_COMMENTS = "BOILERPLATE_INCLUDE_COMMENTS"
INCLUDE_LINKS = "BOILERPLATE_INCLUDE_LINKS"
INCLUDE_IMAGES = "BOILERPLATE_INCLUDE_IMAGES"
FAVOR = "BOILERPLATE_FAVOR"

# Path to a model JSON file; None uses the shipped model.
MODEL = "BOILERPLATE_MODEL"

# Bodies larger than this (bytes) are not extracted/classified (logged, counted). 0: no limit.
MAX_BODY_SIZE = "BOILERPLATE_MAX_BODY_SIZE"

# Overview pages (home, section, listing): "follow" | "drop" | "flag" | "off".
OVERVIEW_ACTION = "BOILERPLATE_OVERVIEW_ACTION"
# Net text length (characters) at or above which a page counts as an article.
OVERVIEW_THRESHOLD = "BOILERPLATE_OVERVIEW_THRESHOLD"
# Overview model: None = the shipped one, a path to a model JSON file, False = the net-text rule alone.
OVERVIEW_MODEL = "BOILERPLATE_OVERVIEW_MODEL"
# Score (0..1) at or above which a page is an overview; None: the model's own cutoff (0.5 for the rule).
OVERVIEW_CUTOFF = "BOILERPLATE_OVERVIEW_CUTOFF"
# With action "drop", also drop start requests (meta "is_start_request") found to be overviews.
OVERVIEW_DROP_START = "BOILERPLATE_OVERVIEW_DROP_START"
# Item field for OverviewMiddleware's verdict on the item's page (OverviewVerdict.to_dict()); None: not written.
OVERVIEW_FIELD = "BOILERPLATE_OVERVIEW_FIELD"

# Per-site template block store (site memory, core/site_memory/templates.py): None (off), "memory" or a redis:// URL.
TEMPLATE_STORE = "BOILERPLATE_TEMPLATE_STORE"
# Pages of a site recorded before its evidence is used.
TEMPLATE_WARMUP = "BOILERPLATE_TEMPLATE_WARMUP"
# Block fingerprints kept per site (the least repeated are forgotten beyond it).
TEMPLATE_MAX_FINGERPRINTS = "BOILERPLATE_TEMPLATE_MAX_FINGERPRINTS"
# "memory": sites kept (least recently crawled forgotten first).
TEMPLATE_MAX_SITES = "BOILERPLATE_TEMPLATE_MAX_SITES"
# Redis: key prefix of the per-site hashes, their TTL in seconds (0: none), the seconds to wait
# for Redis on a page, and the seconds without Redis after a failure.
TEMPLATE_PREFIX = "BOILERPLATE_TEMPLATE_PREFIX"
TEMPLATE_TTL = "BOILERPLATE_TEMPLATE_TTL"
TEMPLATE_TIMEOUT = "BOILERPLATE_TEMPLATE_TIMEOUT"
TEMPLATE_RETRY_AFTER = "BOILERPLATE_TEMPLATE_RETRY_AFTER"

DEFAULTS = {
    ENABLED: True,
    TEXT_FIELD: "main_text",
    TITLE_FIELD: None,
    MARKDOWN_FIELD: None,
    CLEAN_HTML_FIELD: None,
    IMAGES_FIELD: None,
    METADATA_FIELDS: False,
    **{name: None for name in METADATA_SETTINGS.values()},
    HTML_FIELD: None,
    HTML_FIELD_REMOVE: False,
    EXECUTOR: "inline",
    EXECUTOR_WORKERS: None,
    EXECUTOR_TIMEOUT: 30,
    INCLUDE_TITLE: False,
    INCLUDE_CAPTIONS: False,
    INCLUDE_COMMENTS: False,
    INCLUDE_LINKS: False,
    INCLUDE_IMAGES: False,
    FAVOR: "balanced",
    MODEL: None,
    MAX_BODY_SIZE: 8 * 1024 * 1024,
    OVERVIEW_ACTION: "follow",
    OVERVIEW_THRESHOLD: 1500,
    OVERVIEW_MODEL: None,
    OVERVIEW_CUTOFF: None,
    OVERVIEW_DROP_START: False,
    OVERVIEW_FIELD: None,
    TEMPLATE_STORE: None,
    TEMPLATE_WARMUP: 3,
    TEMPLATE_MAX_FINGERPRINTS: 2000,
    TEMPLATE_MAX_SITES: 500,
    TEMPLATE_PREFIX: "boilerplate:templates:",
    TEMPLATE_TTL: 7 * 24 * 3600,
    TEMPLATE_TIMEOUT: 0.25,
    TEMPLATE_RETRY_AFTER: 30.0,
}

EXECUTORS = ("inline", "thread", "process")
OVERVIEW_ACTIONS = ("follow", "drop", "flag", "off")
FAVORS = ("balanced", "precision", "recall")
# The default number of workers: the CPUs, at most this many.
MAX_DEFAULT_WORKERS = 4

# Request.meta keys (all values are plain booleans, so requests stay picklable).
# False: do not extract for items from this request's response.
META_EXTRACT = "boilerplate_extract"
# False: do not classify this response as overview/article. True: classify it even when
# it is not an HtmlResponse (any 2xx text response) and, with action "drop", drop it even
# when it is a start request.
META_OVERVIEW = "boilerplate_overview"

# response.flags marker set by OverviewMiddleware.
OVERVIEW_FLAG = "overview"

PREFIX = "BOILERPLATE_"


class SettingError(ValueError):
    """A BOILERPLATE_* setting has a value its component cannot use.

    The message names the setting, the value given and the values allowed.
    """

    def __init__(self, name: str, value: Any, allowed: str):
        self.setting, self.value, self.allowed = name, value, allowed
        super().__init__(f"{name} must be {allowed}, not {value!r}")


# --- readers: one per kind of value; each accepts Python values and -s strings ------------

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


def _choice(name: str, value: Any, choices: tuple[str, ...]) -> str:
    text = value.strip().lower() if isinstance(value, str) else None
    if text not in choices:
        raise SettingError(name, value, "one of " + ", ".join(choices))
    return text


def _field_name(name: str, value: Any) -> str | None:
    """An item field name, or None (also for "") for "do not write"."""
    if value is None:
        return None
    if isinstance(value, str):
        return value.strip() or None
    raise SettingError(name, value, 'an item field name (a string), or None for "not written"')


def _overview_field(value: Any, action: str) -> str | None:
    """BOILERPLATE_OVERVIEW_FIELD: the verdict comes from OverviewMiddleware, which "off" disables."""
    name = _field_name(OVERVIEW_FIELD, value)
    if name is not None and action == "off":
        raise SettingError(OVERVIEW_FIELD, value, f'None while {OVERVIEW_ACTION} is "off" (no page '
                           "is judged then): set the action to \"flag\", \"follow\" or \"drop\"")
    return name


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


def _is_blank(value: Any) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


def _model_path(name: str, value: Any, allowed: str) -> Any:
    """A model file path (checked to exist), or a loaded model object passed through."""
    if isinstance(value, (str, os.PathLike)):
        path = os.fspath(value).strip() if isinstance(value, str) else os.fspath(value)
        if not os.path.isfile(path):
            raise SettingError(name, value, f"{allowed}; there is no file {path!r}")
        return path
    if hasattr(value, "feature_names"):   # a loaded Model, as a Python setting
        return value
    raise SettingError(name, value, allowed)


_MODEL_ALLOWED = ("the path of a model JSON file (written by `scrapy-boilerplate train`), "
                  "or None for the shipped model")
_OVERVIEW_MODEL_ALLOWED = ("the path of an overview model JSON file (written by "
                           "`scrapy-boilerplate train --overview`), None for the shipped model, "
                           "or False for the net-text rule alone")


def _overview_model(value: Any) -> Any:
    if _is_blank(value):
        return None
    if value is False or (isinstance(value, str) and value.strip().lower() in ("false", "0", "rule")):
        return False
    return _model_path(OVERVIEW_MODEL, value, _OVERVIEW_MODEL_ALLOWED)


def _template_store(value: Any) -> str | None:
    if _is_blank(value):
        return None
    allowed = 'None, "memory", or a Redis URL (redis://, rediss:// or unix://)'
    if isinstance(value, str):
        text = value.strip()
        if text.lower() == "memory" or text.lower().startswith(("redis://", "rediss://", "unix://")):
            return text
    raise SettingError(TEMPLATE_STORE, value, allowed)


def _template_prefix(value: Any) -> str:
    if isinstance(value, str):
        return value
    raise SettingError(TEMPLATE_PREFIX, value, "a string (the Redis key prefix)")


def _positive(name: str, value: Any, allowed: str) -> float:
    number = _number(name, value, allowed)
    if number <= 0:
        raise SettingError(name, value, allowed)
    return number


def default_workers() -> int:
    """Workers when BOILERPLATE_EXECUTOR_WORKERS is None: the CPUs, at most 4."""
    return max(1, min(MAX_DEFAULT_WORKERS, os.cpu_count() or 1))


# --- all settings, read and checked at once -----------------------------------------------

@dataclass(frozen=True)
class BoilerplateSettings:
    """The BOILERPLATE_* settings in force, typed and checked (see :func:`read`)."""

    enabled: bool = True
    text_field: str | None = "main_text"
    title_field: str | None = None
    markdown_field: str | None = None
    clean_html_field: str | None = None
    images_field: str | None = None
    metadata_fields: bool = False
    authors_field: str | None = None
    date_published_field: str | None = None
    date_modified_field: str | None = None
    language_field: str | None = None
    site_name_field: str | None = None
    canonical_url_field: str | None = None
    description_field: str | None = None
    image_field: str | None = None
    html_field: str | None = None
    html_field_remove: bool = False
    executor: str = "inline"
    executor_workers: int = field(default_factory=default_workers)
    executor_timeout: float | None = 30.0
    include_title: bool = False
    include_captions: bool = False
    include_comments: bool = False
    include_links: bool = False
    include_images: bool = False
    favor: str = "balanced"
    model: Any = None
    max_body_size: int = DEFAULTS[MAX_BODY_SIZE]
    overview_action: str = "follow"
    overview_threshold: int = DEFAULTS[OVERVIEW_THRESHOLD]
    overview_model: Any = None
    overview_cutoff: float | None = None
    overview_drop_start: bool = False
    overview_field: str | None = None
    template_store: str | None = None
    template_warmup: int = DEFAULTS[TEMPLATE_WARMUP]
    template_max_fingerprints: int = DEFAULTS[TEMPLATE_MAX_FINGERPRINTS]
    template_max_sites: int = DEFAULTS[TEMPLATE_MAX_SITES]
    template_prefix: str = DEFAULTS[TEMPLATE_PREFIX]
    template_ttl: int = DEFAULTS[TEMPLATE_TTL]
    template_timeout: float = DEFAULTS[TEMPLATE_TIMEOUT]
    template_retry_after: float = DEFAULTS[TEMPLATE_RETRY_AFTER]

    @property
    def outputs(self) -> dict[str, str]:
        """Extraction attribute -> item field, for the fields to write."""
        fields = {"text": self.text_field, "title": self.title_field, "markdown": self.markdown_field,
                  "html": self.clean_html_field, "images": self.images_field,
                  "overview": self.overview_field}
        for attr in METADATA_SETTINGS:
            # BOILERPLATE_METADATA_FIELDS: the metadata not named one by one, under its own name.
            fields[attr] = getattr(self, f"{attr}_field") or (attr if self.metadata_fields else None)
        return {attr: name for attr, name in fields.items() if name}

    def extractor_options(self) -> dict:
        """Extractor keyword arguments (the model apart: ``Extractor(settings.model, **these)``)."""
        return {"include_title": self.include_title, "include_captions": self.include_captions,
                "include_comments": self.include_comments, "include_links": self.include_links,
                "include_images": self.include_images, "favor": self.favor}

    def detector_options(self) -> dict:
        """OverviewDetector keyword arguments (plain data, so worker processes can build the same)."""
        return {"threshold": self.overview_threshold, "model": self.overview_model,
                "cutoff": self.overview_cutoff}


def _get(settings: Any, name: str) -> Any:
    return settings.get(name, DEFAULTS[name])


class _ReportedMisconfiguration(logging.Filter):
    """Drops asyncio's "Task exception was never retrieved" record of a misconfiguration that
    stops_crawl() has already logged as one line (Scrapy re-raises a failed start so that asyncio
    logs it with the whole traceback)."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        return not getattr(exc, "_boilerplate_reported", False)


_REPORTED_FILTER = _ReportedMisconfiguration()


def stops_crawl(init):
    """Decorates a component's __init__: a bad setting value or model file (SettingError,
    ModelError, both ValueErrors) is logged as one ERROR line, the message alone, and still raised,
    so the crawl stops before it starts (exit status 1), without a traceback on the console."""
    import functools

    @functools.wraps(init)
    def wrapper(self, *args, **kwargs):
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

    return wrapper


def read_enabled(settings: Any) -> bool:
    """BOILERPLATE_ENABLED alone (the add-on reads it before the other settings are final)."""
    return _boolean(ENABLED, _get(settings, ENABLED))


def read(settings: Any) -> BoilerplateSettings:
    """Read and check every BOILERPLATE_* setting; raise SettingError on the first bad one.

    With BOILERPLATE_ENABLED False the other settings are not checked (nothing uses them).
    """
    if not read_enabled(settings):
        return BoilerplateSettings(enabled=False)
    warn_unknown(settings)

    workers = _get(settings, EXECUTOR_WORKERS)
    timeout = _get(settings, EXECUTOR_TIMEOUT)
    cutoff = _get(settings, OVERVIEW_CUTOFF)
    action = _get(settings, OVERVIEW_ACTION)
    overview_action = "off" if _is_blank(action) else _choice(OVERVIEW_ACTION, action, OVERVIEW_ACTIONS)
    model = _get(settings, MODEL)
    max_body = _get(settings, MAX_BODY_SIZE)
    return BoilerplateSettings(
        enabled=True,
        text_field=_field_name(TEXT_FIELD, _get(settings, TEXT_FIELD)),
        title_field=_field_name(TITLE_FIELD, _get(settings, TITLE_FIELD)),
        markdown_field=_field_name(MARKDOWN_FIELD, _get(settings, MARKDOWN_FIELD)),
        clean_html_field=_field_name(CLEAN_HTML_FIELD, _get(settings, CLEAN_HTML_FIELD)),
        images_field=_field_name(IMAGES_FIELD, _get(settings, IMAGES_FIELD)),
        metadata_fields=_boolean(METADATA_FIELDS, _get(settings, METADATA_FIELDS)),
        **{f"{attr}_field": _field_name(name, _get(settings, name))
           for attr, name in METADATA_SETTINGS.items()},
        html_field=_field_name(HTML_FIELD, _get(settings, HTML_FIELD)),
        html_field_remove=_boolean(HTML_FIELD_REMOVE, _get(settings, HTML_FIELD_REMOVE)),
        executor=_choice(EXECUTOR, _get(settings, EXECUTOR), EXECUTORS),
        executor_workers=(default_workers() if _is_blank(workers) or workers == 0 else
                          _integer(EXECUTOR_WORKERS, workers, "a number of workers (1 or more), "
                                   "or None for the CPUs, at most 4", 1)),
        executor_timeout=(None if _is_blank(timeout) else
                          _number(EXECUTOR_TIMEOUT, timeout, "a number of seconds (0 or None: no "
                                  "bound)") or None),
        include_title=_boolean(INCLUDE_TITLE, _get(settings, INCLUDE_TITLE)),
        include_captions=_boolean(INCLUDE_CAPTIONS, _get(settings, INCLUDE_CAPTIONS)),
        include_comments=_boolean(INCLUDE_COMMENTS, _get(settings, INCLUDE_COMMENTS)),
        include_links=_boolean(INCLUDE_LINKS, _get(settings, INCLUDE_LINKS)),
        include_images=_boolean(INCLUDE_IMAGES, _get(settings, INCLUDE_IMAGES)),
        favor=_choice(FAVOR, _get(settings, FAVOR), FAVORS),
        model=None if _is_blank(model) else _model_path(MODEL, model, _MODEL_ALLOWED),
        max_body_size=(0 if max_body is None else
                       _integer(MAX_BODY_SIZE, max_body, "a number of bytes (0: no limit)", 0)),
        overview_action=overview_action,
        overview_threshold=_integer(OVERVIEW_THRESHOLD, _get(settings, OVERVIEW_THRESHOLD),
                                    "a number of characters (1 or more)", 1),
        overview_model=_overview_model(_get(settings, OVERVIEW_MODEL)),
        overview_cutoff=(None if _is_blank(cutoff) else
                         _number(OVERVIEW_CUTOFF, cutoff, "a score from 0 to 1 (above 1: nothing is "
                                 "an overview), or None for the model's own cutoff")),
        overview_drop_start=_boolean(OVERVIEW_DROP_START, _get(settings, OVERVIEW_DROP_START)),
        overview_field=_overview_field(_get(settings, OVERVIEW_FIELD), overview_action),
        template_store=_template_store(_get(settings, TEMPLATE_STORE)),
        template_warmup=_integer(TEMPLATE_WARMUP, _get(settings, TEMPLATE_WARMUP),
                                 "a number of pages (0 or more)", 0),
        template_max_fingerprints=_integer(TEMPLATE_MAX_FINGERPRINTS,
                                           _get(settings, TEMPLATE_MAX_FINGERPRINTS),
                                           "a number of fingerprints (1 or more)", 1),
        template_max_sites=_integer(TEMPLATE_MAX_SITES, _get(settings, TEMPLATE_MAX_SITES),
                                    "a number of sites (1 or more)", 1),
        template_prefix=_template_prefix(_get(settings, TEMPLATE_PREFIX)),
        template_ttl=_integer(TEMPLATE_TTL, _get(settings, TEMPLATE_TTL),
                              "a number of seconds (0: no expiry)", 0),
        template_timeout=_positive(TEMPLATE_TIMEOUT, _get(settings, TEMPLATE_TIMEOUT),
                                   "a number of seconds (more than 0)"),
        template_retry_after=_number(TEMPLATE_RETRY_AFTER, _get(settings, TEMPLATE_RETRY_AFTER),
                                     "a number of seconds (0 or more)"),
    )


_warned_unknown: set[str] = set()


def warn_unknown(settings: Any) -> list[str]:
    """Log one WARNING per BOILERPLATE_* name that is no setting (a typo would otherwise
    be ignored silently), with the closest known name; returns the unknown names."""
    try:
        names = [name for name in settings if isinstance(name, str) and name.startswith(PREFIX)]
    except TypeError:   # an object that cannot list its names
        return []
    unknown = [name for name in names if name not in DEFAULTS]
    for name in unknown:
        if name in _warned_unknown:
            continue
        _warned_unknown.add(name)
        close = difflib.get_close_matches(name, DEFAULTS, n=1)
        logger.warning("%s is not a scrapy_boilerplate setting%s; it is ignored", name,
                       f" (did you mean {close[0]}?)" if close else "")
    return unknown
