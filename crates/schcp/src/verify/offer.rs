//! `verify_offer` (§5.2, §5.7): what a key app checks before a person sees an offer.

use super::{parse_tz, typed_claims};
use crate::claims::OfferClaims;
use crate::datetime::parse_date_time;
use crate::duration::{Duration, Retention};
use crate::error::{Error, PricePart, SlotCheck};
use crate::jwk::Jwk;
use crate::jws::{self, Typ};
use crate::money::Amount;
use crate::schema::Def;
use chrono::{DateTime, FixedOffset};

/// The host as the key app discovered it: the id from its discovery document
/// and that document's keys, the only keys a host JWS may be checked with (§2.1).
#[derive(Debug, Clone, Copy)]
pub struct HostKeys<'a> {
    /// The host id from discovery, which the offer's `iss` must be.
    pub host_id: &'a str,
    /// The discovery document's keys.
    pub keys: &'a [Jwk],
}

/// An offer whose signature, schema, money and times all checked out.
#[derive(Debug, Clone)]
pub struct VerifiedOffer {
    /// The compact JWS.
    pub compact: String,
    /// Its claims.
    pub claims: OfferClaims,
    /// §5.3: base64url SHA-256 of the exact compact JWS.
    pub offer_sha256: String,
    /// The discovery key it was verified with.
    pub kid: String,
    /// The slot's start.
    pub start: DateTime<FixedOffset>,
    /// None for an open-ended offer (§4.2).
    pub end: Option<DateTime<FixedOffset>>,
    /// The all-in total, when the offer states a price (§5.2).
    pub total: Option<Amount>,
    /// How long the host keeps the booking's data (§5.2 `retention`).
    pub retention: Retention,
}

impl VerifiedOffer {
    /// Whether the slot has no end (§4.2 `open_end`).
    pub fn is_open_ended(&self) -> bool {
        self.end.is_none()
    }
}

/// Verifies a booking or change offer: kid → discovery key, signature, typ,
/// closed schema, version, issuer, expiry, slot, money (§2.1, §5.2) and the
/// durations it carries.
pub fn verify_offer(compact: &str, host: HostKeys<'_>, now: i64) -> Result<VerifiedOffer, Error> {
    let parsed = jws::parse(compact)?;
    parsed.verify_with_discovery_keys(Typ::Offer, host.keys)?;
    let claims: OfferClaims = typed_claims(&parsed, Def::OfferClaims)?;
    if claims.iss != host.host_id {
        return Err(Error::WrongIssuer { what: "offer", expected: host.host_id.into(), found: claims.iss.clone() });
    }
    if now >= claims.exp {
        return Err(Error::Expired { what: "offer", exp: claims.exp, now });
    }
    if claims.iat > now + super::IAT_SKEW {
        return Err(Error::IssuedInFuture { what: "offer", iat: claims.iat, now });
    }
    let (start, end) = check_slot(&claims)?;
    let total = check_money(&claims)?;
    let retention = Retention::parse(&claims.retention)?;
    if let Some(r) = &claims.reconfirm {
        Duration::parse(&r.before)?;
    }
    if let Some(host_info) = &claims.host {
        parse_tz(&host_info.tz)?;
    }
    if let Some(a) = &claims.approval_by {
        parse_date_time(a)?;
    }
    Ok(VerifiedOffer {
        compact: compact.to_owned(),
        offer_sha256: crate::hash::jws_sha256(compact),
        kid: parsed.header.kid.clone().unwrap_or_default(),
        claims,
        start,
        end,
        total,
        retention,
    })
}

/// §4.2: times of the slot. Which of start/end/open_end are present is the
/// typed claims' own check (`OfferClaims::check`); here the end is after the start.
fn check_slot(c: &OfferClaims) -> Result<(DateTime<FixedOffset>, Option<DateTime<FixedOffset>>), Error> {
    let start = parse_date_time(&c.slot.start)?;
    let Some(e) = &c.slot.end else { return Ok((start, None)) };
    let end = parse_date_time(e)?;
    if end <= start {
        return Err(Error::BadSlot(SlotCheck::EndNotAfterStart));
    }
    Ok((start, Some(end)))
}

/// §5.2 "The all-in total": every line in the total's currency, and the lines
/// sum exactly to it. That price, total and lines come together is the typed
/// claims' own check. Returns the total.
fn check_money(c: &OfferClaims) -> Result<Option<Amount>, Error> {
    let (Some(total), Some(lines)) = (&c.total, &c.lines) else { return Ok(None) };
    let total = Amount::parse(&total.amount, &total.currency)?;
    if let Some(price) = &c.price {
        let price = Amount::parse(&price.amount, &price.currency)?;
        if price.currency() != total.currency() {
            return Err(Error::MixedCurrencies(PricePart::Price));
        }
    }
    let mut amounts = Vec::with_capacity(lines.len());
    for (index, line) in lines.iter().enumerate() {
        let a = Amount::parse(&line.amount.amount, &line.amount.currency)?;
        if a.currency() != total.currency() {
            return Err(Error::MixedCurrencies(PricePart::Line(index)));
        }
        amounts.push(a);
    }
    let sum = Amount::sum(total.currency(), amounts.iter())?;
    if sum != total {
        return Err(Error::LinesDoNotSum { sum, total });
    }
    Ok(Some(total))
}
