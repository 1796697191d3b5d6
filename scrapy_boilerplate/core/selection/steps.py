"""What of a page's blocks is kept, after the model: one ordered list of small named steps.

`STEPS` runs in order over one `Selection` (the page, the block probabilities, the
options, the content mask): the decoder makes the mask (decoded.py), then each step
corrects one kind of mistake the block model makes on its own, keeping or dropping
blocks in the mask in place. The order matters where two steps see the same blocks
(cards before teasers: a related-posts run after an article must not come back as a
card group; tables before code blocks: a <pre> inside a data table is the table's).
Adding a step is one function here and one line in `STEPS` (CONTRIBUTING.md). Each is
described in docs/extraction.md; its measurements are in its commit message.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from ..document.elements import FLAG
from ..document.page import Page
from ..metadata.bylines import BYLINE_RE
from ..options import Options
from .cards import keep_card_groups
from .code_blocks import CodeBlock, find_code_blocks
from .decoded import add_comments, decoded_mask, drop_ad_links, drop_captions, near_empty_fallback
from .fallbacks import Run, rewalk_thread, use_stated_body
from .kept import Kept
from .line_numbers import find_line_numbers, with_listings
from .lists import fill_definition_list_gaps, fill_list_gaps
from .sections import keep_last_section
from .siblings import keep_sibling_sections
from .site_rules import SiteRule, plain_text_blocks
from .tables import Table, decide_tables, find_data_tables
from .widgets import keep_text_widget_runs

if TYPE_CHECKING:
    from ..document.page import Tokens
    from ..extraction import Extraction
    from ..jsondata import JsonObject
    from ..site_memory.templates import TemplateEvidence
    from .site_rules import RuleSummary

#: Kept blocks this long whose text repeats under other ids and classes are second renderings.
REPEAT_MIN_CHARS = 60
#: A teaser: a linked title, then an excerpt cut short ("...", "…", "[…]").
TEASER_END_RE = re.compile(r"(?:\.\.\.|…|\[…\]|\[\.\.\.\])\s*$")
#: This many sibling teasers after at least TEASER_BODY_CHARS of body are a related-posts list.
TEASER_RUN = 3
TEASER_BODY_CHARS = 500
#: A kept block shorter than this that reads as a byline is not content.
BYLINE_MAX_CHARS = 80
#: A news story's closing credit line: "Additional reporting by ...; Editing by ...", "Jane Doe
#: contributed to this report."
CREDIT_RE = re.compile(
    r"^\(?(?:(?:additional|further)\s+)?(?:reporting|writing|editing|research)\s+by\b"
    r"|^with\s+(?:additional\s+)?reporting\s+(?:by|from)\b"
    r"|^[^.]{3,160}\bcontributed\s+(?:additional\s+)?(?:reporting\s+)?to\s+this\s+(?:report|article|story)\b",
    re.IGNORECASE,
)
#: ... kept when it is this short and this many blocks or fewer after the last kept block.
CREDIT_MAX_CHARS = 300
CREDIT_NEAR_BLOCKS = 2


@dataclass
class Selection:
    """What the steps read and change: `mask` (the kept blocks) is changed in place."""

    page: Page
    proba: np.ndarray  # the block probabilities the decoder and the steps read
    params: JsonObject | None  # the model's decoder parameters
    options: Options  # the extraction's options
    title: str | None  # the page's headline (metadata/title.py)
    tables: list[Table]  # the data tables, decided whole
    evidence: TemplateEvidence | None = None  # the site memory's, when a store was given
    rule: SiteRule | None = None  # the site selectors of this page, when there are some
    # None until the decoder sets it: the steps before it change the probabilities only.
    mask: np.ndarray = None  # type: ignore[assignment]
    code_blocks: list[CodeBlock] = field(default_factory=list)
    # The mask after each step from the decoder on (row k: after MASK_STEPS[k], as bytes), for
    # `step_reasons`: which step decided.
    history: list[bytes] = field(default_factory=list)
    # The probabilities `Block.probability` reports: the model's, as the site memory moved them
    # (not the site rule's zeros); and how far the site memory moved them (None: not at all).
    probability: np.ndarray = field(init=False)
    shift: np.ndarray | None = None
    # What the site rule allows (None: everything) and its summary (`SiteRule.apply`).
    allowed: np.ndarray | None = None
    site_rule: RuleSummary | None = None

    def __post_init__(self) -> None:
        self.probability = self.proba

    def kept(self) -> Kept:
        """What the selection kept, for the extraction (extraction.py build_extraction)."""
        return Kept(
            self.page,
            self.mask,
            self.probability,
            self.title,
            self.tables,
            self.code_blocks,
            self.history,
            self.shift,
            self.site_rule,
        )


def select(
    page: Page,
    proba: np.ndarray,
    params: JsonObject | None,
    options: Options,
    title: str | None,
    *,
    evidence: TemplateEvidence | None = None,
    rule: SiteRule | None = None,
) -> Selection:
    """Run STEPS in order: the kept blocks are `.mask`, with `.tables` and `.code_blocks`.
    Inference and the decoder's tuning in training both call this."""
    s = Selection(page, proba, params, options, title, find_data_tables(page), evidence, rule)
    # The mask's bytes after each step (0.2 us a step: cheaper than a numpy row copy); what each
    # step changed is worked out only when `Extraction.blocks` is read (step_reasons).
    history = s.history
    for step in STEPS:
        step.run(s)
        if s.mask is not None:
            history.append(s.mask.tobytes())
    return s


