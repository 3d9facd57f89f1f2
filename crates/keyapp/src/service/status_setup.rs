//! Where hosts check the person's credentials (SchCP §3.3 "Status URLs"):
//! setup's three answers (`schcp-keyapp setup`, the window's first run and
//! Settings), and the rule that keeps an assistant from choosing the address.
//!
//! A server at the status address answers hosts for the person: it could say
//! "active" for a revoked mandate, or grant claims past a shared limit. An
//! assistant running as the person can edit the config file, so the address
//! in force is the one the person confirmed to the OS (polkit), kept in the
//! records (`store::status_address`). A config that names another address is
//! a request: Settings and `setup --confirm-config` name it and ask the OS
//! (only a new principal's first start asks at start), and until it
//! confirms, the key app keeps the confirmed address and Settings says so
//! (docs/threat-model.md). A change from setup or the window is asked the
//! same way. Only the
//! built-in loopback address needs no confirmation: no host reads it, so
//! nothing hosts believe can be lied about there (`status_address`).

use super::answers::Origin;
// A configured address is the config's, which an assistant can write: shown
// inert, so no control or bidi character in it reorders or erases the words
// around it, in the window or a terminal (`setup --confirm-config`).
use super::{Service, ServiceError};
use crate::config::Config;
use crate::hosted::{HostedClient, PublishError};
use crate::status_address::{requested, setup_base, ChoiceKind, SetupChoice, StatusAddress, UrlRefusal};
use crate::status_reach::Unreachable;
use crate::store::status_address as stored;
use crate::ui_words::{text, text_with};
use crate::user_verification::Asker;
use crate::views::{PublicationState, RefusedPublicationView, RequestedStatusView, StatusSetupView};
use fluent_bundle::FluentArgs;
use schcp::refusal::Reason;
use schcp::status_update::{self, Operation};
use schcp_consent::inert::inert;
use status_edge::PublicBase;

/// Why setup did not take an answer. Nothing is written for any of them: not
/// the config, not the records, and nothing at the status service.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SetupError {
    /// The URL typed cannot be a status base hosts read.
    #[error(transparent)]
    Url(#[from] UrlRefusal),
    /// No answer over https: refused, timed out, TLS, or an address the
    /// outbound policy refuses at connect time (§5.8).
    #[error("the status service at {base} did not answer: {detail}")]
    NoAnswer { base: String, detail: String },
    /// Something answered, but not as a SchCP status service does.
    #[error("{base} answered, but not as a SchCP status service (HTTP {status})")]
    NotAStatusService { base: String, status: u16 },
    /// The service refuses this key app's updates (`namespace_not_allowed`,
    /// a signature or clock it does not accept).
    #[error("the status service at {base} refuses this key app's updates ({reason})")]
    Refused { base: String, reason: Reason },
    /// The config file could not be rewritten.
    #[error("the config file {path} cannot be written: {why}")]
    ConfigFile { path: String, why: String },
}

impl SetupError {
    /// Its §9 reason: the service's own for a refusal, else `status_unreachable`.
    pub fn reason(&self) -> Reason {
        match self {
            SetupError::Refused { reason, .. } => *reason,
            _ => Reason::StatusUnreachable,
        }
    }

    /// The sentence a person reads, with what to do, in `language`.
    pub fn words(&self, language: schcp_consent::Language) -> String {
        let mut args = FluentArgs::new();
        let id = match self {
            SetupError::Url(UrlRefusal::NotABase { url, .. }) => {
                args.set("url", inert(url));
                "setup-error-not-a-base"
            }
            SetupError::Url(UrlRefusal::Unreachable { url, why }) => {
                args.set("url", inert(url));
                args.set("why", unreachable_words(language, why));
                "setup-error-unreachable"
            }
            SetupError::NoAnswer { base, .. } => {
                args.set("base", inert(base));
                "setup-error-no-answer"
            }
            SetupError::NotAStatusService { base, .. } => {
                args.set("base", inert(base));
                "setup-error-not-a-status-service"
            }
            SetupError::Refused { base, reason } => {
                args.set("base", inert(base));
                match reason {
                    Reason::NamespaceNotAllowed => "setup-error-not-allowed",
                    Reason::NamespaceFull => "setup-error-full",
                    _ => "setup-error-refused",
                }
            }
            SetupError::ConfigFile { path, .. } => {
                args.set("path", path.clone());
                "setup-error-config-file"
            }
        };
        text_with(language, id, &args)
    }
}

