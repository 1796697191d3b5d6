"""Each stage's bound on its work, in instructions, as docs/design.md "Cost bounds" states it: the
table there is read here, so that the bound the tests hold a stage to is the one the design
states (test_scaling.py, on pathological inputs; test_work_properties.py, on the inputs hypothesis
makes).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

DESIGN = Path(__file__).resolve().parents[2] / "docs" / "design.md"
#: 4x the input may cost at most this many times the work.
GROWTH = 5.0


@dataclass(frozen=True)
class Bound:
    """At most ``fixed + per_byte x bytes`` instructions."""

    fixed: float
    per_byte: float

    def limit(self, size: int) -> float:
        return self.fixed + self.per_byte * size


# A row of the table: | `stage` | what it reads | 40 M + 2,000 a byte |
_ROW_RE = re.compile(r"^\| `(\w+)` \|[^|]+\| ([\d,]+) M \+ ([\d,]+) a byte \|$")


def read_bounds(text: str) -> dict[str, Bound]:
    """The bounds of the table in docs/design.md's "Cost bounds" section, by stage."""
    section = text.split("### Cost bounds", 1)[-1].split("\n## ", 1)[0]
    bounds = {}
    for line in section.splitlines():
        match = _ROW_RE.match(line.strip())
        if match:
            fixed, per_byte = (float(group.replace(",", "")) for group in match.groups()[1:])
            bounds[match.group(1)] = Bound(fixed * 1e6, per_byte)
    return bounds


BOUNDS = read_bounds(DESIGN.read_text(encoding="utf-8"))
