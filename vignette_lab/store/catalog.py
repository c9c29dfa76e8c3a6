"""Catalog rows: persona cards, the taxonomy version and the users.

Persona cards are immutable per ``(code, version)``: loading the same card again is a
no-op (same ``content_hash``), and a changed card under an existing version is refused
with a message asking the author to bump ``version`` — sessions pin
``persona_id``/``persona_version`` and must keep meaning what they meant.

The ``card`` column holds the card **without** CCD and DSM (those live in their own
columns), so code that loads a card for the client AI cannot pick them up by accident.
"""

from __future__ import annotations

import functools
import hashlib
import json
import uuid
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping

from vignette_lab.errors import InputError
from vignette_lab.core.personas import load_personas, personas_dir
from vignette_lab.core.taxonomy import datasets_dir, load_taxonomy

if TYPE_CHECKING:
    from vignette_lab.store.base import Database

__all__ = [
    "LOCAL_USERS",
    "card_in_file_order",
    "ensure_user",
    "get_persona_row",
    "get_user",
    "list_persona_rows",
    "list_users",
    "load_catalog",
    "store_persona",
    "store_taxonomy",
]

USER_ROLES = ("learner", "trainee", "faculty", "teacher", "researcher", "admin")

# Single-machine defaults: one learner plus one account per staff role.
LOCAL_USERS: tuple[tuple[str, str, str | None, str], ...] = (
    ("local", "learner", "local", "로컬 학습자"),
    ("researcher", "researcher", None, "로컬 연구자"),
    ("faculty", "faculty", "local", "로컬 교수자"),
    ("admin", "admin", None, "로컬 관리자"),
)


def _now() -> datetime:
    return datetime.now(timezone.utc)


