#!/usr/bin/env bash
# Creates target/knowledge-bench/venv (relative to the repo root) with the
# pinned Python engines of requirements.txt. Does nothing when the venv
# exists and was made from the same requirements.txt.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
VENV="$ROOT/target/knowledge-bench/venv"
STAMP="$VENV/.kbench-requirements"

if [ -x "$VENV/bin/python" ] && [ -f "$STAMP" ] && cmp -s "$STAMP" "$HERE/requirements.txt"; then
    exit 0
fi
echo "setup.sh: making $VENV" >&2
mkdir -p "$(dirname "$VENV")"
python3 -m venv "$VENV"
"$VENV/bin/python" -m pip install --disable-pip-version-check -q -r "$HERE/requirements.txt"
cp "$HERE/requirements.txt" "$STAMP"
