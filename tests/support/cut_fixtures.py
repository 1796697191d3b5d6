"""Cut the real-page fixtures of tests/fixtures/real from ../shared/datasets (a maintainer's tool).

    python tests/support/cut_fixtures.py [ID...]            # ID: a dataset page's id, or SITE/FILE (CUT_SITES)
    python tests/support/cut_fixtures.py --stale    # the cut pages to cut again (after retraining)

Each page in PAGES is cut down in three steps, each kept only if `extract()` gives the very same
result on the cut page as on the original (text, title, Markdown, HTML, metadata, images), and, for
overview-dev pages, `detect_overview()` the same verdict and score, so that a test on the fixture
checks what it would check on the dataset's page:

1. what the extraction never reads is taken out of the bytes: scripts other than JSON-LD, style
   sheets, SVG drawings, HTML comments, <link> tags other than canonical, alternate and author ones,
   srcset and sizes attributes (required: a page that does not survive it is not written);
2. attributes the extraction never reads (scripts' data-*, on*, js* and framework attributes);
3. the largest elements, one at a time, while the page is over PRUNE_BYTES gzipped: an element
   whose removal leaves the extraction (and verdict) as it was is not what the tests look at.

Writes tests/fixtures/real/<set>/ in the dataset format (pages.jsonl, html/ID.html.gz, gold/ID.txt,
the gold only where GOLD says a test reads it), pages of MAX_PAGE_BYTES at most; tests/fixtures/README.md
names the sources. With ids on the command line only those pages are cut again (the others are kept
as they are).
"""

from __future__ import annotations

