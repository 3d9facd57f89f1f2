-- schcp_claim_batch with fewer statements and plans made once (docs/benchmarks.md,
-- "Hosted status service"). Its answers are the same, claim by claim, as
-- migration 0004's, and so as schcp_claim's taken one after another (§3.3: a
-- claim id holds at most one unit; a repeat spends nothing; never more units
-- than max_bookings); only its cost changes. A batch of one claim cost about
-- 300 µs of PostgreSQL's time whatever it carried: a statement per step,
-- each run through SPI, and some planned again on every call.
--
-- - The refusals that need no lock are one statement, not a loop over a cursor.
-- - The credentials are locked and matched to their claims in one statement.
-- - Every statement keeps one generic plan (`plan_cache_mode`): the arrays
--   change on every call, the plan never needs to. A custom plan was made for
--   the credentials' UPDATE on every call.
--
-- Locks are taken in 0004's total order: the batch's nonces, sorted; its claim
-- rows, sorted by (thumb, jti, claim_id); then its credential rows, sorted by
-- (thumb, jti) (`ORDER BY … FOR NO KEY UPDATE` locks in the sort's order).
-- The claim rows of a batch (schcp_claim_batch): inserts the claim ids of the
-- claims `p_outs` has not answered, in sorted order, and answers, for each
-- such claim in arrival order, its ordinal, the ordinal of the first of them
-- with its claim id, whether that one inserted it now, and its credential's
-- rank (dense, by thumb then jti) among theirs. Its joins are of the batch's
-- own rows, which the planner cannot count; they are hashed, not nested
-- (a nested loop compares every claim with every other).
CREATE FUNCTION schcp_claim_rows(p_thumbs TEXT[], p_jtis TEXT[], p_claim_ids TEXT[], p_nows BIGINT[], p_outs TEXT[],
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
        INSERT INTO claims (thumb, jti, claim_id, claimed_at)
        SELECT t, j, id, at FROM u WHERE o = first ORDER BY t, j, id
            ON CONFLICT DO NOTHING
        RETURNING thumb, jti, claim_id)
    SELECT array_agg(u.o ORDER BY u.o), array_agg(u.first ORDER BY u.o),
           array_agg(ins.claim_id IS NOT NULL ORDER BY u.o), array_agg(u.cred ORDER BY u.o)
      INTO cand, cand_first, cand_fresh, cand_cred
      FROM u LEFT JOIN ins ON ins.thumb = u.t AND ins.jti = u.j AND ins.claim_id = u.id;
END;
$$;

CREATE OR REPLACE FUNCTION schcp_claim_batch(p_thumbs TEXT[], p_jtis TEXT[], p_claim_ids TEXT[], p_hosts TEXT[],
                                             p_nows BIGINT[], p_keyids TEXT[], p_nonces TEXT[], p_keep_untils BIGINT[])
RETURNS TABLE (outcome TEXT, left_units BIGINT, max_units BIGINT)
LANGUAGE plpgsql VOLATILE
SET plan_cache_mode = force_generic_plan
AS $$
DECLARE
    n INT := coalesce(array_length(p_claim_ids, 1), 0);
    outs TEXT[];
    lefts BIGINT[];
    maxes BIGINT[];
    taken BOOLEAN[];
    replayed INT[];
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
    -- Arrays as the service sends them: one dimension, from index 1 (the
    -- statements below index by ordinal and unnest by value; a shifted or
    -- nested array would set them apart).
    IF array_ndims(p_thumbs) <> 1 OR array_ndims(p_jtis) <> 1 OR array_ndims(p_claim_ids) <> 1
       OR array_ndims(p_hosts) <> 1 OR array_ndims(p_nows) <> 1 OR array_ndims(p_keyids) <> 1
       OR array_ndims(p_nonces) <> 1 OR array_ndims(p_keep_untils) <> 1
       OR array_lower(p_thumbs, 1) <> 1 OR array_lower(p_jtis, 1) <> 1 OR array_lower(p_claim_ids, 1) <> 1
       OR array_lower(p_hosts, 1) <> 1 OR array_lower(p_nows, 1) <> 1 OR array_lower(p_keyids, 1) <> 1
       OR array_lower(p_nonces, 1) <> 1 OR array_lower(p_keep_untils, 1) <> 1 THEN
        RAISE EXCEPTION 'schcp_claim_batch: every array must have one dimension, from index 1';
    END IF;
    IF array_length(p_jtis, 1) IS DISTINCT FROM n OR array_length(p_thumbs, 1) IS DISTINCT FROM n
       OR array_length(p_hosts, 1) IS DISTINCT FROM n OR array_length(p_nows, 1) IS DISTINCT FROM n
       OR array_length(p_keyids, 1) IS DISTINCT FROM n OR array_length(p_nonces, 1) IS DISTINCT FROM n
       OR array_length(p_keep_untils, 1) IS DISTINCT FROM n THEN
        RAISE EXCEPTION 'schcp_claim_batch: the arrays differ in length';
    END IF;
    outs := array_fill(NULL::TEXT, ARRAY[n]);
    lefts := array_fill(NULL::BIGINT, ARRAY[n]);
    taken := array_fill(false, ARRAY[n]);

    -- Signed claims spend their nonce first (schcp_claim_signed's order). The
    -- first claim carrying a (keyid, nonce) spends it; a later one in the same
    -- batch, or one whose nonce was spent before, is a replay (§3.2).
    IF cardinality(array_remove(p_keyids, NULL)) > 0 THEN
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
    -- (keyapp::store::booking_claims, as schcp_claim), from one read; a
    -- replayed claim keeps its answer and names no max.
    SELECT array_agg(coalesce(outs[u.o], CASE
                         WHEN c.thumb IS NULL THEN 'unknown'
                         WHEN c.remaining IS NULL THEN 'no_shared_limit'
                         WHEN NOT (p_hosts[u.o] = ANY (c.aud)) THEN 'host_not_in_audience'
                         WHEN c.revoked_at IS NOT NULL THEN 'revoked'
                         WHEN p_nows[u.o] >= c.exp THEN 'expired' END) ORDER BY u.o),
           array_agg(CASE WHEN outs[u.o] IS NULL THEN c.max_bookings END ORDER BY u.o)
      INTO outs, maxes
      FROM unnest(p_thumbs, p_jtis) WITH ORDINALITY AS u(t, j, o)
      LEFT JOIN credentials c ON c.thumb = u.t AND c.jti = u.j;

    -- The claim ids not held before this batch, inserted in sorted order; a
    -- claim id another transaction is inserting is waited for, as a single
    -- claim waits. With each claim: the first claim of the batch with its
    -- claim id, and its credential's rank among the batch's credentials.
    SELECT r.cand, r.cand_first, r.cand_fresh, r.cand_cred INTO cand, cand_first, cand_fresh, cand_cred
      FROM schcp_claim_rows(p_thumbs, p_jtis, p_claim_ids, p_nows, outs) AS r;
    IF cand IS NOT NULL THEN
        -- Their credentials, locked in sorted order, each read as the batch
        -- before it on the same credential committed it. Sorted as the ranks
        -- were, so a claim's rank is its credential's index here.
        SELECT array_agg(c.thumb ORDER BY c.thumb, c.jti), array_agg(c.jti ORDER BY c.thumb, c.jti),
               array_agg(c.remaining ORDER BY c.thumb, c.jti), array_agg(c.revoked ORDER BY c.thumb, c.jti),
               array_agg(c.exp ORDER BY c.thumb, c.jti)
          INTO ct, cj, was, revs, exps
          FROM (SELECT thumb, jti, remaining, revoked_at IS NOT NULL AS revoked, exp FROM credentials
                 WHERE (thumb, jti) IN (SELECT p_thumbs[o], p_jtis[o] FROM unnest(cand) AS o)
                 ORDER BY thumb, jti
                   FOR NO KEY UPDATE) c;
        IF coalesce(array_length(ct, 1), 0) <> (SELECT max(x) FROM unnest(cand_cred) AS x) THEN
            RAISE EXCEPTION 'schcp_claim_batch: a credential of the batch is gone';
        END IF;
        rems := was;
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
    RETURN QUERY SELECT x.a, x.b, x.c FROM unnest(outs, lefts, maxes) WITH ORDINALITY AS x(a, b, c, o) ORDER BY x.o;
END;
$$;
