"""The real Panel server over HTTP: reports are staff-only files, logins are hardened.

Issue 14 items 1 and 8. A server subprocess (users-file mode and local mode) answers real
HTTP requests; nothing is mocked.
"""

from __future__ import annotations

import http.client
import os
import socket
import subprocess
import sys
import time
from http.cookies import SimpleCookie
from pathlib import Path
from urllib.parse import urlencode

import pytest

from vignette_lab.app.auth import LoginThrottle, PasswordChecker, SessionStore, add_user, load_users
from vignette_lab.app.serve import report_file

ROOT = Path(__file__).resolve().parent.parent

SERVER = """
import sys
from vignette_lab.app.serve import serve
from vignette_lab.engines.scripted import ScriptedEngine
db, port, users, reports = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
serve(db, port=port, users_file=None if users == '-' else users, reports_dir=reports, warm=False,
      engine=ScriptedEngine(seed=1), token_delay=0)
"""


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Server:
    def __init__(self, tmp: Path, db_path: Path, users: Path | None, reports: Path):
        self.port = _free_port()
        env = dict(os.environ, PYTHONPATH=str(ROOT), TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS="", HF_HUB_OFFLINE="1")
        self.log = tmp / f"server-{self.port}.log"
        self._fh = open(self.log, "w")  # noqa: SIM115 - closed in stop()
        self.proc = subprocess.Popen([sys.executable, "-c", SERVER, str(db_path), str(self.port),
                                      str(users) if users else "-", str(reports)],
                                     stdout=self._fh, stderr=subprocess.STDOUT, env=env, cwd=str(tmp))
        deadline = time.time() + 180
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited: {self.log.read_text()[-2000:]}")
            try:
                status, _, _ = self.request("GET", "/login")
                if status:
                    return
            except OSError:
                time.sleep(0.3)
        raise RuntimeError("server did not start")

    def request(self, method: str, path: str, *, cookies: dict[str, str] | None = None,
                body: dict[str, str] | None = None) -> tuple[int, dict[str, list[str]], bytes]:
        con = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        headers = {}
        if cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in cookies.items())
        data = None
        if body is not None:
            data = urlencode(body)
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        try:
            con.request(method, path, body=data, headers=headers)
            resp = con.getresponse()
            out: dict[str, list[str]] = {}
            for k, v in resp.getheaders():
                out.setdefault(k.lower(), []).append(v)
            return resp.status, out, resp.read()
        finally:
            con.close()

    def login(self, user: str, password: str) -> tuple[int, dict[str, str], list[str]]:
        status, headers, _ = self.request("POST", "/login", body={"username": user, "password": password})
        jar: dict[str, str] = {}
        for line in headers.get("set-cookie", []):
            c = SimpleCookie()
            c.load(line)
            for k, morsel in c.items():
                if morsel.value:
                    jar[k] = morsel.value
        return status, jar, headers.get("set-cookie", [])

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        self._fh.close()


@pytest.fixture
def reports(tmp_path):
    root = tmp_path / "reports"
    (root / "img").mkdir(parents=True)
    (root / "gate_round1.html").write_text("<html><body>게이트 보고서</body></html>", encoding="utf-8")
    (root / "img" / "plot.png").write_bytes(b"\x89PNG\r\n\x1a\nfake")
    (root / "jupyter.log").write_text("http://127.0.0.1:8888/lab?token=deadbeef\n", encoding="utf-8")
    (root / "panel.log").write_text("log\n", encoding="utf-8")
    (root / ".hidden.html").write_text("<p>hidden</p>", encoding="utf-8")
    (root / "notes.ipynb").write_text("{}", encoding="utf-8")
    (tmp_path / "outside.html").write_text("<p>outside</p>", encoding="utf-8")
    (root / "escape.html").symlink_to(tmp_path / "outside.html")
    logs = tmp_path / ".vignette" / "logs"
    logs.mkdir(parents=True)
    (logs / "jupyter.log").write_text("token=deadbeef\n", encoding="utf-8")
    return root


