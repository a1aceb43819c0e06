#!/usr/bin/env python3
"""Deterministic generator of the knowledge-base bench corpus (stdlib only).

    python3 corpus.py --files 10000 --queries 500 --seed 7 --out DIR

writes DIR/docs/00000.md ... (one small Markdown file each), DIR/queries.txt
(one query a line) and DIR/manifest.json (the parameters and, for each query,
its kind, the document frequency of its terms and its score gap).

The same seed and counts always give byte-identical output: one random.Random
drives everything and no set or hash order is ever iterated.

How the text is made
--------------------
* A vocabulary of pronounceable lowercase words (consonant-vowel syllables),
  drawn with Zipf-like weights 1/(rank + 2).
* 300 topics, each a small set of words; a document has one or two topics and
  takes about a quarter of its words from them. Queries are built from one
  topic, so the best documents hold several query terms and stand clear of
  the documents that hold one.
* Some realistic tokens: numbers (``42``, ``3.14``), hyphenated words,
  code identifiers in backticks (``snake_case``, ``camelCase``, ``fn_name()``)
  and, now and then, a 64-character hex digest, which every engine drops
  because it is longer than the 39 bytes kept.
* Every file is one ``# Title`` line and one to three paragraphs, about
  70-170 words, and never more than MAX_BYTES bytes, so it is a single
  search unit in every engine.

How the queries are chosen
--------------------------
The generator scores candidate queries itself with the bench's BM25
(Lucene idf, k1 1.2, b 0.75, exact document lengths) and keeps a candidate
only when at least 10 files match and the 10th result beats the 11th by at
least GAP (relative), so that the top-10 set is decided by a clear score difference, not by a tie or by
the engines' small differences (tantivy's one-byte length norm, rank_bm25's
idf). Candidates are drawn as about 80 % two to four mid-frequency terms of
one topic, 10 % one mid-frequency term, 10 % one rare term (in 2-9 files)
with one or two mid-frequency terms; the gap filter shifts the kept mix (at
10,000 files, seed 7: 416 topic, 68 single-term, 16 with a rare term).
"""

import argparse
import json
import math
import os
import random
import re
import sys

MAX_BYTES = 1400
VOCAB = 12000
TOPICS = 300
TOPIC_WORDS = 12
GAP = 0.05
K = 10
K1 = 1.2
B = 0.75
MAX_TOKEN_BYTES = 39  # tantivy's RemoveLongFilter::limit(40) keeps len < 40

# bm25s's English stop words (what LlamaIndex's BM25Retriever removes from
# every query whatever it is told); no generated word may be one of them.
STOPWORDS = frozenset(
    "a an and are as at be but by for if in into is it no not of on or such "
    "that the their then there these they this to was will with".split()
)

ONSETS = ["b", "c", "d", "f", "g", "h", "j", "k", "l", "m", "n", "p", "r",
          "s", "t", "v", "w", "z", "b", "d", "k", "l", "m", "n", "p", "r", "s",
          "t", "br", "ch", "dr", "fl", "gr", "pl", "sh", "st", "tr"]
VOWELS = ["a", "e", "i", "o", "u", "a", "e", "i", "o", "u", "ai", "ea", "ou"]
CODAS = ["", "", "", "", "n", "r", "s", "l", "m", "t", "x", "nd", "st"]

TOKEN_RE = re.compile(r"[^\W_]+")  # runs of str.isalnum() characters


def tokenize(text):
    """The bench's shared tokenization: split on every character that is not
    alphanumeric, lowercase, drop tokens of 40 bytes or more."""
    out = []
    for tok in TOKEN_RE.findall(text):
        tok = tok.lower()
        if len(tok.encode("utf-8")) <= MAX_TOKEN_BYTES:
            out.append(tok)
    return out


def read_corpus(path):
    """(doc ids, texts) in sorted file-name order, and the queries: what
    every runner of the bench reads."""
    docs_dir = os.path.join(path, "docs")
    names = sorted(n for n in os.listdir(docs_dir) if n.endswith(".md"))
    ids, texts = [], []
    for name in names:
        with open(os.path.join(docs_dir, name), encoding="utf-8") as f:
            texts.append(f.read())
        ids.append(name[:-3])
    with open(os.path.join(path, "queries.txt"), encoding="utf-8") as f:
        queries = [line.rstrip("\n") for line in f if line.strip()]
    return ids, texts, queries


