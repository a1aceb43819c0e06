#!/usr/bin/env python3
"""A stand-in for the Rust runner, to test compare.py before it exists.

    fake_runner.py --corpus DIR [--k 10] [--fieldnorm tantivy|exact]

Same command line and JSON as `cargo run --release -p agboss --example
knowledge_bench -- --corpus DIR --k 10`, with "engine": "agboss" and
"index_bytes". It scores the way tantivy does, in pure Python (stdlib only):

    idf(t)   = ln(1 + (N - n + 0.5) / (n + 0.5))
    score    = sum over query terms of idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * dl / avgdl))
    k1 = 1.2, b = 0.75, avgdl = total tokens / N

With --fieldnorm tantivy (the default) dl is the document's token count
rounded down to tantivy's one-byte fieldnorm table (exact up to 40, then
steps of 2, 4, 8, 16, ...), as tantivy stores it; with --fieldnorm exact it
is the count itself. Only documents holding a query term are returned; equal
scores are ordered by document id, ascending.
"""

import argparse
import heapq
import json
import math
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from corpus import read_corpus, tokenize  # noqa: E402

K1 = 1.2
B = 0.75


def fieldnorm_table():
    """tantivy's FIELD_NORMS_TABLE (src/fieldnorm/code.rs): 0..=40 exact, then
    eight steps of 2, eight of 4, eight of 8, and so on, 256 entries."""
    table, value, step = list(range(41)), 40, 2
    while len(table) < 256:
        for _ in range(8):
            if len(table) < 256:
                value += step
                table.append(value)
        step *= 2
    return table


def quantize(length, table):
    lo, hi = 0, len(table) - 1
    while lo < hi:  # largest entry <= length
        mid = (lo + hi + 1) // 2
        if table[mid] <= length:
            lo = mid
        else:
            hi = mid - 1
    return table[lo]


class Index:
    def __init__(self, texts, fieldnorm):
        table = fieldnorm_table()
        self.postings = {}
        lengths = []
        for d, text in enumerate(texts):
            tf = {}
            for t in tokenize(text):
                tf[t] = tf.get(t, 0) + 1
            for t, c in tf.items():
                self.postings.setdefault(t, []).append((d, c))
            n = sum(tf.values())
            lengths.append(quantize(n, table) if fieldnorm == "tantivy" else n)
        self.n = len(texts)
        total_tokens = sum(sum(c for _, c in p) for p in self.postings.values())
        avgdl = total_tokens / self.n  # tantivy: real token count, not the norms
        self.norm = [K1 * (1 - B + B * dl / avgdl) for dl in lengths]

    def size_bytes(self):
        """A rough size: the terms, and 8 bytes for each posting and document."""
        return sum(len(t) + 8 * len(p) for t, p in self.postings.items()) + 8 * self.n

    def search(self, query, k):
        acc = {}
        for term in tokenize(query):
            plist = self.postings.get(term)
            if not plist:
                continue
            idf = math.log(1 + (self.n - len(plist) + 0.5) / (len(plist) + 0.5))
            w = idf * (K1 + 1)
            norm = self.norm
            for d, tf in plist:
                acc[d] = acc.get(d, 0.0) + w * tf / (tf + norm[d])
        return heapq.nsmallest(k, acc, key=lambda d: (-acc[d], d))


def main():
    ap = argparse.ArgumentParser(description="Lucene-style BM25 stand-in for the Rust runner")
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--fieldnorm", choices=["tantivy", "exact"], default="tantivy")
    args = ap.parse_args()

    t0 = time.perf_counter()
    ids, texts, queries = read_corpus(args.corpus)
    t1 = time.perf_counter()
    index = Index(texts, args.fieldnorm)
    t2 = time.perf_counter()
    for q in queries:
        index.search(q, args.k)
    query_ms, top = [], []
    for q in queries:
        s = time.perf_counter()
        hits = index.search(q, args.k)
        query_ms.append((time.perf_counter() - s) * 1000.0)
        top.append([ids[d] for d in hits])
    json.dump(
        {
            "engine": "agboss",
            "version": "fake_runner.py (pure Python, fieldnorm %s)" % args.fieldnorm,
            "files": len(ids),
            "index_seconds": t2 - t1,
            "read_seconds": t1 - t0,
            "index_bytes": index.size_bytes(),
            "query_ms": query_ms,
            "top": top,
            "params": {"k1": K1, "b": B, "k": args.k, "fieldnorm": args.fieldnorm},
        },
        sys.stdout,
    )
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
