"""An item pipeline for the crawl scripts run by the tests: it keeps every item on the spider."""

from __future__ import annotations


class Collector:
    """Last item pipeline: appends each item, as a dict, to the spider's `collected` list."""

    def __init__(self, crawler):
        self.crawler = crawler

    @classmethod
    def from_crawler(cls, crawler):
        return cls(crawler)

    def process_item(self, item):
        self.crawler.spider.collected.append(dict(item))
        return item
