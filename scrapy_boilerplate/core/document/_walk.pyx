# cython: language_level=3
"""Compiled twin of ``walk.walk_blocks``: the same walk, over libxml2's nodes.

``walk.walk_blocks`` is the reference and this module must give the same
Page (tests/twins/test_compiled_walk.py compares both, field by field). The speed
comes from reading lxml's C nodes directly: no Python proxy object per
element, no iterwalk events, attributes read from the node's own list, and
a block's text gathered as UTF-8 bytes and decoded once, after collapsing
its whitespace. Everything that is rare or stateful across pages (tag
kinds, the class-name cue caches, <head>, JSON-LD) is the Python modules'
own code (elements.py, cues.py, head.py), called from here; an element's
class-name cues come from _cues (cimported from _cues.pxd), over cue_words.py's vocabularies.

How lxml's ``.text`` and ``.tail`` map onto nodes: an element's text is the
run of text/CDATA nodes that starts its children, its tail the run right
after it (lxml's ``_collectText``). Walking the children in order meets each
run once, either as a text or as the tail of the element, comment or
processing instruction before it.
"""

from cpython.mem cimport PyMem_Free, PyMem_Realloc
from cpython.ref cimport PyObject
from cpython.unicode cimport PyUnicode_AsUTF8, PyUnicode_AsUTF8AndSize, PyUnicode_DecodeASCII, PyUnicode_DecodeUTF8
from libc.string cimport memcpy, strcmp, strlen, strncmp, strstr
from lxml.includes cimport tree
from lxml.includes.etreepublic cimport _Document, _Element, elementFactory, import_lxml__etree
from lxml.includes.tree cimport const_xmlChar, xmlAttr, xmlNode

cimport cython
import numpy as np

from . import cues, elements, head
from ._cues cimport class_cues
from . import hidden as hidden_module   # (`hidden` names a local below)
from .words import clean_text as _clean_text, count_words as _count_words, drop_controls as _drop_controls
from .walk import MAX_BLOCKS as _MAX_BLOCKS

import_lxml__etree()

# elements.py's element kinds (checked below, so the two modules cannot drift apart)
cdef enum:
    K_INLINE = 0
    K_BLOCK = 1
    K_SKIP = 2
    K_BR = 3
    K_LINK = 4
    K_IMG = 5
    K_PRE = 6

assert (elements.K_INLINE, elements.K_BLOCK, elements.K_SKIP, elements.K_BR, elements.K_LINK, elements.K_IMG,
        elements.K_PRE) == tuple(range(7))

# What _start tells the walk to do with the element's children.
cdef enum:
    SKIP_SUBTREE = 0
    WALK_WITH_TEXT = 1
    WALK_NO_TEXT = 2      # <br>: its own text is not read (as in the Python walk)

cdef long long FLAG_LINK = elements.FLAG["link"]
cdef object is_anchor_mark = elements.is_anchor_mark
cdef long long FLAG_BODY = elements.FLAG["body_prop"]
cdef Py_ssize_t MAX_BLOCKS = _MAX_BLOCKS
cdef object count_words = _count_words
cdef object ROLE_FLAGS = cues.ROLE_FLAGS
cdef object BODY_PROPS = cues.BODY_PROPS
cdef object MICRODATA_PROPS = head.MICRODATA_PROPS
cdef object COMMENT_SAFE_TAGS = cues.COMMENT_SAFE_TAGS
cdef object SEPARATE_JOINERS = elements.SEPARATE_JOINERS

# One frame per open element: what to restore at its end (walk.py pushes tuples).
cdef enum:
    FRAME_SKIPPED = 0     # subtree skipped: only its tail is read
    FRAME_PLAIN = 1       # changed nothing
    FRAME_RESTORE = 2     # restore the parent's flags and tokens (tokens: Walker.token_stack)

cdef struct Frame:
    int state
    int block_kind        # K_BLOCK or K_PRE for block-level elements, else 0
    bint was_link
    bint separate         # an elements.SEPARATE_TAGS element
    long long parent_flags

# Tag kinds by name pointer: libxml2 interns element names per document.
cdef enum:
    TAG_SLOTS = 256
    TAG_SLOTS_USED = 192

