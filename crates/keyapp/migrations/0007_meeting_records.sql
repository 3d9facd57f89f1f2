-- Meeting contracts and acceptances are records like any credential (issue 10):
-- each kept with the contract it is about, its meeting, revision and members.
-- Which revision is current is read from the highest revision kept here.
CREATE TABLE meeting_records (
    jti             TEXT PRIMARY KEY REFERENCES credentials (jti),
    meeting_id      TEXT NOT NULL,
    revision        INTEGER NOT NULL CHECK (revision >= 1),
    contract_sha256 TEXT NOT NULL,
    members         TEXT NOT NULL
);
CREATE INDEX meeting_records_by_meeting ON meeting_records (meeting_id, revision);
