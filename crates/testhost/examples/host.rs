//! The example SchCP host: Maple Street Auto (spec §2.1) on this machine.
//!
//!     cargo run -p schcp-testhost --example host -- \
//!         --ca-out /tmp/msa-ca.pem --config-out /tmp/keyapp.toml --offer-out /tmp/offer.jws
//!
//! It serves the discovery document at
//! `https://maplestreetauto.example/.well-known/scheduling.json` on 127.0.0.1:8443
//! with a certificate from a CA made for this run, and signs offers.
//!
//! Output, made to be scripted:
//! - standard output: one compact JWS per line and nothing else: a fresh signed offer
//!   at start, every `--every` seconds, and on request (below); receipts on request.
//! - standard error: what to put in the key app's config, for a person to read.
//! - `--ca-out FILE`: the CA certificate (PEM), the key app's `extra_root_certs`.
//! - `--config-out FILE`: a complete key app config (TOML) with the `[discovery]`
//!   section filled in; `schcp-keyapp serve --config FILE` reaches this host with it.
//! - `--trust-out FILE`: only the CA and the address (`extra_root_certs`, `resolve`),
//!   for a key app config that names it in `[discovery] trust_files`: the host never
//!   writes the key app's own config (scripts/try-headless).
//! - `--offer-out FILE`: the latest offer, replaced atomically at each new one.
//!
//! Commands on standard input, one per line:
//! - empty line or `offer`: a new offer (of `--kind`);
//! - `open`: a new unpriced open-ended offer;
//! - `receipt JTI [offer|limits|contract]`: a receipt (§5.3) for the latest offer,
//!   booked under root mandate JTI, with `consent.approved` as given (default
//!   `offer`: a closed mandate);
//! - `rotate KID`: rotate the signing key to a new one named KID;
//! - `expire`: let every hold of the endpoint lapse now (an expired offer);
//! - `invite PRINCIPAL`: a tentative booking (§5.10) in five days that someone
//!   else made, naming PRINCIPAL as an invitee who must answer within four
//!   days; prints its booking id;
//! - `status BOOKING_ID`: prints the status of a booking it was given (as
//!   `invite` made it, or as an invitee's answer left it);
//! - `quit`.
//!
//! It is also a SchCP endpoint (crates/testhost endpoint.rs): availability,
//! holds, confirm, cancel, change offers and reschedule for the oil change,
//! weekdays 9:00 to 16:00 host time, so an agent can book end to end.
//!
//! The CA is new on every run: restart the key app after restarting the host (it
//! reads `extra_root_certs` when it starts).

use std::io::Write as _;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use chrono::{Days, TimeZone, Utc};
use schcp::claims::{Approved, OfferClaims, Participant, ReconfirmDefault, Slot};
use testhost::{TestHost, TestHostConfig};
use tokio::io::AsyncBufReadExt;

const USAGE: &str = "usage: host [--listen ADDR] [--ca-out FILE] [--config-out FILE] [--trust-out FILE]
            [--offer-out FILE] [--kind priced|open] [--every SECONDS]
  --listen ADDR      where to listen (default 127.0.0.1:8443; port 0 picks a free one)
  --ca-out FILE      write the CA certificate (PEM) for the key app's extra_root_certs
  --config-out FILE  write a key app config with [discovery] filled in (implies --ca-out,
                     default ./schcp-testhost-ca.pem)
  --trust-out FILE   write only this host's CA and address, for a key app config that
                     names the file in [discovery] trust_files (implies --ca-out)
  --offer-out FILE   keep the latest signed offer in FILE
  --kind KIND        offers to sign: priced (the spec's oil change, default) or open
                     (an unpriced open-ended inspection)
  --every SECONDS    sign a new offer this often (default 240; offers live 300 s; 0: only on request)";

#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    Priced,
    Open,
}

struct Args {
    listen: SocketAddr,
    ca_out: Option<PathBuf>,
    config_out: Option<PathBuf>,
    trust_out: Option<PathBuf>,
    offer_out: Option<PathBuf>,
    kind: Kind,
    every: u64,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        listen: SocketAddr::from(([127, 0, 0, 1], 8443)),
        ca_out: None,
        config_out: None,
        trust_out: None,
        offer_out: None,
        kind: Kind::Priced,
        every: 240,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or_else(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--listen" => args.listen = value()?.parse().map_err(|e| format!("--listen: {e}"))?,
            "--ca-out" => args.ca_out = Some(value()?.into()),
            "--config-out" => args.config_out = Some(value()?.into()),
            "--trust-out" => args.trust_out = Some(value()?.into()),
            "--offer-out" => args.offer_out = Some(value()?.into()),
            "--kind" => {
                args.kind = match value()?.as_str() {
                    "priced" => Kind::Priced,
                    "open" => Kind::Open,
                    other => return Err(format!("--kind: {other:?} is not priced or open")),
                }
            }
            "--every" => args.every = value()?.parse().map_err(|e| format!("--every: {e}"))?,
            "-h" | "--help" => return Err(String::new()),
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    if (args.config_out.is_some() || args.trust_out.is_some()) && args.ca_out.is_none() {
        args.ca_out = Some("schcp-testhost-ca.pem".into());
    }
    Ok(args)
}

/// Writes `contents` to `path` through a temporary file and a rename, so a reader
/// never sees half a file.
fn write_atomic(path: &Path, contents: &str) -> std::io::Result<()> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    std::fs::write(&tmp, contents)?;
    std::fs::rename(&tmp, path)
}

