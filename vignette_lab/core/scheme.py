"""Label schemes as versioned data (schema ``vignette-lab/scheme/v1``).

A scheme declares the fields annotators fill in. Each field has a ``name``, a ``kind``
(``single`` nominal, ``ordinal`` with ordered categories, ``multi`` label set, ``score`` with a
numeric ``range``), its ``categories`` (``code``, ``label_ko``, ``label_en``, ``order``), the
speaker it applies to (``counselor``, ``client`` or ``both``) and optionally its gate
(``{"coefficient": …, "threshold": …}``). The project's Korean taxonomy
(``datasets/taxonomy.json``) is the default scheme (:func:`default_scheme`); more schemes ship
in ``datasets/schemes/`` (:func:`builtin_schemes`). A scheme is identified by name, version
and the sha256 of its canonical JSON (:attr:`Scheme.sha256`), which data sets pin.

Examples
--------
>>> s = parse_scheme({"schema": "vignette-lab/scheme/v1", "name": "x", "version": "1",
...                   "fields": [{"name": "talk", "kind": "single", "applies_to": "client",
...                               "categories": [{"code": "change", "label_ko": "변화대화",
...                                               "label_en": "Change"}]}]})
>>> s.speakers()
('client',)
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from vignette_lab.errors import InputError

__all__ = [
    "FIELD_KINDS",
    "SCHEME_SCHEMA",
    "SPEAKERS",
    "Category",
    "Scheme",
    "SchemeField",
    "builtin_schemes",
    "default_scheme",
    "load_scheme_file",
    "parse_scheme",
]

SCHEME_SCHEMA = "vignette-lab/scheme/v1"
FIELD_KINDS = ("single", "ordinal", "multi", "score")
SPEAKERS = ("counselor", "client")
_APPLIES = ("counselor", "client", "both")
_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_.-]{0,63}$")
_CODE = re.compile(r"^[^|\s][^|]{0,63}$")
# Coefficients a gate may name, per kind: the names vignette_lab.agreement.field_agreement
# reports (COEFFICIENTS there; a test keeps the two in step). Multi fields may also gate on
# one category: "fleiss_kappa:<code>" or "krippendorff_alpha:<code>".
GATE_COEFFICIENTS = {
    "single": ("percent_agreement", "fleiss_kappa", "conger_kappa", "krippendorff_alpha",
               "gwet_ac1", "brennan_prediger"),
    "ordinal": ("percent_agreement", "weighted_kappa_linear", "weighted_kappa_quadratic",
                "krippendorff_alpha_ordinal", "gwet_ac2_ordinal"),
    "score": ("icc1", "icc1k", "icc2", "icc2k", "icc3", "icc3k", "krippendorff_alpha_interval"),
    "multi": ("krippendorff_alpha_masi",),
}


@dataclass(frozen=True)
class Category:
    """One category of a field: ``code`` is what files and the database store."""

    code: str
    label_ko: str
    label_en: str
    order: int
    key: str | None = None
    description: str | None = None


@dataclass(frozen=True)
class SchemeField:
    """One field of a scheme.

    Attributes
    ----------
    name : str
    kind : {'single', 'ordinal', 'multi', 'score'}
    applies_to : tuple of {'counselor', 'client'}
    categories : tuple of Category
        In the scheme's order (the order of ``ordinal`` categories).
    range : (float, float) or None
        ``score`` fields only.
    gate : (str, float) or None
        ``(coefficient, threshold)``.
    label_ko, label_en : str
    required : bool
        ``"required": true`` in the scheme: a reviewer may not save an item of this field's
        speaker without a value (the review page refuses). Default False: unset stays unset.
    """

    name: str
    kind: str
    applies_to: tuple[str, ...]
    categories: tuple[Category, ...] = ()
    range: tuple[float, float] | None = None
    gate: tuple[str, float] | None = None
    label_ko: str = ""
    label_en: str = ""
    required: bool = False

    def codes(self) -> tuple[str, ...]:
        """Category codes in the scheme's order."""
        return tuple(c.code for c in self.categories)

    def label(self, code: str) -> str:
        """Korean label of a category code (the code itself when unknown)."""
        for c in self.categories:
            if c.code == code:
                return c.label_ko
        return code


