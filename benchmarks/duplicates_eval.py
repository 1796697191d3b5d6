"""Near-duplicate detection (core/duplicates/) on copies made from real pages and on all pairs
of the distinct development pages.

1. Every page of the given sets is extracted (our text, as the pipeline judges it).
2. Copies of the article pages with gold text (tests/support/duplicate_pages.py: print, amp,
   repost, wire, truncated) are made and extracted too.
3. Similarities: each copy against its original; every pair of distinct pages (estimated
   Jaccard of 5-word shingles from the 128-position signatures; the pairs above 0.2 listed,
   same-site pairs apart).
4. DuplicateIndex at the threshold: the originals first, then the copies; precision and
   recall of the copies by kind, false copies among the originals.
5. Cost per item (ms, timed without tracemalloc) and memory per remembered item: memory store
   (tracemalloc at the cap),
   Redis store (INFO used_memory, round trips), and datasketch's MinHashLSH (memory and its
   Redis storage) when it is installed.

    python benchmarks/duplicates_eval.py DATASET_DIR... [--threshold T] [--min-words N]
        [--cache TEXTS.json] [--redis-server PATH] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import socket
import statistics
import subprocess
import sys
import time
import tracemalloc
from collections import Counter
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "support"))

from duplicate_pages import KINDS, make_copy  # noqa: E402

from scrapy_boilerplate.core.duplicates import minhash  # noqa: E402
from scrapy_boilerplate.core.duplicates.index import (  # noqa: E402
    DEFAULT_MIN_WORDS,
    DEFAULT_THRESHOLD,
    DuplicateIndex,
)
from scrapy_boilerplate.core.duplicates.store import MemoryDuplicateStore  # noqa: E402
from scrapy_boilerplate.core.extractor import Extractor  # noqa: E402
from scrapy_boilerplate.training.datasets import load_dataset  # noqa: E402


def extract_all(dataset_dirs: list[str], cache: Path | None) -> dict:
    """{"pages": [{key, site, text}], "copies": [{key, original, kind, text}]}, cached."""
    if cache is not None and cache.exists():
        return json.loads(cache.read_text())
    extractor = Extractor()
    pages, copies = [], []
    for folder in dataset_dirs:
        titles = {}
        for line in (Path(folder) / "pages.jsonl").read_text(encoding="utf-8").splitlines():
            if line.strip():
                record = json.loads(line)
                titles[record["id"]] = record.get("title")
        for page in load_dataset(folder):
            raw = page.read_html()
            key = f"{page.dataset}/{page.id}"
            text = extractor.extract(raw, url=page.url).text
            pages.append({"key": key, "site": page.site, "text": text})
            gold = page.read_gold()
            if page.label != "article" or not gold or not titles.get(page.id):
                continue
            lines = [line.strip() for line in gold.splitlines() if line.strip()]
            if len(minhash.words(gold)) < DEFAULT_MIN_WORDS or len(lines) < 2:
                continue
            for kind in KINDS:
                html = make_copy(kind, raw, titles[page.id], lines, seed=hash(key) & 0xFFFF)
                copy_text = extractor.extract(html, url=f"https://copy.example/{kind}/{page.id}").text
                copies.append({"key": f"copy:{kind}:{key}", "original": key, "kind": kind, "text": copy_text})
    data = {"pages": pages, "copies": copies}
    if cache is not None:
        cache.write_text(json.dumps(data))
    return data


def signatures(texts: list[str]) -> np.ndarray:
    sigs = np.zeros((len(texts), minhash.NUM_PERM), np.uint32)
    for i, text in enumerate(texts):
        tokens = minhash.words(text)
        if tokens:
            sigs[i] = minhash.signature(minhash.shingle_hashes(tokens))
    return sigs


def all_pairs(data: dict, min_words: int) -> dict:
    """Estimated similarity of every pair of distinct pages with at least min_words words."""
    pages = [p for p in data["pages"] if len(minhash.words(p["text"])) >= min_words]
    sigs = signatures([p["text"] for p in pages])
    high = []
    best = np.zeros(len(pages))
    for i in range(len(pages)):
        sims = (sigs[i + 1 :] == sigs[i]).mean(axis=1)
        if len(sims):
            best[i] = max(best[i], sims.max())
            best[i + 1 :] = np.maximum(best[i + 1 :], sims)
        for j in np.nonzero(sims >= 0.15)[0]:
            other = pages[i + 1 + j]
            high.append(
                {
                    "a": pages[i]["key"],
                    "b": other["key"],
                    "similarity": round(float(sims[j]), 3),
                    "same_site": pages[i]["site"] == other["site"],
                }
            )
    site_count = Counter(p["site"] for p in pages)
    same_site_pairs = sum(n * (n - 1) // 2 for n in site_count.values())
    return {
        "pages": len(pages),
        "pairs": len(pages) * (len(pages) - 1) // 2,
        "same_site_pairs": same_site_pairs,
        "max_similarity_per_page": {q: round(float(np.quantile(best, q)), 3) for q in (0.5, 0.9, 0.99, 1.0)},
        "pairs_at_or_above": {
            t: sum(h["similarity"] >= t for h in high) for t in (0.15, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8)
        },
        "max_same_site_under_0.7": max(
            (h["similarity"] for h in high if h["same_site"] and h["similarity"] < 0.7), default=None
        ),
        # The pairs to read: above, the same text (pages twice in the sets, test pages of one text).
        "pairs_0.15_to_0.8": sorted((h for h in high if h["similarity"] < 0.8), key=lambda h: -h["similarity"]),
    }


def copy_similarities(data: dict) -> dict:
    by_key = {p["key"]: p["text"] for p in data["pages"]}
    result: dict = {}
    for kind in KINDS:
        sims = []
        for copy in (c for c in data["copies"] if c["kind"] == kind):
            a, b = minhash.words(by_key[copy["original"]]), minhash.words(copy["text"])
            if len(a) < 1 or len(b) < 1:
                sims.append(0.0)
                continue
            sa, sb = set(_shingles(a)), set(_shingles(b))
            sims.append(len(sa & sb) / len(sa | sb))
        sims.sort()
        result[kind] = {
            "copies": len(sims),
            "min": round(sims[0], 3),
            "p5": round(sims[len(sims) // 20], 3),
            "p10": round(sims[len(sims) // 10], 3),
            "median": round(statistics.median(sims), 3),
        }
    return result


def _shingles(tokens: list[str]) -> list[tuple]:
    k = min(minhash.SHINGLE_WORDS, len(tokens))
    return [tuple(tokens[i : i + k]) for i in range(len(tokens) - k + 1)]


def judge_all(data: dict, threshold: float, min_words: int) -> dict:
    """Originals then copies (shuffled) through one index: recall by kind, the originals flagged.

    A copy is found when it names its original, or the earlier page its original itself
    repeats (the dev sets hold a few pages twice: the later one is not remembered); grouped
    when it names its original or another copy of it (where our text of the original page is
    poor, the first copy met stands for the story)."""
    index = DuplicateIndex(threshold, min_words, max_items=10**6)
    flagged_originals = []
    canonical = {}
    for page in data["pages"]:
        j = index.judge(page["text"], page["key"])
        canonical[page["key"]] = j.first or page["key"]
        if j.is_copy:
            flagged_originals.append((page["key"], j.first, round(j.similarity, 3)))
    copies = list(data["copies"])
    random.Random(7).shuffle(copies)
    per_kind: dict = {k: Counter() for k in KINDS}
    for copy in copies:
        j = index.judge(copy["text"], copy["key"])
        counts = per_kind[copy["kind"]]
        counts["copies"] += 1
        counts["judged"] += j.judged
        if j.first is not None and j.first == canonical[copy["original"]]:
            counts["found"] += 1
        elif j.first is not None and j.first.split(":", 2)[-1] == copy["original"]:
            # Another copy of the same story came first (our text of the original differs).
            counts["found_another_copy"] += 1
        elif j.is_copy:
            counts["wrong_first"] += 1
    main = [k for k in KINDS if k != "truncated"]
    found = sum(per_kind[k]["found"] for k in main)
    wrong = sum(per_kind[k]["wrong_first"] for k in KINDS)
    grouped = sum(per_kind[k]["found"] + per_kind[k]["found_another_copy"] for k in main)
    return {
        "threshold": threshold,
        "min_words": min_words,
        "recall_without_truncated": round(found / sum(per_kind[k]["copies"] for k in main), 4),
        "recall": {k: round(per_kind[k]["found"] / per_kind[k]["copies"], 4) for k in KINDS},
        "grouped_without_truncated": round(grouped / sum(per_kind[k]["copies"] for k in main), 4),
        "copies_naming_another_story": wrong,
        "originals_flagged": len(flagged_originals),
        "originals_flagged_under_0.8": sorted((f for f in flagged_originals if f[2] < 0.8), key=lambda f: f[2]),
        "per_kind": {k: dict(v) for k, v in per_kind.items()},
    }


def short_texts(data: dict, threshold: float, min_words: int) -> dict:
    """Pairs of pages at or above the threshold among texts of [10, min_words) words and of
    [min_words, 2 * min_words) words: what judging short texts would flag."""
    out = {}
    for low, high in ((10, min_words), (min_words, 2 * min_words)):
        pages = [p for p in data["pages"] if low <= len(minhash.words(p["text"])) < high]
        sigs = signatures([p["text"] for p in pages])
        pairs = []
        for i in range(len(pages)):
            sims = (sigs[i + 1 :] == sigs[i]).mean(axis=1)
            pairs += [
                (pages[i]["key"], pages[i + 1 + j]["key"], round(float(sims[j]), 3))
                for j in np.nonzero(sims >= threshold)[0]
            ]
        out[f"{low}-{high - 1} words"] = {"pages": len(pages), "pairs_at_threshold": len(pairs), "examples": pairs[:8]}
    return out


def timing(texts: list[str], threshold: float) -> dict:
    """ms per item without tracemalloc: ours (memory store) and datasketch's MinHash + LSH."""
    index = DuplicateIndex(threshold, 0, max_items=len(texts))
    start = time.perf_counter()
    for i, text in enumerate(texts):
        index.judge(text, f"k{i}")
    ours = (time.perf_counter() - start) / len(texts) * 1000
    result = {"ours_ms_per_item": round(ours, 3)}
    try:
        import datasketch
    except ImportError:
        return result
    lsh = datasketch.MinHashLSH(threshold=threshold, num_perm=minhash.NUM_PERM)
    start = time.perf_counter()
    for i, text in enumerate(texts):
        m = _sketch(datasketch, text)
        if not lsh.query(m):
            lsh.insert(f"k{i}", m)
    result["datasketch_ms_per_item"] = round((time.perf_counter() - start) / len(texts) * 1000, 3)
    return result


