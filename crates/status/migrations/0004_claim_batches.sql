-- Claims batched per process (docs/hosted-status.md "Batched claims"): every
-- claim a process has waiting, over any number of credentials, in one call,
-- so one READ COMMITTED transaction and one WAL flush carry them all. Each
-- claim is answered exactly as schcp_claim (or schcp_claim_signed) would have
-- answered it alone, the claims taken one after another in the arrays' order
-- (§3.3: a claim id holds at most one unit; a repeat spends nothing; never
-- more units than max_bookings).
--
-- Locks are taken in one total order, the order every other writer already
-- follows (a claim or release takes its claim row before its credential row):
-- the batch's nonces, sorted; then, credential by credential in (thumb, jti)
-- order, the credential's claim rows, sorted, and then the credential row.
-- Two batches therefore never wait on each other in a cycle, whichever
-- processes run them. The credential row is locked (FOR NO KEY UPDATE, which
-- other transactions' claim inserts, checking the foreign key with FOR KEY
-- SHARE, do not wait for) only after its claim rows are in, so it is held for
-- the decisions and the commit alone. A process sends one batch per
-- credential at a time (crates/status/src/batch.rs); batches of several
-- processes on one credential take turns at its row lock, and a waiting batch
-- re-reads `remaining` after the one before it committed, so the limit stays
-- exact across processes.
--
-- Outcomes: schcp_claim_signed's. Refusals write nothing but the spent nonce,
-- as schcp_claim_signed does; if anything fails, the whole batch is rolled
-- back and no claim in it is taken.
CREATE FUNCTION schcp_claim_batch(p_thumbs TEXT[], p_jtis TEXT[], p_claim_ids TEXT[], p_hosts TEXT[],
                                  p_nows BIGINT[], p_keyids TEXT[], p_nonces TEXT[], p_keep_untils BIGINT[])
RETURNS TABLE (outcome TEXT, left_units BIGINT, max_units BIGINT)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    n INT := coalesce(array_length(p_claim_ids, 1), 0);
    outs TEXT[] := array_fill(NULL::TEXT, ARRAY[n]);
    lefts BIGINT[] := array_fill(NULL::BIGINT, ARRAY[n]);
    maxes BIGINT[] := array_fill(NULL::BIGINT, ARRAY[n]);
    replayed INT[];
    cred RECORD;
    c RECORD;
    l RECORD;
    idx INT[];
    i INT;
    fresh TEXT[];
    taken TEXT[];
    rem BIGINT;
