"""Bytes or text to an lxml tree: encoding sniffing, decoding and parsing.

Also accepts what Scrapy hands over (a parsel Selector, an lxml element) so
that an already parsed response is reused, never parsed again.
"""

from __future__ import annotations

import codecs
import logging
import re
from typing import TYPE_CHECKING, Any

from lxml import etree

from .. import speedups
from .charset import guess_encoding

if TYPE_CHECKING:
    from . import _parse
else:
    _parse = speedups.kernels(__name__)  # the UTF-8 check: compiled, or the same source run as Python

logger = logging.getLogger(__name__)

#: Input beyond this many bytes is cut before parsing (bounded cost).
MAX_INPUT_BYTES = 8 * 1024 * 1024
META_CHARSET_RE = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([a-zA-Z0-9_.:-]+)""", re.I)
XML_ENCODING_RE = re.compile(rb"""^\s*<\?xml[^>]+encoding\s*=\s*["']([a-zA-Z0-9_.:-]+)""", re.I)
_SURROGATE_RE = re.compile("[\ud800-\udfff]")


#: Bytes that are not all UTF-8 are still read as UTF-8 (a U+FFFD for each bad sequence, as a
#: browser reads a page that declares UTF-8) when their characters of two or more bytes outnumber
#: the bad sequences this many times; by a declaration of UTF-8, as many times as the bad ones.
#: Legacy encodings form such characters by chance: 0.43 per bad sequence at most on the 110 pages
#: of benchmarks/undeclared_charsets.py (EUC-JP; GB18030, Shift_JIS, windows-1251 fewer).
MOSTLY_UTF8 = 4
MOSTLY_UTF8_DECLARED = 1
_HIGH_BYTES = bytes(range(0x80, 0x100))


def sniff_encoding(data: bytes) -> str:
    """Pick an encoding: BOM, then UTF-8, then <meta charset> / XML declaration, then a guess from
    the bytes (charset.py; cp1252 where they say nothing).

    Bytes that decode as UTF-8 are UTF-8 whatever the page declares: pages are often re-saved as
    UTF-8 with a stale <meta charset>, and non-ASCII text in a legacy encoding almost never forms
    valid UTF-8 by chance. So are bytes that are mostly UTF-8 (MOSTLY_UTF8): one stray byte in a
    UTF-8 page (a paragraph pasted from elsewhere, a page cut and joined) must not turn all its
    other characters into mojibake.
    """
    if data.startswith(b"\xef\xbb\xbf"):
        return "utf-8"
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "utf-16"
    try:
        data.decode("utf-8")
        return "utf-8"
    except UnicodeDecodeError as exc:
        # A page cut mid-character is still UTF-8.
        if exc.start >= len(data) - 3 and exc.reason == "unexpected end of data":
            return "utf-8"
    name = declared_encoding(data)
    characters, bad = utf8_counts(data)
    declares_utf8 = name is not None and name.startswith("utf-")
    if characters >= bad * (MOSTLY_UTF8_DECLARED if declares_utf8 else MOSTLY_UTF8):
        return "utf-8"
    if name is None:
        return guess_encoding(data)  # declared nowhere: the bytes tell
    if declares_utf8:
        return "cp1252"  # as declared pages that fail to decode always were
    return name


def declared_encoding(data: bytes) -> str | None:
    """The encoding the first 4 KB declare (<meta charset>, http-equiv or the XML declaration) as
    a browser reads it (a Python codec name); "cp1252" for one Python does not know; None for none."""
    head = data[:4096]
    match = META_CHARSET_RE.search(head) or XML_ENCODING_RE.search(head)
    if not match:
        return None
    try:
        name = codecs.lookup(match.group(1).decode("ascii", "replace").lower()).name
    except LookupError:
        return "cp1252"
    # Pages that claim latin-1 or ASCII mean windows-1252, as browsers read them.
    if name in ("latin-1", "iso8859-1", "ascii"):
        return "cp1252"
    if name == "gb2312":
        return "gb18030"  # its superset, as browsers read it
    return name


def utf8_counts(data: bytes) -> tuple[int, int]:
    """(characters of two or more bytes, bad sequences) of `data` read as UTF-8, where each bad
    sequence is one U+FFFD (an ASCII byte is never part of one)."""
    text = data.decode("utf-8", errors="replace")
    bad = text.count("\ufffd") - data.count("\ufffd".encode())
    return len(text) - len(data.translate(None, _HIGH_BYTES)) - bad, bad


def to_unicode(data: bytes) -> str:
    if not data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return data.decode("utf-8")  # the common case: one decode, no sniffing
        except UnicodeDecodeError:
            pass
    encoding = sniff_encoding(data)
    try:
        return data.decode(encoding, errors="replace")
    except LookupError:
        return data.decode("utf-8", errors="replace")


