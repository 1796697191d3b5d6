"""The selection is one ordered list (selection/steps.py STEPS): `extract()` runs every step of
it, the decoder's and the fallbacks included, and training tunes the decoder through the same
list, so that it tunes on what inference runs."""

from __future__ import annotations

import functools
import json

import numpy as np
import pytest

from scrapy_boilerplate import Extractor, extract
from scrapy_boilerplate.core.document.page import build_page
from scrapy_boilerplate.core.document.parse import parse_html
from scrapy_boilerplate.core.options import Options
from scrapy_boilerplate.core.selection import steps
from scrapy_boilerplate.core.selection.steps import STEPS, Step
from scrapy_boilerplate.training import recipes, train

POSTS = [
    f"Post {i}: I tried the new firmware on my router last week and the connection drops "
    f"stopped after the second reboot, but the admin page is slower than before."
    for i in range(6)
]
#: A forum thread marked up as comments: its content is found by the thread re-walk (a fallback).
THREAD = (
    "<html><head><title>Thread</title></head><body><header><nav><a href='/'>Home</a> "
    "<a href='/forum'>Forum</a> <a href='/login'>Log in</a></nav></header><h1>Router firmware</h1>"
    '<div id="comments">'
    + "".join(f'<article class="post comment"><p>{p}</p></article>' for p in POSTS)
    + "</div><footer><a href='/terms'>Terms</a> <a href='/privacy'>Privacy</a></footer></body></html>"
)
BODY = " ".join(f"Sentence {i} of the article a script draws in the browser from its data." for i in range(20))
#: A client-rendered page: no blocks in its markup, its body stated in JSON-LD (the other fallback).
CLIENT_RENDERED = (
    '<html><head><title>Drawn</title><script type="application/ld+json">'
    + json.dumps({"@type": "NewsArticle", "headline": "Drawn", "articleBody": BODY})
    + '</script></head><body><div id="app"></div></body></html>'
)


@pytest.fixture
def ran(monkeypatch) -> list[str]:
    """The names of the steps run from now on, in order (each step of STEPS wrapped to record it)."""
    names: list[str] = []

    def recorded(step: Step) -> Step:
        @functools.wraps(step.run)
        def run(s: steps.Selection) -> None:
            names.append(step.name)
            step.run(s)

        return Step(run, step.reason, step.words, step.fallback)

    monkeypatch.setattr(steps, "STEPS", tuple(recorded(step) for step in STEPS))
    return names


SELECTION = [step.name for step in STEPS if not step.fallback]


def test_the_list_holds_the_decoders_rules_and_the_fallbacks():
    names = [step.name for step in STEPS]
    decoder = ["decode", "cut_unlikely", "drop_far_segments", "keep_subheadings", "trim_tail"]
    assert names[names.index("decode") : names.index("decode") + 5] == decoder
    assert names[-2:] == ["rewalk_thread", "use_stated_body"]
    assert [step.name for step in STEPS if step.fallback] == ["rewalk_thread", "use_stated_body"]


def test_extract_runs_every_step_of_the_list_and_the_thread_rewalk_runs_it_again(ran):
    text = extract(THREAD).text
    assert POSTS[0] in text and POSTS[-1] in text  # the thread re-walk found the posts
    # Every step once, in order; the re-walk selects the page walked again with the same steps.
    assert ran == [*SELECTION, "rewalk_thread", *SELECTION, "use_stated_body"]


def test_a_page_without_blocks_runs_only_the_fallbacks(ran):
    result = extract(CLIENT_RENDERED)
    assert result.text.startswith("Sentence 0 of the article") and result.text.endswith("from its data.")
    assert {b.reason for b in result.blocks} == {"stated_body"}
    assert ran == ["rewalk_thread", "use_stated_body"]


def test_training_tunes_through_the_list_extract_runs(ran):
    extractor = Extractor()
    page = build_page(parse_html(THREAD))
    proba = extractor.block_probabilities(page)
    params = extractor.model.decode
    expected = extract(THREAD).text
    inference = list(ran)
    # The cross-validation's and train_recipe's tuning: the same steps, the same text.
    del ran[:]
    text = recipes.selection_text(page, proba, params, Options(), None, extractor.block_probabilities)
    assert text == expected
    assert ran == inference
    # train.py's tuning (the split recipe) scores the selection of the same steps.
    del ran[:]
    data = [train.PageData("t", "site", page, expected, np.zeros((len(page), 0)), np.ones(len(page)))]
    score = train.tuning_score(data, [proba], params, extractor.block_probabilities)
    assert ran == inference
    assert score == pytest.approx(1.0)  # the posts, as inference finds them (the gold here)


def test_a_decoder_rule_is_its_own_reason(monkeypatch):
    # Eight paragraphs of an article, then a sign-off the model scores at .6, under the shipped
    # threshold: the decoder's closing-line rule keeps it, and the block says so.
    story = "".join(f"<p>{f'Paragraph {i} of a story long enough to be kept by the model. ' * 4}</p>" for i in range(8))
    page = (
        f"<html><body><article>{story}<p>Best wishes, Franzi</p></article>"
        "<footer><a href='/terms'>Terms</a></footer></body></html>"
    )
    said = {"Best wishes, Franzi": 0.6, "Terms": 0.05}

    def probabilities(self, page):
        return np.array([said.get(text, 0.95) for text in page.texts])

    monkeypatch.setattr(Extractor, "block_probabilities", probabilities)
    extractor = Extractor()
    assert extractor.model.decode["threshold"] > 0.6
    blocks = extractor.extract(page).blocks
    assert blocks[8].text == "Best wishes, Franzi" and blocks[8].is_content
    assert blocks[8].reason == "closing_line"
    assert {b.reason for b in blocks[:8]} == {"model"}