@dataclass(frozen=True)
class Scheme:
    """A validated label scheme; :attr:`sha256` hashes its canonical JSON."""

    name: str
    version: str
    fields: tuple[SchemeField, ...]
    raw: Mapping[str, Any] = field(repr=False, compare=False, default_factory=dict)
    title: str = ""

    @property
    def canonical(self) -> bytes:
        """Canonical JSON bytes (sorted keys, no spaces, UTF-8) of the scheme document."""
        return json.dumps(self.raw, ensure_ascii=False, sort_keys=True,
                          separators=(",", ":")).encode("utf-8")

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.canonical).hexdigest()

    @property
    def ref(self) -> dict[str, str]:
        """``{"name", "version", "sha256"}`` — what data sets and manifests pin."""
        return {"name": self.name, "version": self.version, "sha256": self.sha256}

    def field(self, name: str) -> SchemeField:
        for f in self.fields:
            if f.name == name:
                return f
        raise KeyError(name)

    def field_names(self) -> tuple[str, ...]:
        return tuple(f.name for f in self.fields)

    def fields_for(self, speaker: str) -> tuple[SchemeField, ...]:
        """Fields that apply to utterances of ``speaker``."""
        return tuple(f for f in self.fields if speaker in f.applies_to)

    def speakers(self) -> tuple[str, ...]:
        """Speakers any field applies to, in (counselor, client) order."""
        return tuple(s for s in SPEAKERS if self.fields_for(s))

    def thresholds(self) -> dict[str, tuple[str, float]]:
        """``{field: (coefficient, threshold)}`` of every field with a gate."""
        return {f.name: f.gate for f in self.fields if f.gate is not None}


def _type(v: Any) -> str:
    return "null" if v is None else type(v).__name__


class _Check:
    def __init__(self, source: str):
        self.source = source

    def fail(self, fld: str, msg: str) -> None:
        raise InputError(msg, source=self.source, field=fld or None)

    def obj(self, v: Any, fld: str, required: tuple[str, ...]) -> dict[str, Any]:
        if not isinstance(v, dict):
            self.fail(fld, f"expected an object, got {_type(v)}")
        for k in required:
            if k not in v:
                self.fail(f"{fld}.{k}" if fld else k, "missing required field")
        return v

    def string(self, v: Any, fld: str, pattern: re.Pattern[str] | None = None) -> str:
        if not isinstance(v, str) or not v.strip():
            self.fail(fld, f"expected a non-empty string, got {_type(v) if not isinstance(v, str) else 'empty string'}")
        if pattern is not None and not pattern.match(v):
            self.fail(fld, f"{v!r} is not allowed here (pattern {pattern.pattern})")
        return v

    def number(self, v: Any, fld: str) -> float:
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            self.fail(fld, f"expected a finite number, got {_type(v)}")
        return float(v)


