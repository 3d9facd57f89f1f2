//! What the person should look at twice, from the typed request rather than
//! from the rendered text: the consent window calls these out beside the
//! text. Every item is also said in the text itself (§5.2, §5.3); this list
//! only points at it, so it adds no term the text does not carry.

use crate::error::ConsentError;
use crate::invitation::answer_by_sentence;
use crate::locale::Locale;
use crate::offer::{host_identity, host_name, place_words, reconfirm_sentence, retention_sentence};
use crate::request::{ConsentRequest, ManagementMandateRequest, OpenMandateRequest, VerifiedOffer};

/// The kinds of callout, each with the spec's reason.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum AttentionKind {
    /// §5.3: the host's name is only its own claim (no discovered domain).
    UnverifiedIdentity,
    /// §5.2: a stated price, paid to the host directly.
    Price,
    /// §3.3 check 6: an open mandate's `max_price`, a ceiling on each booking's
    /// all-in total (never a price, and never authority to pay, §8).
    PriceLimit,
    /// §5.2 "Place": the meeting place is not the host's own address.
    PlaceAway,
    /// §5.10: the person must reconfirm, and silence has a consequence.
    Reconfirmation,
    /// §5.10: an invitee must answer by a deadline, and the booking's default applies
    /// if they decline or stay silent.
    AnswerBy,
    /// §5.2: how long the host keeps the person's data.
    Retention,
}

impl AttentionKind {
    /// A stable name for surfaces (`unverified_identity`, `price`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            AttentionKind::UnverifiedIdentity => "unverified_identity",
            AttentionKind::Price => "price",
            AttentionKind::PriceLimit => "price_limit",
            AttentionKind::PlaceAway => "place_away",
            AttentionKind::Reconfirmation => "reconfirmation",
            AttentionKind::AnswerBy => "answer_by",
            AttentionKind::Retention => "retention",
        }
    }
}

/// One callout: its kind and the detail in the locale's words (inert, as in the text).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Attention {
    /// What to look at twice.
    pub kind: AttentionKind,
    /// The value in the locale's words (the price, the place, the retention), when there is one.
    pub detail: Option<String>,
}

/// The callouts for `req`, in a fixed order (identity first, retention last).
pub fn attention(req: &ConsentRequest, locale: &Locale) -> Result<Vec<Attention>, ConsentError> {
    let mut out = Vec::new();
    match req {
        ConsentRequest::BookingOffer(o) | ConsentRequest::OwnBooking(o) => offer(locale, o, &mut out)?,
        ConsentRequest::ChangeOffer { proposed, .. } => offer(locale, proposed, &mut out)?,
        ConsentRequest::MeetingContract(r) => {
            for o in &r.offers {
                offer(locale, o, &mut out)?;
            }
        }
        ConsentRequest::OpenMandate(r) => open_mandate(locale, r, &mut out)?,
        ConsentRequest::Invitation(r) => {
            offer(locale, &r.contract, &mut out)?;
            // The offer's reconfirmation is the booker's to give, not this person's.
            out.retain(|a| a.kind != AttentionKind::Reconfirmation);
            out.push(Attention { kind: AttentionKind::AnswerBy, detail: Some(answer_by_sentence(locale, r)?) });
        }
        ConsentRequest::Reconfirmation { mandate, confirm_by } => {
            management(locale, mandate, &mut out)?;
            let words = crate::invitation::reconfirm_by_words(locale, mandate, confirm_by)?;
            out.push(Attention { kind: AttentionKind::Reconfirmation, detail: Some(words) });
        }
        ConsentRequest::ManagementMandate(r) => management(locale, r, &mut out)?,
        _ => {}
    }
    out.sort_by_key(|a| a.kind);
    out.dedup();
    Ok(out)
}

fn open_mandate(locale: &Locale, r: &OpenMandateRequest, out: &mut Vec<Attention>) -> Result<(), ConsentError> {
    for h in r.hosts.iter().filter(|h| h.domain.is_none()) {
        let name = h.name.as_deref().unwrap_or(&h.id);
        out.push(Attention {
            kind: AttentionKind::UnverifiedIdentity,
            detail: Some(crate::inert::name(locale, name)?),
        });
    }
    // A ceiling is never called a price: it limits each booking's all-in total.
    let caps = std::iter::once(&r.constraints).chain(r.host_constraints.values());
    for max in caps.filter_map(|c| c.max_price.as_ref()) {
        let text = crate::money::amount_text(locale, "max_price", max)?;
        out.push(Attention {
            kind: AttentionKind::PriceLimit,
            detail: Some(locale.message("mandate-price-value", &text.args())?),
        });
    }
    Ok(())
}

fn management(locale: &Locale, r: &ManagementMandateRequest, out: &mut Vec<Attention>) -> Result<(), ConsentError> {
    if r.booking.domain.is_none() {
        let name = r.booking.host_name.as_deref().unwrap_or(&r.booking.iss);
        out.push(Attention {
            kind: AttentionKind::UnverifiedIdentity,
            detail: Some(crate::inert::name(locale, name)?),
        });
    }
    Ok(())
}

fn offer(locale: &Locale, o: &VerifiedOffer, out: &mut Vec<Attention>) -> Result<(), ConsentError> {
    let c = &o.claims;
    if o.discovered.is_none() {
        out.push(Attention { kind: AttentionKind::UnverifiedIdentity, detail: Some(host_identity(locale, o)?) });
    }
    if let Some(total) = c.total.as_ref().or(c.price.as_ref()) {
        let words = crate::money::price_words(locale, total, &host_name(locale, c)?)?;
        out.push(Attention { kind: AttentionKind::Price, detail: Some(words) });
    }
    if let Some(place) = &c.place {
        let shown = place_words(locale, place)?;
        let host_address = c.host.as_ref().and_then(|h| h.address.as_deref());
        // Away unless the place named is exactly the host's own signed address.
        if shown.is_some() && shown.as_deref() != host_address {
            out.push(Attention { kind: AttentionKind::PlaceAway, detail: shown });
        }
    }
    if let Some(sentence) = reconfirm_sentence(locale, c)? {
        out.push(Attention { kind: AttentionKind::Reconfirmation, detail: Some(sentence) });
    }
    out.push(Attention { kind: AttentionKind::Retention, detail: Some(retention_sentence(locale, c)?) });
    Ok(())
}
