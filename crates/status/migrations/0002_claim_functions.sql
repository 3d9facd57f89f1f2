-- A claim and a release each in one round trip (issue 12 benchmark): the same
-- READ COMMITTED transaction as before (the conditional UPDATE with
-- remaining > 0, the idempotent claim-id insert), run inside the database, so
-- the credential's row lock is held for the commit alone rather than across
-- four client round trips. VOLATILE: every statement takes a fresh snapshot,
-- and a waiting UPDATE re-checks its WHERE on the row it waited for.

-- Outcomes: claimed | already_held | unknown | no_shared_limit |
-- host_not_in_audience | revoked | expired | none_left. Refusals write nothing
-- (the claim row inserted before a failed UPDATE is deleted in the same
-- transaction).
CREATE FUNCTION schcp_claim(p_thumb TEXT, p_jti TEXT, p_claim_id TEXT, p_host TEXT, p_now BIGINT,
                            OUT outcome TEXT, OUT left_units BIGINT, OUT max_units BIGINT)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    c RECORD;
    n BIGINT;
BEGIN
    SELECT aud, remaining, revoked_at IS NOT NULL AS revoked, exp, max_bookings
      INTO c FROM credentials WHERE thumb = p_thumb AND jti = p_jti;
    IF NOT FOUND THEN outcome := 'unknown'; RETURN; END IF;
    max_units := c.max_bookings;
    -- The embedded API's order (keyapp::store::claims).
    IF c.remaining IS NULL THEN outcome := 'no_shared_limit'; RETURN; END IF;
    IF NOT (p_host = ANY (c.aud)) THEN outcome := 'host_not_in_audience'; RETURN; END IF;
    IF c.revoked THEN outcome := 'revoked'; RETURN; END IF;
    IF p_now >= c.exp THEN outcome := 'expired'; RETURN; END IF;
    INSERT INTO claims (thumb, jti, claim_id, claimed_at) VALUES (p_thumb, p_jti, p_claim_id, p_now)
        ON CONFLICT DO NOTHING;
    GET DIAGNOSTICS n = ROW_COUNT;
    IF n = 0 THEN
        -- Held already: nothing is spent (§3.3).
        SELECT remaining INTO left_units FROM credentials WHERE thumb = p_thumb AND jti = p_jti;
        outcome := 'already_held';
        RETURN;
    END IF;
    UPDATE credentials SET remaining = remaining - 1
     WHERE thumb = p_thumb AND jti = p_jti AND remaining > 0 AND revoked_at IS NULL AND exp > p_now
     RETURNING remaining INTO left_units;
    IF FOUND THEN outcome := 'claimed'; RETURN; END IF;
    DELETE FROM claims WHERE thumb = p_thumb AND jti = p_jti AND claim_id = p_claim_id;
    SELECT revoked_at IS NOT NULL AS revoked, exp INTO c FROM credentials WHERE thumb = p_thumb AND jti = p_jti;
    IF c.revoked THEN outcome := 'revoked';
    ELSIF p_now >= c.exp THEN outcome := 'expired';
    ELSE outcome := 'none_left';
    END IF;
    left_units := NULL;
END;
$$;
