-- Row-level security: the two layers of seed 001 §5.4 / seed 004 §4. Idempotent; runs
-- last in init_db (after kb/ds DDL) so it can cover kb.chunk and grant on every table.
--
-- Context comes from transaction-local settings injected by PgDatabase.ai_view() /
-- as_principal() with set_config(..., true):
--   layer 1 (AI view)   app.current_ai_view, app.current_sens_max
--   layer 2 (human)     app.current_role, app.current_uid, app.current_cohort
-- A row is visible when BOTH layers allow it. A layer whose setting is empty allows
-- everything: that is how the owner/maintenance connection (init, migrations) works.
-- The application always runs data access under a view or a principal, as the
-- NOLOGIN role vignette_app (SET LOCAL ROLE), because superusers bypass RLS.

DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'vignette_app') THEN
    BEGIN
      CREATE ROLE vignette_app NOLOGIN;
    EXCEPTION WHEN duplicate_object OR unique_violation THEN
      NULL;  -- another database of the same cluster created it concurrently
    END;
  END IF;
END $$;

CREATE OR REPLACE FUNCTION app.ctx(name text) RETURNS text
LANGUAGE sql STABLE AS $$ SELECT NULLIF(current_setting(name, true), '') $$;

-- layer 1 on tables that carry visible_to[] + sensitivity
CREATE OR REPLACE FUNCTION app.ai_may_see(visible_to text[], sensitivity smallint) RETURNS boolean
LANGUAGE sql STABLE AS $$
  SELECT app.ctx('app.current_ai_view') IS NULL
      OR (app.ctx('app.current_ai_view') = ANY(visible_to)
          AND sensitivity <= COALESCE(app.ctx('app.current_sens_max')::int, 0))
$$;

-- layer 1 on tables only the evaluator AI may read (learner_profile, session_evaluation)
CREATE OR REPLACE FUNCTION app.ai_is_evaluator_or_none() RETURNS boolean
LANGUAGE sql STABLE AS $$
  SELECT app.ctx('app.current_ai_view') IS NULL OR app.ctx('app.current_ai_view') = 'evaluator'
$$;

-- layer 2: learner = own, faculty/teacher = own cohort, researcher/admin = all, else none
CREATE OR REPLACE FUNCTION app.human_may_see_session(sid text) RETURNS boolean
LANGUAGE sql STABLE AS $$
  SELECT CASE
    WHEN app.ctx('app.current_role') IS NULL THEN true
    WHEN app.ctx('app.current_role') IN ('researcher', 'admin') THEN true
    WHEN app.ctx('app.current_role') = 'learner' THEN EXISTS (
      SELECT 1 FROM app.sessions s
      WHERE s.session_id = sid AND s.learner_id = app.ctx('app.current_uid'))
    WHEN app.ctx('app.current_role') IN ('faculty', 'teacher') THEN EXISTS (
      SELECT 1 FROM app.sessions s
      WHERE s.session_id = sid AND s.cohort = app.ctx('app.current_cohort'))
    ELSE false
  END
$$;

CREATE OR REPLACE FUNCTION app.human_may_see_case(cid text) RETURNS boolean
LANGUAGE sql STABLE AS $$
  SELECT CASE
    WHEN app.ctx('app.current_role') IS NULL THEN true
    WHEN app.ctx('app.current_role') IN ('researcher', 'admin') THEN true
    WHEN app.ctx('app.current_role') = 'learner' THEN EXISTS (
      SELECT 1 FROM app.case_profile c
      WHERE c.case_id = cid AND c.learner_id = app.ctx('app.current_uid'))
    WHEN app.ctx('app.current_role') IN ('faculty', 'teacher') THEN EXISTS (
      SELECT 1 FROM app.sessions s
      WHERE s.case_id = cid AND s.cohort = app.ctx('app.current_cohort'))
    ELSE false
  END
$$;

CREATE OR REPLACE FUNCTION app.human_may_see_learner(lid text) RETURNS boolean
LANGUAGE sql STABLE AS $$
  SELECT CASE
    WHEN app.ctx('app.current_role') IS NULL THEN true
    WHEN app.ctx('app.current_role') IN ('researcher', 'admin') THEN true
    WHEN app.ctx('app.current_role') = 'learner' THEN lid = app.ctx('app.current_uid')
    WHEN app.ctx('app.current_role') IN ('faculty', 'teacher') THEN EXISTS (
      SELECT 1 FROM app.app_user u
      WHERE u.user_id = lid AND u.cohort = app.ctx('app.current_cohort'))
    ELSE false
  END
$$;

