-- kb schema + app.turn_embedding (seed 004 §3.3, §3.6). Idempotent. One template for both
-- backends (store/schema.py renders the placeholders); kb.postgres.sql adds the HNSW/GIN indexes and
-- the row-level security of kb.chunk. Vector columns are sized for the active embedder.
-- DuckDB has no fts/vss offline: dense search is exact array_cosine_similarity there.
CREATE SCHEMA IF NOT EXISTS kb;
CREATE SCHEMA IF NOT EXISTS app;

CREATE TABLE IF NOT EXISTS kb.source (
  source_id       TEXT PRIMARY KEY,
  title           TEXT NOT NULL,
  kb_kind         TEXT NOT NULL CHECK (kb_kind IN
                    ('diagnostic','theory','technique','taxonomy','supervisor_pattern','template','ko_context')),
  license_class   TEXT NOT NULL CHECK (license_class IN ('A','B','C','D')),
  origin_path     TEXT,
  citation        TEXT,
  external_llm_ok BOOLEAN NOT NULL DEFAULT FALSE,
  visible_to      TEXT[] NOT NULL,
  sensitivity     SMALLINT NOT NULL DEFAULT 0 CHECK (sensitivity BETWEEN 0 AND 3),
  is_active       BOOLEAN NOT NULL DEFAULT TRUE,
  created_at      TIMESTAMPTZ NOT NULL DEFAULT now(),
  updated_at      TIMESTAMPTZ,
  CHECK (NOT (external_llm_ok AND license_class IN ('C','D')))
);

CREATE TABLE IF NOT EXISTS kb.document (
  doc_id          TEXT PRIMARY KEY,
  -- Postgres only: DuckDB refuses to update a list column (visible_to) of a referenced row,
  -- and the kb sync upsert of kb.source does that.
  source_id       TEXT NOT NULL {fk_pg:kb.source(source_id)},
  doc_uri         TEXT NOT NULL,
  title           TEXT,
  version         INTEGER NOT NULL DEFAULT 1,
  content_hash    TEXT NOT NULL,
  -- Postgres only: on DuckDB a foreign-key column is indexed, so setting it on a document
  -- that chunks reference is refused (kb sync sets it on the superseded version).
  superseded_by   TEXT {fk_pg:kb.document(doc_id)},
  is_active       BOOLEAN NOT NULL DEFAULT TRUE,
  sensitivity     SMALLINT NOT NULL DEFAULT 0,
  chunk_count     INTEGER NOT NULL DEFAULT 0,
  embedder        TEXT,
  indexed_at      TIMESTAMPTZ,
  deactivated_at  TIMESTAMPTZ,
  UNIQUE (source_id, doc_uri, version)
);

CREATE TABLE IF NOT EXISTS kb.chunk (
  chunk_id        TEXT PRIMARY KEY,
  doc_id          TEXT NOT NULL {fk:kb.document(doc_id)},
  source_id       TEXT NOT NULL,
  kb_kind         TEXT NOT NULL,
  seq             INTEGER NOT NULL,
  heading_path    TEXT,
  chunk_text      TEXT NOT NULL,
  context_prefix  TEXT,
  embedding       {vector} NOT NULL,
  sparse_vec      {json},
  visible_to      TEXT[] NOT NULL,
  sensitivity     SMALLINT NOT NULL DEFAULT 0 CHECK (sensitivity BETWEEN 0 AND 2),
  license_class   TEXT NOT NULL,
  external_llm_ok BOOLEAN NOT NULL DEFAULT FALSE,
  label_id        TEXT,
  meta            {json},
  token_count     INTEGER,
  embedder        TEXT NOT NULL,
  is_active       BOOLEAN NOT NULL DEFAULT TRUE,
  created_at      TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS idx_chunk_route ON kb.chunk (kb_kind, sensitivity);
CREATE INDEX IF NOT EXISTS idx_chunk_doc ON kb.chunk (doc_id);

CREATE TABLE IF NOT EXISTS kb.retrieval_log (
  log_id          TEXT PRIMARY KEY,
  role            TEXT NOT NULL CHECK (role IN ('client','counselor','evaluator')),
  session_id      TEXT,
  query_sha256    TEXT NOT NULL,
  policy          {json} NOT NULL,
  fusion          TEXT NOT NULL,
  external_engine BOOLEAN NOT NULL DEFAULT FALSE,
  embedder        TEXT,
  hit_ids         TEXT[] NOT NULL,
  scores          {json} NOT NULL,
  top1_score      {double},
  latency_ms      {double} NOT NULL,
  created_at      TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE TABLE IF NOT EXISTS app.turn_embedding (
  turn_id         TEXT PRIMARY KEY,
  case_id         TEXT NOT NULL,
  learner_id      TEXT NOT NULL,
  session_id      TEXT NOT NULL,
  seq             INTEGER NOT NULL,
  speaker         TEXT,
  text_masked     TEXT NOT NULL,
  dense           {vector} NOT NULL,
  sparse          {json},
  context_prefix  TEXT,
  embedder        TEXT NOT NULL,
  created_at      TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS idx_turn_emb_case ON app.turn_embedding (case_id, learner_id);