import gzip
import json
import re
import sys
from collections.abc import Callable
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
SHARED = TESTS.parents[1] / "shared" / "datasets"
OUT = TESTS / "fixtures" / "real"
# The pages only test_metadata.REAL_PAGES reads: cut to the same metadata and title (step 3 may
# take text out of them), not to the same extraction.
METADATA_ONLY = {
    "wcxb-dev": [
        *"0020 0055 0058 0106 0145 0146 0147 0177 0179 0195 0199 0211 0237 0244 0245 0322 0331 0380 0463".split(),
        *"0470 0479 0501 0503 0513 0517 0538 0546 0587 0767 0956 2861 2862 2867 2903 2916 2934 2970 2971".split(),
        *"4041 4055 4063 4146 4243 4370 4372 4413 4487 4512 4596 4614 4677 4823 4850 4880 4891".split(),
    ],
    "readability": ["lazy-image-2"],
    "overview-dev": ["AndyTheFac-6f99d27ea7", "AndyTheFac-e29c0609ed"],
}
# The pages of the site of tests/support/overview_site.py (test_overview_crawl, test_overview_cli):
# cut to the same extraction and the same overview verdict.
OVERVIEW_SITE = [
    *"TeamHG-Mem-9a58301f64 TeamHG-Mem-d62d05c912 TeamHG-Mem-57dd2935a6 codelucas-c9d119b159".split(),
    *"adbar-e513f56c3b adbar-e6f1dd65a1 adbar-9da80068c2 TeamHG-Mem-9a90c725a3".split(),
]
# The pages that tests name by id (tests/fixtures/README.md says which test reads which).
PAGES = {
    "wcxb-dev": [
        *METADATA_ONLY["wcxb-dev"],
        "0689",  # test_metadata, test_sibling_sections
        # test_tail.REAL and its other real pages
        *"0559 0543 0544 4087 4495 2911 4264 4021 3015 4627 0505 0117 0581 4026 1396 0680 0547".split(),
        *"0076 2904 3067 2860 0437 4532 2852 4106 2920 4435 0577 4354".split(),
        # test_tables
        *"2905 4841 0389 0608 0056 0327 0096 0225 0468 0497 0398 4693 0558".split(),
        # test_unicode, test_extract (titles, Sphinx anchors, code values), test_lists,
        # test_sibling_sections, test_last_section
        *"4554 0415 0384 0491 0661 0662 0663 0664 0665 0606 2993 0005 4695 4698".split(),
    ],
    "readability": [
        *METADATA_ONLY["readability"],
        *"js-link-replacement wikipedia-2 pixnet ietf-1 clean-links mathjax".split(),  # test_tail
        *"google-sre-book-1 links-in-tables tumblr".split(),  # test_tables
        "wapo-2",  # test_unicode
    ],
    "trafilatura-eval": [
        *"archive.org.tv-orange.de.future homify.de-Tischdecke".split(),  # test_tail
        *"harrypotter.fandom.com.spell bafa.de-mineraloelabsatz stardewvalleywiki.com.penny".split(),  # test_tables
        *"archive.org.he.xinhuanet.com.25340717 bayrische-bembel.de.504 proplanta.de.erloesobergrenze".split(),
        *"singapur-reiseinfo.de.abc schleifen.ucoz.de.briefe wordsmith.org.maudlin".split(),
        *"bmas.de-anforderungen bka.de-messengerdienste adac.de.kindersitze".split(),  # test_unicode
        "chip.de.beef",  # test_lists
        "reuters.com.parasite",  # test_credit_line
        *"novalanalove.com.ear-candy otto.de.twoforfashion".split(),  # test_widgets
        *"seelenradio.de.leo correctiv.org.zusage 100noticias.com-millones".split(),  # test_site_rules
        "football.ua.podolski",  # test_charsets
    ],
    "overview-dev": [*OVERVIEW_SITE, *METADATA_ONLY["overview-dev"]],
}
# Pages of the real static sites of ../shared/sites (test_link_roles, test_overview): small, so
# copied whole, with the site's labels, to tests/fixtures/real/sites/<site>/.
SITES = {
    "indiantinker": ["index.html", "page2/index.html", "page36/index.html"],
    "matael": ["index.html"],
    "flauschiversum": ["index.html"],
    # Posts under which the theme links the previous and next post (test_link_roles).
    "bruce30262": ["0ctf-2015-quals-babypolyquine/index.html"],
    "mylittlepwnage": [
        "2009/01/06/wordpress-its-a-hack-and-a-half/index.html",
        # A monthly archive of whole posts, a tag page of one post (test_link_evidence).
        "2009/01/index.html",
        "tag/quake-live/index.html",
        # Two posts of a line each (ArticleSpider: one item each, though their texts come out alike).
        "2009/01/12/and-then-suddenly-we-all-felt-competent-again/index.html",
        "2009/02/16/escape-from-city-17/index.html",
    ],
    "rfernandezdo": ["blog/2023/10/17/hello-world-from-mkdocs-material/index.html"],
    # Mainroad: a post; the home page (a tag cloud and the English edition's home in its menus).
    "soudegesu": ["aws/amazonlinux2-docker/index.html", "index.html"],
    # PaperMod (Hugo): a tag page whose teasers' titles are no links (an empty link covers each card).
    "chicks": ["tags/art/index.html"],
    # Casper (Ghost): a "»" under every teaser, a tag page of one post.
    "stefanscherer": ["page/2/index.html", "tag/ci/index.html"],
}
SHARED_SITES = SHARED.parent / "sites"
# Articles of the real static sites whose code listings number their lines (test_line_numbers), one
# or two a theme: cut as the pages of PAGES are (extracted without a URL), to
# tests/fixtures/real/sites/<site>/, with the site's labels of them. Ids on the command line: SITE/FILE.
CUT_SITES = {
    "binglau7": ["2015/12/19/csrf-xsrf-原理与应对策略/index.html", "2016/01/21/IO模式学习/index.html"],  # Hexo NexT
    "alanlang": ["archives/59303.html"],  # Hexo NexT 5 (one-line listings too)
    "0xbro": ["posts/reverse-and-patch-an-easy-apk/index.html"],  # Jekyll Chirpy: Rouge's table
    "arvimal": ["posts/2008/02/dns-zone-file-sanity-check/index.html"],  # Hugo: Chroma's inline numbers
    "cosmoscalibur": ["en/blog/2024/configurar-segundo-teclado-en-linux/index.html"],  # Sphinx: Pygments inline
    "cyrilou": ["blog/2012-01-07-navigation-avec-le-clavier-pour-bonjourdubstep-fr/index.html"],  # WP-Syntax
}
# The pages whose gold text a test reads (scores against the gold, table rows found in it): the
# others are written without their gold.
GOLD = {
    "wcxb-dev": {
        *"0559 0543 0544 4087 4495 2911 4264 4021 3015 4627 0505 0117 0581 4026 1396 0680 0547".split(),
        *"0076 2904 3067 2860 0437 4532 2852 4106 2920 4435 0577 4354 0606".split(),
        *"2905 4841 0389 0608 0056 0327 0096 0225 0468 0497 0398 4693 0558".split(),
    },
    "readability": {*"js-link-replacement wikipedia-2 pixnet ietf-1 clean-links mathjax".split()}
    | {*"google-sre-book-1 links-in-tables tumblr".split()},
}
# A page is written only if its cut HTML (gzipped) and its gold come to this at most (the fixtures
# stay small: 1.29 MB in all); a page over it is left out and its tests need ../shared. Kept
# whatever their size: the overview site's pages (the site is whole or not at all) and the pages
# that were fixtures before this limit (tests ran on them without ../shared already).
MAX_PAGE_BYTES = 17_500
ANY_SIZE = {*OVERVIEW_SITE, *"0225 0327 0389 0415 0501 0513 0538 0543 2911 4087".split()}
# A page is pruned (step 3) while it is larger than this, gzipped.
PRUNE_BYTES = 8_000
# Elements smaller than this are not tried (their removal saves little, and each try is an extraction).
PRUNE_MIN_ELEMENT = 1_000
PRUNE_TRIES = 100

