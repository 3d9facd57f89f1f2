-- Signed claims (docs/agent-api.md "Signed claims", an extension of §3.3 "One
-- consent, several hosts"): a host may sign its claim and release with a key
-- of its discovery document, and a claim made signed is given back only by a
-- release that host signed.
--
-- credentials.host_keys: per aud host, the RFC 7638 thumbprints of the keys of
-- the discovery document the key app verified when the person approved, as a
-- JSON object {"host id": ["thumbprint", …]}. A credential issued before this
-- migration has none: its claims can only be unsigned.
ALTER TABLE credentials ADD COLUMN host_keys TEXT NOT NULL DEFAULT '{}';

-- limit_claims.signed: 1 once the claim's host signed it (a claim first made
-- unsigned becomes signed when its host claims it again signed).
ALTER TABLE limit_claims ADD COLUMN signed INTEGER NOT NULL DEFAULT 0 CHECK (signed IN (0, 1));

-- A claim is still taken or given back, never changed into another; only its
-- signed mark may be set, and never cleared.
DROP TRIGGER limit_claims_unchanged;
CREATE TRIGGER limit_claims_unchanged BEFORE UPDATE OF jti, claim_id, created_at ON limit_claims
BEGIN
    SELECT RAISE(ABORT, 'limit_claims rows are inserted and deleted, never updated');
END;
CREATE TRIGGER limit_claims_stay_signed BEFORE UPDATE OF signed ON limit_claims
WHEN OLD.signed = 1 AND NEW.signed = 0
BEGIN
    SELECT RAISE(ABORT, 'a signed claim stays signed until its host releases it');
END;
