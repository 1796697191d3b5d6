"""A byline block ("By Jane Doe · 2 March 2026"): not main content."""

from __future__ import annotations

import re

# "By Jane Doe", "Von Max Muster · 3. März": a byline word, then capitalised names, then the end
# or a separator (a date may follow). "By contrast, ..." or "By 2030 ..." are not bylines.
BYLINE_RE = re.compile(
    r"^(?i:by|von|par|por|di|door|av|af|przez|od)\s+(?:[A-ZÀ-ÖØ-Þ][\w'’.-]*\s*){1,4}"
    r"(?:$|[·|•,–—/-]|\band\b|\bund\b|\bet\b|\by\b)"
)
