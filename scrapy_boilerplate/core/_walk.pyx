# cython: language_level=3
"""Compiled twin of ``page._walk_blocks``: the same walk, over libxml2's nodes.

``page._walk_blocks`` is the reference and this module must give the same
Page (tests/test_speedups.py compares both on real pages). The speed comes
from reading lxml's C nodes directly: no Python proxy object per element,
no iterwalk events, attributes read from the node's own list, and
whitespace-only text between tags (most of a page's text nodes) seen
without decoding it. Everything that is rare or stateful across pages
(tag kinds, class-name cues and their caches, <head>, JSON-LD) is the
Python module's own code, called from here.

How lxml's ``.text`` and ``.tail`` map onto nodes: an element's text is the
run of text/CDATA nodes that starts its children, its tail the run right
after it (lxml's ``_collectText``). Walking the children in order meets each
run once, either as a text or as the tail of the element, comment or
processing instruction before it.
"""

from cpython.unicode cimport PyUnicode_AsUTF8, PyUnicode_DecodeASCII, PyUnicode_DecodeUTF8
from libc.string cimport strcmp, strlen, strncmp, strstr
from lxml.includes cimport tree
from lxml.includes.etreepublic cimport _Document, _Element, elementFactory, import_lxml__etree
from lxml.includes.tree cimport const_xmlChar, xmlAttr, xmlNode

from . import page as P   # loaded at the end of page.py, so its names all exist

import_lxml__etree()

# page.py's element kinds (checked below, so the two modules cannot drift apart)
cdef enum:
    K_INLINE = 0
    K_BLOCK = 1
    K_SKIP = 2
    K_BR = 3
    K_LINK = 4
    K_IMG = 5
    K_PRE = 6

assert (P.K_INLINE, P.K_BLOCK, P.K_SKIP, P.K_BR, P.K_LINK, P.K_IMG, P.K_PRE) == tuple(range(7))

# What _start tells the walk to do with the element's children.
cdef enum:
    SKIP_SUBTREE = 0
    WALK_WITH_TEXT = 1
    WALK_NO_TEXT = 2      # <br>: its own text is not read (as in the Python walk)

cdef long long FLAG_LINK = P.FLAG["link"]
cdef long long FLAG_BODY = P.FLAG["body_prop"]
cdef Py_ssize_t MAX_BLOCKS = P.MAX_BLOCKS
cdef object PLAIN = P._PLAIN_STATE


cdef inline str _utf8(const_xmlChar* s):
    if s is NULL:
        return ""
    return PyUnicode_DecodeUTF8(<const char*>s, strlen(<const char*>s), "replace")


cdef inline bint _is_text(xmlNode* c) noexcept:
    return c.type == tree.XML_TEXT_NODE or c.type == tree.XML_CDATA_SECTION_NODE


cdef inline xmlNode* _text_or_skip(xmlNode* c) noexcept:
    """lxml's _textNodeOrSkip: the text node at c, skipping XInclude markers; else NULL."""
    while c is not NULL:
        if _is_text(c):
            return c
        if c.type == tree.XML_XINCLUDE_START or c.type == tree.XML_XINCLUDE_END:
            c = c.next
        else:
            return NULL
    return NULL


cdef inline bint _ascii_space(const_xmlChar* s) noexcept:
    """True when s is non-empty ASCII whitespace (what str.isspace() says of such text)."""
    cdef const unsigned char* p = <const unsigned char*>s
    if p is NULL or p[0] == 0:
        return False
    while p[0]:
        if not (p[0] == 32 or 9 <= p[0] <= 13 or 28 <= p[0] <= 31):
            return False
        p += 1
    return True


cdef object _run_text(xmlNode* first):
    """The text of the run of text nodes starting at `first` (lxml's _collectText), or None."""
    cdef xmlNode* c = _text_or_skip(first)
    if c is NULL:
        return None
    cdef xmlNode* nxt = _text_or_skip(c.next)
    if nxt is NULL:
        return _utf8(c.content)
    parts = []
    while c is not NULL:
        parts.append(_utf8(c.content))
        c = _text_or_skip(c.next)
    return "".join(parts)


