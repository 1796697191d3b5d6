"""The crawl's BOILERPLATE_* settings, read once per crawler and handed to its components.

Every component of a crawl (the pipeline, the middlewares, the worker pool, site memory) asks
`crawl_settings(crawler)`: the first read checks every setting (a SettingError stops the crawl
before it starts) and the typed `BoilerplateSettings` it gives is shared from then on.
`worker_config(crawler)` is what the worker processes of BOILERPLATE_EXECUTOR = "process" take
from them, made once per crawler as well.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from .. import settings as bp
from .weakcache import WeakCache

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

_read: WeakCache[Crawler, bp.BoilerplateSettings] = WeakCache(lambda crawler: bp.read(crawler.settings))


def crawl_settings(crawler: Crawler) -> bp.BoilerplateSettings:
    """The crawler's settings, read on first use (crawler settings are frozen by then)."""
    settings: bp.BoilerplateSettings = _read(crawler)
    return settings


@dataclass(frozen=True)
class WorkerConfig:
    """What the worker processes of a "process" crawl are started with (crawl/workers.py, tasks.py),
    from the settings. It goes to every worker process as it is: the typed settings (plain data,
    no Scrapy) build there the Extractor and the OverviewDetector of the crawl process."""

    settings: bp.BoilerplateSettings

    @property
    def workers(self) -> int:
        return self.settings.executor_workers  # BOILERPLATE_EXECUTOR_WORKERS

    @property
    def timeout(self) -> float | None:
        return self.settings.executor_timeout  # BOILERPLATE_EXECUTOR_TIMEOUT

    @property
    def judges(self) -> bool:
        """Whether the workers judge pages (the overview action is not "off")."""
        return self.settings.overview_action != "off"

    @property
    def extract_responses(self) -> bool:
        """Whether the middleware's tasks extract too: not when items bring their own HTML
        (BOILERPLATE_HTML_FIELD), whose extraction is the pipeline's, from that HTML."""
        return not self.settings.html_field

    @property
    def markup(self) -> bool:
        """Whether items store Markdown or clean HTML (made in the worker)."""
        outputs = self.settings.outputs
        return "markdown" in outputs or "html" in outputs

    @property
    def metadata(self) -> bool:
        """Whether items store article metadata (made in the worker)."""
        return any(attr in bp.METADATA_SETTINGS for attr in self.settings.outputs)

    @property
    def images(self) -> bool:
        """Whether items store the content's images (resolved in the worker)."""
        return "images" in self.settings.outputs


_workers: WeakCache[Crawler, WorkerConfig] = WeakCache(lambda crawler: WorkerConfig(crawl_settings(crawler)))


def worker_config(crawler: Crawler) -> WorkerConfig:
    """The crawler's WorkerConfig, made on first use from `crawl_settings(crawler)`."""
    config: WorkerConfig = _workers(crawler)
    return config


def uses_component(crawler: Crawler, setting: str, path: str) -> bool:
    """Whether the component dict `setting` (ITEM_PIPELINES...) enables the class at import path
    `path`, or a subclass of it (compared by name: crawl/ imports no component)."""
    from scrapy.utils.misc import load_object

    for key, priority in crawler.settings.getwithbase(setting).items():
        if priority is None:
            continue
        try:
            cls = load_object(key) if isinstance(key, str) else key
        except (ImportError, NameError, ValueError, AttributeError):
            continue
        if any(f"{base.__module__}.{base.__qualname__}" == path for base in getattr(cls, "__mro__", ())):
            return True
    return False
