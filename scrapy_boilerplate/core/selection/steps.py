"""What of a page's blocks is kept, after the model: one ordered list of small named steps.

`STEPS` runs in order over one `Selection` (the page, the block probabilities, the
options, the content mask); nothing decides a block outside it. The decoder's Viterbi pass
makes the mask and its rules clean it (scoring/decode.py), then each step corrects one kind
of mistake the block model makes on its own, keeping or dropping blocks in the mask in
place, and last the fallbacks (fallbacks.py) may replace the whole selection. The order
matters where two steps see the same blocks (cards before teasers: a related-posts run after
an article must not come back as a card group; tables before code blocks: a <pre> inside a
data table is the table's). Adding a step is one function here and one line in `STEPS`
(CONTRIBUTING.md). Each is described in docs/extraction.md; its measurements are in its
commit message.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, fields, replace
from typing import TYPE_CHECKING

import numpy as np

from ..document.elements import FLAG
from ..document.page import Page
from ..metadata.bylines import BYLINE_RE
from ..metadata.title import best_title
from ..options import Options
from ..scoring import decode as decoder
from ..scoring.decode import DEFAULT_DECODER, DecoderParams
from .cards import keep_card_groups
from .code_blocks import CodeBlock, find_code_blocks
from .decoded import RELAXED_DECODE, add_comments, drop_ad_links, drop_captions, near_empty_fallback
from .fallbacks import stated_kept, thread_page
from .kept import SITE_MEMORY, SITE_SELECTOR, STATED_BODY, Kept
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


#: A page's probabilities from the model (the extractor's `block_probabilities`; training's
#: model being tuned): what the thread re-walk scores the page walked again with.
Scorer = Callable[[Page], np.ndarray]


@dataclass
class Selection:
    """What the steps read and change: `mask` (the kept blocks) is changed in place; a fallback
    may replace the whole selection with a better one (`adopt`)."""

    page: Page
    proba: np.ndarray  # the block probabilities the decoder and the steps read
    params: JsonObject | None  # the model's decoder parameters
    options: Options  # the extraction's options
    title: str | None  # the page's headline (metadata/title.py)
    tables: list[Table]  # the data tables, decided whole
    evidence: TemplateEvidence | None = None  # the site memory's, when a store was given
    rule: SiteRule | None = None  # the site selectors of this page, when there are some
    url: str | None = None  # the page's URL, for the extraction (absolute links)
    score: Scorer | None = None  # the model, for a page walked again (None: no re-walk)
    steps: tuple[Step, ...] = ()  # the steps this selection runs (`select`: STEPS)
    # None until the decoder sets it: the steps before it change the probabilities only.
    mask: np.ndarray = None  # type: ignore[assignment]
    # The decoder's parameters: the defaults with the model's (`decode` sets them).
    decoder: DecoderParams = DEFAULT_DECODER
    code_blocks: list[CodeBlock] = field(default_factory=list)
    # The mask after each step from the decoder on, with that step's reason (as bytes), for
    # `step_reasons`: which step decided. None: the blocks are not a selection's (a stated body).
    history: list[tuple[str, bytes]] | None = field(default_factory=list)
    # The probabilities `Block.probability` reports: the model's, as the site memory moved them
    # (not the site rule's zeros); and how far the site memory moved them (None: not at all).
    probability: np.ndarray = field(init=False)
    shift: np.ndarray | None = None
    # What the site rule allows (None: everything) and its summary (`SiteRule.apply`).
    allowed: np.ndarray | None = None
    site_rule: RuleSummary | None = None
    # The page as it was first walked: the fallbacks read its tree and its JSON-LD.
    document: Page = field(init=False)
    # The extraction of the selection as it is, once a fallback or the caller made it.
    made: Extraction | None = None

    def __post_init__(self) -> None:
        self.probability = self.proba
        self.document = self.page

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

    def extraction(self) -> Extraction:
        """The extraction of what is selected now (made once: the fallbacks compare its text,
        the extractor returns it)."""
        if self.made is None:
            from ..extraction import build_extraction, empty_extraction

            if self.mask is None:  # a page without blocks: the steps did not run
                self.made = empty_extraction(self.page, self.title, self.url)
            else:
                self.made = build_extraction(self.kept(), self.url, self.options)
        return self.made

    def adopt(self, other: Selection) -> None:
        """Take `other`'s page and decisions (a fallback's better selection of the same document)."""
        for f in fields(self):
            if f.name not in ("steps", "document"):
                setattr(self, f.name, getattr(other, f.name))


def select(
    page: Page,
    proba: np.ndarray,
    params: JsonObject | None,
    options: Options,
    title: str | None,
    *,
    evidence: TemplateEvidence | None = None,
    rule: SiteRule | None = None,
    url: str | None = None,
    score: Scorer | None = None,
    steps: tuple[Step, ...] | None = None,
) -> Selection:
    """Run `steps` (STEPS) in order: what is kept is `.mask` of `.page`, with `.tables` and
    `.code_blocks`; `.extraction()` is its extraction. Inference (core/extractor.py) and the
    decoder's tuning in training both call this. On a page without blocks only the fallbacks run."""
    if steps is None:
        steps = STEPS
    s = Selection(page, proba, params, options, title, find_data_tables(page), evidence, rule, url, score, steps)
    blocks = len(page) > 0
    # The mask's bytes after each step (0.2 us a step: cheaper than a numpy row copy); what each
    # step changed is worked out only when `Extraction.blocks` is read (step_reasons).
    for step in steps:
        if step.fallback:
            step.run(s)
        elif blocks:
            step.run(s)
            s.made = None  # (a step after a fallback would change what it made)
            if s.mask is not None and s.history is not None:
                s.history.append((step.reason or "", s.mask.tobytes()))
    return s


