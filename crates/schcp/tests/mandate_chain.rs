//! Mandates (§3.3): the host's checks 1–4 on a root and one child
//! (`verify_mandate_chain`), checks 5 and 6 on every link (`check_action`), and the
//! closed (§5.3) and management (§3.3) mandates the key app issues.

mod common;

use common::*;
use schcp::claims::{Action, Audience, Consent, ConsentMode, Constraints, Money, Window};
use schcp::datetime::parse_date_time;
use schcp::issue::{self, RootMandate};
use schcp::jws::JwsError;
use schcp::jws::{Signer, Typ};
use schcp::money::Amount;
use schcp::schema::Def;
use schcp::verify::{
    check_action, verify_mandate_chain, verify_offer, verify_receipt, ActionCheck, ChainContext, ReceiptExpectations,
    VerifiedChain, VerifiedOffer, VerifiedReceipt,
};
use schcp::{Error, LimitCheck, MandateCheck};
use serde_json::{json, Value};

const DAY: i64 = 86_400;
const SUB: &str = "principal-pseudonym-7f3a";

fn consent() -> Consent {
    Consent {
        mode: Some(ConsentMode::HumanPresent),
        statement: "Book my oil change Thursday afternoon, under $100.".into(),
    }
}

/// The §3.3 example's constraints.
fn constraints() -> Constraints {
    Constraints {
        services: Some(vec!["oil-change".into()]),
        window: Some(Window {
            not_before: "2026-10-15T12:00:00-04:00".into(),
            not_after: "2026-10-15T17:00:00-04:00".into(),
        }),
        max_price: Some(Money::new("100.00", "CAD")),
        max_bookings: Some(1),
        ..Constraints::default()
    }
}

fn root_input() -> RootMandate {
    RootMandate {
        aud: Audience::One(HOST_ID.into()),
        sub: SUB.into(),
        jti: "m-root".into(),
        iat: NOW,
        exp: NOW + DAY,
        agent_jkt: jkt(&agent_key()),
        scope: vec![Action::Hold, Action::Book, Action::Cancel, Action::Reschedule, Action::Delegate],
        constraints: Some(constraints()),
        consent: consent(),
        contact: None,
        status: Some("https://keyapp.example/status/m-root".into()),
        attestations: Vec::new(),
    }
}

/// The root mandate of the §3.3 example, issued by the key app.
fn root() -> String {
    issue::root_mandate(root_input(), &principal_key()).expect("issue the root").compact
}

/// Root claims to sign by hand, for what the key app would never issue.
fn root_claims() -> Value {
    json!({
        "iss": principal_id(&principal_key()), "sub": SUB, "aud": HOST_ID,
        "iat": NOW, "exp": NOW + DAY, "jti": "m-root",
        "cnf": { "jkt": jkt(&agent_key()) },
        "principal_jwk": jwk_of(&principal_key()),
        "scope": ["hold", "book", "cancel", "reschedule", "delegate"],
        "constraints": serde_json::to_value(constraints()).unwrap(),
        "consent": { "mode": "human_present", "statement": "Book my oil change Thursday afternoon, under $100." }
    })
}

fn sign_mandate(claims: &Value, signer: &dyn Signer) -> String {
    sign_plain(Typ::Mandate, claims, signer)
}

/// A child (§3.3 Attenuation) of `parent`, issued by the agent to the sub-agent.
fn child_claims(parent: &str) -> Value {
    json!({
        "iss": principal_id(&principal_key()), "sub": SUB, "aud": HOST_ID,
        "iat": NOW, "exp": NOW + 3600, "jti": "m-child",
        "cnf": { "jkt": jkt(&sub_agent_key()) },
        "issuer_jwk": jwk_of(&agent_key()),
        "parent": parent,
        "scope": ["book"]
    })
}

fn child() -> String {
    sign_mandate(&child_claims(&root()), &agent_key())
}

/// Verifies as Maple Street Auto would, for a request signed by `request`.
fn verify_as(compact: &str, request: &dyn Signer, now: i64) -> Result<VerifiedChain, Error> {
    let request_jkt = jkt(request);
    verify_mandate_chain(
        compact,
        &ChainContext { host_id: HOST_ID, request_jkt: &request_jkt, now, allow_wildcard: false },
    )
}

fn verify_root(compact: &str) -> Result<VerifiedChain, Error> {
    verify_as(compact, &agent_key(), NOW)
}

fn verify_child(compact: &str) -> Result<VerifiedChain, Error> {
    verify_as(compact, &sub_agent_key(), NOW)
}

/// A mandate_invalid failure for this check (so it failed for this reason).
#[track_caller]
fn assert_invalid(result: Result<VerifiedChain, Error>, check: MandateCheck) {
    let err = result.expect_err("mandate_invalid");
    assert_eq!(err, Error::MandateInvalid(check));
    assert_eq!(err.reason().reason, "mandate_invalid");
    assert_eq!(err.reason().code, "MANDATE_INVALID");
}

