-- ds schema (data-set pipeline), one template for both backends. Idempotent: run after app/kb.
-- Status rule (DESIGN rule 5): an AI annotation is only ever 'proposed' (CHECK below).
-- ds.annotation is append-only (ds.postgres.sql adds the refusing trigger on Postgres).
CREATE SCHEMA IF NOT EXISTS ds;

CREATE TABLE IF NOT EXISTS ds.dataset (
    dataset_id       TEXT PRIMARY KEY,
    name             TEXT NOT NULL,
    source           TEXT NOT NULL CHECK (source IN ('sessions', 'import')),
    filters          {json},
    context_turns    INTEGER NOT NULL DEFAULT 4,
    item_count       INTEGER NOT NULL DEFAULT 0,
    created_by       TEXT NOT NULL DEFAULT 'local',
    created_at       TIMESTAMPTZ NOT NULL,
    scheme_name      TEXT,
    scheme_version   TEXT,
    scheme_sha256    TEXT
);

CREATE TABLE IF NOT EXISTS ds.dataset_item (
    item_id            TEXT PRIMARY KEY,
    dataset_id         TEXT NOT NULL {fk:ds.dataset(dataset_id)},
    session_id         TEXT NOT NULL,
    seq                INTEGER NOT NULL,
    context            {json} NOT NULL,
    counselor_text     TEXT NOT NULL,
    client_reply       TEXT,
    persona_code       TEXT,
    learner_id         TEXT,
    intended_technique TEXT,
    created_at         TIMESTAMPTZ NOT NULL,
    speaker            TEXT NOT NULL DEFAULT 'counselor' CHECK (speaker IN ('counselor', 'client')),
    meta               {json},
    UNIQUE (dataset_id, session_id, seq)
);

CREATE TABLE IF NOT EXISTS ds.annotation_round (
    round_id          TEXT PRIMARY KEY,
    dataset_id        TEXT NOT NULL {fk:ds.dataset(dataset_id)},
    kind              TEXT NOT NULL CHECK (kind IN ('ai_auto', 'human_review', 'adjudication')),
    annotator_kind    TEXT NOT NULL CHECK (annotator_kind IN ('ai', 'human')),
    engine            TEXT,
    model             TEXT,
    taxonomy_version  TEXT,
    status            TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'closed')),
    config            {json},
    created_at        TIMESTAMPTZ NOT NULL,
    closed_at         TIMESTAMPTZ
);

CREATE TABLE IF NOT EXISTS ds.reviewer_assignment (
    round_id     TEXT NOT NULL {fk:ds.annotation_round(round_id)},
    item_id      TEXT NOT NULL {fk:ds.dataset_item(item_id)},
    reviewer_id  TEXT NOT NULL,
    position     INTEGER NOT NULL,
    assigned_at  TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (round_id, item_id, reviewer_id)
);

-- Append-only: a correction is a new row whose `supersedes` names the old one.
-- One current annotation per (round, item, annotator): every row carries the version of its
-- triple and the unique index ds_annotation_version_key refuses a second row of the same
-- version (a lost save race fails at COMMIT instead of forking); the current row is the
-- triple's highest version. Issue 14 item 5.
CREATE TABLE IF NOT EXISTS ds.annotation (
    annotation_id     TEXT PRIMARY KEY,
    round_id          TEXT NOT NULL {fk:ds.annotation_round(round_id)},
    item_id           TEXT NOT NULL {fk:ds.dataset_item(item_id)},
    annotator_id      TEXT NOT NULL,
    annotator_kind    TEXT NOT NULL CHECK (annotator_kind IN ('ai', 'human')),
    status            TEXT NOT NULL
        CHECK (status IN ('proposed', 'submitted', 'accepted', 'rejected', 'superseded')),
    techniques        TEXT[] NOT NULL,
    client_state      TEXT[] NOT NULL,
    appropriateness   TEXT CHECK (appropriateness IN ('pos', 'warn', 'neutral')),
    intent_deviation  {json},
    scores            {json},
    rationale         TEXT,
    time_spent_s      {double},
    labels            {json},
    supersedes        TEXT {fk:ds.annotation(annotation_id)},
    created_at        TIMESTAMPTZ NOT NULL,
    version           INTEGER NOT NULL DEFAULT 1 CHECK (version >= 1),
    CONSTRAINT ai_only_proposed CHECK (annotator_kind <> 'ai' OR status = 'proposed')
);

