"""Dataset loading, metrics and model training for scrapy_boilerplate (no Scrapy imports)."""