/// The shared check (signature, schema, key…) a mandate_invalid failure wraps.
#[track_caller]
fn invalid_because(result: Result<VerifiedChain, Error>) -> Error {
    match result {
        Err(ref e @ Error::MandateInvalid(MandateCheck::Underlying(ref inner))) => {
            assert_eq!(e.reason().reason, "mandate_invalid", "{e}");
            (**inner).clone()
        }
        other => panic!("expected mandate_invalid wrapping a shared check, got {other:?}"),
    }
}

fn omits_host() -> MandateCheck {
    MandateCheck::AudienceOmitsHost { host: HOST_ID.into() }
}

// ================================================================ roots (checks 1–4)

#[test]
fn a_root_issued_by_the_key_app_verifies() {
    let compact = root();
    let chain = verify_root(&compact).expect("§3.3 root");
    assert!(chain.child.is_none());
    assert_eq!(chain.root.compact, compact);
    assert_eq!(chain.principal(), principal_id(&principal_key()));
    assert_eq!(chain.leaf().claims.jti, "m-root");
}

#[test]
fn the_hand_signed_root_claims_verify_too() {
    // The baseline for every hand-signed refusal below.
    verify_root(&sign_mandate(&root_claims(), &principal_key())).expect("hand-signed root");
}

#[test]
fn an_aud_list_that_contains_the_host_verifies() {
    let m = RootMandate { aud: Audience::Many(vec!["fades-on-queen".into(), HOST_ID.into()]), ..root_input() };
    let compact = issue::root_mandate(m, &principal_key()).unwrap().compact;
    verify_root(&compact).expect("aud list naming the host");
}

#[test]
fn an_aud_that_does_not_name_the_host_is_invalid() {
    let m =
        RootMandate { aud: Audience::Many(vec!["fades-on-queen".into(), "harbourview-dental".into()]), ..root_input() };
    let compact = issue::root_mandate(m, &principal_key()).unwrap().compact;
    assert_invalid(verify_root(&compact), omits_host());
    let compact = sign_mandate(&with(&root_claims(), "/aud", json!("fades-on-queen")), &principal_key());
    assert_invalid(verify_root(&compact), omits_host());
}

#[test]
fn a_wildcard_aud_is_refused_unless_the_host_allows_it() {
    let a = jkt(&agent_key());
    let strict = ChainContext { host_id: HOST_ID, request_jkt: &a, now: NOW, allow_wildcard: false };
    let lenient = ChainContext { allow_wildcard: true, ..strict };
    for aud in [json!("*"), json!(["fades-on-queen", "*"])] {
        let compact = sign_mandate(&with(&root_claims(), "/aud", aud.clone()), &principal_key());
        assert_invalid(verify_mandate_chain(&compact, &strict), omits_host());
        verify_mandate_chain(&compact, &lenient).unwrap_or_else(|e| panic!("{aud}: {e}"));
    }
    // And the key app never issues one (§3.3: agents SHOULD NOT request them).
    let m = RootMandate { aud: Audience::One("*".into()), ..root_input() };
    assert_eq!(
        issue::root_mandate(m, &principal_key()).unwrap_err(),
        Error::MandateInvalid(MandateCheck::WildcardAudience)
    );
}

#[test]
fn a_mandate_is_expired_at_exp_and_valid_a_second_before() {
    let compact = root();
    let exp = NOW + DAY;
    verify_as(&compact, &agent_key(), exp - 1).expect("valid until exp");
    let err = verify_as(&compact, &agent_key(), exp).unwrap_err();
    assert_eq!(err, Error::MandateExpired { exp, now: exp });
    // §3.3 check 3: a passed exp is mandate_expired, so the agent asks for a fresh one.
    assert_eq!(err.reason().reason, "mandate_expired");
    assert_eq!(err.reason().code, "MANDATE_INVALID");
}

#[test]
fn iat_may_be_60_seconds_ahead_and_no_more() {
    let at_60 = issue::root_mandate(RootMandate { iat: NOW + 60, ..root_input() }, &principal_key()).unwrap().compact;
    verify_root(&at_60).expect("iat = now + 60");
    let at_61 = issue::root_mandate(RootMandate { iat: NOW + 61, ..root_input() }, &principal_key()).unwrap().compact;
    assert_invalid(verify_root(&at_61), MandateCheck::IssuedInFuture { iat: NOW + 61, now: NOW });
}

#[test]
fn a_request_signed_by_another_key_than_cnf_jkt_is_refused() {
    // §3.3 check 4: a stolen mandate is useless without the agent's key.
    assert_invalid(verify_as(&root(), &stranger_key(), NOW), MandateCheck::NotBoundToRequestKey);
}

#[test]
fn iss_must_be_the_thumbprint_of_principal_jwk() {
    let c = with(&root_claims(), "/iss", json!(principal_id(&stranger_key())));
    let compact = sign_mandate(&c, &principal_key());
    assert_invalid(verify_root(&compact), MandateCheck::IssuerNotPrincipal);
}

#[test]
fn a_root_signed_by_another_key_than_principal_jwk_is_refused() {
    let compact = sign_mandate(&root_claims(), &stranger_key());
    assert_eq!(invalid_because(verify_root(&compact)), Error::Jws(JwsError::BadSignature));
}

