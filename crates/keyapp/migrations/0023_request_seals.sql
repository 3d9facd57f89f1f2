-- Each request's seal (record_seal): an HMAC over the fields the consent
-- window shows and its yes is signed from, under a key only the principal's
-- key makes. The person's programs can write these records; a row the key app
-- did not write, or one changed since, is refused before it is shown or
-- signed from. Rows written before this migration have none and are refused
-- alike: a pending request lives minutes, and the agent asks again.
ALTER TABLE requests ADD COLUMN seal TEXT;