def _sketch(datasketch, text: str):
    m = datasketch.MinHash(num_perm=minhash.NUM_PERM)
    m.update_batch([" ".join(s).encode() for s in set(_shingles(minhash.words(text)))])
    return m


def random_texts(data: dict, count: int, words: int = 600) -> list[str]:
    vocabulary = sorted({w for p in data["pages"][:300] for w in minhash.words(p["text"])})
    rng = random.Random(3)
    return [" ".join(rng.choices(vocabulary, k=words)) for _ in range(count)]


def cost_memory(texts: list[str], threshold: float) -> dict:
    """ms per judged item and bytes per remembered item of the memory store, at its cap."""
    cap = len(texts) // 2
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    index = DuplicateIndex(threshold, 0, store=MemoryDuplicateStore(cap))
    start = time.perf_counter()
    for i, text in enumerate(texts):
        index.judge(text, f"k{i}")
    seconds = time.perf_counter() - start
    at_cap = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    assert len(index.store) == cap
    return {
        "items": len(texts),
        "cap": cap,
        "ms_per_item": round(seconds / len(texts) * 1000, 3),
        "bytes_per_item_at_cap": round(at_cap / cap),
    }


def start_redis(binary: str | None) -> tuple[subprocess.Popen, str] | None:
    binary = binary or shutil.which("redis-server")
    if binary is None:
        return None
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(
        [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
    )
    time.sleep(0.5)
    return proc, f"redis://127.0.0.1:{port}/0"


class RoundTrips:
    """Counts the commands and pipelines a redis client sends (one round trip each)."""

    def __init__(self, client):
        self.count = 0
        pool = client.connection_pool
        original = pool.get_connection

        def get_connection(*args, **kwargs):
            conn = original(*args, **kwargs)
            if not getattr(conn, "_counted", False):
                send = conn.send_packed_command

                def counted(command, *a, **k):
                    self.count += 1
                    return send(command, *a, **k)

                conn.send_packed_command = counted
                conn._counted = True
            return conn

        pool.get_connection = get_connection


def redis_cost(url: str, texts: list[str], threshold: float) -> dict:
    import redis

    from scrapy_boilerplate.core.duplicates.redis_store import RedisDuplicateStore

    store = RedisDuplicateStore.from_url(url, prefix="bench:", timeout=2.0)
    store.clear()
    trips = RoundTrips(store.client)
    index = DuplicateIndex(threshold, 0, store=store)
    index.judge(texts[0], "warm")  # loads the script
    client = redis.Redis.from_url(url)
    used = int(client.info("memory")["used_memory"])
    trips.count = 0
    start = time.perf_counter()
    for i, text in enumerate(texts[1:]):
        index.judge(text, f"k{i}")
    seconds = time.perf_counter() - start
    grown = int(client.info("memory")["used_memory"]) - used
    n = len(texts) - 1
    return {
        "items": n,
        "ms_per_item": round(seconds / n * 1000, 3),
        "round_trips_per_item": trips.count / n,
        "redis_bytes_per_item": round(grown / n),
        "keys_per_item": round(client.dbsize() / len(texts), 2),
    }


def datasketch_eval(data: dict, texts: list[str], threshold: float, url: str | None) -> dict | None:
    try:
        import datasketch
    except ImportError:
        return None

    def sketch(text: str):
        return _sketch(datasketch, text)

    result: dict = {"version": datasketch.__version__}
    # Cost and memory, as cost_memory() (datasketch has no cap: everything stays).
    cap = len(texts) // 2
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    lsh = datasketch.MinHashLSH(threshold=threshold, num_perm=minhash.NUM_PERM)
    start = time.perf_counter()
    for i, text in enumerate(texts[:cap]):
        m = sketch(text)
        if not lsh.query(m):
            lsh.insert(f"k{i}", m)
    seconds = time.perf_counter() - start
    grown = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    result.update(
        {
            "bands_rows": [lsh.b, lsh.r],
            "ms_per_item": round(seconds / cap * 1000, 3),
            "bytes_per_item": round(grown / cap),
            "note": "the LSH keeps band hashes only; checking candidates needs the "
            "signatures kept beside it (+~1.1 KB as numpy MinHash objects)",
        }
    )
    # Correctness: the same protocol as judge_all (candidates checked on their MinHash).
    lsh = datasketch.MinHashLSH(threshold=threshold, num_perm=minhash.NUM_PERM)
    kept: dict = {}
    found = flagged = 0
    for page in data["pages"]:
        if len(minhash.words(page["text"])) < DEFAULT_MIN_WORDS:
            continue
        m = sketch(page["text"])
        hits = [k for k in lsh.query(m) if kept[k].jaccard(m) >= threshold]
        if hits:
            flagged += 1
        else:
            lsh.insert(page["key"], m)
            kept[page["key"]] = m
    for copy in data["copies"]:
        if copy["kind"] == "truncated" or len(minhash.words(copy["text"])) < DEFAULT_MIN_WORDS:
            continue
        m = sketch(copy["text"])
        hits = [k for k in lsh.query(m) if kept[k].jaccard(m) >= threshold]
        flagged += bool(hits)
        found += copy["original"] in hits
    result["correctness"] = {"copies_found_without_truncated": found, "flagged": flagged}
    if url is not None:
        result["redis"] = _datasketch_redis(datasketch, sketch, texts[:500], threshold, url)
    return result


def _datasketch_redis(datasketch, sketch, texts: list[str], threshold: float, url: str) -> dict:
    import redis

    client = redis.Redis.from_url(url)
    client.flushdb()
    host, port = client.connection_pool.connection_kwargs["host"], client.connection_pool.connection_kwargs["port"]
    lsh = datasketch.MinHashLSH(
        threshold=threshold,
        num_perm=minhash.NUM_PERM,
        storage_config={"type": "redis", "basename": b"bench-ds", "redis": {"host": host, "port": port}},
    )
    inner = lsh.hashtables[0]._redis
    trips = RoundTrips(inner)
    used = int(client.info("memory")["used_memory"])
    queries = inserts = 0
    q_trips = i_trips = 0
    start = time.perf_counter()
    for i, text in enumerate(texts):
        m = sketch(text)
        trips.count = 0
        hit = lsh.query(m)
        q_trips += trips.count
        queries += 1
        if not hit:
            trips.count = 0
            lsh.insert(f"k{i}", m)
            i_trips += trips.count
            inserts += 1
    seconds = time.perf_counter() - start
    grown = int(client.info("memory")["used_memory"]) - used
    ttls = {client.ttl(k) for k in list(client.scan_iter(count=1000))[:50]}
    return {
        "items": len(texts),
        "ms_per_item": round(seconds / len(texts) * 1000, 3),
        "round_trips_per_query": q_trips / queries,
        "round_trips_per_insert": i_trips / max(inserts, 1),
        "redis_bytes_per_item": round(grown / max(inserts, 1)),
        "keys": client.dbsize(),
        "ttl_of_keys": sorted(ttls),
        "example_keys": [k.decode("utf-8", "replace")[:60] for k in list(client.scan_iter(count=10))[:3]],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("datasets", nargs="+")
    parser.add_argument("--threshold", type=float, default=DEFAULT_THRESHOLD)
    parser.add_argument("--min-words", type=int, default=DEFAULT_MIN_WORDS)
    parser.add_argument("--cache", type=Path, help="extracted texts (JSON), made on the first run")
    parser.add_argument("--redis-server", help="redis-server binary (default: on PATH)")
    parser.add_argument("--items", type=int, default=20000, help="items for cost and memory")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    data = extract_all(args.datasets, args.cache)
    report: dict = {"pages": len(data["pages"]), "copies": len(data["copies"])}

    def done(name: str, value) -> None:  # each part as soon as it is measured
        report[name] = value
        print(json.dumps({name: value}, default=str), file=sys.stderr, flush=True)

    done("copy_similarity", copy_similarities(data))
    done("all_pairs", all_pairs(data, args.min_words))
    for threshold in sorted({0.3, 0.4, 0.5, 0.6, args.threshold}):
        done(f"judged at {threshold}", judge_all(data, threshold, args.min_words))
    done("short_texts", short_texts(data, args.threshold, args.min_words))
    texts = random_texts(data, args.items)
    done("timing", timing(texts[:2000], args.threshold))
    done("memory_store", cost_memory(texts, args.threshold))
    server = start_redis(args.redis_server)
    try:
        url = server[1] if server else None
        if url is not None:
            done("redis_store", redis_cost(url, texts[:5001], args.threshold))
        done("datasketch", datasketch_eval(data, texts, args.threshold, url))
    finally:
        if server is not None:
            server[0].terminate()
            server[0].wait()
    text = json.dumps(report, indent=1, default=str)
    print(text)
    if args.json:
        args.json.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
