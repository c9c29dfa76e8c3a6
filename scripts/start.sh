#!/usr/bin/env bash
# The main job: set up, initialise the embedded DuckDB workbench, then serve JupyterLab (with the
# notebooks and the Panel app inside it) and the standalone Panel app, on 127.0.0.1 only.
#   VIGNETTE_DB      database (default ./vignette.duckdb; pgserver:DIR starts a local PostgreSQL 16 +
#                    pgvector in DIR for labs with several users; postgresql://… for your own server)
#   JUPYTER_PORT     default 8888      PANEL_PORT   default 5006
# Options: --pgserver DIR   same as VIGNETTE_DB=pgserver:DIR (e.g. --pgserver .vignette/pg)
set -euo pipefail
while [ $# -gt 0 ]; do
  case "$1" in
    --pgserver) [ $# -ge 2 ] || { echo "start.sh: --pgserver needs a folder" >&2; exit 2; }
                export VIGNETTE_DB="pgserver:$(realpath -m "$2")"; shift 2 ;;
    --pgserver=*) export VIGNETTE_DB="pgserver:$(realpath -m "${1#--pgserver=}")"; shift ;;
    -h|--help) sed -n '2,7p' "$0"; exit 0 ;;
    *) echo "start.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
bash scripts/setup.sh run
export TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS="" HF_HUB_OFFLINE=1
export VIGNETTE_DB="${VIGNETTE_DB:-$root/vignette.duckdb}"
jport="${JUPYTER_PORT:-8888}"
# Logs live outside every served folder: jupyter.log carries the JupyterLab token URL.
logs="$root/.vignette/logs"
mkdir -p "$logs" && chmod 700 "$root/.vignette" "$logs"
rm -f "$root/reports/jupyter.log" "$root/reports/panel.log"  # left by older versions
pport="${PANEL_PORT:-5006}"
vl=.venv/bin/vignette-lab

$vl init
$vl doctor

token="$(.venv/bin/python -c 'import secrets; print(secrets.token_hex(16))')"
root_flag=""
[ "$(id -u)" -eq 0 ] && root_flag="--allow-root"
pids=()
cleanup() { kill "${pids[@]}" 2>/dev/null || true; }
trap cleanup EXIT INT TERM

.venv/bin/jupyter lab --no-browser --ip=127.0.0.1 --port="$jport" $root_flag \
  --ServerApp.token="$token" --ServerApp.root_dir="$root" >"$logs/jupyter.log" 2>&1 &
pids+=($!)
if $vl --help | grep -q " serve "; then
  $vl serve --port "$pport" >"$logs/panel.log" 2>&1 &
  pids+=($!)
fi
# Wait until both servers answer (the Panel server loads the PII recogniser first).
.venv/bin/python - "$jport" "$pport" "${#pids[@]}" <<'PY'
import sys, time, urllib.request, urllib.error
jport, pport, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
urls = [f"http://127.0.0.1:{jport}/api/status"] + ([f"http://127.0.0.1:{pport}/"] if n > 1 else [])
deadline = time.time() + 180
for url in urls:
    while time.time() < deadline:
        try:
            urllib.request.urlopen(url, timeout=2)
            break
        except urllib.error.HTTPError:
            break  # it answered (403 without a token is fine)
        except OSError:
            time.sleep(1)
    else:
        print(f"warning: {url} did not answer within 3 minutes; see .vignette/logs/*.log", file=sys.stderr)
PY
echo
case "$VIGNETTE_DB" in
  pgserver:*) echo "vignette-lab is running on the local shared PostgreSQL server (${VIGNETTE_DB#pgserver:}):" ;;
  postgresql://*|postgres://*) echo "vignette-lab is running on PostgreSQL:" ;;
  *) echo "vignette-lab is running on the embedded default ($VIGNETTE_DB):" ;;
esac
echo "  JupyterLab (notebooks):      http://127.0.0.1:$jport/lab/tree/notebooks?token=$token"
if [ -f notebooks/workbench_app.py ]; then
  echo "  Panel app inside JupyterLab: http://127.0.0.1:$jport/panel-preview/render/notebooks/workbench_app.py?token=$token"
fi
if [ "${#pids[@]}" -gt 1 ]; then
  echo "  Panel app (standalone):      http://127.0.0.1:$pport/"
fi
echo "  logs: .vignette/logs/jupyter.log, .vignette/logs/panel.log      stop: Ctrl-C"
wait -n "${pids[@]}"
