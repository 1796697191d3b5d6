"""CSS selectors matched right to left, with a bounded cost counted in elements tested.

cssselect's XPath of a selector with combinators (`.content p`, `p ~ p`) walks every path
from each match of the left part: on 250 nested `div.content` holding 20,000 `<p>` the one XPath
took 33 s, and `p ~ p` over 5,000 sibling paragraphs 23 s. Here a selector is cut into its
compound selectors (cssselect's parser), each one translated to XPath; the rightmost compound
finds its elements in one XPath over the tree (`descendant-or-self::p[...]`), and each one's
ancestors or preceding siblings are then tested against the compounds to its left
(`self::div[...]`), each (element, compound) result remembered. The cost is then at most the
tree's elements times the number of compounds, whatever the nesting.

Work is counted in elements tested (a test whose XPath counts siblings, `:nth-child` and the
like, also counts one for every SIBLINGS_PER_TEST siblings), not in seconds, so that whether a
page goes over :data:`MAX_WORK` does not depend on the machine's load. Going over raises
:class:`OverBudget`.

lxml runs one evaluation of a compiled XPath object at a time: the objects are compiled per
thread, so that threads sharing a rule never wait for each other.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from lxml import etree

if TYPE_CHECKING:
    from cssselect import HTMLTranslator

Tree = Any  # a node of cssselect's parsed tree (its classes share no base class)

#: Elements tested per rule and page before the rule is given up on that page. A page's walk
#: holds a few thousand elements; a selector of three compounds costs three tests an element at most.
MAX_WORK = 1_000_000

#: A document on which every compiled selector is evaluated once when it is made: an XPath that
#: compiles but cannot be evaluated (a namespace prefix, `ns|p`) fails there, not on every page.
_PROBE = '<html><body><div id="a" class="b"><p lang="en">x</p></div></body></html>'


#: An XPath that counts an element's siblings (`:nth-child`...) counts them in C: about 1/32 of
#: the time of an element's test here (measured: 0.04 us a sibling, 1.3-3.8 us a test).
SIBLINGS_PER_TEST = 32

_COUNT = "count(descendant-or-self::*)"


class OverBudget(Exception):
    """A selector's matching tested more than the budget's elements on a page."""


@dataclass(frozen=True)
class _Compound:
    """One compound selector (`div.content:not(.x)`): its tag, and the XPath that tests an element
    when the tag alone does not say (None: the tag is the whole test)."""

    tag: str | None  # None: any element
    test: str | None  # "self::...[...]" or None
    siblings: bool  # the test counts an element's siblings (positional pseudo-classes)
    scan: str  # "descendant-or-self::...[...]": the elements it matches in a tree


@dataclass(frozen=True)
class _Chain:
    """A selector without commas: compounds left to right and the combinators between them."""

    compounds: tuple[_Compound, ...]
    combinators: tuple[str, ...]  # combinators[i] joins compounds[i] and compounds[i + 1]


class CompiledSelector:
    """A CSS selector ready to match (see the module docstring); ValueError when it is not one."""

    def __init__(self, css: str) -> None:
        from cssselect import HTMLTranslator, parse
        from cssselect.parser import SelectorError
        from cssselect.xpath import ExpressionError

        if not isinstance(css, str) or not css.strip():
            raise ValueError(f"invalid CSS selector {css!r}: an empty selector")
        self.css = css
        translator = HTMLTranslator()
        try:
            translator.css_to_xpath(css)  # cssselect's own checks and messages (pseudo-elements...)
            self.chains = tuple(_chain(translator, selector.parsed_tree) for selector in parse(css))
        except (SelectorError, ExpressionError) as exc:
            raise ValueError(f"invalid CSS selector {css!r}: {exc}") from None
        self._local = threading.local()
        probe = etree.fromstring(_PROBE, etree.HTMLParser())  # made here: nothing at import
        try:
            for chain in self.chains:
                for compound in chain.compounds:
                    self._xpath(compound.scan)(probe)
                    if compound.test is not None:
                        self._xpath(compound.test)(probe)
        except etree.XPathError as exc:
            raise ValueError(f"invalid CSS selector {css!r}: {exc}") from None

    def _xpath(self, test: str) -> etree.XPath:
        """The compiled XPath of `test` for this thread (lxml serialises calls of one object)."""
        compiled = getattr(self._local, "xpaths", None)
        if compiled is None:
            compiled = self._local.xpaths = {}
        xpath = compiled.get(test)
        if xpath is None:
            xpath = compiled[test] = etree.XPath(test)
        return xpath

    def select(self, root: etree._Element, budget: _Budget) -> list[etree._Element]:
        """The elements under `root` (itself included) the selector matches, in document order."""
        found = [_Matcher(chain, self._xpath, budget).select(root) for chain in self.chains]
        if len(found) == 1:
            return found[0]
        union = set().union(*found)
        return [el for el in root.iter() if el in union]


class _Budget:
    """Elements tested so far, against a limit (shared by a rule's selectors on one page)."""

    def __init__(self, limit: int | None = None) -> None:
        self.limit = MAX_WORK if limit is None else limit
        self.spent = 0
        self._sizes: dict[etree._Element, int] = {}

    def scan(self, root: etree._Element, count: etree.XPath) -> None:
        """Count the test of every element of the tree (`count`: the _COUNT XPath, compiled)."""
        size = self._sizes.get(root)
        if size is None:
            size = self._sizes[root] = int(count(root))
        self.spend(size)

    def spend(self, n: int) -> None:
        self.spent += n
        if self.spent > self.limit:
            raise OverBudget(self.limit)


def new_budget(limit: int | None = None) -> _Budget:
    return _Budget(limit)


class _Matcher:
    """One chain on one page, its results remembered by (element, compound)."""

    def __init__(self, chain: _Chain, xpath: Callable[[str], etree.XPath], budget: _Budget) -> None:
        self.chain = chain
        self.budget = budget
        self.xpath = xpath
        self.tests = [None if c.test is None else xpath(c.test) for c in chain.compounds]
        last = len(chain.compounds)
        self.matched: list[dict[etree._Element, bool]] = [{} for _ in range(last)]  # compound -> {element: bool}
        # compound -> {element: it or an ancestor (a preceding sibling) matches}
        self.ancestors: list[dict[etree._Element, bool]] = [{} for _ in range(last)]
        self.siblings: list[dict[etree._Element, bool]] = [{} for _ in range(last)]

    def select(self, root: etree._Element) -> list[etree._Element]:
        """The elements under `root` the chain matches, in document order: those of its last
        compound (one XPath over the tree; element by element, counted, when the test counts
        siblings), then each one's ancestors or siblings against the compounds to its left."""
        last = len(self.chain.compounds) - 1
        compound = self.chain.compounds[last]
        if compound.siblings:
            found = [el for el in root.iter() if isinstance(el.tag, str) and self._test(el, last)]
        else:
            self.budget.scan(root, self.xpath(_COUNT))
            found = self.xpath(compound.scan)(root)
        if last == 0:
            return found
        self.budget.spend(len(found))
        return [el for el in found if self._related(el, last)]

    def _match(self, el: etree._Element, i: int) -> bool:
        memo = self.matched[i]
        found = memo.get(el)
        if found is None:
            found = memo[el] = self._test(el, i) and self._related(el, i)
        return found

    def _test(self, el: etree._Element, i: int) -> bool:
        compound = self.chain.compounds[i]
        if compound.siblings:
            parent = el.getparent()
            self.budget.spend(1 + (len(parent) // SIBLINGS_PER_TEST if parent is not None else 0))
        else:
            self.budget.spend(1)
        if compound.tag is not None and el.tag != compound.tag:
            return False
        test = self.tests[i]
        return test is None or bool(test(el))

    def _related(self, el: etree._Element, i: int) -> bool:
        """Whether the compounds left of `i` match around `el` as the combinator says."""
        if i == 0:
            return True
        combinator = self.chain.combinators[i - 1]
        if combinator == ">":
            parent = el.getparent()
            return parent is not None and self._match(parent, i - 1)
        if combinator == "+":
            previous = _previous(el)
            return previous is not None and self._match(previous, i - 1)
        step = _parent if combinator == " " else _previous
        return self._any(step(el), i - 1, step, combinator)

    def _any(
        self, el: etree._Element | None, i: int, step: Callable[[etree._Element], etree._Element | None], kind: str
    ) -> bool:
        """Whether `el` or one of the elements `step` reaches from it matches compound `i`;
        iterative (a chain of 5,000 siblings) and remembered along the way."""
        memo = self.ancestors[i] if kind == " " else self.siblings[i]
        chain = []
        result = False
        while el is not None:
            known = memo.get(el)
            if known is not None:
                result = known
                break
            chain.append(el)
            if self._match(el, i):
                result = True
                break
            el = step(el)
        for seen in chain:  # none before the last matched, so each answers as the last does
            memo[seen] = result
        return result


def _parent(el: etree._Element) -> etree._Element | None:
    return el.getparent()


def _previous(el: etree._Element) -> etree._Element | None:
    prev = el.getprevious()
    while prev is not None and not isinstance(prev.tag, str):  # comments, processing instructions
        prev = prev.getprevious()
    return prev


def _chain(translator: HTMLTranslator, tree: Tree) -> _Chain:
    from cssselect.parser import CombinedSelector

    compounds: list[_Compound] = []
    combinators: list[str] = []
    while isinstance(tree, CombinedSelector):
        compounds.append(_compound(translator, tree.subselector))
        combinators.append(tree.combinator)
        tree = tree.selector
    compounds.append(_compound(translator, tree))
    return _Chain(tuple(reversed(compounds)), tuple(reversed(combinators)))


def _compound(translator: HTMLTranslator, tree: Tree) -> _Compound:
    expr = translator.xpath(tree)
    element, condition = expr.element, expr.condition
    named = element != "*" and ":" not in element  # a prefixed name is left to the XPath
    if condition:
        test: str | None = f"self::{element}[{condition}]"
    else:
        test = None if element == "*" or named else f"self::{element}"
    scan = f"descendant-or-self::{element}" + (f"[{condition}]" if condition else "")
    return _Compound(element if named else None, test, test is not None and "sibling::" in test, scan)
