#!/usr/bin/env bash
# The main job: set up, initialise the embedded DuckDB workbench, then serve JupyterLab (with the
# notebooks and the Panel app inside it) and the standalone Panel app, on 127.0.0.1 only.
#   VIGNETTE_DB      database (default ./vignette.duckdb; pgserver:DIR starts a local PostgreSQL 16 +
#                    pgvector in DIR for labs with several users; postgresql://… for your own server)
#   JUPYTER_PORT     default 8888      PANEL_PORT   default 5006
# Options: --pgserver DIR   same as VIGNETTE_DB=pgserver:DIR (e.g. --pgserver .vignette/pg)
# It prints one line per step and the URLs as soon as both servers answer; the knowledge-base
# sync and the environment check (doctor) then run in the background and print their result.
set -euo pipefail
while [ $# -gt 0 ]; do
  case "$1" in
    --pgserver) [ $# -ge 2 ] || { echo "start.sh: --pgserver needs a folder" >&2; exit 2; }
                export VIGNETTE_DB="pgserver:$(realpath -m "$2")"; shift 2 ;;
    --pgserver=*) export VIGNETTE_DB="pgserver:$(realpath -m "${1#--pgserver=}")"; shift ;;
    -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
    *) echo "start.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
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
# Logs live outside every served folder: jupyter.log carries the JupyterLab token URL.
logs="$root/.vignette/logs"
mkdir -p "$logs" "$root/reports" && chmod 700 "$root/.vignette" "$logs"
rm -f "$root/reports/jupyter.log" "$root/reports/panel.log" "$root/reports/kb.log"  # left by older versions

token="$(.venv/bin/python -c 'import secrets; print(secrets.token_hex(16))')"
root_flag=""
[ "$(id -u)" -eq 0 ] && root_flag="--allow-root"
pids=()
cleanup() { kill "${pids[@]}" 2>/dev/null || true; }
trap cleanup EXIT INT TERM

# JupyterLab is the slowest to come up (~10 s) and needs no database: it starts first.
step "starting JupyterLab on 127.0.0.1:$jport (log: .vignette/logs/jupyter.log)"
.venv/bin/jupyter lab --no-browser --ip=127.0.0.1 --port="$jport" $root_flag \
  --ServerApp.token="$token" --ServerApp.root_dir="$root" >"$logs/jupyter.log" 2>&1 &
pids+=($!)
step "preparing the database (schema, personas, taxonomy, users): $VIGNETTE_DB"
$vl init --no-kb | sed 's/^/  /'
step "starting the Panel app on 127.0.0.1:$pport (log: .vignette/logs/panel.log)"
$vl serve --port "$pport" >"$logs/panel.log" 2>&1 &
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
        print(f"warning: {url} did not answer within 3 minutes; see .vignette/logs/*.log", file=sys.stderr)
PY
echo
case "$VIGNETTE_DB" in
  pgserver:*) where="the local shared PostgreSQL server (${VIGNETTE_DB#pgserver:})" ;;
  postgresql://*|postgres://*) where="PostgreSQL" ;;
  *) where="the embedded default ($VIGNETTE_DB)" ;;
esac
echo "vignette-lab is running on $where, ready after $((SECONDS - t0)) s:"
echo "  JupyterLab (notebooks):      http://127.0.0.1:$jport/lab/tree/notebooks?token=$token"
echo "  Panel app inside JupyterLab: http://127.0.0.1:$jport/vignette/?token=$token   (also the launcher's Vignette Lab tile)"
echo "  Panel app (standalone):      http://127.0.0.1:$pport/"
echo "  logs: .vignette/logs/{jupyter,panel,kb}.log      stop: Ctrl-C"
echo

# In the background, after the URLs: the workbench server behind JupyterLab's proxy starts on
# its first request (vignette_lab.app.jupyter_proxy); make that request now, so the first click
# on the link or the launcher tile does not wait for the app's imports.
( .venv/bin/python - "$jport" "$token" <<'PY' || echo "start: the app inside JupyterLab did not answer yet; see .vignette/logs/jupyter.log"
import sys, urllib.request
urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/vignette/?token={sys.argv[2]}", timeout=180).read()
PY
) &
pids+=($!)

# In the background, after the URLs: the knowledge base (incremental, and cached vectors make a
# new database fast; sessions work meanwhile, the client's KB cues start once it is indexed),
# then the environment check.
(
  # (The offline evaluator's learned models ship in the package as exported weights —
  # bench/build_evaluator_models.py — so nothing is trained here any more.)
  if $vl kb sync >"$logs/kb.log" 2>&1; then
    echo "start: knowledge base ready: $(sed -n 2p "$logs/kb.log" | sed 's/^ *//')"
    grep -o "격리 .*" "$logs/kb.log" | sed 's/^/start: /' || true
  else
    echo "start: knowledge-base sync failed; see .vignette/logs/kb.log"
  fi
  $vl doctor | sed 's/^/doctor: /'
) &
pids+=($!)
wait -n "${pids[@]:0:2}"