fn now() -> i64 {
    Utc::now().timestamp()
}

/// Tomorrow at 13:00 in the host's time zone, for 45 minutes: a slot in the future
/// whatever day the example is run (the spec's own slot is a fixed date).
fn tomorrow_slot(tz: &str, open_end: bool) -> Slot {
    let tz: chrono_tz::Tz = tz.parse().unwrap_or(chrono_tz::America::Toronto);
    let today = Utc::now().with_timezone(&tz).date_naive();
    let day = today.checked_add_days(Days::new(1)).unwrap_or(today);
    let start = day
        .and_hms_opt(13, 0, 0)
        .and_then(|t| tz.from_local_datetime(&t).earliest())
        .expect("13:00 exists on every day");
    let end = start + chrono::TimeDelta::minutes(45);
    Slot { start: start.to_rfc3339(), end: (!open_end).then(|| end.to_rfc3339()) }
}

/// The booker's principal in `invite` bookings: someone the person does not know.
const BOOKER: &str = "urn:schcp:principal:jwk-thumbprint:NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs";

/// `invite PRINCIPAL`: a priced oil change in five days at 13:00 host time,
/// booked by someone else and tentative until PRINCIPAL answers (§5.10).
fn invite(host: &TestHost, principal: &str) -> Result<String, String> {
    let tz: chrono_tz::Tz = host.config().tz.parse().unwrap_or(chrono_tz::America::Toronto);
    let at = |days: u64, h: u32, m: u32| {
        let today = Utc::now().with_timezone(&tz).date_naive();
        let day = today.checked_add_days(Days::new(days)).unwrap_or(today);
        day.and_hms_opt(h, m, 0).and_then(|t| tz.from_local_datetime(&t).earliest()).map(|t| t.to_rfc3339())
    };
    let mut claims = host.priced_offer(now());
    claims.slot = Slot { start: at(5, 13, 0).ok_or("no such day")?, end: at(5, 13, 45) };
    let offer = host.sign_offer(&claims).map_err(|e| e.to_string())?;
    let invitee = Participant::invitee(principal.to_owned(), "P4D".into(), at(4, 13, 0), ReconfirmDefault::Release);
    let participants = vec![
        Participant::booker(BOOKER.into(), Some("Sam R.".into())),
        Participant { relationship: Some("brother".into()), ..invitee },
    ];
    let served = host.tentative_booking(&offer, "m-booker-1", participants, now()).map_err(|e| e.to_string())?;
    Ok(served.booking.booking_id)
}

fn new_offer(host: &TestHost, kind: Kind) -> String {
    let mut claims: OfferClaims = match kind {
        Kind::Priced => host.priced_offer(now()),
        Kind::Open => host.open_ended_offer(now()),
    };
    claims.slot = tomorrow_slot(&host.config().tz, kind == Kind::Open);
    host.sign_offer(&claims).expect("signing a well-formed offer")
}

fn emit(line: &str) {
    let mut out = std::io::stdout().lock();
    // A closed stdout (the reader went away) ends the example.
    if writeln!(out, "{line}").and_then(|_| out.flush()).is_err() {
        std::process::exit(0);
    }
}

