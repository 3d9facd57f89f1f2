-- Where each host id was verified (SchCP §2.2), and what each credential was
-- issued against. A host id is bound at the person's first yes to a request
-- for it; the same id at another domain is refused (host_id_conflict) until
-- the person accepts the change on their own surfaces.
CREATE TABLE host_bindings (
    host_id     TEXT PRIMARY KEY,
    -- §2.2 rule 1: the exact host name the document was fetched from; rule 2:
    -- the operator's domain; rule 3: the operator's host name the document was
    -- fetched from (basis operator_trust).
    domain      TEXT NOT NULL,
    basis       TEXT NOT NULL CHECK (basis IN ('own_domain', 'operator', 'operator_trust')),
    bound_at    INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL
);

-- The same host id met at another place than its binding: what the person is
-- shown and may accept. One row per (host, place); seen_at is the latest time.
CREATE TABLE host_domain_changes (
    host_id  TEXT NOT NULL REFERENCES host_bindings (host_id),
    domain   TEXT NOT NULL,
    basis    TEXT NOT NULL CHECK (basis IN ('own_domain', 'operator', 'operator_trust')),
    seen_at  INTEGER NOT NULL,
    PRIMARY KEY (host_id, domain, basis)
);

-- Per credential and aud host: the domain and the discovery keys' RFC 7638
-- thumbprints it was issued against. Whatever later cites the credential
-- (a receipt, a change offer, an invitation) verifies only at that domain.
CREATE TABLE credential_hosts (
    jti              TEXT NOT NULL REFERENCES credentials (jti),
    host_id          TEXT NOT NULL,
    domain           TEXT NOT NULL,
    basis            TEXT NOT NULL CHECK (basis IN ('own_domain', 'operator', 'operator_trust')),
    key_thumbprints  TEXT NOT NULL,               -- JSON array
    PRIMARY KEY (jti, host_id)
);

-- A management mandate's place in its chain (§3.3 "Management mandates",
-- "Renewal"): the root it rests on (none when the person approved it), its
-- booking, and the receipt sequence it was issued on. Revoking a root revokes
-- every management mandate issued under it; a renewal replaces the previous one.
CREATE TABLE management_links (
    jti         TEXT PRIMARY KEY REFERENCES credentials (jti),
    root_jti    TEXT REFERENCES credentials (jti),
    host_id     TEXT NOT NULL,
    booking_id  TEXT NOT NULL,
    sequence    INTEGER NOT NULL,
    retention   TEXT NOT NULL
);
CREATE INDEX management_links_by_root ON management_links (root_jti) WHERE root_jti IS NOT NULL;
CREATE INDEX management_links_by_booking ON management_links (host_id, booking_id);

-- The host bindings a pending request would make at the person's yes (JSON).
ALTER TABLE requests ADD COLUMN hosts TEXT;
