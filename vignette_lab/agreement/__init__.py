"""Inter-annotator agreement: pure functions over arrays and DataFrames, no database.

Per scheme field (the API the pipeline, the CLI and the pages use):

- :func:`field_agreement` — every coefficient that fits a field's kind (``single``,
  ``ordinal``, ``multi``, ``score``) from long-format ratings, with intervals, the design
  (fully crossed or varying raters) and the items left out; :data:`COEFFICIENTS` lists the names.
- :func:`gate_fields` — the gate: ``pass``/``fail``/``inconclusive`` per field from the interval
  (lower-bound rule) or the point value (point rule).
- :func:`annotator_quality`, :func:`pairwise_agreement` — per-reviewer tables;
  :func:`dawid_skene` and :func:`majority_vote` — golden-label aggregation.

Single coefficients (unchanged API, formerly ``vignette_lab.pipeline.iaa``, which re-exports
this module): :func:`cohen_kappa`, :func:`fleiss_kappa`, :func:`gwet_ac1`,
:func:`krippendorff_alpha`, :func:`per_label_kappa`, :func:`multilabel_agreement`, :func:`icc`,
their ``*_ci`` bootstrap companions, :func:`agreement_report` and the verbal bands
:func:`interpret_kappa` / :func:`interpret_icc`.

Dependencies: numpy, pandas, scipy, scikit-learn, krippendorff — nothing from the rest of the
package except :mod:`vignette_lab.errors`.
"""

from __future__ import annotations

from ._coefficients import (
    UndefinedAgreementWarning,
    cohen_kappa,
    fleiss_kappa,
    gwet_ac1,
    krippendorff_alpha,
    multilabel_agreement,
    per_label_kappa,
)
from ._fields import COEFFICIENTS, FieldAgreement, field_agreement
from ._gate import GateResult, gate_fields
from ._icc import icc
from ._interpret import Interpretation, interpret_icc, interpret_kappa
from ._intervals import (
    ac1_ci,
    agreement_report,
    alpha_ci,
    bootstrap_ci,
    fleiss_ci,
    kappa_ci,
)
from ._prepare import is_missing
from ._quality import annotator_quality, dawid_skene, majority_vote, pairwise_agreement

__all__ = [
    "COEFFICIENTS",
    "FieldAgreement",
    "GateResult",
    "Interpretation",
    "UndefinedAgreementWarning",
    "ac1_ci",
    "agreement_report",
    "alpha_ci",
    "annotator_quality",
    "bootstrap_ci",
    "cohen_kappa",
    "dawid_skene",
    "field_agreement",
    "fleiss_ci",
    "fleiss_kappa",
    "gate_fields",
    "gwet_ac1",
    "icc",
    "interpret_icc",
    "interpret_kappa",
    "is_missing",
    "kappa_ci",
    "krippendorff_alpha",
    "majority_vote",
    "multilabel_agreement",
    "pairwise_agreement",
    "per_label_kappa",
]
