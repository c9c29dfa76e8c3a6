"""The masked persona-card layer (L0 + L1), kept on disk between processes.

Every turn's client messages start with the safety rules and the persona card, masked again
(:func:`vignette_lab.session.layers.build_client_messages`). The card is the same ~10,000
characters every turn, so a process masks it once (memoised); but every *new* process — each
one-shot ``session send`` and the CLI worker's warm-up — pays for it again: about 0.5 s CPU here,
most of it kiwipiepy reading the card's long runs for the re-spaced view and the patterns the
card is the first text to reach. That is a fifth of a cold ``send``.

So the masked card text is kept under ``$VIGNETTE_CACHE_DIR/session`` (default
``~/.cache/vignette-lab/session``), one small JSON file per card text, keyed by the SHA-256 of
the text together with :func:`gate_fingerprint` — the bytes of every source and data file of
``vignette_lab/core`` (the gate, its name model, morphology table and pattern helpers), the
kiwipiepy and model versions and options, whether kiwipiepy is installed, the PII backend and
the Python version. Any change to the gate gives another key, so a stale entry is never read;
a missing, unreadable or foreign file is masked afresh (and rewritten when the folder is
writable). Only the card layer is kept: it is project data (the persona's client-visible card),
never a trainee's text, and what is written is the *masked* text.

Examples
--------
>>> from vignette_lab.session.card_mask import masked_card_text
>>> masked_card_text("카드 본문")            # doctest: +SKIP
'카드 본문'
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import os
import sys
from pathlib import Path

from vignette_lab.core import morph, pii

log = logging.getLogger(__name__)

__all__ = ["CACHE_FORMAT", "CACHE_KEEP", "cache_dir", "gate_fingerprint", "masked_card_text"]

#: version of the cached file's layout
CACHE_FORMAT = 1
#: newest cached cards kept in the folder (older gate versions are pruned when one is written)
CACHE_KEEP = 64
_CORE = Path(pii.__file__).resolve().parent


def cache_dir() -> Path:
    """Where masked card layers are kept (``$VIGNETTE_CACHE_DIR/session``)."""
    return Path(os.environ.get("VIGNETTE_CACHE_DIR") or Path.home() / ".cache" / "vignette-lab") / "session"


@functools.lru_cache(maxsize=1)
def _code_digest() -> str:
    digest = hashlib.sha256()
    for path in sorted(_CORE.iterdir()):
        if path.suffix in (".py", ".json") and path.is_file():
            digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def gate_fingerprint() -> str:
    """What the PII gate's answer on a text depends on besides the text (see the module docstring)."""
    parts = [str(CACHE_FORMAT), _code_digest(), json.dumps(morph._installed_versions(), sort_keys=True),
             json.dumps(morph.KIWI_OPTIONS, sort_keys=True), str(morph.available()), pii.chosen_backend()[0],
             sys.version]
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


def masked_card_text(text: str) -> str:
    """``mask_pii(text).text`` for a persona-card layer, from the disk cache when it holds it.

    Parameters
    ----------
    text : str
        The L0 + L1 text (safety rules and the rendered client-visible card).

    Returns
    -------
    str
        The masked text, identical to :func:`vignette_lab.core.pii.mask_pii` on it.
    """
    if not text:
        return ""
    fingerprint = gate_fingerprint()
    key = hashlib.sha256((fingerprint + "\0" + text).encode()).hexdigest()
    path = cache_dir() / f"card-{key[:32]}.json"
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
        if doc.get("format") == CACHE_FORMAT and doc.get("key") == key and isinstance(doc.get("masked"), str):
            return doc["masked"]
    except (OSError, ValueError, AttributeError):
        pass  # not there yet, or unreadable: mask it
    masked = pii.mask_pii(text).text
    _write(path, {"format": CACHE_FORMAT, "key": key, "masked": masked})
    return masked


def _write(path: Path, doc: dict[str, object]) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(doc, fh, ensure_ascii=False)
        os.replace(tmp, path)
        kept = sorted(path.parent.glob("card-*.json"), key=lambda p: p.stat().st_mtime, reverse=True)
        for old in kept[CACHE_KEEP:]:
            old.unlink(missing_ok=True)
    except OSError as exc:  # a read-only home: every process masks the card itself, as before
        log.debug("masked card layer not cached (%s): %s", path, exc)
        try:
            tmp.unlink(missing_ok=True)
        except OSError:
            pass
