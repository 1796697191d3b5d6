# The C types of _features.py (its one source, in Cython's pure-Python mode).
cimport cython

cdef Py_ssize_t N_STATS, HEAD
cdef int IN_STOP, IN_TITLE, IN_DESC, IN_BODY
cdef unsigned long long FNV_OFFSET, FNV_PRIME


@cython.locals(n=Py_ssize_t, row=Py_ssize_t, i=Py_ssize_t, length=Py_ssize_t, start=Py_ssize_t,
               ends=Py_ssize_t, commas=Py_ssize_t, punct=Py_ssize_t, digits=Py_ssize_t,
               upper=Py_ssize_t, ch=Py_UCS4, prev=Py_UCS4, t=str, lowered=str,
               h="unsigned long long", known=KnownWords, seen=SeenWords, has_title=bint,
               has_desc=bint, has_body=bint, res="double[:, ::1]")
cpdef _text_stats(list texts, counts, frozenset title_words, frozenset desc_words,
                  frozenset body_words, frozenset stopwords, cue_start_re,
                  const unsigned char[::1] cue_openings, end_marker_re,
                  const unsigned char[::1] end_openings, date_re)

@cython.locals(i=Py_ssize_t, j=Py_ssize_t, res="double[:, :]", columns=dict, hits=list, chain=tuple)
cpdef _token_rows(list chains, dict vocabulary, out)

cdef inline bint _is_word_char(Py_UCS4 ch) noexcept
cdef inline bint _is_digit(Py_UCS4 ch) noexcept
cdef inline bint _is_upper(Py_UCS4 ch) noexcept

@cython.locals(a=Py_ssize_t, b=Py_ssize_t)
cdef bint _may_open(str t, Py_ssize_t length, const unsigned char[::1] openings) noexcept

@cython.locals(k=Py_ssize_t)
cdef bint _same(str a, Py_ssize_t start_a, str b, Py_ssize_t start_b, Py_ssize_t length) noexcept


cdef class KnownWords:
    cdef Py_ssize_t mask
    cdef unsigned long long[::1] hashes
    cdef int[::1] bits_of
    cdef list words

    @cython.locals(h="unsigned long long", ch=Py_UCS4, i=Py_ssize_t)
    cdef void add(self, str word, int bit) noexcept

    @cython.locals(i=Py_ssize_t, word=str)
    cdef Py_ssize_t find(self, unsigned long long h, str s, Py_ssize_t start, Py_ssize_t n) noexcept


cdef class SeenWords:
    cdef Py_ssize_t size, mask, n_used
    cdef Py_ssize_t n_words, n_stop, n_title, n_desc, n_body
    cdef unsigned long long[::1] hashes
    cdef Py_ssize_t[::1] starts, lengths, used

    @cython.locals(size=Py_ssize_t, k=Py_ssize_t)
    cdef int reset(self, Py_ssize_t max_words) except -1

    @cython.locals(i=Py_ssize_t, bits=int)
    cdef void count(self, unsigned long long h, str s, Py_ssize_t start, Py_ssize_t n, KnownWords known) noexcept
