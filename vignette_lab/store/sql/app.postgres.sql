-- app extras, PostgreSQL 16 only (run after app.sql): extensions, indexes and the append-only
-- triggers. RLS and the per-view roles live in rls.postgres.sql. Idempotent.
CREATE EXTENSION IF NOT EXISTS vector;
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'pg_trgm') THEN
    CREATE EXTENSION IF NOT EXISTS pg_trgm;
  END IF;
END $$;

CREATE INDEX IF NOT EXISTS idx_persona_card_status ON app.persona_card (status) WHERE status = 'approved';
CREATE INDEX IF NOT EXISTS idx_sessions_learner ON app.sessions (learner_id, started_at);
CREATE INDEX IF NOT EXISTS idx_sessions_case ON app.sessions (case_id, session_no);
CREATE INDEX IF NOT EXISTS idx_sessions_cohort ON app.sessions (cohort);
CREATE INDEX IF NOT EXISTS idx_turns_case ON app.turns (case_id, session_id);
CREATE INDEX IF NOT EXISTS idx_turns_visible ON app.turns USING gin (visible_to);
CREATE INDEX IF NOT EXISTS idx_turn_eval_session ON app.turn_evaluation (session_id);
CREATE INDEX IF NOT EXISTS idx_turn_eval_turn ON app.turn_evaluation (turn_id);
CREATE INDEX IF NOT EXISTS idx_pinned_case ON app.pinned_fact (case_id, status);
CREATE INDEX IF NOT EXISTS idx_pinned_hist_fact ON app.pinned_fact_history (fact_id, created_at);
CREATE INDEX IF NOT EXISTS idx_coach_session ON app.live_coach_events (session_id, turn_seq);
CREATE INDEX IF NOT EXISTS idx_safety_session ON app.safety_events (session_id, turn_seq);
CREATE INDEX IF NOT EXISTS idx_sess_sum_case ON app.session_summary (case_id, session_no DESC);

-- Append-only: a correction is a new row (supersedes), never an UPDATE/DELETE.
CREATE OR REPLACE FUNCTION app.forbid_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION '%.% is append-only: % is not allowed; insert a new row that supersedes it',
    TG_TABLE_SCHEMA, TG_TABLE_NAME, TG_OP
    USING ERRCODE = 'restrict_violation';
END $$;

CREATE OR REPLACE TRIGGER turns_append_only BEFORE UPDATE OR DELETE ON app.turns
  FOR EACH ROW EXECUTE FUNCTION app.forbid_change();
CREATE OR REPLACE TRIGGER pinned_fact_history_append_only BEFORE UPDATE OR DELETE ON app.pinned_fact_history
  FOR EACH ROW EXECUTE FUNCTION app.forbid_change();
