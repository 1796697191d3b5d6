"""The command line (DESIGN.md, "Command line"), in-process and as `python -m scrapy_boilerplate`."""

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import FIXTURES, fixture_bytes

from scrapy_boilerplate import __version__, extract
from scrapy_boilerplate.cli import main

EN = FIXTURES / "article_en.html"
FIRST_WORDS = "When the old parking lot on Fenwick Street closed three years ago"
SUBHEADING = "A question of soil and water"


def run_module(*args, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "scrapy_boilerplate", *args], input=stdin, capture_output=True, timeout=120
    )


# -- as a separate process --------------------------------------------------------------------


def test_module_extract_prints_text():
    done = run_module("extract", str(EN))
    assert done.returncode == 0, done.stderr.decode()
    out = done.stdout.decode("utf-8")
    assert FIRST_WORDS in out
    assert "Accept all cookies" not in out
    assert out.endswith("\n")


def test_module_reads_stdin():
    done = run_module("extract", "-", "--format", "markdown", stdin=fixture_bytes("article_de"))
    assert done.returncode == 0, done.stderr.decode()
    out = done.stdout.decode("utf-8")
    assert "## Zu wenige Wagen für zu viele Fahrgäste" in out
    assert "Noch vor zehn Jahren schien das Ende der Nachtzüge" in out


def test_module_missing_file_is_exit_code_1_without_traceback(tmp_path):
    done = run_module("extract", str(tmp_path / "missing.html"))
    assert done.returncode == 1
    err = done.stderr.decode()
    assert "error" in err and "missing.html" in err
    assert "Traceback" not in err
    assert done.stdout == b""


def test_module_version():
    done = run_module("--version")
    assert done.returncode == 0
    assert done.stdout.decode().split()[0] == __version__


# -- in process -------------------------------------------------------------------------------


def test_extract_text(capsys):
    assert main(["extract", str(EN)]) == 0
    out = capsys.readouterr().out
    assert FIRST_WORDS in out
    assert SUBHEADING in out.splitlines()
    assert "Related articles" not in out