/// Why hosts cannot read an address, in the person's words.
fn unreachable_words(language: schcp_consent::Language, why: &Unreachable) -> String {
    let mut args = FluentArgs::new();
    let id = match why {
        Unreachable::NotHttps => "setup-why-not-https",
        Unreachable::Credentials => "setup-why-credentials",
        Unreachable::Localhost { .. } => "setup-why-this-machine",
        Unreachable::LocalName { name } => {
            args.set("name", name.clone());
            "setup-why-local-name"
        }
        Unreachable::NonPublicAddress { address, .. } if address.to_canonical().is_loopback() => {
            "setup-why-this-machine"
        }
        Unreachable::NonPublicAddress { address, .. } => {
            args.set("address", address.to_string());
            "setup-why-private"
        }
        _ => "setup-why-not-a-url",
    };
    text_with(language, id, &args)
}

/// Refuses an address whose public base the status API could not answer at:
/// one that is not an http(s) URL with a host (SchCP §3.2: a signed claim's
/// `@target-uri` is rebuilt from it). Checked at the change, before the OS is
/// asked or anything written, so it never reaches a request.
fn public_base_refusal(address: &StatusAddress) -> Result<(), SetupError> {
    match PublicBase::parse(&address.public_base) {
        Ok(_) => Ok(()),
        Err(_) => Err(SetupError::Url(UrlRefusal::NotABase {
            url: address.public_base.clone(),
            why: "type it whole, starting with https://",
        })),
    }
}

/// One update the hosted status service refused for good (its jti, op,
/// reason and when), in the person's words.
fn refused_publication(
    svc: &Service,
    language: schcp_consent::Language,
    (jti, op, reason, at): (String, String, String, i64),
) -> RefusedPublicationView {
    let mut args = FluentArgs::new();
    args.set("at", svc.instant_words(at));
    let why = match reason.as_str() {
        "namespace_full" => "status-refused-full",
        "namespace_not_allowed" => "status-refused-not-allowed",
        _ => "status-refused-other",
    };
    args.set("why", text(language, why));
    let id = if op == "revoke" { "status-refused-revoke" } else { "status-refused-register" };
    RefusedPublicationView { jti, reason, words: text_with(language, id, &args) }
}

impl Service {
    /// The setup refusal as every surface carries it: 422 with its reason,
    /// its message the person's sentence.
    fn setup_refused(&self, e: SetupError) -> ServiceError {
        tracing::warn!(error = %e, "status setup refused; nothing written");
        ServiceError::Unacceptable { reason: e.reason(), message: e.words(self.language()) }
    }

    /// Puts `address` in force for every credential issued from now on, and
    /// publishes its public base to the status API, parsed here once per
    /// change: the very next request is checked against it, and no request
    /// parses it again. A base that does not parse leaves loopback `Host`
    /// values only, as it always has; only a stored address from before
    /// [`public_base_refusal`] could be one.
    fn put_in_force(&self, address: &StatusAddress) {
        let mut config = Config::clone(&self.config());
        address.apply(&mut config);
        let base = PublicBase::parse(&address.public_base)
            .inspect_err(|e| tracing::warn!(error = %e, "the status API answers loopback hosts only"))
            .ok();
        *self.inner.config.write().unwrap_or_else(|p| p.into_inner()) = std::sync::Arc::new(config);
        self.inner.status_base.publish(base);
    }

    /// The confirmed address, if the key app wrote it (record_seal). The
    /// person's programs can write the records, and a row they wrote (their
    /// own server as the status address) is no confirmation: the key app
    /// reads it as none, as after the row was deleted.
    async fn sealed_confirmation(&self) -> Result<Option<stored::Confirmed>, ServiceError> {
        let found = stored::confirmed(self.store()).await?;
        let holds = |c: &stored::Confirmed| self.inner.seal.status_address_holds(&c.fields(), c.seal.as_deref());
        Ok(found.filter(|c| {
            let held = holds(c);
            if !held {
                tracing::warn!(base = c.address.base(), "a status address the key app did not write is not in force");
            }
            held
        }))
    }

