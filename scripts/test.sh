#!/usr/bin/env bash
# The whole test suite on a fresh machine: set-up (idempotent) then pytest.
# Extra arguments go to pytest, e.g. scripts/test.sh -k guardrails  or  scripts/test.sh --screenshots
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
bash scripts/setup.sh test
export TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS="" HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
exec .venv/bin/python -m pytest "$@"
