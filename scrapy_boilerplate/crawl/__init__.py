"""The Scrapy side's internals, behind the components at the package's top level.

``response_pages`` (one walk of a response, shared by the middleware and the
pipeline), ``site_memory`` (the crawl's template store), and where the work
runs with BOILERPLATE_EXECUTOR = "process": ``workers`` (the crawl's pool),
``worker_pool`` (the processes) and ``tasks`` (what a worker runs).
``tasks`` and ``worker_pool`` import no Scrapy: worker processes import them.
"""
