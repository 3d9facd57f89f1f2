//! The `booking_read` kind: a narrow read credential. §5.5 lets a required
//! participant read the booking they are invited to (§5.10), with a mandate of
//! their own; §3.3 "Constraints bind reads too" makes one whose
//! `constraints.bookings` names that booking alone good for reading it and no
//! other. Its scope is `hold`, the one action such a mandate can never take
//! (§3.3: a mandate with `bookings` "cannot place holds"), so it allows
//! reading that booking and nothing else (docs/decisions.md).

use super::issued::{booking_mandate_record, Issued};
use super::kind::{capped_lifetime, host_mismatch, verified_domain, Context, Kind, Prepared};
use super::{Service, ServiceError};
use crate::kind::RequestKind;
use schcp::claims::{Action, Audience, Consent, ConsentMode, Constraints};
use schcp::issue::{self, RootMandate};
use schcp::refusal::Reason;
use schcp_consent::{BookingReadRequest, ConsentRequest, MandateHost};
use serde::{Deserialize, Serialize};

/// A read credential lasts an hour unless asked for less, and at most a day.
const DEFAULT_READ_LIFETIME: i64 = 3_600;
const MAX_READ_LIFETIME: i64 = 86_400;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct BookingReadBody {
    /// The host id, as the agent was told it.
    host: String,
    discovery: String,
    booking_id: String,
    lifetime: Option<String>,
}

/// What `issue` signs: the verified host and the booking named.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct BookingReadInput {
    host_id: String,
    booking_id: String,
    /// The expiry the person read, signed as it was shown (§5.3: the text is
    /// what is signed), however long the request waited for the yes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    exp: Option<i64>,
    /// What a request stored before `exp` was kept carries instead: its
    /// lifetime, counted from the approval as it was then.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    exp_in: Option<i64>,
}

impl BookingReadInput {
    /// The expiry to sign at `now`.
    fn exp(&self, now: i64) -> Result<i64, ServiceError> {
        match (self.exp, self.exp_in) {
            (Some(exp), _) => Ok(exp),
            (None, Some(lifetime)) => Ok(now.saturating_add(lifetime)),
            (None, None) => Err(super::corrupt("a booking_read request stored with no expiry")),
        }
    }
}

#[derive(Debug, PartialEq, Serialize)]
pub(super) struct BookingReadResult {
    mandate: String,
    jti: String,
    exp: i64,
    booking_id: String,
}

/// A booking id as hosts write one (the schema's `Id`): 1 to 128 of
/// `[A-Za-z0-9_-]`, so it cannot carry anything else into the text or the mandate.
fn booking_id(id: &str) -> Result<(), ServiceError> {
    let ok = (1..=128).contains(&id.len()) && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    if !ok {
        return Err(ServiceError::invalid(Reason::Malformed, "booking_id must be 1 to 128 of A-Z a-z 0-9 _ -"));
    }
    Ok(())
}

pub(super) struct BookingRead;

impl Kind for BookingRead {
    const KIND: RequestKind = RequestKind::BookingRead;
    type Body = BookingReadBody;
    type Input = BookingReadInput;
    type Output = BookingReadResult;

    async fn prepare(ctx: &Context<'_>, b: BookingReadBody) -> Result<Prepared<BookingReadInput>, ServiceError> {
        booking_id(&b.booking_id)?;
        let exp_in = capped_lifetime(b.lifetime.as_deref(), DEFAULT_READ_LIFETIME, MAX_READ_LIFETIME)?;
        let host = ctx.discovery.fetch(&b.discovery).await?;
        if host.host_id != b.host {
            return Err(host_mismatch(&b.discovery, &host.host_id, &b.host));
        }
        let placed = ctx.records.place(&host).await?;
        let consent = ConsentRequest::BookingRead(BookingReadRequest {
            agent_name: ctx.records.agent_name(ctx.agent_jkt).await?,
            host: MandateHost {
                id: host.host_id.clone(),
                name: Some(host.name.clone()),
                domain: verified_domain(&host.domain),
                new_host: placed.new,
            },
            booking_id: b.booking_id.clone(),
            exp: ctx.now + exp_in,
            tz: Some(host.tz.clone()),
        });
        let exp = Some(ctx.now + exp_in);
        let input = BookingReadInput { host_id: host.host_id.clone(), booking_id: b.booking_id, exp, exp_in: None };
        Ok(Prepared::asked(consent, input, None).at(vec![placed.binding]))
    }