cdef struct TagSlot:
    const_xmlChar* name
    int kind
    long long own
    PyObject* tag         # borrowed: Walker.tag_objects holds the references
    PyObject* node_tag
    bint separate         # tag in elements.SEPARATE_TAGS


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


cdef inline int _space_width(const unsigned char* p) noexcept:
    """Bytes of the UTF-8 character at p when it is whitespace to str.split() / str.isspace(),
    else 0 (Py_UNICODE_ISSPACE: ASCII 9-13, 28-32, U+0085, U+00A0, U+1680, U+2000-200A,
    U+2028, U+2029, U+202F, U+205F, U+3000)."""
    cdef unsigned char b = p[0]
    if b < 0x80:
        return 1 if (b == 32 or 9 <= b <= 13 or 28 <= b <= 31) else 0
    if b == 0xC2:
        return 2 if (p[1] == 0x85 or p[1] == 0xA0) else 0
    if b == 0xE1:
        return 3 if (p[1] == 0x9A and p[2] == 0x80) else 0
    if b == 0xE2:
        if p[1] == 0x80:
            return 3 if (0x80 <= p[2] <= 0x8A or p[2] == 0xA8 or p[2] == 0xA9 or p[2] == 0xAF) else 0
        return 3 if (p[1] == 0x81 and p[2] == 0x9F) else 0
    if b == 0xE3:
        return 3 if (p[1] == 0x80 and p[2] == 0x80) else 0
    return 0


# words.CJK_RE's ranges: scripts written without spaces count one word per two characters
from .words import CJK_RE

assert CJK_RE.pattern == r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]"


cdef inline bint _is_cjk(unsigned int cp) noexcept:
    return (0x3040 <= cp <= 0x30FF or 0x3400 <= cp <= 0x4DBF or 0x4E00 <= cp <= 0x9FFF
            or 0xF900 <= cp <= 0xFAFF)


cdef inline int _char_width(unsigned char b) noexcept:
    """Bytes of the UTF-8 character that starts with byte b."""
    if b < 0x80:
        return 1
    if b < 0xE0:
        return 2
    if b < 0xF0:
        return 3
    return 4


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
    cdef xmlAttr* popover
    cdef xmlAttr* style
    cdef xmlAttr* role
    cdef xmlAttr* itemprop
    cdef xmlAttr* href
    cdef bint special

    cdef void read(self, xmlNode* c) noexcept:
        cdef xmlAttr* a = c.properties
        cdef const char* name
        self.cls = self.idv = self.hidden = self.aria_hidden = self.aria_modal = self.popover = NULL
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
                elif name[0] == c'p':
                    if self.popover is NULL and strcmp(name, "popover") == 0:
                        self.popover = a
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

    cdef bint is_hidden(self, object opened) except -1:
        """hidden.is_hidden, from the attributes already found."""
        cdef bint hidden
        role = _attr_value(self.role) if self.role is not NULL else None
        modal = _attr_value(self.aria_modal) if self.aria_modal is not NULL else None
        if modal == "true" or (role in hidden_module.HIDDEN_ROLES and not (role == "dialog" and modal == "false")):
            return True
        if self.popover is not NULL:
            return True
        if self.hidden is not NULL:
            idv = _attr_value(self.idv) if self.idv is not NULL else ""
            hidden = not idv.startswith("S:")
        elif self.aria_hidden is not NULL and _attr_value(self.aria_hidden) == "true":
            hidden = True
        elif self.style is not NULL:
            style = _attr_value(self.style)
            hidden = bool(style) and _may_hide(style) and hidden_module.hidden_style(style)
        else:
            hidden = False
        if not hidden:
            return False
        if opened and self.idv is not NULL:
            idv = _attr_value(self.idv)
            if idv and idv in opened:
                return False
        if role == "tabpanel":
            return False
        cls = _attr_value(self.cls) if self.cls is not NULL else None
        return not (cls and cues.opens_on_click(cls))


assert hidden_module.HIDDEN_STYLE_RE.pattern == r"display\s*:\s*none|visibility\s*:\s*hidden"
assert "hidden" in hidden_module.CLIPPED_RE.pattern and "opacity" in hidden_module.CLIPPED_RE.pattern


