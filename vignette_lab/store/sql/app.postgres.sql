-- app schema, PostgreSQL 16 dialect (seed 001 §5.1, seed 004 §3). Idempotent.
-- Ids are TEXT (uuid4 strings made in Python; users are plain ids such as 'local').
-- Same columns as app.duckdb.sql; Postgres adds foreign keys, indexes and the
-- append-only triggers at the end of this file. RLS lives in rls.postgres.sql.
CREATE EXTENSION IF NOT EXISTS vector;
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'pg_trgm') THEN
    CREATE EXTENSION IF NOT EXISTS pg_trgm;
  END IF;
END $$;
CREATE SCHEMA IF NOT EXISTS app;
CREATE SCHEMA IF NOT EXISTS kb;
CREATE SCHEMA IF NOT EXISTS audit;
CREATE SCHEMA IF NOT EXISTS ds;

CREATE TABLE IF NOT EXISTS app.schema_meta (
  key         TEXT PRIMARY KEY,
  value       TEXT NOT NULL,
  updated_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE TABLE IF NOT EXISTS app.taxonomy_version (
  version      TEXT PRIMARY KEY,
  content      JSONB NOT NULL,
  content_hash TEXT NOT NULL,
  loaded_at    TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE TABLE IF NOT EXISTS app.app_user (
  user_id       TEXT PRIMARY KEY,
  role          TEXT NOT NULL CHECK (role IN ('learner','trainee','faculty','teacher','researcher','admin')),
  cohort        TEXT,
  display_name  TEXT,
  password_hash TEXT,
  created_at    TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE TABLE IF NOT EXISTS app.persona_card (
  persona_id       TEXT PRIMARY KEY,
  code             TEXT NOT NULL,
  version          INTEGER NOT NULL DEFAULT 1 CHECK (version >= 1),
  status           TEXT NOT NULL DEFAULT 'draft' CHECK (status IN ('draft','review','approved','archived')),
  display_name     TEXT NOT NULL,
  difficulty       TEXT CHECK (difficulty IS NULL OR difficulty IN ('easy','moderate','hard')),
  theory_target    TEXT[],
  card             JSONB NOT NULL,
  ccd              JSONB,
  dsm5_dimensional JSONB,
  content_hash     TEXT NOT NULL,
  is_synthetic     BOOLEAN NOT NULL DEFAULT TRUE,
  created_at       TIMESTAMPTZ NOT NULL DEFAULT now(),
  UNIQUE (code, version)
);

CREATE TABLE IF NOT EXISTS app.case_profile (
  case_id            TEXT PRIMARY KEY,
  persona_code       TEXT NOT NULL,
  learner_id         TEXT NOT NULL,
  last_session_no    INTEGER NOT NULL DEFAULT 0,
  ccd_estimate       JSONB NOT NULL DEFAULT '{}',
  presenting_arc     JSONB NOT NULL DEFAULT '[]',
  rapport_trajectory JSONB NOT NULL DEFAULT '[]',
  alliance_level     DOUBLE PRECISION DEFAULT 0.2,
  case_digest        TEXT NOT NULL DEFAULT '',
  updated_at         TIMESTAMPTZ NOT NULL DEFAULT now(),
  UNIQUE (persona_code, learner_id)
);

CREATE TABLE IF NOT EXISTS app.sessions (
  session_id        TEXT PRIMARY KEY,
  case_id           TEXT,
  learner_id        TEXT NOT NULL,
  cohort            TEXT,
  persona_id        TEXT,
  persona_code      TEXT NOT NULL,
  persona_version   INTEGER,
  mode              TEXT NOT NULL DEFAULT 'live' CHECK (mode IN ('live','selfplay')),
  counselor_profile TEXT,
  engine            TEXT,
  model             TEXT,
  theory_mode       TEXT,
  goal_stages       JSONB,
  session_no        INTEGER NOT NULL DEFAULT 1 CHECK (session_no >= 1),
  status            TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active','ended','aborted')),
  started_at        TIMESTAMPTZ NOT NULL DEFAULT now(),
  ended_at          TIMESTAMPTZ,
  duration_limit_s  INTEGER,
  warning_before_s  INTEGER,
  grace_s           INTEGER,
  seed              BIGINT,
  review_status     TEXT NOT NULL DEFAULT 'none' CHECK (review_status IN ('none','pending','ready','degraded')),
  meta              JSONB
);

-- memory ① WORKING: one checkpoint row per session, upserted every turn
CREATE TABLE IF NOT EXISTS app.session_state (
  session_id          TEXT PRIMARY KEY REFERENCES app.sessions(session_id) ON DELETE CASCADE,
  stage               TEXT NOT NULL DEFAULT '라포' CHECK (stage IN ('라포','탐색','개입','정리')),
  turn_seq            INTEGER NOT NULL DEFAULT 0,
  effective_openness  DOUBLE PRECISION NOT NULL DEFAULT 0.15 CHECK (effective_openness BETWEEN 0 AND 1),
  rapport_credit      DOUBLE PRECISION NOT NULL DEFAULT 0.0,
  resistance          DOUBLE PRECISION NOT NULL DEFAULT 0.65 CHECK (resistance BETWEEN 0 AND 1),
  -- the DB allows the clinical 1-5 range; the simulation caps at 3 in core.state
  ideation_stage      SMALLINT NOT NULL DEFAULT 1 CHECK (ideation_stage BETWEEN 1 AND 5),
  affect_state        JSONB NOT NULL DEFAULT '{}',
  short_buffer        JSONB NOT NULL DEFAULT '[]',
  recall_context      JSONB,
  coach_credits       INTEGER NOT NULL DEFAULT 0,
  prev_rapport_credit DOUBLE PRECISION,
  updated_at          TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- memory ② EPISODIC, append-only
CREATE TABLE IF NOT EXISTS app.turns (
  turn_id            TEXT PRIMARY KEY,
  session_id         TEXT NOT NULL REFERENCES app.sessions(session_id),
  case_id            TEXT,
  seq                INTEGER NOT NULL,
  speaker            TEXT NOT NULL CHECK (speaker IN ('counselor','client')),
  text               TEXT NOT NULL,
  text_masked        TEXT NOT NULL,
  visible_to         TEXT[] NOT NULL DEFAULT '{client,counselor,evaluator}',
  sensitivity        SMALLINT NOT NULL DEFAULT 0 CHECK (sensitivity BETWEEN 0 AND 3),
  salience           DOUBLE PRECISION DEFAULT 0.0,
  is_pinned          BOOLEAN DEFAULT FALSE,
  intended_technique TEXT,
  state_after        JSONB,
  safety             JSONB,
  supersedes         TEXT,
  created_at         TIMESTAMPTZ NOT NULL DEFAULT now(),
  UNIQUE (session_id, seq)
);

CREATE TABLE IF NOT EXISTS app.turn_evaluation (
  eval_id          TEXT PRIMARY KEY,
  turn_id          TEXT NOT NULL REFERENCES app.turns(turn_id),
  session_id       TEXT NOT NULL,
  techniques       TEXT[] NOT NULL DEFAULT '{}',
  client_state     TEXT[] NOT NULL DEFAULT '{}',
  appropriateness  TEXT CHECK (appropriateness IS NULL OR appropriateness IN ('pos','warn','neutral')),
  intent_deviation JSONB,
  rapport_signal   DOUBLE PRECISION,
  scores           JSONB,
  error            TEXT,
  engine           TEXT,
  visible_to       TEXT[] NOT NULL DEFAULT '{evaluator}',
  sensitivity      SMALLINT NOT NULL DEFAULT 2 CHECK (sensitivity BETWEEN 0 AND 3),
  created_at       TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE TABLE IF NOT EXISTS app.session_evaluation (
  session_id             TEXT PRIMARY KEY REFERENCES app.sessions(session_id),
  status                 TEXT NOT NULL CHECK (status IN ('ok','error')),
  technique_distribution JSONB,
  strengths              JSONB,
  improvements           JSONB,
  rationale              TEXT,
  alternatives           JSONB,
  checklist              JSONB,
  error                  TEXT,
  engine                 TEXT,
  created_at             TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- memory ③ SUMMARY: (A) lossless end_state carry-over, (B) lossy digest
CREATE TABLE IF NOT EXISTS app.session_summary (
  session_id    TEXT PRIMARY KEY REFERENCES app.sessions(session_id),
  case_id       TEXT NOT NULL,
  session_no    INTEGER NOT NULL,
  end_state     JSONB NOT NULL,
  rapport_delta DOUBLE PRECISION,
  digest        TEXT NOT NULL,
  open_threads  JSONB NOT NULL DEFAULT '[]',
  homework      JSONB,
  compressed_by TEXT,
  created_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
  UNIQUE (case_id, session_no)
);

-- memory ④ SEMANTIC. Counselor AI never sees pinned facts (seed 004 §4.2), hence the default.
CREATE TABLE IF NOT EXISTS app.pinned_fact (
  id                 TEXT PRIMARY KEY,
  case_id            TEXT NOT NULL REFERENCES app.case_profile(case_id) ON DELETE CASCADE,
  key                TEXT NOT NULL,
  value              TEXT NOT NULL,
  fact_type          TEXT NOT NULL CHECK (fact_type IN ('identity','history','relationship','clinical','agreement')),
  status             TEXT NOT NULL DEFAULT 'stable' CHECK (status IN ('stable','evolving','contradicted','locked')),
  source_turn        TEXT,
  confidence         DOUBLE PRECISION NOT NULL DEFAULT 1.0 CHECK (confidence BETWEEN 0 AND 1),
  version            INTEGER NOT NULL DEFAULT 1,
  updated_session_no INTEGER,
  visible_to         TEXT[] NOT NULL DEFAULT '{client,evaluator}',
  sensitivity        SMALLINT NOT NULL DEFAULT 1 CHECK (sensitivity BETWEEN 0 AND 3),
  updated_at         TIMESTAMPTZ NOT NULL DEFAULT now(),
  UNIQUE (case_id, key)
);

CREATE TABLE IF NOT EXISTS app.pinned_fact_history (
  id         TEXT PRIMARY KEY,
  fact_id    TEXT NOT NULL,
  case_id    TEXT NOT NULL,
  old_value  TEXT,
  new_value  TEXT,
  reason     TEXT,
  session_no INTEGER,
  turn_id    TEXT,
  created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE TABLE IF NOT EXISTS app.live_coach_events (
  event_id        TEXT PRIMARY KEY,
  session_id      TEXT NOT NULL,
  turn_seq        INTEGER,
  event_type      TEXT NOT NULL CHECK (event_type IN ('use','recharge')),
  credit_delta    INTEGER NOT NULL,
  credit_balance  INTEGER NOT NULL CHECK (credit_balance >= 0),
  reason          TEXT,
  payload         JSONB,
  learner_excerpt TEXT,
  client_excerpt  TEXT,
  created_at      TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE TABLE IF NOT EXISTS app.safety_events (
  event_id   TEXT PRIMARY KEY,
  session_id TEXT NOT NULL,
  turn_seq   INTEGER,
  kind       TEXT NOT NULL,
  escalated  BOOLEAN NOT NULL DEFAULT FALSE,
  detail     JSONB,
  created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE TABLE IF NOT EXISTS app.learner_profile (
  learner_id      TEXT PRIMARY KEY,
  dim_ewma        JSONB NOT NULL DEFAULT '{}',
  dim_slope       JSONB NOT NULL DEFAULT '{}',
  persistent_gaps JSONB DEFAULT '[]',
  session_count   INTEGER NOT NULL DEFAULT 0,
  updated_at      TIMESTAMPTZ NOT NULL DEFAULT now()
);

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
