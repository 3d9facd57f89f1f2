-- The hosted status service (issue 12). Rows are keyed by (thumb, jti): the
-- principal key's RFC 7638 thumbprint is the namespace, because a jti is the
-- signer's choice (§3.3: usage is keyed by (iss, jti)).

CREATE TABLE credentials (
    thumb         TEXT    NOT NULL,
    jti           TEXT    NOT NULL,
    exp           BIGINT  NOT NULL,
    aud           TEXT[]  NOT NULL,
    max_bookings  BIGINT,
    shared_limit  BOOLEAN NOT NULL,
    -- Units not held: max_bookings - held, for a shared limit only. A claim
    -- takes one with a conditional UPDATE (remaining > 0); this CHECK makes the
    -- database itself refuse an over-grant.
    remaining     BIGINT,
    revoked_at    BIGINT,
    registered_at BIGINT  NOT NULL,
    PRIMARY KEY (thumb, jti),
    CHECK (remaining >= 0),
    CHECK (remaining <= max_bookings),
    CHECK (max_bookings IS NULL OR max_bookings BETWEEN 0 AND 4294967295),
    CHECK ((remaining IS NOT NULL) = (shared_limit AND max_bookings IS NOT NULL))
);

-- One row per unit held; a claim id holds at most one unit (§3.3).
CREATE TABLE claims (
    thumb      TEXT   NOT NULL,
    jti        TEXT   NOT NULL,
    claim_id   TEXT   NOT NULL,
    claimed_at BIGINT NOT NULL,
    PRIMARY KEY (thumb, jti, claim_id),
    FOREIGN KEY (thumb, jti) REFERENCES credentials (thumb, jti)
);

-- Update jtis seen, per namespace, kept past the end of their iat window so a
-- replay is refused (docs/hosted-status.md).
CREATE TABLE seen_updates (
    thumb      TEXT   NOT NULL,
    jti        TEXT   NOT NULL,
    keep_until BIGINT NOT NULL,
    PRIMARY KEY (thumb, jti)
);
CREATE INDEX seen_updates_keep_until ON seen_updates (keep_until);
