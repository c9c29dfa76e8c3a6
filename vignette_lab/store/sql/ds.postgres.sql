-- ds schema (data-set pipeline), PostgreSQL 16. Idempotent: run by init_db after app/kb.
-- Status rule (DESIGN rule 5): an AI annotation is only ever 'proposed' (CHECK below).
-- ds.annotation is append-only: a trigger refuses UPDATE and DELETE (a correction is a new row).
CREATE SCHEMA IF NOT EXISTS ds;

CREATE TABLE IF NOT EXISTS ds.dataset (
    dataset_id       TEXT PRIMARY KEY,
    name             TEXT NOT NULL,
    source           TEXT NOT NULL CHECK (source IN ('sessions', 'import')),
    filters          JSONB,
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
    dataset_id         TEXT NOT NULL REFERENCES ds.dataset (dataset_id),
    session_id         TEXT NOT NULL,
    seq                INTEGER NOT NULL,
    context            JSONB NOT NULL,
    counselor_text     TEXT NOT NULL,
    client_reply       TEXT,
    persona_code       TEXT,
    learner_id         TEXT,
    intended_technique TEXT,
    created_at         TIMESTAMPTZ NOT NULL,
    speaker            TEXT NOT NULL DEFAULT 'counselor' CHECK (speaker IN ('counselor', 'client')),
    meta               JSONB,
    UNIQUE (dataset_id, session_id, seq)
);

CREATE TABLE IF NOT EXISTS ds.annotation_round (
    round_id          TEXT PRIMARY KEY,
    dataset_id        TEXT NOT NULL REFERENCES ds.dataset (dataset_id),
    kind              TEXT NOT NULL CHECK (kind IN ('ai_auto', 'human_review', 'adjudication')),
    annotator_kind    TEXT NOT NULL CHECK (annotator_kind IN ('ai', 'human')),
    engine            TEXT,
    model             TEXT,
    taxonomy_version  TEXT,
    status            TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'closed')),
    config            JSONB,
    created_at        TIMESTAMPTZ NOT NULL,
    closed_at         TIMESTAMPTZ
);

CREATE TABLE IF NOT EXISTS ds.reviewer_assignment (
    round_id     TEXT NOT NULL REFERENCES ds.annotation_round (round_id),
    item_id      TEXT NOT NULL REFERENCES ds.dataset_item (item_id),
    reviewer_id  TEXT NOT NULL,
    position     INTEGER NOT NULL,
    assigned_at  TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (round_id, item_id, reviewer_id)
);

-- Append-only: a correction is a new row whose `supersedes` names the old one.
-- One current annotation per (round, item, annotator): every row carries the version of its
-- triple and the unique index ds_annotation_version_key refuses a second row of the same
-- version (a lost save race fails instead of forking); the current row is the triple's
-- highest version. A row may supersede only a row of the same triple (composite foreign key
-- annotation_supersedes_same_annotator below). Issue 14 item 5.
CREATE TABLE IF NOT EXISTS ds.annotation (
    annotation_id     TEXT PRIMARY KEY,
    round_id          TEXT NOT NULL REFERENCES ds.annotation_round (round_id),
    item_id           TEXT NOT NULL REFERENCES ds.dataset_item (item_id),
    annotator_id      TEXT NOT NULL,
    annotator_kind    TEXT NOT NULL CHECK (annotator_kind IN ('ai', 'human')),
    status            TEXT NOT NULL
        CHECK (status IN ('proposed', 'submitted', 'accepted', 'rejected', 'superseded')),
    techniques        TEXT[] NOT NULL,
    client_state      TEXT[] NOT NULL,
    appropriateness   TEXT CHECK (appropriateness IN ('pos', 'warn', 'neutral')),
    intent_deviation  JSONB,
    scores            JSONB,
    rationale         TEXT,
    time_spent_s      DOUBLE PRECISION,
    labels            JSONB,
    supersedes        TEXT REFERENCES ds.annotation (annotation_id),
    created_at        TIMESTAMPTZ NOT NULL,
    version           INTEGER NOT NULL DEFAULT 1 CHECK (version >= 1),
    CONSTRAINT ai_only_proposed CHECK (annotator_kind <> 'ai' OR status = 'proposed')
);

CREATE TABLE IF NOT EXISTS ds.adjudication (
    adjudication_id  TEXT PRIMARY KEY,
    item_id          TEXT NOT NULL REFERENCES ds.dataset_item (item_id),
    round_id         TEXT NOT NULL REFERENCES ds.annotation_round (round_id),
    adjudicator_id   TEXT NOT NULL,
    decision         JSONB NOT NULL,
    resolves         TEXT[] NOT NULL,
    created_at       TIMESTAMPTZ NOT NULL
);

