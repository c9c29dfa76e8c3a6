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
CREATE TRIGGER annotation_append_only
    BEFORE UPDATE OR DELETE ON ds.annotation
    FOR EACH ROW EXECUTE FUNCTION ds.refuse_annotation_change();