# collect_ids=False: libxml2 would index every id attribute for getElementById and XPath's id(),
# which nothing here calls (our selectors compare @id); it is 1 % of an extraction's instructions.
_PARSER = etree.HTMLParser(
    encoding="utf-8",
    remove_comments=True,
    remove_pis=True,
    no_network=True,
    default_doctype=False,
    collect_ids=False,
)


def parse_html(html: str | bytes | bytearray | memoryview) -> etree._Element | None:
    """Parse str or bytes into an lxml tree; None when there is nothing to parse."""
    if isinstance(html, bytes | bytearray | memoryview):
        data = bytes(html)
        if len(data) > MAX_INPUT_BYTES:
            logger.warning("HTML of %d bytes cut to %d bytes before parsing", len(data), MAX_INPUT_BYTES)
            data = data[:MAX_INPUT_BYTES]
        utf8 = _valid_utf8(data)
        if utf8 is not None:
            # The common case: parse the bytes as they are, no decode/encode round trip.
            return _parse_utf8(utf8)
        if looks_binary(data):
            logger.debug("input of %d bytes is binary, not HTML: nothing to parse", len(data))
            return None
        text = to_unicode(data)
    elif isinstance(html, str):
        text = html
        if len(text) > MAX_INPUT_BYTES:
            logger.warning("HTML of %d characters cut to %d before parsing", len(text), MAX_INPUT_BYTES)
            text = text[:MAX_INPUT_BYTES]
    else:
        raise TypeError(f"expected str or bytes, got {type(html).__name__}")
    if "\x00" in text:
        text = text.replace("\x00", "")
    text = text.lstrip("\ufeff")
    if not text or text.isspace():  # (not text.strip(), without copying the page)
        return None
    # Re-encode as UTF-8: lxml refuses str input with an XML encoding declaration.
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates (text decoded with "surrogateescape"...): U+FFFD
        data = _SURROGATE_RE.sub("\ufffd", text).encode("utf-8")
    return _parse_utf8(data)


#: Control bytes that no text encoding of a web page uses (not TAB, LF, VT, FF, CR; not ESC, which
#: ISO-2022 encodings use). NUL is counted too, unless it falls every other byte (UTF-16 text).
_CONTROL_BYTES = bytes([*range(0x00, 0x09), *range(0x0E, 0x1B), *range(0x1C, 0x20), 0x7F])
BINARY_SAMPLE = 4096


def looks_binary(data: bytes) -> bool:
    """True for binary data (an executable, an image, a compressed or PDF stream): more than 5% of
    its first 4 KB are control bytes that no text encoding of a page uses. UTF-8 with a BOM and
    UTF-16 (with a BOM, or NULs every other byte) are text. The parser asks only about input that
    is not valid UTF-8."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff", b"\xef\xbb\xbf")):
        return False
    head = data[:BINARY_SAMPLE]
    if not head:
        return False
    controls = len(head) - len(head.translate(None, _CONTROL_BYTES))
    if controls * 20 <= len(head):
        return False
    even, odd = head[0::2].count(0), head[1::2].count(0)
    if max(even, odd) * 5 > len(head) and min(even, odd) * 50 < len(head):  # UTF-16 without a BOM
        return (controls - even - odd) * 20 > len(head)
    return True


def _valid_utf8(data: bytes) -> bytes | None:
    """`data` without a UTF-8 BOM when it is valid UTF-8 (and not UTF-16), else None."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return None
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    return data if _parse._is_utf8(data) else None


def _parse_utf8(data: bytes) -> etree._Element | None:
    if b"\x00" in data:
        data = data.replace(b"\x00", b"")
    while data.startswith(b"\xef\xbb\xbf"):  # repeated BOMs
        data = data[3:]
    if not data or data.isspace():  # (not data.strip(), without copying the page)
        return None
    try:
        return etree.fromstring(data, _PARSER)
    except (etree.ParserError, etree.XMLSyntaxError, ValueError):
        return None


def to_element_type_error(html: object) -> bool:
    """True when `html` is of no type the extractor accepts."""
    return not (isinstance(html, etree._Element) or hasattr(html, "root"))


def to_element(html: Any) -> etree._Element | None:
    """Accept str, bytes, a parsel Selector or an lxml element; return an lxml element or None."""
    if isinstance(html, etree._Element):
        return html
    root = getattr(html, "root", None)  # parsel.Selector
    if isinstance(root, etree._Element):
        return root
    if root is not None and hasattr(html, "xpath"):
        return None  # a Selector over JSON or text
    return parse_html(html)
