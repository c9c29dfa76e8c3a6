"""Source packs: the declared, licensed input of the knowledge base.

A pack is one JSON file under ``kb_sources/`` (format in ``kb_sources/README.md``): a
declaration (``source_id``, ``title``, ``kb_kind``, ``license_class``, ``external_llm_ok``,
``visible_to``, ``sensitivity``, ``citation``) and a list of ``documents`` (``doc_uri``,
``title``, ``body`` in light Markdown). Every document is hashed (SHA-256 of its canonical
form) so that indexing is incremental, and chunked heading- and paragraph-aware.

Validation names the file and the field of the first problem, e.g.
``kb_sources/ko_context.json: field 'license_class': expected one of A, B, C, D, got 'E'``.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vignette_lab.config import KB_SOURCES_DIR, home_dir
from vignette_lab.errors import InputError

__all__ = [
    "KB_KINDS",
    "LICENSE_CLASSES",
    "ROLES",
    "Chunk",
    "SourceDocument",
    "SourcePack",
    "chunk_document",
    "default_sources_dir",
    "load_pack",
    "load_packs",
]

KB_KINDS = ("diagnostic", "theory", "technique", "taxonomy", "supervisor_pattern", "template", "ko_context")
LICENSE_CLASSES = ("A", "B", "C", "D")
ROLES = ("client", "counselor", "evaluator")
_SOURCE_ID = re.compile(r"^[a-z][a-z0-9_]{1,63}$")


@dataclass(frozen=True)
class SourceDocument:
    """One document of a pack.

    ``content_hash`` is the SHA-256 of the canonical JSON of title, body and the pack's
    access declaration (kind, license, external_llm_ok, visible_to, sensitivity).
    """

    doc_uri: str
    title: str
    body: str
    content_hash: str


@dataclass(frozen=True)
class SourcePack:
    """A validated pack declaration plus its documents."""

    source_id: str
    title: str
    kb_kind: str
    license_class: str
    external_llm_ok: bool
    visible_to: tuple[str, ...]
    sensitivity: int
    citation: str
    documents: tuple[SourceDocument, ...]
    origin_path: str

    @property
    def quarantined(self) -> bool:
        """Sensitivity 3: recorded at most, never chunked or embedded."""
        return self.sensitivity >= 3


@dataclass(frozen=True)
class Chunk:
    """A piece of a document ready to embed."""

    seq: int
    heading_path: str
    text: str


def default_sources_dir() -> Path:
    """``kb_sources/`` under ``VIGNETTE_HOME`` when it exists, else the packaged copy — the same
    rule as ``datasets/`` (:func:`vignette_lab.config.home_dir`)."""
    return home_dir("kb_sources", KB_SOURCES_DIR)


def _line_of(raw: str, key: str) -> int | None:
    """Line where ``"key":`` first appears, for error messages."""
    m = re.search(r'"' + re.escape(key) + r'"\s*:', raw)
    return raw.count("\n", 0, m.start()) + 1 if m else None


def _hash_document(title: str, body: str, access: dict[str, Any]) -> str:
    # The pack's access declaration is part of the hash: tightening visible_to or
    # sensitivity must re-index (chunks carry those fields), not be skipped as unchanged.
    canonical = json.dumps({"title": title, "body": body.replace("\r\n", "\n").strip(), "access": access},
                           ensure_ascii=False, sort_keys=True)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def load_pack(path: str | Path) -> SourcePack:
    """Read and validate one pack file.

    Parameters
    ----------
    path : str or Path
        A ``*.json`` pack.

    Returns
    -------
    SourcePack

    Raises
    ------
    InputError
        Malformed JSON or a missing/invalid field; the message names the file, the line
        (when it can be found) and the field.
    """
    path = Path(path)
    src = str(path)
    try:
        raw = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot read pack: {exc.strerror}", source=src) from exc
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise InputError(f"invalid JSON: {exc.msg}", source=src, line=exc.lineno) from exc
    if not isinstance(data, dict):
        raise InputError("a pack must be a JSON object", source=src, line=1)

    def fail(field: str, message: str) -> InputError:
        return InputError(message, source=src, line=_line_of(raw, field.split("[")[0].split(".")[-1]), field=field)

    def need(field: str, kind: type, what: str) -> Any:
        if field not in data:
            raise InputError("missing required field", source=src, field=field)
        value = data[field]
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise fail(field, f"expected {what}, got {value!r}")
        return value

    source_id = need("source_id", str, "a string")
    if not _SOURCE_ID.match(source_id):
        raise fail("source_id", f"expected lower_snake_case [a-z][a-z0-9_]*, got {source_id!r}")
    title = need("title", str, "a non-empty string").strip()
    if not title:
        raise fail("title", "expected a non-empty string, got ''")
    kb_kind = need("kb_kind", str, "a string")
    if kb_kind not in KB_KINDS:
        raise fail("kb_kind", f"expected one of {', '.join(KB_KINDS)}, got {kb_kind!r}")
    license_class = need("license_class", str, "a string")
    if license_class not in LICENSE_CLASSES:
        raise fail("license_class", f"expected one of {', '.join(LICENSE_CLASSES)}, got {license_class!r}")
    external_llm_ok = need("external_llm_ok", bool, "true or false")
    if external_llm_ok and license_class in ("C", "D"):
        raise fail("external_llm_ok", f"must be false for license_class {license_class} (copyright/minor-derived)")
    visible_to = need("visible_to", list, "a list of roles")
    if not visible_to or any(v not in ROLES for v in visible_to) or len(set(visible_to)) != len(visible_to):
        raise fail("visible_to", f"expected a non-empty subset of {', '.join(ROLES)}, got {visible_to!r}")
    sensitivity = need("sensitivity", int, "an integer 0-3")
    if sensitivity not in (0, 1, 2, 3):
        raise fail("sensitivity", f"expected 0, 1, 2 or 3, got {sensitivity!r}")
    citation = need("citation", str, "a string").strip()
    if not citation:
        raise fail("citation", "expected a non-empty citation, got ''")
    docs_raw = need("documents", list, "a non-empty list of documents")
    if not docs_raw:
        raise fail("documents", "expected a non-empty list of documents, got []")

    access = {"kb_kind": kb_kind, "license_class": license_class, "external_llm_ok": external_llm_ok,
              "visible_to": sorted(visible_to), "sensitivity": sensitivity}
    documents = []
    seen: set[str] = set()
    for i, doc in enumerate(docs_raw):
        where = f"documents[{i}]"
        if not isinstance(doc, dict):
            raise fail(where, f"expected an object, got {doc!r}")
        for key in ("doc_uri", "title", "body"):
            value = doc.get(key)
            if not isinstance(value, str) or not value.strip():
                line = _line_of(raw, key) if key in doc else None
                raise InputError(f"expected a non-empty string, got {value!r}", source=src, line=line,
                                 field=f"{where}.{key}")
        uri = doc["doc_uri"].strip()
        if uri in seen:
            raise InputError(f"duplicate doc_uri {uri!r}", source=src, field=f"{where}.doc_uri")
        seen.add(uri)
        documents.append(SourceDocument(uri, doc["title"].strip(), doc["body"],
                                        _hash_document(doc["title"].strip(), doc["body"], access)))

    return SourcePack(source_id=source_id, title=title, kb_kind=kb_kind, license_class=license_class,
                      external_llm_ok=external_llm_ok, visible_to=tuple(visible_to), sensitivity=sensitivity,
                      citation=citation, documents=tuple(documents), origin_path=src)


def load_packs(sources_dir: str | Path | None = None) -> list[SourcePack]:
    """Load every ``*.json`` pack in ``sources_dir`` (sorted by file name).

    Raises
    ------
    InputError
        The directory is missing, a pack is invalid, or two packs share a ``source_id``.
    """
    root = Path(sources_dir) if sources_dir is not None else default_sources_dir()
    if not root.is_dir():
        raise InputError("source pack directory not found", source=str(root))
    packs: list[SourcePack] = []
    by_id: dict[str, str] = {}
    for path in sorted(root.glob("*.json")):
        pack = load_pack(path)
        if pack.source_id in by_id:
            raise InputError(f"duplicate source_id {pack.source_id!r} (also in {by_id[pack.source_id]})",
                             source=str(path), field="source_id")
        by_id[pack.source_id] = str(path)
        packs.append(pack)
    return packs


# --------------------------------------------------------------------------- chunking
_HEADING = re.compile(r"^(#{1,6})\s+(.*\S)\s*$")
_SENTENCE_END = re.compile(r"(?<=[.!?。…다요죠])\s+")


def _split_long(paragraph: str, max_chars: int) -> list[str]:
    """Split an over-long paragraph at sentence ends (hard cut as a last resort)."""
    pieces, current = [], ""
    for sentence in _SENTENCE_END.split(paragraph):
        while len(sentence) > max_chars:
            pieces.append((current + " " + sentence[:max_chars]).strip() if current else sentence[:max_chars])
            current, sentence = "", sentence[max_chars:]
        if current and len(current) + 1 + len(sentence) > max_chars:
            pieces.append(current)
            current = sentence
        else:
            current = f"{current} {sentence}".strip()
    if current:
        pieces.append(current)
    return pieces


def chunk_document(doc_title: str, body: str, *, target_chars: int = 420, max_chars: int = 520,
                   overlap_chars: int = 60) -> list[Chunk]:
    """Cut a document into heading-aware chunks of about 300–500 characters.

    Paragraphs are packed into a chunk until ``target_chars``; a new heading always starts
    a new chunk, and each chunk records its ``heading_path`` (``"Doc title > Section"``).
    Consecutive chunks of one section share up to ``overlap_chars`` of trailing text (the
    last sentence) so a cue cut at a boundary is still found.

    Returns
    -------
    list of Chunk
        In document order, ``seq`` from 0.
    """
    sections: list[tuple[list[str], list[str]]] = []
    path: list[str] = []
    levels: dict[int, str] = {}
    paragraphs: list[str] = []
    buf: list[str] = []

    def flush_par():
        if buf:
            text = " ".join(s.strip() for s in buf).strip()
            if text:
                paragraphs.append(text)
            buf.clear()

    for line in body.replace("\r\n", "\n").split("\n"):
        m = _HEADING.match(line)
        if m:
            flush_par()
            if paragraphs:
                sections.append((list(path), list(paragraphs)))
                paragraphs.clear()
            level = len(m.group(1))
            levels = {lv: text for lv, text in levels.items() if lv < level}
            levels[level] = m.group(2)
            path = [levels[lv] for lv in sorted(levels)]
        elif not line.strip():
            flush_par()
        else:
            buf.append(line)
    flush_par()
    if paragraphs:
        sections.append((list(path), list(paragraphs)))

    chunks: list[Chunk] = []
    for sec_path, pars in sections:
        heading_path = " > ".join([doc_title] + [p for p in sec_path if p])
        units: list[str] = []
        for par in pars:
            units.extend(_split_long(par, max_chars) if len(par) > max_chars else [par])
        current = ""
        for unit in units:
            if current and len(current) + 1 + len(unit) > target_chars:
                chunks.append(Chunk(len(chunks), heading_path, current))
                tail = _SENTENCE_END.split(current)[-1]
                carry = tail if 0 < len(tail) <= overlap_chars and len(tail) + 1 + len(unit) <= max_chars else ""
                current = f"{carry} {unit}".strip() if carry else unit
            else:
                current = f"{current}\n{unit}".strip() if current else unit
        if current:
            chunks.append(Chunk(len(chunks), heading_path, current))
    return chunks
