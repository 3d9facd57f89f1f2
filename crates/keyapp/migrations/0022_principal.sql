-- The principal these records were made under (its principal id, §3.3), kept
-- at the first start that opens them. A start whose key is another
-- refuses (app::start), so a key another program put in the keychain, or one
-- made anew because the data directory was moved to a path whose keychain
-- entry is empty, never signs on top of the person's records. One row.
CREATE TABLE principal (
    id           INTEGER PRIMARY KEY CHECK (id = 1),
    principal_id TEXT NOT NULL
);