def decode(s: Selection) -> None:
    """The decoder's mask from the probabilities (decoded.py). Data tables are decoded as spans."""
    s.mask = decoded_mask(s.page, s.proba, s.params, s.options, s.tables)


def decode_near_empty(s: Selection) -> None:
    """Where the decoder kept next to nothing: a tiny page keeps its non-link text, a page of
    short items is decoded again, relaxed (decoded.py). Right after decode: it reads its mask."""
    s.mask = near_empty_fallback(s.page, s.mask, s.proba, s.params, s.options, s.tables)


def drop_ad_units(s: Selection) -> None:
    """Drop an ad unit's click-through link, even in the middle of an article (decoded.py)."""
    s.mask = drop_ad_links(s.page, s.mask)


def drop_photo_captions(s: Selection) -> None:
    """Captions are not content by default; include_captions keeps those within the content
    (decoded.py)."""
    s.mask = drop_captions(s.page, s.mask, s.options)


def keep_comments(s: Selection) -> None:
    """include_comments: the comment sections are content (decoded.py)."""
    s.mask = add_comments(s.page, s.mask, s.options)


def keep_text_widgets(s: Selection) -> None:
    """Keep a page builder's text widgets around the kept content: one article cut into
    widget sections (widgets.py). Like the decoder's closing-line and mid-body rules, a rule
    for recall: not with favor="precision"."""
    if s.options.favor != "precision":
        keep_text_widget_runs(s.page, s.mask, s.proba)


def keep_last_heading_section(s: Selection) -> None:
    """Keep a last section cut off behind a heading-like line the model scores low (sections.py):
    "Related products and services" in a `div` right after the last kept block, then the list
    items and paragraphs the model leans to, which the decoder cut with it. Not under h1-h6
    (left to the decoder). A rule for recall: not with favor="precision"."""
    if s.options.favor != "precision":
        keep_last_section(s.page, s.mask, s.proba)


def keep_document_sections(s: Selection) -> None:
    """Keep a document's sections beside the ones the model kept, each decided as a unit
    (siblings.py): a reference page's or a manual's later sections ("HOOKS", "FILES") score
    lower block by block along the page and were cut. After keep_cards, whose card groups are
    judged against the text the model kept, and drop_trailing_teasers. A rule for recall: not
    with favor="precision"."""
    if s.options.favor != "precision":
        keep_sibling_sections(s.page, s.mask, s.proba)


def drop_headline_and_bylines(s: Selection) -> None:
    """Drop the headline and bylines: the headline is not main content (it is `title`;
    include_title puts it first), and neither is a byline ("By Jane Doe · 2 March 2026"): no
    gold set keeps them."""
    page, mask, title = s.page, s.mask, s.title
    for i in np.flatnonzero(mask):
        if page.tags[i] == "h1" and page.texts[i] in (title, page.main_title):
            mask[i] = False
        elif page.chars[i] < BYLINE_MAX_CHARS and BYLINE_RE.match(page.texts[i]):
            mask[i] = False


