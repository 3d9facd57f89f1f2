-- Each contact's seal (record_seal): an HMAC over its principal, name and
-- relationship, under the key only the principal's key makes. A consent text
-- names the people it is about by the person's contact names, so a contact
-- is as strong as a yes and is kept only once the OS confirmed the person;
-- the person's programs can write this table, so a row the key app did not
-- write, or one changed since, is not a contact. Rows from before this
-- migration have none, and the person adds them again.
ALTER TABLE contacts ADD COLUMN seal TEXT;
