from dataclasses import dataclass


@dataclass
class Article:
    url: str
    title: str | None = None
    # Written by scrapy_boilerplate's pipeline (BOILERPLATE_TEXT_FIELD).
    main_text: str = ""