def drop_renderings(s: Selection) -> None:
    """Unselect a second rendering of the same text: a kept block of REPEAT_MIN_CHARS or more
    whose text a kept block before it already has, under other ids and classes (a site's
    mobile and desktop variants of one article, a reply's preview of the post above it). A
    repeat under the same ids and classes is the page's own (a chorus, a repeated note)."""
    page, mask = s.page, s.mask
    first_path: dict[str, Tokens] = {}
    for i in np.flatnonzero(mask):
        if page.chars[i] < REPEAT_MIN_CHARS:
            continue
        path = first_path.setdefault(page.texts[i], page.tokens[i])
        if path != page.tokens[i]:
            mask[i] = False


def keep_cards(s: Selection) -> None:
    """Keep groups of repeated cards inside or next to the kept content whole (cards.py): the
    model keeps some cards of a list and drops others. Before drop_trailing_teasers: a
    related-posts run after an article must not come back as a card group."""
    keep_card_groups(s.page, s.mask)


def drop_trailing_teasers(s: Selection) -> None:
    """Unkeep runs of sibling teasers that follow the body (a related-posts list with excerpts).

    Their excerpts are prose, so the model keeps them. On a listing page the teasers are the
    content: a run goes only when the kept text before it is at least TEASER_BODY_CHARS and
    half the run's.
    """
    page, mask = s.page, s.mask
    kept = np.flatnonzero(mask).tolist()
    if len(kept) <= TEASER_RUN:
        return
    texts, chars, link_chars = page.texts, page.chars, page.link_chars
    teasers = [i for i in kept if 10 <= link_chars[i] < chars[i] and TEASER_END_RE.search(texts[i]) is not None]
    if len(teasers) < TEASER_RUN:
        return
    parent = {i: page.node_parents[page.nodes[i]] for i in teasers}
    position = {i: k for k, i in enumerate(kept)}
    # Runs of teasers that follow each other among the kept blocks, under one parent.
    runs: list[list[int]] = []
    run: list[int] = []
    for i in teasers:
        if run and position[i] == position[run[-1]] + 1 and parent[i] == parent[run[-1]]:
            run.append(i)
        else:
            runs.append(run)
            run = [i]
    runs.append(run)
    teaser_set = set(teasers)
    for run in runs:
        if len(run) < TEASER_RUN:
            continue
        body = sum(chars[j] for j in kept if j < run[0] and j not in teaser_set)
        if body >= max(TEASER_BODY_CHARS, sum(chars[j] for j in run) / 2):
            mask[run] = False


def keep_whole_lists(s: Selection) -> None:
    """Keep the dropped items of a list between two kept items of it, where the items are
    alike and short and the list is not a list of links (lists.py): the model, which sees each
    item alone, cuts a list of short items in the middle. A list of links in the body stays a
    judgement of its own, as do long items (forum posts). After drop_trailing_teasers: the
    teasers it unkept are not a gap to fill."""
    fill_list_gaps(s.page, s.mask)


def keep_definition_lists(s: Selection) -> None:
    """Keep definition lists dropped whole between kept blocks (lists.py): a review's pros and
    cons (`<dl><dt>Pros</dt><dd>Low price</dd>...`) between two kept sections are short items
    the model drops one by one, and the gap is too long for the decoder to fill. Only where the
    whole gap is definition lists and their text is likely content on average: a forum post's
    "Joined / Messages" box between two posts is not."""
    fill_definition_list_gaps(s.page, s.mask, s.proba)


def keep_credit_line(s: Selection) -> None:
    """Keep a story's closing credit line right after the kept body ("Additional reporting by
    Steve Gorman; Editing by ...", "Heba Habib contributed to this report."): every gold set
    keeps it as the body's last line, but in a `div` of its own after the last paragraph, short
    and full of names, the model scores it under the threshold. Only within CREDIT_NEAR_BLOCKS
    of the last kept block and outside navigation and footers."""
    page, mask = s.page, s.mask
    kept = np.flatnonzero(mask)
    if not kept.size:
        return
    off = FLAG["nav"] | FLAG["footer"]
    for i in range(kept[-1] + 1, min(len(page), kept[-1] + 1 + CREDIT_NEAR_BLOCKS)):
        if page.chars[i] <= CREDIT_MAX_CHARS and not page.flags[i] & off and CREDIT_RE.match(page.texts[i]) is not None:
            mask[i] = True
            return


def decide_data_tables(s: Selection) -> None:
    """One decision per data table, all its blocks content or none (tables.py): the block
    model, which sees each cell alone, drops short cells one by one."""
    decide_tables(s.tables, s.mask, s.proba, s.page)