fn publish_offer(host: &TestHost, kind: Kind, offer_out: Option<&Path>) -> String {
    let offer = new_offer(host, kind);
    if let Some(path) = offer_out {
        if let Err(e) = write_atomic(path, &format!("{offer}\n")) {
            eprintln!("cannot write {}: {e}", path.display());
        }
    }
    emit(&offer);
    offer
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            if !e.is_empty() {
                eprintln!("{e}");
            }
            eprintln!("{USAGE}");
            std::process::exit(2);
        }
    };
    let config = TestHostConfig { listen: args.listen, ..TestHostConfig::default() };
    let host = match TestHost::try_start(config).await {
        Ok(h) => h,
        Err(e) => {
            eprintln!("the example host did not start on {}: {e}", args.listen);
            std::process::exit(1);
        }
    };
    let (name, addr) = host.resolve();

    let mut ca_path = None;
    if let Some(path) = &args.ca_out {
        if let Err(e) = std::fs::write(path, host.ca_pem()) {
            eprintln!("cannot write {}: {e}", path.display());
            std::process::exit(1);
        }
        ca_path = Some(std::fs::canonicalize(path).unwrap_or_else(|_| path.clone()));
    }
    let ca_file = ca_path
        .as_ref()
        .map(|p| p.display().to_string())
        .unwrap_or_else(|| "<the CA file: run with --ca-out FILE>".into());
    let trust_toml = host.trust_toml(&ca_file);
    let discovery_toml = format!("[discovery]\n{trust_toml}");
    if let Some(path) = &args.trust_out {
        let text = format!(
            "# The SchCP example host's CA and address, new on every run; a key app config\n\
             # reads them with trust_files = [this file] under [discovery].\n{trust_toml}"
        );
        if let Err(e) = write_atomic(path, &text) {
            eprintln!("cannot write {}: {e}", path.display());
            std::process::exit(1);
        }
    }
    if let Some(path) = &args.config_out {
        let text = format!(
            "# Key app configuration that reaches the SchCP example host (schcp-testhost).\n\
             # The host's CA is new on every run: restart the key app after restarting the host.\n\n{discovery_toml}"
        );
        if let Err(e) = write_atomic(path, &text) {
            eprintln!("cannot write {}: {e}", path.display());
            std::process::exit(1);
        }
    }

    eprintln!("SchCP example host: {} ({}) listening on {addr}", host.config().name, host.host_id());
    eprintln!("discovery URL: {}", host.discovery_url());
    eprintln!("resolve entry: {name} = {addr}");
    if let Some(p) = &ca_path {
        eprintln!("CA certificate: {}", p.display());
    }
    if let Some(p) = &args.config_out {
        eprintln!("key app config: {}", p.display());
    }
    eprintln!("\nPut this in the key app's config (README, \"Configuration\"):\n\n{discovery_toml}");
    eprintln!("Signed offers follow on standard output, one per line. Type an empty line (or");
    eprintln!(
        "`offer`) for a new one, `open` for an open-ended one, `receipt JTI [offer|limits]`, `rotate KID`, `quit`.\n"
    );

    let offer_out = args.offer_out.as_deref();
    let mut latest = publish_offer(&host, args.kind, offer_out);

    let mut stdin = tokio::io::BufReader::new(tokio::io::stdin()).lines();
    let mut stdin_open = true;
    let period = Duration::from_secs(args.every.max(1));
    let mut ticker = tokio::time::interval_at(tokio::time::Instant::now() + period, period);
    loop {
        tokio::select! {
            _ = ticker.tick(), if args.every > 0 => {
                latest = publish_offer(&host, args.kind, offer_out);
            }
            line = stdin.next_line(), if stdin_open => {
                let line = match line {
                    Ok(Some(l)) => l,
                    // End of input (or run with </dev/null): keep serving.
                    _ => { stdin_open = false; continue; }
                };
                let mut words = line.split_whitespace();
                match (words.next(), words.next()) {
                    (None | Some("offer"), _) => latest = publish_offer(&host, args.kind, offer_out),
                    (Some("open"), _) => latest = publish_offer(&host, Kind::Open, offer_out),
                    (Some("receipt"), Some(jti)) => {
                        let approved = match words.next() {
                            None | Some("offer") => Some(Approved::Offer),
                            Some("limits") => Some(Approved::Limits),
                            Some("contract") => Some(Approved::Contract),
                            Some(_) => None,
                        };
                        match approved.map(|a| host.receipt(&latest, jti, a, now())) {
                            Some(Ok(r)) => emit(&r),
                            Some(Err(e)) => eprintln!("no receipt: {e}"),
                            None => eprintln!("receipt JTI [offer|limits|contract]"),
                        }
                    }
                    (Some("rotate"), Some(kid)) => {
                        host.rotate_key(kid);
                        eprintln!("now signing with kid {kid}");
                    }
                    (Some("expire"), _) => {
                        host.expire_holds();
                        eprintln!("every hold has lapsed");
                    }
                    (Some("invite"), Some(principal)) => match invite(&host, principal) {
                        Ok(id) => emit(&id),
                        Err(e) => eprintln!("no invitation: {e}"),
                    },
                    (Some("status"), Some(id)) => match host.served_booking(id) {
                        Some(b) => emit(serde_json::to_value(b.booking.status).ok().and_then(|v| v.as_str().map(str::to_owned)).as_deref().unwrap_or("unknown")),
                        None => emit("unknown"),
                    },
                    (Some("quit"), _) => break,
                    _ => eprintln!(
                        "commands: offer | open | receipt JTI [offer|limits|contract] | rotate KID | expire | invite PRINCIPAL | \
                         status BOOKING_ID | quit"
                    ),
                }
            }
            // Neither input nor a period: serve until killed.
            _ = std::future::pending::<()>(), if !stdin_open && args.every == 0 => {}
        }
    }
}
