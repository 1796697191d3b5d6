"""The parsers of bytes that declare no charset, feeds, sitemaps and robots.txt: on the inputs
hypothesis makes of their formats' pieces (work_properties.py: a unit repeated to two sizes four
times apart), the work of each call stays within its stage's bound (work_bounds.BOUNDS) and grows
no faster than its input, counted in instructions under callgrind.

tests/unit/test_feed_properties.py and test_charsets.py check the same parsers on any input for
exceptions and the shape of what they give, without counting.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from work_bounds import BOUNDS, GROWTH
from work_properties import PROPERTIES

pytestmark = [pytest.mark.scaling, pytest.mark.slow]

#: Heads and units per property (after the property's own examples), each counted at two sizes.
EXAMPLES = 8


@dataclass(frozen=True)
class WorkProperty:
    name: str  # work_properties.PROPERTIES

    @property
    def key(self) -> str:
        return f"property/{self.name}"

    @property
    def stage(self) -> str:
        return PROPERTIES[self.name].stage

    def expected_work(self) -> float:
        return EXAMPLES * BOUNDS[self.stage].limit(5 * 4096)

    def request(self) -> dict:
        bound = BOUNDS[self.stage]
        return {
            "key": self.key,
            "property": self.name,
            "examples": EXAMPLES,
            "growth": GROWTH,
            "fixed": bound.fixed,
            "per_byte": bound.per_byte,
        }


@pytest.mark.parametrize("case", [WorkProperty(name) for name in PROPERTIES], ids=lambda case: case.name)
def test_work_per_byte_is_within_the_bound(case: WorkProperty, counted: dict) -> None:
    result = counted.get(case.key)
    assert result is not None, f"{case.key}: not counted (the runners' time ran out on earlier cases)"
    bound = BOUNDS[case.stage]
    failure = result["failure"]
    if failure is not None:
        (small, large), (n_small, n_large) = failure["bytes"], failure["instructions"]
        pytest.fail(
            f"{case.key}: {n_small:,} instructions for {small:,} bytes, {n_large:,} for {large:,}: over the "
            f"{case.stage} stage's bound of {bound.limit(large):,.0f} ({bound.fixed:,.0f} + "
            f"{bound.per_byte:,.0f} a byte), or more than {GROWTH:g}x the work for 4x the input; the input: "
            f"{failure['head']} then {failure['unit']} repeated"
        )
    assert result["examples"] >= EXAMPLES // 2, f"{case.key}: only {result['examples']} inputs were counted"
