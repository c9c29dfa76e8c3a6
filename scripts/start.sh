#!/usr/bin/env bash
# The main job: set up, initialise the embedded DuckDB workbench, then serve JupyterLab (with the
# notebooks and the Panel app inside it) and the standalone Panel app, on 127.0.0.1 only.
#   VIGNETTE_DB      database (default ./vignette.duckdb; postgresql://… for a shared server)
#   JUPYTER_PORT     default 8888      PANEL_PORT   default 5006
# It prints one line per step and the URLs as soon as both servers answer; the knowledge-base
# sync and the environment check (doctor) then run in the background and print their result.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
t0=$SECONDS
step() { echo "start: [$((SECONDS - t0)) s] $*"; }

step "checking the install (scripts/setup.sh run)"
bash scripts/setup.sh run
export TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS="" HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
export VIGNETTE_DB="${VIGNETTE_DB:-$root/vignette.duckdb}"
jport="${JUPYTER_PORT:-8888}"
pport="${PANEL_PORT:-5006}"
vl=.venv/bin/vignette-lab
mkdir -p "$root/reports"

token="$(.venv/bin/python -c 'import secrets; print(secrets.token_hex(16))')"
root_flag=""
[ "$(id -u)" -eq 0 ] && root_flag="--allow-root"
pids=()
cleanup() { kill "${pids[@]}" 2>/dev/null || true; }
trap cleanup EXIT INT TERM

# JupyterLab is the slowest to come up (~10 s) and needs no database: it starts first.
step "starting JupyterLab on 127.0.0.1:$jport (log: reports/jupyter.log)"
.venv/bin/jupyter lab --no-browser --ip=127.0.0.1 --port="$jport" $root_flag \
  --ServerApp.token="$token" --ServerApp.root_dir="$root" >"$root/reports/jupyter.log" 2>&1 &
pids+=($!)
step "preparing the database (schema, personas, taxonomy, users): $VIGNETTE_DB"
$vl init --no-kb | sed 's/^/  /'
step "starting the Panel app on 127.0.0.1:$pport (log: reports/panel.log)"
$vl serve --port "$pport" >"$root/reports/panel.log" 2>&1 &
pids+=($!)
step "waiting for both servers to answer"
.venv/bin/python - "$jport" "$pport" <<'PY'
import sys, time, urllib.request, urllib.error
jport, pport = sys.argv[1], sys.argv[2]
urls = [f"http://127.0.0.1:{jport}/api/status", f"http://127.0.0.1:{pport}/liveness-check"]
deadline = time.time() + 180
for url in urls:
    while time.time() < deadline:
        try:
            urllib.request.urlopen(url, timeout=2)
            break
        except urllib.error.HTTPError:
            break  # it answered (403 without a token, 404 without a liveness route are fine)
        except OSError:
            time.sleep(0.3)
    else:
        print(f"warning: {url} did not answer within 3 minutes; see reports/*.log", file=sys.stderr)
PY
echo
echo "vignette-lab is running on the embedded default ($VIGNETTE_DB), ready after $((SECONDS - t0)) s:"
echo "  JupyterLab (notebooks):      http://127.0.0.1:$jport/lab/tree/notebooks?token=$token"
echo "  Panel app inside JupyterLab: http://127.0.0.1:$jport/panel-preview/render/notebooks/workbench_app.py?token=$token"
echo "  Panel app (standalone):      http://127.0.0.1:$pport/"
echo "  logs: reports/jupyter.log, reports/panel.log, reports/kb.log      stop: Ctrl-C"
echo

# In the background, after the URLs: the knowledge base (incremental, and cached vectors make a
# new database fast; sessions work meanwhile, the client's KB cues start once it is indexed),
# then the environment check.
(
  if $vl kb sync >"$root/reports/kb.log" 2>&1; then
    echo "start: knowledge base ready: $(sed -n 2p "$root/reports/kb.log" | sed 's/^ *//')"
    grep -o "격리 .*" "$root/reports/kb.log" | sed 's/^/start: /' || true
  else
    echo "start: knowledge-base sync failed; see reports/kb.log"
  fi
  $vl doctor | sed 's/^/doctor: /'
) &
pids+=($!)
wait -n "${pids[@]:0:2}"
