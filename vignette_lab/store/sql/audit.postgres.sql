-- audit extras, PostgreSQL only (after audit.sql): indexes and append-only triggers.
CREATE INDEX IF NOT EXISTS idx_llm_call_session ON audit.llm_call_log (session_id, created_at);
CREATE INDEX IF NOT EXISTS idx_llm_call_created ON audit.llm_call_log (created_at);
CREATE INDEX IF NOT EXISTS idx_drift_session ON audit.persona_drift_log (session_id, created_at);
CREATE INDEX IF NOT EXISTS idx_drift_persona ON audit.persona_drift_log (persona_code, created_at);
CREATE INDEX IF NOT EXISTS idx_audit_log_created ON audit.audit_log (created_at);

-- app.forbid_change() is defined in app.postgres.sql, which runs first.
CREATE OR REPLACE TRIGGER llm_call_log_append_only BEFORE UPDATE OR DELETE ON audit.llm_call_log
  FOR EACH ROW EXECUTE FUNCTION app.forbid_change();
CREATE OR REPLACE TRIGGER persona_drift_log_append_only BEFORE UPDATE OR DELETE ON audit.persona_drift_log
  FOR EACH ROW EXECUTE FUNCTION app.forbid_change();
CREATE OR REPLACE TRIGGER audit_log_append_only BEFORE UPDATE OR DELETE ON audit.audit_log
  FOR EACH ROW EXECUTE FUNCTION app.forbid_change();
