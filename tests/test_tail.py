"""The failure tail: pages that used to come out empty or nearly so, by cause (see
docs/failure-tail.md). Each cause is tested on a small page made for it and, where the
development datasets are there, on the real pages that showed it.
"""

from __future__ import annotations

import pytest

from scrapy_boilerplate import extract
from scrapy_boilerplate.training.metrics import score_page

POSTS = [f"Post {i}: I tried the new firmware on my router last week and the connection drops "
         f"stopped after the second reboot, but the admin page is slower than before." for i in range(6)]


def page_with(body: str, title: str = "Thread") -> str:
    return (f"<html><head><title>{title}</title></head><body><header><nav><a href='/'>Home</a> "
            f"<a href='/forum'>Forum</a> <a href='/login'>Log in</a></nav></header>{body}"
            f"<footer><a href='/terms'>Terms</a> <a href='/privacy'>Privacy</a></footer></body></html>")


def test_a_thread_marked_up_as_comments_is_the_content():
    posts = "".join(f'<article class="post comment"><p>{p}</p></article>' for p in POSTS)
    html = page_with(f'<h1>Router firmware</h1><div id="comments">{posts}</div>')
    text = extract(html).text
    assert all(p in text for p in POSTS)
    # With comments off and an article beside them, the comments stay out as before.
    story = " ".join(f"Sentence {i} of a long article about routers and their firmware." for i in range(30))
    html = page_with(f'<article><h1>Routers</h1><p>{story}</p></article><div id="comments">{posts}</div>')
    text = extract(html).text
    assert story in text and not any(p in text for p in POSTS)


def test_a_list_of_short_teasers_is_not_empty():
    teasers = "".join(f'<div class="card"><h3><a href="/c/{i}">Course {i}: data science for beginners</a></h3>'
                      f'<p>Learn to clean data and fit simple models in six weeks.</p><span>$ {i}9</span></div>'
                      for i in range(12))
    text = extract(page_with(f"<main><h1>Courses</h1>{teasers}</main>", "Courses")).text
    assert text.count("Learn to clean data") >= 6


REAL = [
    ("wcxb-dev", "0559", 0.9),    # Vanilla forum: the thread in "Discussion"/"Comments" containers
    ("wcxb-dev", "0543", 0.6),    # IPS forum: the post feed inside id="comments"
    ("wcxb-dev", "4495", 0.6),    # a shop's collection of product cards
    ("wcxb-dev", "2911", 0.9),    # a job list in a table (Hacker News)
    ("readability", "js-link-replacement", 0.9),   # a tiny page of links only
]


@pytest.mark.parametrize("name, page_id, at_least", REAL)
def test_real_pages_that_came_out_empty(dataset_pages, name, page_id, at_least):
    page = dataset_pages(name, None, where=lambda p: p.id == page_id)[0]
    score = score_page(page, extract(page.read_html(), url=page.url).text)
    f1 = 2 * score.precision * score.recall / (score.precision + score.recall) if score.precision else 0.0
    assert f1 >= at_least, score