SCRIPT = re.compile(rb"<script\b([^>]*)>.*?</script\s*>", re.I | re.S)
STYLE = re.compile(rb"<style\b[^>]*>.*?</style\s*>", re.I | re.S)
SVG = re.compile(rb"<svg\b[^>]*>.*?</svg\s*>", re.I | re.S)
COMMENT = re.compile(rb"<!--(?!\[if).*?-->", re.S)
LINK = re.compile(rb"<link\b([^>]*)>", re.I)
# Image candidate lists: the extraction reads src and its lazy-loading stand-ins, never these.
SRCSET = re.compile(rb"""\s(?:data-)?(?:srcset|sizes)\s*=\s*(?:"[^"]*"|'[^']*')""", re.I)
KEPT_LINKS = re.compile(rb"""rel\s*=\s*["']?(?:canonical|alternate|author|amphtml)""", re.I)
# Attributes for scripts and frameworks (data-* but the lazy image sources, event handlers,
# Google's js*, Angular's ng-*, Vue's v-*): step 2 takes them out.
SCRIPT_ATTRIBUTE = re.compile(
    rb"""\s(?:data-(?!(?:lazy-)?src\b|original\b)[\w.:-]+|on[a-z]+|js(?:action|name|controller|model|data)"""
    rb"""|ng-[\w-]+|v-[\w-]+)\s*=\s*(?:"[^"]*"|'[^']*'|[^\s>"']+)""",
    re.I,
)


# Step 1's cuts, in order.
CUTS: list[Callable[[bytes], bytes]] = [
    lambda html: SCRIPT.sub(lambda m: m.group(0) if b"ld+json" in m.group(1).lower() else b"<script></script>", html),
    lambda html: STYLE.sub(b"", html),
    lambda html: SVG.sub(b"<svg></svg>", html),
    lambda html: COMMENT.sub(b"", html),
    lambda html: SRCSET.sub(b"", html),
    lambda html: LINK.sub(lambda m: m.group(0) if KEPT_LINKS.search(m.group(1)) else b"", html),
    lambda html: re.sub(rb"\n\s*\n+", b"\n", html),
]


def cut(html: bytes) -> bytes:
    for step in CUTS:
        html = step(html)
    return html


def strip_script_attributes(html: bytes) -> bytes:
    return SCRIPT_ATTRIBUTE.sub(b"", html)


def outcome(name: str, page_id: str, html: bytes, url: str | None) -> dict:
    """What the fixture must keep: the extraction (on METADATA_ONLY pages its metadata and title),
    and on the overview site's pages the overview verdict."""
    from scrapy_boilerplate import detect_overview, extract

    extraction = extract(html, url=url)
    if page_id in METADATA_ONLY.get(name, ()):
        return {**extraction.metadata.to_dict(), "title": extraction.title}
    out = {**extraction.to_dict(), "markdown": extraction.markdown, "html": extraction.html}
    if name == "overview-dev" and page_id in OVERVIEW_SITE:
        verdict = detect_overview(html, url=url)
        out["overview"] = (verdict.is_overview, verdict.score, verdict.reason)
    return out