CREATE TABLE IF NOT EXISTS ds.gate_decision (
    gate_id          TEXT PRIMARY KEY,
    round_id         TEXT NOT NULL REFERENCES ds.annotation_round (round_id),
    thresholds       JSONB NOT NULL,
    results          JSONB NOT NULL,
    passed           BOOLEAN NOT NULL,
    override_reason  TEXT,
    decided_by       TEXT NOT NULL,
    created_at       TIMESTAMPTZ NOT NULL
);

CREATE TABLE IF NOT EXISTS ds.golden_set (
    golden_id         TEXT PRIMARY KEY,
    dataset_id        TEXT NOT NULL REFERENCES ds.dataset (dataset_id),
    version           INTEGER NOT NULL,
    frozen_at         TIMESTAMPTZ NOT NULL,
    gate_id           TEXT REFERENCES ds.gate_decision (gate_id),
    taxonomy_version  TEXT,
    item_count        INTEGER NOT NULL,
    UNIQUE (dataset_id, version)
);

CREATE TABLE IF NOT EXISTS ds.golden_item (
    golden_id           TEXT NOT NULL REFERENCES ds.golden_set (golden_id),
    item_id             TEXT NOT NULL,
    labels              JSONB NOT NULL,
    source              TEXT NOT NULL CHECK (source IN ('agreed', 'adjudicated')),
    source_annotations  TEXT[] NOT NULL,
    PRIMARY KEY (golden_id, item_id)
);

CREATE TABLE IF NOT EXISTS ds.export_manifest (
    export_id   TEXT PRIMARY KEY,
    golden_id   TEXT NOT NULL REFERENCES ds.golden_set (golden_id),
    path        TEXT NOT NULL,
    manifest    JSONB NOT NULL,
    created_at  TIMESTAMPTZ NOT NULL
);

-- Label schemes (vignette-lab/scheme/v1) imported with `vignette-lab scheme import`.
CREATE TABLE IF NOT EXISTS ds.label_scheme (
    name         TEXT NOT NULL,
    version      TEXT NOT NULL,
    sha256       TEXT NOT NULL,
    body         JSONB NOT NULL,
    imported_by  TEXT NOT NULL DEFAULT 'local',
    created_at   TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (name, version)
);

-- Upgrades of databases created before label schemes (no-ops on new ones).
ALTER TABLE ds.dataset ADD COLUMN IF NOT EXISTS scheme_name TEXT;
ALTER TABLE ds.dataset ADD COLUMN IF NOT EXISTS scheme_version TEXT;
ALTER TABLE ds.dataset ADD COLUMN IF NOT EXISTS scheme_sha256 TEXT;
ALTER TABLE ds.dataset_item ADD COLUMN IF NOT EXISTS speaker TEXT DEFAULT 'counselor';
ALTER TABLE ds.dataset_item ADD COLUMN IF NOT EXISTS meta JSONB;
ALTER TABLE ds.annotation ADD COLUMN IF NOT EXISTS labels JSONB;

CREATE INDEX IF NOT EXISTS ds_item_dataset_idx ON ds.dataset_item (dataset_id);
CREATE INDEX IF NOT EXISTS ds_annotation_round_idx ON ds.annotation (round_id, item_id);

CREATE OR REPLACE FUNCTION ds.refuse_annotation_change() RETURNS trigger
LANGUAGE plpgsql AS $fn$
BEGIN
    RAISE EXCEPTION 'ds.annotation is append-only: % refused (insert a new row with supersedes)', TG_OP
        USING ERRCODE = 'integrity_constraint_violation';
END;
$fn$;

DROP TRIGGER IF EXISTS annotation_append_only ON ds.annotation;
-- Annotation versions (issue 14 item 5): number older rows per triple by time, then key them
-- (runs while the append-only trigger is dropped; a no-op once every row has a version).
ALTER TABLE ds.annotation ADD COLUMN IF NOT EXISTS version INTEGER;
UPDATE ds.annotation AS a SET version = r.v
  FROM (SELECT annotation_id, row_number() OVER (PARTITION BY round_id, item_id, annotator_id
                                                 ORDER BY created_at, annotation_id) AS v
          FROM ds.annotation) AS r
 WHERE a.annotation_id = r.annotation_id AND a.version IS NULL;
CREATE UNIQUE INDEX IF NOT EXISTS ds_annotation_version_key
    ON ds.annotation (round_id, item_id, annotator_id, version);
CREATE UNIQUE INDEX IF NOT EXISTS ds_annotation_triple_key
    ON ds.annotation (annotation_id, round_id, item_id, annotator_id);
DO $ann$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conname = 'annotation_supersedes_same_annotator') THEN
        ALTER TABLE ds.annotation ADD CONSTRAINT annotation_supersedes_same_annotator
            FOREIGN KEY (supersedes, round_id, item_id, annotator_id)
            REFERENCES ds.annotation (annotation_id, round_id, item_id, annotator_id) NOT VALID;
    END IF;
END
$ann$;
CREATE TRIGGER annotation_append_only
    BEFORE UPDATE OR DELETE ON ds.annotation
    FOR EACH ROW EXECUTE FUNCTION ds.refuse_annotation_change();