# -- the decoder's steps (scoring/decode.py): Authors write content contiguously, so blocks are
# not decided one by one; then rules for the segments, headings and tail the Viterbi pass leaves.


def decode(s: Selection) -> None:
    """The decoder's Viterbi pass over the blocks' log-odds (scoring/decode.py): switching between
    content and boilerplate costs something, which fills short gaps and removes isolated false
    positives."""
    s.decoder = DecoderParams.of(s.params)
    s.mask = decoder.viterbi_mask(s.proba, s.page.arrays.chars, s.decoder, s.options.favor)


def cut_unlikely(s: Selection) -> None:
    """The decoder's probability cut: blocks the model is sure are boilerplate are not kept as
    part of a content run ("Advertisement" inside the body; `min_probability`)."""
    decoder.cut_unlikely(s.mask, s.proba, s.decoder.min_probability)


def drop_far_segments(s: Selection) -> None:
    """Drop segments far smaller than the main body and far from it (`min_segment_share`,
    `max_gap`; a data table counts as one block of distance): bodies split by ad slots stay,
    stray widgets do not."""
    spans = [(t.first, t.last) for t in s.tables]
    s.mask = decoder.drop_far_segments(
        s.mask, s.page.arrays.chars, s.decoder.min_segment_share, s.decoder.max_gap, spans
    )


def keep_subheadings(s: Selection) -> None:
    """A subheading directly followed by content, inside the content span, is content."""
    decoder.keep_headings(s.mask, s.page)


def trim_tail(s: Selection) -> None:
    """Drop trailing headings, link lists and end markers at the end of the content."""
    decoder.trim_tail(s.mask, s.page)


def keep_closing_line(s: Selection) -> None:
    """Keep a closing line just under the threshold in the container of the last kept block (a
    sign-off: nothing follows to carry it over the gap). A rule for recall: not with
    favor="precision"."""
    if s.options.favor != "precision":
        decoder.extend_tail(s.mask, s.proba, s.page)


def fill_body_gaps(s: Selection) -> None:
    """Keep the paragraphs between kept blocks the model leans to: just under the threshold in
    the container of the kept block before them, over it anywhere. A rule for recall: not with
    favor="precision"."""
    if s.options.favor != "precision":
        decoder.fill_body_gaps(s.mask, s.proba, s.page, s.decoder.threshold)


def decoder_steps(steps: tuple[Step, ...]) -> tuple[Step, ...]:
    """The decoder's steps among `steps`: from `decode` up to `decode_near_empty`, which runs them
    again relaxed (those of them a run of the cross-validation's --eliminate left)."""
    names = [step.name for step in steps]
    return steps[names.index(decode.__name__) : names.index(decode_near_empty.__name__)]


