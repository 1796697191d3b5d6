"""Which responses Scrapy decoded by a guess, and the encoding their bytes tell (CharsetMiddleware).

Scrapy reads a response's charset from its Content-Type, BOM and <meta>; with none it guesses, so a
GB2312 page served without a charset, or a UTF-8 one with one stray byte, reaches the spider as
mojibake.
"""

from __future__ import annotations

import codecs
from typing import TYPE_CHECKING

from w3lib.encoding import html_body_declared_encoding, http_content_type_encoding, read_bom

from ..core.document.parse import sniff_encoding

if TYPE_CHECKING:
    from scrapy.http import TextResponse


def declared(response: TextResponse) -> bool:
    """True when the response names its charset: a BOM, Content-Type's charset, <meta charset> or
    http-equiv, or the XML declaration (w3lib's reading, as Scrapy's own)."""
    content_type = response.headers.get(b"Content-Type") or b""
    body = response.body
    return bool(
        read_bom(body)[0]
        or http_content_type_encoding(content_type.decode("latin-1"))
        or html_body_declared_encoding(body)
    )


def better_encoding(response: TextResponse) -> str | None:
    """The encoding to read `response` in when Scrapy only guessed and guessed otherwise than the
    bytes tell (core/document/charset.py); None to keep Scrapy's. Never second-guesses a declared
    charset; valid UTF-8 stays UTF-8, and mostly UTF-8 is read as UTF-8."""
    if declared(response):
        return None
    encoding = sniff_encoding(response.body)
    if codecs.lookup(encoding).name == codecs.lookup(response.encoding).name:
        return None
    # Scrapy's guess may be a superset of ours (cp932 for shift_jis) that reads the page the same.
    if response.text == response.body.decode(encoding, errors="replace"):
        return None
    return encoding
