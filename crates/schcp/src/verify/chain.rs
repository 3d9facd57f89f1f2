//! `verify_mandate_chain`: a host's checks of §3.3 steps 1–4 for a root and at
//! most one child, and `check_action`: steps 5 and 6 for one action, on every link.

use super::{typed_claims, IAT_SKEW};
use crate::claims::{Action, MandateClaims};
use crate::datetime::parse_date_time;
use crate::error::{Error, LimitCheck, MandateCheck};
use crate::jwk::{Jwk, PublicKey};
use crate::jws::{self, Typ};
use crate::money::Amount;
use crate::schema::Def;
use chrono::{DateTime, FixedOffset};

/// What the host knows when it checks a mandate chain.
#[derive(Debug, Clone, Copy)]
pub struct ChainContext<'a> {
    /// This host's id, which `aud` must name (§3.3 check 2).
    pub host_id: &'a str,
    /// Thumbprint of the key that signed the HTTP request (§3.3 check 4).
    pub request_jkt: &'a str,
    /// The time to check exp and iat against.
    pub now: i64,
    /// §3.3 check 2: hosts MAY refuse "*"; the reference refuses unless configured.
    pub allow_wildcard: bool,
}

/// One link of a verified chain.
#[derive(Debug, Clone)]
pub struct VerifiedLink {
    /// The link's compact JWS (or, for an SD-JWT mandate, the presentation).
    pub compact: String,
    /// Its claims (for an SD-JWT mandate, the mandate this host evaluates).
    pub claims: MandateClaims,
}

/// A mandate chain that passed §3.3 checks 1–4: a root and at most one child.
#[derive(Debug, Clone)]
pub struct VerifiedChain {
    /// The root, signed by the principal.
    pub root: VerifiedLink,
    /// The child, signed by the root's agent, when there is one.
    pub child: Option<VerifiedLink>,
}

impl VerifiedChain {
    /// Root first, then the child (§3.3: links are checked root first).
    pub fn links(&self) -> impl Iterator<Item = &VerifiedLink> {
        std::iter::once(&self.root).chain(self.child.as_ref())
    }
    /// The link whose `cnf` must be the request's key: the child, else the root.
    pub fn leaf(&self) -> &VerifiedLink {
        self.child.as_ref().unwrap_or(&self.root)
    }
    /// The principal every link speaks for.
    pub fn principal(&self) -> &str {
        &self.root.claims.iss
    }
}

fn invalid(check: MandateCheck) -> Error {
    Error::MandateInvalid(check)
}

/// Any failure below other than a passed exp is mandate_invalid (§3.3 check 3).
fn as_mandate_error(e: Error) -> Error {
    match e {
        Error::MandateInvalid(_) | Error::MandateExpired { .. } => e,
        other => Error::MandateInvalid(MandateCheck::Underlying(Box::new(other))),
    }
}

/// §3.3 checks 1–4 on a compact mandate and its parent, if any, as host `ctx.host_id`.
/// Every failure but a passed exp is [`Error::MandateInvalid`].
pub fn verify_mandate_chain(leaf: &str, ctx: &ChainContext<'_>) -> Result<VerifiedChain, Error> {
    verify_chain_inner(leaf, ctx).map_err(as_mandate_error)
}

fn verify_chain_inner(leaf: &str, ctx: &ChainContext<'_>) -> Result<VerifiedChain, Error> {
    let leaf_parsed = jws::parse(leaf)?;
    leaf_parsed.expect_typ(Typ::Mandate)?;
    let leaf_claims: MandateClaims = typed_claims(&leaf_parsed, Def::MandateClaims)?;
    let chain = match &leaf_claims.parent {
        None => {
            let root = check_root(&leaf_parsed, leaf_claims, ctx)?;
            VerifiedChain { root, child: None }
        }
        Some(parent) => {
            let parent_parsed = jws::parse(parent)?;
            parent_parsed.expect_typ(Typ::Mandate)?;
            let parent_claims: MandateClaims = typed_claims(&parent_parsed, Def::MandateClaims)?;
            if parent_claims.parent.is_some() {
                return Err(invalid(MandateCheck::ChainTooLong));
            }
            let root = check_root(&parent_parsed, parent_claims, ctx)?;
            let child = check_child(&leaf_parsed, leaf_claims, &root, ctx)?;
            VerifiedChain { root, child: Some(child) }
        }
    };
    if chain.leaf().claims.cnf.jkt != ctx.request_jkt {
        return Err(invalid(MandateCheck::NotBoundToRequestKey));
    }
    Ok(chain)
}

fn check_root(parsed: &jws::Parsed<'_>, claims: MandateClaims, ctx: &ChainContext<'_>) -> Result<VerifiedLink, Error> {
    let jwk: &Jwk = claims.principal_jwk.as_ref().ok_or_else(|| invalid(MandateCheck::RootWithoutPrincipalJwk))?;
    if claims.issuer_jwk.is_some() {
        return Err(invalid(MandateCheck::RootWithIssuerJwk));
    }
    // §3.4: compact mandates are Ed25519 only; a P-256 one is invalid.
    let key = PublicKey::Ed25519(jwk.ed25519_key()?);
    parsed.verify_signature(&key)?;
    if claims.iss != jwk.principal_id()? {
        return Err(invalid(MandateCheck::IssuerNotPrincipal));
    }
    check_link_common(&claims, ctx)?;
    Ok(VerifiedLink { compact: parsed.compact.to_owned(), claims })
}

