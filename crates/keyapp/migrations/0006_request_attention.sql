-- The look-twice callouts of each request (schcp_consent::attention), computed
-- from the verified typed request when it is created, beside the text it points at.
CREATE TABLE request_attention (
    request_id  TEXT PRIMARY KEY REFERENCES requests(request_id),
    items       TEXT NOT NULL              -- JSON array of {kind, detail}
);
