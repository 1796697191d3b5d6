"""The runner the scaling tests start under callgrind (work_counts.run_group): counts each case.

    valgrind --tool=callgrind --instr-atstart=no python count_work.py SHIM CASES.json RESULTS.json CPU_SECONDS

Two kinds of case, each with its ``key`` (its results' name) and its bound (``fixed``,
``per_byte``: at most ``fixed + per_byte x bytes`` instructions):

- ``{"stage": name in stage_calls.STAGES, "input": a maker of pathological.py, "sizes": [...],
  "url": ..., "growth": ...}``: the stage is first run once, uncounted, on a small input of the
  same kind (compiled regexes, lazy imports, first-call costs), then counted at each size,
  smallest first. After a size over the bound, or whose work grew more than
  ``growth`` times from the size before for 4x its bytes, the larger sizes are not run (a stage
  gone quadratic would take minutes there). Results: ``{"sizes", "bytes", "instructions" (null:
  not run), "seconds" (CPU seconds under callgrind)}``.
- ``{"property": name in work_properties.PROPERTIES, "examples": n, "growth": ...}``: hypothesis
  makes `n` heads and units (derandomized: the same on every run; a property's examples first),
  each unit repeated to two sizes and both calls counted, until one is over the bound or grew
  more than ``growth`` times for 4x. Results: ``{"examples", "largest" (bytes), "worst":
  {"bytes", "instructions", "share" of the bound}, "failure": null or the first over:
  {"bytes", "instructions" (both sizes), "head", "unit"}}``.

No case is started after CPU_SECONDS of the runner's CPU time (the same on a loaded machine).
Each case's results also hold ``case_seconds``, the CPU seconds it took with what is not counted.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
#: The size of the input of the same kind a stage is first run on, uncounted: what it costs once
#: (compiled patterns, lazy imports) does not depend on the size.
WARM_SIZE = 1024
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "support"))  # hostile_bytes, hostile_crawl, parser_inputs
sys.path.insert(0, str(HERE.parents[1]))  # this checkout's package


def count_case(case: dict, counter: Any) -> dict:
    import pathological
    import stage_calls

    makers = {**pathological.PAGES, **pathological.UNDECLARED, **pathological.FEEDS}
    makers.update({**pathological.SITEMAPS, **pathological.ROBOTS})
    stage, make, url = stage_calls.STAGES[case["stage"]], makers[case["input"]], case["url"]
    stage(make(WARM_SIZE, "warm"), url.format(salt="warm"))()
    counts: list[int | None] = []
    lengths: list[int] = []
    seconds: list[float] = []
    over = False
    for size in case["sizes"]:
        salt = f"s{size}"
        data = make(size, salt)
        lengths.append(len(data))
        if over:  # over its bound already: the next size would only take long
            counts.append(None)
            seconds.append(0.0)
            continue
        call = stage(data, url.format(salt=salt))
        stage_calls.cold()
        start = time.process_time()
        n = counter.count(call, f"{case['key']}/{size}")
        seconds.append(round(time.process_time() - start, 2))
        previous = counts[-1] if counts else None
        over = n > case["fixed"] + case["per_byte"] * len(data) or (
            previous is not None and n > case["growth"] * previous * len(data) / (4 * lengths[-2])
        )
        counts.append(n)
    return {"sizes": case["sizes"], "bytes": lengths, "instructions": counts, "seconds": seconds}


def count_property(case: dict, counter: Any) -> dict:
    import stage_calls
    from hypothesis import HealthCheck, Phase, example, given, settings
    from work_properties import PROPERTIES, sizes

    prop = PROPERTIES[case["property"]]
    seen: dict[str, Any] = {"examples": 0, "largest": 0, "worst": None, "failure": None}

    def counted(data: bytes) -> int:
        call = prop.call(data)
        stage_calls.cold()
        return counter.count(call, case["key"])

    # No input fails in hypothesis's eyes (a count over the bound is noted, not raised): no
    # shrinking and no replay, which would count again and again.
    @settings(
        max_examples=case["examples"],
        derandomize=True,
        database=None,
        deadline=None,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(prop.heads, prop.units)
    def check(head: bytes, unit: bytes) -> None:
        if seen["failure"] is not None:
            return  # one input over the bound says it: the others are not counted (they may be slow)
        small, large = sizes(head, unit)
        n_small, n_large = counted(small), counted(large)
        limit = case["fixed"] + case["per_byte"] * len(large)
        growth = (n_large / n_small) * 4 * len(small) / len(large)
        seen["examples"] += 1
        seen["largest"] = max(seen["largest"], len(large))
        share = n_large / limit
        if seen["worst"] is None or share > seen["worst"]["share"]:
            seen["worst"] = {"bytes": len(large), "instructions": n_large, "share": round(share, 3)}
        if n_large > limit or growth > case["growth"]:
            seen["failure"] = {
                "bytes": [len(small), len(large)],
                "instructions": [n_small, n_large],
                "head": repr(head[:100]),
                "unit": repr(unit[:200]),
            }

    for head, unit in prop.examples:
        check = example(head, unit)(check)
    prop.call(b"warm up")()  # first-call costs, uncounted
    check()
    return seen


def main(shim: str, cases_file: str, results_file: str, cpu_budget: str) -> int:
    import logging

    from work_counts import Counter

    logging.disable(logging.CRITICAL)  # the WARNINGs of hostile pages are expected, not counted work
    counter = Counter(shim, Path(results_file).parent)
    results = {}
    for case in json.loads(Path(cases_file).read_text()):
        start = time.process_time()
        if start > float(cpu_budget):
            break
        results[case["key"]] = count_property(case, counter) if "property" in case else count_case(case, counter)
        results[case["key"]]["case_seconds"] = round(time.process_time() - start, 1)  # with what is not counted
        Path(results_file).write_text(json.dumps(results))  # what is done so far, if a later case fails
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:5]))