fn check_child(
    parsed: &jws::Parsed<'_>,
    claims: MandateClaims,
    root: &VerifiedLink,
    ctx: &ChainContext<'_>,
) -> Result<VerifiedLink, Error> {
    let jwk = claims.issuer_jwk.as_ref().ok_or_else(|| invalid(MandateCheck::ChildWithoutIssuerJwk))?;
    if claims.principal_jwk.is_some() {
        return Err(invalid(MandateCheck::ChildWithPrincipalJwk));
    }
    let key = PublicKey::Ed25519(jwk.ed25519_key()?);
    parsed.verify_signature(&key)?;
    let r = &root.claims;
    if jwk.thumbprint()? != r.cnf.jkt {
        return Err(invalid(MandateCheck::ChildNotSignedByParentAgent));
    }
    if !r.scope.contains(&Action::Delegate) {
        return Err(invalid(MandateCheck::ParentCannotDelegate));
    }
    if !claims.scope.iter().all(|s| r.scope.contains(s)) {
        return Err(invalid(MandateCheck::ChildScopeWider));
    }
    if claims.iss != r.iss || claims.sub != r.sub {
        return Err(invalid(MandateCheck::ChildChangesPrincipal));
    }
    if claims.exp > r.exp {
        return Err(invalid(MandateCheck::ChildOutlivesParent));
    }
    if claims.jti == r.jti {
        return Err(invalid(MandateCheck::SharedJti));
    }
    check_link_common(&claims, ctx)?;
    Ok(VerifiedLink { compact: parsed.compact.to_owned(), claims })
}

/// Checks 2 and 3 and the constraints' own well-formedness, on every link.
fn check_link_common(c: &MandateClaims, ctx: &ChainContext<'_>) -> Result<(), Error> {
    let names_host = |a: &str| a == ctx.host_id || (ctx.allow_wildcard && a == "*");
    if !c.aud.hosts().iter().any(|a| names_host(a)) {
        return Err(invalid(MandateCheck::AudienceOmitsHost { host: ctx.host_id.to_owned() }));
    }
    if c.iat > ctx.now + IAT_SKEW {
        return Err(invalid(MandateCheck::IssuedInFuture { iat: c.iat, now: ctx.now }));
    }
    if ctx.now >= c.exp {
        return Err(Error::MandateExpired { exp: c.exp, now: ctx.now });
    }
    if let Some(k) = &c.constraints {
        if let Some(m) = &k.max_price {
            Amount::parse(&m.amount, &m.currency)?;
        }
        if let Some(w) = &k.window {
            parse_date_time(&w.not_before)?;
            parse_date_time(&w.not_after)?;
        }
    }
    Ok(())
}

/// One action a host is asked to take under a chain (§3.3 checks 5 and 6).
#[derive(Debug, Clone)]
pub struct ActionCheck<'a> {
    /// The action asked for.
    pub scope: Action,
    /// The service it is for, when it names one.
    pub service_id: Option<&'a str>,
    /// The slot's start, when the action has a slot.
    pub start: Option<DateTime<FixedOffset>>,
    /// None for an open-ended booking: the window then bounds its start alone (§4.2).
    pub end: Option<DateTime<FixedOffset>>,
    /// The offer's stated all-in total; an offer that states no price always fits.
    pub total: Option<Amount>,
    /// The booking it acts on (cancel, reschedule).
    pub booking_id: Option<&'a str>,
    /// The offer the action accepts, when it accepts one (§5.3 closed mandates).
    pub offer_sha256: Option<&'a str>,
    /// Active bookings already made under each link's (root iss, jti), root first.
    pub active_bookings: [u32; 2],
}

/// §3.3 steps 5 and 6 on every link, so an action must fit the root's
/// constraints and the child's. Scope failures are MANDATE_SCOPE, constraint
/// failures MANDATE_LIMIT.
pub fn check_action(chain: &VerifiedChain, action: &ActionCheck<'_>) -> Result<(), Error> {
    for (i, link) in chain.links().enumerate() {
        let c = &link.claims;
        if !c.scope.contains(&action.scope) {
            return Err(Error::MandateScope { action: action.scope, jti: c.jti.clone() });
        }
        let Some(k) = &c.constraints else { continue };
        let limit = |check| Error::MandateLimit { check, jti: c.jti.clone() };
        if let Some(bookings) = &k.bookings {
            // §3.3 Management mandates: only the listed bookings, and never a hold.
            if action.scope == Action::Hold || !action.booking_id.is_some_and(|b| bookings.iter().any(|x| x == b)) {
                return Err(limit(LimitCheck::NotAListedBooking));
            }
        }
        if let Some(hash) = &k.offer_sha256 {
            if action.offer_sha256 != Some(hash.as_str()) {
                return Err(limit(LimitCheck::NotTheNamedOffer));
            }
        }
        if let (Some(services), Some(s)) = (&k.services, action.service_id) {
            if !services.iter().any(|x| x == s) {
                return Err(limit(LimitCheck::ServiceNotListed));
            }
        }
        if let (Some(w), Some(start)) = (&k.window, action.start) {
            let nb = parse_date_time(&w.not_before)?;
            let na = parse_date_time(&w.not_after)?;
            let end = action.end.unwrap_or(start);
            if start < nb || end > na {
                return Err(limit(LimitCheck::OutsideWindow));
            }
        }
        if let (Some(max), Some(total)) = (&k.max_price, &action.total) {
            let max = Amount::parse(&max.amount, &max.currency)?;
            // §2.1: another currency never fits.
            if !total.fits_within(&max).unwrap_or(false) {
                return Err(limit(LimitCheck::AboveMaxPrice));
            }
        }
        if let Some(max) = k.max_bookings {
            if matches!(action.scope, Action::Hold | Action::Book) && action.active_bookings[i] >= max {
                return Err(limit(LimitCheck::MaxBookingsReached { max }));
            }
        }
    }
    Ok(())
}
