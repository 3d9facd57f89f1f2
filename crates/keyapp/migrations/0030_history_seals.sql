-- Each history entry's seal (record_seal): an HMAC, under the key only the
-- principal's key makes, over the entry's row id, time, event, subject,
-- detail and how the yes was confirmed. History tells the person what they
-- and their assistants did ("You approved: …"); the person's programs can
-- write this table, so an entry the key app did not write, or one changed
-- since, is shown only as an entry it cannot vouch for. The key app now writes
-- a new request's entry itself, sealed, in the transaction that stores the
-- request: the trigger that wrote it could not seal it. Entries from before
-- this migration have none and read the same way.
ALTER TABLE history ADD COLUMN seal TEXT;
DROP TRIGGER request_created_history;