#[test]
fn a_compact_mandate_signed_with_p256_is_invalid() {
    // §3.4: compact mandates are Ed25519 only, whatever the key says.
    let ec = p256_principal_key();
    let c = with(
        &with(&root_claims(), "/principal_jwk", serde_json::to_value(jwk_of(&ec)).unwrap()),
        "/iss",
        json!(principal_id(&ec)),
    );
    let compact = sign_mandate(&c, &ec);
    assert_schema(&invalid_because(verify_root(&compact)), Def::MandateClaims, "/principal_jwk/crv");
    // An Ed25519 principal_jwk over an ES256 signature is refused too (alg follows the key).
    let compact = sign_mandate(&root_claims(), &ec);
    assert!(
        matches!(invalid_because(verify_root(&compact)), Error::Jws(JwsError::AlgMismatch { ref alg, .. }) if alg == "ES256")
    );
}

#[test]
fn an_unknown_constraint_name_makes_the_mandate_invalid() {
    let c = with(&root_claims(), "/constraints/max_cancellation_fee", json!({ "amount": "0.00", "currency": "CAD" }));
    let err = invalid_because(verify_root(&sign_mandate(&c, &principal_key())));
    assert_schema(&err, Def::MandateClaims, "/constraints/max_cancellation_fee");
}

#[test]
fn an_unparseable_window_date_makes_the_mandate_invalid() {
    let c = with(&root_claims(), "/constraints/window/not_after", json!("2026-13-45T00:00:00Z"));
    let err = invalid_because(verify_root(&sign_mandate(&c, &principal_key())));
    assert_schema(&err, Def::MandateClaims, "/constraints/window/not_after");
}

#[test]
fn a_root_with_a_typ_other_than_mandate_is_invalid() {
    let compact = sign_plain(Typ::Rule, &root_claims(), &principal_key());
    assert!(matches!(
        invalid_because(verify_root(&compact)),
        Error::Jws(JwsError::WrongTyp { expected: "schcp-mandate+jwt", .. })
    ));
}

// ================================================================ children (§3.3 Attenuation)

#[test]
fn a_child_signed_by_the_agent_over_the_exact_parent_verifies() {
    let parent = root();
    let compact = sign_mandate(&child_claims(&parent), &agent_key());
    let chain = verify_child(&compact).expect("root + child");
    let child = chain.child.as_ref().expect("a child link");
    assert_eq!(chain.root.compact, parent);
    assert_eq!(child.compact, compact);
    assert_eq!(chain.leaf().claims.jti, "m-child");
    let jtis: Vec<&str> = chain.links().map(|l| l.claims.jti.as_str()).collect();
    assert_eq!(jtis, ["m-root", "m-child"], "links are checked root first");
}

#[test]
fn a_child_signed_by_another_key_than_the_parents_cnf_jkt_is_invalid() {
    // The sub-agent issues itself a child with its own key as issuer_jwk.
    let c = with(&child_claims(&root()), "/issuer_jwk", serde_json::to_value(jwk_of(&sub_agent_key())).unwrap());
    let compact = sign_mandate(&c, &sub_agent_key());
    assert_invalid(verify_child(&compact), MandateCheck::ChildNotSignedByParentAgent);
    // Or names the agent as issuer_jwk but cannot sign with its key.
    let compact = sign_mandate(&child_claims(&root()), &sub_agent_key());
    assert_eq!(invalid_because(verify_child(&compact)), Error::Jws(JwsError::BadSignature));
}

#[test]
fn a_parent_without_delegate_has_no_children() {
    let parent =
        issue::root_mandate(RootMandate { scope: vec![Action::Hold, Action::Book], ..root_input() }, &principal_key())
            .unwrap()
            .compact;
    let compact = sign_mandate(&child_claims(&parent), &agent_key());
    assert_invalid(verify_child(&compact), MandateCheck::ParentCannotDelegate);
}

#[test]
fn a_childs_scope_is_a_subset_of_its_parents() {
    let parent = issue::root_mandate(
        RootMandate { scope: vec![Action::Hold, Action::Book, Action::Delegate], ..root_input() },
        &principal_key(),
    )
    .unwrap()
    .compact;
    let c = with(&child_claims(&parent), "/scope", json!(["book", "cancel"]));
    assert_invalid(verify_child(&sign_mandate(&c, &agent_key())), MandateCheck::ChildScopeWider);
    // The same scope as the parent's is a subset.
    let c = with(&child_claims(&parent), "/scope", json!(["hold", "book", "delegate"]));
    verify_child(&sign_mandate(&c, &agent_key())).expect("an equal scope");
}

#[test]
fn a_child_expires_no_later_than_its_parent() {
    let parent_exp = NOW + DAY;
    let c = with(&child_claims(&root()), "/exp", json!(parent_exp + 1));
    assert_invalid(verify_child(&sign_mandate(&c, &agent_key())), MandateCheck::ChildOutlivesParent);
    let c = with(&child_claims(&root()), "/exp", json!(parent_exp));
    verify_child(&sign_mandate(&c, &agent_key())).expect("the parent's own exp");
}

