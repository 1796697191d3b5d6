"""CSS selectors checked whole when made, and matched right to left with a bounded cost counted in
elements tested.

cssselect's XPath of a selector with combinators (`.content p`, `p ~ p`) walks every path
from each match of the left part: on 250 nested `div.content` holding 20,000 `<p>` the one XPath
took 33 s, and `p ~ p` over 5,000 sibling paragraphs 23 s. Here a selector is cut into its
compound selectors (cssselect's parser), each one translated to XPath; the rightmost compound
finds its elements in one XPath over the tree (`descendant-or-self::p[...]`), and each one's
ancestors or preceding siblings are then tested against the compounds to its left
(`self::div[...]`), each (element, compound) result remembered. The cost is then at most the
tree's elements times the number of compounds, whatever the nesting.

Work is counted in elements tested, not in seconds, so that whether a page goes over
:data:`MAX_WORK` does not depend on the machine's load; it is counted before each XPath runs (an
XPath cannot be stopped once started), and going over raises :class:`OverBudget`. Testing an
element costs one, one more for every :data:`CONDITIONS_PER_TEST` conditions of the compound and
for every :data:`BYTES_PER_TEST` bytes of the attribute values they read (in the one XPath of
the rightmost compound, from CONDITIONS_PER_TEST such conditions on), plus what its XPath
walks beyond the element (:class:`_Cost`): `:lang()` and a descendant combinator inside `:not()`
test its ancestors, a sibling combinator there its siblings, `:has()` its descendants, children
or later siblings, one for each node tested and its attribute bytes; a node stepped over by name
alone (the siblings `:nth-child` counts, the descendants of `:has(p)`) costs 1/:data:`NODES_PER_TEST`,
and `:contains()` one more for every :data:`TEXT_PER_TEST` characters of text it reads. A walk
inside a walk (`:has(> p:first-child)`) is counted at the page's largest extent for the inner
one (:class:`_Shape`, the tree's sizes read once a page when a walk needs them).

When made, a selector is checked whole, every part of it, :not() and :has() arguments included
(:func:`_check`): a namespace prefix (`ns|p`, `[ns|lang]`) is refused, since an HTML page has
none and its XPath would fail on every page it reaches, as are a pseudo-class whose cost is not
known here and a selector of more than :data:`MAX_PARTS` parts. Nothing depends on what a test
document happens to hold.

lxml runs one evaluation of a compiled XPath object at a time: the objects are compiled per
thread, so that threads sharing a rule never wait for each other.
"""

from __future__ import annotations

import re
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

#: Parts (element names, classes, ids, attributes, pseudo-classes, combinators) of one selector:
#: real ones have a handful; cssselect's translation recurses once a part (RecursionError at 500).
MAX_PARTS = 100

#: Nodes an XPath steps over in C without testing them (a count() of siblings for `:nth-child`,
#: a name test in `:has(p)`) counted as one test: 0.04 us a node, 1.3-3.8 us a test (measured).
NODES_PER_TEST = 32

#: Conditions of a compound (classes, attributes, pseudo-classes) counted as one test: one more
#: condition costs far less than the call that tests an element.
CONDITIONS_PER_TEST = 8

#: Bytes of attribute values a test reads counted as one test (a class test normalises the
#: value's spaces: 5-6 ns a byte, measured).
BYTES_PER_TEST = 256

#: Characters of text a string value reads (`:contains()`) counted as one test.
TEXT_PER_TEST = 4096

_COUNT = "count(descendant-or-self::*)"
_NAME = re.compile(r"[a-z_][a-z0-9_.-]*")  # an attribute name an XPath may hold as it is