def decode_near_empty(s: Selection) -> None:
    """Where the decoder kept next to nothing: a tiny page keeps its non-link text, a page of
    short items is decoded again, relaxed: the decoder's steps again (those from `decode` to
    this one) with RELAXED_DECODE (decoded.py). Right after them: it reads their mask."""

    def relaxed() -> np.ndarray:
        again = replace(s, params={**(s.params or {}), **RELAXED_DECODE}, history=[], made=None)
        for step in decoder_steps(s.steps):
            step.run(again)
        return again.mask

    s.mask = near_empty_fallback(s.page, s.mask, relaxed)


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


def rewalk_thread(s: Selection) -> None:
    """Next to nothing outside comment sections, or a page that says it is a thread: on a forum
    thread or a page of reader posts, the "comments" are the content. The page walked again
    with them (fallbacks.py) is selected by the steps before the fallbacks, and taken if that
    finds more text (comment sections are not forced in). Its blocks keep the reasons of that
    selection."""
    page = s.document
    full = thread_page(page, len(s.extraction().text), s.options.include_comments)
    if full is None or s.score is None:
        return
    proba = s.score(full) if len(full) else np.zeros(0)
    steps = tuple(step for step in s.steps if not step.fallback)
    again = select(
        full,
        proba,
        s.params,
        s.options,
        best_title(full),
        evidence=s.evidence,
        rule=s.rule,
        url=s.url,
        score=s.score,
        steps=steps,
    )
    if len(again.extraction().text) > len(s.extraction().text):
        s.adopt(again)


def use_stated_body(s: Selection) -> None:
    """Next to nothing found in the markup of a page that states its body in JSON-LD (a
    client-rendered page): the stated body is the content (fallbacks.py), taken if it is longer.
    Not where a site rule matched: the rule says where the content is in the markup."""
    found = s.extraction()
    kept = stated_kept(s.document, len(found.text), s.site_rule, found.title)
    if kept is None:
        return
    from ..extraction import build_extraction

    stated = build_extraction(kept, s.url, s.options)
    if len(stated.text) > len(found.text):
        s.page, s.mask, s.probability, s.tables = kept.page, kept.mask, kept.probability, kept.tables
        s.code_blocks, s.history, s.shift, s.site_rule, s.made = [], None, None, kept.site_rule, stated


@dataclass(frozen=True)
class Step:
    """A selection step: `run` reads and changes a `Selection`; `reason` is what `Block.reason`
    says of the blocks whose decision it changed last; `words`, what the explain page says of
    that reason (None: the words an earlier entry gave the same reason). A `fallback` reads the
    extraction made so far and may replace the selection: it runs on a page without blocks too,
    records no mask of its own, and the blocks it brings have the reasons it gives them (None:
    those of the selection that made them)."""

    run: Callable[[Selection], None]
    reason: str | None
    words: str | None = None
    fallback: bool = False

    @property
    def name(self) -> str:
        """The step's name: its function's (benchmarks/cv.py --eliminate names steps by it)."""
        return self.run.__name__


#: Everything that decides a block, in the order it runs: the probabilities' adjustments (before
#: the decoder, no mask yet), the decoder's steps, the steps, the site rule's last word, the
#: fallbacks. Each entry declares its function, its reason and the explain page's words for it:
#: adding a step is one function above and one line here (CONTRIBUTING.md), and a line in the
#: table of docs/extraction.md (tests/unit/test_explain.py checks them).
STEPS: tuple[Step, ...] = (
    Step(
        adjust_by_site_memory, SITE_MEMORY, "the site memory moved its probability (it repeats across the site's pages)"
    ),
    Step(apply_site_rule, SITE_SELECTOR, "a per-site selector"),
    Step(decode, "model", "the block model and the decoder's Viterbi pass"),
    Step(cut_unlikely, "unlikely", "the model is sure it is not content: not kept in a content run"),
    Step(drop_far_segments, "far_segment", "a small segment far from the main body is dropped"),
    Step(keep_subheadings, "subheading", "a subheading followed by content is kept"),
    Step(trim_tail, "tail", "a heading or link line at the end of the content is dropped"),
    Step(keep_closing_line, "closing_line", "a closing line in the last kept block's container is kept"),
    Step(fill_body_gaps, "body_gap", "a paragraph the model leans to, between kept blocks, is kept"),
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
    Step(rewalk_thread, None, fallback=True),
    Step(
        use_stated_body,
        STATED_BODY,
        "the body the page states in its JSON-LD (the markup held next to nothing)",
        fallback=True,
    ),
)
#: Every reason the steps give, with its words, in their order.
REASONS = {step.reason: step.words for step in STEPS if step.reason is not None and step.words}
