"""A small generated site where one template wraps different articles (site-memory tests).

Every page has the same navigation, "most read" box, donation appeal at the end of the
article body and footer; the headline and the article paragraphs differ from page to page.
"""

from __future__ import annotations

import random

WORDS = (
    "river council harbour budget school winter station market garden library bridge "
    "museum festival rail energy water forest village doctor teacher farmer season "
    "report plan vote city coast storm bakery mayor office program study island field "
    "children evening morning history road project network"
).split()

APPEAL = (
    "Our reporting depends on readers like you: a monthly contribution keeps the "
    "newsroom independent and every article free to read for everyone in the valley."
)
# At the end of the article body on every page, kept by the model on one page alone: site memory drops it.
PRINT_NOTE = "Published in the print edition of the Valley Courier."
MOST_READ = [
    "Harbour crane collapses during night shift, nobody hurt",
    "What the new tram timetable means for commuters in the north",
    "The bakery that has opened every morning since 1921",
]


def sentence(rng: random.Random) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(12, 22))]
    return " ".join(words).capitalize() + "."


def article(i: int, paragraphs: int = 5) -> tuple[str, list[str]]:
    """(headline, paragraphs) of article `i`: different words on every page."""
    rng = random.Random(i)
    title = f"Story {i}: " + " ".join(rng.choice(WORDS) for _ in range(6))
    return title, [" ".join(sentence(rng) for _ in range(rng.randint(3, 5))) for _ in range(paragraphs)]


def page_html(i: int, links: list[str] | None = None) -> str:
    title, paragraphs = article(i)
    body = "".join(f"<p>{p}</p>" for p in paragraphs)
    more = "".join(f'<li><a href="/news/{k}.html">{t}</a></li>' for k, t in enumerate(MOST_READ))
    links_html = "".join(f'<li><a href="{href}">Next story {n}</a></li>' for n, href in enumerate(links or []))
    return f"""<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{title} | Valley Courier</title></head>
<body>
<header><a href="/">Valley Courier</a><nav><ul><li><a href="/news/">News</a></li><li><a href="/sport/">Sport</a></li>
<li><a href="/culture/">Culture</a></li></ul></nav></header>
<div class="layout"><div class="main">
<h1>{title}</h1>
<div class="text">{body}
<p>{APPEAL}</p><p>{PRINT_NOTE}</p></div>
</div>
<div class="side"><h3>Most read</h3><ul>{more}</ul>
<p>Sign up for the morning briefing: the day's five stories from the valley in your inbox before
breakfast.</p></div></div>
<footer><ul class="next">{links_html}</ul><p>Valley Courier, 12 Mill Lane. All rights reserved.
Contact the newsroom for corrections.</p></footer>
</body></html>"""


def page_url(i: int, host: str = "courier.example") -> str:
    return f"http://{host}/news/story-{i}.html"
