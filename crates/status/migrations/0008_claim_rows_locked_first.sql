-- A claim id held already is locked where the claim finds it, before its
-- credential, as a release locks it (docs/hosted-status.md "Batched claims").
--
-- A signed claim whose claim id was held already marks the row its host's
-- (migration 0003) at its end, after its credential's row lock. Until then
-- the row was not locked: an unsigned release could delete it in between and
-- give its unit back, and the host was answered `already_held` for a unit no
-- row held, one booking more than the limit (§3.3: never more units than
-- max_bookings). A release locks the claim row, then the credential, so the
-- late mark could also meet it the other way round, a deadlock failing the
-- batch. Now every claim row of a batch is taken in its sorted order before
-- any credential: inserted, or, when it is there already, locked (`ON
-- CONFLICT DO UPDATE … WHERE false` updates nothing and locks the row), and a
-- release waits for the batch's commit, then finds the row signed. A single
-- signed claim locks the row it finds first too. Answers are unchanged.
CREATE OR REPLACE FUNCTION schcp_claim_rows(p_thumbs TEXT[], p_jtis TEXT[], p_claim_ids TEXT[], p_nows BIGINT[], p_outs TEXT[],
                                            OUT cand INT[], OUT cand_first INT[], OUT cand_fresh BOOLEAN[], OUT cand_cred INT[])
LANGUAGE plpgsql VOLATILE
SET plan_cache_mode = force_generic_plan
SET enable_nestloop = off
AS $$
BEGIN
    WITH u AS (
        SELECT t, j, id, at, o::INT AS o,
               min(o::INT) OVER (PARTITION BY t, j, id) AS first,
               dense_rank() OVER (ORDER BY t, j)::INT AS cred
          FROM unnest(p_thumbs, p_jtis, p_claim_ids, p_nows) WITH ORDINALITY AS u(t, j, id, at, o)
         WHERE p_outs[o] IS NULL),
    ins AS (
        INSERT INTO claims AS c (thumb, jti, claim_id, claimed_at)
        SELECT t, j, id, at FROM u WHERE o = first ORDER BY t, j, id
            ON CONFLICT (thumb, jti, claim_id) DO UPDATE SET claimed_at = c.claimed_at WHERE false
        RETURNING thumb, jti, claim_id)
    SELECT array_agg(u.o ORDER BY u.o), array_agg(u.first ORDER BY u.o),
           array_agg(ins.claim_id IS NOT NULL ORDER BY u.o), array_agg(u.cred ORDER BY u.o)
      INTO cand, cand_first, cand_fresh, cand_cred
      FROM u LEFT JOIN ins ON ins.thumb = u.t AND ins.jti = u.j AND ins.claim_id = u.id;
END;
$$;

CREATE OR REPLACE FUNCTION schcp_claim_signed(p_thumb TEXT, p_jti TEXT, p_claim_id TEXT, p_host TEXT, p_now BIGINT,
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
    -- The claim row it finds, locked before schcp_claim locks the credential.
    PERFORM 1 FROM claims WHERE thumb = p_thumb AND jti = p_jti AND claim_id = p_claim_id FOR NO KEY UPDATE;
    SELECT c.outcome, c.left_units, c.max_units INTO outcome, left_units, max_units
      FROM schcp_claim(p_thumb, p_jti, p_claim_id, p_host, p_now) c;
    IF outcome IN ('claimed', 'already_held') THEN
        UPDATE claims SET signed = true WHERE thumb = p_thumb AND jti = p_jti AND claim_id = p_claim_id;
    END IF;
END;
$$;
