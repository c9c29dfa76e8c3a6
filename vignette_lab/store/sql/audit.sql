-- audit schema (seed 001 §5.2, seed 004 §3.7), one template for both backends. Idempotent.
-- Append-only: audit_repo only inserts; audit.postgres.sql adds the refusing triggers on Postgres.
-- llm_call_log is metadata only: there is deliberately NO prompt / completion column, and
-- audit_repo refuses such keys.
CREATE SCHEMA IF NOT EXISTS audit;

CREATE TABLE IF NOT EXISTS audit.llm_call_log (
  call_id            TEXT PRIMARY KEY,
  created_at         TIMESTAMPTZ NOT NULL DEFAULT now(),
  ai_role            TEXT,
  provider           TEXT,
  model              TEXT,
  session_id         TEXT,
  request_hash       TEXT,
  input_tokens       INTEGER CHECK (input_tokens IS NULL OR input_tokens >= 0),
  output_tokens      INTEGER CHECK (output_tokens IS NULL OR output_tokens >= 0),
  cache_read_tokens  INTEGER CHECK (cache_read_tokens IS NULL OR cache_read_tokens >= 0),
  cache_write_tokens INTEGER CHECK (cache_write_tokens IS NULL OR cache_write_tokens >= 0),
  cost_usd           {double},
  latency_ms         {double},
  status             TEXT NOT NULL DEFAULT 'ok',
  error_code         TEXT
);

CREATE TABLE IF NOT EXISTS audit.persona_drift_log (
  id            TEXT PRIMARY KEY,
  session_id    TEXT NOT NULL,
  turn_id       TEXT,
  persona_id    TEXT,
  persona_code  TEXT,
  drift_type    TEXT NOT NULL CHECK (drift_type IN ('big5_violation','ccd_leak','fact_contradiction','style_drift','embedding_inconsistency')),
  embedding_sim REAL,
  detail        {json},
  severity      TEXT CHECK (severity IS NULL OR severity IN ('warn','block')),
  engine        TEXT,
  model         TEXT,
  created_at    TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE TABLE IF NOT EXISTS audit.audit_log (
  event_id   TEXT PRIMARY KEY,
  created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  actor      TEXT NOT NULL,
  action     TEXT NOT NULL,
  target     TEXT,
  detail     {json}
);
