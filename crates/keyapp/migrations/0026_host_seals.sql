-- Each host record's seal (record_seal): an HMAC, under the key only the
-- principal's key makes, over a binding's place and name, a noted change's
-- place, and a credential host's place and keys (SchCP §2.2). A binding
-- decides whether the person is told they have not dealt with a host, and
-- which name the records screens give it; a credential host decides where a
-- receipt or change offer citing the credential may come from, and a noted
-- change is what the person may accept as the host's move. The person's
-- programs can write these tables, so a row the key app did not write, or
-- one changed since, binds and proves nothing. Rows from before this
-- migration have none: their hosts read as new to the person again, and are
-- bound again, sealed, at the next yes.
ALTER TABLE host_bindings ADD COLUMN seal TEXT;
ALTER TABLE host_domain_changes ADD COLUMN seal TEXT;
ALTER TABLE credential_hosts ADD COLUMN seal TEXT;
