-- Each request named in one short line (schcp_consent::summary), in the
-- consent language it was shown in: the lists a person scans (Requests,
-- History, notifications) name what was asked, not the kind of credential.
-- Requests stored before this read as '' and are named by their kind.
ALTER TABLE requests ADD COLUMN summary TEXT NOT NULL DEFAULT '';
