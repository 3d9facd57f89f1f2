-- Hosted mode (issue 12): what the key app still has to tell the hosted status
-- service. A registration is written in the same transaction as its credential,
-- a revocation in the same transaction as revoked_at, so neither can be lost
-- between the records and the service. A row stays until the service
-- acknowledges it (acked_at); rows of one credential go out in id order, so a
-- revocation never overtakes its registration.
CREATE TABLE status_outbox (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    jti             TEXT NOT NULL REFERENCES credentials (jti),
    op              TEXT NOT NULL CHECK (op IN ('register', 'revoke')),
    -- The service's base URL when the row was written: a credential stays
    -- published where its status URL points, whatever the config says later.
    base            TEXT NOT NULL,
    created_at      INTEGER NOT NULL,
    attempts        INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    next_attempt_at INTEGER NOT NULL,
    last_error      TEXT,
    acked_at        INTEGER,
    UNIQUE (jti, op)
);
CREATE INDEX status_outbox_due ON status_outbox (next_attempt_at) WHERE acked_at IS NULL;