BEGIN
    IF n = 0 THEN RETURN; END IF;
    IF array_length(p_jtis, 1) IS DISTINCT FROM n OR array_length(p_thumbs, 1) IS DISTINCT FROM n
       OR array_length(p_hosts, 1) IS DISTINCT FROM n OR array_length(p_nows, 1) IS DISTINCT FROM n
       OR array_length(p_keyids, 1) IS DISTINCT FROM n OR array_length(p_nonces, 1) IS DISTINCT FROM n
       OR array_length(p_keep_untils, 1) IS DISTINCT FROM n THEN
        RAISE EXCEPTION 'schcp_claim_batch: the arrays differ in length';
    END IF;

    -- Signed claims spend their nonce first (schcp_claim_signed's order). The
    -- first claim carrying a (keyid, nonce) spends it; a later one in the same
    -- batch, or one whose nonce was spent before, is a replay (§3.2).
    DELETE FROM seen_nonces s
     USING unnest(p_keyids, p_nonces, p_nows) AS u(k, nc, t)
     WHERE u.k IS NOT NULL AND s.keyid = u.k AND s.nonce = u.nc AND s.keep_until < u.t;
    WITH u AS (
        SELECT k, nc, ku, o::INT AS o
          FROM unnest(p_keyids, p_nonces, p_keep_untils) WITH ORDINALITY AS u(k, nc, ku, o)
         WHERE k IS NOT NULL),
    firsts AS (SELECT DISTINCT ON (k, nc) k, nc, ku, o FROM u ORDER BY k, nc, o),
    ins AS (
        INSERT INTO seen_nonces (keyid, nonce, keep_until)
        SELECT k, nc, ku FROM firsts ORDER BY k, nc
            ON CONFLICT DO NOTHING
        RETURNING keyid, nonce)
    SELECT coalesce(array_agg(u.o), '{}') INTO replayed
      FROM u
     WHERE NOT EXISTS (SELECT 1 FROM firsts f JOIN ins ON ins.keyid = f.k AND ins.nonce = f.nc
                        WHERE f.o = u.o);
    FOREACH i IN ARRAY replayed LOOP outs[i] := 'replayed'; END LOOP;

    FOR cred IN SELECT DISTINCT t, j FROM unnest(p_thumbs, p_jtis) AS u(t, j) ORDER BY t, j LOOP
        -- This credential's claims, in arrival order.
        idx := ARRAY(SELECT o::INT FROM unnest(p_thumbs, p_jtis) WITH ORDINALITY AS u(t, j, o)
                      WHERE t = cred.t AND j = cred.j AND outs[o] IS NULL ORDER BY o);
        CONTINUE WHEN coalesce(array_length(idx, 1), 0) = 0;
        -- The refusals that need no lock, in the embedded API's order
        -- (keyapp::store::booking_claims, as schcp_claim).
        SELECT aud, remaining, revoked_at IS NOT NULL AS revoked, exp, max_bookings
          INTO c FROM credentials WHERE thumb = cred.t AND jti = cred.j;
        IF NOT FOUND THEN
            FOREACH i IN ARRAY idx LOOP outs[i] := 'unknown'; END LOOP;
            CONTINUE;
        END IF;
        FOREACH i IN ARRAY idx LOOP
            maxes[i] := c.max_bookings;
            IF c.remaining IS NULL THEN outs[i] := 'no_shared_limit';
            ELSIF NOT (p_hosts[i] = ANY (c.aud)) THEN outs[i] := 'host_not_in_audience';
            ELSIF c.revoked THEN outs[i] := 'revoked';
            ELSIF p_nows[i] >= c.exp THEN outs[i] := 'expired';
            END IF;
        END LOOP;
        idx := ARRAY(SELECT o FROM unnest(idx) AS o WHERE outs[o] IS NULL ORDER BY o);
        CONTINUE WHEN coalesce(array_length(idx, 1), 0) = 0;
        -- The claim ids not held before this batch, inserted in sorted order;
        -- a claim id another transaction is inserting is waited for, as a
        -- single claim waits.
        WITH ins AS (
            INSERT INTO claims (thumb, jti, claim_id, claimed_at)
            SELECT DISTINCT ON (id) cred.t, cred.j, id, at
              FROM (SELECT p_claim_ids[o] AS id, p_nows[o] AS at, o FROM unnest(idx) AS o) s
             ORDER BY id, o
                ON CONFLICT DO NOTHING
            RETURNING claim_id)
        SELECT coalesce(array_agg(claim_id), '{}') INTO fresh FROM ins;
        SELECT remaining, revoked_at IS NOT NULL AS revoked, exp
          INTO l FROM credentials WHERE thumb = cred.t AND jti = cred.j FOR NO KEY UPDATE;
        -- Decided in arrival order, as single claims one after another: a
        -- claim id held before, or taken earlier in this batch, is held
        -- already; a fresh one takes a unit if one is left. Only claims take
        -- part, so `remaining` never grows within a batch, and a repeat of a
        -- refused claim id is decided again, as its single retry would be.
        rem := l.remaining;
        taken := '{}';
        FOREACH i IN ARRAY idx LOOP
            IF NOT (p_claim_ids[i] = ANY (fresh)) OR p_claim_ids[i] = ANY (taken) THEN
                outs[i] := 'already_held';
                lefts[i] := rem;
            ELSIF l.revoked THEN outs[i] := 'revoked';
            ELSIF p_nows[i] >= l.exp THEN outs[i] := 'expired';
            ELSIF rem > 0 THEN
                rem := rem - 1;
                outs[i] := 'claimed';
                lefts[i] := rem;
                taken := taken || p_claim_ids[i];
            ELSE outs[i] := 'none_left';
            END IF;
        END LOOP;
        -- Refused claims leave nothing behind.
        DELETE FROM claims
         WHERE thumb = cred.t AND jti = cred.j AND claim_id = ANY (fresh) AND NOT (claim_id = ANY (taken));
        IF rem <> l.remaining THEN
            UPDATE credentials SET remaining = rem WHERE thumb = cred.t AND jti = cred.j;
        END IF;
        -- A claim id its host claimed signed becomes its host's, taken now or
        -- held already (schcp_claim_signed).
        UPDATE claims SET signed = true
         WHERE thumb = cred.t AND jti = cred.j AND NOT signed
           AND claim_id = ANY (ARRAY(SELECT p_claim_ids[o] FROM unnest(idx) AS o
                                      WHERE p_keyids[o] IS NOT NULL AND outs[o] IN ('claimed', 'already_held')));
    END LOOP;
    RETURN QUERY SELECT outs[o], lefts[o], maxes[o] FROM generate_series(1, n) AS o ORDER BY o;
END;
$$;
