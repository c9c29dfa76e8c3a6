-- kb schema + app.turn_embedding, PostgreSQL 16 + pgvector (seed 004 §3.3, §3.6, §4.3). Idempotent.
-- vector(dim) for the active embedder (init_db substitutes the dim placeholder).
-- Row-level security on kb.chunk follows the AI view the store injects
-- (app.current_ai_view / app.current_sens_max, role vignette_app): seed 004 §4.4 T1.
CREATE EXTENSION IF NOT EXISTS vector;
CREATE SCHEMA IF NOT EXISTS kb;
CREATE SCHEMA IF NOT EXISTS app;

CREATE TABLE IF NOT EXISTS kb.source (
  source_id       TEXT PRIMARY KEY,
  title           TEXT NOT NULL,
  kb_kind         TEXT NOT NULL CHECK (kb_kind IN
                    ('diagnostic','theory','technique','taxonomy','supervisor_pattern','template','ko_context')),
  license_class   CHAR(1) NOT NULL CHECK (license_class IN ('A','B','C','D')),
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
  source_id       TEXT NOT NULL REFERENCES kb.source(source_id),
  doc_uri         TEXT NOT NULL,
  title           TEXT,
  version         INTEGER NOT NULL DEFAULT 1,
  content_hash    TEXT NOT NULL,
  superseded_by   TEXT REFERENCES kb.document(doc_id),
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
  doc_id          TEXT NOT NULL REFERENCES kb.document(doc_id) ON DELETE CASCADE,
  source_id       TEXT NOT NULL,
  kb_kind         TEXT NOT NULL,
  seq             INTEGER NOT NULL,
  heading_path    TEXT,
  chunk_text      TEXT NOT NULL,
  context_prefix  TEXT,
  embedding       vector({dim}) NOT NULL,
  sparse_vec      JSONB,
  visible_to      TEXT[] NOT NULL,
  sensitivity     SMALLINT NOT NULL DEFAULT 0 CHECK (sensitivity BETWEEN 0 AND 2),
  license_class   CHAR(1) NOT NULL,
  external_llm_ok BOOLEAN NOT NULL DEFAULT FALSE,
  label_id        TEXT,
  meta            JSONB,
  token_count     INTEGER,
  embedder        TEXT NOT NULL,
  is_active       BOOLEAN NOT NULL DEFAULT TRUE,
  created_at      TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS idx_chunk_hnsw ON kb.chunk
  USING hnsw (embedding vector_cosine_ops) WITH (m = 16, ef_construction = 64);
CREATE INDEX IF NOT EXISTS idx_chunk_visible ON kb.chunk USING gin (visible_to);
CREATE INDEX IF NOT EXISTS idx_chunk_route ON kb.chunk (kb_kind, sensitivity) WHERE is_active;
CREATE INDEX IF NOT EXISTS idx_chunk_doc ON kb.chunk (doc_id);

CREATE TABLE IF NOT EXISTS kb.retrieval_log (
  log_id          TEXT PRIMARY KEY,
  role            TEXT NOT NULL CHECK (role IN ('client','counselor','evaluator')),
  session_id      TEXT,
  query_sha256    TEXT NOT NULL,
  policy          JSONB NOT NULL,
  fusion          TEXT NOT NULL,
  external_engine BOOLEAN NOT NULL DEFAULT FALSE,
  embedder        TEXT,
  hit_ids         TEXT[] NOT NULL,
  scores          JSONB NOT NULL,
  top1_score      DOUBLE PRECISION,
  latency_ms      DOUBLE PRECISION NOT NULL,
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
  dense           vector({dim}) NOT NULL,
  sparse          JSONB,
  context_prefix  TEXT,
  embedder        TEXT NOT NULL,
  created_at      TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS idx_turn_emb_hnsw ON app.turn_embedding
  USING hnsw (dense vector_cosine_ops) WITH (m = 16, ef_construction = 64);
CREATE INDEX IF NOT EXISTS idx_turn_emb_case ON app.turn_embedding (case_id, learner_id);

-- RLS: outside any AI view (indexing, researchers) every row is visible; inside one,
-- only rows whose visible_to holds the view and whose sensitivity is within its maximum.
ALTER TABLE kb.chunk ENABLE ROW LEVEL SECURITY;
ALTER TABLE kb.chunk FORCE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS kb_chunk_ai_view ON kb.chunk;
CREATE POLICY kb_chunk_ai_view ON kb.chunk FOR SELECT USING (
  COALESCE(current_setting('app.current_ai_view', true), '') = ''
  OR (current_setting('app.current_ai_view', true) = ANY(visible_to)
      AND sensitivity <= NULLIF(current_setting('app.current_sens_max', true), '')::int)
);
DROP POLICY IF EXISTS kb_chunk_write ON kb.chunk;
CREATE POLICY kb_chunk_write ON kb.chunk FOR ALL
  USING (COALESCE(current_setting('app.current_ai_view', true), '') = '')
  WITH CHECK (COALESCE(current_setting('app.current_ai_view', true), '') = '');

DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'vignette_app') THEN
    GRANT USAGE ON SCHEMA kb TO vignette_app;
    GRANT SELECT ON kb.source, kb.document, kb.chunk TO vignette_app;
    GRANT SELECT, INSERT ON kb.retrieval_log TO vignette_app;
    GRANT SELECT, INSERT ON app.turn_embedding TO vignette_app;
  END IF;
END
$$;
