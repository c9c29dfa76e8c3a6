"""App latency in the real browser (scripted engine).

Measures, over N tries each (default 20):
- send → first streamed token of the client reply, and send → full reply (state line idle);
- review: Enter (save) → the next item shown.

Starts its own server (subprocess) on a temporary DuckDB file with demo pipeline data, drives
Debian Chromium through Playwright, prints p50/p95 and, with --write, appends a section to
bench/RESULTS.md.

    PYTHONPATH=. .venv/bin/python bench/app_latency.py --tries 20 --write
"""

from __future__ import annotations

import argparse
import os
import platform
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS", "")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
UTTERANCES = ["안녕하세요. 오늘 어떤 이야기를 나누고 싶으세요?", "요즘 많이 힘드셨겠어요.",
              "그때 어떤 기분이 드셨어요?", "조금 더 이야기해 줄 수 있어요?", "그 마음이 이해가 돼요."]


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    idx = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[idx]


def _prepare(db_path: str) -> str:
    from vignette_lab.pipeline.demo import run_demo
    from vignette_lab.pipeline.review import assign_reviewers
    from vignette_lab.pipeline.rounds import create_round
    from vignette_lab.store import connect, init_db
    from vignette_lab.store.catalog import load_catalog

    db = connect(db_path)
    init_db(db)
    load_catalog(db)
    summary = run_demo(db, Path(db_path).parent / "demo", sessions=6, turns=5, personas=("P4",), reviewers=2,
                       overlap=1.0, seed=3, echo=None)
    human = create_round(db, summary["dataset_id"], "human_review", ai_round_id=summary["ai_round"])
    assign_reviewers(db, human, ["local"], overlap=0.0, seed=0)
    return human


def _start(db_path: str) -> tuple[subprocess.Popen, str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    code = ("import sys; sys.path.insert(0, %r); from vignette_lab.app.serve import serve; "
            "serve(%r, port=%d)" % (str(ROOT), db_path, port))
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    for _ in range(600):
        try:
            urllib.request.urlopen(url + "/liveness-probe", timeout=1)
            break
        except urllib.error.HTTPError:
            break
        except OSError:
            time.sleep(0.5)
    return proc, url


def measure(tries: int) -> dict[str, list[float]]:
    from playwright.sync_api import sync_playwright

    tmp = tempfile.mkdtemp(prefix="vl_bench_")
    db_path = str(Path(tmp) / "workbench.duckdb")
    human = _prepare(db_path)
    proc, url = _start(db_path)
    out: dict[str, list[float]] = {"first_token_s": [], "full_reply_s": [], "review_next_s": []}
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
            page = browser.new_page(viewport={"width": 1300, "height": 950})
            page.goto(url + "/session")
            page.wait_for_selector(".vl-start button", timeout=120_000)
            page.click(".vl-start button")
            page.wait_for_selector(".vl-input input", timeout=120_000)
            for i in range(tries):
                before = page.locator(".response-message").count()
                page.fill(".vl-input input", UTTERANCES[i % len(UTTERANCES)])
                t0 = time.perf_counter()
                page.click(".vl-send button")
                while page.locator(".response-message").count() <= before:
                    time.sleep(0.002)
                out["first_token_s"].append(time.perf_counter() - t0)
                while page.locator("[data-streaming='1']").count() or not page.locator("[data-state='idle']").count():
                    time.sleep(0.002)
                out["full_reply_s"].append(time.perf_counter() - t0)
            page.goto(url + "/review")
            page.wait_for_selector("select", timeout=120_000)
            label = page.locator("select option", has_text=str(human)[:8]).first.inner_text()
            page.locator("select").first.select_option(label=label)
            page.wait_for_selector(".vl-keys-ready", timeout=60_000)
            for i in range(tries):
                page.wait_for_selector(".vl-review-target", timeout=60_000)
                done = int(page.locator(".vl-review-count").first.get_attribute("data-done"))
                if page.locator(".vl-techniques input[type=checkbox]:checked").count() == 0:
                    page.keyboard.press("1")
                    page.wait_for_selector(".vl-techniques input[type=checkbox]:checked", timeout=30_000)
                t0 = time.perf_counter()
                page.keyboard.press("Enter")
                page.wait_for_selector(f".vl-review-count[data-done='{done + 1}']", timeout=60_000)
                out["review_next_s"].append(time.perf_counter() - t0)
                if page.locator(".vl-review-done").count():
                    break
            browser.close()
    finally:
        proc.terminate()
        proc.wait(timeout=20)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tries", type=int, default=20, help="tries per measurement")
    parser.add_argument("--write", action="store_true", help="append a section to bench/RESULTS.md")
    args = parser.parse_args()
    res = measure(args.tries)
    lines = [f"## App latency ({datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC)", "",
             f"Real Chromium via Playwright against `vignette-lab serve` (scripted engine, DuckDB, token pacing "
             f"20 ms/chunk), {platform.machine()} / {os.cpu_count()} cores, machine shared with other jobs.", "",
             "| measure | n | p50 (s) | p95 (s) | mean (s) |", "|---|---|---|---|---|"]
    for name, values in res.items():
        if values:
            lines.append(f"| {name} | {len(values)} | {_pct(values, .5):.3f} | {_pct(values, .95):.3f} | "
                         f"{statistics.mean(values):.3f} |")
    lines.append("")
    text = "\n".join(lines)
    print(text)
    if args.write:
        with open(ROOT / "bench" / "RESULTS.md", "a", encoding="utf-8") as fh:
            fh.write("\n" + text + "\n")


if __name__ == "__main__":
    main()