#[test]
fn a_child_may_not_reuse_its_parents_jti() {
    // §3.3 Ids are per link.
    let c = with(&child_claims(&root()), "/jti", json!("m-root"));
    assert_invalid(verify_child(&sign_mandate(&c, &agent_key())), MandateCheck::SharedJti);
}

#[test]
fn a_childs_iss_and_sub_are_its_parents() {
    let c = with(&child_claims(&root()), "/iss", json!(principal_id(&stranger_key())));
    assert_invalid(verify_child(&sign_mandate(&c, &agent_key())), MandateCheck::ChildChangesPrincipal);
    let c = with(&child_claims(&root()), "/sub", json!("someone-else"));
    assert_invalid(verify_child(&sign_mandate(&c, &agent_key())), MandateCheck::ChildChangesPrincipal);
}

#[test]
fn a_child_must_carry_its_parent_exactly() {
    // One byte of the parent's signature changed: the parent no longer verifies.
    let parent = root();
    let mut bytes = parent.into_bytes();
    let last = bytes.len() - 2;
    bytes[last] = if bytes[last] == b'A' { b'B' } else { b'A' };
    let tampered = String::from_utf8(bytes).unwrap();
    let compact = sign_mandate(&child_claims(&tampered), &agent_key());
    assert_eq!(invalid_because(verify_child(&compact)), Error::Jws(JwsError::BadSignature));
}

#[test]
fn chains_stop_at_depth_two() {
    let child = child();
    let grandchild = json!({
        "iss": principal_id(&principal_key()), "sub": SUB, "aud": HOST_ID,
        "iat": NOW, "exp": NOW + 600, "jti": "m-grandchild",
        "cnf": { "jkt": jkt(&stranger_key()) },
        "issuer_jwk": jwk_of(&sub_agent_key()),
        "parent": child,
        "scope": ["book"]
    });
    let compact = sign_mandate(&grandchild, &sub_agent_key());
    assert_invalid(verify_as(&compact, &stranger_key(), NOW), MandateCheck::ChainTooLong);
}

#[test]
fn the_leafs_cnf_jkt_must_be_the_request_key() {
    // The agent (the parent's cnf) cannot use the sub-agent's child.
    assert_invalid(verify_as(&child(), &agent_key(), NOW), MandateCheck::NotBoundToRequestKey);
}

#[test]
fn every_link_passes_the_audience_and_time_checks() {
    let c = with(&child_claims(&root()), "/aud", json!("fades-on-queen"));
    assert_invalid(verify_child(&sign_mandate(&c, &agent_key())), omits_host());
    let c = with(&child_claims(&root()), "/exp", json!(NOW));
    assert_eq!(
        verify_child(&sign_mandate(&c, &agent_key())).unwrap_err(),
        Error::MandateExpired { exp: NOW, now: NOW }
    );
}

// ================================================================ check_action (checks 5, 6)

fn dt(s: &str) -> Option<chrono::DateTime<chrono::FixedOffset>> {
    Some(parse_date_time(s).unwrap())
}

fn cad(a: &str) -> Option<Amount> {
    Some(Amount::parse(a, "CAD").unwrap())
}

/// Booking the oil change at 13:00–13:45 for 89.27 CAD.
fn book() -> ActionCheck<'static> {
    ActionCheck {
        scope: Action::Book,
        service_id: Some("oil-change"),
        start: dt("2026-10-15T13:00:00-04:00"),
        end: dt("2026-10-15T13:45:00-04:00"),
        total: cad("89.27"),
        booking_id: None,
        offer_sha256: None,
        active_bookings: [0, 0],
    }
}

fn root_chain() -> VerifiedChain {
    verify_root(&root()).unwrap()
}

/// A MANDATE_LIMIT failure of this check on the link `jti`.
#[track_caller]
fn assert_limit(result: Result<(), Error>, check: LimitCheck, jti: &str) {
    let err = result.expect_err("MANDATE_LIMIT");
    assert_eq!(err, Error::MandateLimit { check, jti: jti.into() });
    assert_eq!(err.reason().code, "MANDATE_LIMIT");
}

#[test]
fn an_action_that_fits_every_constraint_is_allowed() {
    check_action(&root_chain(), &book()).expect("the §3.3 example's booking");
}

#[test]
fn an_action_outside_the_scope_is_mandate_scope() {
    let chain = verify_root(
        &issue::root_mandate(RootMandate { scope: vec![Action::Hold, Action::Book], ..root_input() }, &principal_key())
            .unwrap()
            .compact,
    )
    .unwrap();
    let err = check_action(&chain, &ActionCheck { scope: Action::Cancel, ..book() }).unwrap_err();
    assert_eq!(err, Error::MandateScope { action: Action::Cancel, jti: "m-root".into() });
    assert_eq!(err.reason().code, "MANDATE_SCOPE");
    check_action(&chain, &ActionCheck { scope: Action::Hold, ..book() }).expect("hold is in scope");
}

#[test]
fn a_service_outside_constraints_services_is_refused() {
    let err = check_action(&root_chain(), &ActionCheck { service_id: Some("tire-swap"), ..book() });
    assert_limit(err, LimitCheck::ServiceNotListed, "m-root");
}

