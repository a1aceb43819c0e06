#!/usr/bin/env python3
"""BM25 search over the bench corpus with what a Python user would pick.

    python_bm25.py --corpus DIR --engine rank_bm25|llamaindex [--k 10]

Reads DIR/docs/*.md (sorted by name) and DIR/queries.txt, times building the
index in-process (tokenizing included, reading the files not), runs every
query once untimed as a warm-up, then once timed, and prints one JSON object:

    {"engine", "version", "files", "index_seconds", "read_seconds",
     "query_ms": [...], "top": [[doc id, ...], ...], "params": {...}}

Both engines use the bench's shared tokenization (see README.md) and BM25
with k1 = 1.2, b = 0.75 (tantivy's and Lucene's values). Only documents that
hold at least one query term are returned; equal scores are ordered by
document id, ascending.

rank_bm25: BM25Okapi over the pre-tokenized corpus; its idf is Okapi's
ln((N - n + 0.5) / (n + 0.5)) with a floor for terms in more than half the
documents, not Lucene's: that is rank_bm25 as shipped.

llamaindex: llama_index.retrievers.bm25.BM25Retriever. Its constructor
always builds bm25s.BM25() with k1 = 1.5 and removes English stop words at
indexing, so the index is built the way that constructor builds it (TextNode
content, node metadata dicts as the corpus, bm25s.tokenize, BM25.index) but
with k1 = 1.2, no stop words and no stemming, and handed to the retriever as
`existing_bm25` (its documented way in); queries go through
BM25Retriever.retrieve with skip_stemming=True and the shared token pattern.
"""

import argparse
import json
import os
import sys
import time
from importlib.metadata import version

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from corpus import MAX_TOKEN_BYTES, read_corpus, tokenize  # noqa: E402

K1 = 1.2
B = 0.75
# The shared tokenization as one regex for bm25s (which lowercases first and
# then calls findall): a maximal run of str.isalnum() characters of at most
# 39 characters. Characters and bytes are the same on the (ASCII) corpus.
TOKEN_PATTERN = r"(?<![^\W_])[^\W_]{1,%d}(?![^\W_])" % MAX_TOKEN_BYTES
# Extra results asked of a top-k engine so that ties at the cut can be
# ordered by document id.
MARGIN = 10


def top_k_dense(scores, k):
    """Indices of the k best positive scores, ties by index (= doc id order)."""
    matched = np.flatnonzero(scores > 0)
    if len(matched) > k:
        kth = np.partition(scores[matched], len(matched) - k)[len(matched) - k]
        matched = matched[scores[matched] >= kth]
    order = np.lexsort((matched, -scores[matched]))
    return matched[order][:k]


class RankBm25:
    name = "rank_bm25"

    def __init__(self, ids, texts, k):
        from rank_bm25 import BM25Okapi

        self.ids, self.k = ids, k
        self.bm25 = BM25Okapi([tokenize(t) for t in texts], k1=K1, b=B)

    @staticmethod
    def version():
        return "rank-bm25 " + version("rank-bm25")

    def search(self, query):
        scores = self.bm25.get_scores(tokenize(query))
        return [self.ids[i] for i in top_k_dense(scores, self.k)]


class LlamaIndexBm25:
    name = "llamaindex"

    def __init__(self, ids, texts, k):
        import bm25s
        from llama_index.core.schema import MetadataMode, TextNode
        from llama_index.core.vector_stores.utils import node_to_metadata_dict
        from llama_index.retrievers.bm25 import BM25Retriever

        self.k = k
        nodes = [TextNode(text=t, id_=i) for i, t in zip(ids, texts)]
        corpus = [node_to_metadata_dict(n) | {"node_id": n.node_id} for n in nodes]
        tokens = bm25s.tokenize(
            [n.get_content(metadata_mode=MetadataMode.EMBED) for n in nodes],
            stopwords=None,
            stemmer=None,
            token_pattern=TOKEN_PATTERN,
            show_progress=False,
        )
        bm25 = bm25s.BM25(k1=K1, b=B, method="lucene", corpus=corpus)
        bm25.index(tokens, show_progress=False)
        self.retriever = BM25Retriever(
            existing_bm25=bm25,
            similarity_top_k=min(k + MARGIN, len(nodes)),
            skip_stemming=True,
            token_pattern=TOKEN_PATTERN,
        )

    @staticmethod
    def version():
        return "llama-index-retrievers-bm25 %s (llama-index-core %s, bm25s %s)" % (
            version("llama-index-retrievers-bm25"),
            version("llama-index-core"),
            version("bm25s"),
        )

    def search(self, query):
        hits = [(-h.score, h.node.node_id) for h in self.retriever.retrieve(query) if h.score > 0]
        hits.sort()
        return [doc_id for _, doc_id in hits[: self.k]]


ENGINES = {"rank_bm25": RankBm25, "llamaindex": LlamaIndexBm25}


def main():
    ap = argparse.ArgumentParser(description="BM25 search with a Python engine")
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--engine", required=True, choices=sorted(ENGINES))
    ap.add_argument("--k", type=int, default=10)
    args = ap.parse_args()

    engine_cls = ENGINES[args.engine]
    t0 = time.perf_counter()
    ids, texts, queries = read_corpus(args.corpus)
    t1 = time.perf_counter()
    engine = engine_cls(ids, texts, args.k)
    t2 = time.perf_counter()

    for q in queries:  # warm-up, untimed
        engine.search(q)
    query_ms, top = [], []
    for q in queries:
        s = time.perf_counter()
        result = engine.search(q)
        query_ms.append((time.perf_counter() - s) * 1000.0)
        top.append(result)

    json.dump(
        {
            "engine": engine_cls.name,
            "version": engine_cls.version(),
            "files": len(ids),
            "index_seconds": t2 - t1,
            "read_seconds": t1 - t0,
            "query_ms": query_ms,
            "top": top,
            "params": {"k1": K1, "b": B, "k": args.k},
        },
        sys.stdout,
    )
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