cdef object _attr_value(xmlAttr* a):
    """An attribute's value as lxml's el.get() gives it ('' for a bare attribute)."""
    cdef xmlNode* c = a.children
    if c is NULL:
        return ""
    if c.next is NULL and c.type == tree.XML_TEXT_NODE:
        return _utf8(c.content)
    parts = []
    while c is not NULL:
        if c.type == tree.XML_TEXT_NODE:
            parts.append(_utf8(c.content))
        c = c.next
    return "".join(parts)


cdef str _tag_name(xmlNode* c):
    """lxml's el.tag: 'name', or '{namespace}name' for a namespaced element."""
    if c.ns is not NULL and c.ns.href is not NULL:
        return "{%s}%s" % (_utf8(c.ns.href), _utf8(c.name))
    return _utf8(c.name)


cdef class _Attrs:
    """The attributes the walk reads, found in one pass over the element's attribute list."""
    cdef xmlAttr* cls
    cdef xmlAttr* idv
    cdef xmlAttr* hidden
    cdef xmlAttr* aria_hidden
    cdef xmlAttr* aria_modal
    cdef xmlAttr* style
    cdef xmlAttr* role
    cdef xmlAttr* itemprop
    cdef xmlAttr* href
    cdef bint special

    cdef void read(self, xmlNode* c) noexcept:
        cdef xmlAttr* a = c.properties
        cdef const char* name
        self.cls = self.idv = self.hidden = self.aria_hidden = self.aria_modal = NULL
        self.style = self.role = self.itemprop = self.href = NULL
        self.special = False
        while a is not NULL:
            if a.ns is NULL and a.name is not NULL:   # el.get() reads attributes without namespace
                name = <const char*>a.name
                if name[0] == c'c':
                    if self.cls is NULL and strcmp(name, "class") == 0:
                        self.cls = a
                elif name[0] == c'i':
                    if self.idv is NULL and strcmp(name, "id") == 0:
                        self.idv = a
                    elif self.itemprop is NULL and strcmp(name, "itemprop") == 0:
                        self.itemprop = a
                        self.special = True
                elif name[0] == c'h':
                    if self.href is NULL and strcmp(name, "href") == 0:
                        self.href = a
                    elif self.hidden is NULL and strcmp(name, "hidden") == 0:
                        self.hidden = a
                        self.special = True
                elif name[0] == c's':
                    if self.style is NULL and strcmp(name, "style") == 0:
                        self.style = a
                        self.special = True
                elif name[0] == c'r':
                    if self.role is NULL and strcmp(name, "role") == 0:
                        self.role = a
                        self.special = True
                elif name[0] == c'a':
                    if self.aria_hidden is NULL and strcmp(name, "aria-hidden") == 0:
                        self.aria_hidden = a
                        self.special = True
                    elif self.aria_modal is NULL and strcmp(name, "aria-modal") == 0:
                        self.aria_modal = a
                        self.special = True
            a = a.next

    cdef bint is_hidden(self) except -1:
        """page._is_hidden, from the attributes already found."""
        if self.hidden is not NULL:
            idv = _attr_value(self.idv) if self.idv is not NULL else ""
            return not idv.startswith("S:")
        if self.aria_hidden is not NULL and _attr_value(self.aria_hidden) == "true":
            return True
        if self.aria_modal is not NULL and _attr_value(self.aria_modal) == "true":
            return True
        if self.role is not NULL and _attr_value(self.role) in P.HIDDEN_ROLES:
            return True
        if self.style is not NULL:
            style = _attr_value(self.style)
            return bool(style) and P.HIDDEN_STYLE_RE.search(style) is not None
        return False


cdef object _get(xmlNode* c, const char* wanted):
    """el.get(wanted) for the rarely read attributes (img sources, script type)."""
    cdef xmlAttr* a = c.properties
    while a is not NULL:
        if a.ns is NULL and a.name is not NULL and strcmp(<const char*>a.name, wanted) == 0:
            return _attr_value(a)
        a = a.next
    return None


