"""README's Python snippets name what exists: the names they import, the attributes they read of
an extraction and of an overview verdict, and the fields of a block (README said blocks carry a
`decision`; the field is `is_content`)."""

from __future__ import annotations

import dataclasses
import importlib
import re
from pathlib import Path

from pipeline_site import ARTICLES, site_file

from scrapy_boilerplate import Extractor, detect_overview, extract
from scrapy_boilerplate.core.extraction import Block

README = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
CODE = "\n".join(re.findall(r"```python\n(.*?)```", README, re.S))


def test_the_snippets_are_found():
    assert "result = extract(" in CODE and "verdict = detect_overview(" in CODE


def test_imported_names_exist():
    imports = re.findall(r"^from ([\w.]+) import (.+)$", CODE, re.M)
    assert imports
    for module, names in imports:
        for name in names.split(","):
            assert hasattr(importlib.import_module(module), name.strip()), (module, name)


def test_attributes_read_of_a_result_and_a_verdict_exist():
    html = site_file(ARTICLES[0])
    objects = {
        "result": extract(html, url="https://courier.example/a.html"),
        "verdict": detect_overview(html, url="https://courier.example/a.html"),
        "extractor": Extractor(),
    }
    read = re.findall(r"\b(result|verdict|extractor)\.(\w+)", CODE)
    assert len(read) > 20
    for name, attribute in read:
        assert hasattr(objects[name], attribute), f"README reads {name}.{attribute}"


def test_the_fields_a_block_is_said_to_carry_are_its_fields():
    [listed] = re.findall(r"^result\.blocks\s+# every block: ([^(\n]+)", CODE, re.M)
    said = [word for word in re.split(r",\s*|\s+and\s+", listed.strip()) if word]
    assert len(said) >= 4
    assert set(said) <= {field.name for field in dataclasses.fields(Block)}, said
