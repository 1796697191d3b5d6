"""ArticleSpider's files and reading beside the pages themselves (spiders.py, docs/links.md).

``seen`` (the article URLs yielded in earlier runs, checked at start-up and appended to).
"""