# Class-name cues: page._class_cues and page._unit_cues are the reference. A page from
# a site not seen before brings about 150 new class names, so the uncached path counts.
cdef object UNIT_CACHE = P._UNIT_CACHE
cdef object CUE_CACHE = P._CUE_CACHE
cdef object KEY_CACHE = P._KEY_CACHE
cdef object GATE_SEARCH = P.GATE_RE.search
cdef object COMMENT_SEARCH = P.COMMENT_RE.search
cdef long long FLAG_COMMENT = P.FLAG["comment"]
cdef tuple NO_CUE = (0, (), False)
cdef Py_ssize_t MAX_FAST_NAME = 200
# COMMENT_WORDS_RE's words and TAXONOMY_CLASS_RE's prefixes, as C strings (checked below)
cdef const char* COMMENT_WORDS[6]
COMMENT_WORDS[:] = [b"omment", b"disqus", b"respond", b"repl", b"discussion", b"talkback"]
cdef const char* TAXONOMY_PREFIXES[5]
TAXONOMY_PREFIXES[:] = [b"tag-", b"category-", b"post_tag-", b"postid-", b"page-id-"]
assert P.COMMENT_WORDS == ("omment", "disqus", "respond", "repl", "discussion", "talkback")
assert P.TAXONOMY_CLASS_RE.pattern == r"(?:tag|category|post_tag|postid|page-id)-|post-\d+$"
assert P.TOKEN_SPLIT_RE.pattern == r"[^a-z]+"


cdef object _cache_get(object cache, object key):
    """BoundedCache.get without a Python method call: young, then old (promoted)."""
    value = (<dict>cache.young).get(key)
    if value is None:
        value = (<dict>cache.old).get(key)
        if value is not None:
            _cache_put(cache, key, value)
    return value


cdef int _cache_put(object cache, object key, object value) except -1:
    """BoundedCache.put without a Python method call."""
    young = <dict>cache.young
    if len(young) >= <Py_ssize_t>cache.limit:
        cache.old = young
        young = cache.young = {}
    young[key] = value
    return 0


cdef bint _taxonomy(const char* low, Py_ssize_t n) noexcept:
    """TAXONOMY_CLASS_RE.match on a lower-cased printable-ASCII name."""
    cdef int i
    cdef Py_ssize_t k
    for i in range(5):
        if strncmp(low, TAXONOMY_PREFIXES[i], strlen(TAXONOMY_PREFIXES[i])) == 0:
            return True
    if n > 5 and strncmp(low, b"post-", 5) == 0:
        for k in range(5, n):
            if not (c'0' <= low[k] <= c'9'):
                return False
        return True
    return False


cdef tuple _unit_cues(str unit):
    """page._unit_cues, with its common steps in C for printable-ASCII names (the others go there)."""
    cue = _cache_get(UNIT_CACHE, unit)
    if cue is not None:
        return cue
    cdef Py_ssize_t n = len(unit), i, start
    if n == 0 or n > MAX_FAST_NAME or not unit.isascii():
        return P._unit_cues(unit)
    cdef const char* raw = PyUnicode_AsUTF8(unit)
    cdef char low[201]
    cdef char c
    for i in range(n):
        c = raw[i]
        if c < 33 or c > 126:   # spaces and control characters: the regex path (\s, $)
            return P._unit_cues(unit)
        low[i] = c + 32 if c'A' <= c <= c'Z' else c
    low[n] = 0
    if _taxonomy(low, n):
        _cache_put(UNIT_CACHE, unit, NO_CUE)
        return NO_CUE
    # TOKEN_SPLIT_RE.split, without the empty strings: the runs of a-z
    parts = []
    i = 0
    while i < n:
        if c'a' <= low[i] <= c'z':
            start = i
            while i < n and c'a' <= low[i] <= c'z':
                i += 1
            parts.append(PyUnicode_DecodeASCII(low + start, i - start, NULL))
        else:
            i += 1
    bits = 0
    if parts and GATE_SEARCH("".join(parts)) is not None:
        for key in parts + [a + b for a, b in zip(parts, parts[1:])]:
            key_bits = _cache_get(KEY_CACHE, key)
            bits |= key_bits if key_bits is not None else P._key_bits(key)
    comment = False
    for i in range(6):
        if strstr(low, COMMENT_WORDS[i]) is not NULL:
            comment = COMMENT_SEARCH(PyUnicode_DecodeASCII(low, n, NULL)) is not None
            break
    if comment:
        bits |= FLAG_COMMENT
    cue = (bits, tuple([t for t in parts if len(t) > 1 and len(t) < 25]), comment)
    _cache_put(UNIT_CACHE, unit, cue)
    return cue


