"""What a user sees on a page, read in the real browser: visible text and interactive boxes.

``page_report(page)`` walks the document *and every shadow root* (Panel renders each pane in
its own shadow DOM, so ``document.body.innerText`` misses most of the page) and returns the
visible text nodes (``texts``; text inside ``<code>`` — commands to type — apart in ``code``), the option texts of every ``<select>`` (a user reads them when the list
opens), the bounding boxes of every visible interactive element and the table headers and
buttons whose text is cut off (``clipped``), the tables whose columns run past their own
edge (``tables``: wider than the table, the last header hidden) and Korean text in chat bubbles,
review text and table cells that may break inside a word (``breakable``: ``word-break`` is not
``keep-all``).

``english_words(texts)`` names English words in visible text outside parentheses, other than
names, formats and abbreviations (``ENGLISH_ALLOWED``).
``untranslated(texts, codes)`` names the taxonomy/scheme codes that appear in visible text as
primary text; a code inside parentheses right after its Korean label — ``감정 반영
(reflection_feelings)`` — is secondary text and allowed. ``epoch_numbers(texts)`` finds raw
epoch seconds/milliseconds (``1796112339103.481``).

``build_data_db(path)`` fills a database with what every page can show: self-play sessions, an
AI round, a simulated human round with a stored gate decision, a human-review round assigned to
the local user, one ended live session and one in progress.
"""

from __future__ import annotations

import json
import os
import re
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parents[2]


def start_with_reports_home(tmp: Path, start: Callable[[], Any]) -> tuple[Any, Path]:
    """Call ``start()`` (a server launcher) with ``VIGNETTE_HOME`` in ``tmp/home``, so the gate reports
    the server writes stay out of the checkout.

    Returns what ``start`` returned and the home folder (``datasets``/``kb_sources`` linked from the checkout).
    """
    home = tmp / "home"
    (home / "reports").mkdir(parents=True)
    for name in ("datasets", "kb_sources"):
        if (ROOT / name).exists():
            (home / name).symlink_to(ROOT / name)
    old = os.environ.get("VIGNETTE_HOME")
    os.environ["VIGNETTE_HOME"] = str(home)
    try:
        return start(), home
    finally:
        if old is None:
            os.environ.pop("VIGNETTE_HOME", None)
        else:
            os.environ["VIGNETTE_HOME"] = old

_REPORT_JS = r"""
() => {
  const texts = [];
  const code = [];
  const boxes = [];
  const clipped = [];
  const tables = [];     // tables whose columns run past their own edge (hidden, not scrollable-looking)
  const breakable = [];  // Korean chat/review text that may break inside a word
  const hangul = /[\uac00-\ud7a3]/;
  const koreanText = '.vl-msg, .vl-review-context, .vl-review-body, .vl-proposal, .vl-review-target, .tabulator-cell';
  const interactive = 'button, input:not([type=hidden]), select, textarea, a[href], [role=button], ' +
                      '[role=slider], .noUi-handle, .tabulator';
  const visible = (el) => el.checkVisibility({checkOpacity: true, checkVisibilityCSS: true});
  const visit = (root) => {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      if (n.nodeType === Node.TEXT_NODE) {
        const p = n.parentElement;
        const t = n.textContent.trim();
        if (!t || !p || ['SCRIPT', 'STYLE', 'TEMPLATE', 'OPTION'].includes(p.tagName)) continue;
        if (!visible(p)) continue;
        // an icon button's label drawn off-screen (text-indent: -9999px) is for screen readers only
        if (parseFloat(getComputedStyle(p).textIndent) < -999) continue;
        // Commands and file names (<code>) are meant to be typed as written.
        if (p.closest('code, kbd, pre')) code.push(t); else texts.push(t);
        if (hangul.test(t) && p.closest(koreanText)) {
          const cs = getComputedStyle(p);
          if (cs.wordBreak !== 'keep-all') breakable.push(t.slice(0, 40) + ' [word-break: ' + cs.wordBreak + ']');
        }
        continue;
      }
      if (n.shadowRoot) visit(n.shadowRoot);
      if (n.tagName === 'SELECT' && visible(n)) {
        for (const o of n.options) if (o.textContent.trim()) texts.push(o.textContent.trim());
      }
      if (n.matches('.tabulator-col-title, button') && visible(n) && n.scrollWidth > n.clientWidth + 1) {
        const label = (n.innerText || '').replace(/\u00a0/g, ' ').trim();
        if (label) clipped.push(label.slice(0, 60));
      }
      if (n.matches('.tabulator') && visible(n)) {
        const holder = n.querySelector('.tabulator-tableholder');
        const right = n.getBoundingClientRect().right;
        const cut = [...n.querySelectorAll('.tabulator-col')].filter(c => c.innerText.trim() &&
                                                                        c.getBoundingClientRect().right > right + 1);
        if ((holder && holder.scrollWidth > holder.clientWidth + 1) || cut.length) {
          tables.push({overflow: holder ? holder.scrollWidth - holder.clientWidth : 0,
                       cut: cut.map(c => c.innerText.trim().slice(0, 30))});
        }
      }
      if (n.matches(interactive) && visible(n)) {
        const r = n.getBoundingClientRect();
        if (r.width > 0 && r.height > 0) {
          boxes.push({tag: n.tagName.toLowerCase(), cls: String(n.className || '').slice(0, 80),
                      text: (n.innerText || n.value || n.getAttribute('aria-label') || '').slice(0, 60),
                      left: r.left + window.scrollX, right: r.right + window.scrollX});
        }
      }
    }
  };
  visit(document.body);
  return {texts, code, boxes, clipped, tables, breakable, viewport: window.innerWidth,
          scroll_width: document.documentElement.scrollWidth};
}
"""


