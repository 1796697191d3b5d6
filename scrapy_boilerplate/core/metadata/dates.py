"""Dates as pages write them, to ISO 8601: a date, or a datetime with its offset.

A date before EARLIEST_YEAR, in the future, or that does not exist ("0000-00-00",
"2024-02-31") is None: never a guess. Text dates ("15 March 2024", "15.03.2024")
are read by htmldate's fast parser when it is installed (the ``[metadata]`` extra),
ISO dates and URL dates without it.
"""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta, timezone

#: Pages with a publication date before this year are not on the web as we know it.
EARLIEST_YEAR = 1995
#: Longer strings are not a date (an author field holding a paragraph).
MAX_DATE_CHARS = 100

_ISO_RE = re.compile(
    r"(\d{4})-(\d{1,2})-(\d{1,2})"
    r"(?:[T ](\d{1,2}):(\d{2})(?::(\d{2})(?:[.,]\d+)?)?\s*(Z|[+-]\d{2}:?\d{2})?)?"
)
_COMPACT_RE = re.compile(r"^(\d{4})(\d{2})(\d{2})(?:T?(\d{2})(\d{2})(\d{2})?)?\s*(Z|[+-]\d{2}:?\d{2})?$")
# /2024/03/15/, /2024-03-15-, /20240315/ in a URL path.
_URL_DATE_RE = re.compile(r"/((?:19|20)\d{2})[/_-]([01]?\d)[/_-]([0-3]?\d)(?:[/_.-]|$)")
_URL_COMPACT_RE = re.compile(r"/((?:19|20)\d{2})([01]\d)([0-3]\d)(?:[/_.-]|$)")
_EPOCH_RE = re.compile(r"^\d{10}(?:\d{3})?$")
_DIGIT_RE = re.compile(r"\d")
#: Text that reads as a date: a day, a month's name and a four-digit year ("Jan 3, 2024",
#: "15. März 2024", "2023 Jan 7"), or a numeric date with such a year ("2024-03-15",
#: "15.03.2024", "3/15/2024"). "2.3.10 no changes", "9.5/10" and "February 2026" are not.
_MONTH = (
    r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|januar|februar|märz|mai|juni|juli|okt|"
    r"dez|janv|févr|mars|avr|juin|juil|août|déc|ene|abr|ago|dic|gen|mag|giu|lug|set|ott)[a-zé]*\.?"
)
_DAY = r"[0-3]?\d(?:st|nd|rd|th)?\.?"
_YEAR = r"(?:19|20)\d\d(?!\d)"
DATE_TEXT_RE = re.compile(
    rf"\b(?:{_DAY}\s*(?:of\s+|de\s+)?{_MONTH}\s*,?\s*{_YEAR}"  # 15 March 2024, 15. März 2024
    rf"|{_MONTH}\s*{_DAY}\s*,?\s*{_YEAR}"  # March 15, 2024; Jan. 3rd 2024
    rf"|{_YEAR}\s+{_MONTH}\s+{_DAY}"  # 2023 Jan 7
    rf"|{_YEAR}[-/.]\d\d?[-/.]\d\d?(?!\d)"  # 2024-03-15, 2024/03/15
    rf"|\d\d?[./-]\d\d?[./-]{_YEAR})",
    re.I,
)  # 15.03.2024, 3/15/2024
# A month's abbreviation with its full stop ("Jan. 17, 2025", "Sept. 3"), which htmldate's
# parser does not read: the three letters alone, which it does.
_MONTH_DOT_RE = re.compile(r"\b(jan|feb|mar|apr|jun|jul|aug|sep|oct|nov|dec)(?:t)?\.", re.I)
# A numeric day-month-year or month-day-year ("25/09/2025", "09/25/2025"), read when one of
# the two numbers cannot be a month; "03/04/2025" says neither, and is no date.
_DMY_RE = re.compile(r"\b(\d\d?)[./-](\d\d?)[./-]((?:19|20)\d\d)\b")


