-- Row-level security and privileges: the two layers of seed 001 §5.4 / seed 004 §4.
-- Idempotent; runs last in init_db (after kb/ds DDL) so it covers every table.
--
-- Layer 1 (AI view) and layer 2 (human principal) are enforced by two things together:
--   * a NOLOGIN role per view and per human role (vignette_client, vignette_counselor,
--     vignette_evaluator, vignette_learner, vignette_faculty, vignette_researcher), entered with
--     SET LOCAL ROLE; their table and column privileges are generated from
--     vignette_lab/store/access.py (store.schema runs them right after this file), so e.g. the
--     client role has no privilege on persona_card.ccd / dsm5_dimensional at all;
--   * policies (below) that read the context from the session's temporary table
--     pg_temp.vl_ctx, written by app.enter_ctx() before the role switch. The roles may read
--     that table but not write it, so nothing run inside a block (set_config(...) included)
--     can widen the view or change the principal.
-- Outside any context (init, migrations, maintenance as the owner) the policies allow all.
-- Row rules mirror vignette_lab.store.access.ROW_RULES (the DuckDB gateway uses those).

DO $$
DECLARE r text;
BEGIN
  FOREACH r IN ARRAY ARRAY['vignette_app', 'vignette_client', 'vignette_counselor', 'vignette_evaluator',
                           'vignette_learner', 'vignette_faculty', 'vignette_researcher'] LOOP
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = r) THEN
      BEGIN
        EXECUTE format('CREATE ROLE %I NOLOGIN', r);
      EXCEPTION WHEN duplicate_object OR unique_violation THEN
        NULL;  -- another database of the same cluster created it concurrently
      END;
    END IF;
    IF NOT pg_has_role(current_user, r, 'MEMBER') THEN
      BEGIN
        EXECUTE format('GRANT %I TO %I', r, current_user);
      EXCEPTION WHEN insufficient_privilege THEN
        RAISE WARNING 'cannot grant % to %: the store cannot switch to it', r, current_user;
      END;
    END IF;
  END LOOP;
END $$;

-- context: one row in a temporary table owned by the connecting role (ON COMMIT DELETE ROWS:
-- nothing survives the transaction). Keys keep the names of the former settings.
CREATE OR REPLACE FUNCTION app.ctx(name text) RETURNS text
LANGUAGE plpgsql STABLE AS $$
DECLARE v text;
BEGIN
  IF to_regclass('pg_temp.vl_ctx') IS NULL THEN
    RETURN NULL;
  END IF;
  SELECT CASE name
           WHEN 'app.current_ai_view' THEN c.ai_view
           WHEN 'app.current_sens_max' THEN c.sens_max::text
           WHEN 'app.current_role' THEN c.role
           WHEN 'app.current_uid' THEN c.uid
           WHEN 'app.current_cohort' THEN c.cohort
         END INTO v
    FROM pg_temp.vl_ctx c LIMIT 1;
  RETURN NULLIF(v, '');
END $$;

CREATE OR REPLACE FUNCTION app.enter_ctx(p_view text, p_sens int, p_role text, p_uid text, p_cohort text,
                                         p_dbrole text) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  IF to_regclass('pg_temp.vl_ctx') IS NULL THEN
    CREATE TEMP TABLE vl_ctx (ai_view text, sens_max int, role text, uid text, cohort text)
      ON COMMIT DELETE ROWS;
    GRANT SELECT ON pg_temp.vl_ctx TO vignette_client, vignette_counselor, vignette_evaluator,
      vignette_learner, vignette_faculty, vignette_researcher;
  END IF;
  DELETE FROM pg_temp.vl_ctx;
  IF p_view IS NOT NULL OR p_role IS NOT NULL THEN
    INSERT INTO pg_temp.vl_ctx VALUES (p_view, p_sens, p_role, p_uid, p_cohort);
  END IF;
  IF p_dbrole IS NOT NULL THEN
    EXECUTE format('SET LOCAL ROLE %I', p_dbrole);
  END IF;
