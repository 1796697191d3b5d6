"""Crawl sites as training pages (training/sites.py): a site folder of real pages, made in tmp."""

from __future__ import annotations

import io
import json
import tarfile
from pathlib import Path

import pytest
from conftest import FIXTURES

from scrapy_boilerplate.cli import main
from scrapy_boilerplate.training.datasets import load_datasets
from scrapy_boilerplate.training.sites import is_site, load_site

PAGES = FIXTURES / "real" / "sites" / "indiantinker"
FILES = ("index.html", "page2/index.html", "page36/index.html")


def make_site(folder: Path, labels: dict[str, str], own_domains: list[str]) -> Path:
    """A site folder as ../shared/sites has them: site.json, and site.tar.gz of real pages."""
    folder.mkdir(parents=True)
    with tarfile.open(folder / "site.tar.gz", "w:gz") as tar:
        for name in FILES:
            data = (PAGES / name).read_bytes()
            info = tarfile.TarInfo("./" + name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    meta = {"name": folder.name, "own_domains": own_domains, "labels": labels}
    (folder / "site.json").write_text(json.dumps(meta), encoding="utf-8")
    return folder


def test_a_sites_pages_have_its_labels_and_the_urls_a_crawler_sees(tmp_path):
    labels = {"index.html": "overview", "page2/index.html": "overview", "page36/index.html": "other"}
    site = make_site(tmp_path / "indiantinker", labels, ["rohitg.in", "www.rohitg.in"])
    assert is_site(site) and not is_site(tmp_path)
    pages = load_site(site)
    assert [(p.id, p.url, p.label, p.site) for p in pages] == [
        ("index.html", "http://rohitg.in/", "overview", "indiantinker"),
        ("page2/index.html", "http://rohitg.in/page2/", "overview", "indiantinker"),
        ("page36/index.html", "http://rohitg.in/page36/", "other", "indiantinker"),
    ]
    assert pages[0].read_html() == (PAGES / "index.html").read_bytes()
    assert pages[0].read_gold() is None


def test_a_site_without_own_domains_is_served_under_its_name(tmp_path):
    site = make_site(tmp_path / "blog", {"index.html": "overview"}, [])
    assert [p.url for p in load_site(site)] == ["http://blog.example/"]


def test_an_unknown_label_is_named(tmp_path):
    site = make_site(tmp_path / "blog", {"index.html": "listing"}, [])
    with pytest.raises(ValueError, match="unknown labels listing"):
        load_site(site)


def test_only_overview_training_reads_sites(tmp_path, capsys):
    site = make_site(tmp_path / "blog", {"index.html": "overview"}, [])
    assert [p.label for p in load_datasets([site], sites=True)] == ["overview"]
    with pytest.raises(ValueError, match="only the overview model trains on them"):
        load_datasets([site])
    # The block model's training says so before any work.
    assert main(["train", str(site), "--output", str(tmp_path / "model.json")]) != 0
    assert "train --overview" in capsys.readouterr().err
    assert not (tmp_path / "model.json").exists()