def page_report(page: Any) -> dict[str, Any]:
    """Visible texts, select options and interactive boxes of ``page`` (see module docstring)."""
    return page.evaluate(_REPORT_JS)


def outside_viewport(report: dict[str, Any], *, slack: float = 1.0) -> list[dict[str, Any]]:
    """Interactive elements that lie (partly) left of 0 or right of the viewport's width."""
    width = report["viewport"]
    return [b for b in report["boxes"] if b["left"] < -slack or b["right"] > width + slack]


@lru_cache(maxsize=1)
def taxonomy_codes() -> frozenset[str]:
    """Every code a user must never read bare: the taxonomy's, the shipped schemes', the
    counselor profiles', persona difficulties and session/round statuses."""
    tax = json.loads((ROOT / "datasets" / "taxonomy.json").read_text(encoding="utf-8"))
    codes: set[str] = set()
    for key in ("stages", "techniques", "client_states", "appropriateness", "score_dimensions"):
        codes |= {x["code"] if isinstance(x, dict) else str(x) for x in tax.get(key, [])}
    dev = tax.get("intent_deviation") or {}
    codes |= {d["code"] for d in dev.get("dimensions", [])}
    codes |= set(dev.get("severity", []))
    schemes = sorted((ROOT / "datasets" / "schemes").glob("*.json"))
    schemes += sorted((ROOT / "datasets" / "examples").glob("*scheme*.json"))
    for path in schemes:
        for field in json.loads(path.read_text(encoding="utf-8")).get("fields", []):
            codes.add(field["name"])
            codes |= {c["code"] for c in field.get("categories", [])}
    profiles = json.loads((ROOT / "datasets" / "counselor_profiles.json").read_text(encoding="utf-8"))
    codes |= set(profiles.get("profiles", {}))
    codes |= {"easy", "moderate", "medium", "hard", "active", "ended", "abandoned", "open", "closed",
              "proposed", "accepted", "pending", "ready", "degraded", "live", "selfplay", "human_review",
              "ai_annotation", "lower-bound", "point", "pass", "fail", "inconclusive"}
    return frozenset(codes)


_TOKEN = re.compile(r"[A-Za-z][A-Za-z0-9_\-]*")


def _outside_parentheses(text: str) -> str:
    """``text`` with every (…) group removed — codes there are secondary text."""
    out, depth = [], 0
    for ch in text:
        if ch in "([":
            depth += 1
        elif ch in ")]" and depth:
            depth -= 1
        elif depth == 0:
            out.append(ch)
    return "".join(out)


def untranslated(texts: list[str], codes: frozenset[str] | None = None) -> list[tuple[str, str]]:
    """``(code, text)`` for each code that is primary visible text (not inside parentheses)."""
    codes = taxonomy_codes() if codes is None else codes
    hits = []
    for text in texts:
        for token in _TOKEN.findall(_outside_parentheses(text)):
            if token in codes:
                hits.append((token, text[:120]))
    return hits