END $$;
REVOKE ALL ON FUNCTION app.enter_ctx(text, int, text, text, text, text) FROM PUBLIC;

-- layer 1 on tables that carry visible_to[] + sensitivity
CREATE OR REPLACE FUNCTION app.ai_may_see(visible_to text[], sensitivity smallint) RETURNS boolean
LANGUAGE sql STABLE AS $$
  SELECT app.ctx('app.current_ai_view') IS NULL
      OR (app.ctx('app.current_ai_view') = ANY(visible_to)
          AND sensitivity <= COALESCE(app.ctx('app.current_sens_max')::int, 0))
$$;

CREATE OR REPLACE FUNCTION app.ai_is_evaluator_or_none() RETURNS boolean
LANGUAGE sql STABLE AS $$
  SELECT app.ctx('app.current_ai_view') IS NULL OR app.ctx('app.current_ai_view') = 'evaluator'
$$;

-- layer 2: learner = own, faculty/teacher = own cohort, researcher/admin = all, else none
CREATE OR REPLACE FUNCTION app.human_is_all() RETURNS boolean
LANGUAGE sql STABLE AS $$
  SELECT app.ctx('app.current_role') IS NULL OR app.ctx('app.current_role') IN ('researcher', 'admin')
$$;

CREATE OR REPLACE FUNCTION app.human_may_see_session(sid text) RETURNS boolean
LANGUAGE sql STABLE AS $$
  SELECT CASE
    WHEN app.human_is_all() THEN true
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
    WHEN app.human_is_all() THEN true
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
    WHEN app.human_is_all() THEN true
    WHEN app.ctx('app.current_role') = 'learner' THEN lid = app.ctx('app.current_uid')
    WHEN app.ctx('app.current_role') IN ('faculty', 'teacher') THEN EXISTS (
      SELECT 1 FROM app.app_user u
      WHERE u.user_id = lid AND u.cohort = app.ctx('app.current_cohort'))
    ELSE false
  END
$$;

-- owner rows of sessions / case_profile / app_user (no self-reference: a policy may not query
-- its own table)
CREATE OR REPLACE FUNCTION app.human_owns(lid text, coh text) RETURNS boolean
LANGUAGE sql STABLE AS $$
  SELECT CASE
    WHEN app.human_is_all() THEN true
    WHEN app.ctx('app.current_role') = 'learner' THEN lid = app.ctx('app.current_uid')
    WHEN app.ctx('app.current_role') IN ('faculty', 'teacher') THEN coh = app.ctx('app.current_cohort')
    ELSE false
  END
$$;

CREATE OR REPLACE FUNCTION app.is_learner() RETURNS boolean
LANGUAGE sql STABLE AS $$ SELECT COALESCE(app.ctx('app.current_role'), '') = 'learner' $$;

-- one policy per table: (table, USING expression[, WITH CHECK expression])
DO $$
DECLARE
  p record;
