//! What the operator watches (docs/hosted-status.md "Operating it"), in the
//! Prometheus text format through `prometheus-client`: claims by outcome,
//! refusals by route and reason, applied updates, how late an update arrived
//! after it was signed (publication lag), and the database pool's use.
//!
//! Every label value comes from a closed set (an outcome, a route, a §9
//! reason the service itself names), never from a request, so no client can
//! grow the series without bound.

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;
use std::sync::Mutex;

/// How a claim ended.
#[derive(Debug, Clone, Copy, Hash, PartialEq, Eq)]
pub enum ClaimOutcome {
    /// A unit was taken (201).
    Claimed,
    /// The claim id already held one (200): nothing spent.
    AlreadyHeld,
    /// Refused (the reason is counted in `schcp_status_refusals_total`).
    Refused,
}

/// The route a refusal came from.
#[derive(Debug, Clone, Copy, Hash, PartialEq, Eq)]
pub enum Route {
    /// `GET …/{jti}`.
    Status,
    /// `POST …/{jti}/claims`.
    Claim,
    /// `DELETE …/claims/{id}`.
    Release,
    /// `POST /status/{thumb}`.
    Publish,
}

impl ClaimOutcome {
    fn as_str(self) -> &'static str {
        match self {
            ClaimOutcome::Claimed => "claimed",
            ClaimOutcome::AlreadyHeld => "already_held",
            ClaimOutcome::Refused => "refused",
        }
    }
}

impl Route {
    fn as_str(self) -> &'static str {
        match self {
            Route::Status => "status",
            Route::Claim => "claim",
            Route::Release => "release",
            Route::Publish => "publish",
        }
    }
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct OutcomeLabels {
    outcome: &'static str,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RefusalLabels {
    route: &'static str,
    reason: &'static str,
}

/// The service's metrics. Shared by every route of a process.
pub struct Metrics {
    registry: Registry,
    claims: Family<OutcomeLabels, Counter>,
    refusals: Family<RefusalLabels, Counter>,
    updates: Counter,
    publication_lag: Histogram,
    pool_size: Gauge,
    pool_idle: Gauge,
    // Rendering needs the pool's figures set first; one render at a time.
    render: Mutex<()>,
}

impl Default for Metrics {
    fn default() -> Self {
        Metrics::new()
    }
}

impl Metrics {
    /// A fresh registry with every metric registered.
    pub fn new() -> Metrics {
        let mut registry = Registry::with_prefix("schcp_status");
        let claims = Family::<OutcomeLabels, Counter>::default();
        registry.register("claims", "Booking-limit claims answered, by outcome", claims.clone());
        let refusals = Family::<RefusalLabels, Counter>::default();
        registry.register("refusals", "Requests refused, by route and SchCP §9 reason", refusals.clone());
        let updates = Counter::default();
        registry.register("updates", "Signed registrations and revocations applied", updates.clone());
        // An update is signed moments before it is sent; one retried by a key
        // app that was offline can arrive up to its iat window later.
        let publication_lag = Histogram::new([0.5, 1.0, 2.0, 5.0, 15.0, 60.0, 300.0]);
        registry.register(
            "publication_lag_seconds",
            "Seconds from an applied update's iat to its arrival",
            publication_lag.clone(),
        );
        let pool_size = Gauge::default();
        registry.register(
            "db_pool_connections",
            "Database connections open in this process (the pool's and the claim batches')",
            pool_size.clone(),
        );
        let pool_idle = Gauge::default();
        registry.register("db_pool_idle", "Open database connections not in use", pool_idle.clone());
        Metrics { registry, claims, refusals, updates, publication_lag, pool_size, pool_idle, render: Mutex::new(()) }
    }

    /// One claim answered.
    pub fn claim(&self, outcome: ClaimOutcome) {
        self.claims.get_or_create(&OutcomeLabels { outcome: outcome.as_str() }).inc();
    }

    /// One refusal on `route`, with the service's own reason.
    pub fn refused(&self, route: Route, reason: schcp::Reason) {
        self.refusals.get_or_create(&RefusalLabels { route: route.as_str(), reason: reason.as_str() }).inc();
    }

    /// One update applied, signed at `iat`, arriving at `now`.
    pub fn update_applied(&self, iat: i64, now: i64) {
        self.updates.inc();
        self.publication_lag.observe(now.saturating_sub(iat).max(0) as f64);
    }

    /// The text exposition, with the pool's figures as of now.
    pub fn render(&self, pool_size: u32, pool_idle: usize) -> String {
        let _one = self.render.lock().unwrap_or_else(|p| p.into_inner());
        self.pool_size.set(i64::from(pool_size));
        self.pool_idle.set(i64::try_from(pool_idle).unwrap_or(i64::MAX));
        let mut out = String::new();
        prometheus_client::encoding::text::encode(&mut out, &self.registry).expect("writing to a String");
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line<'a>(text: &'a str, starts: &str) -> Option<&'a str> {
        text.lines().find(|l| l.starts_with(starts))
    }

    #[test]
    fn counts_are_rendered_with_their_labels() {
        let m = Metrics::new();
        m.claim(ClaimOutcome::Claimed);
        m.claim(ClaimOutcome::Claimed);
        m.claim(ClaimOutcome::Refused);
        m.refused(Route::Claim, schcp::Reason::SharedLimitReached);
        m.update_applied(100, 103);
        let text = m.render(4, 3);
        assert_eq!(
            line(&text, "schcp_status_claims_total{outcome=\"claimed\"}"),
            Some("schcp_status_claims_total{outcome=\"claimed\"} 2")
        );
        assert_eq!(
            line(&text, "schcp_status_claims_total{outcome=\"refused\"}"),
            Some("schcp_status_claims_total{outcome=\"refused\"} 1")
        );
        assert!(
            line(&text, "schcp_status_claims_total{outcome=\"already_held\"}").is_none(),
            "never seen, not rendered"
        );
        assert!(
            line(&text, "schcp_status_refusals_total{route=\"claim\",reason=\"shared_limit_reached\"} 1").is_some(),
            "{text}"
        );
        assert!(line(&text, "schcp_status_updates_total 1").is_some(), "{text}");
        assert!(line(&text, "schcp_status_publication_lag_seconds_sum 3.0").is_some(), "{text}");
        assert!(line(&text, "schcp_status_db_pool_connections 4").is_some(), "{text}");
        assert!(line(&text, "schcp_status_db_pool_idle 3").is_some(), "{text}");
        assert!(text.ends_with("# EOF\n"), "{text}");
    }

    #[test]
    fn an_update_from_the_future_counts_as_no_lag() {
        let m = Metrics::new();
        m.update_applied(200, 100);
        assert!(line(&m.render(0, 0), "schcp_status_publication_lag_seconds_sum 0.0").is_some());
    }
}
