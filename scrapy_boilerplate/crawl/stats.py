"""Seconds in Scrapy's stats: its StatsCollector adds any number, its annotations say int."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from scrapy.statscollectors import StatsCollector


def add_seconds(stats: StatsCollector, total: str, longest: str, seconds: float) -> None:
    """Adds `seconds` to the stat `total` and keeps the longest in `longest`."""
    stats.inc_value(total, seconds)  # type: ignore[arg-type]  # a float adds as an int does
    stats.max_value(longest, seconds)
