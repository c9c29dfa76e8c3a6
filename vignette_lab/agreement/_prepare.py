"""Long-format ratings -> validated items × raters matrices (private; see :mod:`vignette_lab.agreement`).

One place decides what counts as missing, which categories exist and in which order, so every
coefficient sees the same data: ``None``, ``NaN``, ``''``, ``'nan'``, ``'n/a'`` and ``'NA'``
(any case, surrounding spaces ignored) are missing; categories come from the scheme when given,
else from an (ordered) pandas categorical, else from the data (sorted, with a warning when an
ordinal field has text labels and no declared order).
"""

from __future__ import annotations

from dataclasses import dataclass, field as dc_field

import numpy as np
import pandas as pd

from vignette_lab.errors import InputError

KINDS = ("single", "ordinal", "multi", "score")
MISSING_STRINGS = frozenset({"", "nan", "n/a", "na"})


def is_missing(value) -> bool:
    """True for None, NaN/NaT/pd.NA and the missing-value strings ('', 'nan', 'n/a', 'NA')."""
    if value is None:
        return True
    if isinstance(value, str):
        return value.strip().lower() in MISSING_STRINGS
    if isinstance(value, (list, tuple, set, frozenset, np.ndarray)):
        return False
    try:
        return bool(pd.isna(value))
    except (TypeError, ValueError):
        return False


@dataclass
class Prepared:
    """Items × raters data of one field, after validation and left-outs."""

    kind: str
    items: list
    raters: list
    categories: list
    matrix: np.ndarray  # int codes (-1 missing) for single/ordinal; float for score; object sets for multi
    rated: np.ndarray  # bool items × raters
    left_out: list = dc_field(default_factory=list)
    warnings: list = dc_field(default_factory=list)

    @property
    def ratings_per_item(self) -> np.ndarray:
        return self.rated.sum(axis=1)


def _check_frame(ratings, item: str, rater: str, value: str, func: str) -> pd.DataFrame:
    if not isinstance(ratings, pd.DataFrame):
        raise InputError(f"{func} expects a long-format pandas DataFrame (one row per item and rater). "
                         f"Got {type(ratings).__name__} instead.", field="ratings")
    for name, col in (("item", item), ("rater", rater), ("value", value)):
        if col not in ratings.columns:
            raise InputError(f"{func}: {name} column {col!r} not found; columns are {list(ratings.columns)}.",
                             field=name)
    if ratings[item].isna().any() or ratings[rater].isna().any():
        raise InputError(f"{func}: the {item!r} and {rater!r} columns must not contain missing values.",
                         field=item if ratings[item].isna().any() else rater)
    dup = ratings.duplicated([item, rater])
    if dup.any():
        row = ratings[dup].iloc[0]
        raise InputError(f"{func} needs one row per (item, rater); ({row[item]!r}, {row[rater]!r}) "
                         "appears twice.", field=rater)
    return ratings


def _as_set(v, *, func: str, field: str) -> frozenset:
    if isinstance(v, str):
        return frozenset(p.strip() for p in v.split("|") if not is_missing(p))
    if isinstance(v, (list, tuple, set, frozenset, np.ndarray, pd.Series)):
        return frozenset(x for x in v if not is_missing(x))
    return frozenset([v])


def _declared_categories(values: pd.Series, categories, kind: str, field: str, warnings: list) -> list | None:
    if categories is not None:
        cats = list(categories)
        if not cats:
            raise InputError(f"field {field!r}: 'categories' must not be empty.", field="categories")
        if len(set(cats)) != len(cats):
            raise InputError(f"field {field!r}: 'categories' lists a code twice.", field="categories")
        return cats
    if isinstance(values.dtype, pd.CategoricalDtype):
        if kind == "ordinal" and not values.cat.ordered:
            warnings.append(f"field {field!r}: ordinal weights use the categorical's category order, "
                            "but it is not declared ordered; pass the scheme's categories.")
        return list(values.cat.categories)
    return None


