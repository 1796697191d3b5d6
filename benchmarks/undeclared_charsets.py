"""How often a page that declares no charset, in a legacy encoding, is decoded right (issue 34, item 11).

Pages in Chinese, Japanese, Korean and Russian from the development sets (the language told by the
script of their text: kana, hangul, Han, Cyrillic) are re-encoded to their languages' legacy
encodings (GB18030, Big5, Shift_JIS, EUC-JP, EUC-KR, windows-1251, KOI8-R; characters an encoding
lacks become character references, as such pages write them), with every charset declaration
removed (<meta charset>, http-equiv, the XML declaration's encoding). A page is decoded right when
the text read from the bytes is exactly the re-encoded page's text.

Methods compared, each on every case:
  parse        the package's own reading (core/document/parse.py to_unicode: the UTF-8 check, then
               core/document/charset.py guess_encoding), what extract(bytes) does
  cn-whole     charset-normalizer's best guess on the whole bytes, among all its encodings
  scrapy       Scrapy's own reading of the response served without a charset (Scrapy 2.19:
               charset-normalizer on the whole body, among all its encodings)
  trial        strict decoding in each legacy encoding in turn, keeping the first that decodes with
               the most letters of one script (no frequency tables)

    python benchmarks/undeclared_charsets.py [--datasets DIR] [--methods parse,cn-whole,scrapy,trial]
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import sys
import time
import unicodedata
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from scrapy_boilerplate.core.document import parse  # noqa: E402

TARGETS = {"zh": ("gb18030", "big5"), "ja": ("shift_jis", "euc_jp"), "ko": ("euc_kr",), "ru": ("cp1251", "koi8_r")}
SCRIPTS = {
    "kana": re.compile("[\u3040-\u30ff]"),
    "han": re.compile("[\u4e00-\u9fff]"),
    "hangul": re.compile("[\uac00-\ud7a3]"),
    "cyrillic": re.compile("[\u0400-\u04ff]"),
}
TAGS_RE = re.compile(r"<script\b.*?</script\s*>|<style\b.*?</style\s*>|<[^>]*>", re.I | re.S)
DECLARATION_RES = (
    re.compile(rb"<meta[^>]*charset[^>]*>", re.I),  # <meta charset>, http-equiv
    re.compile(rb"(<\?xml[^>]*?)\s+encoding\s*=\s*[\"'][^\"']*[\"']", re.I),  # the XML declaration's
)


def language(text: str) -> str | None:
    counts = {name: len(pattern.findall(text)) for name, pattern in SCRIPTS.items()}
    if counts["hangul"] >= 50:
        return "ko"
    if counts["kana"] >= 50:
        return "ja"
    if counts["han"] >= 100 and counts["kana"] < 10:
        return "zh"
    if counts["cyrillic"] >= 100:
        return "ru"
    return None


def page_text(data: bytes) -> str | None:
    """The page as text: UTF-8, else its declared encoding; None when it reads as neither."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    match = parse.META_CHARSET_RE.search(data[:4096])
    if not match:
        return None
    try:
        return data.decode(match.group(1).decode("ascii").lower().replace("gb2312", "gb18030"))
    except (LookupError, UnicodeDecodeError):
        return None


def undeclared(data: bytes) -> bytes:
    for pattern in DECLARATION_RES:
        data = pattern.sub(lambda m: m.group(1) if m.groups() else b"", data)
    return data.removeprefix(b"\xef\xbb\xbf")


