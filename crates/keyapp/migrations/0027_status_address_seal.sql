-- The confirmed status address's seal (record_seal): an HMAC, under the key
-- only the principal's key makes, over the address, when and how the person
-- confirmed it. Every status URL the key app signs points there, so a row the
-- person's programs wrote (an assistant's own server, which would answer
-- "active" for a revoked credential and grant a shared limit without end) is
-- no confirmation: the built-in address stays in force, and the address the
-- config asks for is offered in Settings, for the OS to confirm. A row from
-- before this migration has none and reads the same way.
ALTER TABLE status_address ADD COLUMN seal TEXT;
