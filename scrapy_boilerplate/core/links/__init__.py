"""The links of a page and the role of each (roles.py), read from the page's own analysis:
the request URL of a link and what a URL says by itself (urls.py), a page's anchors and where
each stands (anchors.py)."""

from .roles import ROLES, Link, page_links
from .urls import link_key

__all__ = ["ROLES", "Link", "link_key", "page_links"]
