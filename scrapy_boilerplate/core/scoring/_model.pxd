# The C types of _model.py (its one source, in Cython's pure-Python mode).
cimport cython


@cython.locals(n=Py_ssize_t, n_trees=Py_ssize_t, i=Py_ssize_t, t=Py_ssize_t, a=Py_ssize_t,
               b=Py_ssize_t, c=Py_ssize_t, d=Py_ssize_t, x="const double*", _step=int,
               total=double, res="double[::1]")
cpdef _raw_scores(const double[:, ::1] X, const Py_ssize_t[::1] feat, const double[::1] thr,
                  const Py_ssize_t[::1] child, const double[::1] val, const Py_ssize_t[::1] roots,
                  double baseline, int steps)
