"""Names and defaults of every ``BOILERPLATE_*`` Scrapy setting and ``Request.meta`` key.

This module imports nothing from Scrapy, so it can be read by the core, the
command line and the Scrapy components alike. Components read a setting with
``crawler.settings.get(NAME, DEFAULTS[NAME])`` (or the typed getters), so they
work without the add-on; the add-on stores these defaults at "addon" priority,
where a project's ``settings.py`` or a spider's ``custom_settings`` override them.
"""

# Master switch for every scrapy_boilerplate component.
ENABLED = "BOILERPLATE_ENABLED"

# Item fields the pipeline writes. ``None`` (or "") means "do not write".
TEXT_FIELD = "BOILERPLATE_TEXT_FIELD"
TITLE_FIELD = "BOILERPLATE_TITLE_FIELD"
MARKDOWN_FIELD = "BOILERPLATE_MARKDOWN_FIELD"
CLEAN_HTML_FIELD = "BOILERPLATE_CLEAN_HTML_FIELD"
IMAGES_FIELD = "BOILERPLATE_IMAGES_FIELD"

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

# Per-site template block store: None (off), "memory" or a redis:// URL.
TEMPLATE_STORE = "BOILERPLATE_TEMPLATE_STORE"

DEFAULTS = {
    ENABLED: True,
    TEXT_FIELD: "main_text",
    TITLE_FIELD: None,
    MARKDOWN_FIELD: None,
    CLEAN_HTML_FIELD: None,
    IMAGES_FIELD: None,
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
    TEMPLATE_STORE: None,
}

EXECUTORS = ("inline", "thread", "process")
OVERVIEW_ACTIONS = ("follow", "drop", "flag", "off")

# Request.meta keys (all values are plain booleans, so requests stay picklable).
# False: do not extract for items from this request's response.
META_EXTRACT = "boilerplate_extract"
# False: do not classify this response as overview/article. True: classify it even when
# it is not an HtmlResponse (any 2xx text response) and, with action "drop", drop it even
# when it is a start request.
META_OVERVIEW = "boilerplate_overview"

# response.flags marker set by OverviewMiddleware.
OVERVIEW_FLAG = "overview"