# The axes a test walks beyond its element (_Cost.walks); TEXT: the descendants whose text a
# string value reads (`:contains()`).
PARENT, CHILDREN, SIBLINGS, ANCESTORS, DESCENDANTS, TEXT = (
    "parent",
    "children",
    "siblings",
    "ancestors",
    "descendants",
    "text",
)
#: The axes whose walk from an element is counted without reading the tree's shape.
_LOCAL = (PARENT, CHILDREN, SIBLINGS)
# A combinator inside :not() or :is() is matched backwards from the element (cssselect's
# _xpath_match_condition); inside :has() forwards from it.
_BACKWARDS = {" ": ANCESTORS, ">": PARENT, "+": SIBLINGS, "~": SIBLINGS}
_FORWARDS = {" ": DESCENDANTS, ">": CHILDREN, "+": SIBLINGS, "~": SIBLINGS}


class OverBudget(Exception):
    """A selector's matching tested more than the budget's elements on a page."""


@dataclass(frozen=True)
class _Cost:
    """The work of testing one element against a compound: `conditions` tested on the element
    itself, and for each walk, its axis and the cost of testing each node it reaches."""

    conditions: int = 0
    walks: tuple[tuple[str, _Cost], ...] = ()
    reads: tuple[str, ...] = ()  # the attributes whose values its conditions read, once a condition

    def __add__(self, other: _Cost) -> _Cost:
        return _Cost(self.conditions + other.conditions, self.walks + other.walks, self.reads + other.reads)

    @property
    def weight(self) -> int:
        """Tests, for an element tested against it."""
        return 1 + self.conditions // CONDITIONS_PER_TEST

    @property
    def bare(self) -> bool:
        """A node tested by its name alone, in C: one tick (1/NODES_PER_TEST of a test)."""
        return not self.conditions and not self.walks

    @property
    def shaped(self) -> bool:
        """Whether counting it needs the tree's shape: anything but bare steps to the parent,
        the children or the siblings."""
        return any(axis not in _LOCAL or not inner.bare for axis, inner in self.walks)


@dataclass(frozen=True)
class _Compound:
    """One compound selector (`div.content:not(.x)`): its tag, and the XPath that tests an element
    when the tag alone does not say (None: the tag is the whole test)."""

    tag: str | None  # None: any element
    test: str | None  # "self::...[...]" or None
    cost: _Cost  # what testing one element costs
    scan: str  # "descendant-or-self::...[...]": the elements it matches in a tree


@dataclass(frozen=True)
class _Chain:
    """A selector without commas: compounds left to right and the combinators between them."""

    compounds: tuple[_Compound, ...]
    combinators: tuple[str, ...]  # combinators[i] joins compounds[i] and compounds[i + 1]


class CompiledSelector:
    """A CSS selector ready to match (see the module docstring); ValueError when it is not one,
    or uses what is not supported here."""

    def __init__(self, css: str) -> None:
        from cssselect import HTMLTranslator, parse
        from cssselect.parser import SelectorError
        from cssselect.xpath import ExpressionError

        if not isinstance(css, str) or not css.strip():
            raise ValueError(f"invalid CSS selector {css!r}: an empty selector")
        self.css = css
        translator = HTMLTranslator()
        try:
            selectors = parse(css)
            _check(selectors)  # before any translation: cssselect's recurses once a part
            translator.css_to_xpath(css)  # cssselect's own checks and messages (pseudo-elements...)
            self.chains = tuple(_chain(translator, selector.parsed_tree) for selector in selectors)
        except (SelectorError, ExpressionError, ValueError) as exc:
            raise ValueError(f"invalid CSS selector {css!r}: {exc}") from None
        self._local = threading.local()
        try:  # every XPath compiled now: a syntax error is the selector's, not a page's
            for chain in self.chains:
                for compound in chain.compounds:
                    self._xpath(compound.scan)
                    if compound.test is not None:
                        self._xpath(compound.test)
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
        found = [_Matcher(chain, self._xpath, budget, root).select() for chain in self.chains]
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
        self._shapes: dict[etree._Element, _Shape] = {}
        self._values: dict[tuple[etree._Element, str | None, str], int] = {}
        self._children: dict[etree._Element, int] = {}

    def scan(self, root: etree._Element, count: etree.XPath, weight: int = 1) -> None:
        """Count the test of every element of the tree (`count`: the _COUNT XPath, compiled)."""
        size = self._sizes.get(root)
        if size is None:
            size = self._sizes[root] = int(count(root))
        self.spend(size * weight)

    def spend(self, n: int) -> None:
        self.spent += n
        if self.spent > self.limit:
            raise OverBudget(self.limit)

    def local(self, axis: str, el: etree._Element) -> int:
        """Nodes a step to the parent, the children or the siblings of `el` reaches (len() walks
        the children: each element's counted once)."""
        parent = el if axis == CHILDREN else el.getparent()
        if parent is None or axis == PARENT:
            return 0 if parent is None else 1
        count = self._children.get(parent)
        if count is None:
            count = self._children[parent] = len(parent)
        return count

    def read(self, root: etree._Element, tag: str | None, name: str) -> int:
        """Bytes of the values of attribute `name` of the `tag` elements of the tree (None: any)."""
        key = (root, tag, name)
        found = self._values.get(key)
        if found is None:
            path = f"descendant-or-self::{tag or '*'}/" + (
                f"@{name}" if _NAME.fullmatch(name) else "@*[name() = $name]"
            )
            found = self._values[key] = sum(map(len, etree.XPath(path, smart_strings=False)(root, name=name)))
        return found

    def shape(self, root: etree._Element) -> _Shape:
        """The shape of the tree `root` is in, read once a page (and counted: one an element)."""
        top = root.getroottree().getroot()
        shape = self._shapes.get(top)
        if shape is None:
            shape = self._shapes[top] = _Shape(top)
            self.spend(len(shape.nodes))
        return shape


