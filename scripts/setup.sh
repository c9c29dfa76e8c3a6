#!/usr/bin/env bash
# Idempotent set-up shared by scripts/start.sh and scripts/test.sh.
#   scripts/setup.sh run   -> .venv with the package (embedded DuckDB, offline engine, Panel, JupyterLab)
#   scripts/setup.sh test  -> the same plus test tools, pgserver (PostgreSQL 16 + pgvector), the BGE-M3
#                             path (torch CPU + FlagEmbedding) and Debian's chromium + CJK fonts
# Re-running is cheap: pip runs only when pyproject.toml or this script changed.
set -euo pipefail
mode="${1:-run}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
py="${PYTHON:-python3}"

if [ "$mode" = "test" ]; then
  need_apt=()
  [ -x /usr/bin/chromium ] || need_apt+=(chromium)
  fc-list 2>/dev/null | grep -qi "Noto Sans CJK" || need_apt+=(fonts-noto-cjk)
  if [ "${#need_apt[@]}" -gt 0 ]; then
    sudo_cmd=""
    [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
    echo "setup: installing Debian packages: ${need_apt[*]}"
    $sudo_cmd apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${need_apt[@]}" >/dev/null
  fi
fi

if [ ! -x .venv/bin/python ]; then
  echo "setup: creating .venv"
  "$py" -m venv .venv
fi

extras="pg"
[ "$mode" = "test" ] && extras="pg,test,bge"
stamp=".venv/.vignette-setup-$mode"
want="$(cat pyproject.toml scripts/setup.sh | sha256sum | cut -c1-16)"
# A test-mode install is a superset of run mode: it satisfies run mode too.
current() { [ -f "$1" ] && [ "$(cat "$1")" = "$want" ]; }
if current "$stamp" || { [ "$mode" = "run" ] && current ".venv/.vignette-setup-test"; }; then
  :
else
  echo "setup: installing vignette-lab[$extras] into .venv (first run takes a few minutes)"
  # Quiet installs: setuptools' editable-install notice is a warning for package authors, and pip
  # warns about find-links folders of this machine's pip configuration that do not exist.
  pipq() { PYTHONWARNINGS=ignore .venv/bin/python -m pip install -q "$@" 2> >(grep -v "^WARNING: Location '" >&2); }
  pipq --upgrade pip
  if [ "$mode" = "test" ]; then
    # The local CPU build; a bare 'torch' would pull a multi-GB CUDA build.
    pipq "torch==2.13.0"
  fi
  pipq -e ".[$extras]"
  echo "$want" > "$stamp"
fi
# The PII gate keeps its compiled patterns across processes ($VIGNETTE_CACHE_DIR/regex, written when a process
# exits; vignette_lab/core/_compiled_patterns.py). One mask here, once per machine, means a user's first process
# already finds them. Cheap (about a second) and harmless if it fails: the gate then compiles as usual.
if [ ! -e "${VIGNETTE_CACHE_DIR:-$HOME/.cache/vignette-lab}/regex" ] && [ "${VIGNETTE_REGEX_CACHE:-on}" != "off" ]; then
  TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS="" HF_HUB_OFFLINE=1 .venv/bin/python -c \
    "from vignette_lab.core.pii import mask_pii; mask_pii('저는 김민지고요 010-1234-5678')" >/dev/null 2>&1 || true
fi