def make_vocab(rng, n):
    words, seen = [], set()
    while len(words) < n:
        syllables = rng.choice([1, 2, 2, 2, 2, 3])
        w = "".join(rng.choice(ONSETS) + rng.choice(VOWELS) for _ in range(syllables))
        w += rng.choice(CODAS)
        if len(w) < 4 or len(w) > 10 or w in seen or w in STOPWORDS:
            continue
        seen.add(w)
        words.append(w)
    return words


class Sampler:
    """Weighted draws by bisecting a cumulative table (deterministic)."""

    def __init__(self, items, weights):
        self.items = items
        self.cum = []
        total = 0.0
        for w in weights:
            total += w
            self.cum.append(total)
        self.total = total

    def draw(self, rng):
        x = rng.random() * self.total
        lo, hi = 0, len(self.cum) - 1
        while lo < hi:
            mid = (lo + hi) // 2
            if self.cum[mid] < x:
                lo = mid + 1
            else:
                hi = mid
        return self.items[lo]


def realistic_token(rng, word):
    kind = rng.random()
    if kind < 0.30:
        return str(rng.choice([rng.randint(0, 99), rng.randint(100, 9999),
                               rng.randint(1990, 2030)]))
    if kind < 0.40:
        return "%d.%d" % (rng.randint(0, 20), rng.randint(0, 99))
    if kind < 0.65:
        return word() + "-" + word()
    if kind < 0.80:
        return "`%s_%s`" % (word(), word())
    if kind < 0.90:
        a, b = word(), word()
        return "`%s%s`" % (a, b.capitalize())  # camelCase: one token, lowercased
    if kind < 0.97:
        return "`%s_%s()`" % (word(), word())
    return "".join(rng.choice("0123456789abcdef") for _ in range(64))