-- app.sessions: no AI restriction (every AI needs the session header); human scope
ALTER TABLE app.sessions ENABLE ROW LEVEL SECURITY;
ALTER TABLE app.sessions FORCE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS sessions_access ON app.sessions;
CREATE POLICY sessions_access ON app.sessions
  USING (CASE
    WHEN app.ctx('app.current_role') IS NULL THEN true
    WHEN app.ctx('app.current_role') IN ('researcher', 'admin') THEN true
    WHEN app.ctx('app.current_role') = 'learner' THEN learner_id = app.ctx('app.current_uid')
    WHEN app.ctx('app.current_role') IN ('faculty', 'teacher') THEN cohort = app.ctx('app.current_cohort')
    ELSE false END);

ALTER TABLE app.session_state ENABLE ROW LEVEL SECURITY;
ALTER TABLE app.session_state FORCE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS session_state_access ON app.session_state;
CREATE POLICY session_state_access ON app.session_state
  USING (app.human_may_see_session(session_id));

ALTER TABLE app.turns ENABLE ROW LEVEL SECURITY;
ALTER TABLE app.turns FORCE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS turns_access ON app.turns;
CREATE POLICY turns_access ON app.turns
  USING (app.ai_may_see(visible_to, sensitivity) AND app.human_may_see_session(session_id));

-- evaluator output: a learner principal may write it (the eval hook runs inside the
-- learner's request) but never read it directly (seed 001 §5.4 feedback_scores rule)
ALTER TABLE app.turn_evaluation ENABLE ROW LEVEL SECURITY;
ALTER TABLE app.turn_evaluation FORCE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS turn_evaluation_access ON app.turn_evaluation;
CREATE POLICY turn_evaluation_access ON app.turn_evaluation
  USING (app.ai_may_see(visible_to, sensitivity)
         AND COALESCE(app.ctx('app.current_role'), '') <> 'learner'
         AND app.human_may_see_session(session_id))
  WITH CHECK (app.ai_may_see(visible_to, sensitivity) AND app.human_may_see_session(session_id));

ALTER TABLE app.session_evaluation ENABLE ROW LEVEL SECURITY;
ALTER TABLE app.session_evaluation FORCE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS session_evaluation_access ON app.session_evaluation;
CREATE POLICY session_evaluation_access ON app.session_evaluation
  USING (app.ai_is_evaluator_or_none() AND app.human_may_see_session(session_id));

ALTER TABLE app.pinned_fact ENABLE ROW LEVEL SECURITY;
ALTER TABLE app.pinned_fact FORCE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS pinned_fact_access ON app.pinned_fact;
CREATE POLICY pinned_fact_access ON app.pinned_fact
  USING (app.ai_may_see(visible_to, sensitivity) AND app.human_may_see_case(case_id));

ALTER TABLE app.learner_profile ENABLE ROW LEVEL SECURITY;
ALTER TABLE app.learner_profile FORCE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS learner_profile_access ON app.learner_profile;
CREATE POLICY learner_profile_access ON app.learner_profile
  USING (app.ai_is_evaluator_or_none() AND app.human_may_see_learner(learner_id));

-- kb.chunk belongs to the kb DDL (another file); cover it when it exists with the columns
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM information_schema.columns
             WHERE table_schema = 'kb' AND table_name = 'chunk' AND column_name = 'visible_to')
     AND EXISTS (SELECT 1 FROM information_schema.columns
             WHERE table_schema = 'kb' AND table_name = 'chunk' AND column_name = 'sensitivity') THEN
    EXECUTE 'ALTER TABLE kb.chunk ENABLE ROW LEVEL SECURITY';
    EXECUTE 'ALTER TABLE kb.chunk FORCE ROW LEVEL SECURITY';
    EXECUTE 'DROP POLICY IF EXISTS chunk_access ON kb.chunk';
    EXECUTE 'CREATE POLICY chunk_access ON kb.chunk USING (app.ai_may_see(visible_to, sensitivity::smallint))';
  END IF;
END $$;

-- grants for the application role (re-run after every DDL file so new tables are covered)
GRANT USAGE ON SCHEMA app, kb, audit, ds TO vignette_app;
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA app, kb, ds TO vignette_app;
GRANT SELECT, INSERT ON ALL TABLES IN SCHEMA audit TO vignette_app;
GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA app, kb, audit, ds TO vignette_app;
REVOKE UPDATE, DELETE ON app.turns, app.pinned_fact_history FROM vignette_app;
-- tables created later by the same owner (e.g. kb tables rebuilt by `kb sync --reindex`)
-- get the grants too; their RLS needs store.schema.apply_rls(db) to run again.
ALTER DEFAULT PRIVILEGES IN SCHEMA app, kb, ds GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO vignette_app;
ALTER DEFAULT PRIVILEGES IN SCHEMA audit GRANT SELECT, INSERT ON TABLES TO vignette_app;
ALTER DEFAULT PRIVILEGES IN SCHEMA app, kb, audit, ds GRANT USAGE, SELECT ON SEQUENCES TO vignette_app;