BEGIN
  FOR p IN SELECT * FROM (VALUES
    ('app', 'sessions', 'app.human_owns(learner_id, cohort)', NULL),
    ('app', 'session_state', 'app.human_may_see_session(session_id)', NULL),
    ('app', 'turns', 'app.ai_may_see(visible_to, sensitivity) AND app.human_may_see_session(session_id)', NULL),
    ('app', 'turn_evaluation',
     'app.ai_may_see(visible_to, sensitivity) AND NOT app.is_learner() AND app.human_may_see_session(session_id)',
     'app.ai_may_see(visible_to, sensitivity) AND app.human_may_see_session(session_id)'),
    ('app', 'session_evaluation', 'app.human_may_see_session(session_id)', NULL),
    ('app', 'session_summary', 'app.human_may_see_session(session_id)', NULL),
    ('app', 'case_profile',
     'app.human_is_all() OR (app.is_learner() AND learner_id = app.ctx(''app.current_uid'')) OR '
     '(app.ctx(''app.current_role'') IN (''faculty'', ''teacher'') AND EXISTS (SELECT 1 FROM app.sessions s '
     'WHERE s.case_id = case_profile.case_id AND s.cohort = app.ctx(''app.current_cohort'')))', NULL),
    ('app', 'pinned_fact', 'app.ai_may_see(visible_to, sensitivity) AND app.human_may_see_case(case_id)', NULL),
    ('app', 'pinned_fact_history', 'app.human_may_see_case(case_id)', NULL),
    ('app', 'live_coach_events', 'app.human_may_see_session(session_id)', NULL),
    ('app', 'safety_events', 'app.human_may_see_session(session_id)', NULL),
    ('app', 'learner_profile', 'app.human_may_see_learner(learner_id)', NULL),
    ('app', 'turn_embedding', 'app.human_may_see_learner(learner_id) AND app.human_may_see_case(case_id)', NULL),
    ('app', 'app_user',
     'app.human_is_all() OR (app.is_learner() AND user_id = app.ctx(''app.current_uid'')) OR '
     '(app.ctx(''app.current_role'') IN (''faculty'', ''teacher'') AND cohort = app.ctx(''app.current_cohort''))',
     NULL),
    ('kb', 'chunk', 'app.ai_may_see(visible_to, sensitivity::smallint)', 'app.ctx(''app.current_ai_view'') IS NULL'),
    ('kb', 'source', 'app.ai_may_see(visible_to, sensitivity::smallint)', 'app.ctx(''app.current_ai_view'') IS NULL'),
    ('ds', 'dataset_item', 'learner_id IS NULL OR app.human_may_see_learner(learner_id)', NULL)
  ) AS t(sch, tbl, using_expr, check_expr) LOOP
    CONTINUE WHEN to_regclass(format('%I.%I', p.sch, p.tbl)) IS NULL;
    EXECUTE format('ALTER TABLE %I.%I ENABLE ROW LEVEL SECURITY', p.sch, p.tbl);
    EXECUTE format('ALTER TABLE %I.%I FORCE ROW LEVEL SECURITY', p.sch, p.tbl);
    EXECUTE format('DROP POLICY IF EXISTS %I ON %I.%I', p.tbl || '_access', p.sch, p.tbl);
    EXECUTE format('CREATE POLICY %I ON %I.%I USING (%s) WITH CHECK (%s)', p.tbl || '_access', p.sch, p.tbl,
                   p.using_expr, COALESCE(p.check_expr, p.using_expr));
  END LOOP;
  -- kb.postgres.sql's own policies read forgeable settings; these replace them
  IF to_regclass('kb.chunk') IS NOT NULL THEN
    DROP POLICY IF EXISTS kb_chunk_ai_view ON kb.chunk;
    DROP POLICY IF EXISTS kb_chunk_write ON kb.chunk;
  END IF;
END $$;

-- privileges: none by default; store.schema then runs the grants generated from store/access.py
REVOKE ALL ON ALL TABLES IN SCHEMA app, kb, audit, ds
  FROM vignette_client, vignette_counselor, vignette_evaluator, vignette_learner, vignette_faculty,
       vignette_researcher;
GRANT USAGE ON SCHEMA app, kb, audit, ds TO vignette_client, vignette_counselor, vignette_evaluator,
  vignette_learner, vignette_faculty, vignette_researcher;
GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA app, kb, audit, ds TO vignette_client, vignette_counselor,
  vignette_evaluator, vignette_learner, vignette_faculty, vignette_researcher;
GRANT EXECUTE ON FUNCTION app.ctx(text) TO vignette_client, vignette_counselor, vignette_evaluator,
  vignette_learner, vignette_faculty, vignette_researcher;

-- vignette_app (kept for existing deployments and `doctor`): no longer entered by the store
GRANT USAGE ON SCHEMA app, kb, audit, ds TO vignette_app;