def parse_scheme(raw: Any, *, source: str = "<scheme>") -> Scheme:
    """Validate a scheme document and return a :class:`Scheme`.

    Raises
    ------
    InputError
        One line naming ``source`` and the dotted field (``fields[1].categories[0].code``).
    """
    ck = _Check(source)
    ck.obj(raw, "", ("schema", "name", "version", "fields"))
    if raw["schema"] != SCHEME_SCHEMA:
        ck.fail("schema", f"must be {SCHEME_SCHEMA!r}; got {raw['schema']!r}")
    name = ck.string(raw["name"], "name", _NAME)
    version = raw["version"]
    if isinstance(version, int) and not isinstance(version, bool):
        version = str(version)
    version = ck.string(version, "version", re.compile(r"^[A-Za-z0-9_.+-]{1,40}$"))
    if not isinstance(raw["fields"], list) or not raw["fields"]:
        ck.fail("fields", "expected a non-empty list of fields")
    fields: list[SchemeField] = []
    seen: set[str] = set()
    for i, f in enumerate(raw["fields"]):
        at = f"fields[{i}]"
        ck.obj(f, at, ("name", "kind", "applies_to"))
        fname = ck.string(f["name"], f"{at}.name", _NAME)
        if fname in seen:
            ck.fail(f"{at}.name", f"duplicate field name {fname!r}")
        seen.add(fname)
        kind = f["kind"]
        if kind not in FIELD_KINDS:
            ck.fail(f"{at}.kind", f"must be one of {', '.join(FIELD_KINDS)}; got {kind!r}")
        applies = f["applies_to"]
        if isinstance(applies, str):
            applies = [applies]
        if not isinstance(applies, list) or not applies or any(a not in _APPLIES for a in applies):
            ck.fail(f"{at}.applies_to", f"must be counselor, client or both; got {f['applies_to']!r}")
        speakers = tuple(s for s in SPEAKERS if s in applies or "both" in applies)
        cats: list[Category] = []
        rng = None
        if kind == "score":
            r = f.get("range")
            if not isinstance(r, list) or len(r) != 2:
                ck.fail(f"{at}.range", "a score field needs \"range\": [min, max]")
            lo, hi = ck.number(r[0], f"{at}.range[0]"), ck.number(r[1], f"{at}.range[1]")
            if not lo < hi:
                ck.fail(f"{at}.range", f"min must be below max; got {r!r}")
            rng = (lo, hi)
            if "categories" in f and f["categories"]:
                ck.fail(f"{at}.categories", "a score field has a range, not categories")
        else:
            raw_cats = f.get("categories")
            if not isinstance(raw_cats, list) or not raw_cats:
                ck.fail(f"{at}.categories", f"a {kind} field needs a non-empty list of categories")
            codes: set[str] = set()
            for j, c in enumerate(raw_cats):
                cat = f"{at}.categories[{j}]"
                ck.obj(c, cat, ("code", "label_ko", "label_en"))
                code = ck.string(c["code"], f"{cat}.code", _CODE)
                if code.lower() in ("n/a", "na", "nan", "none", "null"):
                    ck.fail(f"{cat}.code", f"{code!r} means 'missing' in annotation files")
                if code in codes:
                    ck.fail(f"{cat}.code", f"duplicate category code {code!r}")
                codes.add(code)
                order = c.get("order", j + 1)
                if isinstance(order, bool) or not isinstance(order, int):
                    ck.fail(f"{cat}.order", f"expected an integer, got {_type(order)}")
                key = c.get("key")
                if key is not None and (not isinstance(key, str) or len(key) != 1):
                    ck.fail(f"{cat}.key", "expected one character")
                desc = c.get("description")
                if desc is not None and not isinstance(desc, str):
                    ck.fail(f"{cat}.description", f"expected a string, got {_type(desc)}")
                cats.append(Category(code, ck.string(c["label_ko"], f"{cat}.label_ko"),
                                     ck.string(c["label_en"], f"{cat}.label_en"), order, key, desc))
            orders = [c.order for c in cats]
            if kind == "ordinal" and len(set(orders)) != len(orders):
                ck.fail(f"{at}.categories", "ordinal categories need distinct orders")
            cats.sort(key=lambda c: c.order)
        gate = None
        if f.get("gate") is not None:
            g = ck.obj(f["gate"], f"{at}.gate", ("coefficient", "threshold"))
            coef = g["coefficient"]
            per_cat = (kind == "multi" and isinstance(coef, str) and ":" in coef
                       and coef.split(":", 1)[0] in ("fleiss_kappa", "krippendorff_alpha")
                       and coef.split(":", 1)[1] in {c.code for c in cats})
            if coef not in GATE_COEFFICIENTS[kind] and not per_cat:
                extra = " or fleiss_kappa:<code> / krippendorff_alpha:<code>" if kind == "multi" else ""
                ck.fail(f"{at}.gate.coefficient", f"for a {kind} field use one of"
                        f" {', '.join(GATE_COEFFICIENTS[kind])}{extra}; got {coef!r}")
            thr = ck.number(g["threshold"], f"{at}.gate.threshold")
            if not -1 <= thr <= 1:
                ck.fail(f"{at}.gate.threshold", f"must be within [-1, 1]; got {thr}")
            gate = (coef, thr)
        for k in ("label_ko", "label_en"):
            if k in f and not isinstance(f[k], str):
                ck.fail(f"{at}.{k}", f"expected a string, got {_type(f[k])}")
        if "required" in f and not isinstance(f["required"], bool):
            ck.fail(f"{at}.required", f"expected true or false, got {_type(f['required'])}")
        fields.append(SchemeField(fname, kind, speakers, tuple(cats), rng, gate,
                                  f.get("label_ko") or fname, f.get("label_en") or fname,
                                  bool(f.get("required", False))))
    title = raw.get("title") if isinstance(raw.get("title"), str) else ""
    return Scheme(name, version, tuple(fields), raw=dict(raw, version=version), title=title)


