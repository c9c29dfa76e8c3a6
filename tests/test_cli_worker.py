"""The warm local worker (`vignette_lab.cli.worker`): start, reuse, identical output, idle exit,
stale sockets, fallbacks, errors, the file hand-over and the masking rule.

Commands run as real console processes (``python -m vignette_lab.cli``): only those use the
worker. Fakes of a worker (a silent one, one that dies after "go") are sockets served by a
thread of the test process, which also holds the worker lock as a live worker would.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from vignette_lab.cli import main
from vignette_lab.cli import worker as worker_mod
from vignette_lab.store import connect

ROOT = Path(__file__).resolve().parent.parent
BASE_ENV = {"VIGNETTE_EMBEDDER": "hashing", "VIGNETTE_ENGINE": "scripted", "ANTHROPIC_API_KEY": "",
            "PYTHONPATH": str(ROOT), "VIGNETTE_WORKER_IDLE": "120"}
HEAVY = ("kiwipiepy", "duckdb", "numpy", "vignette_lab.core.pii", "vignette_lab.session", "vignette_lab.store")


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VIGNETTE_", "ANTHROPIC_"))}
    env.update(BASE_ENV)
    env.pop("PYTEST_CURRENT_TEST", None)
    env.update(extra)
    return env


def cli(db: Path, *args: str, env: dict[str, str] | None = None, importtime: bool = False,
        timeout: float = 180) -> subprocess.CompletedProcess[str]:
    pre = [sys.executable, *(["-X", "importtime"] if importtime else []), "-m", "vignette_lab.cli"]
    return subprocess.run([*pre, "--db", str(db), *args], env=env or _env(), capture_output=True, text=True,
                          timeout=timeout, cwd=str(ROOT))


def _strip_importtime(text: str) -> str:
    return "".join(ln for ln in text.splitlines(keepends=True) if not ln.startswith("import time:"))


def _imported(stderr: str) -> set[str]:
    return {ln.rsplit("|", 1)[1].strip() for ln in stderr.splitlines() if ln.startswith("import time:")}


def _wait_state(db: Path, state: str, *, timeout: float = 120) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        status = worker_mod.worker_status(str(db))
        if status["state"] == state:
            return status
        time.sleep(0.1)
    raise AssertionError(f"worker of {db} never became {state!r}: {worker_mod.worker_status(str(db))}")


@pytest.fixture(scope="module")
def template(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("worker") / "template.duckdb"
    result = CliRunner().invoke(main, ["--db", str(path), "init", "--no-kb"], env=BASE_ENV)
    assert result.exit_code == 0, result.output
    return path


def _copy(template: Path, folder: Path, name: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / name
    shutil.copyfile(template, target)
    return target


@pytest.fixture(scope="module")
def pair(template, tmp_path_factory):
    """(warm, plain, session id): the same database twice; `warm` has a running worker."""
    folder = tmp_path_factory.mktemp("pair")
    warm = _copy(template, folder, "warm.duckdb")
    start = cli(warm, "session", "start", "P4", env=_env(VIGNETTE_WORKER="off"))
    assert start.returncode == 0, start.stderr
    plain = _copy(warm, folder, "plain.duckdb")
    assert worker_mod.worker_status(str(warm))["state"] == "stopped"  # VIGNETTE_WORKER=off starts none
    # idle 600 s: on a loaded machine the module's later tests take longer than the default 120 s
    started = cli(warm, "worker", "start", "--wait", "170", "--idle", "600")
    assert started.returncode == 0 and "worker running" in started.stdout, started.stderr
    yield warm, plain, start.stdout.strip()
    stopped = cli(warm, "worker", "stop")
    assert stopped.returncode == 0 and stopped.stdout.strip() == "worker stopped", stopped.stderr
    assert worker_mod.worker_status(str(warm))["state"] == "stopped"
    assert not worker_mod.worker_paths(str(warm)).socket.exists()


def test_commands_served_by_the_worker_print_what_in_process_runs_print(pair):
    warm, plain, sid = pair
    cases = [("session", "send", sid, "요즘 어떻게 지내요?"),
             ("session", "send", sid, "연락은 010-2222-3333으로 주세요. 잠은 좀 자요?"),
             ("session", "send", sid, "   "),                       # empty utterance: one-line error
             ("session", "send", "no-such-session", "안녕하세요"),   # unknown session
             ("session", "send", sid),                                # usage error, exit code 2
             ("session", "frobnicate"),                               # unknown sub-command
             ("session", "end", sid),
             ("session", "send", sid, "끝났나요?"),                   # ended session
             ("session", "review", sid)]
    pid = worker_mod.worker_status(str(warm))["pid"]
    for args in cases:
        served = cli(warm, *args, importtime=True)
        here = cli(plain, *args, env=_env(VIGNETTE_WORKER="off"))
        # `session end` names the database in its closing hint (`--db PATH session review ID --text`)
        assert (served.returncode, served.stdout.replace(str(warm), "DB"), _strip_importtime(served.stderr)) == \
               (here.returncode, here.stdout.replace(str(plain), "DB"), here.stderr), args
        if args[1] in ("send", "end", "review"):
            heavy = [m for m in HEAVY if m in _imported(served.stderr)]
            assert heavy == [], f"{args}: the client imported {heavy} (it ran in-process?)"
    assert worker_mod.worker_status(str(warm))["pid"] == pid  # one worker served them all
    assert sid in served.stdout and json.loads(served.stdout)


def test_the_worker_masks_before_storage_and_holds_no_file(pair):
    warm, _plain, sid = pair
    db = connect(str(warm), lock_timeout=2)
    try:  # another process takes the file at once: the worker closed it after the command
        texts = [r["text"] for r in db.fetchall("SELECT text FROM app.turns WHERE session_id = ?", [sid])]
    finally:
        db.close()
    assert texts and not any("010-2222-3333" in t or "2222-3333" in t for t in texts)
    pid = worker_mod.worker_status(str(warm))["pid"]
    held = [os.readlink(f"/proc/{pid}/fd/{fd}") for fd in os.listdir(f"/proc/{pid}/fd")
            if os.path.exists(f"/proc/{pid}/fd/{fd}")]
    assert str(warm) not in held and str(warm) + ".wal" not in held


def test_worker_files_are_owner_only(pair):
    warm, _plain, _sid = pair
    paths = worker_mod.worker_paths(str(warm))
    mode = os.stat(paths.socket).st_mode
    assert stat.S_ISSOCK(mode) and stat.S_IMODE(mode) == 0o600
    for path in (paths.lock, paths.log):
        assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    doctor = cli(warm, "doctor", importtime=True)
    assert doctor.returncode == 0 and "database  duckdb" in doctor.stdout
    assert [m for m in HEAVY if m in _imported(doctor.stderr)] == []
    here = cli(_plain, "doctor", env=_env(VIGNETTE_WORKER="off"))
    assert doctor.stdout.replace(str(warm), "DB") == here.stdout.replace(str(_plain), "DB")
    relative = subprocess.run([sys.executable, "-m", "vignette_lab.cli", "--db", warm.name, "doctor"], env=_env(),
                              capture_output=True, text=True, timeout=120, cwd=str(warm.parent))
    assert relative.returncode == 0 and f"(url {warm.name}," in relative.stdout, relative.stdout + relative.stderr


def test_worker_files_are_not_beside_the_database_and_status_says_how_long_it_idled(pair):
    warm, _plain, sid = pair
    paths = worker_mod.worker_paths(str(warm))
    assert paths.socket.parent != warm.parent and not list(warm.parent.glob(".*worker*"))
    assert stat.S_IMODE(os.stat(paths.socket.parent).st_mode) == 0o700
    assert cli(warm, "session", "review", sid).returncode == 0  # (a worker idled out meanwhile is started again)
    _wait_state(warm, "running")
    status = cli(warm, "worker", "status")
    fields = dict(re.findall(r"\b(idle_s|exits_after_idle_s) (\S+)", status.stdout))
    assert status.stdout.startswith("worker running"), status.stdout
    assert float(fields["idle_s"]) < 30 and fields["exits_after_idle_s"] == "600", status.stdout


def test_in_process_callers_never_use_the_worker(pair, monkeypatch):
    warm, _plain, _sid = pair

    def refuse(*_a, **_k):
        raise AssertionError("CliRunner must run in-process")

    monkeypatch.setattr(worker_mod, "forward", refuse)
    monkeypatch.setattr(worker_mod, "ensure_started", refuse)
    result = CliRunner().invoke(main, ["--db", str(warm), "session", "start", "P2"], env=BASE_ENV)
    assert result.exit_code == 0 and len(result.output.strip()) == 36, result.output


def test_a_stale_socket_is_replaced_and_an_idle_worker_exits(template, tmp_path):
    db = _copy(template, tmp_path, "stale.duckdb")
    paths = worker_mod.worker_paths(str(db))
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    dead.bind(str(paths.socket))  # a socket nobody listens on: what a killed worker leaves
    dead.close()
    env = _env(VIGNETTE_WORKER_WARMUP="off", VIGNETTE_WORKER_IDLE="3")
    start = cli(db, "session", "start", "P4", env=env)
    assert start.returncode == 0 and len(start.stdout.strip()) == 36, start.stderr  # ran in-process
    status = _wait_state(db, "running", timeout=60)  # and started a worker that replaced the socket
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    probe.connect(str(paths.socket))
    probe.close()
    assert os.path.exists(f"/proc/{status['pid']}")
    _wait_state(db, "stopped", timeout=60)  # idle for 3 s: it exits and removes its files
    assert not paths.socket.exists() and not paths.info.exists()


class FakeWorker:
    """Holds the lock and serves the socket like a live worker, answering as told."""

    def __init__(self, paths: worker_mod.WorkerPaths, behaviour: str, *, bind_after: float = 0.0,
                 lock_after: float = 0.0):
        self.paths, self.behaviour, self.requests = paths, behaviour, []
        self.lock_fd = os.open(paths.lock, os.O_RDWR | os.O_CREAT, 0o600)
        self.lock_after = lock_after  # "just spawned": the info file is there, the lock not taken yet
        if not lock_after:
            fcntl.flock(self.lock_fd, fcntl.LOCK_EX)
        paths.info.write_text(json.dumps({"pid": os.getpid(), "started_epoch": time.time()}), encoding="utf-8")
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.bind_after = bind_after
        if not bind_after:
            self._bind()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _bind(self) -> None:
        self.sock.bind(str(self.paths.socket))
        self.sock.listen(4)

    def _serve(self) -> None:
        if self.lock_after:
            time.sleep(self.lock_after)
            fcntl.flock(self.lock_fd, fcntl.LOCK_EX)
        if self.bind_after:  # "warming up": lock held, no socket yet
            time.sleep(self.bind_after)
            self._bind()
        conn, _ = self.sock.accept()
        with conn:
            reader = conn.makefile("rb")
            self.requests.append(json.loads(reader.readline()))
            if self.behaviour == "silent":
                time.sleep(3)
                return
            conn.sendall(b'{"ready": true}\n')
            self.requests.append(json.loads(reader.readline()))  # the client's "go"
            if self.behaviour == "serves":
                conn.sendall(b'{"stdout": "from the worker\\n", "stderr": "", "exit_code": 3}\n')
            # "dies": it closes without answering

    def close(self) -> None:
        self.thread.join(timeout=10)
        self.sock.close()
        self.paths.socket.unlink(missing_ok=True)
        self.paths.info.unlink(missing_ok=True)
        os.close(self.lock_fd)


def _session_count(db: Path) -> int:
    conn = connect(str(db))
    try:
        return int(conn.scalar("SELECT count(*) FROM app.sessions"))
    finally:
        conn.close()


def test_a_silent_worker_means_the_command_runs_in_process(template, tmp_path):
    db = _copy(template, tmp_path, "silent.duckdb")
    fake = FakeWorker(worker_mod.worker_paths(str(db)), "silent")
    try:
        result = cli(db, "session", "start", "P4", env=_env(VIGNETTE_WORKER_WAIT="0.5"))
    finally:
        fake.close()
    assert result.returncode == 0 and len(result.stdout.strip()) == 36, result.stderr
    assert len(fake.requests) == 1 and fake.requests[0]["argv"][-3:] == ["session", "start", "P4"]
    assert _session_count(db) == 1  # ran once, here; the silent worker never got "go"


def test_a_worker_dying_after_go_is_a_one_line_error_and_never_run_twice(template, tmp_path):
    db = _copy(template, tmp_path, "dying.duckdb")
    fake = FakeWorker(worker_mod.worker_paths(str(db)), "dies")
    try:
        result = cli(db, "session", "start", "P4")
    finally:
        fake.close()
    assert result.returncode == 1 and result.stdout == ""
    lines = [ln for ln in result.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("Error: ") and "worker" in lines[0], result.stderr
    assert fake.requests[1] == {"go": True}
    assert _session_count(db) == 0  # not re-run in-process


def test_a_command_waits_for_a_worker_still_warming_up(template, tmp_path):
    db = _copy(template, tmp_path, "warming.duckdb")
    fake = FakeWorker(worker_mod.worker_paths(str(db)), "serves", bind_after=1.5)
    try:
        result = cli(db, "session", "send", "some-session", "안녕하세요")
    finally:
        fake.close()
    assert (result.returncode, result.stdout) == (3, "from the worker\n"), result.stderr  # its answer, as is
    assert fake.requests[0]["argv"] == ["--db", str(db), "session", "send", "some-session", "안녕하세요"]
    assert fake.requests[1] == {"go": True}


def test_a_command_right_after_the_spawn_waits_for_the_worker_before_it_holds_its_lock(template, tmp_path):
    """`session start` spawned the worker and wrote its pid; the trainee's `send` comes before the
    new process has taken the lock: it waits for that worker instead of running in-process."""
    db = _copy(template, tmp_path, "spawned.duckdb")
    fake = FakeWorker(worker_mod.worker_paths(str(db)), "serves", lock_after=1.0, bind_after=0.5)
    try:
        result = cli(db, "session", "send", "some-session", "안녕하세요")
    finally:
        fake.close()
    assert (result.returncode, result.stdout) == (3, "from the worker\n"), result.stderr


def test_a_spawned_worker_that_died_before_its_lock_means_in_process(template, tmp_path):
    db = _copy(template, tmp_path, "died.duckdb")
    paths = worker_mod.worker_paths(str(db))
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    paths.info.write_text(json.dumps({"pid": gone.pid, "started_epoch": time.time(), "spawned": True}))
    t0 = time.monotonic()
    # the in-process run starts a worker of its own afterwards: one that exits at once when idle
    # (idle 3 s, not less: on a loaded machine the info file must still be there when it is read below)
    result = cli(db, "session", "send", "no-such-session", "안녕하세요",
                 env=_env(VIGNETTE_WORKER_START_WAIT="30", VIGNETTE_WORKER_WARMUP="off", VIGNETTE_WORKER_IDLE="3"))
    assert time.monotonic() - t0 < 25  # it did not wait the 30 s out
    assert result.returncode == 1 and "no-such-session" in result.stderr  # the in-process answer
    spawned = json.loads(paths.info.read_text())["pid"]
    assert spawned != gone.pid
    deadline = time.monotonic() + 60
    while worker_mod.worker_status(str(db))["state"] != "stopped" or worker_mod._alive(spawned):
        assert time.monotonic() < deadline, "the worker started by the in-process run did not exit"
        time.sleep(0.1)


def test_a_spawned_worker_not_yet_holding_its_lock_is_starting_and_can_be_stopped(template, tmp_path):
    db = _copy(template, tmp_path, "pending.duckdb")
    paths = worker_mod.worker_paths(str(db))
    # an orphan (not our child, so it leaves no zombie) standing in for the new worker process
    pid = int(subprocess.run(["sh", "-c", "sleep 60 >/dev/null 2>&1 & echo $!"], capture_output=True,
                             text=True, check=True).stdout)
    paths.info.write_text(json.dumps({"pid": pid, "started_epoch": time.time(), "spawned": True}))
    try:
        assert worker_mod.worker_status(str(db))["state"] == "starting"
        assert worker_mod.ensure_started(str(db), ["session", "send", "x", "y"]) is False  # no second one
        assert worker_mod.stop(paths) is True
        assert not worker_mod._alive(pid)
        assert worker_mod.worker_status(str(db))["state"] == "stopped"
    finally:
        if worker_mod._alive(pid):
            os.kill(pid, 9)


def test_spawn_announces_the_worker_at_once(tmp_path, monkeypatch):
    class FakePopen:
        def __init__(self, args, **kwargs):
            self.pid = 4243

    monkeypatch.setattr(subprocess, "Popen", FakePopen)
    paths = worker_mod.worker_paths(str(tmp_path / "x.duckdb"))
    worker_mod.spawn(paths)
    info = json.loads(paths.info.read_text())
    assert info["pid"] == 4243 and time.time() - info["started_epoch"] < 60
    assert stat.S_IMODE(os.stat(paths.info).st_mode) == 0o600


def test_a_worker_from_another_environment_is_replaced(template, tmp_path):
    db = _copy(template, tmp_path, "other.duckdb")
    other = _env(VIGNETTE_WORKER_WARMUP="off", VIGNETTE_ENGINE_EXTRA="other")
    assert cli(db, "worker", "start", env=other).returncode == 0
    old = _wait_state(db, "running")["pid"]
    env = _env(VIGNETTE_WORKER_WARMUP="off")
    try:
        result = cli(db, "session", "start", "P4", env=env)
        assert result.returncode == 0 and len(result.stdout.strip()) == 36, result.stderr
        assert _session_count(db) == 1
        new = _wait_state(db, "running")["pid"]  # the old one was stopped, this command started one
        assert new != old
    finally:
        cli(db, "worker", "stop", env=env)
    assert worker_mod.worker_status(str(db))["state"] == "stopped"


def test_worker_commands_explain_themselves_for_memory_databases():
    result = CliRunner().invoke(main, ["--db", ":memory:", "worker", "status"], env=BASE_ENV)
    assert result.exit_code == 0 and result.output.startswith("worker none")
    result = CliRunner().invoke(main, ["--db", ":memory:", "worker", "stop"], env=BASE_ENV)
    assert result.exit_code == 1 and result.output.startswith("Error: :memory:")


# --------------------------------------------------------------------------- PostgreSQL (round 5)
@pytest.fixture
def short_tmp():
    """A fresh folder short enough to hold the runtime folders whose sockets these tests check.

    ``tmp_path`` is too long under pytest-xdist (its ``popen-gwN`` level puts
    ``<tmp_path>/vignette-<uid>`` past the 81 characters a socket folder may have).
    """
    path = Path(tempfile.mkdtemp(prefix="vw-"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


def test_postgres_urls_get_a_worker_named_by_a_hash(short_tmp, monkeypatch):
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(short_tmp))
    url = "postgresql://alice:s3cret@db.example/vignette"
    paths = worker_mod.worker_paths(url)
    assert paths is not None and paths.server_url == url
    assert paths.socket.parent == short_tmp / f"vignette-{os.getuid()}"
    assert stat.S_IMODE(os.stat(paths.socket.parent).st_mode) == 0o700
    assert "s3cret" not in str(paths.socket) and "alice" not in str(paths.socket)
    assert paths.label == "postgresql://alice:***@db.example/vignette"
    assert worker_mod.worker_paths("postgresql://alice:s3cret@db.example/other").socket != paths.socket
    # one pgserver folder, however it is spelled, is one worker; the worker gets it absolute
    (short_tmp / "pg").mkdir()
    monkeypatch.chdir(short_tmp)
    rel, absolute = worker_mod.worker_paths("pgserver:pg"), worker_mod.worker_paths(f"pgserver:{short_tmp}/pg")
    assert rel.socket == absolute.socket and rel.server_url == f"pgserver:{short_tmp}/pg"
    assert worker_mod.worker_paths(":memory:") is None and worker_mod.worker_paths("duckdb:///:memory:") is None


def test_a_server_url_is_handed_to_the_worker_in_its_environment_not_its_command_line(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    seen = {}

    class FakePopen:
        def __init__(self, args, **kwargs):
            seen["args"], seen["env"], seen["cwd"] = args, kwargs["env"], kwargs["cwd"]
            self.pid = 4242

    monkeypatch.setattr(subprocess, "Popen", FakePopen)
    url = "postgresql://alice:s3cret@db.example/vignette"
    paths = worker_mod.worker_paths(url)
    assert worker_mod.spawn(paths) == 4242
    assert not any("s3cret" in a or "db.example" in a for a in seen["args"])
    assert seen["args"][-2:] == ["worker", "serve"] and "--db" not in seen["args"]
    assert seen["env"]["VIGNETTE_DB"] == url and seen["cwd"] == str(paths.socket.parent)
    # and the database URL is not part of the fingerprint (it is named by the socket and every request)
    monkeypatch.setenv("VIGNETTE_DB", "elsewhere.duckdb")
    first = worker_mod.fingerprint()
    monkeypatch.setenv("VIGNETTE_DB", url)
    assert worker_mod.fingerprint() == first


def test_a_postgres_database_is_served_by_a_warm_worker(pg_url):
    init = CliRunner().invoke(main, ["--db", pg_url, "init", "--no-kb"], env=BASE_ENV)
    assert init.exit_code == 0, init.output
    start = cli(pg_url, "session", "start", "P4")  # runs in-process, then starts the worker
    assert start.returncode == 0, start.stderr
    sid = start.stdout.strip()
    try:
        started = cli(pg_url, "worker", "start", "--wait", "170")
        assert started.returncode == 0 and "worker running" in started.stdout, started.stderr
        pid = worker_mod.worker_status(pg_url)["pid"]
        sent = cli(pg_url, "session", "send", sid, "요즘 잠은 잘 자요?", importtime=True)
        assert sent.returncode == 0 and sent.stdout.strip(), sent.stderr[-2000:]
        assert [m for m in HEAVY if m in _imported(sent.stderr)] == []  # answered by the worker
        for args in (("session", "review", sid), ("session", "send", "no-such-session", "안녕하세요")):
            served = cli(pg_url, *args)
            here = cli(pg_url, *args, env=_env(VIGNETTE_WORKER="off"))
            assert (served.returncode, served.stdout, served.stderr) == (here.returncode, here.stdout, here.stderr)
        assert worker_mod.worker_status(pg_url)["pid"] == pid
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().decode()
        assert pg_url not in cmdline
    finally:
        stopped = cli(pg_url, "worker", "stop")
    assert stopped.returncode == 0 and stopped.stdout.strip() == "worker stopped", stopped.stderr
    assert worker_mod.worker_status(pg_url)["state"] == "stopped"


def _cmdline(pid: int) -> list[str]:
    return Path(f"/proc/{pid}/cmdline").read_bytes().decode().rstrip("\0").split("\0")


def test_session_start_becomes_the_worker_and_hands_back_the_callers_pipes(template, tmp_path):
    """The in-process `session start` forks after its output is written; the child is the worker.
    `subprocess.run` (which waits for the pipes to close) returns while that worker lives on."""
    db = _copy(template, tmp_path, "forked.duckdb")
    env = _env(VIGNETTE_WORKER_IDLE="120")
    start = cli(db, "session", "start", "P4", env=env, timeout=100)  # a held pipe would wait out the idle 120 s
    assert start.returncode == 0 and len(start.stdout.strip()) == 36, start.stderr
    sid = start.stdout.strip()
    twin = _copy(db, tmp_path / "twin", "forked.duckdb")  # the same rows, for the in-process answer
    pid = int(json.loads(worker_mod.worker_paths(str(db)).info.read_text())["pid"])
    try:
        assert worker_mod._alive(pid)
        assert _cmdline(pid)[-3:] == ["session", "start", "P4"]  # the forked command, not a `worker serve`
        assert os.getsid(pid) == pid  # a session of its own: no terminal, no caller's process group
        status = _wait_state(db, "running")
        assert status["pid"] == pid
        other = connect(str(db), lock_timeout=2)
        try:  # the worker does not hold the file: another process takes it at once
            assert other.fetchall("SELECT session_id FROM app.sessions WHERE session_id = ?", [sid])
        finally:
            other.close()
        warm = cli(db, "session", "send", sid, "잠은 좀 자요?", env=env, importtime=True)
        plain = cli(twin, "session", "send", sid, "잠은 좀 자요?", env=_env(VIGNETTE_WORKER="off"))
        assert (warm.returncode, warm.stdout) == (plain.returncode, plain.stdout), warm.stderr
        assert warm.returncode == 0 and warm.stdout.strip()
        assert not (_imported(warm.stderr) & set(HEAVY))  # answered by the worker
        log = worker_mod.worker_paths(str(db)).log.read_text(encoding="utf-8")
        assert f"worker {pid} forked from the in-process command" in log
    finally:
        stopped = cli(db, "worker", "stop", env=env)
    assert stopped.returncode == 0 and stopped.stdout.strip() == "worker stopped", stopped.stderr
    deadline = time.monotonic() + 30
    while worker_mod._alive(pid):
        assert time.monotonic() < deadline, "the forked worker did not exit on `worker stop`"
        time.sleep(0.05)
    assert worker_mod.worker_status(str(db))["state"] == "stopped"


def test_fork_off_starts_a_new_worker_process(template, tmp_path):
    db = _copy(template, tmp_path, "spawned-new.duckdb")
    env = _env(VIGNETTE_WORKER_FORK="off", VIGNETTE_WORKER_WARMUP="off", VIGNETTE_WORKER_IDLE="60")
    start = cli(db, "session", "start", "P4", env=env)
    assert start.returncode == 0, start.stderr
    status = _wait_state(db, "running", timeout=60)
    try:
        assert _cmdline(int(status["pid"]))[-2:] == ["worker", "serve"]
    finally:
        assert cli(db, "worker", "stop", env=env).returncode == 0
    _wait_state(db, "stopped", timeout=30)


def test_no_fork_while_another_thread_runs_or_for_a_server_database(tmp_path):
    paths = worker_mod.worker_paths(str(tmp_path / "x.duckdb"))
    release = threading.Event()
    helper = threading.Thread(target=release.wait, daemon=True)
    helper.start()
    try:
        assert worker_mod._fork_allowed(paths) is False  # the helper would not survive a fork
        assert worker_mod.become_worker(paths) is False and not paths.info.exists()  # nothing done
    finally:
        release.set()
        helper.join()
    server = worker_mod.worker_paths("postgresql://u@localhost/db")
    assert server is not None and worker_mod._fork_allowed(server) is False


# --------------------------------------------------------------------------- where the files live (round 6)
def test_the_runtime_folder_is_owner_only_and_never_another_users(short_tmp, monkeypatch):
    from vignette_lab.cli import _worker_files

    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    monkeypatch.setenv("VIGNETTE_CACHE_DIR", str(short_tmp / "c"))
    db = short_tmp / "repo" / "vignette.duckdb"
    paths = worker_mod.worker_paths(str(db))
    assert paths.socket.parent == short_tmp / "c" / "worker" and paths.db == db
    assert stat.S_IMODE(os.stat(paths.socket.parent).st_mode) == 0o700
    assert worker_mod.worker_paths(str(short_tmp / "repo" / "other.duckdb")).socket != paths.socket
    assert worker_mod.worker_paths(f"duckdb://{db}").socket == paths.socket  # one key per real path
    # a group-readable folder of ours is tightened; a symbolic link is never followed
    os.chmod(paths.socket.parent, 0o755)
    assert worker_mod.worker_paths(str(db)).socket.parent == paths.socket.parent
    assert stat.S_IMODE(os.stat(paths.socket.parent).st_mode) == 0o700
    (short_tmp / "elsewhere").mkdir()
    monkeypatch.setenv("VIGNETTE_CACHE_DIR", str(short_tmp / "l"))
    (short_tmp / "l").mkdir()
    (short_tmp / "l" / "worker").symlink_to(short_tmp / "elsewhere")
    assert worker_mod.worker_paths(str(db)).socket.parent == Path("/tmp") / f"vignette-{os.getuid()}"
    # a folder too long for a socket path falls back the same way
    monkeypatch.setenv("VIGNETTE_CACHE_DIR", str(short_tmp / ("x" * 90)))
    assert worker_mod.worker_paths(str(db)).socket.parent == Path("/tmp") / f"vignette-{os.getuid()}"
    # XDG_RUNTIME_DIR first when it names a folder
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(short_tmp))
    assert worker_mod.worker_paths(str(db)).socket.parent == short_tmp / f"vignette-{os.getuid()}"
    monkeypatch.setattr(_worker_files, "_owner_only", lambda folder: False)  # nothing usable: no worker
    assert worker_mod.worker_paths(str(db)) is None


def test_an_earlier_versions_files_beside_the_database_are_retired(tmp_path):
    from vignette_lab.cli import _worker_files

    db = tmp_path / "vignette.duckdb"
    db.write_bytes(b"")
    base = tmp_path / ".vignette.duckdb.worker"
    for suffix in (".json", ".log"):
        Path(f"{base}{suffix}").write_text("{}", encoding="utf-8")
    lock_fd = os.open(f"{base}.lock", os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(lock_fd, fcntl.LOCK_EX)  # a legacy worker still running: it holds its lock, serves its socket
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(f"{base}.sock")
    listener.listen(1)
    asked = []

    def legacy_worker():
        conn, _ = listener.accept()
        with conn:
            asked.append(json.loads(conn.makefile("rb").readline()))
            conn.sendall(b'{"stopping": true}\n')
        listener.close()
        os.unlink(f"{base}.sock")
        os.close(lock_fd)  # it exits: the lock is free

    thread = threading.Thread(target=legacy_worker, daemon=True)
    thread.start()
    removed = _worker_files.retire_legacy(db)
    thread.join(timeout=10)
    assert asked == [{"op": "stop"}]
    assert sorted(p.name for p in removed) == [".vignette.duckdb.worker.json", ".vignette.duckdb.worker.lock",
                                               ".vignette.duckdb.worker.log"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["vignette.duckdb"]
    assert _worker_files.retire_legacy(db) == []  # nothing left: nothing done


def test_a_legacy_worker_that_will_not_stop_keeps_its_files(tmp_path):
    from vignette_lab.cli import _worker_files

    db = tmp_path / "v.duckdb"
    lock_fd = os.open(tmp_path / ".v.duckdb.worker.lock", os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(lock_fd, fcntl.LOCK_EX)  # alive, no socket answering
    try:
        assert _worker_files.retire_legacy(db, wait=0.2) == []
        assert (tmp_path / ".v.duckdb.worker.lock").exists()
    finally:
        os.close(lock_fd)


def test_stale_files_of_other_databases_are_pruned(tmp_path):
    from vignette_lab.cli import _worker_files

    old, fresh, busy, mine = (tmp_path / name for name in ("a" * 20, "b" * 20, "c" * 20, "d" * 20))
    for base in (old, fresh, busy, mine):
        for suffix in (".lock", ".log", ".json"):
            Path(f"{base}{suffix}").write_text("1", encoding="utf-8")
    month_ago = time.time() - 30 * 24 * 3600
    for base in (old, busy, mine):
        os.utime(f"{base}.lock", (month_ago, month_ago))
    busy_fd = os.open(f"{busy}.lock", os.O_RDWR)
    fcntl.flock(busy_fd, fcntl.LOCK_EX)
    try:
        removed = _worker_files.prune(tmp_path, keep=mine)
    finally:
        os.close(busy_fd)
    assert sorted(p.name for p in removed) == sorted(f"{'a' * 20}{s}" for s in (".lock", ".log", ".json"))
    assert Path(f"{fresh}.log").exists() and Path(f"{busy}.log").exists() and Path(f"{mine}.log").exists()
