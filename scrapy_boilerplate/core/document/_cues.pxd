# The compiled cue lookups that the compiled walk (_walk.pyx) calls at C level.
cpdef tuple unit_cues(str unit)
cpdef tuple class_cues(idv, cls)
