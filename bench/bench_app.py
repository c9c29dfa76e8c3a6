"""The workbench as its users meet it: browser latencies (standalone and inside JupyterLab),
``scripts/start.sh`` to URLs, and each CLI command's wall time.

Browser part (real Debian Chromium through Playwright, scripted engine, token pacing 20 ms per
chunk as served): for the standalone Panel server and for the same app inside JupyterLab as its
launcher opens it — the workbench server behind JupyterLab's proxy at ``/vignette/``
(``vignette_lab.app.jupyter_proxy``) — it measures

- ``page_load_s``: navigation → the session page usable (start button or chat input visible);
- ``first_token_s``: send → the client's reply visible (first streamed chunk), timed from just
  before Playwright's click; ``first_token_from_click_s``: the same, from the click event in the
  page (without Playwright's own 20-60 ms before it dispatches the click); ``full_reply_s``:
  send → reply complete (state line idle);
- ``end_review_s``: 회기 종료 → the review visible;
- ``reload_restore_s``: reload of a session in progress → its transcript back.

Inside JupyterLab it then times page loads of the older route, Panel's extension rendering
``notebooks/workbench_app.py`` in a new kernel per page (``/panel-preview/render/…``), in turn with
a second series of the proxy's page loads (``page_load_paired_s``) so both see the same machine
load; last, so its kernels cannot slow the other measures (``--no-preview`` skips it).

``start_sh_s``: ``bash scripts/start.sh`` (random ports, needs the repository's ``.venv``) → the
line with the standalone URL; the servers are stopped right after.

CLI part: ``vignette-lab --help``, ``doctor``, ``session start``, ``session send``,
``session end`` as whole processes (``python -m vignette_lab.cli``), median of N runs after one
warm-up; every ``session end`` gets a fresh session. Two rows per command: ``in-process``
(``VIGNETTE_WORKER=off``: the command does all its work itself) and ``warm worker`` (the session
commands handed to a warm ``vignette-lab worker``, started and warmed before the timed runs).

All on this 2-core machine shared with other jobs: absolute times are noisy; quote medians.

    PYTHONPATH=. .venv/bin/python bench/bench_app.py --sends 20 --ends 5 --loads 5 --write
"""

from __future__ import annotations

import argparse
import os
import platform
import signal
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "browser"))
os.environ.setdefault("TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS", "")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
UTTERANCES = ["안녕하세요. 오늘 어떤 이야기를 나누고 싶으세요?", "요즘 많이 힘드셨겠어요.",
              "그때 어떤 기분이 드셨어요?", "조금 더 이야기해 줄 수 있어요?", "그 마음이 이해가 돼요."]
TIMEOUT_MS = 240_000
READY = ".vl-start button, .vl-input input, .vl-review-body"


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def median_ci(values: list[float], *, level: float = 0.95) -> tuple[float, float]:
    """Distribution-free interval for the median: the order statistics ``(x_(j), x_(k))`` whose
    binomial(n, 1/2) coverage is at least ``level`` (the widest, min–max, when n is too small).

    Examples
    --------
    >>> median_ci([float(i) for i in range(1, 21)])
    (6.0, 15.0)
    """
    from math import comb

    ordered, n = sorted(values), len(values)
    if n == 0:
        return (float("nan"), float("nan"))
    cdf, j = 0.0, 0
    # the largest j with P(B <= j - 1) <= (1 - level) / 2, B ~ binomial(n, 1/2): x_(j) .. x_(n - j + 1)
    while j < n // 2:
        cdf += comb(n, j) / 2 ** n
        if cdf > (1 - level) / 2:
            break
        j += 1
    lo = max(j, 1)
    return ordered[lo - 1], ordered[n - lo]


class LoadSampler:
    """The 1-minute load average every ``every`` seconds in a daemon thread (the machine is shared)."""

    def __init__(self, *, every: float = 5.0) -> None:
        import threading

        self.samples: list[float] = [os.getloadavg()[0]]
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(every,), daemon=True)
        self._thread.start()

    def _run(self, every: float) -> None:
        while not self._stop.wait(every):
            self.samples.append(os.getloadavg()[0])

    def stop(self) -> str:
        """Stop sampling; "min–median–max (n samples)"."""
        self._stop.set()
        self._thread.join(timeout=1.0)
        s = sorted(self.samples)
        return f"{s[0]:.1f}–{s[len(s) // 2]:.1f}–{s[-1]:.1f} (min–median–max of {len(s)} samples)"


