#!/usr/bin/env python3
"""Run agboss's knowledge-base search and the Python engines side by side.

    compare.py --corpus DIR --rust "CMD" [--python PY] [--k 10]
               [--json-out FILE] [--min-agreement 0.95]

CMD is a command line (split like a shell would, without one) to which
`--corpus DIR --k K` is added: the Rust runner, e.g. the built
`knowledge_bench` example, or `python3 fake_runner.py` to test this script.
Each Python engine runs in its own subprocess with PY (by default the bench's
venv, target/knowledge-bench/venv). Every runner prints one JSON object on
stdout (see python_bm25.py); their stderr passes through.

Prints a Markdown table (index time, files/s, p50/p99 query latency, each
also as a multiple of agboss's, and each Python engine's top-10 agreement
with agboss: the share of queries whose top-10 sets are equal and whose
ordered lists are equal), writes everything to --json-out if given, and exits
with status 3 when an engine's set agreement is under --min-agreement.
"""

import argparse
import json
import math
import os
import platform
import shlex
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DEFAULT_PYTHON = os.path.join(ROOT, "target", "knowledge-bench", "venv", "bin", "python")
PY_ENGINES = ["rank_bm25", "llamaindex"]


def run_json(cmd):
    print("compare.py: running %s" % " ".join(shlex.quote(c) for c in cmd), file=sys.stderr)
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        sys.exit("compare.py: %s exited with %d" % (cmd[0], proc.returncode))
    # The JSON object is the last line that looks like one; anything a build
    # step printed on stdout before it is ignored.
    for line in reversed(proc.stdout.splitlines()):
        if line.startswith("{"):
            return json.loads(line)
    sys.exit("compare.py: no JSON object on the stdout of %s" % cmd[0])


def percentile(values, p):
    """Nearest-rank percentile (p in 0..100) of a non-empty list."""
    ordered = sorted(values)
    rank = max(1, math.ceil(p / 100.0 * len(ordered)))
    return ordered[rank - 1]


def summary(result):
    q = result["query_ms"]
    return {
        "index_seconds": result["index_seconds"],
        "files_per_second": result["files"] / result["index_seconds"] if result["index_seconds"] > 0 else None,
        "p50_ms": percentile(q, 50),
        "p99_ms": percentile(q, 99),
        "mean_ms": sum(q) / len(q),
    }


def agreement(ours, theirs):
    n = len(ours)
    sets = sum(set(a) == set(b) for a, b in zip(ours, theirs))
    ordered = sum(list(a) == list(b) for a, b in zip(ours, theirs))
    overlap = sum(len(set(a) & set(b)) / max(len(a), len(b), 1) for a, b in zip(ours, theirs))
    differing = [i for i, (a, b) in enumerate(zip(ours, theirs)) if set(a) != set(b)]
    return {
        "queries": n,
        "same_set": sets / n,
        "same_order": ordered / n,
        "mean_overlap": overlap / n,
        "differing_sets": differing,
    }


def fmt(x, digits=3):
    if x is None:
        return "n/a"
    if x >= 100:
        return "%.0f" % x
    return ("%%.%dg" % digits) % x


def times(x, base):
    if x is None or not base:
        return "n/a"
    return "%s×" % fmt(x / base)


def table(results, stats, agree):
    base = stats["agboss"]
    lines = [
        "| engine | index (s) | files/s | p50 (ms) | p99 (ms) | top-10 same set | top-10 same order |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for name, st in stats.items():
        if name == "agboss":
            cells = [fmt(st["index_seconds"]), fmt(st["files_per_second"]), fmt(st["p50_ms"]),
                     fmt(st["p99_ms"]), "(reference)", "(reference)"]
        else:
            cells = [
                "%s (%s)" % (fmt(st["index_seconds"]), times(st["index_seconds"], base["index_seconds"])),
                "%s (%s)" % (fmt(st["files_per_second"]), times(st["files_per_second"], base["files_per_second"])),
                "%s (%s)" % (fmt(st["p50_ms"]), times(st["p50_ms"], base["p50_ms"])),
                "%s (%s)" % (fmt(st["p99_ms"]), times(st["p99_ms"], base["p99_ms"])),
                "%.1f %%" % (100 * agree[name]["same_set"]),
                "%.1f %%" % (100 * agree[name]["same_order"]),
            ]
        lines.append("| %s | %s |" % (name, " | ".join(cells)))
    lines.append("")
    lines.append("Versions: " + "; ".join("%s: %s" % (n, r.get("version", "?")) for n, r in results.items()) + ".")
    a = results["agboss"]
    extra = "%d files, %d queries, k = %d" % (a["files"], len(a["query_ms"]), a.get("params", {}).get("k", 10))
    if "index_bytes" in a:
        extra += "; agboss index size: %d bytes (%.1f MiB)" % (a["index_bytes"], a["index_bytes"] / 2**20)
    lines.append(extra + ". Multiples are engine ÷ agboss: above 1× means more time (or, for files/s, more files) than agboss.")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description="side-by-side BM25 search bench")
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--rust", required=True, help='command of the Rust runner, e.g. "python3 fake_runner.py"')
    ap.add_argument("--python", default=DEFAULT_PYTHON, help="the venv's python (default %(default)s)")
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--engines", default=",".join(PY_ENGINES))
    ap.add_argument("--json-out")
    ap.add_argument("--min-agreement", type=float, default=0.95)
    args = ap.parse_args()

    kargs = ["--corpus", args.corpus, "--k", str(args.k)]
    results = {"agboss": run_json(shlex.split(args.rust) + kargs)}
    for engine in [e for e in args.engines.split(",") if e]:
        results[engine] = run_json(
            [args.python, os.path.join(HERE, "python_bm25.py"), "--engine", engine] + kargs)

    base = results["agboss"]
    for name, r in results.items():
        if r["files"] != base["files"] or len(r["top"]) != len(base["top"]):
            sys.exit("compare.py: %s saw %d files and %d queries, agboss %d and %d"
                     % (name, r["files"], len(r["top"]), base["files"], len(base["top"])))

    stats = {name: summary(r) for name, r in results.items()}
    agree = {name: agreement(base["top"], r["top"]) for name, r in results.items() if name != "agboss"}
    print(table(results, stats, agree))

    low = [n for n, a in agree.items() if a["same_set"] < args.min_agreement]
    if args.json_out:
        out = {
            "corpus": os.path.abspath(args.corpus),
            "machine": {"cpus": os.cpu_count(), "platform": platform.platform(),
                        "python": platform.python_version()},
            "summary": stats,
            "agreement": agree,
            "min_agreement": args.min_agreement,
            "below_min_agreement": low,
            "results": results,
        }
        os.makedirs(os.path.dirname(os.path.abspath(args.json_out)), exist_ok=True)
        with open(args.json_out, "w", encoding="utf-8") as f:
            json.dump(out, f, indent=1)
            f.write("\n")
    if low:
        print("compare.py: top-10 sets agree with agboss on fewer than %.0f %% of the queries for %s"
              % (100 * args.min_agreement, ", ".join(low)), file=sys.stderr)
        sys.exit(3)


if __name__ == "__main__":
    main()
