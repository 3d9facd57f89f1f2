-- The order in which requests were answered, exactly. decided_at is whole
-- seconds, so an approval and two declines in one second tie, and the cooldown
-- (docs/agent-api.md §9: the agent's last two answered requests) could read
-- them in the wrong order. Every decision, whichever statement makes it
-- (approve, decline, withdraw, expire, unpair), takes the next number here, in
-- the statement that decides it: SQLite runs one writer at a time, so the
-- numbers follow the commits.
ALTER TABLE requests ADD COLUMN decision_seq INTEGER;
CREATE INDEX requests_by_decision_seq ON requests (decision_seq);

-- Requests answered before this migration, numbered in the order they were
-- read in until now.
UPDATE requests SET decision_seq = (
    SELECT n FROM (SELECT request_id, row_number() OVER (ORDER BY decided_at, created_at, rowid) AS n
                   FROM requests WHERE status != 'pending') AS o
    WHERE o.request_id = requests.request_id)
WHERE status != 'pending';

CREATE TRIGGER request_decision_seq AFTER UPDATE OF status ON requests
WHEN OLD.status = 'pending' AND NEW.status != 'pending'
BEGIN
    UPDATE requests SET decision_seq = (SELECT coalesce(max(decision_seq), 0) + 1 FROM requests)
    WHERE rowid = NEW.rowid;
END;