def _idle(page) -> None:
    deadline = time.time() + TIMEOUT_MS / 1000
    while time.time() < deadline:
        if page.locator("[data-streaming='1']").count() == 0 and page.locator("[data-state='idle']").count():
            return
        time.sleep(0.002)
    raise TimeoutError("the reply did not finish")


def _load(page, action) -> float:
    """Run a navigation and return seconds until the session page is usable and connected."""
    t0 = time.perf_counter()
    with page.expect_console_message(lambda m: "document idle" in m.text, timeout=TIMEOUT_MS):
        action()
    page.wait_for_selector(READY, timeout=TIMEOUT_MS)
    return time.perf_counter() - t0


#: Records, in the page, when the browser dispatched the last click (system clock, ms).
CLICK_CLOCK = "document.addEventListener('click', () => { window.__vlClickAt = Date.now(); }, true);"


def _send(page, text: str) -> tuple[float, float, float]:
    """(send → first token, send → reply complete, browser click event → first token) in seconds.

    The first two start before Playwright's ``click`` (which first checks the button and moves
    the pointer, 20-60 ms here); the third starts at the click event inside the page
    (``CLICK_CLOCK``; same system clock as ``time.time()``). All three end when Playwright's
    polling (every 2 ms plus one round trip) sees the reply's first text.
    """
    before = page.locator(".response-message").count()
    page.fill(".vl-input input", text)
    t0 = time.perf_counter()
    page.click(".vl-send button")
    while page.locator(".response-message").count() <= before:
        time.sleep(0.002)
    seen = time.time()
    first = time.perf_counter() - t0
    clicked = page.evaluate("window.__vlClickAt || 0") / 1000
    _idle(page)
    return first, time.perf_counter() - t0, seen - clicked


def _browser_measures(page, session_url: str, *, sends: int, ends: int, loads: int,
                      other: tuple[str, str] | None = None) -> dict[str, list[float]]:
    """The measures of one server; ``other`` = (row name, URL) of a second route whose page loads
    are timed in turn with this one's (same page, same machine load)."""
    out: dict[str, list[float]] = {k: [] for k in ("page_load_s", "first_turn_of_page_s", "first_token_s",
                                                   "first_token_from_click_s", "full_reply_s", "end_review_s",
                                                   "reload_restore_s")}
    page.set_default_timeout(TIMEOUT_MS)
    page.add_init_script(CLICK_CLOCK)
    for _ in range(loads):
        out["page_load_s"].append(_load(page, lambda: page.goto(session_url)))
    for i in range(max(ends, 1)):
        if page.locator(".vl-start button").count() == 0:
            _load(page, lambda: page.goto(session_url))
        page.click(".vl-start button")
        page.wait_for_selector(".vl-input input", timeout=TIMEOUT_MS)
        for j in range(sends + 1 if i == 0 else 1):
            first, full, from_click = _send(page, UTTERANCES[j % len(UTTERANCES)])
            if i == 0 and j > 0:
                # Turns after the first of one page: the first also loads the PII masker (inside
                # JupyterLab every page load is a new kernel, so that cost recurs per page).
                out["first_token_s"].append(first)
                out["first_token_from_click_s"].append(from_click)
                out["full_reply_s"].append(full)
            elif i == 0:
                out["first_turn_of_page_s"] = [first]
        if i == 0:
            for _ in range(max(1, loads)):
                t0 = time.perf_counter()
                _load(page, page.reload)
                page.wait_for_selector(".user-message", timeout=TIMEOUT_MS)
                out["reload_restore_s"].append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        page.click(".vl-end button")
        page.wait_for_selector(".vl-review-body", timeout=TIMEOUT_MS)
        out["end_review_s"].append(time.perf_counter() - t0)
        _load(page, lambda: page.goto(session_url))  # nothing in progress now: the start button
    if other is not None:
        # Last, so the other route's kernels cannot slow the measures above; in turn with this
        # route's loads (a second page_load series) so both see the same machine load.
        out[other[0]], out["page_load_paired_s"] = [], []
        _load(page, lambda: page.goto(other[1]))  # warm-up (kernel spec, file cache)
        for _ in range(loads):
            out["page_load_paired_s"].append(_load(page, lambda: page.goto(session_url)))
            out[other[0]].append(_load(page, lambda: page.goto(other[1])))
    return out


