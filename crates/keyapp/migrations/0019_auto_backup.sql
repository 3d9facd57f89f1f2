-- The daily backup the person chose in the window's Settings when the key app
-- runs without a config file (recovery::custody). One row; none until chosen.
-- folder NULL: no automatic backup.
CREATE TABLE auto_backup (
    id     INTEGER PRIMARY KEY CHECK (id = 1),
    folder TEXT,
    keep   INTEGER NOT NULL CHECK (keep >= 1)
);
