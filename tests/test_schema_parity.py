"""Schema parity: one DDL template per schema must give DuckDB and Postgres the same tables.

Both backends are initialised for real (a DuckDB file, a pgserver database created by
``init_db`` from empty) and compared through ``information_schema``, table by table:
columns, normalised types, nullability, CHECK constraints and foreign keys (with their
delete rule). The only allowed difference is the set of ``{fk_pg:}`` keys the templates
mark as Postgres-only, each with its reason next to it.
"""

from __future__ import annotations

import re

import pytest

from vignette_lab.errors import ConfigError
from vignette_lab.store import connect, init_db
from vignette_lab.store.schema import PARTS, SQL_DIR, postgres_only_foreign_keys, render_ddl

SCHEMAS = ("app", "audit", "kb", "ds")
_IN = "('app', 'audit', 'kb', 'ds')"

_DUCK_TYPES = {"VARCHAR": "text", "VARCHAR[]": "text[]", "JSON": "json", "DOUBLE": "double",
               "FLOAT": "real", "INTEGER": "integer", "SMALLINT": "smallint", "BIGINT": "bigint", "BOOLEAN": "boolean",
               "TIMESTAMP WITH TIME ZONE": "timestamptz"}
_PG_TYPES = {"text": "text", "jsonb": "json", "double precision": "double", "real": "real", "integer": "integer",
             "smallint": "smallint", "bigint": "bigint", "boolean": "boolean",
             "timestamp with time zone": "timestamptz"}


def _type(backend: str, data_type: str, udt: str | None) -> str:
    if backend == "duckdb":
        if re.fullmatch(r"FLOAT\[\d+\]", data_type):
            return "vector"
        return _DUCK_TYPES.get(data_type, data_type)
    if data_type == "ARRAY":
        return {"_text": "text[]"}.get(udt or "", f"array:{udt}")
    if data_type == "USER-DEFINED":
        return udt or data_type
    return _PG_TYPES.get(data_type, data_type)


def _columns(db) -> dict[tuple[str, str], dict[str, tuple[str, str]]]:
    udt = "udt_name" if db.backend == "postgres" else "NULL"
    rows = db.fetchall(f"SELECT table_schema AS s, table_name AS t, column_name AS c, data_type AS ty, "
                       f"{udt} AS udt, is_nullable AS n FROM information_schema.columns "
                       f"WHERE table_schema IN {_IN} ORDER BY 1, 2, ordinal_position")
    out: dict[tuple[str, str], dict[str, tuple[str, str]]] = {}
    for r in rows:
        out.setdefault((r["s"], r["t"]), {})[r["c"]] = (_type(db.backend, r["ty"], r["udt"]), r["n"])
    return out


def _check_signature(clause: str, columns: set[str]) -> tuple[str, ...]:
    """What a CHECK constrains, independent of how each backend prints it.

    Casts (``::text``) are dropped; what is left is the set of string literals, numbers and
    the table's column names the clause mentions (``x BETWEEN 0 AND 1`` and
    ``x >= 0 AND x <= 1`` give the same signature; so do ``IN ('a','b')`` and
    ``= ANY (ARRAY['a','b'])``).
    """
    text = re.sub(r"::[a-z ]+(\[\])?", "", clause)
    literals = {f"'{s}'" for s in re.findall(r"'([^']*)'", text)}
    text = re.sub(r"'[^']*'", " ", text)
    words = {w for w in re.findall(r"[A-Za-z_][A-Za-z_0-9]*", text) if w in columns}
    numbers = {str(float(n)) for n in re.findall(r"(?<![A-Za-z_])\d+(?:\.\d+)?", text)}
    return tuple(sorted(literals | words | numbers))


