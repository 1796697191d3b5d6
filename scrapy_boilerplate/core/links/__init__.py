"""The links of a page and the role of each (roles.py), read from the page's own analysis."""

from .roles import ROLES, Link, link_key, page_links

__all__ = ["ROLES", "Link", "link_key", "page_links"]
