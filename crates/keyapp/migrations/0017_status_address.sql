-- The status address the person confirmed (SchCP §3.3 "Status URLs"): status
-- URLs point only here, whatever the config file says later, until the person
-- confirms another to the OS (setup, Settings, or a config edit they confirm).
-- One row; none until the person first answers setup or confirms an address.
-- confirmed_by is the OS's method ('polkit'), or NULL for "not now" answered
-- while the built-in loopback address was already in force (nothing changed).
CREATE TABLE status_address (
    id                    INTEGER PRIMARY KEY CHECK (id = 1),
    hosted                TEXT,
    public_base           TEXT NOT NULL,
    hosts_on_this_machine INTEGER NOT NULL CHECK (hosts_on_this_machine IN (0, 1)),
    confirmed_at          INTEGER NOT NULL,
    confirmed_by          TEXT
);
