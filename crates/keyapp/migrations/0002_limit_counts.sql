-- The shared booking limit's count (§3.3 "One consent, several hosts"; API.md §2).
--
-- limit_counts.held is the number of limit_claims rows of a mandate. Triggers
-- keep it, so it can never disagree with the rows whoever writes them, and
-- `remaining` is read in constant time however many claims a large
-- max_bookings lets hosts hold (a count(*) would grow with every unit held).
--
-- The first trigger makes the database itself refuse a unit beyond
-- max_bookings, or any unit of a mandate without a shared limit: the
-- accounting in store/limits.rs never asks for one, and if it ever did, the
-- transaction fails instead of a person getting one booking more.
CREATE TABLE limit_counts (
    jti   TEXT PRIMARY KEY REFERENCES credentials(jti),
    held  INTEGER NOT NULL CHECK (held >= 0)
);

INSERT INTO limit_counts (jti, held) SELECT jti, count(*) FROM limit_claims GROUP BY jti;

CREATE TRIGGER limit_claims_within_max BEFORE INSERT ON limit_claims
WHEN coalesce((SELECT held FROM limit_counts WHERE jti = NEW.jti), 0)
     >= coalesce((SELECT max_bookings FROM credentials WHERE jti = NEW.jti AND shared_limit = 1), 0)
BEGIN
    SELECT RAISE(ABORT, 'shared booking limit: no unit left (max_bookings)');
END;

CREATE TRIGGER limit_claims_count_up AFTER INSERT ON limit_claims
BEGIN
    INSERT INTO limit_counts (jti, held) VALUES (NEW.jti, 1)
        ON CONFLICT (jti) DO UPDATE SET held = held + 1;
END;

CREATE TRIGGER limit_claims_count_down AFTER DELETE ON limit_claims
BEGIN
    UPDATE limit_counts SET held = held - 1 WHERE jti = OLD.jti;
END;

-- A claim is taken or given back, never changed into another.
CREATE TRIGGER limit_claims_unchanged BEFORE UPDATE ON limit_claims
BEGIN
    SELECT RAISE(ABORT, 'limit_claims rows are inserted and deleted, never updated');
END;
