-- The request path reads these on every call: pending requests by expiry (the
-- expiry sweep), and an agent's requests by status and decision time (the
-- pending cap and the cooldown). Without them each is a table scan.
CREATE INDEX requests_pending_by_expiry ON requests (status, expires_at);
CREATE INDEX requests_by_agent_status ON requests (agent_jkt, status, decided_at);
