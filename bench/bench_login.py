"""Login latency under a burst of wrong passwords: the issue-14 login hardening, before vs after.

For each mode a real Panel server (subprocess, users file with cost-12 bcrypt hashes as made by
``vignette-lab users add``) is started on 127.0.0.1. Then:

1. *oracle*: the POST /login response time for a known user with a wrong password vs an
   unknown user (median of 3 each);
2. *burst*: 40 parallel wrong logins, while a probe requests GET /login every 50 ms; the
   probe's latency p50/p99/max is the figure (a trainee opening the login page meanwhile).
   ``same``: all 40 for one user name; ``spray``: 40 different names.

``before`` rebuilds the previous handler (Panel's ``BasicLoginHandler`` with bcrypt called in
``_validate``, i.e. on the event loop, no rate limit, no dummy hash); ``after`` is the current
``make_auth_provider``. Only loopback traffic, bounded in count and time.

    PYTHONPATH=. .venv/bin/python bench/bench_login.py --write
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import platform
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from datetime import datetime, timezone
from pathlib import Path
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SERVER = r'''
import sys
sys.path.insert(0, sys.argv[5])
import vignette_lab.app.serve as serve_mod
from vignette_lab.engines.scripted import ScriptedEngine

def legacy_provider(users, *, login_endpoint="/login", logout_endpoint="/logout"):
    # the handler as it was before issue 14: bcrypt inside _validate, on the event loop
    from panel.auth import BasicAuthProvider, BasicLoginHandler
    from panel.io.resources import _env
    from vignette_lab.app.auth import check_password
    template = _env.from_string(serve_mod.LOGIN_HTML)

    class BcryptLoginHandler(BasicLoginHandler):
        _login_template = template

        def _validate(self, username, password):
            entry = users.get(username)
            return entry is not None and check_password(password, entry[1])

    class BcryptAuthProvider(BasicAuthProvider):
        @property
        def login_handler(self):
            BcryptLoginHandler._login_endpoint = self._login_endpoint
            return BcryptLoginHandler

    return BcryptAuthProvider(login_endpoint=login_endpoint, logout_endpoint=logout_endpoint)

db, port, users, mode = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
if mode == "before":
    serve_mod.make_auth_provider = legacy_provider
serve_mod.serve(db, port=port, users_file=users, warm=False, engine=ScriptedEngine(seed=1), token_delay=0)
'''


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _request(port: int, method: str, path: str, body: dict | None = None) -> tuple[int, float]:
    t0 = time.perf_counter()
    con = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    try:
        headers = {"Content-Type": "application/x-www-form-urlencoded"} if body is not None else {}
        con.request(method, path, body=urlencode(body) if body is not None else None, headers=headers)
        resp = con.getresponse()
        resp.read()
        return resp.status, time.perf_counter() - t0
    finally:
        con.close()


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


class Server:
    def __init__(self, mode: str, tmp: Path, db: Path, users: Path):
        self.port = _free_port()
        env = dict(os.environ, TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS="", HF_HUB_OFFLINE="1")
        self.proc = subprocess.Popen([sys.executable, "-c", SERVER, str(db), str(self.port), str(users), mode,
                                      str(ROOT)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                     env=env, cwd=str(tmp))
        deadline = time.time() + 180
        while time.time() < deadline:
            try:
                _request(self.port, "GET", "/login")
                return
            except OSError:
                time.sleep(0.3)
        raise RuntimeError("server did not start")

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=30)


def oracle(port: int) -> dict:
    known = [_request(port, "POST", "/login", {"username": "kim", "password": f"wrong{i}"})[1] for i in range(3)]
    unknown = [_request(port, "POST", "/login", {"username": f"ghost{i}", "password": "x"})[1] for i in range(3)]
    return {"known_ms": statistics.median(known) * 1000, "unknown_ms": statistics.median(unknown) * 1000}


def burst(port: int, *, n: int, same_user: bool) -> dict:
    statuses: list[int] = []
    probe: list[float] = []
    done = threading.Event()

    def attacker(i: int) -> None:
        name = "kim" if same_user else f"user{i}"
        statuses.append(_request(port, "POST", "/login", {"username": name, "password": f"guess{i}"})[0])

    def prober() -> None:
        while not done.is_set() and len(probe) < 2000:
            probe.append(_request(port, "GET", "/login")[1])
            time.sleep(0.05)

    probe_thread = threading.Thread(target=prober)
    probe_thread.start()
    time.sleep(0.2)
    t0 = time.perf_counter()
    threads = [threading.Thread(target=attacker, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    wall = time.perf_counter() - t0
    done.set()
    probe_thread.join()
    ms = [v * 1000 for v in probe]
    return {"attempts": n, "refused_429": statuses.count(429), "checked": statuses.count(302),
            "burst_s": wall, "probe_n": len(ms), "p50_ms": _pct(ms, 0.5), "p99_ms": _pct(ms, 0.99),
            "max_ms": max(ms)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parallel", type=int, default=40)
    parser.add_argument("--write", action="store_true", help="append a section to bench/RESULTS.md")
    args = parser.parse_args(argv)

    from vignette_lab.app.auth import add_user
    from vignette_lab.store import connect, init_db

    results: dict[str, dict] = {}
    with tempfile.TemporaryDirectory(prefix="vl_login_") as tmp:
        tmp_path = Path(tmp)
        db_path = tmp_path / "bench.duckdb"
        db = connect(str(db_path))
        init_db(db)
        db.close()
        users = tmp_path / "users.json"
        add_user(users, "kim", "correct horse", roles=["trainee"])  # cost 12, as in production
        add_user(users, "prof", "battery staple", roles=["faculty"])
        for mode in ("before", "after"):
            for scenario in ("same", "spray"):
                server = Server(mode, tmp_path, db_path, users)
                try:
                    row = oracle(server.port) if scenario == "same" else {}
                    row.update(burst(server.port, n=args.parallel, same_user=scenario == "same"))
                finally:
                    server.stop()
                results[f"{mode}/{scenario}"] = row
                print(f"{mode:6s} {scenario:5s} " + json.dumps({k: round(v, 1) if isinstance(v, float) else v
                                                               for k, v in row.items()}), flush=True)
    if args.write:
        _write(results, args.parallel)
    return 0


def _write(results: dict[str, dict], n: int) -> None:
    when = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        "", "## Issue 14: login under 40 parallel wrong passwords (bench/bench_login.py)", "",
        f"{when}; {platform.processor() or platform.machine()}, {os.cpu_count()} cores shared with other "
        "engineers' jobs, so absolute times are noisy. Real Panel server on 127.0.0.1, users file with "
        f"cost-12 bcrypt hashes; {n} parallel wrong logins while a probe opens GET /login every 50 ms. "
        "*same* = all for one user name, *spray* = 40 different names. `before` = the previous handler "
        "(bcrypt on the event loop, no limit), `after` = thread pool + per-user (5) / per-IP (20) back-off "
        "+ dummy hash for unknown users. Not an accuracy figure, so no CI; n = probe requests.", "",
        "| mode | burst | GET /login p50 ms | p99 ms | max ms | probes n | checked (302) | refused (429) | "
        "burst s |", "|---|---|---|---|---|---|---|---|---|"]
    for key, r in results.items():
        mode, scenario = key.split("/")
        lines.append(f"| {mode} | {scenario} | {r['p50_ms']:.0f} | {r['p99_ms']:.0f} | {r['max_ms']:.0f} | "
                     f"{r['probe_n']} | {r['checked']} | {r['refused_429']} | {r['burst_s']:.1f} |")
    lines += ["", "Timing oracle (POST /login, median of 3, before any burst):", "",
              "| mode | known user, wrong password ms | unknown user ms |", "|---|---|---|"]
    for mode in ("before", "after"):
        r = results[f"{mode}/same"]
        lines.append(f"| {mode} | {r['known_ms']:.0f} | {r['unknown_ms']:.0f} |")
    with open(ROOT / "bench" / "RESULTS.md", "a", encoding="utf-8") as fh:
        fh.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    sys.exit(main())