def prune(html: bytes, same: Callable[[bytes], bool]) -> bytes:
    """Step 3: remove the largest elements one by one while the page stays the same to `same`."""
    from lxml import etree

    from scrapy_boilerplate.core.document.parse import parse_html

    root = parse_html(html)
    if root is None:
        return html

    def serialize() -> bytes:
        return etree.tostring(root, method="html", encoding="utf-8", doctype="<!DOCTYPE html>")

    if not same(serialize()):  # lxml's serialization alone changes the page: leave it
        return html
    body = root.find("body")
    if body is None:
        return html
    sizes = [(len(etree.tostring(el, method="html", encoding="utf-8")), el) for el in body.iter() if el is not body]
    candidates = [el for size, el in sorted(sizes, key=lambda s: -s[0]) if size >= PRUNE_MIN_ELEMENT]
    best = serialize()
    for el in candidates[:PRUNE_TRIES]:
        if len(gzip.compress(best, mtime=0)) <= PRUNE_BYTES:
            break
        if el.getparent() is None or root not in el.iterancestors():  # gone with an ancestor
            continue
        undo = _remove(el)
        trial = serialize()
        if same(trial):
            best = trial
        else:
            undo()
    return best


def _remove(el) -> Callable[[], None]:
    """Take `el` out of its tree, the text after it kept where it was; returns the undo."""
    parent = el.getparent()
    index = parent.index(el)
    tail, el.tail = el.tail, None
    prev = parent[index - 1] if index > 0 else None
    saved = prev.tail if prev is not None else parent.text
    if tail:
        if prev is not None:
            prev.tail = (prev.tail or "") + tail
        else:
            parent.text = (parent.text or "") + tail
    parent.remove(el)

    def undo() -> None:
        if prev is not None:
            prev.tail = saved
        else:
            parent.text = saved
        el.tail = tail
        parent.insert(index, el)

    return undo


def cut_page(name: str, page_id: str, raw: bytes, url: str | None) -> bytes | None:
    """The cut page; None if the page does not give the same outcome twice (never seen)."""
    want = outcome(name, page_id, raw, url)
    if outcome(name, page_id, raw, url) != want:
        return None

    def same(html: bytes) -> bool:
        return outcome(name, page_id, html, url) == want

    small = cut(raw)
    if not same(small):
        # One of the cuts matters on this page (a script's text the extraction reads, say):
        # each is kept only where it leaves the page the same.
        small = raw
        for step in CUTS:
            trial = step(small)
            if same(trial):
                small = trial
    stripped = strip_script_attributes(small)
    if same(stripped):
        small = stripped
    if len(gzip.compress(small, mtime=0)) > PRUNE_BYTES:
        small = prune(small, same)
    return small


def copy_sites() -> None:
    import tarfile

    for site, members in SITES.items():
        folder = OUT / "sites" / site
        with tarfile.open(SHARED_SITES / site / "site.tar.gz") as tar:
            for member in members:
                handle = tar.extractfile(member)
                assert handle is not None, (site, member)
                (folder / member).parent.mkdir(parents=True, exist_ok=True)
                (folder / member).write_bytes(handle.read())
        meta = json.loads((SHARED_SITES / site / "site.json").read_text(encoding="utf-8"))
        kept = {key: meta[key] for key in ("name", "repo", "commit", "output_dir", "generator", "labels")}
        (folder / "site.json").write_text(json.dumps(kept, ensure_ascii=False, indent=0) + "\n", encoding="utf-8")
        print(f"sites/{site}: {len(members)} pages")


def cut_site_pages(only: set[str]) -> int:
    """Cut the pages of CUT_SITES (those named in `only`, or all of them)."""
    import tarfile

    failed = 0
    for site, members in CUT_SITES.items():
        folder = OUT / "sites" / site
        meta = json.loads((SHARED_SITES / site / "site.json").read_text(encoding="utf-8"))
        with tarfile.open(SHARED_SITES / site / "site.tar.gz") as tar:
            for member in members:
                if only and f"{site}/{member}" not in only:
                    continue
                handle = tar.extractfile(member)
                assert handle is not None, (site, member)
                raw = handle.read()
                small = cut_page(f"sites/{site}", member, raw, None)
                if small is None:
                    print(f"sites/{site}/{member}: not the same extraction twice; not written", file=sys.stderr)
                    failed += 1
                    continue
                (folder / member).parent.mkdir(parents=True, exist_ok=True)
                (folder / member).write_bytes(small)
                print(f"sites/{site}/{member}: {len(raw)} -> {len(small)} bytes", flush=True)
        kept = {key: meta[key] for key in ("name", "repo", "commit", "output_dir", "generator")}
        kept["labels"] = {member: meta["labels"][member] for member in members}
        (folder / "site.json").write_text(json.dumps(kept, ensure_ascii=False, indent=0) + "\n", encoding="utf-8")
    return failed


