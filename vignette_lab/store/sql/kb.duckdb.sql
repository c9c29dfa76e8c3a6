-- kb schema + app.turn_embedding, DuckDB dialect (seed 004 §3.3, §3.6). Idempotent.
-- Vector columns are FLOAT[dim] for the active embedder; init_db substitutes the dim
-- placeholder. Ids are TEXT uuid4 strings made in Python. DuckDB has no fts/vss offline:
-- dense search is exact array_cosine_similarity, sparse scoring runs over the
-- policy-filtered candidate rows (vignette_lab.kb.retrieval).
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
  source_id       TEXT NOT NULL,
  doc_uri         TEXT NOT NULL,
  title           TEXT,
  version         INTEGER NOT NULL DEFAULT 1,
  content_hash    TEXT NOT NULL,
  superseded_by   TEXT,
  is_active       BOOLEAN NOT NULL DEFAULT TRUE,
  sensitivity     SMALLINT NOT NULL DEFAULT 0,
  chunk_count     INTEGER NOT NULL DEFAULT 0,
  embedder        TEXT,
  indexed_at      TIMESTAMPTZ,
  deactivated_at  TIMESTAMPTZ,
  UNIQUE (source_id, doc_uri, version)
);

-- Sensitivity 3 (quarantined) can never be a chunk: the CHECK is the last line of defence.
CREATE TABLE IF NOT EXISTS kb.chunk (
  chunk_id        TEXT PRIMARY KEY,
  doc_id          TEXT NOT NULL,
  source_id       TEXT NOT NULL,
  kb_kind         TEXT NOT NULL,
  seq             INTEGER NOT NULL,
  heading_path    TEXT,
  chunk_text      TEXT NOT NULL,
  context_prefix  TEXT,
  embedding       FLOAT[{dim}] NOT NULL,
  sparse_vec      JSON,
  visible_to      TEXT[] NOT NULL,
  sensitivity     SMALLINT NOT NULL DEFAULT 0 CHECK (sensitivity BETWEEN 0 AND 2),
  license_class   TEXT NOT NULL,
  external_llm_ok BOOLEAN NOT NULL DEFAULT FALSE,
  label_id        TEXT,
  meta            JSON,
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
  policy          JSON NOT NULL,
  fusion          TEXT NOT NULL,
  external_engine BOOLEAN NOT NULL DEFAULT FALSE,
  embedder        TEXT,
  hit_ids         TEXT[] NOT NULL,
  scores          JSON NOT NULL,
  top1_score      DOUBLE,
  latency_ms      DOUBLE NOT NULL,
  created_at      TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- Episodic memory (seed 004 §3.3): masked turn text + vectors, scoped to one
-- (persona, learner) case; recall filters on case_id AND learner_id.
CREATE TABLE IF NOT EXISTS app.turn_embedding (
  turn_id         TEXT PRIMARY KEY,
  case_id         TEXT NOT NULL,
  learner_id      TEXT NOT NULL,
  session_id      TEXT NOT NULL,
  seq             INTEGER NOT NULL,
  speaker         TEXT,
  text_masked     TEXT NOT NULL,
  dense           FLOAT[{dim}] NOT NULL,
  sparse          JSON,
  context_prefix  TEXT,
  embedder        TEXT NOT NULL,
  created_at      TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS idx_turn_emb_case ON app.turn_embedding (case_id, learner_id);
