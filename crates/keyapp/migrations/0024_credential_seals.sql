-- Each credential's seal (record_seal): an HMAC over its row as issued, under
-- the key only the principal's key makes. The key app signs a credential's
-- registration with the hosted status service (its hosts, expiry, booking
-- limit and host keys) from this row, without asking the person again; the
-- person's programs can write it, so a row changed since it was issued is
-- never signed from. Rows written before this migration have none: one whose
-- registration is still owed waits, unpublished, and says so.
ALTER TABLE credentials ADD COLUMN seal TEXT;
