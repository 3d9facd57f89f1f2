-- A lost computer's switch (docs/hosted-status.md "Revoking everything"): one
-- update signed by the namespace's key revokes every credential registered in
-- it at or before the update's `before`, in one transaction.

-- Finds a namespace's credentials still active by registration time, so the
-- revocation reads only what it changes.
CREATE INDEX credentials_active_by_registration ON credentials (thumb, registered_at) WHERE revoked_at IS NULL;

-- Every revoke_all applied, for the operator and the person: when, how far
-- back it reached, and how many credentials it revoked. Written in the
-- transaction that revokes; a refused update writes nothing here. Purged with
-- the credentials it could have named (`store::purge`).
CREATE TABLE namespace_revocations (
    thumb      TEXT   NOT NULL,
    update_jti TEXT   NOT NULL,
    before     BIGINT NOT NULL,
    applied_at BIGINT NOT NULL,
    revoked    BIGINT NOT NULL CHECK (revoked >= 0),
    PRIMARY KEY (thumb, update_jti)
);
CREATE INDEX namespace_revocations_applied_at ON namespace_revocations (applied_at);