def load_scheme_file(path: str | os.PathLike[str]) -> Scheme:
    """Read and validate a scheme JSON file (errors name the file and field)."""
    p = Path(path)
    src = str(p)
    try:
        if p.is_dir():
            raise InputError("is a directory, not a scheme file", source=src)
        raw_bytes = p.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read file: {exc.strerror or exc}", source=src) from None
    if len(raw_bytes) > 4 * 1024 * 1024:
        raise InputError("scheme file is larger than 4 MiB", source=src)
    try:
        text = raw_bytes.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InputError("not UTF-8", source=src) from None
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"invalid JSON: {exc.msg} (column {exc.colno})", source=src,
                         line=exc.lineno) from None
    except (ValueError, RecursionError) as exc:
        raise InputError(f"invalid JSON: {exc}", source=src) from None
    return parse_scheme(raw, source=src)


def _en(code: str) -> str:
    return code.replace("_", " ").capitalize()


@functools.lru_cache(maxsize=1)
def default_scheme() -> Scheme:
    """The project's Korean taxonomy as a scheme (name ``vignette-taxonomy``).

    Fields: ``techniques`` (multi), ``client_state`` (multi; the client's state read from the
    reply that follows a counselor line, so it is annotated on counselor items),
    ``appropriateness`` (single) and one 0–5 ``score`` field per score dimension. Its version
    is the taxonomy's version.
    """
    from vignette_lab.core.taxonomy import load_taxonomy

    tax = load_taxonomy()

    def cats(items: Any) -> list[dict[str, Any]]:
        return [{"code": x.code, "label_ko": x.label, "label_en": _en(x.code), "order": i + 1,
                 **({"description": x.definition} if getattr(x, "definition", None) else {})}
                for i, x in enumerate(items)]

    fields: list[dict[str, Any]] = [
        {"name": "techniques", "kind": "multi", "applies_to": "counselor", "label_ko": "상담 기법",
         "label_en": "Techniques", "categories": cats(tax.techniques),
         "gate": {"coefficient": "krippendorff_alpha_masi", "threshold": 0.6}},
        {"name": "client_state", "kind": "multi", "applies_to": "counselor",
         "label_ko": "내담자 상태", "label_en": "Client state", "categories": cats(tax.client_states),
         "gate": {"coefficient": "krippendorff_alpha_masi", "threshold": 0.6}},
        {"name": "appropriateness", "kind": "single", "applies_to": "counselor",
         "label_ko": "적절성", "label_en": "Appropriateness", "categories": cats(tax.appropriateness),
         "gate": {"coefficient": "fleiss_kappa", "threshold": 0.6}},
    ]
    for d in tax.score_dimensions:
        fields.append({"name": d.code, "kind": "score", "applies_to": "counselor",
                       "label_ko": d.label, "label_en": _en(d.code),
                       "range": [getattr(d, "min", 0), getattr(d, "max", 5)],
                       "gate": {"coefficient": "icc1", "threshold": 0.75}})
    raw = {"schema": SCHEME_SCHEMA, "name": "vignette-taxonomy", "version": str(tax.version),
           "title": tax.title, "fields": fields}
    return parse_scheme(raw, source="datasets/taxonomy.json")


def schemes_dir() -> Path:
    from vignette_lab.core.taxonomy import datasets_dir

    return datasets_dir() / "schemes"


def builtin_schemes() -> dict[tuple[str, str], Scheme]:
    """The default scheme plus every ``datasets/schemes/*.json``, keyed by (name, version)."""
    out = {(default_scheme().name, default_scheme().version): default_scheme()}
    d = schemes_dir()
    if d.is_dir():
        for p in sorted(d.glob("*.json")):
            s = load_scheme_file(p)
            out[(s.name, s.version)] = s
    return out