#[test]
fn the_window_bounds_are_inclusive_at_both_ends() {
    let chain = root_chain();
    let at = |start: &str, end: &str| ActionCheck { start: dt(start), end: dt(end), ..book() };
    // start == not_before, end == not_after: both inside.
    check_action(&chain, &at("2026-10-15T12:00:00-04:00", "2026-10-15T12:45:00-04:00")).expect("start = not_before");
    check_action(&chain, &at("2026-10-15T16:15:00-04:00", "2026-10-15T17:00:00-04:00")).expect("end = not_after");
    // The same instants in UTC.
    check_action(&chain, &at("2026-10-15T16:00:00Z", "2026-10-15T16:45:00Z")).expect("start = not_before in UTC");
    // A second outside at either end.
    assert_limit(
        check_action(&chain, &at("2026-10-15T11:59:59-04:00", "2026-10-15T12:44:59-04:00")),
        LimitCheck::OutsideWindow,
        "m-root",
    );
    assert_limit(
        check_action(&chain, &at("2026-10-15T16:15:01-04:00", "2026-10-15T17:00:01-04:00")),
        LimitCheck::OutsideWindow,
        "m-root",
    );
}

#[test]
fn an_open_ended_booking_is_bounded_by_its_start_alone() {
    // §3.3 check 6, §4.2: "for an open-ended booking, its start for both".
    let chain = root_chain();
    let open = |start: &str| ActionCheck { start: dt(start), end: None, total: None, ..book() };
    check_action(&chain, &open("2026-10-15T16:59:00-04:00")).expect("starts inside, no end");
    check_action(&chain, &open("2026-10-15T17:00:00-04:00")).expect("starts at not_after");
    check_action(&chain, &open("2026-10-15T12:00:00-04:00")).expect("starts at not_before");
    assert_limit(check_action(&chain, &open("2026-10-15T17:00:01-04:00")), LimitCheck::OutsideWindow, "m-root");
    assert_limit(check_action(&chain, &open("2026-10-15T11:59:59-04:00")), LimitCheck::OutsideWindow, "m-root");
}

#[test]
fn a_total_above_max_price_is_refused_and_an_unpriced_offer_always_fits() {
    let chain = root_chain();
    check_action(&chain, &ActionCheck { total: cad("100.00"), ..book() }).expect("total = max_price");
    check_action(&chain, &ActionCheck { total: cad("100"), ..book() }).expect("100 is 100.00 CAD");
    assert_limit(
        check_action(&chain, &ActionCheck { total: cad("100.01"), ..book() }),
        LimitCheck::AboveMaxPrice,
        "m-root",
    );
    check_action(&chain, &ActionCheck { total: None, ..book() }).expect("no price, nothing to bind");
}

#[test]
fn a_total_in_another_currency_never_fits() {
    let usd = Some(Amount::parse("50.00", "USD").unwrap());
    assert_limit(
        check_action(&root_chain(), &ActionCheck { total: usd, ..book() }),
        LimitCheck::AboveMaxPrice,
        "m-root",
    );
}

#[test]
fn max_bookings_counts_holds_and_books_but_not_cancels() {
    let chain = root_chain();
    assert_limit(
        check_action(&chain, &ActionCheck { active_bookings: [1, 0], ..book() }),
        LimitCheck::MaxBookingsReached { max: 1 },
        "m-root",
    );
    assert_limit(
        check_action(&chain, &ActionCheck { scope: Action::Hold, active_bookings: [1, 0], ..book() }),
        LimitCheck::MaxBookingsReached { max: 1 },
        "m-root",
    );
    check_action(&chain, &ActionCheck { scope: Action::Cancel, active_bookings: [1, 0], ..book() })
        .expect("cancelling is not counted");
}

#[test]
fn a_childs_wider_limits_gain_nothing() {
    // §3.3: the parent's limit still refuses, with 403, when the action is checked.
    let parent = root();
    let c = with(
        &with(
            &child_claims(&parent),
            "/constraints",
            json!({
                "max_price": { "amount": "500.00", "currency": "CAD" },
                "window": { "not_before": "2026-10-01T00:00:00Z", "not_after": "2026-10-31T00:00:00Z" },
                "max_bookings": 5
            }),
        ),
        "/scope",
        json!(["hold", "book"]),
    );
    let chain = verify_child(&sign_mandate(&c, &agent_key())).expect("a wider child verifies");
    check_action(&chain, &book()).expect("inside both");
    assert_limit(
        check_action(&chain, &ActionCheck { total: cad("200.00"), ..book() }),
        LimitCheck::AboveMaxPrice,
        "m-root",
    );
    let late = ActionCheck { start: dt("2026-10-16T13:00:00-04:00"), end: dt("2026-10-16T13:45:00-04:00"), ..book() };
    assert_limit(check_action(&chain, &late), LimitCheck::OutsideWindow, "m-root");
    assert_limit(
        check_action(&chain, &ActionCheck { active_bookings: [1, 0], ..book() }),
        LimitCheck::MaxBookingsReached { max: 1 },
        "m-root",
    );
}