REPORT_URLS = ["/reports/gate_round1.html", "/reports/img/plot.png"]
FORBIDDEN_URLS = ["/reports/jupyter.log", "/reports/panel.log", "/reports/.hidden.html", "/reports/notes.ipynb",
                  "/reports/escape.html", "/reports/../outside.html", "/reports/%2e%2e/outside.html",
                  "/reports/..%2foutside.html", "/reports/%2e%2e/.vignette/logs/jupyter.log",
                  "/reports/../.vignette/logs/jupyter.log", "/reports/", "/reports/img/",
                  "/reports//etc/passwd", "/reports/%2fetc%2fpasswd"]


@pytest.fixture
def auth_server(tmp_path, duck_db, reports):
    users = tmp_path / "users.json"
    add_user(users, "kim", "trainee-pw", roles=["trainee"], cohort="c1", rounds=4)
    add_user(users, "prof", "faculty-pw", roles=["faculty"], cohort="c1", rounds=4)
    db_path = duck_db.path
    duck_db.close()
    server = Server(tmp_path, Path(db_path), users, reports)
    yield server
    server.stop()


def test_reports_and_logs_refused_to_anonymous_and_trainee(auth_server):
    s = auth_server
    for url in REPORT_URLS + FORBIDDEN_URLS:
        status, headers, body = s.request("GET", url)
        assert status in (302, 403, 404) and status != 200, (url, status)
        assert b"deadbeef" not in body and b"outside" not in body
        if status == 302:
            assert headers["location"][0].startswith("/login"), url
    for url in REPORT_URLS:  # a real report: the anonymous client is sent to the login page
        assert s.request("GET", url)[0] == 302
    status, jar, _ = s.login("kim", "trainee-pw")
    assert status == 302 and "vl_session" in jar
    for url in REPORT_URLS + FORBIDDEN_URLS:
        status, _, body = s.request("GET", url, cookies=jar)
        assert status in (403, 404) and b"deadbeef" not in body, (url, status)
    for url in REPORT_URLS:
        assert s.request("GET", url, cookies=jar)[0] == 403


def test_staff_get_reports_only_and_logout_kills_the_cookie(auth_server):
    s = auth_server
    status, jar, set_cookies = s.login("prof", "faculty-pw")
    assert status == 302
    for line in (c for c in set_cookies if c.startswith(("user=", "vl_session="))):
        assert "HttpOnly" in line and "SameSite=Lax" in line and "Secure" not in line  # plain http
    status, headers, body = s.request("GET", "/reports/gate_round1.html", cookies=jar)
    assert status == 200 and "게이트 보고서" in body.decode("utf-8")
    assert headers["content-type"][0].startswith("text/html") and headers["x-content-type-options"] == ["nosniff"]
    assert s.request("GET", "/reports/img/plot.png", cookies=jar)[0] == 200
    for url in FORBIDDEN_URLS:
        status, _, body = s.request("GET", url, cookies=jar)
        assert status in (400, 403, 404), (url, status)
        assert b"deadbeef" not in body and b"outside" not in body and b"root:" not in body
    assert s.request("GET", "/", cookies=jar)[0] == 200
    s.request("GET", "/logout", cookies=jar)
    # the same cookies, replayed after logout, no longer open anything
    assert s.request("GET", "/", cookies=jar)[0] == 302
    assert s.request("GET", "/reports/gate_round1.html", cookies=jar)[0] == 302
    # a forged user cookie without the server-side session does not work either
    assert s.request("GET", "/", cookies={"user": jar["user"]})[0] == 302


def test_login_rate_limit_and_no_user_oracle_over_http(auth_server):
    s = auth_server
    for _ in range(5):
        status, jar, _ = s.login("kim", "wrong")
        assert status == 302 and "vl_session" not in jar
    status, headers, body = s.request("POST", "/login", body={"username": "kim", "password": "trainee-pw"})
    assert status == 429 and int(headers["retry-after"][0]) >= 1
    assert "로그인 시도가 너무 많습니다" in body.decode("utf-8")
    # an unknown name gets exactly the same treatment (no hint that it does not exist)
    for _ in range(5):
        assert s.login("nobody", "wrong")[0] == 302
    assert s.request("POST", "/login", body={"username": "nobody", "password": "x"})[0] == 429
    # another user from the same address is not locked out by kim's failures
    assert s.login("prof", "faculty-pw")[0] == 302


