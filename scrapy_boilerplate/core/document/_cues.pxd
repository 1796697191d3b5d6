# The C types of _cues.py (its one source, in Cython's pure-Python mode). The compiled walk
# (_walk.pyx) cimports class_cues from here and calls it at C level.
cimport cython

cdef tuple NO_CUE
cdef long long FLAG_COMMENT
cdef Py_ssize_t MAX_UNITS, MAX_FAST_NAME, N_CATEGORIES
cdef int ANY_CATEGORY, A_COMMENT_WORD
cdef int[:, ::1] TRIE_NEXT
cdef int[::1] TRIE_FOUND, TRIE_WHOLE
cdef long long[::1] CATEGORY_BITS


@cython.locals(key=tuple, young=dict, cue=tuple, units=list, bits="long long", comment=bint,
               tokens=list, known=dict, unit_cue=tuple)
cpdef tuple class_cues(idv, cls)

@cython.locals(young=dict, cue=tuple)
cpdef tuple unit_cues(str unit)

@cython.locals(n=Py_ssize_t, ch=Py_UCS4, text=str, low="const char*", found=int, bits="long long",
               tokens=list, previous=Py_ssize_t, i=Py_ssize_t, start=Py_ssize_t, comment=bint)
cdef tuple _ascii_unit_cues(str unit)

@cython.locals(k=Py_ssize_t, first=int)
cdef bint _taxonomy(const char* low, Py_ssize_t n) except -1

@cython.locals(m=Py_ssize_t, k=Py_ssize_t)
cdef bint _starts_with(const char* low, Py_ssize_t n, str prefix) noexcept

cdef inline bint _is_letter(int c) noexcept

@cython.locals(mask=int, i=Py_ssize_t, j=Py_ssize_t, node=int, k=int)
cdef int _categories(const char* low, Py_ssize_t start, Py_ssize_t end, bint any_word) noexcept

@cython.locals(mask=int, bits="long long", category=Py_ssize_t)
cdef long long _key_bits(const char* low, Py_ssize_t start, Py_ssize_t end) noexcept

@cython.locals(old=dict, value=tuple)
cdef tuple _from_old(cache, key)

@cython.locals(state=list, max_chars=Py_ssize_t, young=dict, young_chars=Py_ssize_t)
cdef int _cache_put(cache, key, tuple value, Py_ssize_t chars) except -1

@cython.locals(total=Py_ssize_t)
cdef Py_ssize_t _text_size(value) except -1

@cython.locals(total=Py_ssize_t, item=str)
cdef Py_ssize_t _chars(tuple strings) except -1
