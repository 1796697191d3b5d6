BOT_NAME = "courier"
SPIDER_MODULES = ["courier.spiders"]
NEWSPIDER_MODULE = "courier.spiders"

# The one line scrapy_boilerplate needs: overview pages are followed but yield
# no items, and every item gets the main text of its page in "main_text".
ADDONS = {"scrapy_boilerplate.Addon": 0}

FEEDS = {"articles.jsonl": {"format": "jsonlines", "encoding": "utf8", "overwrite": True}}

ROBOTSTXT_OBEY = True
USER_AGENT = "courier-example (a scrapy_boilerplate example project)"
# Polite and bounded on a real site (-a start_url=...); override with -s NAME=VALUE.
CONCURRENT_REQUESTS_PER_DOMAIN = 4
CLOSESPIDER_PAGECOUNT = 200
DEPTH_LIMIT = 3
LOG_LEVEL = "INFO"
