-- The person may let an agent in its cooldown ask again (Agents, "let it ask
-- again"): refusals decided before this time no longer count towards it.
ALTER TABLE agents ADD COLUMN cooldown_lifted_at INTEGER;
