-- Claims batched per process (docs/hosted-status.md "Batched claims"): every
-- claim a process has waiting, over any number of credentials, in one call,
-- so one READ COMMITTED transaction and one WAL flush carry them all. Each
-- claim is answered exactly as schcp_claim (or schcp_claim_signed) would have
-- answered it alone, the claims taken one after another in the arrays' order
-- (§3.3: a claim id holds at most one unit; a repeat spends nothing; never
-- more units than max_bookings).
--
-- Locks are taken in one total order, the one every other writer already
-- follows (a claim or release takes its claim row before its credential
-- row): the batch's nonces, sorted; its claim rows, sorted by (thumb, jti,
-- claim_id); then its credential rows, sorted by (thumb, jti). Two batches
-- therefore never wait on each other in a cycle, whichever processes run
-- them. The credential rows are locked (FOR NO KEY UPDATE, which other
-- transactions' claim inserts, checking the foreign key with FOR KEY SHARE,
-- do not wait for) only after the claim rows are in, so they are held for the
-- decisions and the commit alone. The statements are set-based: a batch costs
-- the same handful of statements whatever its size and however many
-- credentials it names. Batches on one credential, of one process
-- (crates/status/src/batch.rs) or of several, take turns at its row lock, and
-- a waiting batch re-reads `remaining` after the one before it committed, so
-- the limit stays exact across processes.
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
    taken BOOLEAN[] := array_fill(false, ARRAY[n]);
    replayed INT[];
    r RECORD;
    -- The claims left after the refusals that need no lock, in arrival order:
    -- each one's ordinal, the ordinal of the first of them with its claim id,
    -- whether that first one inserted the claim id now (it was not held), and
    -- its credential's index in the locked arrays.
    cand INT[];
    cand_first INT[];
    cand_fresh BOOLEAN[];
    cand_cred INT[];
    -- The credentials they name, locked, sorted: their `remaining` before and
    -- as decided, revoked, exp.
    ct TEXT[];
    cj TEXT[];
    was BIGINT[];
    rems BIGINT[];
    revs BOOLEAN[];
    exps BIGINT[];
    gone INT[] := '{}';
    sig INT[] := '{}';
    vi INT;
    vf INT;
    vx INT;
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
    IF EXISTS (SELECT 1 FROM unnest(p_keyids) AS k WHERE k IS NOT NULL) THEN
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
        FOREACH vi IN ARRAY replayed LOOP outs[vi] := 'replayed'; END LOOP;
    END IF;

    -- The refusals that need no lock, in the embedded API's order
    -- (keyapp::store::booking_claims, as schcp_claim), from one read.
    FOR r IN SELECT u.o::INT AS o, c.thumb IS NOT NULL AS found, c.aud, c.remaining,
                    c.revoked_at IS NOT NULL AS revoked, c.exp, c.max_bookings
               FROM unnest(p_thumbs, p_jtis) WITH ORDINALITY AS u(t, j, o)
               LEFT JOIN credentials c ON c.thumb = u.t AND c.jti = u.j LOOP
        CONTINUE WHEN outs[r.o] IS NOT NULL;
        IF NOT r.found THEN outs[r.o] := 'unknown'; CONTINUE; END IF;
        maxes[r.o] := r.max_bookings;
        IF r.remaining IS NULL THEN outs[r.o] := 'no_shared_limit';
        ELSIF NOT (p_hosts[r.o] = ANY (r.aud)) THEN outs[r.o] := 'host_not_in_audience';
        ELSIF r.revoked THEN outs[r.o] := 'revoked';
        ELSIF p_nows[r.o] >= r.exp THEN outs[r.o] := 'expired';
        END IF;
    END LOOP;

    -- The claim ids not held before this batch, inserted in sorted order; a
    -- claim id another transaction is inserting is waited for, as a single
    -- claim waits.
    WITH u AS (
        SELECT t, j, id, at, o::INT AS o
          FROM unnest(p_thumbs, p_jtis, p_claim_ids, p_nows) WITH ORDINALITY AS u(t, j, id, at, o)
         WHERE outs[o] IS NULL),
    f AS (SELECT DISTINCT ON (t, j, id) t, j, id, at, o FROM u ORDER BY t, j, id, o),
    ins AS (
        INSERT INTO claims (thumb, jti, claim_id, claimed_at)
        SELECT t, j, id, at FROM f ORDER BY t, j, id
            ON CONFLICT DO NOTHING
        RETURNING thumb, jti, claim_id)
    SELECT array_agg(u.o ORDER BY u.o), array_agg(f.o ORDER BY u.o),
           array_agg(ins.claim_id IS NOT NULL ORDER BY u.o)
      INTO cand, cand_first, cand_fresh
      FROM u JOIN f ON f.t = u.t AND f.j = u.j AND f.id = u.id
      LEFT JOIN ins ON ins.thumb = f.t AND ins.jti = f.j AND ins.claim_id = f.id;
    IF cand IS NOT NULL THEN
        -- Their credentials, locked in sorted order, each read as the batch
        -- before it on the same credential committed it.
        SELECT array_agg(c.thumb ORDER BY c.thumb, c.jti), array_agg(c.jti ORDER BY c.thumb, c.jti),
               array_agg(c.remaining ORDER BY c.thumb, c.jti), array_agg(c.revoked ORDER BY c.thumb, c.jti),
               array_agg(c.exp ORDER BY c.thumb, c.jti)
          INTO ct, cj, was, revs, exps
          FROM (SELECT thumb, jti, remaining, revoked_at IS NOT NULL AS revoked, exp FROM credentials
                 WHERE (thumb, jti) IN (SELECT p_thumbs[o], p_jtis[o] FROM unnest(cand) AS o)
                 ORDER BY thumb, jti
                   FOR NO KEY UPDATE) c;
        rems := was;
        SELECT array_agg(k::INT ORDER BY o) INTO cand_cred
          FROM unnest(cand) AS o
          JOIN unnest(ct, cj) WITH ORDINALITY AS c(t, j, k) ON c.t = p_thumbs[o] AND c.j = p_jtis[o];
        IF coalesce(array_length(cand_cred, 1), 0) <> array_length(cand, 1) THEN
            RAISE EXCEPTION 'schcp_claim_batch: a credential of the batch is gone';
        END IF;
        -- Decided in arrival order, as single claims one after another: a
        -- claim id held before, or taken earlier in this batch, is held
        -- already; a fresh one takes a unit if one is left. Only claims take
        -- part, so `remaining` never grows within a batch, and a repeat of a
        -- refused claim id is decided again, as its single retry would be.
        FOR k IN 1 .. array_length(cand, 1) LOOP
            vi := cand[k];
            vf := cand_first[k];
            vx := cand_cred[k];
            IF NOT cand_fresh[k] OR taken[vf] THEN
                outs[vi] := 'already_held';
                lefts[vi] := rems[vx];
            ELSIF revs[vx] THEN outs[vi] := 'revoked';
            ELSIF p_nows[vi] >= exps[vx] THEN outs[vi] := 'expired';
            ELSIF rems[vx] > 0 THEN
                rems[vx] := rems[vx] - 1;
                outs[vi] := 'claimed';
                lefts[vi] := rems[vx];
                taken[vf] := true;
            ELSE outs[vi] := 'none_left';
            END IF;
            IF p_keyids[vi] IS NOT NULL AND outs[vi] IN ('claimed', 'already_held') THEN sig := sig || vi; END IF;
        END LOOP;
        -- Refused claims leave nothing behind.
        FOR k IN 1 .. array_length(cand, 1) LOOP
            vf := cand_first[k];
            IF cand_fresh[k] AND NOT taken[vf] AND NOT (vf = ANY (gone)) THEN gone := gone || vf; END IF;
        END LOOP;
        IF array_length(gone, 1) IS NOT NULL THEN
            DELETE FROM claims c
             USING unnest(gone) AS o
             WHERE c.thumb = p_thumbs[o] AND c.jti = p_jtis[o] AND c.claim_id = p_claim_ids[o];
        END IF;
        UPDATE credentials c SET remaining = u.r
          FROM unnest(ct, cj, rems, was) AS u(t, j, r, w)
         WHERE c.thumb = u.t AND c.jti = u.j AND u.r <> u.w;
        -- A claim id its host claimed signed becomes its host's, taken now or
        -- held already (schcp_claim_signed).
        IF array_length(sig, 1) IS NOT NULL THEN
            UPDATE claims c SET signed = true
              FROM unnest(sig) AS o
             WHERE c.thumb = p_thumbs[o] AND c.jti = p_jtis[o] AND c.claim_id = p_claim_ids[o] AND NOT c.signed;
        END IF;
    END IF;
    RETURN QUERY SELECT outs[o], lefts[o], maxes[o] FROM generate_series(1, n) AS o ORDER BY o;
END;
$$;
