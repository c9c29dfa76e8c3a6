#!/usr/bin/env bash
# The whole test suite on a fresh machine: set-up (idempotent) then pytest.
# Extra arguments go to pytest, e.g. scripts/test.sh -k guardrails  or  scripts/test.sh --screenshots
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
bash scripts/setup.sh test
export TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS="" HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
# Both cores: one pytest-xdist worker per core (at most 4; each worker starts its own pgserver and
# servers). --dist loadfile runs each test file whole, in file order, on one worker: the notebooks
# share one database in order, module fixtures (live servers, JupyterLab) are built once. Files are
# handed out in collection order (browser tests first), not by test count. Not loadgroup: with
# pytest 9.2 its xdist_group marks are silently ignored (pytest-xdist issue 1386).
# VIGNETTE_TEST_WORKERS=0 runs everything in this one process; a later -n in the arguments wins.
workers="${VIGNETTE_TEST_WORKERS:-$(nproc 2>/dev/null || echo 1)}"
[ "$workers" -le 4 ] || workers=4
xdist=()
[ "$workers" -le 1 ] || xdist=(-n "$workers" --dist loadfile --no-loadscope-reorder)
exec .venv/bin/python -m pytest "${xdist[@]}" "$@"