    /// Keeps `address` as the confirmed one, sealed.
    async fn keep_confirmed(&self, address: &StatusAddress, confirmed_by: Option<&str>) -> Result<(), ServiceError> {
        let now = self.now();
        let seal = self.inner.seal.status_address(&stored::fields(address, now, confirmed_by));
        stored::confirm(self.store(), address, now, confirmed_by, &seal).await?;
        Ok(())
    }

    fn set_requested(&self, address: Option<StatusAddress>) {
        *self.inner.status_requested.write().unwrap_or_else(|p| p.into_inner()) = address;
    }

    fn requested(&self) -> Option<StatusAddress> {
        self.inner.status_requested.read().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// What the OS's prompt names for a change of status address.
    fn change_summary(&self, address: &StatusAddress) -> String {
        let mut args = FluentArgs::new();
        args.set("base", inert(address.base()));
        text_with(self.language(), "status-confirm-summary", &args)
    }

    /// Checks that a hosted service in `wanted` answers as one, confirms
    /// `wanted` with the OS when it changes the address in force,
    /// then writes it: the config file the key app read (if any), the
    /// records, the address in force. A refusal writes nothing.
    async fn adopt(&self, wanted: &StatusAddress, in_force: &StatusAddress, asker: &Asker) -> Result<(), ServiceError> {
        public_base_refusal(wanted).map_err(|e| self.setup_refused(e))?;
        // A hosted service must answer as one before the person is asked.
        if let Some(base) = &wanted.hosted {
            self.check_status_service(base).await.map_err(|e| self.setup_refused(e))?;
        }
        let method = match wanted != in_force {
            true => Some(self.confirm(asker, self.change_summary(wanted)).await?),
            false => None,
        };
        if let Some(path) = self.config().source.clone() {
            Config::write_status_address(&path, wanted).map_err(|e| {
                self.setup_refused(SetupError::ConfigFile { path: path.display().to_string(), why: e.to_string() })
            })?;
        }
        self.keep_confirmed(wanted, method.map(|m| m.as_str())).await?;
        self.put_in_force(wanted);
        self.set_requested(None);
        tracing::info!(base = wanted.base(), "status address in force");
        self.notify();
        Ok(())
    }

    /// Checks that a hosted status service answers, as hosts and the
    /// publisher will reach it (§5.8: public addresses only, checked at
    /// connect time), and that it takes this key app's signed updates in its
    /// namespace: a signed revocation of a credential that does not exist is
    /// answered `404 unknown_mandate` only after the service checked the
    /// namespace, the signature and the clock, and changes nothing there.
    /// Then a host's read of that credential's status URL must be the same 404.
    async fn check_status_service(&self, base: &str) -> Result<(), SetupError> {
        let pinned = self.config().discovery.resolve.iter().map(|(k, v)| (k.to_ascii_lowercase(), *v)).collect();
        let client = HostedClient::public_only(pinned)
            .map_err(|e| SetupError::NoAnswer { base: base.to_owned(), detail: e.to_string() })?;
        let thumb = self.profile().principal_thumbprint();
        let probe = Service::new_id("setup-probe-");
        let op = Operation::Revoke { jti: probe.clone() };
        let jws = status_update::sign(self.inner.key.as_ref(), self.now(), &Service::new_id("u-"), &op)
            .map_err(|e| SetupError::NoAnswer { base: base.to_owned(), detail: e.to_string() })?;
        let unknown = Reason::UnknownMandate.as_str();
        match client.post_update(base, &thumb, &jws).await {
            Err(PublishError::Refused { status: 404, reason: Some(r), .. }) if r == unknown => {}
            Err(PublishError::Refused { reason: Some(r), status, .. }) => {
                return Err(match r.parse::<Reason>() {
                    Ok(reason) => SetupError::Refused { base: base.to_owned(), reason },
                    Err(_) => SetupError::NotAStatusService { base: base.to_owned(), status },
                })
            }
            Err(PublishError::Refused { status, .. }) => {
                return Err(SetupError::NotAStatusService { base: base.to_owned(), status })
            }
            Err(PublishError::Unreachable { reason, .. }) => {
                return Err(SetupError::NoAnswer { base: base.to_owned(), detail: reason })
            }
            // A revocation of nothing cannot succeed at a real status service.
            Ok(status) => return Err(SetupError::NotAStatusService { base: base.to_owned(), status }),
        }
        match client.read_answer(&format!("{base}/status/{thumb}/{probe}")).await {
            Ok((404, Some(r))) if r == unknown => Ok(()),
            Ok((status, _)) => Err(SetupError::NotAStatusService { base: base.to_owned(), status }),
            Err(e) => Err(SetupError::NoAnswer { base: base.to_owned(), detail: e.to_string() }),
        }
    }
}

/// A configured hosted service that setup would refuse: not an https base
/// hosts can reach (`setup_base`, with the address's own
/// `hosts_on_this_machine`).
fn hosted_refusal(address: &StatusAddress) -> Result<(), SetupError> {
    match &address.hosted {
        Some(base) => setup_base(base, address.hosts_on_this_machine).map(|_| ()).map_err(SetupError::Url),
        None => Ok(()),
    }
}

/// The status address hosts check, and publishing to it: `Service::status`.
#[derive(Clone, Copy)]
pub struct Status<'a> {
    pub(super) svc: &'a Service,
}

