-- Each bound host's name, as its verified discovery document gives it (SchCP
-- §2.1 `host.name`) and the consent text shows it (made inert), so My
-- bookings and the records' host filter name hosts as the person read them,
-- not by id or domain. Written at each yes to a request for the host at its
-- bound place. NULL until then, unless a stored request at that same place
-- (its `hosts`, migration 0010) kept the name with its offer's terms
-- (migration 0018): the newest such name is filled in here.
ALTER TABLE host_bindings ADD COLUMN name TEXT;
UPDATE host_bindings SET name = (
    SELECT json_extract(r.terms, '$.host')
    FROM requests r, json_each(r.hosts) h
    WHERE r.terms IS NOT NULL AND r.hosts IS NOT NULL
      AND json_valid(r.terms) AND json_valid(r.hosts)
      AND json_array_length(r.hosts) = 1
      AND json_extract(h.value, '$.host_id') = host_bindings.host_id
      AND json_extract(h.value, '$.domain') = host_bindings.domain
      AND json_extract(h.value, '$.basis') = host_bindings.basis
      AND json_type(r.terms, '$.host') = 'text'
      AND json_extract(r.terms, '$.host') <> host_bindings.host_id
      AND json_extract(r.terms, '$.host') <> ''
    ORDER BY r.created_at DESC, r.request_id DESC
    LIMIT 1)
WHERE name IS NULL;
