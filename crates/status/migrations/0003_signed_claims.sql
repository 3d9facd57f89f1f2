-- Signed claims (docs/hosted-status.md "Signed claims", an extension of §3.3):
-- a host may sign its claim and release with a key of its discovery document;
-- a claim made signed is given back only by a release that host signed.

-- Per aud host, the RFC 7638 thumbprints of the discovery keys the key app
-- verified when the person approved, as the registration carried them:
-- {"host id": ["thumbprint", …]}. Part of the registration: a second
-- registration with other keys is a conflict.
ALTER TABLE credentials ADD COLUMN host_keys JSONB NOT NULL DEFAULT '{}'::jsonb;

-- Whether the claim's host signed it. Set once, never cleared (a release
-- deletes the row).
ALTER TABLE claims ADD COLUMN signed BOOLEAN NOT NULL DEFAULT false;

-- The §3.2 replay memory of signed claims and releases, shared by every
-- process: each (keyid, nonce) whose signature verified, until created + 301 s.
CREATE TABLE seen_nonces (
    keyid      TEXT   NOT NULL,
    nonce      TEXT   NOT NULL,
    keep_until BIGINT NOT NULL,
    PRIMARY KEY (keyid, nonce)
);
CREATE INDEX seen_nonces_keep_until ON seen_nonces (keep_until);

-- A signed claim in one round trip: the nonce spent (a replay takes nothing),
-- then schcp_claim's own transaction, the claim marked signed whether it was
-- taken now or held already (a claim id first taken unsigned becomes its
-- host's). Outcomes: schcp_claim's, and replayed. Whether the key is the claim
-- host's is checked before the call, against host_keys, which never change.
CREATE FUNCTION schcp_claim_signed(p_thumb TEXT, p_jti TEXT, p_claim_id TEXT, p_host TEXT, p_now BIGINT,
                                   p_keyid TEXT, p_nonce TEXT, p_keep_until BIGINT,
                                   OUT outcome TEXT, OUT left_units BIGINT, OUT max_units BIGINT)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    n BIGINT;
BEGIN
    DELETE FROM seen_nonces WHERE keyid = p_keyid AND nonce = p_nonce AND keep_until < p_now;
    INSERT INTO seen_nonces (keyid, nonce, keep_until) VALUES (p_keyid, p_nonce, p_keep_until)
        ON CONFLICT DO NOTHING;
    GET DIAGNOSTICS n = ROW_COUNT;
    IF n = 0 THEN outcome := 'replayed'; RETURN; END IF;
    SELECT c.outcome, c.left_units, c.max_units INTO outcome, left_units, max_units
      FROM schcp_claim(p_thumb, p_jti, p_claim_id, p_host, p_now) c;
    IF outcome IN ('claimed', 'already_held') THEN
        UPDATE claims SET signed = true WHERE thumb = p_thumb AND jti = p_jti AND claim_id = p_claim_id;
    END IF;
END;
$$;