def test_extract_json(capsys):
    assert main(["extract", str(EN), "--format", "json", "--url", "https://example.com/news/a.html"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert {"title", "text", "markdown", "html", "images"} <= set(data)
    assert data["url"] == "https://example.com/news/a.html"
    assert data["title"] == "How Community Gardens Are Changing City Neighbourhoods"
    assert FIRST_WORDS in data["text"]
    assert data["images"] == ["https://example.com/images/fenwick-garden.jpg"]
    # Article metadata: the fixture's byline and <meta name=description>; no site name declared.
    assert data["authors"] == ["Maria Lopez"] and data["language"] == "en"
    assert data["description"] == "Vacant lots are turning into shared gardens across the city."
    assert data["site_name"] is None and data["date_modified"] is None


def test_extract_markdown(capsys):
    assert main(["extract", str(EN), "--format", "markdown"]) == 0
    assert f"## {SUBHEADING}" in capsys.readouterr().out.splitlines()


def test_extract_html(capsys):
    from lxml import etree

    assert main(["extract", str(EN), "--format", "html"]) == 0
    root = etree.fromstring(f"<div>{capsys.readouterr().out}</div>")
    assert root.findtext("h2") == SUBHEADING


def test_extract_options(capsys):
    assert main(["extract", str(EN), "--include-captions", "--include-title"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "How Community Gardens Are Changing City Neighbourhoods"
    assert "Volunteers planting tomatoes" in out


def test_extract_model_free(capsys):
    assert main(["extract", str(EN), "--no-model"]) == 0
    assert FIRST_WORDS in capsys.readouterr().out


def test_extract_stdin(capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(fixture_bytes("article_en"))))
    assert main(["extract", "-"]) == 0
    assert FIRST_WORDS in capsys.readouterr().out


def test_extract_empty_file_prints_nothing(tmp_path, capsys):
    empty = tmp_path / "empty.html"
    empty.write_bytes(b"")
    assert main(["extract", str(empty)]) == 0
    assert capsys.readouterr().out == ""


def test_missing_file(tmp_path, capsys):
    assert main(["extract", str(tmp_path / "missing.html")]) == 1
    captured = capsys.readouterr()
    assert "missing.html" in captured.err
    assert captured.out == ""


def test_bad_model_file_is_an_error_message(tmp_path, capsys):
    model = tmp_path / "model.pkl"
    model.write_bytes(b"not used")
    assert main(["extract", str(EN), "--model", str(model)]) == 1
    assert "pickle" in capsys.readouterr().err


def test_version(capsys, monkeypatch):
    assert main(["--version"]) == 0
    out = capsys.readouterr().out
    assert out.split()[0] == __version__ and "compiled modules:" in out
    monkeypatch.setenv("SCRAPY_BOILERPLATE_PURE_PYTHON", "1")
    assert main(["--version"]) == 0
    assert "compiled modules: none" in capsys.readouterr().out


def test_no_command_prints_help(capsys):
    assert main([]) == 2
    assert "extract" in capsys.readouterr().out


def test_unknown_format_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["extract", str(EN), "--format", "pdf"])
    assert exit_info.value.code == 2
    assert "--format" in capsys.readouterr().err


# -- evaluate ---------------------------------------------------------------------------------


def write_tiny_dataset(folder: Path) -> Path:
    """Two pages in the DESIGN dataset format: raw HTML, gold text, pages.jsonl."""
    (folder / "html").mkdir(parents=True)
    (folder / "gold").mkdir()
    (folder / "html" / "en.html").write_bytes(fixture_bytes("article_en"))
    (folder / "html" / "de.html").write_bytes(fixture_bytes("article_de"))
    (folder / "gold" / "en.txt").write_text(
        "When the old parking lot on Fenwick Street closed three years ago, most residents expected "
        "another apartment block to rise in its place.\nA question of soil and water\n",
        encoding="utf-8",
    )
    (folder / "gold" / "de.txt").write_text(
        "Das größte Problem ist das rollende Material. Moderne Schlafwagen werden nur von wenigen "
        "Herstellern gebaut, und die Lieferzeiten betragen mehrere Jahre.\n",
        encoding="utf-8",
    )
    records = [
        {
            "id": "en",
            "html": "html/en.html",
            "gold": "gold/en.txt",
            "url": "https://a.example/en",
            "lang": "en",
            "label": "article",
            "source": "test",
            "page_type": "article",
            "with": ["A question of soil and water"],
            "without": ["Accept all cookies"],
        },
        {
            "id": "de",
            "html": "html/de.html",
            "gold": "gold/de.txt",
            "url": "https://b.example/de",
            "lang": "de",
            "label": "article",
            "source": "test",
            "page_type": "article",
        },
    ]
    (folder / "pages.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return folder


def test_evaluate_prints_a_table(tmp_path, capsys):
    dataset = write_tiny_dataset(tmp_path / "tiny")
    assert main(["evaluate", str(dataset)]) == 0
    out = capsys.readouterr().out
    assert "tiny" in out
    header = next(line for line in out.splitlines() if "precision" in line)
    assert "f1" in header.split()
    assert "recall" in header.split()
    article_row = next(line for line in out.splitlines() if line.startswith("article"))
    assert article_row.split()[1] == "2"  # pages


def test_evaluate_json(tmp_path, capsys):
    dataset = write_tiny_dataset(tmp_path / "tiny")
    assert main(["evaluate", str(dataset), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    summary = report["tiny"]["summaries"]["all"]
    assert summary["pages"] == 2
    assert 0.0 <= summary["precision"] <= 1.0
    assert summary["recall"] > 0.9  # both gold texts are inside the extracted articles
    assert summary["with_share"] == 1.0 and summary["without_share"] == 1.0


def test_module_evaluate_json(tmp_path):
    dataset = write_tiny_dataset(tmp_path / "tiny")
    done = run_module("evaluate", str(dataset), "--json")
    assert done.returncode == 0, done.stderr.decode()
    assert json.loads(done.stdout)["tiny"]["summaries"]["all"]["pages"] == 2


def write_dataset_with_a_miss(folder: Path) -> Path:
    """The tiny dataset plus a page whose gold text is not on it (F1 0) and a page with
    snippets only (scored by their shares)."""
    dataset = write_tiny_dataset(folder)
    (dataset / "gold" / "miss.txt").write_text(
        "Words that this page does not hold anywhere at all.\n", encoding="utf-8"
    )
    records = [
        {
            "id": "miss",
            "html": "html/en.html",
            "gold": "gold/miss.txt",
            "url": "https://c.example/miss",
            "lang": "en",
            "label": "article",
            "source": "test",
            "page_type": "article",
        },
        {
            "id": "snippets",
            "html": "html/de.html",
            "gold": None,
            "url": None,
            "lang": "de",
            "label": "article",
            "source": "test",
            "with": ["Das größte Problem"],
            "without": [],
        },
    ]
    with open(dataset / "pages.jsonl", "a", encoding="utf-8") as out:
        out.write("".join(json.dumps(r) + "\n" for r in records))
    return dataset


def test_evaluate_per_page_lists_every_page(tmp_path, capsys):
    dataset = write_dataset_with_a_miss(tmp_path / "tiny")
    assert main(["evaluate", str(dataset), "--per-page"]) == 0
    out = capsys.readouterr().out
    listing = out.split("-- tiny: every page", 1)[1]
    rows = {line.split()[0]: line.split() for line in listing.strip().splitlines()[2:]}
    assert set(rows) == {"en", "de", "miss", "snippets"}
    assert rows["miss"][4] == "0.000"  # its F1
    assert rows["miss"][-1] == "https://c.example/miss"
    assert rows["snippets"][2:5] == ["-", "-", "-"]  # no gold: no P, R, F1


def test_evaluate_worst_lists_the_lowest_pages_first(tmp_path, capsys):
    dataset = write_dataset_with_a_miss(tmp_path / "tiny")
    assert main(["evaluate", str(dataset), "--worst", "2"]) == 0
    out = capsys.readouterr().out
    assert "every page" not in out
    listing = out.split("the 2 worst pages", 1)[1].strip().splitlines()[3:]  # title, header, rule
    listed = [line.split()[0] for line in listing]
    # The lowest two by the pages' own scores (F1, or the snippet share without gold), lowest first.
    assert main(["evaluate", str(dataset), "--per-page", "--json"]) == 0
    pages = json.loads(capsys.readouterr().out)["tiny"]["pages"]
    rank = {row["id"]: row["f1"] if row["f1"] is not None else row["with_share"] for row in pages}
    assert listed == sorted(rank, key=rank.get)[:2]
    assert listed[0] == "miss"


def test_evaluate_per_page_and_worst_in_json(tmp_path, capsys):
    dataset = write_dataset_with_a_miss(tmp_path / "tiny")
    assert main(["evaluate", str(dataset), "--per-page", "--worst", "1", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)["tiny"]
    pages = {row["id"]: row for row in report["pages"]}
    assert set(pages) == {"en", "de", "miss", "snippets"}
    assert pages["miss"]["f1"] == 0.0 and pages["miss"]["recall"] == 0.0
    assert pages["snippets"]["f1"] is None and pages["snippets"]["with_share"] == 1.0
    assert pages["en"]["url"] == "https://a.example/en"
    assert set(pages["en"]) == {
        "id",
        "page_type",
        "precision",
        "recall",
        "f1",
        "bow_f1",
        "lcs_f1",
        "with_share",
        "without_share",
        "url",
    }
    assert [row["id"] for row in report["worst"]] == ["miss"]
    assert report["summaries"]["all"]["pages"] == 4


@pytest.mark.parametrize("bad", ["0", "-3", "some"])
def test_evaluate_worst_needs_a_count(tmp_path, capsys, bad):
    with pytest.raises(SystemExit) as stop:
        main(["evaluate", str(tmp_path), "--worst", bad])
    assert stop.value.code == 2
    assert "--worst" in capsys.readouterr().err


def test_evaluate_missing_dataset(tmp_path, capsys):
    assert main(["evaluate", str(tmp_path / "nothing")]) == 1
    assert "pages.jsonl" in capsys.readouterr().err


# -- edges a new user met (issue 17) ----------------------------------------------------------


def test_extract_reads_gzip_files(tmp_path, capsys):
    import gzip

    packed = tmp_path / "page.html.gz"
    packed.write_bytes(gzip.compress(EN.read_bytes()))
    assert main(["extract", str(packed)]) == 0
    assert FIRST_WORDS in capsys.readouterr().out


def test_extract_reads_gzip_on_stdin(capsys, monkeypatch):
    import gzip

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(gzip.compress(EN.read_bytes()))))
    assert main(["extract", "-"]) == 0
    assert FIRST_WORDS in capsys.readouterr().out


def test_broken_gzip_is_one_error_line(tmp_path, capsys):
    import gzip

    broken = tmp_path / "page.html.gz"
    broken.write_bytes(gzip.compress(EN.read_bytes())[:100])
    assert main(["extract", str(broken)]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1 and "not a readable gzip file" in captured.err


def _binary_program() -> bytes:
    return Path(sys.executable).resolve().read_bytes()[:200_000]  # a real executable (ELF, Mach-O, PE)


def test_binary_stdin_gives_empty_output_a_message_and_status_1():
    done = run_module("extract", "-", stdin=_binary_program())
    assert done.returncode == 1
    assert done.stdout == b""
    err = done.stderr.decode()
    assert err.count("\n") == 1 and "standard input: binary data, not an HTML page" in err


def test_binary_file_as_json_is_the_empty_result(tmp_path, capsys):
    binary = tmp_path / "program"
    binary.write_bytes(_binary_program())
    assert main(["extract", str(binary), "--format", "json"]) == 1
    captured = capsys.readouterr()
    data = json.loads(captured.out)
    assert data["text"] == "" and data["title"] is None and data["html"] == ""
    assert "binary data" in captured.err


def test_extract_given_an_overview_model_names_the_mix_up(capsys):
    from importlib import resources

    overview_model = resources.files("scrapy_boilerplate").joinpath("models/overview.json")
    assert main(["extract", str(EN), "--model", str(overview_model)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "this is an overview model" in err and "train" in err


def test_overview_given_a_block_model_names_the_mix_up(capsys):
    from importlib import resources

    block_model = resources.files("scrapy_boilerplate").joinpath("models/default.json")
    assert main(["overview", str(EN), "--model", str(block_model)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "this is a block model" in err and "train --overview" in err


def _without_labels(folder: Path) -> Path:
    jsonl = folder / "pages.jsonl"
    records = [json.loads(line) for line in jsonl.read_text(encoding="utf-8").splitlines()]
    jsonl.write_text(
        "".join(json.dumps({k: v for k, v in r.items() if k != "label"}) + "\n" for r in records), encoding="utf-8"
    )
    return folder


def test_train_overview_without_labels_is_one_error_line(tmp_path):
    dataset = _without_labels(write_tiny_dataset(tmp_path / "tiny"))
    done = run_module("train", str(dataset), "--overview", "--output", str(tmp_path / "m.json"))
    assert done.returncode == 1
    err = done.stderr.decode()
    assert err.count("\n") == 1, err  # no numpy warnings, no traceback
    assert "no page of tiny has a label" in err and '"overview", "article" or "other"' in err
    assert not (tmp_path / "m.json").exists()


def test_train_overview_with_one_kind_of_label_is_an_error(tmp_path, capsys):
    dataset = write_tiny_dataset(tmp_path / "tiny")  # two articles, no overview page
    assert main(["train", str(dataset), "--overview", "--output", str(tmp_path / "m.json")]) == 1
    assert 'no "overview" page' in capsys.readouterr().err


def test_train_block_model_without_gold_or_snippets_points_to_overview(tmp_path, capsys):
    folder = tmp_path / "labels-only"
    folder.mkdir()
    (folder / "a.html").write_bytes(EN.read_bytes())
    (folder / "pages.jsonl").write_text(
        json.dumps({"id": "a", "html": "a.html", "label": "article"}) + "\n", encoding="utf-8"
    )
    assert main(["train", str(folder), "--output", str(tmp_path / "m.json")]) == 1
    err = capsys.readouterr().err
    assert "no page of labels-only has gold text or with/without snippets" in err and "--overview" in err


@pytest.mark.parametrize("command", ["train", "evaluate"])
def test_a_folder_that_is_not_a_dataset_is_one_error_line(tmp_path, command):
    (tmp_path / "notes.txt").write_text("not a dataset", encoding="utf-8")
    extra = ["--output", str(tmp_path / "m.json")] if command == "train" else []
    done = run_module(command, str(tmp_path), *extra)
    assert done.returncode == 1
    err = done.stderr.decode()
    assert err.count("\n") == 1 and "is not a dataset: it has no pages.jsonl" in err
    assert "Errno" not in err
    done = run_module(command, str(tmp_path / "nowhere"), *extra)
    assert done.returncode == 1 and "nowhere: no such folder" in done.stderr.decode()


@pytest.mark.parametrize("recipe", ["stacked", "split"])
def test_train_all_sites_keeps_the_validation_sites(tmp_path, monkeypatch, capsys, recipe):
    from scrapy_boilerplate.training import train as training
    from scrapy_boilerplate.training.datasets import is_validation_site

    dataset = write_tiny_dataset(tmp_path / "tiny")
    records = [json.loads(line) for line in (dataset / "pages.jsonl").read_text().splitlines()]
    held = next(f"s{i}.example" for i in range(100) if is_validation_site(f"s{i}.example"))
    kept = next(f"s{i}.example" for i in range(100) if not is_validation_site(f"s{i}.example"))
    records[0]["url"], records[1]["url"] = f"https://{held}/en", f"https://{kept}/de"
    (dataset / "pages.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    trained_on = []

    def collect(pages):  # stop before fitting: only which pages are used is tested here
        trained_on.append(sorted(p.id for p in pages))
        raise ValueError("stopped by the test")

    monkeypatch.setattr(training, "collect", collect)
    monkeypatch.setattr(training, "walk_pages", collect)
    assert main(["train", str(dataset), "--recipe", recipe, "--output", str(tmp_path / "m.json")]) == 1
    assert main(["train", str(dataset), "--recipe", recipe, "--all-sites", "--output", str(tmp_path / "m.json")]) == 1
    assert trained_on == [["de"], ["de", "en"]]
    err = capsys.readouterr().err
    assert "validation sites held out): 1" in err and "all sites, none held out): 2" in err


def test_extract_with_selectors(capsys):
    # The fixture's "Related articles" box is left out anyway; here the selectors keep only the
    # article's second half and drop its first subheading's section.
    plain = extract(EN.read_bytes())
    assert (
        main(
            [
                "extract",
                str(EN),
                "--content-selector",
                "article",
                "--exclude-selector",
                "h2",
                "--exclude-selector",
                "p:first-of-type",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    expected = extract(EN.read_bytes(), content_selector="article", exclude_selectors=["h2", "p:first-of-type"])
    assert out == expected.text + "\n" and expected.text != plain.text
    assert SUBHEADING not in out.splitlines()


def test_extract_with_an_invalid_selector_is_one_error_line(capsys):
    assert main(["extract", str(EN), "--exclude-selector", "div[["]) == 1
    err = capsys.readouterr().err
    assert err == (
        "scrapy-boilerplate: error: invalid CSS selector 'div[[': Expected ident or '*', got <DELIM '[' at 4>\n"
    )