def cases(datasets: Path):
    """(set/page, language, encoding, bytes, expected text) for every page and target encoding."""
    for pages in sorted(datasets.glob("*/pages.jsonl")):
        for line in pages.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            data = gzip.decompress((pages.parent / record["html"]).read_bytes())
            text = page_text(data)
            if text is None:
                continue
            lang = language(TAGS_RE.sub(" ", text))
            if lang is None:
                continue
            source = undeclared(text.encode("utf-8")).decode("utf-8")
            han = SCRIPTS["han"].findall(source)
            for encoding in TARGETS[lang]:
                if encoding == "big5" and sum(_encodes(c, "big5") for c in han) < 0.9 * len(han):
                    continue  # simplified Chinese: not what Big5 pages hold
                body = source.encode(encoding, errors="xmlcharrefreplace")
                if parse.META_CHARSET_RE.search(body[:4096]) or parse.XML_ENCODING_RE.search(body[:4096]):
                    continue
                if parse._parse._is_utf8(body):
                    continue
                yield f"{pages.parent.name}/{record['id']}", lang, encoding, body, body.decode(encoding)


def _encodes(char: str, encoding: str) -> bool:
    try:
        char.encode(encoding)
    except UnicodeEncodeError:
        return False
    return True


def read_parse(data: bytes) -> str:
    return parse.to_unicode(data)


def read_cn_whole(data: bytes) -> str:
    from charset_normalizer import from_bytes

    best = from_bytes(data).best()
    return data.decode(best.encoding, errors="replace") if best else data.decode("cp1252", errors="replace")


TRIAL = ("gb18030", "big5", "shift_jis", "euc_jp", "euc_kr", "cp1251", "koi8_r", "cp1252")


def read_trial(data: bytes) -> str:
    best, best_score = data.decode("cp1252", errors="replace"), -1.0
    for encoding in TRIAL:
        try:
            text = data.decode(encoding)
        except UnicodeDecodeError:
            continue
        scripts: dict[str, int] = defaultdict(int)
        wide = 0
        for char in text:
            if char >= "\x80":
                wide += 1
                if unicodedata.category(char).startswith("L"):
                    scripts[unicodedata.name(char, " ").split()[0]] += 1
        score = max(scripts.values(), default=0) / max(wide, 1)
        if score > best_score:
            best, best_score = text, score
    return best


def read_scrapy(data: bytes) -> str:
    from scrapy.http import HtmlResponse

    return HtmlResponse("http://example.com/", body=data, headers={"Content-Type": "text/html"}).text


METHODS = {"parse": read_parse, "cn-whole": read_cn_whole, "scrapy": read_scrapy, "trial": read_trial}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--datasets", type=Path, default=ROOT.parent / "shared" / "datasets")
    parser.add_argument("--methods", default="parse,cn-whole,scrapy,trial")
    parser.add_argument("--show-wrong", action="store_true", help="list the cases a method got wrong")
    args = parser.parse_args()
    methods = args.methods.split(",")
    right: dict = defaultdict(int)
    total: dict = defaultdict(int)
    seconds: dict = defaultdict(list)
    wrong: list = []
    for name, lang, encoding, body, expected in cases(args.datasets):
        key = f"{lang} {encoding}"
        total[key] += 1
        for method in methods:
            start = time.perf_counter()
            got = METHODS[method](body)
            seconds[method].append(time.perf_counter() - start)
            ok = got == expected
            right[(method, key)] += ok
            if not ok:
                wrong.append((method, name, key))
    keys = sorted(total)
    print(f"{'language encoding':<20} {'pages':>5}  " + "  ".join(f"{m:>10}" for m in methods))
    for key in keys:
        print(f"{key:<20} {total[key]:>5}  " + "  ".join(f"{right[(m, key)]:>10}" for m in methods))
    cases_n = sum(total.values())
    print(
        f"{'all':<20} {cases_n:>5}  "
        + "  ".join(f"{100 * sum(right[(m, k)] for k in keys) / max(cases_n, 1):>9.1f}%" for m in methods)
    )
    for method in methods:
        times = sorted(seconds[method])
        if times:
            print(f"{method}: median {1000 * times[len(times) // 2]:.1f} ms, max {1000 * times[-1]:.1f} ms a page")
    if args.show_wrong:
        for method, name, key in wrong:
            print("wrong", method, name, key)


if __name__ == "__main__":
    main()