#[test]
fn a_childs_own_narrower_limits_bind_too() {
    let c = with(
        &child_claims(&root()),
        "/constraints",
        json!({ "max_price": { "amount": "50.00", "currency": "CAD" }, "max_bookings": 1 }),
    );
    let chain = verify_child(&sign_mandate(&c, &agent_key())).unwrap();
    assert_limit(check_action(&chain, &book()), LimitCheck::AboveMaxPrice, "m-child");
    let cheap = ActionCheck { total: cad("40.00"), ..book() };
    check_action(&chain, &cheap).expect("under both limits");
    // Bookings count per link, each under its own jti.
    assert_limit(
        check_action(&chain, &ActionCheck { active_bookings: [0, 1], ..cheap }),
        LimitCheck::MaxBookingsReached { max: 1 },
        "m-child",
    );
    // A scope the child does not have is refused even though the root has it.
    let err = check_action(&chain, &ActionCheck { scope: Action::Hold, ..cheap }).unwrap_err();
    assert_eq!(err, Error::MandateScope { action: Action::Hold, jti: "m-child".into() });
}

// ================================================================ closed mandates (§5.3)

fn verified_priced_offer() -> VerifiedOffer {
    verify_offer(&sign_offer(&priced_offer()), host(&host_keys()), NOW).unwrap()
}

fn verified_playdate_offer() -> VerifiedOffer {
    let compact = sign_host(Typ::Offer, Some(ELLIS_KID), &playdate_offer(), &ellis_calendar_key());
    verify_offer(&compact, ellis_host(&ellis_keys()), NOW).unwrap()
}

fn closed(offer: &VerifiedOffer, exp: i64) -> issue::Issued<schcp::claims::MandateClaims> {
    issue::closed_mandate(
        offer,
        SUB.into(),
        "m-closed-01".into(),
        NOW,
        exp,
        jkt(&agent_key()),
        consent(),
        None,
        &principal_key(),
    )
    .expect("issue a closed mandate")
}

#[test]
fn a_closed_mandate_binds_the_exact_offer() {
    let offer = verified_priced_offer();
    let m = closed(&offer, NOW + DAY);
    let c = m.claims.constraints.as_ref().unwrap();
    assert_eq!(c.offer_sha256.as_deref(), Some(offer.offer_sha256.as_str()));
    assert_eq!(c.offer_sha256.as_deref(), Some(schcp::hash::jws_sha256(&offer.compact).as_str()));
    assert_eq!(
        c.window,
        Some(Window { not_before: "2026-10-15T13:00:00-04:00".into(), not_after: "2026-10-15T13:45:00-04:00".into() })
    );
    assert_eq!(c.max_price, Some(Money::new("89.27", "CAD")));
    assert_eq!(c.services, Some(vec!["oil-change".to_owned()]));
    assert_eq!(c.bookings, None);
    assert_eq!(m.claims.scope, vec![Action::Book]);
    assert_eq!(m.claims.aud, Audience::One(HOST_ID.into()));
    assert!(m.claims.is_root(), "§5.3: the principal signs it, not an agent");
}

#[test]
fn a_closed_mandate_expires_with_its_offer_at_the_latest() {
    let offer = verified_priced_offer();
    assert_eq!(closed(&offer, NOW + DAY).claims.exp, NOW + 300, "offer exp is earlier");
    assert_eq!(closed(&offer, NOW + 100).claims.exp, NOW + 100, "requested exp is earlier");
}

#[test]
fn a_closed_mandate_over_an_open_ended_unpriced_offer() {
    let offer = verified_playdate_offer();
    let m = closed(&offer, NOW + DAY);
    let c = m.claims.constraints.as_ref().unwrap();
    assert_eq!(
        c.window,
        Some(Window { not_before: "2026-10-17T12:00:00-04:00".into(), not_after: "2026-10-17T12:00:00-04:00".into() }),
        "its start, twice"
    );
    assert_eq!(c.max_price, None, "no price, no max_price");
    assert_eq!(m.claims.aud, Audience::One(ELLIS_HOST_ID.into()));
}

#[test]
fn a_closed_mandate_over_a_change_offer_reschedules_that_booking() {
    let prev = schcp::hash::jws_sha256(&sign_offer(&priced_offer()));
    let offer = verify_offer(&sign_offer(&change_offer(&prev)), host(&host_keys()), NOW).unwrap();
    let m = closed(&offer, NOW + DAY);
    assert_eq!(m.claims.scope, vec![Action::Reschedule]);
    let c = m.claims.constraints.as_ref().unwrap();
    assert_eq!(c.bookings, Some(vec![BOOKING_ID.to_owned()]));
    assert_eq!(c.offer_sha256.as_deref(), Some(offer.offer_sha256.as_str()));
    assert_eq!(c.window.as_ref().unwrap().not_before, "2026-10-15T13:30:00-04:00");
}