def make_doc(rng, doc_topics, common, topics):
    def word():
        if rng.random() < 0.25:
            return rng.choice(topics[rng.choice(doc_topics)])
        return common.draw(rng)

    title_words = [word() for _ in range(rng.randint(2, 5))]
    title = "# " + " ".join(w.capitalize() for w in title_words)

    target = rng.randint(70, 170)
    n_par = 1 if target < 100 else rng.choice([1, 2, 2, 3])
    per_par = [target // n_par] * n_par
    paragraphs = []
    for size in per_par:
        sentences, count = [], 0
        while count < size:
            n = min(rng.randint(6, 16), size - count)
            if n < 3 and sentences:
                break
            toks = []
            for _ in range(n):
                if rng.random() < 0.05:
                    toks.append(realistic_token(rng, word))
                else:
                    toks.append(word())
            toks[0] = toks[0][0].upper() + toks[0][1:]
            sentences.append(" ".join(toks) + ".")
            count += n
        paragraphs.append(" ".join(sentences))

    text = title + "\n\n" + "\n\n".join(paragraphs) + "\n"
    while len(text.encode("utf-8")) > MAX_BYTES:
        # Cut the last sentence; a file must stay a single search unit.
        body = text.rstrip("\n")
        cut = body.rfind(". ", 0, len(body) - 1)
        if cut < 0:
            break
        text = body[: cut + 1] + "\n"
    return text


class Index:
    """A small inverted index, only for choosing queries with clear gaps."""

    def __init__(self, docs_tokens):
        self.n = len(docs_tokens)
        self.lengths = [len(t) for t in docs_tokens]
        self.avgdl = sum(self.lengths) / self.n
        self.postings = {}
        for d, toks in enumerate(docs_tokens):
            tf = {}
            for t in toks:
                tf[t] = tf.get(t, 0) + 1
            for t in sorted(tf):
                self.postings.setdefault(t, []).append((d, tf[t]))

    def df(self, term):
        return len(self.postings.get(term, ()))

    def scores(self, terms):
        acc = {}
        for term in terms:
            plist = self.postings.get(term, ())
            idf = math.log(1 + (self.n - len(plist) + 0.5) / (len(plist) + 0.5))
            for d, tf in plist:
                norm = K1 * (1 - B + B * self.lengths[d] / self.avgdl)
                acc[d] = acc.get(d, 0.0) + idf * tf * (K1 + 1) / (tf + norm)
        return sorted(acc.values(), reverse=True)


def gap_at_cut(ranked):
    """Relative gap between the 10th and 11th score (1.0 when fewer match)."""
    if len(ranked) <= K:
        return 1.0
    s10, s11 = ranked[K - 1], ranked[K]
    return (s10 - s11) / s10


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--files", type=int, default=10000)
    ap.add_argument("--queries", type=int, default=500)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--out", required=True)
    ap.add_argument("--gap", type=float, default=GAP,
                    help="least relative gap between the 10th and 11th score (default %(default)s)")
    args = ap.parse_args()

    rng = random.Random(args.seed)
    vocab = make_vocab(rng, VOCAB + TOPICS * TOPIC_WORDS)
    # Common words: Zipf-like over the first VOCAB words.
    common_words = vocab[:VOCAB]
    common = Sampler(common_words, [1.0 / (r + 2) for r in range(VOCAB)])
    # Topic words: their own words, plus a few common mid-rank ones.
    topic_pool = vocab[VOCAB:]
    topics = []
    for t in range(TOPICS):
        own = topic_pool[t * TOPIC_WORDS:(t + 1) * TOPIC_WORDS]
        borrowed = [common_words[rng.randint(300, VOCAB - 1)] for _ in range(3)]
        topics.append(own + borrowed)

    docs_dir = os.path.join(args.out, "docs")
    os.makedirs(docs_dir, exist_ok=True)
    docs_tokens, doc_topics_all = [], []
    for i in range(args.files):
        doc_topics = rng.sample(range(TOPICS), rng.choice([1, 1, 2]))
        text = make_doc(rng, doc_topics, common, topics)
        with open(os.path.join(docs_dir, "%05d.md" % i), "w", encoding="utf-8") as f:
            f.write(text)
        docs_tokens.append(tokenize(text))
        doc_topics_all.append(doc_topics)

    index = Index(docs_tokens)
    n = args.files
    lo_mid, hi_mid = max(3, n // 1000), max(20, n // 50)  # 10..200 at 10,000 files

    def mid(term):
        return lo_mid <= index.df(term) <= hi_mid

    mid_common = [w for w in common_words if mid(w)]
    rare_common = [w for w in common_words if 2 <= index.df(w) <= 9]

    queries, meta, seen = [], [], set()
    attempts = 0
    while len(queries) < args.queries:
        attempts += 1
        if attempts > args.queries * 400:
            sys.exit("corpus.py: could not find %d queries with clear gaps" % args.queries)
        r = rng.random()
        if r < 0.10 and mid_common:
            kind = "single"
            terms = [rng.choice(mid_common)]
        else:
            cands = [w for w in topics[rng.randrange(TOPICS)] if mid(w)]
            if len(cands) < 2:
                continue
            if r < 0.20 and rare_common:
                kind = "rare"
                terms = rng.sample(cands, rng.randint(1, 2)) + [rng.choice(rare_common)]
            else:
                kind = "topic"
                terms = rng.sample(cands, min(len(cands), rng.randint(2, 4)))
        rng.shuffle(terms)
        q = " ".join(terms)
        if q in seen or len(set(terms)) != len(terms):
            continue
        ranked = index.scores(terms)
        gap = gap_at_cut(ranked)
        if len(ranked) < K or gap < args.gap:
            continue
        seen.add(q)
        queries.append(q)
        meta.append({"query": q, "kind": kind, "df": [index.df(t) for t in terms],
                     "matches": len(ranked), "gap": round(gap, 4)})

    with open(os.path.join(args.out, "queries.txt"), "w", encoding="utf-8") as f:
        f.write("\n".join(queries) + "\n")
    manifest = {
        "files": n, "queries": len(queries), "seed": args.seed,
        "avg_tokens": round(index.avgdl, 1), "mid_df": [lo_mid, hi_mid],
        "gap": args.gap, "candidates_tried": attempts, "query_meta": meta,
    }
    with open(os.path.join(args.out, "manifest.json"), "w", encoding="utf-8") as f:
        json.dump(manifest, f, indent=1)
        f.write("\n")
    kinds = {}
    for m in meta:
        kinds[m["kind"]] = kinds.get(m["kind"], 0) + 1
    print("corpus.py: %d files (avg %.1f tokens), %d queries %s, %d candidates tried"
          % (n, index.avgdl, len(queries), json.dumps(kinds, sort_keys=True), attempts),
          file=sys.stderr)


if __name__ == "__main__":
    main()