def new_budget(limit: int | None = None) -> _Budget:
    return _Budget(limit)


class _Shape:
    """What a walk from an element reaches, read over the whole tree once a page: each node's
    depth and subtree; the attribute bytes of it, its children, its subtree and its ancestors, and
    the text in its subtree, each read when a walk first needs them; and the page's largest of
    each, for a walk inside a walk."""

    def __init__(self, top: etree._Element) -> None:
        self.nodes = nodes = list(top.iter())
        self.index = index = {el: i for i, el in enumerate(nodes)}
        n = len(nodes)
        self.parents = parents = [index[p] if (p := el.getparent()) is not None else -1 for el in nodes]
        self.depth = depth = [0] * n
        self.size = size = [1] * n  # nodes in the subtree
        self.children = children = [0] * n  # len(el) walks the children: counted once here
        for i in range(1, n):
            depth[i] = depth[parents[i]] + 1
        for i in range(n - 1, 0, -1):
            size[parents[i]] += size[i]
            children[parents[i]] += 1
        widest = max(children, default=0)
        self._most = {PARENT: 1, CHILDREN: widest, SIBLINGS: widest, ANCESTORS: max(depth, default=0)}
        self._most.update({DESCENDANTS: n, TEXT: n})
        self._attributes: dict[str, list[int]] | None = None
        self._text: list[int] | None = None
        self._ticks: dict[_Cost, int] = {}

    def attributes(self) -> dict[str, list[int]]:
        """Bytes of attribute values: "own" (the element's), "path" (its and its ancestors'),
        "under" (its subtree's), "kids" (its children's)."""
        if self._attributes is None:
            n, parents = len(self.nodes), self.parents
            own = [sum(map(len, el.values())) if isinstance(el.tag, str) else 0 for el in self.nodes]
            path, under, kids = own[:], own[:], [0] * n
            for i in range(1, n):
                path[i] += path[parents[i]]
            for i in range(n - 1, 0, -1):
                under[parents[i]] += under[i]
                kids[parents[i]] += own[i]
            self._attributes = {"own": own, "path": path, "under": under, "kids": kids}
        return self._attributes

    def text(self) -> list[int]:
        """Characters of text in each node's subtree."""
        if self._text is None:
            nodes, parents = self.nodes, self.parents
            text = [len(el.text or "") if isinstance(el.tag, str) else 0 for el in nodes]
            for i in range(len(nodes) - 1, 0, -1):
                text[parents[i]] += text[i] + len(nodes[i].tail or "")
            self._text = text
        return self._text

    def reach(self, axis: str, el: etree._Element, read: bool) -> tuple[int, int]:
        """(nodes, bytes) a walk along `axis` from `el` reaches: the bytes of the text for TEXT,
        else of the attribute values when `read` (else 0)."""
        i = self.index[el]
        j = self.parents[i]
        if axis == TEXT:
            return self.size[i], self.text()[i]
        if axis in (PARENT, SIBLINGS):
            nodes = 0 if j < 0 else 1 if axis == PARENT else self.children[j]
        else:
            nodes = self.children[i] if axis == CHILDREN else self.depth[i] if axis == ANCESTORS else self.size[i] - 1
        if not read or not nodes:
            return nodes, 0
        a = self.attributes()
        if axis == PARENT:
            return nodes, a["own"][j]
        if axis == SIBLINGS:
            return nodes, a["kids"][j]
        if axis == CHILDREN:
            return nodes, a["kids"][i]
        if axis == ANCESTORS:
            return nodes, a["path"][j]
        return nodes, a["under"][i] - a["own"][i]  # DESCENDANTS

    def most(self, axis: str, read: bool) -> tuple[int, int]:
        """(nodes, bytes) a walk along `axis` reaches at most on this page."""
        nodes = self._most[axis]
        if axis == TEXT:
            return nodes, self.text()[0] if self.nodes else 0
        if not read or not self.nodes:
            return nodes, 0
        a = self.attributes()
        most = {PARENT: max(a["own"]), CHILDREN: max(a["kids"]), SIBLINGS: max(a["kids"])}
        most.update({ANCESTORS: max(a["path"]), DESCENDANTS: a["under"][0]})
        return nodes, most[axis]

    def ticks(self, cost: _Cost) -> int:
        """The most testing one node against `cost` takes on this page, in ticks."""
        found = self._ticks.get(cost)
        if found is None:
            found = self._ticks[cost] = _ticks(cost, self.most, self.ticks)
        return found