def prepare(ratings: pd.DataFrame, *, field: str, kind: str, categories=None, score_range=None,
            item: str = "item_id", rater: str = "annotator", value: str = "value",
            func: str = "field_agreement") -> Prepared:
    """Validate long ratings of one field and build its items × raters matrix."""
    if kind not in KINDS:
        raise InputError(f"field {field!r}: kind must be one of {', '.join(KINDS)}. Got {kind!r}.",
                         field="kind")
    df = _check_frame(ratings, item, rater, value, func)
    warnings: list[str] = []
    values = df[value]
    cats = _declared_categories(values, categories, kind, field, warnings) if kind != "score" else None
    raw = values.astype(object).tolist()
    missing = np.fromiter((is_missing(v) for v in raw), dtype=bool, count=len(raw))
    item_codes, item_labels = pd.factorize(df[item], sort=True)
    rater_codes, rater_labels = pd.factorize(df[rater], sort=True)
    n, r = len(item_labels), len(rater_labels)
    rated = np.zeros((n, r), dtype=bool)
    keep = ~missing
    rated[item_codes[keep], rater_codes[keep]] = True

    if kind in ("single", "ordinal"):
        present = [raw[i] for i in np.flatnonzero(keep)]
        if cats is None:
            uniq = pd.unique(pd.Series(present, dtype=object))
            kinds = pd.api.types.infer_dtype(uniq, skipna=True)
            if kinds in ("mixed", "mixed-integer"):
                raise InputError(f"field {field!r}: a mix of text and numeric codes; use one kind.", field=value)
            cats = sorted(uniq.tolist(), key=lambda x: (str(type(x)), x))
            if kind == "ordinal" and kinds in ("string", "unicode"):
                warnings.append(f"field {field!r}: ordinal weights with undeclared text categories; "
                                f"using sorted order {cats[:6]}; pass the scheme's categories.")
        index = {c: i for i, c in enumerate(cats)}
        str_index = {str(c): i for i, c in enumerate(cats)}
        codes = np.full((n, r), -1, dtype=np.int64)
        bad = []
        vals = np.empty(len(present), dtype=np.int64)
        for j, v in enumerate(present):
            code = index.get(v)
            if code is None:
                code = str_index.get(str(v).strip())
            if code is None:
                bad.append(v)
                code = -1
            vals[j] = code
        if bad:
            shown = sorted({str(b) for b in bad})[:5]
            raise InputError(f"field {field!r}: codes not in the field's categories: {shown}; "
                             f"categories are {[str(c) for c in cats]}.", field=value)
        codes[item_codes[keep], rater_codes[keep]] = vals
        matrix = codes
    elif kind == "score":
        present = [raw[i] for i in np.flatnonzero(keep)]
        try:
            nums = np.array([float(v) for v in present], dtype=float)
        except (TypeError, ValueError):
            bad = next(v for v in present if not _is_number(v))
            raise InputError(f"field {field!r} is a score field and needs numbers. Got {bad!r}.",
                             field=value) from None
        if score_range is not None:
            lo, hi = float(score_range[0]), float(score_range[1])
            out = (nums < lo) | (nums > hi)
            if out.any():
                raise InputError(f"field {field!r}: score {nums[out][0]!r} outside the range [{lo:g}, {hi:g}].",
                                 field=value)
        matrix = np.full((n, r), np.nan)
        matrix[item_codes[keep], rater_codes[keep]] = nums
        cats = []
    else:  # multi
        sets = [_as_set(raw[i], func=func, field=field) for i in np.flatnonzero(keep)]
        used = set().union(*sets) if sets else set()
        if cats is None:
            cats = sorted(used, key=str)
        else:
            known = set(cats) | {str(c) for c in cats}
            unknown = sorted(str(u) for u in used if u not in known and str(u) not in known)
            if unknown:
                raise InputError(f"field {field!r}: codes not in the field's categories: {unknown[:5]}; "
                                 f"categories are {[str(c) for c in cats]}.", field=value)
            by_str = {str(c): c for c in cats}
            sets = [frozenset(by_str.get(str(x), x) for x in s) for s in sets]
        matrix = np.empty((n, r), dtype=object)
        matrix[item_codes[keep], rater_codes[keep]] = np.array(sets, dtype=object)

    prep = Prepared(kind=kind, items=list(item_labels), raters=list(rater_labels), categories=list(cats),
                    matrix=matrix, rated=rated, warnings=warnings)
    per_item = rated.sum(axis=1)
    for i in np.flatnonzero(per_item < 2):
        reason = "no rating" if per_item[i] == 0 else "only one rating"
        prep.left_out.append({"item": _plain(item_labels[i]), "reason": reason})
    return prep


def _is_number(v) -> bool:
    try:
        float(v)
        return True
    except (TypeError, ValueError):
        return False


def _plain(v):
    if isinstance(v, np.generic):
        return v.item()
    return v


def fully_crossed(prep: Prepared) -> bool:
    """Every item with two or more ratings is rated by the same raters (and only those)."""
    multi = prep.ratings_per_item >= 2
    if not multi.any():
        return False
    block = prep.rated[multi]
    return bool((block == block[0]).all())


def count_matrix(codes: np.ndarray, q: int) -> np.ndarray:
    """Items × categories counts from items × raters codes (-1 missing)."""
    n = codes.shape[0]
    rows = np.broadcast_to(np.arange(n)[:, None], codes.shape)
    ok = codes >= 0
    return np.bincount(rows[ok] * q + codes[ok], minlength=n * q).reshape(n, q)

