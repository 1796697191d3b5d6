"""The extraction algorithm. Imports no Scrapy: usable as a plain library."""
