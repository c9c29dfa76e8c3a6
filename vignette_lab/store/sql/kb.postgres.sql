-- kb extras, PostgreSQL 16 + pgvector only (after kb.sql): ANN/GIN indexes and the row-level
-- security of kb.chunk (seed 004 §4.4 T1). Idempotent.
CREATE INDEX IF NOT EXISTS idx_chunk_hnsw ON kb.chunk
  USING hnsw (embedding vector_cosine_ops) WITH (m = 16, ef_construction = 64);
CREATE INDEX IF NOT EXISTS idx_chunk_visible ON kb.chunk USING gin (visible_to);
CREATE INDEX IF NOT EXISTS idx_turn_emb_hnsw ON app.turn_embedding
  USING hnsw (dense vector_cosine_ops) WITH (m = 16, ef_construction = 64);

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