def _ticks(cost: _Cost, reach: Callable[[str, bool], tuple[int, int]], inner: Callable[[_Cost], int]) -> int:
    """Ticks (1/NODES_PER_TEST of a test) of testing a node against `cost`, its walks reaching
    `reach(axis, read)` (nodes, bytes: read the attribute values' or not), each node they reach
    taking `inner(its cost)` ticks."""
    if cost.bare:
        return 1
    total = NODES_PER_TEST * cost.weight
    for axis, walked in cost.walks:
        nodes, read = reach(axis, not walked.bare)  # a name alone reads no attribute
        total += nodes * inner(walked) + NODES_PER_TEST * (read // (TEXT_PER_TEST if axis == TEXT else BYTES_PER_TEST))
    return total


class _Matcher:
    """One chain on one page, its results remembered by (element, compound)."""

    def __init__(
        self, chain: _Chain, xpath: Callable[[str], etree.XPath], budget: _Budget, root: etree._Element
    ) -> None:
        self.chain = chain
        self.budget = budget
        self.xpath = xpath
        self.root = root
        self.tests = [None if c.test is None else xpath(c.test) for c in chain.compounds]
        last = len(chain.compounds)
        self.matched: list[dict[etree._Element, bool]] = [{} for _ in range(last)]  # compound -> {element: bool}
        # compound -> {element: it or an ancestor (a preceding sibling) matches}
        self.ancestors: list[dict[etree._Element, bool]] = [{} for _ in range(last)]
        self.siblings: list[dict[etree._Element, bool]] = [{} for _ in range(last)]

    def select(self) -> list[etree._Element]:
        """The elements under the root the chain matches, in document order: those of its last
        compound (one XPath over the tree, its cost counted first), then each one's ancestors or
        siblings against the compounds to its left."""
        last = len(self.chain.compounds) - 1
        compound = self.chain.compounds[last]
        if compound.cost.walks:
            for el in self.root.iter(compound.tag) if compound.tag else self.root.iter():
                if isinstance(el.tag, str):
                    self.budget.spend(self._cost(el, compound.cost))
        else:
            self.budget.scan(self.root, self.xpath(_COUNT), compound.cost.weight)
            if len(compound.cost.reads) >= CONDITIONS_PER_TEST:
                # Fewer conditions read the page's attribute values a few times over: linear in the
                # page and cheap next to parsing it (their bytes take 1.5 ms a page to add up here).
                read = sum(self.budget.read(self.root, compound.tag, name) for name in compound.cost.reads)
                self.budget.spend(read // BYTES_PER_TEST)
        found: list[etree._Element] = self.xpath(compound.scan)(self.root)
        if last == 0:
            return found
        self.budget.spend(len(found))
        return [el for el in found if self._related(el, last)]

    def _cost(self, el: etree._Element, cost: _Cost) -> int:
        """Tests that testing `el` against `cost` may take (counted before its XPath runs)."""
        read = sum(len(el.get(name) or "") for name in cost.reads) // BYTES_PER_TEST
        if not cost.walks:
            return cost.weight + read
        if cost.shaped:
            shape = self.budget.shape(self.root)
            ticks = _ticks(cost, lambda axis, values: shape.reach(axis, el, values), shape.ticks)
        else:  # bare steps to the parent, the children or the siblings: len() says how many
            ticks = _ticks(cost, lambda axis, values: (self.budget.local(axis, el), 0), lambda inner: 1)
        return ticks // NODES_PER_TEST + read

    def _match(self, el: etree._Element, i: int) -> bool:
        memo = self.matched[i]
        found = memo.get(el)
        if found is None:
            found = memo[el] = self._test(el, i) and self._related(el, i)
        return found

    def _test(self, el: etree._Element, i: int) -> bool:
        compound = self.chain.compounds[i]
        if compound.tag is not None and el.tag != compound.tag:
            self.budget.spend(1)
            return False
        self.budget.spend(self._cost(el, compound.cost))
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


# --- checking a selector whole, and what its tests cost ------------------------------------------


def _children(node: Tree) -> list[Tree]:
    """The nodes inside a node of a parsed selector: the rest of its compound, and the arguments
    of :not(), :is(), :where() and :has()."""
    kind = type(node).__name__
    inner = [getattr(node, name, None) for name in ("parsed_tree", "selector", "subselector")]
    if kind in ("Matching", "SpecificityAdjustment"):
        inner.extend(node.selector_list)
    elif kind == "Relation":
        inner.extend(getattr(argument, "parsed_tree", argument) for _, argument in _arguments(node))
    return [child for child in inner if child is not None and not isinstance(child, str)]


def _arguments(relation: Tree) -> list[tuple[str, Tree]]:
    """:has()'s relative selectors as (leading combinator, selector)."""
    arguments = getattr(relation, "arguments", None)
    if arguments is None:  # cssselect before 1.3: one argument
        arguments = [(relation.combinator, relation.subselector)]
    return [(getattr(combinator, "value", combinator), argument) for combinator, argument in arguments]


def _check(selectors: list[Tree]) -> None:
    """ValueError for what no page can be matched with here: a namespace prefix anywhere in the
    selector (an HTML page has none: its XPath would fail on every page it reaches), or more than
    MAX_PARTS parts. Iterative: a long selector nests deep."""
    parts = 0
    stack = list(selectors)
    while stack:
        node = stack.pop()
        stack.extend(_children(node))
        kind = type(node).__name__
        if kind == "Selector" or (kind == "Element" and node.element is None and node.namespace is None):
            continue  # a selector's wrapper, an implied `*`
        parts += 1
        if parts > MAX_PARTS:
            raise ValueError(f"it has more than {MAX_PARTS} parts (names, classes, attributes, pseudo-classes)")
        namespace = getattr(node, "namespace", None)
        if kind in ("Element", "Attrib") and namespace not in (None, "*"):
            name = (node.element or "*") if kind == "Element" else node.attrib
            given, plain = (
                (f"{namespace}|{name}", name) if kind == "Element" else (f"[{namespace}|{name}]", f"[{name}]")
            )
            raise ValueError(f"{given!r} names a namespace; HTML pages have none: write {plain!r}")


_ONE = _Cost(1)
#: What testing an element against each pseudo-class cssselect's HTMLTranslator knows costs: one
#: condition, and what its XPath walks beyond the element.
_PSEUDO_COSTS: dict[str, _Cost] = {
    **dict.fromkeys(("root", "scope", "link", "visited", "hover", "active", "focus", "target", "checked"), _ONE),
    **dict.fromkeys(
        (
            *("first-child", "last-child", "first-of-type", "last-of-type", "only-child", "only-of-type"),
            *("nth-child", "nth-last-child", "nth-of-type", "nth-last-of-type"),
        ),
        _Cost(1, ((SIBLINGS, _Cost()),)),  # count(preceding-sibling::*) ...
    ),
    "empty": _Cost(1, ((CHILDREN, _Cost()),)),  # not(*) and not(string-length())
    "lang": _Cost(1, ((ANCESTORS, _ONE),)),  # ancestor-or-self::*[@lang][1][...]
    "contains": _Cost(1, ((TEXT, _Cost()),)),  # contains(., ...): the subtree's string value
    # ancestor::fieldset[@disabled] ... ancestor::fieldset[@disabled]/legend[1]
    **dict.fromkeys(("enabled", "disabled"), _Cost(1, ((ANCESTORS, _Cost(1, ((CHILDREN, _Cost()),))),))),
}


def _cost(tree: Tree) -> _Cost:
    """The cost of testing one element against a compound selector (no combinator at its top);
    ValueError for a pseudo-class whose cost is not known here."""
    cost = _Cost()
    node = tree
    while type(node).__name__ != "Element":
        kind = type(node).__name__
        if kind == "Class":
            cost += _Cost(1, reads=("class",))
        elif kind == "Hash":
            cost += _Cost(1, reads=("id",))
        elif kind == "Attrib":
            cost += _Cost(1, reads=() if node.operator == "exists" else (str(node.attrib).lower(),))
        elif kind in ("Pseudo", "Function"):
            name = str(getattr(node, "ident", None) or node.name).lower()
            if name not in _PSEUDO_COSTS:
                raise ValueError(f"the pseudo-class :{name} is not supported here")
            cost += _PSEUDO_COSTS[name]
        elif kind == "Negation":
            cost += _ONE + _backwards(node.subselector)
        elif kind in ("Matching", "SpecificityAdjustment"):
            for alternative in node.selector_list:
                cost += _ONE + _backwards(alternative)
        elif kind == "Relation":
            for lead, argument in _arguments(node):
                walk = _forwards(getattr(argument, "parsed_tree", argument))
                cost += _Cost(1, ((_FORWARDS[lead], walk),))
        else:
            raise ValueError(f"{kind} is not supported here")
        node = node.selector
    return cost


def _backwards(tree: Tree) -> _Cost:
    """A selector matched on an element from its right end (in :not(), :is()): the left
    compounds are reached by walking back (ancestors, the parent, preceding siblings), each node
    tested in a predicate (`ancestor::*[self::div]`): a condition even for a bare name."""
    if type(tree).__name__ != "CombinedSelector":
        return _cost(tree)
    walked = _ONE + _backwards(tree.selector)
    return _cost(tree.subselector) + _Cost(0, ((_BACKWARDS[tree.combinator], walked),))


def _forwards(tree: Tree) -> _Cost:
    """A relative selector of :has() from its left end: each compound reached from the one before."""
    compounds, combinators = [], []
    while type(tree).__name__ == "CombinedSelector":
        compounds.append(tree.subselector)
        combinators.append(tree.combinator)
        tree = tree.selector
    cost = _cost(tree)
    if not compounds:
        return cost
    inner = _cost(compounds[0])
    for compound, combinator in zip(compounds[1:], combinators[:-1], strict=True):
        inner = _cost(compound) + _Cost(0, ((_FORWARDS[combinator], inner),))
    return cost + _Cost(0, ((_FORWARDS[combinators[-1]], inner),))


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
    return _Compound(element if named else None, test, _cost(tree), scan)
