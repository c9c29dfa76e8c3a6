-- app schema (seed 001 §5.1, seed 004 §3), one template for DuckDB and PostgreSQL. Idempotent.
-- store/schema.py renders the placeholders: {json}, {double}, {vector}, {array:a,b} (a TEXT[]
-- default) and {fk:schema.table(column)} (a foreign key, same on both backends; no ON DELETE
-- CASCADE, which DuckDB lacks: delete children first). Postgres-only extras: app.postgres.sql.
-- Ids are TEXT (uuid4 strings made in Python; users are plain ids such as 'local').
-- Append-only tables (app.turns, *_history): Postgres enforces it by trigger; on DuckDB no
-- repository function updates them.
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
  content      {json} NOT NULL,
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
  card             {json} NOT NULL,
  ccd              {json},
  dsm5_dimensional {json},
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
  ccd_estimate       {json} NOT NULL DEFAULT '{}',
  presenting_arc     {json} NOT NULL DEFAULT '[]',
  rapport_trajectory {json} NOT NULL DEFAULT '[]',
  alliance_level     {double} DEFAULT 0.2,
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
  goal_stages       {json},
  session_no        INTEGER NOT NULL DEFAULT 1 CHECK (session_no >= 1),
  status            TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active','ended','aborted')),
  started_at        TIMESTAMPTZ NOT NULL DEFAULT now(),
  ended_at          TIMESTAMPTZ,
  duration_limit_s  INTEGER,
  warning_before_s  INTEGER,
  grace_s           INTEGER,
  seed              BIGINT,
  review_status     TEXT NOT NULL DEFAULT 'none' CHECK (review_status IN ('none','pending','ready','degraded')),
  meta              {json}
);

-- memory ① WORKING: one checkpoint row per session, upserted every turn
CREATE TABLE IF NOT EXISTS app.session_state (
  session_id          TEXT PRIMARY KEY {fk:app.sessions(session_id)},
  stage               TEXT NOT NULL DEFAULT '라포' CHECK (stage IN ('라포','탐색','개입','정리')),
  turn_seq            INTEGER NOT NULL DEFAULT 0,
  effective_openness  {double} NOT NULL DEFAULT 0.15 CHECK (effective_openness BETWEEN 0 AND 1),
  rapport_credit      {double} NOT NULL DEFAULT 0.0,
  resistance          {double} NOT NULL DEFAULT 0.65 CHECK (resistance BETWEEN 0 AND 1),
  -- the DB allows the clinical 1-5 range; the simulation caps at 3 in core.state
  ideation_stage      SMALLINT NOT NULL DEFAULT 1 CHECK (ideation_stage BETWEEN 1 AND 5),
  affect_state        {json} NOT NULL DEFAULT '{}',
  short_buffer        {json} NOT NULL DEFAULT '[]',
  recall_context      {json},
  coach_credits       INTEGER NOT NULL DEFAULT 0,
  prev_rapport_credit {double},
  updated_at          TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- memory ② EPISODIC, append-only
CREATE TABLE IF NOT EXISTS app.turns (
  turn_id            TEXT PRIMARY KEY,
  session_id         TEXT NOT NULL {fk:app.sessions(session_id)},
  case_id            TEXT,
  seq                INTEGER NOT NULL,
  speaker            TEXT NOT NULL CHECK (speaker IN ('counselor','client')),
  text               TEXT NOT NULL,
  text_masked        TEXT NOT NULL,
  visible_to         TEXT[] NOT NULL DEFAULT {array:client,counselor,evaluator},
  sensitivity        SMALLINT NOT NULL DEFAULT 0 CHECK (sensitivity BETWEEN 0 AND 3),
  salience           {double} DEFAULT 0.0,
  is_pinned          BOOLEAN DEFAULT FALSE,
  intended_technique TEXT,
  state_after        {json},
  safety             {json},
  supersedes         TEXT,
  created_at         TIMESTAMPTZ NOT NULL DEFAULT now(),
  UNIQUE (session_id, seq)
);

CREATE TABLE IF NOT EXISTS app.turn_evaluation (
  eval_id          TEXT PRIMARY KEY,
  turn_id          TEXT NOT NULL {fk:app.turns(turn_id)},
  session_id       TEXT NOT NULL,
  techniques       TEXT[] NOT NULL DEFAULT {array:},
  client_state     TEXT[] NOT NULL DEFAULT {array:},
  appropriateness  TEXT CHECK (appropriateness IS NULL OR appropriateness IN ('pos','warn','neutral')),
  intent_deviation {json},
  rapport_signal   {double},
  scores           {json},
  error            TEXT,
  engine           TEXT,
  visible_to       TEXT[] NOT NULL DEFAULT {array:evaluator},
  sensitivity      SMALLINT NOT NULL DEFAULT 2 CHECK (sensitivity BETWEEN 0 AND 3),
  created_at       TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE TABLE IF NOT EXISTS app.session_evaluation (
  session_id             TEXT PRIMARY KEY {fk:app.sessions(session_id)},
  status                 TEXT NOT NULL CHECK (status IN ('ok','error')),
  technique_distribution {json},
  strengths              {json},
  improvements           {json},
  rationale              TEXT,
  alternatives           {json},
  checklist              {json},
  error                  TEXT,
  engine                 TEXT,
  created_at             TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- memory ③ SUMMARY: (A) lossless end_state carry-over, (B) lossy digest
CREATE TABLE IF NOT EXISTS app.session_summary (
  session_id    TEXT PRIMARY KEY {fk:app.sessions(session_id)},
  case_id       TEXT NOT NULL,
  session_no    INTEGER NOT NULL,
  end_state     {json} NOT NULL,
  rapport_delta {double},
  digest        TEXT NOT NULL,
  open_threads  {json} NOT NULL DEFAULT '[]',
  homework      {json},
  compressed_by TEXT,
  created_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
  UNIQUE (case_id, session_no)
);

-- memory ④ SEMANTIC. Counselor AI never sees pinned facts (seed 004 §4.2), hence the default.
CREATE TABLE IF NOT EXISTS app.pinned_fact (
  id                 TEXT PRIMARY KEY,
  case_id            TEXT NOT NULL {fk:app.case_profile(case_id)},
  key                TEXT NOT NULL,
  value              TEXT NOT NULL,
  fact_type          TEXT NOT NULL CHECK (fact_type IN ('identity','history','relationship','clinical','agreement')),
  status             TEXT NOT NULL DEFAULT 'stable' CHECK (status IN ('stable','evolving','contradicted','locked')),
  source_turn        TEXT,
  confidence         {double} NOT NULL DEFAULT 1.0 CHECK (confidence BETWEEN 0 AND 1),
  version            INTEGER NOT NULL DEFAULT 1,
  updated_session_no INTEGER,
  visible_to         TEXT[] NOT NULL DEFAULT {array:client,evaluator},
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
  payload         {json},
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
  detail     {json},
  created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE TABLE IF NOT EXISTS app.learner_profile (
  learner_id      TEXT PRIMARY KEY,
  dim_ewma        {json} NOT NULL DEFAULT '{}',
  dim_slope       {json} NOT NULL DEFAULT '{}',
  persistent_gaps {json} DEFAULT '[]',
  session_count   INTEGER NOT NULL DEFAULT 0,
  updated_at      TIMESTAMPTZ NOT NULL DEFAULT now()
);
