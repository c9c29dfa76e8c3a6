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

-- Sets of ids the human principal may see, computed once per query (the context is read once
-- in the CTE). Under RLS themselves, so they only ever narrow.
CREATE OR REPLACE FUNCTION app.visible_session_ids() RETURNS SETOF text
LANGUAGE sql STABLE AS $$
  WITH c AS (SELECT app.ctx('app.current_role') AS r, app.ctx('app.current_uid') AS u,
                    app.ctx('app.current_cohort') AS co)
  SELECT s.session_id FROM app.sessions s, c
  WHERE (c.r = 'learner' AND s.learner_id = c.u) OR (c.r IN ('faculty', 'teacher') AND s.cohort = c.co)
$$;

CREATE OR REPLACE FUNCTION app.visible_case_ids() RETURNS SETOF text
LANGUAGE sql STABLE AS $$
  WITH c AS (SELECT app.ctx('app.current_role') AS r, app.ctx('app.current_uid') AS u,
                    app.ctx('app.current_cohort') AS co)
  SELECT p.case_id FROM app.case_profile p, c WHERE c.r = 'learner' AND p.learner_id = c.u
  UNION
  SELECT s.case_id FROM app.sessions s, c
  WHERE c.r IN ('faculty', 'teacher') AND s.cohort = c.co AND s.case_id IS NOT NULL
$$;

CREATE OR REPLACE FUNCTION app.visible_learner_ids() RETURNS SETOF text
LANGUAGE sql STABLE AS $$
  WITH c AS (SELECT app.ctx('app.current_role') AS r, app.ctx('app.current_uid') AS u,
                    app.ctx('app.current_cohort') AS co)
  SELECT c.u FROM c WHERE c.r = 'learner'
  UNION
  SELECT a.user_id FROM app.app_user a, c WHERE c.r IN ('faculty', 'teacher') AND a.cohort = c.co
$$;

-- One policy per table: (table, USING expression[, WITH CHECK expression]). Tokens are
-- replaced below by scalar sub-selects, which PostgreSQL evaluates once per query (InitPlan)
-- instead of once per row:
--   {V} view  {S} sensitivity max  {R} human role  {U} uid  {C} cohort
--   {ALL} no human principal, or researcher/admin      {AI} layer 1 on visible_to/sensitivity
--   {SESS} {CASE} {LEARNER} the session_id / case_id / learner_id column is the principal's
DO $$
DECLARE
  p record;
  expr text;
  chk text;
  tokens text[][] := ARRAY[
    ['{SESS}', '({ALL} OR session_id IN (SELECT app.visible_session_ids()))'],
    ['{CASE}', '({ALL} OR case_id IN (SELECT app.visible_case_ids()))'],
    ['{LEARNER}', '({ALL} OR learner_id IN (SELECT app.visible_learner_ids()))'],
    ['{ALL}', '({R} IS NULL OR {R} IN (''researcher'', ''admin''))'],
    ['{AI}', '({V} IS NULL OR ({V} = ANY(visible_to) AND sensitivity <= COALESCE({S}, 0)))'],
    ['{V}', '(SELECT app.ctx(''app.current_ai_view''))'],
    ['{S}', '(SELECT app.ctx(''app.current_sens_max''))::int'],
    ['{R}', '(SELECT app.ctx(''app.current_role''))'],
    ['{U}', '(SELECT app.ctx(''app.current_uid''))'],
    ['{C}', '(SELECT app.ctx(''app.current_cohort''))']];
  i int;