def _checks(db, columns) -> dict[tuple[str, str], list[tuple[str, ...]]]:
    rows = db.fetchall(f"SELECT tc.table_schema AS s, tc.table_name AS t, cc.check_clause AS clause "
                       f"FROM information_schema.table_constraints tc "
                       f"JOIN information_schema.check_constraints cc "
                       f"  ON cc.constraint_schema = tc.constraint_schema AND cc.constraint_name = tc.constraint_name "
                       f"WHERE tc.constraint_type = 'CHECK' AND tc.table_schema IN {_IN}")
    out: dict[tuple[str, str], list[tuple[str, ...]]] = {}
    for r in rows:
        clause = r["clause"].strip()
        if re.fullmatch(r"\(?\s*\"?[a-z_]+\"?\s+IS NOT NULL\s*\)?", clause):
            continue  # NOT NULL is compared through is_nullable
        key = (r["s"], r["t"])
        out.setdefault(key, []).append(_check_signature(clause, set(columns.get(key, {}))))
    return {k: sorted(v) for k, v in out.items()}


def _foreign_keys(db) -> set[tuple[str, str, str, str, str, str]]:
    rows = db.fetchall(f"SELECT k.table_schema AS s, k.table_name AS t, k.column_name AS c, "
                       f"r.table_schema || '.' || r.table_name AS ref, r.column_name AS ref_c, "
                       f"rc.delete_rule AS del "
                       f"FROM information_schema.referential_constraints rc "
                       f"JOIN information_schema.key_column_usage k "
                       f"  ON k.constraint_schema = rc.constraint_schema AND k.constraint_name = rc.constraint_name "
                       f"JOIN information_schema.key_column_usage r "
                       f"  ON r.constraint_schema = rc.unique_constraint_schema "
                       f" AND r.constraint_name = rc.unique_constraint_name "
                       f" AND r.ordinal_position = k.position_in_unique_constraint "
                       f"WHERE k.table_schema IN {_IN}")
    return {(r["s"], r["t"], r["c"], r["ref"], r["ref_c"], r["del"]) for r in rows}


@pytest.fixture
def both(tmp_path, pg_url):
    duck = connect(str(tmp_path / "parity.duckdb"))
    pg = connect(pg_url)
    try:
        init_db(duck)
        init_db(pg)
        yield duck, pg
    finally:
        duck.close()
        pg.close()


@pytest.mark.postgres
def test_both_backends_get_the_same_tables_columns_types_and_nullability(both):
    duck, pg = both
    d, p = _columns(duck), _columns(pg)
    assert sorted(d) == sorted(p)
    assert len(d) >= 30
    for table in sorted(d):
        assert d[table] == p[table], f"{'.'.join(table)} differs between DuckDB and Postgres"


@pytest.mark.postgres
def test_both_backends_get_the_same_check_constraints(both):
    duck, pg = both
    cols = _columns(duck)
    d, p = _checks(duck, cols), _checks(pg, cols)
    assert sum(len(v) for v in d.values()) >= 30
    assert sorted(d) == sorted(p)
    for table in sorted(d):
        assert d[table] == p[table], f"CHECK constraints of {'.'.join(table)} differ"


@pytest.mark.postgres
def test_both_backends_get_the_same_foreign_keys_except_the_marked_ones(both):
    duck, pg = both
    d, p = _foreign_keys(duck), _foreign_keys(pg)
    pg_only = {k[:5] for k in p - d}
    assert pg_only == postgres_only_foreign_keys()
    assert d <= p
    assert len(d) >= 20
    assert {k[5] for k in p} == {"NO ACTION"}  # no cascade anywhere: DuckDB has none


def test_templates_leave_no_placeholder_and_differ_only_in_the_mechanical_spots():
    for part in PARTS:
        for backend in ("duckdb", "postgres"):
            sql = render_ddl(part, backend, dim=12)
            left = re.findall(r"\{(?:json|double|vector|dim|array:[^}]*|fk:[^}]*|fk_pg:[^}]*)\}", sql)
            assert left == [], f"{part}/{backend}: {left}"
    assert "embedding       FLOAT[12] NOT NULL" in render_ddl("kb", "duckdb", dim=12)
    assert "embedding       vector(12) NOT NULL" in render_ddl("kb", "postgres", dim=12)
    assert "DEFAULT ['client','evaluator']" in render_ddl("app", "duckdb", dim=12)
    assert "DEFAULT '{client,evaluator}'" in render_ddl("app", "postgres", dim=12)
    assert "CREATE TRIGGER" not in render_ddl("app", "duckdb", dim=12).upper().replace("OR REPLACE ", "")
    assert "turns_append_only" in render_ddl("app", "postgres", dim=12)
    assert ("kb", "document", "superseded_by", "kb.document", "doc_id") in postgres_only_foreign_keys()


