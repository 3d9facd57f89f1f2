-- A change offer names the booking's current contract by hash (§5.7 prev); the
-- key app finds the closed mandate it signed over that contract by this index.
CREATE INDEX requests_by_offer ON requests (json_extract(result, '$.offer_sha256'))
    WHERE kind = 'closed_mandate' AND status = 'approved';
