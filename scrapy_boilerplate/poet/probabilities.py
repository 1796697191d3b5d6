"""The probabilities the page objects report, from the overview verdict and the link roles.

zyte-spider-templates' pipeline drops an ``Article`` whose ``metadata.probability`` is under
0.1 (``ITEM_PROBABILITY_THRESHOLDS``), and Zyte's own extraction gives an article page one above
0.5. The article probability keeps the verdict's decision on both sides of that gap: a page the
overview detector calls a listing gets one under DROPPED_BELOW, any other page one of
KEPT_FROM or more (less for one that does not present itself as a post), each growing with its
distance from the detector's cutoff (the cutoff was chosen
by the overview model's site-grouped cross-validation on the overview data and the shared sites:
docs/overview.md). docs/zyte.md gives how often each range holds an article on the shared sites.
"""

from __future__ import annotations

from ..core.links.roles import CONTENT, NAVIGATION, NEXT, RELATED

#: zyte-spider-templates' threshold: an Article under it is dropped.
DROPPED_BELOW = 0.1
#: The least probability of a page the overview detector does not call a listing.
KEPT_FROM = 0.5
#: The range of a page that is not a listing and presents itself as a post (marked up as an
#: article, or dated), and of one that does not (an about page, or a post of a theme that dates
#: nothing): on the twenty shared sites, 1,766 of the 1,865 pages of the first kind that the shipped
#: detector does not call listings are articles, and 237 of the 394 of the second.
PRESENTED = (0.9, 0.99)
NOT_PRESENTED = (0.55, 0.65)

#: ``ArticleNavigation.items``: how likely a link of each role on a listing, and on any other page,
#: leads to an article (a listing's teasers do; a link in an article's text or a related-posts box
#: often does).
ITEM_PROBABILITY = {
    (True, CONTENT): 0.95,
    (False, CONTENT): 0.5,
    (True, RELATED): 0.5,
    (False, RELATED): 0.5,
    (True, NAVIGATION): 0.2,
    (False, NAVIGATION): 0.2,
}
#: ``ArticleNavigation.subCategories``: a menu's, a tag's or a pager's link leads to more links.
SUBCATEGORY_PROBABILITY = {NAVIGATION: 0.5, NEXT: 0.9}
#: A feed the page announces lists the site's newest posts (as the templates' heuristics say).
FEED_PROBABILITY = 1.0
#: A feed's entries are posts.
FEED_ENTRY_PROBABILITY = 0.99


def article_probability(is_listing: bool, score: float, cutoff: float, presented: bool = True) -> float:
    """The probability that a page is an article: under DROPPED_BELOW for a listing; for any
    other page, in PRESENTED if it presents itself as a post (marked up as an article, or dated),
    else in NOT_PRESENTED; within its range, higher the further `score` is below `cutoff`."""
    if is_listing:
        margin = (1.0 - score) / (1.0 - cutoff) if cutoff < 1.0 else 0.0
        return round(0.9 * DROPPED_BELOW * min(max(margin, 0.0), 1.0), 3)
    low, high = PRESENTED if presented else NOT_PRESENTED
    margin = (cutoff - score) / cutoff if cutoff > 0.0 else 1.0
    return round(low + (high - low) * min(max(margin, 0.0), 1.0), 3)
