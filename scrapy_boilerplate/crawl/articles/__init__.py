"""ArticleSpider's reading of what is not a page, and its seen file (spiders.py, docs/links.md).

``feeds`` (the feeds a page announces, a feed's entry links), ``sitemaps`` (robots.txt's sitemaps,
a sitemap's URLs, gzip files), both read as a stream within caps by ``xml_stream``; ``seen`` (the
article URLs yielded in earlier runs, checked at start-up and appended to).
"""