def decide_code_blocks(s: Selection) -> None:
    """One decision per code block: a highlighter that puts each line in a <div> makes many
    short blocks that the model drops one by one, like table cells (code_blocks.py)."""
    s.code_blocks = find_code_blocks(s.page, s.tables)
    decide_tables(s.code_blocks, s.mask, s.proba, s.page)


def drop_line_numbers(s: Selection) -> None:
    """A code listing's line numbers are not text (line_numbers.py): a gutter of numbers beside
    the code is dropped, whatever the model said of it, and the code is written whole, in
    order, as one code block; numbers at the start of every line of a <pre> are taken out of
    its text. A listing of several blocks is decided whole, as a code block is."""
    found = find_line_numbers(s.page)
    if not found.listings and not found.gutters:
        return
    decide_tables([c for c in found.listings if c.last - c.first > 1], s.mask, s.proba, s.page)
    s.code_blocks = with_listings(s.page, s.code_blocks, found)
    # A table of lines may have passed for a data table: it is the listing.
    s.tables = [t for t in s.tables if not any(c.first < t.last and t.first < c.last for c in found.listings)]
    s.mask[found.gutters] = False


def keep_listing_captions(s: Selection) -> None:
    """Keep the caption of a code listing or a table whose code or cells are kept.

    Captions are left out as a photo's are, but "Listing 10-3: A trait with a default method"
    under a code sample (mdBook, technical books) names what the reader is looking at, as a
    table's <caption> does. Only a <figcaption> that is a child of the listing's <figure> is
    kept: a figure may also wrap a whole section with its photos and their captions. Not with
    include_captions: every caption is kept then.
    """
    if s.options.include_captions:
        return
    page, mask = s.page, s.mask
    tags, flags, unit = page.node_tags, page.flags, FLAG["pre"] | FLAG["table"]
    first, last, parents = page.node_first, page.node_last, page.node_parents
    for node in page.node_tag_positions("figcaption"):
        figure = parents[node]
        if (
            figure >= 0
            and tags[figure] == "figure"
            and any(mask[i] and flags[i] & unit for i in range(first[figure], last[figure]))
        ):
            mask[first[node] : last[node]] = True


def adjust_by_site_memory(s: Selection) -> None:
    """The site memory's evidence (site_memory/templates.py) moves the probabilities of blocks
    repeated across the site's pages. Before the decoder: no mask yet."""
    if s.evidence is not None:
        adjusted = s.evidence.adjust(s.page, s.proba)
        if adjusted is not s.proba:
            s.shift, s.proba = adjusted - s.proba, adjusted
            s.probability = adjusted


def apply_site_rule(s: Selection) -> None:
    """Site selectors (site_rules.py): the blocks outside the content or inside an excluded
    element are out before the decoder, which then cleans inside the content. Before the
    decoder: no mask yet."""
    if s.rule is not None:
        s.allowed, s.site_rule = s.rule.apply(s.page)
        if s.allowed is not None:
            s.proba = np.where(s.allowed, s.proba, 0.0)


def keep_within_site_rule(s: Selection) -> None:
    """Site selectors again after the steps, which may add whole tables or sections back."""
    if s.allowed is not None:
        s.mask &= s.allowed


def trust_site_rule(s: Selection) -> None:
    """The model keeps nothing where the caller says the content is: the caller wins, and the
    content's plain text is kept (site_rules.py plain_text_blocks)."""
    if s.allowed is not None and not s.mask.any():
        content = s.site_rule["content"] if s.site_rule is not None else None
        if content and content["blocks"]:
            s.mask = plain_text_blocks(s.page, s.allowed)


@dataclass(frozen=True)
class Step:
    """A selection step: `run` reads and changes a `Selection`; `reason` is what `Block.reason`
    says of the blocks whose decision it changed last; `words`, what the explain page says of
    that reason (None: the words an earlier entry gave the same reason)."""

    run: Callable[[Selection], None]
    reason: str
    words: str | None = None


@dataclass(frozen=True)
class Fallback:
    """A fallback after the steps (fallbacks.py): `run` may replace the finished extraction.
    `reason`, `words`: as a Step's, for the blocks of the extraction it makes; None when
    those blocks keep the reasons of the selection that made them."""

    run: Callable[[Run, Extraction], Extraction]
    reason: str | None = None
    words: str | None = None


#: Reasons given by more than one entry, or read elsewhere by name.
SITE_MEMORY, SITE_SELECTOR, STATED_BODY = "site_memory", "site_selector", "stated_body"

