"""OverviewDetector -> OverviewVerdict: the page evidence scored by the overview model or TextSweeper's rule."""

from __future__ import annotations

import math
import re
import threading
from dataclasses import dataclass
from importlib import resources
from typing import TYPE_CHECKING, Any, Literal

from ..document.page import Page, build_page
from ..document.parse import to_element
from ..links.pager import own_pager
from ..scoring.model import Model, ModelError, load_model
from .evidence import FEATURE_NAMES, EvidencePlan, is_token_feature, own_url, page_evidence
from .link_evidence import leads_elsewhere

if TYPE_CHECKING:
    import os

#: Net text length (characters) below which TextSweeper calls a page an overview.
DEFAULT_NET_TEXT_THRESHOLD = 1500
# The URL of a listing's first or numbered page: the site's root, /page/2, /page2, index2.html,
# ?page=2. A page there with a pager of its own is a listing, however long its teasers (a blog
# theme that shows whole posts on its home pages). Not ?p=N, WordPress's post ids.
LISTING_PAGE_URL_RE = re.compile(
    r"^https?://[^/?#]+(?:/?(?:index\.html?)?(?:#|$)|/(?:.*/)?(?:page/?\d{1,5}/?(?:index\.html?)?|index\d{1,5}\.html?)(?:[?#]|$)|"
    r"[^?#]*\?(?:[^#]*&)?(?:page|paged)=\d{1,5}(?:[&#]|$))",
    re.IGNORECASE,
)
#: An overview leads to other pages: a page whose links lead to no other page of its site but its
#: home page is not one, unless its own score says plainly otherwise (a listing whose teasers the
#: page's scripts draw, saved without them).
LEADS_NOWHERE_MAX_SCORE = 0.9


@dataclass
class OverviewVerdict:
    """Whether a page is an overview page, and why."""

    is_overview: bool
    net_text_length: int  # net text of TextSweeper's best region (characters)
    threshold: int  # the net-text threshold in force (TextSweeper's rule)
    # 0..1, higher = more overview-like; is_overview == score >= the cutoff, unless a sign of the
    # site's own overrules it (a pager on a listing URL; in a crawl, the link the page was reached by)
    score: float
    reason: str

    def to_dict(self) -> dict[str, bool | int | float | str]:
        return dict(self.__dict__)


def heuristic_score(values: dict[str, float], threshold: int) -> float:
    """TextSweeper's rule as a score: net text of the best region against the threshold."""
    net = math.expm1(values["log_net_region"])
    return float(1.0 / (1.0 + math.exp((net - threshold) / (0.25 * threshold))))


class OverviewDetector:
    """Decides whether a page is an overview page.

    ``threshold`` is TextSweeper's net-text threshold in characters; it is
    reported in every verdict, and with ``model=False`` it is the whole rule.
    ``model``: None for the shipped overview model, a path to a model JSON
    file, or False for the plain TextSweeper rule. ``cutoff`` is the score at
    or above which a page is an overview: by default the one stored with the
    model (chosen in cross-validation to flag at most 5 % of articles), 0.5
    for the plain rule. ``site_signs``: a page with a pager of its own on the site's root or a
    numbered page's URL (``/page/2/``) is an overview whatever its score, and one whose links lead
    to no other page of its site but its home page is not, unless its score is
    LEADS_NOWHERE_MAX_SCORE or more (False: the score alone).
    """

    def __init__(
        self,
        threshold: int = DEFAULT_NET_TEXT_THRESHOLD,
        model: Model | str | os.PathLike[str] | Literal[False] | None = None,
        cutoff: float | None = None,
        site_signs: bool = True,
    ) -> None:
        if threshold <= 0:
            raise ValueError("threshold must be a positive number of characters")
        self.threshold = int(threshold)
        self.model = _load_overview_model(model)
        self.plan = EvidencePlan(self.model.feature_names) if self.model is not None else None
        if cutoff is None:
            cutoff = self.model.decode.get("cutoff", 0.5) if self.model is not None else 0.5
        self.cutoff = float(cutoff)
        self.site_signs = bool(site_signs)

    def detect(self, html: Any, url: str | None = None) -> OverviewVerdict:
        """Verdict for `html` (str, bytes, parsel Selector or lxml element). Never raises on str/bytes."""
        try:
            root = to_element(html)
            page = build_page(root, base_url=url)
        except TypeError:
            raise
        except Exception as exc:  # noqa: BLE001 - bad input: no verdict, not a crash
            return OverviewVerdict(False, 0, self.threshold, 0.0, f"unreadable page ({exc!r})")
        return self.detect_page(page, url)

    def detect_page(self, page: Page, url: str | None = None) -> OverviewVerdict:
        if not len(page):
            return OverviewVerdict(False, 0, self.threshold, 0.0, "no text: not judged")
        if self.model is None:
            values = page_evidence(page, url)
            score = heuristic_score(values, self.threshold)
            how = "net-text rule"
        else:
            # (plan is set whenever model is)
            values, row = self.plan.row(page, url)  # type: ignore[union-attr]
            score = float(self.model.predict_proba(row[None, :])[0])
            how = "model"
        net = round(math.expm1(values["log_net_region"]))
        reason = _reason(values, net, self.threshold, score >= self.cutoff, how)
        is_overview, sign = self.with_signs(page, url, score)
        if sign:
            reason += f"; {sign}"
        return OverviewVerdict(is_overview, net, self.threshold, round(score, 4), reason)

    def with_signs(self, page: Page, url: str | None, score: float, cutoff: float | None = None) -> tuple[bool, str]:
        """(is_overview, the sign that overruled the score or "") for `page` at `score`: the score
        against `cutoff` (default: the detector's), unless a sign of the page's own links says
        otherwise (``site_signs``). Only the pages the signs could flip are looked at."""
        is_overview = score >= (self.cutoff if cutoff is None else cutoff)
        if not self.site_signs:
            return is_overview, ""
        if not is_overview and paged_listing(page, url):
            return True, "a pager of its own on a listing's URL: a listing"
        if is_overview and score < LEADS_NOWHERE_MAX_SCORE and leads_nowhere(page, url):
            return False, "links to no other page of its site but the home page: not a listing"
        return is_overview, ""