cpdef tuple class_cues(idv, cls):
    """page._class_cues (cues of an element's id and classes, cached per pair)."""
    key = (idv, cls)
    cue = _cache_get(CUE_CACHE, key)
    if cue is None:
        bits, tokens, comment = 0, (), False
        units = cls.split() if cls else []
        if idv:
            units.append(idv)
        known = UNIT_CACHE.young
        for unit in units[:16]:
            b, t, c = known.get(unit) or _unit_cues(unit)
            bits |= b
            tokens += t
            comment = comment or c
        cue = (bits, tokens, comment)
        _cache_put(CUE_CACHE, key, cue)
    return cue


cdef class _Walker:
    cdef object page
    cdef list texts, tags, nodes, depths, chars, words, link_chars, links, tag_counts, flags, tokens
    cdef list n_tags, n_parents, n_depths, n_first, n_last, n_tagc, n_flags, n_tokens
    cdef list images, stack, pending, node_stack, node_start
    cdef dict jsonld, tag_info, cue_young
    cdef _Document doc
    cdef xmlNode* c_root
    cdef _Attrs attrs
    cdef bint include_comments, skip_hidden, limit_hit
    cdef long long cur_flags
    cdef tuple cur_tokens
    cdef Py_ssize_t pend_link, pend_links, pend_tags, link_depth, pre_depth, br_run, depth
    cdef Py_ssize_t n_elements, hidden_skipped

    def __init__(self, _Element root, page, bint include_comments, bint skip_hidden):
        self.page = page
        self.texts, self.tags, self.nodes, self.depths = page.texts, page.tags, page.nodes, page.depths
        self.chars, self.words, self.link_chars = page.chars, page.words, page.link_chars
        self.links, self.tag_counts, self.flags, self.tokens = page.links, page.tag_counts, page.flags, page.tokens
        self.n_tags, self.n_parents, self.n_depths = page.node_tags, page.node_parents, page.node_depths
        self.n_first, self.n_last = page.node_first, page.node_last
        self.n_tagc, self.n_flags, self.n_tokens = page.node_tag_counts, page.node_flags, page.node_tokens
        self.images, self.jsonld = page.images, page.jsonld
        self.doc = root._doc
        self.c_root = root._c_node
        self.attrs = _Attrs()
        self.include_comments = include_comments
        self.skip_hidden = skip_hidden
        self.stack, self.pending = [], []
        self.node_stack, self.node_start = [-1], []
        self.tag_info = {}
        self.cue_young = P._CUE_CACHE.young
        self.cur_flags = 0
        self.cur_tokens = ()

    cdef int flush(self) except -1:
        cdef Py_ssize_t n_words, node, n_chars
        if self.pending:
            if self.pre_depth:
                text = "".join(self.pending).strip("\n")
                if not text.strip():
                    text = ""
                n_words = P.count_words(text)
            else:
                parts = "".join(self.pending).split()
                text = " ".join(parts)
                n_words = len(parts) if text.isascii() else P.count_words(text)
            self.pending.clear()
            if text:
                if len(self.texts) >= MAX_BLOCKS:
                    self.limit_hit = True
                else:
                    node = self.node_stack[-1]
                    self.texts.append(text)
                    self.tags.append(self.n_tags[node] if node >= 0 else "html")
                    self.nodes.append(node)
                    self.depths.append(self.depth)
                    n_chars = len(text)
                    self.chars.append(n_chars)
                    self.words.append(n_words)
                    self.link_chars.append(min(self.pend_link, n_chars))
                    self.links.append(self.pend_links)
                    self.tag_counts.append(self.pend_tags)
                    self.flags.append(self.cur_flags)
                    self.tokens.append(self.cur_tokens)
        self.pend_link = self.pend_links = self.pend_tags = 0
        self.br_run = 0
        return 0

    cdef int add_text(self, xmlNode* first) except -1:
        """The text or tail run starting at `first`, into the open block."""
        cdef xmlNode* c = _text_or_skip(first)
        if c is NULL:
            return 0
        if not self.pre_depth and _ascii_space(c.content) and _text_or_skip(c.next) is NULL:
            # Whitespace between tags: it only matters inside a text run.
            if self.pending:
                self.pending.append(" ")
            return 0
        text = _run_text(c)
        if text:
            if text.isspace():
                if self.pending:
                    self.pending.append(text if self.pre_depth else " ")
            else:
                self.pending.append(text)
                if self.link_depth:
                    self.pend_link += len(text.strip())
                self.br_run = 0
        return 0

    cdef tuple info(self, xmlNode* c):
        """(kind, own flag bits, el.tag, node tag) of an element, cached by its interned name."""
        cdef size_t key = <size_t>c.name
        info = self.tag_info.get(key) if c.ns is NULL else None
        if info is None:
            tag = _tag_name(c)
            kind, own = P.TAG_INFO.get(tag) or P._tag_info(tag)
            node_tag = tag if kind == K_PRE or tag in P.BLOCK_TAGS else P._clean_tag(tag)
            info = (kind, own, tag, node_tag)
            if c.ns is NULL:
                self.tag_info[key] = info
        return info

    cdef int start(self, xmlNode* c) except -1:
        """The walk's start event for element c; says what to do with its children."""
        cdef int kind
        cdef long long own
        cdef Py_ssize_t node
        kind, own, tag, node_tag = self.info(c)
        if kind == K_SKIP:
            if tag == "head":
                P._read_head(elementFactory(self.doc, c), self.page)
            elif tag == "script":
                text = _run_text(c.children)
                if text and (_get(c, "type") or "").endswith("ld+json"):
                    P._read_jsonld(text, self.jsonld)
            self.stack.append(None)
            return SKIP_SUBTREE
        self.n_elements += 1
        self.pend_tags += 1
        tokens = self.cur_tokens
        own_tokens = ()
        cdef _Attrs attrs = self.attrs
        if c.properties is not NULL:
            attrs.read(c)
            if attrs.special:
                if self.skip_hidden and c is not self.c_root and attrs.is_hidden():
                    self.hidden_skipped += 1
                    self.stack.append(None)
                    return SKIP_SUBTREE
                if attrs.role is not NULL:
                    role = _attr_value(attrs.role)
                    if role:
                        own |= <long long>P.ROLE_FLAGS.get(role, 0)
                if attrs.itemprop is not NULL:
                    prop = _attr_value(attrs.itemprop)
                    if prop and prop.lower() in P.BODY_PROPS:
                        own |= FLAG_BODY
            cls = _attr_value(attrs.cls) if attrs.cls is not NULL else None
            idv = _attr_value(attrs.idv) if attrs.idv is not NULL else None
            if cls or idv:
                cue = self.cue_young.get((idv, cls))
                if cue is None:
                    cue = class_cues(idv, cls)
                if cue[2] and not self.include_comments and tag not in P.COMMENT_SAFE_TAGS:
                    self.stack.append(None)
                    return SKIP_SUBTREE
                if cue[0] and tag != "body" and tag != "html":
                    own |= <long long>cue[0]
                own_tokens = cue[1]
                if own_tokens:
                    tokens = (own_tokens + self.cur_tokens)[:12]
        else:
            attrs.href = NULL
        if kind == K_INLINE:
            if own or own_tokens:
                self.stack.append((0, self.cur_flags, self.cur_tokens, 0))
                self.cur_flags |= own
                self.cur_tokens = tokens
            else:
                self.stack.append(PLAIN)
        elif kind == K_BLOCK or kind == K_PRE:
            self.stack.append((kind, self.cur_flags, self.cur_tokens, 0))
            if self.pending:
                self.flush()
            else:
                self.pend_links = 0
            self.depth += 1
            node = len(self.n_tags)
            self.n_tags.append(node_tag)
            self.n_parents.append(self.node_stack[-1])
            self.n_depths.append(self.depth)
            self.n_first.append(len(self.texts))
            self.n_last.append(len(self.texts))
            self.n_tagc.append(0)
            self.n_flags.append(self.cur_flags | own)
            self.n_tokens.append(own_tokens)
            self.node_stack.append(node)
            self.node_start.append(self.n_elements)
            if kind == K_PRE:
                self.pre_depth += 1
            self.cur_flags |= own
            self.cur_tokens = tokens
        elif kind == K_BR:
            if self.br_run and self.pending and not self.pre_depth:
                self.flush()
            else:
                self.pending.append("\n")
                self.br_run += 1
            self.stack.append(PLAIN)
            return WALK_NO_TEXT
        else:
            if kind == K_LINK:
                if attrs.href is not NULL:
                    own |= FLAG_LINK
                    self.link_depth += 1
                    self.pend_links += 1
            elif kind == K_IMG:
                src = (_get(c, "src") or _get(c, "data-src") or _get(c, "data-lazy-src")
                       or _get(c, "data-original"))
                if src:
                    self.images.append((len(self.texts), src.strip(), _get(c, "alt") or "",
                                        _get(c, "width"), _get(c, "height")))
            self.stack.append((0, self.cur_flags, self.cur_tokens, own & FLAG_LINK))
            self.cur_flags |= own
            self.cur_tokens = tokens
        return WALK_WITH_TEXT

    cdef int end(self, xmlNode* c) except -1:
        """The walk's end event for element c (its tail is read by the caller)."""
        cdef Py_ssize_t node
        state = self.stack.pop()
        if state is None or state is PLAIN:
            return 0
        block_kind, parent_flags, parent_tokens, was_link = state
        if was_link:
            self.link_depth -= 1
        if block_kind:
            # Flush before restoring the parent's flags: the text belongs to this element.
            if self.pending:
                self.flush()
            else:
                self.pend_links = 0
            node = self.node_stack.pop()
            self.n_last[node] = len(self.texts)
            self.n_tagc[node] = self.n_elements - <Py_ssize_t>self.node_start.pop() + 1
            self.depth -= 1
            if block_kind == K_PRE:
                self.pre_depth -= 1
        self.cur_flags = parent_flags
        self.cur_tokens = parent_tokens
        return 0

    cdef xmlNode* next_element(self, xmlNode* c) except? NULL:
        """The next element sibling from c on; comments and PIs on the way give their tails."""
        while c is not NULL:
            if c.type == tree.XML_ELEMENT_NODE:
                return c
            if c.type == tree.XML_COMMENT_NODE or c.type == tree.XML_PI_NODE or \
                    c.type == tree.XML_ENTITY_REF_NODE:
                self.add_text(c.next)
            c = c.next
        return NULL

    cdef int run(self) except -1:
        """Pre-order walk without recursion: down through children, up through parents."""
        cdef xmlNode* c = self.c_root
        cdef xmlNode* nxt
        cdef int mode
        if c is NULL or c.type != tree.XML_ELEMENT_NODE:
            return 0
        while True:
            mode = self.start(c)
            if mode != SKIP_SUBTREE:
                if mode == WALK_WITH_TEXT:
                    self.add_text(c.children)
                nxt = self.next_element(c.children)
                if nxt is not NULL:
                    c = nxt
                    continue
            # c has no element left to visit below it: end it, and its ancestors while
            # they have no next element either.
            while True:
                self.end(c)
                self.add_text(c.next)   # the tail
                if self.limit_hit or c is self.c_root:
                    self.flush()
                    return 0
                nxt = self.next_element(c.next)
                if nxt is not NULL:
                    c = nxt
                    break
                c = c.parent


def walk_blocks(_Element root not None, page, bint include_comments, bint skip_hidden):
    """page._walk_blocks, compiled: fill `page`; return (hidden elements skipped, limit hit)."""
    cdef _Walker walker = _Walker(root, page, include_comments, skip_hidden)
    walker.run()
    return walker.hidden_skipped, walker.limit_hit
