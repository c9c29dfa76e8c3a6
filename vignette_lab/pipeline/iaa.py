"""Inter-annotator agreement: the public API of the agreement gate.

Categorical labels (techniques, client-state read, appropriateness):
:func:`cohen_kappa` (2 raters, optional weights), :func:`fleiss_kappa` and :func:`gwet_ac1`
(any number of raters, missing ratings), :func:`krippendorff_alpha` (any level of
measurement, missing data). Multi-label technique sets: :func:`per_label_kappa` (2 annotators)
and :func:`multilabel_agreement` (more). Numeric 0–5 dimension scores: :func:`icc`.

Intervals: each categorical coefficient has a ``*_ci`` companion (:func:`kappa_ci`,
:func:`fleiss_ci`, :func:`ac1_ci`, :func:`alpha_ci`) built on :func:`bootstrap_ci` (seeded
percentile bootstrap over items); :func:`agreement_report` gathers all of them in one tidy
table. ICC intervals are F-based and come with :func:`icc`. Verbal bands:
:func:`interpret_kappa` (Landis & Koch) and :func:`interpret_icc` (Koo & Li), in Korean and
English.

Layouts, once: ``fleiss_kappa``/``gwet_ac1``/``agreement_report`` take items × raters;
``krippendorff_alpha`` takes raters × units (the ``krippendorff`` package's layout);
``icc`` takes long format. Undefined coefficients (one category only) return ``nan`` with an
:class:`UndefinedAgreementWarning`; malformed input raises
:class:`~vignette_lab.errors.InputError`.
"""

from __future__ import annotations

from ._iaa_coefficients import (
    UndefinedAgreementWarning,
    cohen_kappa,
    fleiss_kappa,
    gwet_ac1,
    krippendorff_alpha,
    multilabel_agreement,
    per_label_kappa,
)
from ._iaa_icc import icc
from ._iaa_interpret import Interpretation, interpret_icc, interpret_kappa
from ._iaa_intervals import (
    ac1_ci,
    agreement_report,
    alpha_ci,
    bootstrap_ci,
    fleiss_ci,
    kappa_ci,
)

__all__ = [
    "Interpretation",
    "UndefinedAgreementWarning",
    "ac1_ci",
    "agreement_report",
    "alpha_ci",
    "bootstrap_ci",
    "cohen_kappa",
    "fleiss_ci",
    "fleiss_kappa",
    "gwet_ac1",
    "icc",
    "interpret_icc",
    "interpret_kappa",
    "kappa_ci",
    "krippendorff_alpha",
    "multilabel_agreement",
    "per_label_kappa",
]
