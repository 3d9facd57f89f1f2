//! Verification: each function takes untrusted bytes and returns a verified
//! value or one specific error. The key app runs these before anything reaches
//! a person (§5.2, §5.3), and hosts and agents can run the same checks.

mod attestation;
mod chain;
mod meeting;
mod meeting_terms;
mod moves;
mod offer;
mod receipt;
mod rule;
mod sd_jwt_mandate;

pub use attestation::{
    select_attestations, verify_attestation, AttestationCheck, HostTrust, Selection, VerifiedAttestation,
    MAX_ATTESTATIONS,
};
pub use chain::{check_action, verify_mandate_chain, ActionCheck, ChainContext, VerifiedChain, VerifiedLink};
pub use meeting::{
    check_contract_terms, verify_acceptance, verify_meeting_contract, VerifiedAcceptance, VerifiedContract,
    HOST_PRINCIPAL_PREFIX,
};
pub use meeting_terms::{
    answers_due_before_start, member_named, offer_fits_revision, offer_matches_terms, organizer_is_member,
    premises_are_the_place, MemberName, MemberRefusal, TermsMismatch,
};
pub use moves::{check_awaiting_move, check_prev_chain, proposed_by, ProposedChange};
pub use offer::{verify_offer, HostKeys, VerifiedOffer};
pub use receipt::{verify_receipt, ReceiptExpectations, VerifiedReceipt};
pub use rule::{verify_rule, VerifiedRule};
pub use sd_jwt_mandate::verify_sd_jwt_mandate;

use crate::error::Error;
use crate::jws::Parsed;
use crate::schema::{self, Def};

/// §3.3 check 3 and §5.12: 60 seconds of skew on iat, and no more.
pub const IAT_SKEW: i64 = 60;

/// Schema first, then the typed value: the closed schema is what refuses
/// unknown members at any depth, unparseable dates and wrongly typed limits.
fn typed_claims<T: serde::de::DeserializeOwned>(parsed: &Parsed<'_>, def: Def) -> Result<T, Error> {
    schema::validate(def, &parsed.payload)?;
    parsed.claims().map_err(|e| Error::Json(crate::json::JsonError::Malformed(e.to_string())))
}

/// An IANA zone name that exists in the zone database.
pub fn parse_tz(name: &str) -> Result<chrono_tz::Tz, Error> {
    name.parse().map_err(|_| Error::UnknownTimeZone(name.to_owned()))
}
