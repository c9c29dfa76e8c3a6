"""Does folding a turn's status check into its checkpoint ``UPDATE`` pay on DuckDB? (issue 12)

A turn's transaction reads the session's status (``SELECT status``) and then updates the
checkpoint row. Folding the check into the ``UPDATE`` (``AND EXISTS (…)``, ``RETURNING`` to learn
whether a row was updated) saves one statement. This times the process CPU of one transaction
(BEGIN, the statements, COMMIT) per variant on a synthetic two-table DuckDB file, 300
transactions × 3 repeats, interleaved by repeat.

Run: ``.venv/bin/python bench/turn_fold_status.py``
"""

from __future__ import annotations

import json
import os
import tempfile
import time

import duckdb

_UPDATE = ("UPDATE app.session_state SET stage = ?, turn_seq = ?, a = ?, b = CAST(? AS JSON), updated_at = now() "
           "WHERE session_id = ?")
_FOLD = " AND EXISTS (SELECT 1 FROM app.sessions s WHERE s.session_id = ? AND s.status = 'active')"
VARIANTS = {
    "SELECT status + UPDATE (today)": [("SELECT status FROM app.sessions WHERE session_id = ?", "read"),
                                        (_UPDATE, "update")],
    "UPDATE … AND EXISTS … RETURNING": [(_UPDATE + _FOLD + " RETURNING session_id", "folded")],
    "UPDATE … AND EXISTS (no RETURNING)": [(_UPDATE + _FOLD, "folded")],
}


def main(n: int = 300, repeats: int = 3) -> None:
    path = os.path.join(tempfile.mkdtemp(), "fold.duckdb")
    con = duckdb.connect(path)
    con.execute("CREATE SCHEMA app; CREATE TABLE app.sessions (session_id VARCHAR PRIMARY KEY, status VARCHAR);"
                "CREATE TABLE app.session_state (session_id VARCHAR PRIMARY KEY, stage VARCHAR, turn_seq INT, "
                "a REAL, b JSON, updated_at TIMESTAMP)")
    for i in range(50):
        con.execute("INSERT INTO app.sessions VALUES (?, 'active')", [f"s{i}"])
        con.execute("INSERT INTO app.session_state VALUES (?, 'x', 0, 0, '{}', now())", [f"s{i}"])
    print(f"load average at start {os.getloadavg()[0]:.1f}")
    for rep in range(repeats):
        for name, stmts in VARIANTS.items():
            t0 = time.process_time()
            for k in range(n):
                con.execute("BEGIN")
                for sql, kind in stmts:
                    upd = ["st", k, 0.5, json.dumps({"a": k}), "s3"]
                    if kind == "read":
                        con.execute(sql, ["s3"]).fetchone()
                    elif kind == "update":
                        con.execute(sql, upd)
                    else:
                        con.execute(sql, upd + ["s3"]).fetchall()
                con.execute("COMMIT")
            print(f"repeat {rep}: {name}: {(time.process_time() - t0) / n * 1000:.2f} ms CPU per transaction")
    print(f"load average at end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