#: What decides a block, in the order it runs: the probabilities' adjustments (before the
#: decoder, no mask yet), the decoder, the steps, the site rule's last word, the fallbacks.
#: Each entry declares its function, its reason and the explain page's words for it: adding a
#: step is one function above and one line here (CONTRIBUTING.md), and a line in the table of
#: docs/extraction.md (tests/unit/test_explain.py checks them).
PIPELINE: tuple[Step | Fallback, ...] = (
    Step(
        adjust_by_site_memory, SITE_MEMORY, "the site memory moved its probability (it repeats across the site's pages)"
    ),
    Step(apply_site_rule, SITE_SELECTOR, "a per-site selector"),
    Step(decode, "model", "the block model and its decoder"),
    Step(decode_near_empty, "near_empty", "the decoder kept next to nothing: a tiny page's text, or a relaxed decode"),
    Step(drop_ad_units, "ad_link", "an ad unit's click-through link"),
    Step(drop_photo_captions, "caption", "a caption (include_captions keeps them)"),
    Step(keep_comments, "comment_option", "a comment section, kept by include_comments"),
    Step(keep_text_widgets, "text_widgets", "a page builder's text widgets around the content are kept"),
    Step(keep_last_heading_section, "last_section", "a last section behind a heading-like line is kept"),
    Step(drop_headline_and_bylines, "title_byline", "the headline or a byline is not content"),
    Step(drop_renderings, "repeated_text", "a second rendering of text already kept"),
    Step(keep_cards, "card_group", "a group of repeated cards is decided whole"),
    Step(drop_trailing_teasers, "teasers", "a run of related-post teasers after the body"),
    Step(
        keep_document_sections, "document_sections", "a section beside kept sections of a reference page is kept whole"
    ),
    Step(keep_whole_lists, "list_gap", "the gap in a list between two kept items is kept"),
    Step(keep_definition_lists, "definition_list", "definition lists between kept blocks are kept"),
    Step(keep_credit_line, "credit_line", "a closing credit line after the body is kept"),
    Step(decide_data_tables, "data_table", "a data table is decided whole"),
    Step(decide_code_blocks, "code_block", "a code block is decided whole"),
    Step(drop_line_numbers, "line_numbers", "a code listing's line numbers are not its text"),
    Step(keep_listing_captions, "listing_caption", "the caption of a kept code listing or table"),
    Step(keep_within_site_rule, SITE_SELECTOR),
    Step(trust_site_rule, SITE_SELECTOR),
    Fallback(rewalk_thread),
    Fallback(use_stated_body, STATED_BODY, "the body the page states in its JSON-LD (the markup held next to nothing)"),
)
#: The selection's steps in order (`select` runs them) and the fallbacks after it (the extractor's).
STEPS = tuple(entry for entry in PIPELINE if isinstance(entry, Step))
FALLBACKS = tuple(entry for entry in PIPELINE if isinstance(entry, Fallback))
#: The steps that run once the decoder made the mask: one row of `Selection.history` each.
MASK_STEPS = STEPS[[step.run for step in STEPS].index(decode) :]
#: Every reason the pipeline gives, with its words, in the pipeline's order.
REASONS = {entry.reason: entry.words for entry in PIPELINE if entry.reason is not None and entry.words}


def step_reasons(masks: list[bytes], shift: np.ndarray | None = None) -> list[str]:
    """Per block, the reason of the step that last changed its decision (`select`'s history):
    the decoder's ("model") for a block no later step changed, SITE_MEMORY for one of those whose
    probability the site memory moved (`shift`, adjusted minus raw) the way it was decided."""
    steps, n = len(masks), len(masks[0]) if masks else 0
    if not n:
        return []
    history = np.frombuffer(b"".join(masks), dtype=bool).reshape(steps, n)
    changed = history[1:] != history[:-1]  # row k: MASK_STEPS[k + 1] changed the block
    last = np.where(changed.any(axis=0), steps - 1 - np.argmax(changed[::-1], axis=0), 0)
    names = [step.reason for step in MASK_STEPS]
    reasons = [names[k] for k in last.tolist()]
    if shift is not None:
        kept = history[-1]
        toward = ((shift > 0) & kept) | ((shift < 0) & ~kept)
        for i in np.flatnonzero(toward & (last == 0)).tolist():
            reasons[i] = SITE_MEMORY
    return reasons
