-- ds extras, PostgreSQL only (after ds.sql). ds.annotation is append-only: a trigger refuses
-- UPDATE and DELETE (a correction is a new row). Idempotent.
CREATE OR REPLACE FUNCTION ds.refuse_annotation_change() RETURNS trigger
LANGUAGE plpgsql AS $fn$
BEGIN
    RAISE EXCEPTION 'ds.annotation is append-only: % refused (insert a new row with supersedes)', TG_OP
        USING ERRCODE = 'integrity_constraint_violation';
END;
$fn$;

DROP TRIGGER IF EXISTS annotation_append_only ON ds.annotation;
-- Annotation versions (issue 14 item 5): number older rows per triple by time, then key them
-- (runs while the append-only trigger is dropped; a no-op once every row has a version). A row
-- may supersede only a row of the same (round, item, annotator): composite foreign key.
UPDATE ds.annotation AS a SET version = r.v
  FROM (SELECT annotation_id, row_number() OVER (PARTITION BY round_id, item_id, annotator_id
                                                 ORDER BY created_at, annotation_id) AS v
          FROM ds.annotation) AS r
 WHERE a.annotation_id = r.annotation_id AND a.version IS NULL;
-- The referenced key is a UNIQUE constraint (not a bare index), so information_schema shows the
-- foreign key and the schema-parity test sees it; an older database's index is adopted in place.
CREATE UNIQUE INDEX IF NOT EXISTS ds_annotation_triple_key
    ON ds.annotation (annotation_id, round_id, item_id, annotator_id);
DO $ann$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conname = 'ds_annotation_triple_key') THEN
        ALTER TABLE ds.annotation ADD CONSTRAINT ds_annotation_triple_key UNIQUE USING INDEX ds_annotation_triple_key;
    END IF;
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