#[test]
fn a_closed_mandate_accepts_only_the_offer_it_names() {
    let offer = verified_priced_offer();
    let chain = verify_root(&closed(&offer, NOW + DAY).compact).unwrap();
    let accept = ActionCheck { offer_sha256: Some(offer.offer_sha256.as_str()), ..book() };
    check_action(&chain, &accept).expect("the offer it names");
    let other = schcp::hash::jws_sha256(&sign_offer(&with(&priced_offer(), "/hold_id", json!("h_other"))));
    assert_limit(
        check_action(&chain, &ActionCheck { offer_sha256: Some(other.as_str()), ..book() }),
        LimitCheck::NotTheNamedOffer,
        "m-closed-01",
    );
    assert_limit(check_action(&chain, &book()), LimitCheck::NotTheNamedOffer, "m-closed-01");
    // Releasing the hold (or anything else) is outside its scope.
    assert_eq!(
        check_action(&chain, &ActionCheck { scope: Action::Cancel, ..accept }),
        Err(Error::MandateScope { action: Action::Cancel, jti: "m-closed-01".into() })
    );
}

// ================================================================ management mandates (§3.3)

fn verified_receipt(claims: &Value) -> VerifiedReceipt {
    verify_receipt(&sign_receipt(claims), host(&host_keys()), ReceiptExpectations::default()).unwrap()
}

fn manage(receipt: &VerifiedReceipt) -> Result<issue::Issued<schcp::claims::MandateClaims>, Error> {
    issue::management_mandate(
        receipt,
        &issue::ManagementTerms::approved(NOW, &receipt.claims.booking),
        SUB.into(),
        "m-manage-01".into(),
        NOW,
        jkt(&agent_key()),
        consent(),
        None,
        &principal_key(),
    )
}

#[test]
fn a_management_mandate_covers_one_booking_until_its_end_plus_an_hour() {
    let receipt = verified_receipt(&receipt_claims(&schcp::hash::jws_sha256("offer")));
    let m = manage(&receipt).expect("issue a management mandate");
    assert_eq!(m.claims.scope, vec![Action::Cancel, Action::Reschedule]);
    let c = m.claims.constraints.as_ref().unwrap();
    assert_eq!(c.bookings, Some(vec![BOOKING_ID.to_owned()]));
    let end = parse_date_time("2026-10-15T13:45:00-04:00").unwrap().timestamp();
    assert_eq!(m.claims.exp, end + 3600);
    assert_eq!(
        issue::management_expiry(&receipt, NOW, &issue::ManagementTerms::approved(NOW, &receipt.claims.booking))
            .unwrap(),
        end + 3600
    );
}

/// §3.3 "Renewal never widens authority": under a root, the management
/// mandate keeps the root's services, window and max_price, never its
/// max_bookings, and lives no later than the root's exp plus the fixed bound.
#[test]
fn a_management_mandate_under_a_root_keeps_its_limits_and_its_bound() {
    let receipt = verified_receipt(&receipt_claims(&schcp::hash::jws_sha256("offer")));
    let window =
        Window { not_before: "2026-10-15T12:00:00-04:00".into(), not_after: "2026-10-15T17:00:00-04:00".into() };
    let root_constraints = Constraints {
        services: Some(vec!["oil-change".into()]),
        window: Some(window.clone()),
        max_price: Some(Money::new("100.00", "CAD")),
        max_bookings: Some(1),
        ..Constraints::default()
    };
    let mut root = manage(&receipt).unwrap().claims;
    root.constraints = Some(root_constraints);
    root.exp = NOW + 3600;
    let terms = issue::ManagementTerms::under_root(&root);
    assert_eq!(terms.not_after, NOW + 3600, "it ends with the root");
    let m = issue::management_mandate(
        &receipt,
        &terms,
        SUB.into(),
        "m-manage-02".into(),
        NOW,
        jkt(&agent_key()),
        consent(),
        None,
        &principal_key(),
    )
    .unwrap();
    let c = m.claims.constraints.unwrap();
    assert_eq!(c.services, Some(vec!["oil-change".to_owned()]));
    assert_eq!(c.window, Some(window));
    assert_eq!(c.max_price.unwrap().amount, "100.00");
    assert_eq!((c.max_bookings, c.offer_sha256), (None, None), "it books nothing");
    assert_eq!(c.bookings, Some(vec![BOOKING_ID.to_owned()]));
    let end = parse_date_time("2026-10-15T13:45:00-04:00").unwrap().timestamp();
    assert_eq!(m.claims.exp, (end + 3600).min(terms.not_after));

    // A booking that ends in 2100 gets no mandate to 2100: the root's bound,
    // or without a root, the longest lifetime.
    let mut far = receipt_claims(&schcp::hash::jws_sha256("offer"));
    set(&mut far, "/booking/end", Some(json!("2100-01-01T00:00:00Z")));
    let far = verified_receipt(&far);
    assert_eq!(issue::management_expiry(&far, NOW, &terms).unwrap(), terms.not_after);
    let approved = issue::ManagementTerms::approved(NOW, &receipt.claims.booking);
    assert_eq!(issue::management_expiry(&far, NOW, &approved).unwrap(), NOW + issue::MAX_MANAGEMENT_LIFETIME);
}

