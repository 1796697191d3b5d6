"""Rewrite tests/fixtures/expected_predictions.json (a script, not a test).

The file holds, for each fixture page, its blocks (text start) and the probability the shipped
model (scrapy_boilerplate/models/default.json) gives each block, rounded to 6 decimals.
tests/unit/test_model.py::test_stored_predictions recomputes them and compares with a tolerance of
1e-6, so any silent change to parsing, features or tree evaluation shows up.

Rerun this script whenever models/default.json is retrained (or the features or the block
walk are changed on purpose), check the diff, and commit the new JSON with the model:

    python tests/support/regenerate_expected.py
"""

import hashlib
import json
import sys
from importlib import resources
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
FIXTURES = TESTS / "fixtures"
EXPECTED = FIXTURES / "expected_predictions.json"
FIXTURE_NAMES = ["article_en", "article_de", "article_jsonld"]


def model_sha256() -> str:
    data = resources.files("scrapy_boilerplate").joinpath("models/default.json").read_bytes()
    return hashlib.sha256(data).hexdigest()


def fixture_predictions(name: str) -> dict:
    """Blocks and shipped-model probabilities of tests/fixtures/<name>.html."""
    from scrapy_boilerplate.core.document.page import build_page
    from scrapy_boilerplate.core.document.parse import to_element
    from scrapy_boilerplate.core.extractor import Extractor

    page = build_page(to_element((FIXTURES / f"{name}.html").read_bytes()))
    probabilities = Extractor().block_probabilities(page)
    return {"texts": [text[:60] for text in page.texts], "probabilities": [round(float(p), 6) for p in probabilities]}


def main() -> int:
    expected = {"model_sha256": model_sha256(), "pages": {name: fixture_predictions(name) for name in FIXTURE_NAMES}}
    EXPECTED.write_text(json.dumps(expected, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {EXPECTED}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
