"""The work counts the scaling tests read: every case the session selected, counted once, in two
runners under callgrind side by side (work_counts.py, count_work.py). The session fixture
``counted`` (tests/conftest.py: a conftest.py here would be the ``conftest`` the other tests
import their helpers from) calls ``count_session``.

A test's parameter ``case`` is anything with ``key`` (its results' name), ``request()`` (what
the runner is given) and ``expected_work()`` (to share the work between the two runners).
"""

from __future__ import annotations

import json
import os
import tempfile
import threading
from pathlib import Path
from typing import Any

import pytest
import work_counts

#: The CPU time each runner may take (about twice what its cases take when every stage is within
#: its bounds); the cases left when it runs out are not counted (and fail, saying so): only
#: stages far over their bounds take that long. CPU time, not wall-clock time: the same on a
#: loaded machine.
CPU_BUDGET = 300.0
#: Where the session writes what it counted (JSON), when this environment variable names a file.
RESULTS_ENV = "SCALING_RESULTS"


def _case(item: pytest.Item) -> Any:
    callspec = getattr(item, "callspec", None)
    case = callspec.params.get("case") if callspec is not None else None
    return case if hasattr(case, "request") and hasattr(case, "expected_work") else None


def count_session(request: pytest.FixtureRequest) -> dict:
    """The results of every case this session runs, by key (count_work.py says their shape)."""
    missing = work_counts.missing_tools()
    if missing:
        pytest.skip(missing)
    cases = {case.key: case for case in map(_case, request.session.items) if case is not None}
    # A folder of its own (pytest's base temporary folders are shared by the user's sessions,
    # which remove each other's old ones): the shim, and the runners' requests, dumps and results.
    with tempfile.TemporaryDirectory(prefix="scaling-") as name:
        results = _count(cases, Path(name))
    if os.environ.get(RESULTS_ENV):  # every count and each case's CPU seconds, to set bounds by
        Path(os.environ[RESULTS_ENV]).write_text(json.dumps(results, indent=1))
    return results


def _count(cases: dict[str, Any], folder: Path) -> dict:
    shim = work_counts.build_shim(folder)
    # Two groups of about equal work: the largest first, each to the lighter group.
    groups: list[list[Any]] = [[], []]
    load = [0.0, 0.0]
    for case in sorted(cases.values(), key=lambda case: case.expected_work(), reverse=True):
        lighter = load.index(min(load))
        groups[lighter].append(case)
        load[lighter] += case.expected_work()
    results: dict = {}
    errors: list[BaseException] = []

    def run(k: int) -> None:
        try:
            requests = [case.request() for case in groups[k]]
            results.update(work_counts.run_group(shim, requests, folder / f"group{k}", CPU_BUDGET))
        except BaseException as exc:  # noqa: BLE001 - raised again in the session below
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(k,)) for k in range(2) if groups[k]]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]
    return results