    async fn issue(
        ctx: &Context<'_>,
        input: BookingReadInput,
        statement: &str,
    ) -> Result<Issued<BookingReadResult>, ServiceError> {
        let (now, exp) = (ctx.now, input.exp(ctx.now)?);
        if exp <= now {
            return Err(ServiceError::Verification(schcp::Error::Expired { what: "booking read request", exp, now }));
        }
        let jti = Service::new_id("m-");
        let claims = RootMandate {
            aud: Audience::One(input.host_id.clone()),
            sub: ctx.principal.pseudonym(),
            jti: jti.clone(),
            iat: ctx.now,
            exp,
            agent_jkt: ctx.agent_jkt.to_owned(),
            scope: vec![Action::Hold],
            constraints: Some(Constraints { bookings: Some(vec![input.booking_id.clone()]), ..Constraints::default() }),
            consent: Consent { mode: Some(ConsentMode::HumanPresent), statement: statement.to_owned() },
            contact: None,
            status: Some(ctx.status_url(&jti)),
            attestations: Vec::new(),
        };
        let issued = issue::root_mandate(claims, ctx.principal.key)?;
        let record = booking_mandate_record(Self::KIND, ctx.agent_jkt, &issued, Some(input.booking_id.clone()));
        let result =
            BookingReadResult { mandate: issued.compact, jti, exp: issued.claims.exp, booking_id: input.booking_id };
        Ok(Issued::one(result, record))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::service::kind::testing::{all_malformed, parse, refusal, round_trips};

    #[test]
    fn the_body_names_a_host_its_discovery_and_one_booking() {
        let ok = parse::<BookingRead>(
            r#"{"kind":"booking_read","idempotency_key":"k","host":"h","discovery":"d","booking_id":"b_7"}"#,
        )
        .unwrap();
        assert_eq!(ok.booking_id, "b_7");
        all_malformed::<BookingRead>(&[
            r#"{"kind":"booking_read","idempotency_key":"k","host":"h","discovery":"d"}"#,
            r#"{"kind":"booking_read","idempotency_key":"k","host":"h","discovery":"d","booking_id":"b","scope":["book"]}"#,
        ]);
        round_trips(&BookingReadInput {
            host_id: "h".into(),
            booking_id: "b_7".into(),
            exp: Some(1_796_000_060),
            exp_in: None,
        });
        // Stored before the expiry shown was kept: its lifetime from the approval, as then.
        let old: BookingReadInput = serde_json::from_str(r#"{"host_id":"h","booking_id":"b_7","exp_in":60}"#).unwrap();
        assert_eq!(old.exp(1_796_000_000).unwrap(), 1_796_000_060);
        assert_eq!(round_trip_exp(r#"{"host_id":"h","booking_id":"b_7","exp":5}"#), 5);
    }

    fn round_trip_exp(json: &str) -> i64 {
        serde_json::from_str::<BookingReadInput>(json).unwrap().exp(0).unwrap()
    }

    #[test]
    fn a_booking_id_carries_nothing_else() {
        assert!(booking_id("b_7Qx2-a").is_ok());
        for bad in ["", "b 7", "b_7\n", "b/../x", "é", &"b".repeat(129)] {
            assert_eq!(refusal(booking_id(bad)), Reason::Malformed, "{bad:?}");
        }
    }
}
