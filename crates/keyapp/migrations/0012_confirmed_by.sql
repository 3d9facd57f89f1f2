-- How the OS confirmed that the person gave a yes (user_verification): the
-- method, e.g. 'polkit', on the history entry of the approval and on each
-- credential it issued. NULL where no person was asked: a management mandate
-- issued without a prompt (§3.3), and every record from before this migration.
-- consent.mode in the signed credential stays as the spec has it.
ALTER TABLE history ADD COLUMN confirmed_by TEXT;
ALTER TABLE credentials ADD COLUMN confirmed_by TEXT;
