-- A new request's history entry is written by the database in the statement
-- that inserts the request: one statement, so atomic without an explicit
-- transaction, and three fewer round trips on the agent API's hottest path
-- (docs/benchmarks.md). An insert that does nothing (an idempotent replay,
-- ON CONFLICT DO NOTHING) writes no entry.
CREATE TRIGGER request_created_history AFTER INSERT ON requests
BEGIN
    INSERT INTO history (at, event, subject, detail)
    VALUES (NEW.created_at, 'request_created', NEW.request_id, NEW.kind);
END;
