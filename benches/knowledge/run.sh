#!/usr/bin/env bash
# The whole knowledge-base search bench in one command, from anywhere:
#
#   benches/knowledge/run.sh
#
# sets up the Python venv, generates the corpus if it is missing (or was made
# with other settings), builds and runs agboss's runner and the Python
# engines, prints the Markdown table and keeps it, with the JSON, in
# target/knowledge-bench/result.{md,json}.
#
# Settings (environment): KBENCH_FILES (10000), KBENCH_QUERIES (500),
# KBENCH_SEED (7), KBENCH_RUST (a command used instead of the Rust example,
# e.g. "python3 benches/knowledge/fake_runner.py").
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
OUT="$ROOT/target/knowledge-bench"
FILES="${KBENCH_FILES:-10000}"
QUERIES="${KBENCH_QUERIES:-500}"
SEED="${KBENCH_SEED:-7}"
CORPUS="$OUT/corpus"
cd "$ROOT"

bash "$HERE/setup.sh"

# The corpus is made again when the settings or the generator changed.
WANT="files=$FILES queries=$QUERIES seed=$SEED generator=$(sha256sum "$HERE/corpus.py" | cut -c1-16)"
if [ "$(cat "$CORPUS/.settings" 2>/dev/null)" != "$WANT" ]; then
    rm -rf "$CORPUS"
    python3 "$HERE/corpus.py" --files "$FILES" --queries "$QUERIES" --seed "$SEED" --out "$CORPUS"
    echo "$WANT" > "$CORPUS/.settings"
fi

if [ -n "${KBENCH_RUST:-}" ]; then
    RUST="$KBENCH_RUST"
else
    cargo build --release -p agboss --example knowledge_bench
    RUST="cargo run --release -q -p agboss --example knowledge_bench --"
fi

python3 "$HERE/compare.py" --corpus "$CORPUS" --rust "$RUST" \
    --python "$OUT/venv/bin/python" --json-out "$OUT/result.json" | tee "$OUT/result.md"
