# The C types of _context.py (its one source, in Cython's pure-Python mode).
cimport cython


@cython.locals(n=Py_ssize_t, i=Py_ssize_t, k=Py_ssize_t, a=Py_ssize_t, b=Py_ssize_t, lo=Py_ssize_t,
               up=Py_ssize_t, level=Py_ssize_t, run_a=Py_ssize_t, run_b=Py_ssize_t, best=double,
               total_words=double, page_mean_p=double, page_median_p=double, median_body=double,
               hi_total=double, num=double, den=double, span_w=double, left=double, right=double,
               cum_w="double[::1]", cum_pw="double[::1]", cum_hi="double[::1]", w="double[::1]",
               pw="double[::1]", top="double[:, ::1]", sib_count="double[::1]", sib_sum="double[::1]",
               res="double[:, :]", log_of="double[:, ::1]")
cpdef _context_rows(const double[::1] p, const double[::1] words, const Py_ssize_t[::1] parent_first,
                    const Py_ssize_t[::1] parent_last, const Py_ssize_t[::1] grand_first,
                    const Py_ssize_t[::1] grand_last, const Py_ssize_t[::1] sibling_key, out,
                    double high, double paragraph_words)

@cython.locals(n=Py_ssize_t, i=Py_ssize_t, cum_w="double[::1]", cum_pw="double[::1]", cum_hi="double[::1]",
               w="double[::1]", pw="double[::1]")
cdef void _running_sums(const double[::1] p, const double[::1] words, double high, sums, scratch)

@cython.locals(n=Py_ssize_t, i=Py_ssize_t, m=Py_ssize_t, picked="double[::1]", median_p=double)
cdef tuple _medians(const double[::1] p, const double[::1] words, double high, double paragraph_words)

@cython.locals(n=Py_ssize_t, i=Py_ssize_t, level=Py_ssize_t, levels=Py_ssize_t, half=Py_ssize_t,
               top="double[:, ::1]", left=double, right=double)
cdef _max_table(const double[::1] p)

@cython.locals(n=Py_ssize_t, i=Py_ssize_t, n_keys=Py_ssize_t, count="double[::1]", total="double[::1]")
cdef _sibling_sums(const double[::1] p, const Py_ssize_t[::1] sibling_key)

@cython.locals(n=Py_ssize_t, i=Py_ssize_t, j=Py_ssize_t, run_a=Py_ssize_t, run_b=Py_ssize_t, best=double)
cdef tuple _heaviest_run(const double[::1] p, const double[::1] cum_w, double high)

@cython.locals(n=Py_ssize_t, n_nodes=Py_ssize_t, i=Py_ssize_t, owner=Py_ssize_t, level=Py_ssize_t,
               a=Py_ssize_t, b=Py_ssize_t, res="Py_ssize_t[:, ::1]", keys=dict)
cpdef _structure(const Py_ssize_t[::1] nodes, const Py_ssize_t[::1] parents, const Py_ssize_t[::1] first,
                 const Py_ssize_t[::1] last, tags, tokens, out)