impl Status<'_> {
    /// `app::start`, before any listener: the confirmed address is put in
    /// force. An address the config asks for beyond it is only offered
    /// (Settings, `schcp-keyapp setup --confirm-config`, which name it and ask
    /// the OS there) after a new principal's first start (`first_start`: the
    /// key made in this start, over records that named no principal): at start the OS's prompt would show
    /// nothing of it (polkit shows its own fixed message to a process of the
    /// person's), and an assistant that edits the config and restarts the key
    /// app would have the person confirm it unseen. At the very first start,
    /// with nothing confirmed, it is asked of the OS for this process
    /// (docs/threat-model.md). Confirmed, it is kept and in force; refused or
    /// unanswered, the built-in one stays and Settings offers the request.
    pub async fn settle_status_address(
        self,
        configured: &StatusAddress,
        first_start: bool,
    ) -> Result<(), ServiceError> {
        let confirmed_before = self.svc.sealed_confirmation().await?;
        let in_force = confirmed_before.as_ref().map(|c| c.address.clone()).unwrap_or_else(StatusAddress::built_in);
        self.svc.put_in_force(&in_force);
        self.svc.set_requested(None);
        let Some(asked) = requested(configured, &in_force) else { return Ok(()) };
        if let Err(e) = public_base_refusal(&asked).and_then(|()| hosted_refusal(&asked)) {
            // Not worth the OS's question: Settings offers it, and confirming
            // it there says why it cannot be.
            tracing::warn!(configured = asked.base(), error = %e, "the config names a status address that cannot be put in force");
            self.svc.set_requested(Some(asked));
            return Ok(());
        }
        if confirmed_before.is_some() || !first_start {
            tracing::warn!(
                configured = asked.base(),
                kept = in_force.base(),
                "the config names a status address the person has not confirmed; Settings offers it"
            );
            self.svc.set_requested(Some(asked));
            return Ok(());
        }
        let confirmed = match Origin::ThisProcess.asker() {
            Ok(me) => self.svc.confirm(&me, self.svc.change_summary(&asked)).await,
            Err(e) => Err(e),
        };
        match confirmed {
            Ok(method) => {
                self.svc.keep_confirmed(&asked, Some(method.as_str())).await?;
                self.svc.put_in_force(&asked);
                tracing::info!(base = asked.base(), "the person confirmed the configured status address");
            }
            Err(e) => {
                tracing::warn!(configured = asked.base(), kept = in_force.base(), error = %e,
                    "the config names a status address the person has not confirmed; the confirmed one stays in force");
                self.svc.set_requested(Some(asked));
            }
        }
        Ok(())
    }

    /// What the status API reads the public base in force through: published,
    /// parsed, at each change of address, so a request only reads it.
    pub fn live_base(self) -> status_edge::LiveBase {
        self.svc.inner.status_base.reader()
    }

    /// Settings' and the first run's view of the status address.
    pub async fn status_setup(self) -> Result<StatusSetupView, ServiceError> {
        let language = self.svc.language();
        let address = StatusAddress::of(&self.svc.config());
        let answered = self.svc.sealed_confirmation().await?.is_some();
        let reach = address.reach();
        let mut args = FluentArgs::new();
        args.set("base", inert(address.base()));
        let choice_id = match address.kind() {
            ChoiceKind::Hosted => "status-choice-hosted",
            ChoiceKind::OwnBase => "status-choice-own-base",
            ChoiceKind::NotNow => "status-choice-not-now",
        };
        let words = format!("{} {}", text_with(language, choice_id, &args), text(language, reach.message_id()));
        let requested = self.svc.requested().map(|r| {
            let mut args = FluentArgs::new();
            args.set("base", inert(r.base()));
            args.set("kept", address.base().to_owned());
            RequestedStatusView { base: r.base().to_owned(), words: text_with(language, "status-requested", &args) }
        });
        let publishing = stored::publishing(self.svc.store()).await?;
        let publication = match (&publishing.failing, publishing.last_acknowledged_at) {
            (Some(_), _) => PublicationState::Failing,
            (None, Some(_)) => PublicationState::Reached,
            (None, None) => PublicationState::Nothing,
        };
        let mut args = FluentArgs::new();
        args.set("waiting", publishing.waiting);
        args.set("attempts", publishing.failing.as_ref().map_or(0, |f| f.0));
        args.set("at", publishing.last_acknowledged_at.map(|at| self.svc.instant_words(at)).unwrap_or_default());
        let publication_words = match publication {
            PublicationState::Nothing => text_with(language, "status-publication-nothing", &args),
            PublicationState::Reached => text_with(language, "status-publication-reached", &args),
            PublicationState::Failing => text_with(language, "status-publication-failing", &args),
        };
        let refused = publishing.refused.into_iter().map(|r| refused_publication(self.svc, language, r)).collect();
        Ok(StatusSetupView {
            answered,
            choice: address.kind(),
            base: address.base().to_owned(),
            hosts_can_check: (&reach).into(),
            words,
            requested,
            publication,
            publication_words,
            waiting: publishing.waiting,
            refused,
        })
    }

    /// Setup's answer, the OS asked about `origin` when it changes the address.
    /// A hosted service is checked first (it answers over https, as hosts
    /// reach it, and accepts this key app's signed updates); only then is
    /// the person asked, and only once they confirm is anything written: the
    /// config file, the records, the address in force. Then what waits is
    /// published.
    pub async fn choose_status(self, choice: SetupChoice, origin: Origin<'_>) -> Result<StatusSetupView, ServiceError> {
        let asker = origin.asker()?;
        let in_force = StatusAddress::of(&self.svc.config());
        let here = in_force.hosts_on_this_machine;
        let wanted = match &choice {
            SetupChoice::Hosted { url } => StatusAddress {
                hosted: Some(setup_base(url, here).map_err(|e| self.svc.setup_refused(e.into()))?),
                ..in_force.clone()
            },
            SetupChoice::OwnBase { url } => StatusAddress {
                hosted: None,
                public_base: setup_base(url, here).map_err(|e| self.svc.setup_refused(e.into()))?,
                ..in_force.clone()
            },
            SetupChoice::NotNow => StatusAddress::built_in(),
        };
        self.svc.adopt(&wanted, &in_force, &asker).await?;
        if wanted.hosted.is_some() {
            // "and publishes": whatever is owed goes out now, not at the next round.
            if let Err(e) = self.svc.publish_due().await {
                tracing::warn!(error = %e, "publishing after setup failed; the publisher retries");
            }
        }
        self.status_setup().await
    }

    /// The person confirms the address the config asks for (Settings, `schcp-keyapp setup --confirm-config`).
    pub async fn confirm_requested_status(self, origin: Origin<'_>) -> Result<StatusSetupView, ServiceError> {
        let asker = origin.asker()?;
        let Some(asked) = self.svc.requested() else {
            return Err(ServiceError::NotFound(super::Missing::ConfiguredStatusAddress));
        };
        let in_force = StatusAddress::of(&self.svc.config());
        // The check choose_status makes as it reads the URL: a hosted service
        // is an https base hosts can reach (adopt checks that it answers).
        hosted_refusal(&asked).map_err(|e| self.svc.setup_refused(e))?;
        self.svc.adopt(&asked, &in_force, &asker).await?;
        self.status_setup().await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use schcp_consent::Language;

    #[test]
    fn every_setup_refusal_is_one_sentence_in_english_and_french_naming_the_address() {
        let url = |u: &str| crate::status_address::setup_base(u, false).unwrap_err();
        let cases = [
            SetupError::Url(url("status.example")),
            SetupError::Url(url("http://status.example")),
            SetupError::Url(url("https://user:pw@status.example")),
            SetupError::Url(url("https://localhost")),
            SetupError::Url(url("https://127.0.0.1")),
            SetupError::Url(url("https://nas.local")),
            SetupError::Url(url("https://10.0.0.5")),
            SetupError::NoAnswer { base: "https://s.example".into(), detail: "refused".into() },
            SetupError::NotAStatusService { base: "https://s.example".into(), status: 200 },
            SetupError::Refused { base: "https://s.example".into(), reason: Reason::NamespaceNotAllowed },
            SetupError::Refused { base: "https://s.example".into(), reason: Reason::NamespaceFull },
            SetupError::Refused { base: "https://s.example".into(), reason: Reason::NamespaceMismatch },
            SetupError::ConfigFile { path: "/home/p/keyapp.toml".into(), why: "denied".into() },
        ];
        for e in &cases {
            for language in [Language::English, Language::French] {
                let words = e.words(language);
                assert!(!words.contains("setup-") && !words.contains('\n'), "{e:?} {language:?}: {words}");
                let named =
                    ["status.example", "s.example", "localhost", "127.0.0.1", "nas.local", "10.0.0.5", "keyapp.toml"];
                assert!(named.iter().any(|n| words.contains(n)), "{e:?} {language:?}: {words}");
            }
        }
        assert_eq!(cases[9].reason(), Reason::NamespaceNotAllowed);
        assert_eq!(cases[0].reason(), Reason::StatusUnreachable);
        assert!(cases[1].words(Language::English).contains("it is not https."));
        assert!(cases[6].words(Language::French).contains("10.0.0.5 est une adresse de réseau privé ou local"));
    }

    /// A configured address is the config's, which an assistant can write: no
    /// control or bidi character of it reaches the words shown, in the window
    /// or before the OS's prompt in a terminal (`setup --confirm-config`).
    #[tokio::test]
    async fn a_configured_address_is_shown_inert() {
        let (svc, _clock, _dir) = super::super::test_support::service_at(1_792_000_000).await;
        let hostile = "https://evil.example/\u{1b}[2K\rhttps://good.example\u{202e}";
        let address = StatusAddress { hosted: Some(hostile.into()), ..StatusAddress::built_in() };
        let summary = svc.change_summary(&address);
        assert!(!summary.chars().any(|c| c.is_control() || c == '\u{202e}'), "{summary:?}");
        assert!(summary.contains("evil.example"), "{summary:?}");
        let url = setup_base(hostile, false).unwrap_err();
        let words = SetupError::Url(url).words(Language::English);
        assert!(!words.chars().any(|c| c.is_control() || c == '\u{202e}'), "{words:?}");
    }

    #[test]
    fn settings_words_exist_in_both_languages() {
        for id in [
            "status-choice-hosted",
            "status-choice-own-base",
            "status-choice-not-now",
            "status-requested",
            "status-confirm-summary",
            "status-publication-nothing",
            "status-publication-reached",
            "status-publication-failing",
            "status-refused-register",
            "status-refused-revoke",
            "status-refused-full",
            "status-refused-not-allowed",
            "status-refused-other",
        ] {
            let mut args = FluentArgs::new();
            args.set("base", "https://s.example");
            args.set("kept", "https://k.example");
            args.set("waiting", 2);
            args.set("attempts", 3);
            args.set("at", "Monday");
            args.set("why", "x");
            for language in [Language::English, Language::French] {
                let words = text_with(language, id, &args);
                assert!(!words.is_empty() && words != id, "{id} {language:?}");
            }
        }
        let mut args = FluentArgs::new();
        args.set("waiting", 2);
        args.set("attempts", 3);
        let failing = text_with(Language::English, "status-publication-failing", &args);
        assert!(failing.contains("last 3 attempts") && failing.contains("2 updates are waiting"), "{failing}");
    }
}
