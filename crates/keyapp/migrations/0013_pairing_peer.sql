-- The local user whose process asked for a pairing (agent_api::peer, from
-- /proc/net/tcp): pending pairings are bounded per user, and the person is
-- told when one user's pairings keep being declined or going unanswered.
-- NULL: not known (asked before this column, or the kernel's table did not say).
ALTER TABLE agents ADD COLUMN peer_uid INTEGER;
CREATE INDEX agents_by_peer ON agents (peer_uid, status);