def _canonical_hash(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def store_persona(db: Database, card) -> str:
    """Insert one persona card; returns ``'inserted'`` or ``'unchanged'``.

    Parameters
    ----------
    db : Database
    card : vignette_lab.core.personas.PersonaCard

    Raises
    ------
    InputError
        When ``(code, version)`` is stored with different content.
    """
    row = db.fetchone("SELECT persona_id, content_hash FROM app.persona_card WHERE code = ? AND version = ?",
                      [card.code, card.version])
    if row is not None:
        if row["content_hash"] == card.content_hash:
            return "unchanged"
        raise InputError(
            f"persona {card.code} version {card.version} is already stored with different content; "
            "bump 'version' in the card to publish a change", source=card.source or None, field="version")
    full = card.to_dict()
    visible = {k: v for k, v in full.items() if k not in ("ccd", "dsm5_dimensional")}
    j = db.dialect.json_param()
    db.execute(
        "INSERT INTO app.persona_card (persona_id, code, version, status, display_name, difficulty, "
        f"theory_target, card, ccd, dsm5_dimensional, content_hash, is_synthetic, created_at) "
        f"VALUES (?, ?, ?, ?, ?, ?, ?, {j}, {j}, {j}, ?, ?, ?)",
        [str(uuid.uuid4()), card.code, card.version, card.status, card.display_name, card.difficulty,
         list(card.theory_target), json.dumps(visible, ensure_ascii=False),
         json.dumps(full.get("ccd"), ensure_ascii=False),
         json.dumps(full.get("dsm5_dimensional"), ensure_ascii=False),
         card.content_hash, bool(card.is_synthetic), _now()])
    return "inserted"


def store_taxonomy(db: Database, taxonomy) -> str:
    """Insert the taxonomy version; returns ``'inserted'`` or ``'unchanged'``.

    The stored ``content`` is the taxonomy file's JSON as written.

    Raises
    ------
    InputError
        When the version is stored with different content.
    """
    source = Path(taxonomy.source) if getattr(taxonomy, "source", "") else None
    if source is not None and source.is_file():
        content = json.loads(source.read_text(encoding="utf-8"))
    else:
        raise InputError("taxonomy has no readable source file to store", source=str(source or "?"))
    digest = _canonical_hash(content)
    row = db.fetchone("SELECT content_hash FROM app.taxonomy_version WHERE version = ?", [taxonomy.version])
    if row is not None:
        if row["content_hash"] == digest:
            return "unchanged"
        raise InputError(f"taxonomy version {taxonomy.version!r} is already stored with different "
                         "content; bump 'version' in the file", source=str(source), field="version")
    db.execute("INSERT INTO app.taxonomy_version (version, content, content_hash, loaded_at) "
               f"VALUES (?, {db.dialect.json_param()}, ?, ?)",
               [taxonomy.version, json.dumps(content, ensure_ascii=False), digest, _now()])
    return "inserted"


def _default_personas():
    directory = personas_dir()
    if not directory.is_dir() or not any(directory.glob("P*.json")):
        return {}
    return load_personas()


def _default_taxonomy():
    if not (datasets_dir() / "taxonomy.json").is_file():
        return None
    return load_taxonomy()


def load_catalog(db: Database, *, personas: Mapping[str, Any] | None = None, taxonomy: Any = None,
                 users: bool = True) -> dict[str, int]:
    """Load persona cards, the taxonomy version and the local users, in one transaction.

    Parameters
    ----------
    db : Database
        An initialised database (:func:`vignette_lab.store.init_db`).
    personas : mapping of code to PersonaCard, default=None
        ``None`` loads ``datasets/personas`` (skipped when the folder has no cards).
    taxonomy : Taxonomy, default=None
        ``None`` loads ``datasets/taxonomy.json`` (skipped when missing).
    users : bool, default=True
        Also ensure the local users (:data:`LOCAL_USERS`).

    Returns
    -------
    dict
        Counts: ``personas_inserted``, ``personas_unchanged``, ``taxonomy_inserted``,
        ``users``.

    Raises
    ------
    InputError
        A card or the taxonomy changed without a version bump, or a file is malformed.

    Examples
    --------
    >>> from vignette_lab.store import connect, init_db
    >>> db = connect(":memory:"); _ = init_db(db)
    >>> load_catalog(db)["personas_inserted"] >= 1
    True
    """
    cards = _default_personas() if personas is None else personas
    tax = _default_taxonomy() if taxonomy is None else taxonomy
    counts = {"personas_inserted": 0, "personas_unchanged": 0, "taxonomy_inserted": 0, "users": 0}
    with db.transaction():
        for card in cards.values():
            counts[f"personas_{store_persona(db, card)}"] += 1
        if tax is not None:
            counts["taxonomy_inserted"] += store_taxonomy(db, tax) == "inserted"
        if users:
            for user_id, role, cohort, name in LOCAL_USERS:
                ensure_user(db, user_id, role, cohort=cohort, display_name=name)
                counts["users"] += 1
    return counts


@functools.lru_cache(maxsize=64)
def _file_order_template(code: str) -> str:
    """The bundled card of ``code`` as JSON in its file's key order (``"null"`` when there is none)."""
    try:
        cards = load_personas()
    except Exception:  # noqa: BLE001 — no readable bundled cards: sorted keys (below)
        return "null"
    card = cards.get(code)
    return json.dumps(card.to_dict() if card is not None else None, ensure_ascii=False)


def _reorder(value: Any, template: Any) -> Any:
    if isinstance(value, dict):
        shape = template if isinstance(template, dict) else {}
        keys = [k for k in shape if k in value] + sorted(k for k in value if k not in shape)
        return {k: _reorder(value[k], shape.get(k)) for k in keys}
    if isinstance(value, list):
        items = template if isinstance(template, list) else []
        return [_reorder(v, items[i] if i < len(items) else (items[-1] if items else None))
                for i, v in enumerate(value)]
    return value


def card_in_file_order(db: Database, card: Any, code: str) -> Any:
    """A stored card with its keys in the order DuckDB gives back: the card file's.

    DuckDB keeps a JSON value's text, so a card comes back with its keys as the card file wrote
    them; PostgreSQL's ``JSONB`` keeps no key order (shorter keys first), and the rendered client
    prompt and the scripted client's draws follow the card's key order — the same seed gave other
    replies on PostgreSQL, and each session's first turn masked a prompt text no other backend had
    (a 1–2 s stall). On PostgreSQL every dict of the card is put back in the order of the bundled
    card of the same code (``datasets/personas``), keys that card lacks after them in sorted order
    (a card with no bundled file: sorted keys throughout); the values are untouched. On DuckDB the
    card is returned as stored.
    """
    if db.dialect.backend == "duckdb" or not isinstance(card, dict):
        return card
    return _reorder(card, json.loads(_file_order_template(str(code))))


def get_persona_row(db: Database, code: str, version: int | None = None) -> dict[str, Any] | None:
    """One ``app.persona_card`` row (latest version when ``version`` is None), or None.

    The row includes ``ccd`` and ``dsm5_dimensional``: only evaluator-side code may call this
    with the intent to read them; client prompt layers use ``row["card"]`` (keys in the card
    file's order on every backend, :func:`card_in_file_order`).
    """
    if version is None:
        row = db.fetchone("SELECT * FROM app.persona_card WHERE code = ? ORDER BY version DESC LIMIT 1",
                          [code])
    else:
        row = db.fetchone("SELECT * FROM app.persona_card WHERE code = ? AND version = ?", [code, int(version)])
    if row is not None:
        row["card"] = card_in_file_order(db, row["card"], row["code"])
    return row


def list_persona_rows(db: Database, *, include_archived: bool = False) -> list[dict[str, Any]]:
    """Latest version of every persona (code order), without CCD/DSM columns."""
    where = "" if include_archived else "WHERE status <> 'archived'"
    rows = db.fetchall(
        "SELECT persona_id, code, version, status, display_name, difficulty, theory_target, card, "
        f"content_hash, is_synthetic, created_at FROM app.persona_card {where} ORDER BY code, version")
    latest: dict[str, dict[str, Any]] = {}
    for row in rows:
        row["card"] = card_in_file_order(db, row["card"], row["code"])
        latest[row["code"]] = row
    return sorted(latest.values(), key=lambda r: (len(r["code"]), r["code"]))


def ensure_user(db: Database, user_id: str, role: str, cohort: str | None = None, display_name: str | None = None,
                password_hash: str | None = None) -> dict[str, Any]:
    """Create the user if missing, else update role/cohort/name (and hash when given).

    Returns
    -------
    dict
        The stored row.
    """
    if not user_id or not str(user_id).strip():
        raise InputError("user_id must be a non-empty string", field="user_id")
    if role not in USER_ROLES:
        raise InputError(f"role must be one of {', '.join(USER_ROLES)}. Got {role!r} instead.", field="role")
    db.execute(
        "INSERT INTO app.app_user (user_id, role, cohort, display_name, password_hash, created_at) "
        "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (user_id) DO UPDATE SET role = excluded.role, "
        "cohort = excluded.cohort, display_name = COALESCE(excluded.display_name, app.app_user.display_name), "
        "password_hash = COALESCE(excluded.password_hash, app.app_user.password_hash)",
        [str(user_id), role, cohort, display_name, password_hash, _now()])
    row = get_user(db, user_id)
    assert row is not None  # just written in this statement
    return row


def get_user(db: Database, user_id: str) -> dict[str, Any] | None:
    """The ``app.app_user`` row, or None."""
    return db.fetchone("SELECT * FROM app.app_user WHERE user_id = ?", [str(user_id)])


def list_users(db: Database) -> list[dict[str, Any]]:
    """All users, by id (password hashes excluded)."""
    return db.fetchall("SELECT user_id, role, cohort, display_name, created_at FROM app.app_user ORDER BY user_id")