def normalize_date(value: object, now: datetime | None = None) -> str | None:
    """An ISO 8601 string for `value` (str, or a number of seconds since 1970), or None."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return _from_epoch(value, now)
    if not isinstance(value, str):
        return None
    text = value.strip()
    if not text or len(text) > MAX_DATE_CHARS:
        return None
    if _EPOCH_RE.match(text):
        return _from_epoch(int(text[:10]), now)
    match = _ISO_RE.search(text) or _COMPACT_RE.match(text)
    if match:
        return _iso(*match.groups(), now=now)
    inside = DATE_TEXT_RE.search(text)
    if inside is None:
        return None  # "2.3.10 no changes", "9.5/10": numbers, not a date
    if "." in text:
        text = _MONTH_DOT_RE.sub(r"\1", text)
        inside = DATE_TEXT_RE.search(text) or inside
    found = _text_date(text, now)
    if found is None and inside.group() != text:
        # "#1 · Jan 15, 2024": the date inside the furniture.
        found = _text_date(inside.group(), now)
    if found is None:
        found = _day_month(text, now)
    return found


def url_date(url: str | None, now: datetime | None = None) -> str | None:
    """The date in a URL's path (/2024/03/15/, /2024-03-15-slug, /20240315/), or None."""
    if not url:
        return None
    path = url.split("?", 1)[0].split("#", 1)[0]
    match = _URL_DATE_RE.search(path) or _URL_COMPACT_RE.search(path)
    return _iso(*match.groups(), now=now) if match else None


def _iso(
    year: str | int,
    month: str | int,
    day: str | int,
    hour: str | None = None,
    minute: str | None = None,
    second: str | None = None,
    offset: str | None = None,
    *,
    now: datetime | None = None,
) -> str | None:
    try:
        day_value = date(int(year), int(month), int(day))
    except ValueError:  # 0000-00-00, 2024-02-31
        return None
    if not _plausible(day_value, now):
        return None
    if hour is None:
        return day_value.isoformat()
    try:
        # (both patterns match a minute wherever they match an hour)
        stamp = datetime(
            day_value.year,
            day_value.month,
            day_value.day,
            int(hour),
            int(minute),  # type: ignore[arg-type]
            int(second or 0),
        )
    except ValueError:
        return day_value.isoformat()
    if offset:
        if offset == "Z":
            stamp = stamp.replace(tzinfo=timezone.utc)
        else:
            sign = -1 if offset[0] == "-" else 1
            digits = offset[1:].replace(":", "")
            try:
                delta = timedelta(hours=int(digits[:2]), minutes=int(digits[2:]))
                stamp = stamp.replace(tzinfo=timezone(sign * delta))
            except ValueError:
                pass
    # A midnight without an offset is a date written as a datetime.
    if stamp.tzinfo is None and stamp.hour == stamp.minute == stamp.second == 0:
        return day_value.isoformat()
    return stamp.isoformat()


def _plausible(day_value: date, now: datetime | None) -> bool:
    today = (now or datetime.now(timezone.utc)).date()
    # A day of slack: a page published "tomorrow" in a time zone ahead of ours.
    return day_value.year >= EARLIEST_YEAR and day_value <= today + timedelta(days=1)


def _from_epoch(seconds: float, now: datetime | None) -> str | None:
    if seconds > 1e11:  # milliseconds
        seconds /= 1000
    try:
        stamp = datetime.fromtimestamp(seconds, tz=timezone.utc)
    except (OverflowError, OSError, ValueError):
        return None
    return stamp.isoformat() if _plausible(stamp.date(), now) else None


def _day_month(text: str, now: datetime | None) -> str | None:
    """A numeric date whose order its numbers tell ("09/25/2025": 25 is no month)."""
    match = _DMY_RE.search(text)
    if match is None:
        return None
    first, second, year = (int(g) for g in match.groups())
    if first > 12 >= second:
        return _iso(year, second, first, now=now)
    if second > 12 >= first:
        return _iso(year, first, second, now=now)
    return None


def _text_date(text: str, now: datetime | None) -> str | None:
    """A date written in words or with dots ("March 15, 2024", "15.03.2024"), by htmldate."""
    if _try_date_expr is None or not _DIGIT_RE.search(text):
        return None
    latest = (now or datetime.now(timezone.utc)).replace(tzinfo=None) + timedelta(days=1)
    try:
        found = _try_date_expr(text, "%Y-%m-%d", False, datetime(EARLIEST_YEAR, 1, 1), latest)
    except Exception:  # noqa: BLE001 - a third-party parser must not cost the page
        return None
    return _iso(*found.split("-"), now=now) if found else None


try:  # the [metadata] extra
    from htmldate.extractors import try_date_expr as _try_date_expr
except ImportError:  # pragma: no cover - depends on the installation
    _try_date_expr = None  # type: ignore[assignment]  # without the extra: no dates in words