CREATE TABLE IF NOT EXISTS ds.adjudication (
    adjudication_id  TEXT PRIMARY KEY,
    item_id          TEXT NOT NULL {fk:ds.dataset_item(item_id)},
    round_id         TEXT NOT NULL {fk:ds.annotation_round(round_id)},
    adjudicator_id   TEXT NOT NULL,
    decision         {json} NOT NULL,
    resolves         TEXT[] NOT NULL,
    created_at       TIMESTAMPTZ NOT NULL
);

CREATE TABLE IF NOT EXISTS ds.gate_decision (
    gate_id          TEXT PRIMARY KEY,
    round_id         TEXT NOT NULL {fk:ds.annotation_round(round_id)},
    thresholds       {json} NOT NULL,
    results          {json} NOT NULL,
    passed           BOOLEAN NOT NULL,
    override_reason  TEXT,
    decided_by       TEXT NOT NULL,
    created_at       TIMESTAMPTZ NOT NULL
);

CREATE TABLE IF NOT EXISTS ds.golden_set (
    golden_id         TEXT PRIMARY KEY,
    dataset_id        TEXT NOT NULL {fk:ds.dataset(dataset_id)},
    version           INTEGER NOT NULL,
    frozen_at         TIMESTAMPTZ NOT NULL,
    gate_id           TEXT {fk:ds.gate_decision(gate_id)},
    taxonomy_version  TEXT,
    item_count        INTEGER NOT NULL,
    UNIQUE (dataset_id, version)
);

CREATE TABLE IF NOT EXISTS ds.golden_item (
    golden_id           TEXT NOT NULL {fk:ds.golden_set(golden_id)},
    item_id             TEXT NOT NULL,
    labels              {json} NOT NULL,
    source              TEXT NOT NULL CHECK (source IN ('agreed', 'adjudicated')),
    source_annotations  TEXT[] NOT NULL,
    PRIMARY KEY (golden_id, item_id)
);

CREATE TABLE IF NOT EXISTS ds.export_manifest (
    export_id   TEXT PRIMARY KEY,
    golden_id   TEXT NOT NULL {fk:ds.golden_set(golden_id)},
    path        TEXT NOT NULL,
    manifest    {json} NOT NULL,
    created_at  TIMESTAMPTZ NOT NULL
);

-- Label schemes (vignette-lab/scheme/v1) imported with `vignette-lab scheme import`.
CREATE TABLE IF NOT EXISTS ds.label_scheme (
    name         TEXT NOT NULL,
    version      TEXT NOT NULL,
    sha256       TEXT NOT NULL,
    body         {json} NOT NULL,
    imported_by  TEXT NOT NULL DEFAULT 'local',
    created_at   TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (name, version)
);

-- Upgrades of databases created before label schemes (no-ops on new ones).
ALTER TABLE ds.dataset ADD COLUMN IF NOT EXISTS scheme_name TEXT;
ALTER TABLE ds.dataset ADD COLUMN IF NOT EXISTS scheme_version TEXT;
ALTER TABLE ds.dataset ADD COLUMN IF NOT EXISTS scheme_sha256 TEXT;
ALTER TABLE ds.dataset_item ADD COLUMN IF NOT EXISTS speaker TEXT DEFAULT 'counselor';
ALTER TABLE ds.dataset_item ADD COLUMN IF NOT EXISTS meta {json};
ALTER TABLE ds.annotation ADD COLUMN IF NOT EXISTS labels {json};
-- Annotation versions (issue 14 item 5). Older DuckDB files get the column and their rows'
-- numbers from schema._upgrade_duckdb_annotation_versions first, in a transaction of its own
-- (DuckDB cannot create an index in the transaction that updated the rows); older Postgres
-- databases get the column here (NULL until ds.postgres.sql numbers the rows).
ALTER TABLE ds.annotation ADD COLUMN IF NOT EXISTS version INTEGER;
CREATE UNIQUE INDEX IF NOT EXISTS ds_annotation_version_key
    ON ds.annotation (round_id, item_id, annotator_id, version);

CREATE INDEX IF NOT EXISTS ds_item_dataset_idx ON ds.dataset_item (dataset_id);
CREATE INDEX IF NOT EXISTS ds_annotation_round_idx ON ds.annotation (round_id, item_id);
