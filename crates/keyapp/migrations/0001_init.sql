-- Records of the key app (DESIGN.md "Records"). Every state change is one
-- transaction; times are NumericDate (seconds since the epoch, UTC).

-- Agents that asked to pair, and the person's answer (API.md "Pairing").
CREATE TABLE agents (
    jkt          TEXT PRIMARY KEY,            -- RFC 7638 thumbprint of the agent key
    jwk          TEXT NOT NULL,               -- the agent's public JWK (JSON)
    name         TEXT NOT NULL,               -- the name it gave; shown as inert text
    pairing_id   TEXT NOT NULL UNIQUE,
    fingerprint  TEXT NOT NULL,
    status       TEXT NOT NULL CHECK (status IN ('pending','approved','declined','expired','unpaired')),
    created_at   INTEGER NOT NULL,
    decided_at   INTEGER
);

-- Requests and their answers, with the exact consent text shown.
CREATE TABLE requests (
    request_id       TEXT PRIMARY KEY,
    agent_jkt        TEXT NOT NULL REFERENCES agents(jkt),
    kind             TEXT NOT NULL,
    idempotency_key  TEXT NOT NULL,
    body_sha256      TEXT NOT NULL,
    status           TEXT NOT NULL CHECK (status IN ('pending','approved','declined','expired','withdrawn')),
    consent_text     TEXT NOT NULL,
    input            TEXT NOT NULL,               -- the verified input the credential is built from (JSON)
    result           TEXT,                        -- the approved result (JSON)
    created_at       INTEGER NOT NULL,
    expires_at       INTEGER NOT NULL,
    decided_at       INTEGER,
    UNIQUE (agent_jkt, idempotency_key)
);
CREATE INDEX requests_by_agent ON requests (agent_jkt, created_at);

-- Every credential issued (mandates of every kind, contracts, acceptances, rules).
CREATE TABLE credentials (
    jti           TEXT PRIMARY KEY,
    kind          TEXT NOT NULL,
    agent_jkt     TEXT,
    request_id    TEXT,
    aud           TEXT NOT NULL,                 -- JSON array of host ids
    scope         TEXT NOT NULL DEFAULT '[]',    -- JSON array
    iat           INTEGER NOT NULL,
    exp           INTEGER NOT NULL,
    compact       TEXT NOT NULL,
    status_url    TEXT,
    max_bookings  INTEGER,                       -- set only with shared_limit (§3.3)
    shared_limit  INTEGER NOT NULL DEFAULT 0,
    booking_id    TEXT,
    revoked_at    INTEGER,
    created_at    INTEGER NOT NULL
);
CREATE INDEX credentials_by_agent ON credentials (agent_jkt, created_at);

-- Held units of a shared booking limit (§3.3 "One consent, several hosts").
CREATE TABLE limit_claims (
    jti         TEXT NOT NULL REFERENCES credentials(jti),
    claim_id    TEXT NOT NULL,                   -- "{host id}/{hold id}"
    created_at  INTEGER NOT NULL,
    PRIMARY KEY (jti, claim_id)
);

-- Host-signed receipts the key app verified (§5.3).
CREATE TABLE receipts (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    host          TEXT NOT NULL,
    booking_id    TEXT NOT NULL,
    offer_sha256  TEXT,
    mandate_jti   TEXT,
    compact       TEXT NOT NULL,
    verified_at   INTEGER NOT NULL
);

-- The person's contacts: principal → the name they know them by (§5.12).
CREATE TABLE contacts (
    principal     TEXT PRIMARY KEY,
    name          TEXT NOT NULL,
    relationship  TEXT
);

-- Attestations about the principal key (§7.5).
CREATE TABLE attestations (
    id       INTEGER PRIMARY KEY AUTOINCREMENT,
    iss      TEXT NOT NULL,
    exp      INTEGER NOT NULL,
    compact  TEXT NOT NULL UNIQUE
);

-- What happened, for `schcp-keyapp history`.
CREATE TABLE history (
    id       INTEGER PRIMARY KEY AUTOINCREMENT,
    at       INTEGER NOT NULL,
    event    TEXT NOT NULL,
    subject  TEXT NOT NULL,
    detail   TEXT NOT NULL DEFAULT ''
);