cdef bint _may_hide(str style) except -1:
    """False when hidden.hidden_style cannot be true: an ASCII style holding none of "none",
    "hidden" (display:none, visibility and overflow:hidden) and "opacity" in any case (in ASCII
    text its case-insensitive matches are ASCII ones), the most common kind; the regexes are
    slow on long styles."""
    if not style.isascii():
        return True
    cdef Py_ssize_t size
    cdef const char* text = PyUnicode_AsUTF8AndSize(style, &size)
    return (_has_nocase(text, size, b"none", 4) or _has_nocase(text, size, b"hidden", 6)
            or _has_nocase(text, size, b"opacity", 7))


cdef bint _has_nocase(const char* text, Py_ssize_t size, const char* word, Py_ssize_t n) noexcept:
    """Whether the lower-case ASCII `word` occurs in the ASCII `text` in any case."""
    cdef Py_ssize_t i, j
    cdef char c
    for i in range(size - n + 1):
        for j in range(n):
            c = text[i + j]
            if (c + 32 if c'A' <= c <= c'Z' else c) != word[j]:
                break
        else:
            return True
    return False


cdef object _get(xmlNode* c, const char* wanted):
    """el.get(wanted) for the rarely read attributes (img sources, script type)."""
    cdef xmlAttr* a = c.properties
    while a is not NULL:
        if a.ns is NULL and a.name is not NULL and strcmp(<const char*>a.name, wanted) == 0:
            return _attr_value(a)
        a = a.next
    return None