def _listing_url(url: str | None) -> bool:
    """Whether `url` is a listing's first or numbered page's (LISTING_PAGE_URL_RE)."""
    return url is not None and LISTING_PAGE_URL_RE.match(url) is not None


def paged_listing(page: Page, url: str | None) -> bool:
    """A pager of its own (core/links/pager.own_pager) on a listing's first or numbered page URL."""
    url = url or own_url(page)
    return _listing_url(url) and own_pager(page, url)


def leads_nowhere(page: Page, url: str | None) -> bool:
    """No link to another page of the page's host but its home page (link_evidence.leads_elsewhere).
    False when the page's URL, so its host, is not known, and on a listing's URL (the site's root,
    a numbered page): a home page is the site's front page whatever it links to (a closed site's
    farewell page, a one-page site)."""
    url = url or own_url(page)
    return not _listing_url(url) and leads_elsewhere(page, url) is False


def _reason(values: dict[str, float], net: int, threshold: int, is_overview: bool, how: str) -> str:
    parts = [f"net text {net} chars {'<' if net < threshold else '>='} {threshold}"]
    if values["card_items"]:
        parts.append(f"{int(values['card_items'])} teaser cards")
    if values["linked_headings"]:
        parts.append(f"{int(values['linked_headings'])} linked headings")
    if values["long_paras"]:
        parts.append(f"{int(values['long_paras'])} long paragraphs")
    if values["ld_article"] or values["og_article"]:
        parts.append("marked up as an article")
    if values["url_listing"] or values["url_root"]:
        parts.append("listing-like URL")
    verdict = "overview" if is_overview else "not an overview"
    return f"{verdict} ({how}): " + ", ".join(parts)


def _load_overview_model(model: Model | str | os.PathLike[str] | Literal[False] | None) -> Model | None:
    if model is False:
        return None
    if isinstance(model, Model):
        return model
    if model is None:
        if not resources.files("scrapy_boilerplate").joinpath("models/overview.json").is_file():
            return None
        shipped = resources.files("scrapy_boilerplate").joinpath("models/overview.json")
        loaded = load_model(str(shipped))
    else:
        loaded = load_model(model)
    missing = [f for f in loaded.feature_names if f not in FEATURE_NAMES and not is_token_feature(f)]
    if missing:
        from ..scoring.features import dense_columns

        try:
            dense_columns(loaded.feature_names)
            is_block_model = True
        except ValueError:
            is_block_model = False
        if is_block_model:
            raise ModelError(
                "this is a block model (for 'extract --model' and BOILERPLATE_MODEL), "
                "not an overview model: give an overview model made by "
                "'scrapy-boilerplate train --overview', or none for the shipped one"
            )
        more = f" and {len(missing) - 5} more" if len(missing) > 5 else ""
        raise ModelError(
            f"overview model uses unknown evidence: {', '.join(missing[:5])}{more}; "
            "retrain it with 'scrapy-boilerplate train --overview'"
        )
    return loaded


def is_overview_model(model: Model) -> bool:
    """True when most of the model's features are overview evidence (an overview model)."""
    names = [f for f in model.feature_names if not is_token_feature(f)]
    return bool(names) and sum(f in FEATURE_NAMES for f in names) * 2 > len(names)


_default_lock = threading.Lock()
_default: OverviewDetector | None = None


def default_detector() -> OverviewDetector:
    global _default
    if _default is None:
        with _default_lock:
            if _default is None:
                _default = OverviewDetector()
    return _default


def detect_overview(
    html: Any,
    url: str | None = None,
    *,
    threshold: int = DEFAULT_NET_TEXT_THRESHOLD,
    model: Model | str | os.PathLike[str] | Literal[False] | None = None,
    cutoff: float | None = None,
    site_signs: bool = True,
) -> OverviewVerdict:
    """Is this an overview page (home, section, tag, archive, listing)? The keyword arguments are
    `OverviewDetector`'s; with their defaults, a shared detector (the shipped model) judges."""
    if threshold == DEFAULT_NET_TEXT_THRESHOLD and model is None and cutoff is None and site_signs:
        detector = default_detector()
    else:
        detector = OverviewDetector(threshold, model, cutoff, site_signs)
    return detector.detect(html, url=url)