def test_a_malformed_foreign_key_placeholder_names_file_and_line(tmp_path, monkeypatch):
    from vignette_lab.store import schema

    (tmp_path / "app.sql").write_text("CREATE TABLE IF NOT EXISTS app.x (\n  a TEXT {fk:nowhere}\n);\n",
                                      encoding="utf-8")
    for part in ("audit", "kb", "ds"):
        (tmp_path / f"{part}.sql").write_text((SQL_DIR / f"{part}.sql").read_text(encoding="utf-8"),
                                              encoding="utf-8")
    monkeypatch.setattr(schema, "SQL_DIR", tmp_path)
    with pytest.raises(ConfigError, match=r"app\.sql:2: .*schema\.table\(column\)"):
        render_ddl("app", "duckdb", dim=4)


def test_duckdb_keeps_the_foreign_keys_and_deletes_children_before_parents(tmp_path):
    db = connect(str(tmp_path / "fk.duckdb"))
    try:
        init_db(db)
        db.execute("INSERT INTO app.sessions (session_id, learner_id, persona_code) VALUES ('s1', 'u', 'P1')")
        db.execute("INSERT INTO app.session_summary (session_id, case_id, session_no, end_state, digest) "
                   "VALUES ('s1', 'c', 1, '{}', 'd')")
        with pytest.raises(Exception, match="foreign key"):
            db.execute("INSERT INTO app.session_summary (session_id, case_id, session_no, end_state, digest) "
                       "VALUES ('nope', 'c', 2, '{}', 'd')")
        with pytest.raises(Exception, match="foreign key"):
            db.execute("DELETE FROM app.sessions WHERE session_id = 's1'")
        db.execute("UPDATE app.sessions SET status = 'ended', review_status = 'ready' WHERE session_id = 's1'")
        db.execute("DELETE FROM app.session_summary WHERE session_id = 's1'")
        db.execute("DELETE FROM app.sessions WHERE session_id = 's1'")
        assert db.scalar("SELECT count(*) FROM app.sessions") == 0
    finally:
        db.close()


@pytest.mark.postgres
def test_an_older_postgres_database_gets_the_annotation_key_as_a_constraint(pg_url):
    """Databases made before the key was a constraint had a bare unique index under the FK."""
    pg = connect(pg_url)
    try:
        init_db(pg)
        pg.execute("ALTER TABLE ds.annotation DROP CONSTRAINT annotation_supersedes_same_annotator")
        pg.execute("ALTER TABLE ds.annotation DROP CONSTRAINT ds_annotation_triple_key")
        pg.execute("CREATE UNIQUE INDEX ds_annotation_triple_key "
                   "ON ds.annotation (annotation_id, round_id, item_id, annotator_id)")
        pg.execute("ALTER TABLE ds.annotation ADD CONSTRAINT annotation_supersedes_same_annotator "
                   "FOREIGN KEY (supersedes, round_id, item_id, annotator_id) "
                   "REFERENCES ds.annotation (annotation_id, round_id, item_id, annotator_id) NOT VALID")
        assert ("ds", "annotation", "round_id", "ds.annotation", "round_id") not in {k[:5] for k in _foreign_keys(pg)}
        init_db(pg)
        keys = {k[:5] for k in _foreign_keys(pg)}
        assert {k for k in postgres_only_foreign_keys() if k[1] == "annotation"} <= keys
    finally:
        pg.close()