#[test]
fn an_open_ended_bookings_management_mandate_lasts_its_set_aside_time_plus_an_hour() {
    let mut claims = receipt_claims(&schcp::hash::jws_sha256("offer"));
    set(&mut claims, "/booking/end", None);
    set(&mut claims, "/booking/open_end", Some(json!(true)));
    set(&mut claims, "/booking/start", Some(json!("2026-10-17T12:00:00-04:00")));
    set(&mut claims, "/booking/event/start", Some(json!("2026-10-17T12:00:00")));
    set(&mut claims, "/booking/event/duration", Some(json!("PT3H")));
    let receipt = verified_receipt(&claims);
    let start = parse_date_time("2026-10-17T12:00:00-04:00").unwrap().timestamp();
    assert_eq!(manage(&receipt).unwrap().claims.exp, start + 3 * 3600 + 3600);
}

#[test]
fn no_management_mandate_for_a_booking_already_over() {
    let receipt = verified_receipt(&receipt_claims(&schcp::hash::jws_sha256("offer")));
    let terms = issue::ManagementTerms::approved(NOW, &receipt.claims.booking);
    let end = issue::management_expiry(&receipt, NOW, &terms).unwrap();
    let err = issue::management_mandate(
        &receipt,
        &terms,
        SUB.into(),
        "m-late".into(),
        end,
        jkt(&agent_key()),
        consent(),
        None,
        &principal_key(),
    )
    .unwrap_err();
    assert_eq!(err, Error::Expired { what: "booking", exp: end, now: end });
}

/// One the person approved reads "It may cancel it and move it to another
/// time, and nothing else": it is signed for the booking's service at no
/// higher total than the booking's (89.27 CAD), so a move that costs more or
/// turns it into another service is the person's new yes, not the assistant's.
#[test]
fn an_approved_management_mandate_moves_its_booking_at_no_higher_total_and_no_other_service() {
    let receipt = verified_receipt(&receipt_claims(&schcp::hash::jws_sha256("offer")));
    let m = manage(&receipt).unwrap();
    let c = m.claims.constraints.as_ref().unwrap();
    assert_eq!(c.services, Some(vec!["oil-change".to_owned()]));
    assert_eq!(c.max_price.as_ref().map(|p| (p.amount.as_str(), p.currency.as_str())), Some(("89.27", "CAD")));
    let chain = verify_root(&m.compact).unwrap();
    let amount = |a: &str| Some(schcp::money::Amount::parse(a, "CAD").unwrap());
    let move_to = |service: &'static str, total| ActionCheck {
        scope: Action::Reschedule,
        service_id: Some(service),
        start: None,
        end: None,
        total,
        booking_id: Some(BOOKING_ID),
        offer_sha256: None,
        active_bookings: [0, 0],
    };
    check_action(&chain, &move_to("oil-change", amount("89.27"))).expect("the same total");
    check_action(&chain, &move_to("oil-change", amount("79.00"))).expect("a lower one");
    assert_limit(
        check_action(&chain, &move_to("oil-change", amount("89.28"))),
        LimitCheck::AboveMaxPrice,
        "m-manage-01",
    );
    assert_limit(
        check_action(&chain, &move_to("engine-rebuild", amount("89.27"))),
        LimitCheck::ServiceNotListed,
        "m-manage-01",
    );
}

#[test]
fn a_management_mandate_acts_only_on_its_booking_and_never_holds() {
    let receipt = verified_receipt(&receipt_claims(&schcp::hash::jws_sha256("offer")));
    let chain = verify_root(&manage(&receipt).unwrap().compact).unwrap();
    let on = |scope, booking_id| ActionCheck {
        scope,
        service_id: None,
        start: None,
        end: None,
        total: None,
        booking_id,
        offer_sha256: None,
        active_bookings: [0, 0],
    };
    check_action(&chain, &on(Action::Cancel, Some(BOOKING_ID))).expect("cancel its booking");
    check_action(&chain, &on(Action::Reschedule, Some(BOOKING_ID))).expect("reschedule its booking");
    assert_limit(
        check_action(&chain, &on(Action::Cancel, Some("b_other"))),
        LimitCheck::NotAListedBooking,
        "m-manage-01",
    );
    assert_limit(check_action(&chain, &on(Action::Cancel, None)), LimitCheck::NotAListedBooking, "m-manage-01");
    // Its scope has no hold or book…
    let out_of_scope = |action| Err(Error::MandateScope { action, jti: "m-manage-01".into() });
    assert_eq!(check_action(&chain, &on(Action::Hold, Some(BOOKING_ID))), out_of_scope(Action::Hold));
    assert_eq!(check_action(&chain, &book()), out_of_scope(Action::Book));
    // …and constraints.bookings refuses a hold even where a scope would allow it.
    let c = with(
        &with(&root_claims(), "/constraints", json!({ "bookings": [BOOKING_ID] })),
        "/scope",
        json!(["hold", "cancel"]),
    );
    let chain = verify_root(&sign_mandate(&c, &principal_key())).unwrap();
    assert_limit(check_action(&chain, &on(Action::Hold, Some(BOOKING_ID))), LimitCheck::NotAListedBooking, "m-root");
    check_action(&chain, &on(Action::Cancel, Some(BOOKING_ID))).expect("cancel is fine");
}