def test_local_mode_serves_reports_but_never_logs(tmp_path, duck_db, reports):
    db_path = duck_db.path
    duck_db.close()
    server = Server(tmp_path, Path(db_path), None, reports)
    try:
        assert server.request("GET", "/reports/gate_round1.html")[0] == 200
        for url in FORBIDDEN_URLS:
            status, _, body = server.request("GET", url)
            assert status in (400, 404), (url, status)
            assert b"deadbeef" not in body
    finally:
        server.stop()


# --------------------------------------------------------------------------- units
def test_report_file_allows_only_report_files_inside_the_folder(reports):
    assert report_file(reports, "gate_round1.html") == (reports / "gate_round1.html").resolve()
    assert report_file(reports, "img/plot.png") is not None
    for rel in ("jupyter.log", ".hidden.html", "escape.html", "../outside.html", "/etc/passwd", "img",
                "notes.ipynb", "", "img/../../outside.html", "a\\b.html", "x\x00.html"):
        assert report_file(reports, rel) is None, rel


def test_throttle_backs_off_per_user_and_per_ip():
    now = [100.0]
    t = LoginThrottle(free_user=3, free_ip=5, base=1.0, cap=8.0, clock=lambda: now[0])
    assert [t.attempt("ip1", "kim") for _ in range(3)] == [0.0, 0.0, 0.0]
    assert t.attempt("ip1", "kim") == 1.0          # 4th for kim: wait
    assert t.attempt("ip2", "kim") == 1.0          # per user, whatever the address
    assert t.attempt("ip1", "lee") == 0.0          # ip1 has 4 of 5
    assert t.attempt("ip1", "park") == 0.0         # 5 of 5
    assert t.attempt("ip1", "choi") == 1.0         # per IP
    now[0] += 1.0
    assert t.attempt("ip2", "kim") == 0.0          # waited: one more try, then a longer wait
    assert t.attempt("ip2", "kim") == 2.0
    now[0] += 100.0
    assert t.attempt("ip2", "kim") <= 8.0          # capped
    t.success("ip2", "kim")
    assert t.attempt("ip2", "kim") == 0.0
    now[0] += 10_000.0                             # counters expire after the window
    assert t.retry_after("ip1", "choi") == 0.0


def test_unknown_user_costs_the_same_bcrypt_work(tmp_path):
    users = tmp_path / "users.json"
    add_user(users, "kim", "pw", rounds=10)
    checker = PasswordChecker(load_users(users))

    def timed(name: str) -> float:
        best = float("inf")
        for _ in range(3):
            t0 = time.perf_counter()
            assert checker.check(name, "wrong") is False
            best = min(best, time.perf_counter() - t0)
        return best

    known, unknown = timed("kim"), timed("nobody-such")
    assert 0.5 < unknown / known < 2.0, (known, unknown)
    assert checker.check("kim", "pw") is True


def test_session_store_revoke_and_expiry():
    now = [0.0]
    store = SessionStore(max_age=60, clock=lambda: now[0])
    a, b = store.issue("kim"), store.issue("kim")
    assert store.user_of(a) == store.user_of(b) == "kim" and a != b
    store.revoke(a)
    assert store.user_of(a) is None and store.user_of(b) == "kim"
    now[0] = 61.0
    assert store.user_of(b) is None and store.user_of(None) is None


def test_sigterm_leaves_a_complete_duckdb_file(tmp_path, duck_db, reports):
    db_path = Path(duck_db.path)
    duck_db.close()
    server = Server(tmp_path, db_path, None, reports)
    assert server.request("GET", "/")[0] == 200  # the index reads sessions from the file
    server.proc.terminate()  # SIGTERM
    assert server.proc.wait(timeout=30) == 0
    server._fh.close()
    assert not Path(str(db_path) + ".wal").exists()
    from vignette_lab.store import connect
    db = connect(str(db_path))
    try:
        assert db.scalar("SELECT count(*) FROM app.persona_card") >= 7
    finally:
        db.close()