def main(only: set[str]) -> int:
    failed = 0
    if not only:
        copy_sites()
    if not only or any("/" in page_id for page_id in only):
        failed += cut_site_pages({page_id for page_id in only if "/" in page_id})
    for name, ids in PAGES.items():
        records = {r["id"]: r for r in map(json.loads, (SHARED / name / "pages.jsonl").open(encoding="utf-8"))}
        folder = OUT / name
        (folder / "html").mkdir(parents=True, exist_ok=True)
        (folder / "gold").mkdir(exist_ok=True)
        written = {}
        if (folder / "pages.jsonl").is_file():
            written = {r["id"]: r for r in map(json.loads, (folder / "pages.jsonl").open(encoding="utf-8"))}
        lines = []
        for page_id in dict.fromkeys(ids):
            if only and page_id not in only:
                if page_id in written:
                    lines.append(json.dumps(written[page_id], ensure_ascii=False))
                continue
            record = dict(records[page_id])
            raw = gzip.decompress((SHARED / name / record["html"]).read_bytes())
            small = cut_page(name, page_id, raw, record.get("url"))
            if small is None:
                print(f"{name} {page_id}: not the same extraction twice; not written", file=sys.stderr)
                failed += 1
                continue
            html_path, gold_path = folder / "html" / f"{page_id}.html.gz", folder / "gold" / f"{page_id}.txt"
            html_path.unlink(missing_ok=True)
            gold_path.unlink(missing_ok=True)
            packed = gzip.compress(small, mtime=0)
            gold = b""
            if record.get("gold") and page_id in GOLD.get(name, ()):
                gold = (SHARED / name / record["gold"]).read_bytes()
            if len(packed) + len(gold) > MAX_PAGE_BYTES and page_id not in ANY_SIZE:
                print(f"{name} {page_id}: {len(packed) + len(gold)} bytes cut, over {MAX_PAGE_BYTES}: left out")
                continue
            record["html"] = f"html/{page_id}.html.gz"
            html_path.write_bytes(packed)
            if gold:
                record["gold"] = f"gold/{page_id}.txt"
                gold_path.write_bytes(gold)
            else:
                record.pop("gold", None)
            lines.append(json.dumps(record, ensure_ascii=False))
            print(f"{name} {page_id}: {len(raw)} -> {len(small)} bytes", flush=True)
        (folder / "pages.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return 1 if failed else 0


def stale() -> list[str]:
    """The ids of the cut pages whose extraction is no longer the original page's (a retrained
    model or a changed step can tell a cut page from the whole one): cut them again."""
    ids = []
    for name in PAGES:
        folder = OUT / name
        if not (folder / "pages.jsonl").is_file():
            continue
        records = {r["id"]: r for r in map(json.loads, (SHARED / name / "pages.jsonl").open(encoding="utf-8"))}
        for record in map(json.loads, (folder / "pages.jsonl").open(encoding="utf-8")):
            page_id, url = record["id"], record.get("url")
            small = gzip.decompress((folder / record["html"]).read_bytes())
            raw = gzip.decompress((SHARED / name / records[page_id]["html"]).read_bytes())
            if outcome(name, page_id, small, url) != outcome(name, page_id, raw, url):
                ids.append(page_id)
    import tarfile

    for site, members in CUT_SITES.items():
        with tarfile.open(SHARED_SITES / site / "site.tar.gz") as tar:
            for member in members:
                copy, handle = OUT / "sites" / site / member, tar.extractfile(member)
                if copy.is_file() and handle is not None:
                    name, small, raw = f"sites/{site}", copy.read_bytes(), handle.read()
                    if outcome(name, member, small, None) != outcome(name, member, raw, None):
                        ids.append(f"{site}/{member}")
    return ids


if __name__ == "__main__":
    if sys.argv[1:] == ["--stale"]:
        print(" ".join(stale()))
        sys.exit(0)
    sys.exit(main(set(sys.argv[1:])))
