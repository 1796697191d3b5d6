"""web-poet page objects on this extractor: zyte-common-items' ``Article``, ``ArticleList`` and
``ArticleNavigation`` for scrapy-poet spiders and zyte-spider-templates (docs/zyte.md).

    ADDONS = {"scrapy_poet.Addon": 300, "zyte_common_items.Addon": 400, "scrapy_boilerplate.poet.Addon": 500}

or, with the shipped models and default options, ``SCRAPY_POET_DISCOVER = ["scrapy_boilerplate.poet"]``.
Needs the ``poet`` extra (web-poet, scrapy-poet, zyte-common-items); the rest of the package never
imports this one.
"""

try:
    import scrapy_poet  # noqa: F401
    import web_poet  # noqa: F401
    import zyte_common_items  # noqa: F401
except ImportError as exc:
    raise ImportError(
        f"scrapy_boilerplate.poet needs the 'poet' extra ({exc.name} is missing): "
        "pip install 'scrapy-boilerplate-removal[poet]'"
    ) from exc

from .addon import Addon
from .analysis import PageAnalysis
from .config import AnalysisConfig
from .pages import PRIORITY, BoilerplateArticleListPage, BoilerplateArticleNavigationPage, BoilerplateArticlePage
from .provider import ConfigProvider

__all__ = [
    "PRIORITY",
    "Addon",
    "AnalysisConfig",
    "BoilerplateArticleListPage",
    "BoilerplateArticleNavigationPage",
    "BoilerplateArticlePage",
    "ConfigProvider",
    "PageAnalysis",
]
