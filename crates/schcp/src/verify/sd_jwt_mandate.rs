//! SD-JWT VC mandates (§3.4): the envelope is checked by `sdjwt`; this builds
//! the mandate a host evaluates from what was disclosed to it, and runs the
//! same §3.3 checks 2–4 on it as on a compact mandate.

use super::chain::{ChainContext, VerifiedChain, VerifiedLink};
use crate::claims::{Audience, Cnf, Constraints, MandateClaims};
use crate::error::{Error, MandateCheck};
use crate::schema::{self, Def};
use crate::sdjwt::verify_presentation;
use serde_json::{Map, Value};

fn invalid(check: MandateCheck) -> Error {
    Error::MandateInvalid(check)
}

/// Verifies a presentation for `ctx.host_id` and returns the evaluated mandate
/// as a one-link chain: aud = this host, constraints = the shared ones plus
/// this host's member, cnf.jkt = thumbprint of cnf.jwk, status = schcp_status.
// Long by design: §3.4's checks in the spec's order, each with its own reason.
pub fn verify_sd_jwt_mandate(presentation: &str, ctx: &ChainContext<'_>) -> Result<VerifiedChain, Error> {
    let inner = || -> Result<VerifiedChain, Error> {
        // The issuer-signed claims themselves must be closed-schema valid,
        // digests and all, before any disclosure is applied.
        let issuer_jwt = presentation.split('~').next().unwrap_or_default();
        let issuer = crate::jws::parse(issuer_jwt)?;
        schema::validate(Def::SdJwtMandateClaims, &issuer.payload)?;

        let v = verify_presentation(presentation, ctx.host_id, ctx.now)?;
        if v.holder_key.to_jwk().thumbprint()? != ctx.request_jkt {
            return Err(invalid(MandateCheck::NotBoundToRequestKey));
        }
        let claims = v.claims.as_object().ok_or_else(|| invalid(MandateCheck::MistypedClaim("claims")))?;
        let aud: Vec<&str> = claims
            .get("aud")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        if aud.contains(&"*") {
            return Err(invalid(MandateCheck::WildcardAudience));
        }
        if !aud.contains(&ctx.host_id) {
            return Err(invalid(MandateCheck::AudienceNotDisclosed));
        }
        // §3.4: withholding a host's own limits fails closed.
        let own = claims
            .get("host_constraints")
            .and_then(|h| h.get(ctx.host_id))
            .and_then(Value::as_object)
            .ok_or_else(|| invalid(MandateCheck::HostConstraintsNotDisclosed))?;
        let mut constraints: Map<String, Value> =
            claims.get("constraints").and_then(Value::as_object).cloned().unwrap_or_default();
        for (k, val) in own {
            if constraints.insert(k.clone(), val.clone()).is_some() {
                return Err(invalid(MandateCheck::ConstraintSetTwice {
                    constraint: k.clone(),
                    host: ctx.host_id.to_owned(),
                }));
            }
        }
        let constraints_value = Value::Object(constraints);
        schema::validate(Def::Constraints, &constraints_value)?;
        let constraints: Constraints = serde_json::from_value(constraints_value)
            .map_err(|_| invalid(MandateCheck::MistypedClaim("constraints")))?;

        let field = |name: &str| claims.get(name).cloned();
        let get = |name: &'static str| -> Result<Value, Error> {
            field(name).ok_or_else(|| invalid(MandateCheck::MissingClaim(name)))
        };
        let mistyped = |name: &'static str| move |_| invalid(MandateCheck::MistypedClaim(name));
        let evaluated = MandateClaims {
            iss: serde_json::from_value(get("iss")?).map_err(mistyped("iss"))?,
            sub: serde_json::from_value(get("sub")?).map_err(mistyped("sub"))?,
            aud: Audience::One(ctx.host_id.to_owned()),
            iat: get("iat")?.as_i64().ok_or_else(|| invalid(MandateCheck::MistypedClaim("iat")))?,
            exp: get("exp")?.as_i64().ok_or_else(|| invalid(MandateCheck::MistypedClaim("exp")))?,
            jti: serde_json::from_value(get("jti")?).map_err(mistyped("jti"))?,
            cnf: Cnf { jkt: v.holder_key.to_jwk().thumbprint()? },
            principal_jwk: None,
            issuer_jwk: None,
            parent: None,
            scope: serde_json::from_value(get("scope")?).map_err(mistyped("scope"))?,
            constraints: Some(constraints),
            consent: field("consent").map(serde_json::from_value).transpose().map_err(mistyped("consent"))?,
            contact: field("contact").map(serde_json::from_value).transpose().map_err(mistyped("contact"))?,
            status: field("schcp_status").and_then(|s| s.as_str().map(str::to_owned)),
            // §7.5: the attestations disclosed to this host, read as a
            // compact mandate's are.
            attestations: field("attestations")
                .map(serde_json::from_value::<Vec<String>>)
                .transpose()
                .map_err(mistyped("attestations"))?
                .filter(|a| !a.is_empty()),
        };
        if evaluated.iat > ctx.now + super::IAT_SKEW {
            return Err(invalid(MandateCheck::IssuedInFuture { iat: evaluated.iat, now: ctx.now }));
        }
        if ctx.now >= evaluated.exp {
            return Err(Error::MandateExpired { exp: evaluated.exp, now: ctx.now });
        }
        Ok(VerifiedChain { root: VerifiedLink { compact: presentation.to_owned(), claims: evaluated }, child: None })
    };
    inner().map_err(|e| match e {
        Error::MandateInvalid(_) | Error::MandateExpired { .. } => e,
        other => Error::MandateInvalid(MandateCheck::Underlying(Box::new(other))),
    })
}