BEGIN
  FOR p IN SELECT * FROM (VALUES
    ('app', 'sessions',
     '{ALL} OR ({R} = ''learner'' AND learner_id = {U}) OR ({R} IN (''faculty'', ''teacher'') AND cohort = {C})',
     NULL),
    ('app', 'session_state', '{SESS}', NULL),
    ('app', 'turns', '{AI} AND {SESS}', NULL),
    ('app', 'turn_evaluation', '{AI} AND COALESCE({R}, '''') <> ''learner'' AND {SESS}', '{AI} AND {SESS}'),
    ('app', 'session_evaluation', '{SESS}', NULL),
    ('app', 'session_summary', '{SESS}', NULL),
    ('app', 'case_profile',
     '{ALL} OR ({R} = ''learner'' AND learner_id = {U}) OR ({R} IN (''faculty'', ''teacher'') AND '
     'case_id IN (SELECT s.case_id FROM app.sessions s WHERE s.cohort = {C}))', NULL),
    ('app', 'pinned_fact', '{AI} AND {CASE}', NULL),
    ('app', 'pinned_fact_history', '{CASE}', NULL),
    ('app', 'live_coach_events', '{SESS}', NULL),
    ('app', 'safety_events', '{SESS}', NULL),
    ('app', 'learner_profile', '{LEARNER}', NULL),
    ('app', 'turn_embedding', '{LEARNER} AND {CASE}', NULL),
    ('app', 'app_user',
     '{ALL} OR ({R} = ''learner'' AND user_id = {U}) OR ({R} IN (''faculty'', ''teacher'') AND cohort = {C})',
     NULL),
    ('kb', 'chunk', '{AI}', '{V} IS NULL'),
    ('kb', 'source', '{AI}', '{V} IS NULL'),
    ('ds', 'dataset_item', 'learner_id IS NULL OR {LEARNER}', NULL)
  ) AS t(sch, tbl, using_expr, check_expr) LOOP
    CONTINUE WHEN to_regclass(format('%I.%I', p.sch, p.tbl)) IS NULL;
    expr := p.using_expr;
    chk := COALESCE(p.check_expr, p.using_expr);
    FOR i IN 1 .. array_length(tokens, 1) LOOP
      expr := replace(expr, tokens[i][1], tokens[i][2]);
      chk := replace(chk, tokens[i][1], tokens[i][2]);
    END LOOP;
    EXECUTE format('ALTER TABLE %I.%I ENABLE ROW LEVEL SECURITY', p.sch, p.tbl);
    EXECUTE format('ALTER TABLE %I.%I FORCE ROW LEVEL SECURITY', p.sch, p.tbl);
    EXECUTE format('DROP POLICY IF EXISTS %I ON %I.%I', p.tbl || '_access', p.sch, p.tbl);
    EXECUTE format('CREATE POLICY %I ON %I.%I USING (%s) WITH CHECK (%s)', p.tbl || '_access', p.sch, p.tbl,
                   expr, chk);
  END LOOP;
  -- kb.postgres.sql's own policies read forgeable settings; these replace them
  IF to_regclass('kb.chunk') IS NOT NULL THEN
    DROP POLICY IF EXISTS kb_chunk_ai_view ON kb.chunk;
    DROP POLICY IF EXISTS kb_chunk_write ON kb.chunk;
  END IF;
END $$;

-- helpers of the previous version (per-row functions, replaced by the InitPlan policies above)
DROP FUNCTION IF EXISTS app.ai_may_see(text[], smallint);
DROP FUNCTION IF EXISTS app.ai_is_evaluator_or_none();
DROP FUNCTION IF EXISTS app.human_may_see_session(text);
DROP FUNCTION IF EXISTS app.human_may_see_case(text);
DROP FUNCTION IF EXISTS app.human_may_see_learner(text);
DROP FUNCTION IF EXISTS app.human_owns(text, text);
DROP FUNCTION IF EXISTS app.human_is_all();
DROP FUNCTION IF EXISTS app.is_learner();

-- privileges: none by default; store.schema then runs the grants generated from store/access.py
REVOKE ALL ON ALL TABLES IN SCHEMA app, kb, audit, ds
  FROM vignette_client, vignette_counselor, vignette_evaluator, vignette_learner, vignette_faculty,
       vignette_researcher;
GRANT USAGE ON SCHEMA app, kb, audit, ds TO vignette_client, vignette_counselor, vignette_evaluator,
  vignette_learner, vignette_faculty, vignette_researcher;
GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA app, kb, audit, ds TO vignette_client, vignette_counselor,
  vignette_evaluator, vignette_learner, vignette_faculty, vignette_researcher;
GRANT EXECUTE ON FUNCTION app.ctx(text), app.visible_session_ids(), app.visible_case_ids(),
  app.visible_learner_ids() TO vignette_client, vignette_counselor, vignette_evaluator,
  vignette_learner, vignette_faculty, vignette_researcher;

-- vignette_app (kept for existing deployments and `doctor`): no longer entered by the store
GRANT USAGE ON SCHEMA app, kb, audit, ds TO vignette_app;
