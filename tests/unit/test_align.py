"""Gold text -> block labels (training/align.py)."""

import numpy as np

from scrapy_boilerplate.training.align import block_coverage, block_labels

PARAGRAPHS = [
    "The river rose by two metres overnight after three days of heavy rain in the hills.",
    "Residents of the lower town were woken by sirens shortly before five in the morning.",
    "By noon the water had started to fall again and the first shops reopened their doors.",
    "Engineers will inspect the old stone bridge on Monday before it is opened to traffic.",
]
HEADING = "Flood warning"
GOLD = "\n".join([PARAGRAPHS[0], PARAGRAPHS[1], HEADING, PARAGRAPHS[2], PARAGRAPHS[3]])


def test_content_blocks_are_one_and_menu_items_zero():
    blocks = ["Home", "News", "Sport", "Weather", *PARAGRAPHS, "Contact us", "Privacy policy"]
    labels = block_labels(blocks, GOLD)
    assert labels.tolist() == [0, 0, 0, 0, 1, 1, 1, 1, 0, 0]
    assert labels.dtype == np.int8


def test_short_heading_between_content_paragraphs_is_content():
    blocks = ["Home", PARAGRAPHS[0], PARAGRAPHS[1], HEADING, PARAGRAPHS[2], PARAGRAPHS[3]]
    assert block_labels(blocks, GOLD).tolist() == [0, 1, 1, 1, 1, 1]


def test_short_word_far_from_content_is_not_content():
    # "Flood warning" is in the gold, but this copy sits in the menu, far from the article.
    blocks = [HEADING, "Home", "News", "Sport", "Weather", "Local", *PARAGRAPHS, "Contact us"]
    labels = block_labels(blocks, GOLD)
    assert labels[0] == 0
    assert labels[6:10].tolist() == [1, 1, 1, 1]


def test_short_block_needs_a_content_block_nearby():
    assert block_labels([HEADING], GOLD).tolist() == [0]


def test_mostly_foreign_long_block_is_not_content():
    mixed = PARAGRAPHS[0][:40] + " but then an unrelated sentence about football scores follows here"
    labels = block_labels([PARAGRAPHS[0], mixed, PARAGRAPHS[1]], GOLD)
    assert labels.tolist() == [1, 0, 1]


def test_matching_ignores_case_and_punctuation():
    shouted = PARAGRAPHS[2].upper().replace(" ", "  ").replace(".", "!")
    assert block_labels([shouted], GOLD).tolist() == [1]


def test_coverage_values():
    half = " ".join(PARAGRAPHS[0].split()[:8]) + " completely different words are written at the end"
    cover = block_coverage([PARAGRAPHS[0], half, "", "nothing like the gold text at all here"], GOLD)
    assert cover[0] == 1.0
    assert 0.2 < cover[1] < 0.8
    assert cover[2] == 0.0 and cover[3] == 0.0


def test_empty_inputs():
    assert block_labels([], GOLD).tolist() == []
    assert block_labels(["Some block of text with several words in it"], "").tolist() == [0]
