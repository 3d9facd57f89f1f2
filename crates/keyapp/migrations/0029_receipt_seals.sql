-- Each kept receipt's seal (record_seal): an HMAC, under the key only the
-- principal's key makes, over the receipt as the key app verified and kept it
-- (§5.3): its host, booking, contract, the credential it cites, the host's
-- signed bytes and when they were verified. My bookings shows the person a
-- booking only from a receipt that holds its seal: the person's programs can
-- write this table, and a row written there (a booking no host signed, or a
-- real receipt pointed at another credential) would otherwise be shown as
-- verified. A row from before this migration has none and is not shown.
ALTER TABLE receipts ADD COLUMN seal TEXT;