def measure_browser(*, sends: int, ends: int, loads: int, jupyter: bool,
                    standalone: bool = True, preview: bool = True) -> dict[str, dict[str, list[float]]]:
    from _jupyter import JupyterServer
    from conftest import LiveServer
    from playwright.sync_api import sync_playwright

    results: dict[str, dict[str, list[float]]] = {}
    tmp = Path(tempfile.mkdtemp(prefix="vl_bench_app_"))
    os.environ["VL_TOKEN_DELAY"] = "0.02"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
        if standalone:
            (tmp / "standalone").mkdir()
            srv = LiveServer(tmp / "standalone", mock_evaluator=False)
            try:
                page = browser.new_page(viewport={"width": 1366, "height": 900})
                results["standalone"] = _browser_measures(page, srv.url + "/?page=session", sends=sends,
                                                          ends=ends, loads=loads)
                page.close()
            finally:
                srv.stop()
        if jupyter:
            (tmp / "jupyter").mkdir()
            jsrv = JupyterServer(tmp / "jupyter")
            try:
                context = browser.new_context(viewport={"width": 1366, "height": 900})
                page = context.new_page()
                t0 = time.perf_counter()
                page.goto(jsrv.app_url())  # the token sets the login cookie once; starts the server
                page.wait_for_selector(".vl-page-link", timeout=TIMEOUT_MS)
                first_use = time.perf_counter() - t0
                other = ("page_load_panel_preview_s", jsrv.preview_url("page=session")) if preview else None
                rows = _browser_measures(page, jsrv.app_url("page=session"), sends=sends, ends=ends, loads=loads,
                                         other=other)
                results["inside JupyterLab (/vignette/, behind its proxy)"] = {
                    "first_use_s (starts the server)": [first_use], **rows}
                context.close()
            finally:
                jsrv.stop()
        browser.close()
    return results


def measure_start_sh(*, runs: int) -> list[float]:
    """Seconds from ``bash scripts/start.sh`` to its standalone-URL line (needs ROOT/.venv)."""
    from _jupyter import _free_port

    out = []
    for _ in range(runs):
        env = {**os.environ, "JUPYTER_PORT": str(_free_port()), "PANEL_PORT": str(_free_port())}
        t0 = time.perf_counter()
        proc = subprocess.Popen(["bash", "scripts/start.sh"], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True, start_new_session=True)
        try:
            for line in proc.stdout:
                if "Panel app (standalone)" in line:
                    out.append(time.perf_counter() - t0)
                    break
        finally:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=60)
    return out


def measure_cli(*, runs: int) -> dict[str, list[float]]:
    """Wall seconds per command, ``"<command> · in-process"`` and ``"<command> · warm worker"``."""
    tmp = Path(tempfile.mkdtemp(prefix="vl_bench_cli_"))
    base = {**os.environ, "VIGNETTE_DB": str(tmp / "cli.duckdb"), "PYTHONPATH": str(ROOT),
            "TRANSFORMERS_OFFLINE": "1"}
    base.pop("ANTHROPIC_API_KEY", None)
    base.pop("VIGNETTE_WORKER", None)
    off = {**base, "VIGNETTE_WORKER": "off"}
    cli = [sys.executable, "-m", "vignette_lab.cli"]

    def run(env: dict[str, str], *args: str) -> tuple[float, str]:
        t0 = time.perf_counter()
        res = subprocess.run([*cli, *args], env=env, capture_output=True, text=True, check=True)
        return time.perf_counter() - t0, res.stdout.strip()

    run(off, "init")
    sid = run(off, "session", "start", "P4")[1]
    out: dict[str, list[float]] = {}
    try:
        for mode, env in (("in-process", off), ("warm worker", base)):
            if mode == "warm worker":
                run(base, "worker", "start", "--wait", "300")
            to_end = []
            for i in range(runs + 1):
                # one learner each: a learner's open sessions of one persona end one at a time
                s = run(off, "session", "start", "P1", "--learner", f"bench-{mode[:2]}-{i}")[1]
                run(off, "session", "send", s, UTTERANCES[0])
                to_end.append(s)
            commands = {"--help": lambda i: ("--help",), "doctor": lambda i: ("doctor",),
                        "session start": lambda i: ("session", "start", "P4"),
                        "session send": lambda i: ("session", "send", sid, UTTERANCES[i % len(UTTERANCES)]),
                        "session end": lambda i: ("session", "end", to_end[i])}
            for name, args in commands.items():
                times = [run(env, *args(i))[0] for i in range(runs + 1)]
                out[f"{name} · {mode}"] = times[1:]  # the first run warms the file cache
    finally:
        subprocess.run([*cli, "worker", "stop"], env=base, capture_output=True)
    return out


