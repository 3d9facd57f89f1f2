-- The records' text search ignores case and accents (keyapp::search_fold):
-- each text it searches is kept a second time, folded by the key app as it
-- is written, since SQLite's LIKE folds ASCII letters only. NULL: written
-- before this migration (or by a key app that did not fold it); the key app
-- folds those when it opens the records (store::search_folds::fill), and the
-- partial indexes keep that look cheap once nothing is left.
ALTER TABLE requests ADD COLUMN summary_fold TEXT;
ALTER TABLE agents ADD COLUMN name_fold TEXT;
ALTER TABLE history ADD COLUMN detail_fold TEXT;
CREATE INDEX requests_unfolded ON requests (request_id) WHERE summary_fold IS NULL;
CREATE INDEX agents_unfolded ON agents (jkt) WHERE name_fold IS NULL;
CREATE INDEX history_unfolded ON history (id) WHERE detail_fold IS NULL;
-- A new request's history entry (migration 0005) is written with its folded
-- detail too: the request's kind, an ASCII word, which lower() folds as
-- search_fold does.
DROP TRIGGER request_created_history;
CREATE TRIGGER request_created_history AFTER INSERT ON requests
BEGIN
    INSERT INTO history (at, event, subject, detail, detail_fold)
    VALUES (NEW.created_at, 'request_created', NEW.request_id, NEW.kind, lower(NEW.kind));
END;
