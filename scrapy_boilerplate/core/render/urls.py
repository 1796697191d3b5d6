"""URLs that may appear in the outputs: absolute http(s) only."""

from __future__ import annotations

import re
from urllib.parse import urljoin, urlsplit

from ..document.words import drop_controls

# Browsers drop tabs and line breaks anywhere in a URL ("java\tscript:"), and
# control characters and spaces at its ends; other control characters no output holds.
_IGNORED_INSIDE = re.compile(r"[\t\n\r]")
_STRIPPED = "".join(map(chr, range(0x21))) + "\x7f"
# An absolute http(s) URL with a host and no character that urljoin or a browser would treat
# specially (spaces, controls, backslashes).
_PLAIN_ABSOLUTE = re.compile(r"https?://[^/?#\\\s\x00-\x20\x7f-\x9f@:][^\\\s\x00-\x20\x7f-\x9f]*\Z")


def page_base(url: str | None, base_href: str | None) -> str | None:
    """The URL relative links are resolved against: <base href> (itself resolved
    against the page URL), else the page URL."""
    if base_href:
        base = safe_url(base_href, url)
        if base is not None:
            return base
    return safe_url(url, None) if url else None


def safe_url(href: str | None, base: str | None) -> str | None:
    """`href` made absolute against `base`, or None unless it is an http(s) URL with a host."""
    if not href:
        return None
    if _PLAIN_ABSOLUTE.match(href):
        return href  # the common case, already absolute: no parsing
    href = drop_controls(_IGNORED_INSIDE.sub("", href).strip(_STRIPPED))
    if not href:
        return None
    try:
        absolute = urljoin(base, href) if base else href
        parts = urlsplit(absolute)
    except ValueError:  # an invalid IPv6 host, a bad port
        return None
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc:
        return None
    return absolute