def _table(rows: dict[str, list[float]], budget: dict[str, float]) -> list[str]:
    lines = ["| measure | n | p50 (s) | 95 % CI of p50 | p95 (s) | min–max (s) | target |",
             "|---|---:|---:|---:|---:|---:|---|"]
    for name, values in rows.items():
        if values:
            lo, hi = median_ci(values)
            lines.append(f"| {name} | {len(values)} | {_pct(values, .5):.3f} | {lo:.3f}–{hi:.3f} | "
                         f"{_pct(values, .95):.3f} | {min(values):.3f}–{max(values):.3f} | {budget.get(name, '')} |")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sends", type=int, default=20, help="turns timed per server")
    parser.add_argument("--ends", type=int, default=5, help="session ends timed per server")
    parser.add_argument("--loads", type=int, default=5, help="page loads (and reloads) timed per server")
    parser.add_argument("--cli-runs", type=int, default=5, help="runs per CLI command (after one warm-up)")
    parser.add_argument("--start-runs", type=int, default=3, help="start.sh runs (0 skips; needs ROOT/.venv)")
    parser.add_argument("--no-jupyter", action="store_true", help="skip the JupyterLab measurements")
    parser.add_argument("--no-standalone", action="store_true", help="skip the standalone-server measurements")
    parser.add_argument("--no-preview", action="store_true",
                        help="inside JupyterLab, skip the page loads of the panel-preview route")
    parser.add_argument("--no-browser", action="store_true", help="skip the browser measurements")
    parser.add_argument("--no-cli", action="store_true", help="skip the CLI measurements")
    parser.add_argument("--write", action="store_true", help="append a section to bench/RESULTS.md")
    parser.add_argument("--raw", type=Path, default=None, help="also write every measured value as JSON here")
    args = parser.parse_args()
    load = os.getloadavg()[0]
    sampler = LoadSampler()
    raw: dict[str, dict[str, list[float]]] = {}
    lines = [f"### Issue 16 · the app as users meet it ({datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC)", "",
             f"{platform.machine()}, {os.cpu_count()} cores shared with other jobs (load average at start "
             f"{load:.1f}): absolute times are noisy, quote medians. Scripted engine, DuckDB, token pacing 20 ms.", ""]
    if not args.no_browser:
        budget = {"page_load_s": "≤ 1.5", "first_token_s": "p50 ≤ 0.150", "first_token_from_click_s": "p50 ≤ 0.150",
                  "end_review_s": "≤ 1", "page_load_panel_preview_s": "(older route, for comparison)"}
        for where, rows in measure_browser(sends=args.sends, ends=args.ends, loads=args.loads,
                                           jupyter=not args.no_jupyter, standalone=not args.no_standalone,
                                           preview=not args.no_preview).items():
            raw[where] = rows
            lines += [f"Real Chromium, {where}:", "", *_table(rows, budget), ""]
    if args.start_runs and (ROOT / ".venv" / "bin" / "python").exists():
        lines += ["`bash scripts/start.sh` → URLs printed (set-up already done):", "",
                  *_table({"start_sh_s": measure_start_sh(runs=args.start_runs)}, {"start_sh_s": "≤ 20"}), ""]
    if not args.no_cli:
        lines += ["CLI, whole process (`python -m vignette_lab.cli …`):", "",
                  *_table(measure_cli(runs=args.cli_runs), {f"{k} · {m}": "≤ 1.5" for m in ("in-process", "warm worker")
                                                             for k in ("--help", "doctor", "session start",
                                                                       "session send", "session end")}), ""]
    lines.append(f"Load average at the end {os.getloadavg()[0]:.1f}; during the run {sampler.stop()}. "
                 "95 % CI of p50: distribution-free, from order statistics.")
    if args.raw is not None:
        import json

        args.raw.write_text(json.dumps(raw, ensure_ascii=False, indent=1), encoding="utf-8")
    text = "\n".join(lines)
    print(text)
    if args.write:
        with open(ROOT / "bench" / "RESULTS.md", "a", encoding="utf-8") as fh:
            fh.write("\n" + text + "\n")


if __name__ == "__main__":
    main()
