-- A registration or revocation the hosted status service refused for good
-- (namespace_full, namespace_not_allowed): no retry could change its answer,
-- so the row is not retried, and its §9 reason is kept (refusal) with the
-- service's message (last_error). A refused registration takes the
-- credential's later rows with it: there is nothing at the service to revoke.
ALTER TABLE status_outbox ADD COLUMN refused_at INTEGER;
ALTER TABLE status_outbox ADD COLUMN refusal TEXT;
DROP INDEX status_outbox_due;
CREATE INDEX status_outbox_due ON status_outbox (next_attempt_at) WHERE acked_at IS NULL AND refused_at IS NULL;
