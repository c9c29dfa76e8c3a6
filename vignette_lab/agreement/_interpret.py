"""Verbal interpretation bands for kappa-type coefficients and ICC (private; see :mod:`vignette_lab.agreement`)."""

from __future__ import annotations

import math
from typing import NamedTuple

from vignette_lab.errors import InputError


class Interpretation(NamedTuple):
    """A verbal band: English and Korean label, the band's bounds and the scale it comes from."""

    en: str
    ko: str
    lower: float
    upper: float
    scale: str


# (upper bound inclusive, en, ko); Landis & Koch (1977) p. 165.
_LANDIS_KOCH = [
    (0.0, "poor", "빈약한 일치"),
    (0.20, "slight", "약간의 일치"),
    (0.40, "fair", "어느 정도의 일치"),
    (0.60, "moderate", "중간 정도의 일치"),
    (0.80, "substantial", "상당한 일치"),
    (1.0, "almost perfect", "거의 완벽한 일치"),
]
# Koo & Li (2016) p. 161: < 0.5, 0.5–0.75, 0.75–0.9, > 0.9.
_KOO_LI = [
    (0.5, "poor", "낮은 신뢰도"),
    (0.75, "moderate", "보통 신뢰도"),
    (0.9, "good", "좋은 신뢰도"),
    (1.0, "excellent", "매우 좋은 신뢰도"),
]


def _check_value(value, func: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) and not hasattr(value, "__float__"):
        raise InputError(f"{func} needs a number. Got {type(value).__name__} instead.", field="value")
    value = float(value)
    if not math.isnan(value) and not -1.0 <= value <= 1.0:
        raise InputError(f"{func} needs a value in [-1, 1]. Got {value!r} instead.", field="value")
    return value


def interpret_kappa(value) -> Interpretation:
    """Landis & Koch band of a kappa-type coefficient (Cohen, Fleiss, AC1), in English and Korean.

    Bands: < 0 poor (빈약한 일치), 0–0.20 slight (약간의 일치), 0.21–0.40 fair (어느 정도의
    일치), 0.41–0.60 moderate (중간 정도의 일치), 0.61–0.80 substantial (상당한 일치),
    0.81–1.00 almost perfect (거의 완벽한 일치). A value on a boundary belongs to the lower
    band (0.60 is moderate). The bands are conventions, not tests; the gate uses κ ≥ 0.6.

    Parameters
    ----------
    value : float
        Coefficient in [-1, 1]; ``nan`` gives the band "undefined" (정의되지 않음).

    Returns
    -------
    Interpretation
        Named tuple ``(en, ko, lower, upper, scale)``.

    References
    ----------
    .. [1] Landis, J. R., & Koch, G. G. (1977). The measurement of observer agreement for
       categorical data. *Biometrics*, 33(1), 159–174.

    Examples
    --------
    >>> from vignette_lab.agreement import interpret_kappa
    >>> interpret_kappa(0.72).en, interpret_kappa(0.72).ko
    ('substantial', '상당한 일치')
    """
    return _band(_check_value(value, "interpret_kappa"), _LANDIS_KOCH, -1.0, "Landis & Koch (1977)")


def interpret_icc(value) -> Interpretation:
    """Koo & Li band of an ICC, in English and Korean.

    Bands: < 0.5 poor (낮은 신뢰도), 0.5–0.75 moderate (보통 신뢰도), 0.75–0.9 good (좋은
    신뢰도), > 0.9 excellent (매우 좋은 신뢰도). Koo & Li ask to judge the band from the 95% CI,
    not the point estimate alone: pass ``ci_low`` too when deciding. A value on a boundary
    belongs to the upper band (0.75 is good), matching the gate's ICC ≥ 0.75.

    Parameters
    ----------
    value : float
        ICC in [-1, 1]; ``nan`` gives "undefined" (정의되지 않음).

    Returns
    -------
    Interpretation
        Named tuple ``(en, ko, lower, upper, scale)``.

    References
    ----------
    .. [1] Koo, T. K., & Li, M. Y. (2016). A guideline of selecting and reporting intraclass
       correlation coefficients for reliability research. *Journal of Chiropractic Medicine*,
       15(2), 155–163.

    Examples
    --------
    >>> from vignette_lab.agreement import interpret_icc
    >>> interpret_icc(0.75).en, interpret_icc(0.75).ko
    ('good', '좋은 신뢰도')
    """
    value = _check_value(value, "interpret_icc")
    if math.isnan(value):
        return Interpretation("undefined", "정의되지 않음", math.nan, math.nan, "Koo & Li (2016)")
    lower = -1.0
    for upper, en, ko in _KOO_LI[:-1]:
        if value < upper:
            return Interpretation(en, ko, lower, upper, "Koo & Li (2016)")
        lower = upper
    return Interpretation(_KOO_LI[-1][1], _KOO_LI[-1][2], lower, 1.0, "Koo & Li (2016)")


def _band(value: float, bands, lowest: float, scale: str) -> Interpretation:
    if math.isnan(value):
        return Interpretation("undefined", "정의되지 않음", math.nan, math.nan, scale)
    lower = lowest
    for upper, en, ko in bands:
        # Landis & Koch bands are closed above (0.20 is still slight); negative values are poor.
        if (value < upper) if upper == 0.0 else (value <= upper):
            return Interpretation(en, ko, lower, upper, scale)
        lower = upper
    return Interpretation(bands[-1][1], bands[-1][2], bands[-2][0], 1.0, scale)