cdef class _Walker:
    cdef object page
    cdef list texts, tags, nodes, depths, chars, words, link_chars, links, tag_counts, flags, tokens
    cdef list n_tags, n_parents, n_depths, n_first, n_last, n_tagc, n_flags, n_tokens, n_chars, n_link
    cdef list n_elements_of   # the lxml element of each node (page.node_elements)
    cdef list images, token_stack, tag_objects
    # The open block's text as UTF-8, pieces appended as the Python walk appends them to
    # its `pending` list: text is only decoded once per block, after collapsing whitespace.
    cdef char* pending
    cdef Py_ssize_t n_pending, pending_size
    cdef char* collapsed
    cdef Py_ssize_t collapsed_size
    cdef dict jsonld
    cdef Frame* frames
    cdef Py_ssize_t n_frames, frames_size
    cdef Py_ssize_t* node_stack       # open block-level nodes ([0] is -1: none)
    cdef Py_ssize_t* node_start       # n_elements when each open node started
    cdef Py_ssize_t* node_start_chars # characters and link characters of the blocks
    cdef Py_ssize_t* node_start_link  # before each open node (its totals by difference)
    cdef Py_ssize_t total_chars, total_link
    cdef Py_ssize_t n_open, open_size
    cdef TagSlot tag_slots[TAG_SLOTS]
    cdef int tag_slots_used
    cdef _Document doc
    cdef xmlNode* c_root
    cdef _Attrs attrs
    cdef bint include_comments, skip_hidden, limit_hit
    cdef bint separate_end   # the open block's text ends where a SEPARATE_TAGS element ended
    cdef object opened
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
        self.n_chars, self.n_link = page.node_chars, page.node_link_chars
        self.n_elements_of = page.node_elements
        self.images, self.jsonld = page.images, page.jsonld
        self.doc = root._doc
        self.c_root = root._c_node
        self.attrs = _Attrs()
        self.include_comments = include_comments
        self.skip_hidden = skip_hidden
        self.opened = page.opened
        self.token_stack, self.tag_objects = [], []
        self.push_node(-1)
        self.cur_flags = 0
        self.cur_tokens = ()

    def __dealloc__(self):
        PyMem_Free(self.pending)
        PyMem_Free(self.collapsed)
        PyMem_Free(self.frames)
        PyMem_Free(self.node_stack)
        PyMem_Free(self.node_start)
        PyMem_Free(self.node_start_chars)
        PyMem_Free(self.node_start_link)

    cdef Frame* push_frame(self, int state) except NULL:
        cdef Frame* grown
        if self.n_frames == self.frames_size:
            self.frames_size = 2 * self.frames_size + 64
            grown = <Frame*>PyMem_Realloc(self.frames, self.frames_size * sizeof(Frame))
            if grown is NULL:
                raise MemoryError()
            self.frames = grown
        cdef Frame* frame = &self.frames[self.n_frames]
        self.n_frames += 1
        frame.state = state
        frame.block_kind = 0
        frame.was_link = False
        frame.separate = False
        frame.parent_flags = self.cur_flags
        if state == FRAME_RESTORE:
            self.token_stack.append(self.cur_tokens)
        return frame

    cdef int push_node(self, Py_ssize_t node) except -1:
        cdef Py_ssize_t* grown
        if self.n_open == self.open_size:
            self.open_size = 2 * self.open_size + 64
            grown = <Py_ssize_t*>PyMem_Realloc(self.node_stack, self.open_size * sizeof(Py_ssize_t))
            if grown is NULL:
                raise MemoryError()
            self.node_stack = grown
            grown = <Py_ssize_t*>PyMem_Realloc(self.node_start, self.open_size * sizeof(Py_ssize_t))
            if grown is NULL:
                raise MemoryError()
            self.node_start = grown
            grown = <Py_ssize_t*>PyMem_Realloc(self.node_start_chars, self.open_size * sizeof(Py_ssize_t))
            if grown is NULL:
                raise MemoryError()
            self.node_start_chars = grown
            grown = <Py_ssize_t*>PyMem_Realloc(self.node_start_link, self.open_size * sizeof(Py_ssize_t))
            if grown is NULL:
                raise MemoryError()
            self.node_start_link = grown
        self.node_stack[self.n_open] = node
        self.node_start[self.n_open] = self.n_elements
        self.node_start_chars[self.n_open] = self.total_chars
        self.node_start_link[self.n_open] = self.total_link
        self.n_open += 1
        return 0

    cdef int append(self, const char* data, Py_ssize_t n) except -1:
        """Add n bytes to the open block's text."""
        cdef char* grown
        # (4 bytes to spare: the whitespace test may look up to 2 bytes past a cut character)
        if self.n_pending + n + 4 > self.pending_size:
            self.pending_size = 2 * (self.n_pending + n) + 256
            grown = <char*>PyMem_Realloc(self.pending, self.pending_size)
            if grown is NULL:
                raise MemoryError()
            self.pending = grown
        memcpy(self.pending + self.n_pending, data, n)
        self.n_pending += n
        return 0

    cdef str collapse(self, Py_ssize_t* n_words, bint* ascii, bint* clean):
        """" ".join(pending.split()) and its words.count_words, in one pass over the bytes;
        `clean` false unless every character is one words.clean_text leaves as it is for sure
        (below U+0300 but the soft hyphen, or U+2010-U+20CF: punctuation, currency signs).
        None when the text holds a control character (words.drop_controls: C0 but whitespace,
        DEL, U+0080-U+009F), which flush() leaves to the Python way."""
        cdef char* grown
        if self.collapsed_size < self.n_pending:
            self.collapsed_size = 2 * self.n_pending + 256
            grown = <char*>PyMem_Realloc(self.collapsed, self.collapsed_size)
            if grown is NULL:
                raise MemoryError()
            self.collapsed = grown
        cdef const unsigned char* p = <const unsigned char*>self.pending
        cdef Py_ssize_t i = 0, n = self.n_pending, out = 0, words = 0, cjk = 0
        cdef int w
        cdef unsigned int cp
        cdef bint in_word = False
        ascii[0] = True
        clean[0] = True
        while i < n:
            w = _space_width(p + i)
            if w:
                if w == 2 and p[i + 1] == 0x85:   # U+0085: windows-1252's "…" to drop_controls
                    return None
                in_word = False
                i += w
                continue
            if p[i] < 0x20 or p[i] == 0x7F or (p[i] == 0xC2 and i + 1 < n and p[i + 1] < 0xA0):
                return None   # a control character
            if not in_word:
                if words:
                    self.collapsed[out] = c' '
                    out += 1
                words += 1
                in_word = True
            w = _char_width(p[i])
            if w > 1:
                ascii[0] = False
                if i + w > n:   # a cut character: the decoder replaces it
                    w = n - i
                    clean[0] = False
                elif w == 2:
                    # U+0080-U+02FF: lead bytes C2-CB; U+00AD (the soft hyphen) is C2 AD
                    if p[i] >= 0xCC or (p[i] == 0xC2 and p[i + 1] == 0xAD):
                        clean[0] = False
                elif w == 3:
                    cp = ((p[i] & 0x0F) << 12) | ((p[i + 1] & 0x3F) << 6) | (p[i + 2] & 0x3F)
                    if _is_cjk(cp):
                        cjk += 1
                    if cp < 0x2010 or cp > 0x20CF:
                        clean[0] = False
                else:
                    clean[0] = False
            memcpy(self.collapsed + out, p + i, w)
            out += w
            i += w
        n_words[0] = words + cjk // 2
        return PyUnicode_DecodeUTF8(self.collapsed, out, "replace")

    cdef int flush(self) except -1:
        cdef Py_ssize_t n_words, node, n_chars, n_link
        cdef bint ascii, clean
        if self.n_pending:
            if self.pre_depth:
                text = _drop_controls(PyUnicode_DecodeUTF8(self.pending, self.n_pending, "replace")).strip("\n")
                if not text.strip():
                    text = ""
                n_words = count_words(text)
                clean = text.isascii()
            else:
                text = self.collapse(&n_words, &ascii, &clean)
                if text is None:   # control characters: as walk.py, drop them, then split
                    parts = _drop_controls(PyUnicode_DecodeUTF8(self.pending, self.n_pending, "replace")).split()
                    text = " ".join(parts)
                    n_words = len(parts) if text.isascii() else count_words(text)
                    clean = text.isascii()
            self.n_pending = 0
            if not clean:
                text = _clean_text(text)   # NFC, no soft hyphens (as walk.py)
            if text:
                if len(self.texts) >= MAX_BLOCKS:
                    self.limit_hit = True
                else:
                    node = self.node_stack[self.n_open - 1]
                    self.texts.append(text)
                    self.tags.append(self.n_tags[node] if node >= 0 else "html")
                    self.nodes.append(node)
                    self.depths.append(self.depth)
                    n_chars = len(text)
                    n_link = min(self.pend_link, n_chars)
                    self.chars.append(n_chars)
                    self.words.append(n_words)
                    self.link_chars.append(n_link)
                    self.total_chars += n_chars
                    self.total_link += n_link
                    self.links.append(self.pend_links)
                    self.tag_counts.append(self.pend_tags)
                    self.flags.append(self.cur_flags)
                    self.tokens.append(self.cur_tokens)
        self.pend_link = self.pend_links = self.pend_tags = 0
        self.br_run = 0
        return 0

    cdef int add_text(self, xmlNode* first) except -1:
        """The text or tail run starting at `first`, into the open block (the Python walk's
        `if text: if text.isspace(): ... else: ...`, on the run's bytes)."""
        cdef xmlNode* c = _text_or_skip(first)
        cdef xmlNode* node
        cdef const unsigned char* p
        cdef Py_ssize_t i, n, total = 0, chars = 0, lead = 0, trail = 0
        cdef int w
        cdef bint space = True, seen_text = False
        if c is NULL:
            return 0
        # One pass: total bytes, whether all of it is whitespace, and the characters left
        # after stripping whitespace at both ends (for the link text count).
        node = c
        while node is not NULL:
            p = <const unsigned char*>node.content
            if p is not NULL:
                n = strlen(<const char*>p)
                total += n
                i = 0
                while i < n:
                    w = _space_width(p + i)
                    if w:
                        if seen_text:
                            trail += 1
                        else:
                            lead += 1
                    else:
                        space = False
                        seen_text = True
                        trail = 0
                        w = _char_width(p[i])
                    chars += 1
                    i += w
            node = _text_or_skip(node.next)
        if total == 0:
            return 0
        self.separate_end = False
        if space:
            # Whitespace between tags: it only matters inside a text run.
            if self.n_pending:
                if self.pre_depth:
                    self.append_run(c)
                else:
                    self.append(" ", 1)
            return 0
        self.append_run(c)
        if self.link_depth:
            self.pend_link += chars - lead - trail
        self.br_run = 0
        return 0

    cdef int append_run(self, xmlNode* c) except -1:
        while c is not NULL:
            if c.content is not NULL:
                self.append(<const char*>c.content, strlen(<const char*>c.content))
            c = _text_or_skip(c.next)
        return 0

    cdef TagSlot* info(self, xmlNode* c, TagSlot* scratch) except NULL:
        """Kind, own flag bits, el.tag and node tag of an element, cached by its interned name."""
        cdef size_t h = (<size_t>c.name >> 3) % TAG_SLOTS
        cdef TagSlot* slot
        if c.ns is NULL:
            while True:
                slot = &self.tag_slots[h]
                if slot.name == c.name:
                    return slot
                if slot.name is NULL:
                    break
                h = (h + 1) % TAG_SLOTS
        tag = _tag_name(c)
        kind, own = elements.TAG_INFO.get(tag) or elements.tag_info(tag)
        node_tag = tag if kind == K_PRE or tag in elements.BLOCK_TAGS else elements.clean_tag(tag)
        self.tag_objects.append((tag, node_tag))   # keeps the slots' borrowed references alive
        if c.ns is NULL and self.tag_slots_used < TAG_SLOTS_USED:
            self.tag_slots_used += 1
        else:
            slot = scratch   # namespaced, or the table is full: not cached
        slot.name = c.name
        slot.kind = kind
        slot.own = own
        slot.tag = <PyObject*>tag
        slot.node_tag = <PyObject*>node_tag
        slot.separate = tag in elements.SEPARATE_TAGS
        return slot

    cdef object attributes(self, xmlNode* c, int kind, object tag, long long* own):
        """What an element's attributes add: its own flag bits (into *own) and its own id/class
        tokens; None when they make the walk skip it (an anchor mark, hidden, a comment section)."""
        cdef _Attrs attrs = self.attrs
        attrs.read(c)
        if kind == K_LINK and attrs.href is not NULL and _attr_value(attrs.href).startswith("#") \
                and is_anchor_mark(elementFactory(self.doc, c)):
            return None
        if attrs.special:
            if self.skip_hidden and c is not self.c_root and attrs.is_hidden(self.opened):
                self.hidden_skipped += 1
                return None
            if attrs.role is not NULL:
                role = _attr_value(attrs.role)
                if role:
                    own[0] |= <long long>ROLE_FLAGS.get(role, 0)
            if attrs.itemprop is not NULL:
                prop = _attr_value(attrs.itemprop)
                if prop:
                    prop = prop.lower()
                    if prop in BODY_PROPS:
                        own[0] |= FLAG_BODY
                    elif prop in MICRODATA_PROPS:
                        head.note_microdata(prop, elementFactory(self.doc, c), self.page)
        cls = _attr_value(attrs.cls) if attrs.cls is not NULL else None
        idv = _attr_value(attrs.idv) if attrs.idv is not NULL else None
        if cls or idv:
            cue = class_cues(idv, cls)
            # Inside <pre>, a "comment" class is a highlighter's code comment, not a section.
            if cue[2] and not self.include_comments and not self.pre_depth and tag not in COMMENT_SAFE_TAGS:
                return None
            if cue[0] and tag != "body" and tag != "html":
                own[0] |= <long long>cue[0]
            return cue[1]
        return ()

    cdef int start_block(self, xmlNode* c, TagSlot* info, long long own, object own_tokens,
                         object tokens) except -1:
        """A block-level element starts: the open block's text ends and the element opens a node."""
        cdef int kind = info.kind
        cdef Py_ssize_t node
        self.push_frame(FRAME_RESTORE).block_kind = kind
        if self.n_pending:
            self.flush()
        else:
            self.pend_links = 0
        self.depth += 1
        node = len(self.n_tags)
        self.n_tags.append(<object>info.node_tag)
        self.n_parents.append(self.node_stack[self.n_open - 1])
        self.n_depths.append(self.depth)
        self.n_first.append(len(self.texts))
        self.n_last.append(len(self.texts))
        self.n_tagc.append(0)
        self.n_chars.append(0)
        self.n_link.append(0)
        self.n_flags.append(self.cur_flags | own)
        self.n_tokens.append(own_tokens)
        self.n_elements_of.append(elementFactory(self.doc, c))
        self.push_node(node)
        if kind == K_PRE:
            self.pre_depth += 1
        self.cur_flags |= own
        self.cur_tokens = tokens
        return 0

    cdef int start(self, xmlNode* c) except -1:
        """The walk's start event for element c; says what to do with its children."""
        cdef TagSlot scratch
        cdef TagSlot* info = self.info(c, &scratch)
        cdef int kind = info.kind
        cdef long long own = info.own
        cdef Frame* frame
        tag = <object>info.tag
        if kind == K_SKIP:
            if tag == "head":
                head.read_head(elementFactory(self.doc, c), self.page)
            elif tag == "script":
                text = _run_text(c.children)
                if text and (_get(c, "type") or "").endswith("ld+json"):
                    head.read_jsonld(text, self.jsonld)
            elif tag == "meta" and c.properties is not NULL:
                head.read_body_meta(elementFactory(self.doc, c), self.page)
            self.push_frame(FRAME_SKIPPED)
            return SKIP_SUBTREE
        self.n_elements += 1
        self.pend_tags += 1
        own_tokens = ()
        if c.properties is not NULL:
            own_tokens = self.attributes(c, kind, tag, &own)
            if own_tokens is None:   # an anchor mark, hidden, or a comment section
                self.push_frame(FRAME_SKIPPED)
                return SKIP_SUBTREE
        else:
            self.attrs.href = NULL
        tokens = (own_tokens + self.cur_tokens)[:12] if own_tokens else self.cur_tokens
        if kind == K_INLINE:
            if info.separate and self.separate_end and self.n_pending and not self.pre_depth \
                    and chr(<unsigned char>self.pending[self.n_pending - 1]) not in SEPARATE_JOINERS:
                self.append(" ", 1)   # <code>a</code><code>b</code>: two values, not "ab"
            if own or own_tokens:
                frame = self.push_frame(FRAME_RESTORE)
                self.cur_flags |= own
                self.cur_tokens = tokens
            else:
                frame = self.push_frame(FRAME_PLAIN)
            frame.separate = info.separate
        elif kind == K_BLOCK or kind == K_PRE:
            self.start_block(c, info, own, own_tokens, tokens)
        elif kind == K_BR:
            if self.br_run and self.n_pending and not self.pre_depth:
                self.flush()
            else:
                self.append("\n", 1)
                self.br_run += 1
            self.push_frame(FRAME_PLAIN)
            return WALK_NO_TEXT
        else:
            if kind == K_LINK:
                if self.attrs.href is not NULL:
                    own |= FLAG_LINK
                    self.link_depth += 1
                    self.pend_links += 1
            elif kind == K_IMG:
                src = (_get(c, "src") or _get(c, "data-src") or _get(c, "data-lazy-src")
                       or _get(c, "data-original"))
                if src:
                    self.images.append((len(self.texts), src.strip(), _get(c, "alt") or "",
                                        _get(c, "width"), _get(c, "height")))
            self.push_frame(FRAME_RESTORE).was_link = (own & FLAG_LINK) != 0
            self.cur_flags |= own
            self.cur_tokens = tokens
        return WALK_WITH_TEXT

    cdef int end(self, xmlNode* c) except -1:
        """The walk's end event for element c (its tail is read by the caller)."""
        cdef Py_ssize_t node
        self.n_frames -= 1
        cdef Frame* frame = &self.frames[self.n_frames]
        if frame.separate:
            self.separate_end = True
        if frame.state != FRAME_RESTORE:
            return 0
        if frame.was_link:
            self.link_depth -= 1
        if frame.block_kind:
            # Flush before restoring the parent's flags: the text belongs to this element.
            if self.n_pending:
                self.flush()
            else:
                self.pend_links = 0
            self.n_open -= 1
            node = self.node_stack[self.n_open]
            self.n_last[node] = len(self.texts)
            self.n_tagc[node] = self.n_elements - self.node_start[self.n_open] + 1
            self.n_chars[node] = self.total_chars - self.node_start_chars[self.n_open]
            self.n_link[node] = self.total_link - self.node_start_link[self.n_open]
            self.depth -= 1
            if frame.block_kind == K_PRE:
                self.pre_depth -= 1
        self.cur_flags = frame.parent_flags
        self.cur_tokens = self.token_stack.pop()
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
    """walk.walk_blocks, compiled: fill `page`; return (hidden elements skipped, limit hit)."""
    cdef _Walker walker = _Walker(root, page, include_comments, skip_hidden)
    walker.run()
    return walker.hidden_skipped, walker.limit_hit
