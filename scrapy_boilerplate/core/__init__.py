"""The extraction algorithm. Imports no Scrapy: usable as a plain library.

The subpackages are its stages, in the order extractor.py runs them: document/ (parse, walk ->
Page), scoring/ (features, model, decoder), selection/ (what is kept after the decoder),
render/ (text, Markdown, HTML), metadata/ (article metadata); beside them overview/ (overview
pages) and site_memory/ (per-site template evidence). speedups.py lists the compiled twins.
"""