#: Latin words a Korean page may show as they are: names of products, people and file formats,
#: statistics abbreviations, persona codes. Anything else in visible text is English a user reads
#: in the middle of Korean (the QA pass found "독립 held-out test 분할 5차").
ENGLISH_ALLOWED = frozenset({
    "Vignette", "Lab", "JupyterLab", "Jupyter", "Panel", "DuckDB", "PostgreSQL", "Claude", "Anthropic",
    "ANTHROPIC_API_KEY", "Python", "CSV", "JSON", "JSONL", "Parquet", "HTML", "PDF", "PNG", "URL", "ID", "AI",
    "CI", "ICC", "AC1", "AC2", "Fleiss", "Cohen", "Conger", "Krippendorff", "Gwet", "Brennan", "Prediger", "Dawid",
    "Skene", "MASI", "Big", "Five", "BCa", "MITI", "MISC", "CTRS", "PII", "DSM", "CCD", "KB", "vs", "OK",
    "Enter", "Esc", "Tab", "Shift", "Ctrl"})  # key names, as printed on the keys
_WORD = re.compile(r"(?<![\w.@/:-])[A-Za-z][A-Za-z0-9]+(?:[-_][A-Za-z0-9]+)*(?![\w@/-]|\.\w)")


def english_words(texts: list[str], allowed: frozenset[str] = ENGLISH_ALLOWED,
                  ids: frozenset[str] = frozenset()) -> list[tuple[str, str]]:
    """``(word, text)`` for each English word in visible text that is neither allowed nor secondary
    text in parentheses. Not words here: file names, e-mail addresses, paths, identifiers with a
    digit (``P4``, ``sim-reviewer-1``, ``demo-seed5``) and the stored ``ids`` the caller names."""
    hits = []
    for text in texts:
        for match in _WORD.finditer(_outside_parentheses(text)):
            word = match.group(0)
            if word not in allowed and word not in ids and not any(ch.isdigit() for ch in word):
                hits.append((word, text[:120]))
    return hits


# 10 digits (seconds) or 13 (milliseconds) from 2001 to 2286, optionally with a fraction.
_EPOCH = re.compile(r"(?<![\w.])1\d{9}(?:\d{3})?(?:\.\d+)?(?![\w.])")


def epoch_numbers(texts: list[str]) -> list[str]:
    """Raw epoch seconds or milliseconds in visible text."""
    return [m.group(0) for t in texts for m in _EPOCH.finditer(t)]


def build_data_db(path: Path, work: Path) -> dict[str, Any]:
    """A database with data for every page (see module docstring); returns the ids."""
    from vignette_lab.engines.scripted import ScriptedEngine
    from vignette_lab.pipeline.demo import run_demo
    from vignette_lab.pipeline.review import assign_reviewers
    from vignette_lab.pipeline.rounds import create_round
    from vignette_lab.session.service import SessionService
    from vignette_lab.store import connect, init_db
    from vignette_lab.store.catalog import load_catalog

    db = connect(str(path))
    init_db(db)
    load_catalog(db)
    summary = run_demo(db, work / "demo", sessions=3, turns=4, personas=("P2",), reviewers=2, overlap=1.0,
                       seed=5, echo=None)
    review_round = create_round(db, summary["dataset_id"], "human_review")
    assign_reviewers(db, review_round, ["local"], overlap=0)
    service = SessionService(db, engine=ScriptedEngine(seed=2))
    ended = service.start("P3", learner_id="local", mode="live")
    ended_id = getattr(ended, "session_id", None) or ended["session_id"]
    for text in ("안녕하세요. 오늘 어떤 이야기를 나누고 싶으세요?", "요즘 많이 힘드셨겠어요."):
        service.send(ended_id, text, learner_id="local")
    service.end(ended_id, learner_id="local")
    active = service.start("P5", learner_id="local", mode="live")
    active_id = getattr(active, "session_id", None) or active["session_id"]
    for text in ("만나서 반가워요. 어떤 일로 오셨어요?", "여기 오는 게 쉽지 않으셨을 것 같아요.",
                 "요즘 학교생활은 어떠세요? 편하게 이야기해 주세요."):
        service.send(active_id, text, learner_id="local")
    db.close() if hasattr(db, "close") else None  # the server process opens the same DuckDB file
    return {"human_round": summary["human_round"], "review_round": review_round, "ended": ended_id,
            "active": active_id, "gate_id": summary["gate_id"]}
