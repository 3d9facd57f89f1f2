//! The `booking_acceptance` kind (§7.7, §7.9): a booking someone made at the
//! person's own calendar, which waits for its person (`host_approval`), and the
//! person's own yes to it. §7.9: "At a person's calendar (§7.7) the person's
//! own answer is by: "person"" and "A host may also record a person's own yes to
//! an ordinary booking as an acceptance (§5.12) of the booking's offer hash".
//!
//! The agent (the calendar's own) hands in the booking's offer and the
//! calendar's discovery URL. The offer is shown like any offer, after a first
//! line that says the calendar is the person's own; the yes is signed as a
//! `schcp-acceptance+jwt` with `terms_sha256` the offer's hash, no
//! `meeting_id`, `by: "person"`, and the person's own key as `jwk`.

use super::issued::{credential, Issued};
use super::kind::{not_begun, verified_domain, Context, Kind, Prepared, StoredOffer};
use super::{Service, ServiceError};
use crate::kind::RequestKind;
use schcp::claims::HostKind;
use schcp::refusal::Reason;
use schcp::verify::{HostKeys, VerifiedOffer};
use schcp_consent::{ConsentRequest, VerifiedOffer as ConsentOffer};
use serde::{Deserialize, Serialize};
use serde_json::Value;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct BookingAcceptanceBody {
    /// The booking's offer (compact JWS), as the calendar signed it.
    offer: String,
    discovery: String,
}

/// What the agent receives: the acceptance and the hash it names.
#[derive(Debug, PartialEq, Serialize)]
pub(super) struct BookingAcceptanceResult {
    acceptance: String,
    offer_sha256: String,
}

pub(super) struct BookingAcceptance;

/// The offer checked as of its own `iat`: a booking waiting for its person
/// stands on the offer of a hold that became the booking, whose `exp` bounded
/// the hold, not the booking (as for an invitation's contract, §5.10). Every
/// other check of `verify_offer` applies.
fn verify_as_made(compact: &str, host: HostKeys<'_>) -> Result<VerifiedOffer, schcp::Error> {
    let parsed = schcp::jws::parse(compact)?;
    // Not yet trusted: only the time the checks run at. A missing or wrongly
    // typed iat fails the schema inside verify_offer.
    let at = parsed.payload.get("iat").and_then(Value::as_i64).unwrap_or(0);
    schcp::verify::verify_offer(compact, host, at)
}

/// What §7.7 and §7.9 ask before the person is asked: the offer is their own
/// calendar's (`host.kind: "person"`, `host.owner` this person), dated no later
/// than now, and the slot and the calendar's answer deadline (`approval_by`)
/// are still ahead. The latest moment the yes can be given.
fn check(offer: &VerifiedOffer, me: &str, now: i64) -> Result<i64, ServiceError> {
    let mine =
        offer.claims.host.as_ref().is_some_and(|h| h.kind == Some(HostKind::Person) && h.owner.as_deref() == Some(me));
    if !mine {
        return Err(ServiceError::unacceptable(
            Reason::NotMyCalendar,
            "the offer is not for a booking on this person's own calendar (§7.7: host.kind person, host.owner)",
        ));
    }
    if offer.claims.iat > now + schcp::verify::IAT_SKEW {
        return Err(ServiceError::Verification(schcp::Error::IssuedInFuture {
            what: "offer",
            iat: offer.claims.iat,
            now,
        }));
    }
    not_begun("booking", &offer.claims.slot.start, now)?;
    let start = timestamp(&offer.claims.slot.start)?;
    let Some(by) = offer.claims.approval_by.as_deref() else { return Ok(start) };
    let by = timestamp(by)?;
    if by <= now {
        return Err(ServiceError::unacceptable(
            Reason::DeadlinePassed,
            "the calendar's deadline to answer (approval_by) has passed (§5.2)",
        ));
    }
    Ok(by.min(start))
}

fn timestamp(s: &str) -> Result<i64, ServiceError> {
    schcp::datetime::parse_date_time(s)
        .map(|t| t.timestamp())
        .map_err(|e| ServiceError::invalid(Reason::BadSlot, e.to_string()))
}

impl Kind for BookingAcceptance {
    const KIND: RequestKind = RequestKind::BookingAcceptance;
    type Body = BookingAcceptanceBody;
    type Input = StoredOffer;
    type Output = BookingAcceptanceResult;

    async fn prepare(ctx: &Context<'_>, b: BookingAcceptanceBody) -> Result<Prepared<StoredOffer>, ServiceError> {
        let (offer, host) =
            ctx.discovery.verify_with(&b.discovery, |host| verify_as_made(&b.offer, host.host_keys())).await?;
        let not_after = check(&offer, ctx.principal.id, ctx.now)?;
        let placed = ctx.records.place(&host).await?;
        let consent = ConsentRequest::OwnBooking(ConsentOffer {
            claims: offer.claims,
            discovered: verified_domain(&host.domain),
            new_host: placed.new,
        });
        Ok(Prepared::asked(consent, StoredOffer::of(b.offer, &host), Some(not_after)).at(vec![placed.binding]))
    }

    async fn issue(
        ctx: &Context<'_>,
        stored: StoredOffer,
        statement: &str,
    ) -> Result<Issued<BookingAcceptanceResult>, ServiceError> {
        let keys = HostKeys { host_id: &stored.host_id, keys: &stored.keys };
        let offer = verify_as_made(&stored.offer, keys)?;
        // Again at the person's yes: a slot or deadline that passed while they
        // read it is not answered.
        let until = check(&offer, ctx.principal.id, ctx.now)?;
        let accepted = schcp::issue::booking_acceptance(&offer, statement.to_owned(), ctx.now, ctx.principal.key)?;
        // An acceptance has no jti and nothing revokes it; the record's id is the
        // key app's own, and it is kept until the booking's answer was due.
        let jti = Service::new_id("ac-");
        let record = credential(Self::KIND, jti, ctx.agent_jkt, ctx.now, until, accepted.compact.clone());
        let result = BookingAcceptanceResult { acceptance: accepted.compact, offer_sha256: offer.offer_sha256 };
        Ok(Issued::one(result, record))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::service::kind::testing::{all_malformed, parse};

    #[test]
    fn the_body_is_an_offer_and_its_discovery_url() {
        let ok = parse::<BookingAcceptance>(
            r#"{"kind":"booking_acceptance","idempotency_key":"k","offer":"a.b.c","discovery":"d"}"#,
        )
        .unwrap();
        assert_eq!((ok.offer.as_str(), ok.discovery.as_str()), ("a.b.c", "d"));
        all_malformed::<BookingAcceptance>(&[
            r#"{"kind":"booking_acceptance","idempotency_key":"k","discovery":"d"}"#,
            r#"{"kind":"booking_acceptance","idempotency_key":"k","offer":"a.b.c","discovery":"d","by":"rule"}"#,
            r#"{"kind":"booking_acceptance","idempotency_key":"k","offer":"a","offer":"b","discovery":"d"}"#,
        ]);
    }
}
