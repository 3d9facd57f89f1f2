//! The tools.

use crate::refusal::Refusal;
use crate::session::Session;
use agent::host::{HostClient, HostTrust};
use agent::{
    AcceptanceRequest, AgentClient, AgentError, AgentProfile, ClosedMandateRequest, InvitationRequest,
    ManagementMandateRequest, MandateRequest, MeetingContractRequest, NewRequest, PairingStatus, Request,
    RequestStatus, RuleRequest,
};
use ed25519_dalek::SigningKey;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolResult, ContentBlock, Implementation, ProgressNotificationParam, RequestMetaObject, ServerCapabilities,
};
use rmcp::{tool, tool_handler, tool_router, ErrorData, Peer, RoleServer, ServerHandler};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};
use std::path::PathBuf;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// `wait_for_answer` waits at most this long: MCP clients time a tool call out
/// near 60 s, and the model should get a word back before that.
pub const MAX_WAIT_SECONDS: u32 = 45;

/// While waiting, a progress notification this often (each one long poll of
/// the key app, docs/agent-api.md §5).
pub const PROGRESS_EVERY_SECONDS: u32 = 5;

/// Where the key app is.
#[derive(Debug, Clone)]
pub enum KeyAppSource {
    /// A fixed origin (`--keyapp URL`).
    Url(String),
    /// The `agent-api.json` the key app writes when it starts, read on every
    /// call so a key app restarted on another port is still found.
    AgentApiFile(PathBuf),
}

/// What the server needs.
pub struct ServerConfig {
    /// Where the key app is.
    pub keyapp: KeyAppSource,
    /// The agent's own key (from its profile).
    pub key: SigningKey,
    /// The profile, where the pairing started is remembered.
    pub profile: AgentProfile,
    /// The name shown to the person when pairing, unless the model names one.
    pub agent_name: String,
    /// Which hosts beyond the public web the server may reach (extra roots,
    /// pinned names: the example host's `--trust-out` file).
    pub trust: HostTrust,
}

pub(crate) struct Inner {
    keyapp: KeyAppSource,
    pub(crate) key: SigningKey,
    profile: AgentProfile,
    agent_name: String,
    /// The signed client for hosts, or why it could not be made.
    pub(crate) hosts: Result<HostClient, String>,
    pub(crate) session: tokio::sync::Mutex<Session>,
    pub(crate) session_file: PathBuf,
}

/// The MCP server.
#[derive(Clone)]
pub struct KeyAppServer {
    pub(crate) inner: Arc<Inner>,
    tool_router: ToolRouter<KeyAppServer>,
}

/// `pair`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct PairArgs {
    /// The name the person sees in the key app for this assistant, e.g. "Claude Desktop" (at most 64
    /// characters). Leave it out to use the server's configured name.
    #[serde(default)]
    agent_name: Option<String>,
}

/// `wait_for_answer`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct WaitArgs {
    /// The request_id a request tool returned (rq_…).
    request_id: String,
    /// How long to wait, in seconds: 1 to 45 (the default and the most).
    #[serde(default)]
    timeout_seconds: Option<u32>,
}

/// `withdraw_request`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct WithdrawArgs {
    /// The request_id of a pending request of this assistant (rq_…).
    request_id: String,
}

pub(crate) const RELAY_TEXT: &str = RELAY;

const RELAY: &str = "Show the person the consent text below exactly as written, unchanged and in full: it is what \
                     the key app shows them and what they approve or decline there. They answer in the key app, \
                     never in this chat, and nothing is signed until they do. Then call wait_for_answer with the \
                     request_id.";

pub(crate) fn ok(text: String, value: Value) -> CallToolResult {
    let mut r = CallToolResult::success(vec![ContentBlock::text(text), ContentBlock::text(value.to_string())]);
    r.structured_content = Some(value);
    r
}

pub(crate) fn refused(r: Refusal) -> CallToolResult {
    let mut out = CallToolResult::error(vec![ContentBlock::text(r.sentence)]);
    out.structured_content = Some(r.detail);
    out
}

/// An ended request the model should read as a refusal: declined, expired or withdrawn.
fn ended(req: &Request) -> CallToolResult {
    let sentence = match req.status {
        RequestStatus::Declined => format!(
            "The person declined request {}, so nothing was signed; do not ask again for the same thing unless \
             the person tells you to.",
            req.request_id
        ),
        RequestStatus::Expired => format!(
            "Request {} expired before the person answered, so nothing was signed; ask the person whether to \
             try again.",
            req.request_id
        ),
        _ => format!("Request {} was withdrawn; nothing was signed.", req.request_id),
    };
    let mut out = CallToolResult::error(vec![ContentBlock::text(sentence.clone())]);
    out.structured_content = Some(json!({
        "request_id": req.request_id, "kind": req.kind, "status": req.status, "message": sentence,
    }));
    out
}

fn request_value(req: &Request) -> Value {
    let mut v = json!({
        "request_id": req.request_id,
        "kind": req.kind,
        "status": req.status,
        "expires_at": req.expires_at,
        "consent_text": req.consent_text,
    });
    if let Some(r) = &req.result {
        v["credential"] = r.clone();
    }
    v
}

/// The idempotency key of a request: the hash of what is asked, so a
/// client's retry of the same tool call never asks the person twice
/// (docs/agent-api.md §5).
pub(crate) fn idempotency_key(request: &NewRequest) -> String {
    let bytes = serde_json::to_vec(request).expect("a typed request serializes");
    format!("mcp-{}", schcp::hash::sha256_b64(&bytes))
}

impl KeyAppServer {
    /// A server for one agent profile and one key app.
    pub fn new(config: ServerConfig) -> KeyAppServer {
        let hosts = HostClient::new(config.key.clone(), &config.trust).map_err(|e| e.to_string());
        let session_file = crate::session::file(config.profile.dir());
        KeyAppServer {
            inner: Arc::new(Inner {
                keyapp: config.keyapp,
                key: config.key,
                profile: config.profile,
                agent_name: config.agent_name,
                hosts,
                session: tokio::sync::Mutex::new(Session::load(&session_file)),
                session_file,
            }),
            tool_router: Self::tool_router() + Self::booking_router(),
        }
    }

    /// Keeps the credential of an approved request for the tools that use it.
    async fn remember(&self, req: &Request) {
        if let Some(result) = req.result.as_ref().filter(|_| req.status == RequestStatus::Approved) {
            let mut s = self.inner.session.lock().await;
            s.remember(result, &self.inner.key);
            let _ = s.save(&self.inner.session_file);
        }
    }

    pub(crate) fn client(&self) -> Result<AgentClient, Refusal> {
        let url = match &self.inner.keyapp {
            KeyAppSource::Url(u) => u.clone(),
            KeyAppSource::AgentApiFile(p) => agent::agent_api_url(p).map_err(|e| Refusal::from_locate(&e))?,
        };
        // Each tool call is a session: it starts with the key app's proof,
        // checked against the principal key pinned at pairing.
        Ok(AgentClient::new(url, self.inner.key.clone()).pinned_in(self.inner.profile.clone()))
    }

    async fn ask(&self, request: NewRequest) -> Result<CallToolResult, ErrorData> {
        let client = match self.client() {
            Ok(c) => c,
            Err(r) => return Ok(refused(r)),
        };
        let req = match client.request(&idempotency_key(&request), &request).await {
            Ok(r) => r,
            Err(e) => return Ok(refused(Refusal::from_agent(&e))),
        };
        Ok(match req.status {
            RequestStatus::Pending => ok(
                format!(
                    "{RELAY}\n\nrequest_id: {}\nexpires_at: {}\n\nConsent text:\n{}",
                    req.request_id,
                    req.expires_at.as_deref().unwrap_or("unknown"),
                    req.consent_text
                ),
                json!({ "instruction": RELAY, "request": request_value(&req) }),
            ),
            // §3.3: a management mandate under the person's earlier root
            // mandate is issued without a prompt; an identical request already
            // answered comes back as it ended.
            RequestStatus::Approved => {
                self.remember(&req).await;
                ok(
                    format!(
                        "Request {} is approved: the credential is in the result. The person approved this text:\n{}",
                        req.request_id, req.consent_text
                    ),
                    json!({ "request": request_value(&req) }),
                )
            }
            _ => ended(&req),
        })
    }
}

#[tool_router]
impl KeyAppServer {
    /// Says whether the person's key app is running, whether this assistant is paired with it, and whom it signs for;
    /// call it first.
    #[tool(annotations(
        title = "Key app status",
        read_only_hint = true,
        destructive_hint = false,
        open_world_hint = false
    ))]
    async fn keyapp_status(&self) -> Result<CallToolResult, ErrorData> {
        let client = match self.client() {
            Ok(c) => c,
            Err(r) => {
                let v = json!({"running": false, "paired": "unknown", "message": r.sentence});
                return Ok(ok(r.sentence, v));
            }
        };
        let agent_jkt = client.jkt();
        match client.prove().await {
            Ok(p) if p.paired => {
                let text = format!(
                    "The key app is running, proved it holds the person's key, and this assistant is paired. It \
                     signs for {}{}.",
                    p.name.as_deref().map(|n| format!("{n}, ")).unwrap_or_default(),
                    p.principal
                );
                let v = json!({"running": true, "paired": "paired", "principal": p.principal, "principal_jwk": p.jwk, "name": p.name,
                               "keyapp": client.base(), "agent_key_thumbprint": agent_jkt, "proved": true});
                Ok(ok(text, v))
            }
            Ok(_) => {
                let pairing = match self.inner.profile.pairing_id() {
                    Some(id) => client.pairing(&id, 0).await.ok(),
                    None => None,
                };
                let (state, text) = match pairing.as_ref().map(|p| &p.status) {
                    Some(PairingStatus::Pending) => (
                        "pending",
                        "The key app is running; this assistant's pairing waits for the person to approve it in \
                         the key app.",
                    ),
                    Some(PairingStatus::Declined) => (
                        "declined",
                        "The person said no to pairing this assistant with their key app; do not ask again unless \
                         the person asks you to.",
                    ),
                    _ => ("not_paired", "The key app is running; this assistant is not paired: call pair."),
                };
                let v = json!({"running": true, "paired": state, "keyapp": client.base(),
                               "pairing_id": pairing.map(|p| p.pairing_id), "agent_key_thumbprint": agent_jkt});
                Ok(ok(text.to_owned(), v))
            }
            Err(AgentError::Impostor { address, reason }) => {
                // Never "running and paired": the model is told what listens
                // there is not the person's key app.
                let r = Refusal::impostor(&address, &reason);
                let mut out = refused(r.clone());
                out.structured_content = Some(json!({"running": false, "paired": "unknown", "impostor": true,
                                                     "keyapp": client.base(), "message": r.sentence, "error": r.detail["error"]}));
                Ok(out)
            }
            Err(AgentError::Unreachable { url, .. }) => {
                let r = Refusal::not_running(&format!("nothing answers at {url}"));
                Ok(ok(r.sentence.clone(), json!({"running": false, "paired": "unknown", "message": r.sentence})))
            }
            Err(e) => Ok(refused(Refusal::from_agent(&e))),
        }
    }

    /// Asks the person to pair this assistant with their key app, and gives the short code they should see beside this
    /// assistant's name before they approve.
    #[tool(annotations(
        title = "Pair with the key app",
        read_only_hint = false,
        destructive_hint = false,
        idempotent_hint = true,
        open_world_hint = false
    ))]
    async fn pair(&self, Parameters(args): Parameters<PairArgs>) -> Result<CallToolResult, ErrorData> {
        let client = match self.client() {
            Ok(c) => c,
            Err(r) => return Ok(refused(r)),
        };
        let name = args.agent_name.unwrap_or_else(|| self.inner.agent_name.clone());
        let p = match client.pair(&name).await {
            Ok(p) => p,
            Err(e) => return Ok(refused(Refusal::from_agent(&e))),
        };
        // Only to say "pending" in keyapp_status after a restart; a failure
        // to write it changes nothing else.
        let _ = self.inner.profile.remember_pairing(&p.pairing_id);
        let fp = p.fingerprint.clone().unwrap_or_default();
        let text = match p.status {
            PairingStatus::Approved => "This assistant is already paired with the key app.".to_owned(),
            _ => format!(
                "Tell the person: open the key app, check that it shows the code {fp} next to \"{name}\", and \
                 approve the pairing there only if the codes match. Then call keyapp_status."
            ),
        };
        Ok(ok(text, json!({"pairing_id": p.pairing_id, "status": p.status, "fingerprint": fp, "agent_name": name})))
    }

    /// Asks the person in the key app for standing permission for this assistant to hold, book, cancel or move bookings
    /// at the businesses named, within the limits and for the time they approve.
    #[tool(annotations(
        title = "Ask for a mandate",
        read_only_hint = false,
        destructive_hint = false,
        idempotent_hint = true,
        open_world_hint = true
    ))]
    async fn request_mandate(&self, Parameters(args): Parameters<MandateRequest>) -> Result<CallToolResult, ErrorData> {
        self.ask(NewRequest::Mandate(args)).await
    }

    /// Asks the person in the key app to approve exactly one time and price a business offered (its signed offer,
    /// passed unchanged), so that it can be booked.
    #[tool(annotations(
        title = "Ask to book one offer",
        read_only_hint = false,
        destructive_hint = false,
        idempotent_hint = true,
        open_world_hint = true
    ))]
    async fn request_closed_mandate(
        &self,
        Parameters(args): Parameters<ClosedMandateRequest>,
    ) -> Result<CallToolResult, ErrorData> {
        self.ask(NewRequest::ClosedMandate(args)).await
    }

    /// Asks the person in the key app for permission to cancel or move one booking, from the receipt the business
    /// signed for it.
    #[tool(annotations(
        title = "Ask to manage a booking",
        read_only_hint = false,
        destructive_hint = false,
        idempotent_hint = true,
        open_world_hint = true
    ))]
    async fn request_management_mandate(
        &self,
        Parameters(args): Parameters<ManagementMandateRequest>,
    ) -> Result<CallToolResult, ErrorData> {
        self.ask(NewRequest::ManagementMandate(args)).await
    }

    /// Asks the person in the key app to organize a meeting of several people on the terms each of their calendars
    /// offered.
    #[tool(annotations(
        title = "Ask to organize a meeting",
        read_only_hint = false,
        destructive_hint = false,
        idempotent_hint = true,
        open_world_hint = true
    ))]
    async fn request_meeting_contract(
        &self,
        Parameters(args): Parameters<MeetingContractRequest>,
    ) -> Result<CallToolResult, ErrorData> {
        self.ask(NewRequest::MeetingContract(args)).await
    }

    /// Asks the person in the key app whether to join a meeting someone else organized.
    #[tool(annotations(
        title = "Ask to accept a meeting",
        read_only_hint = false,
        destructive_hint = false,
        idempotent_hint = true,
        open_world_hint = false
    ))]
    async fn request_acceptance(
        &self,
        Parameters(args): Parameters<AcceptanceRequest>,
    ) -> Result<CallToolResult, ErrorData> {
        self.ask(NewRequest::Acceptance(args)).await
    }

    /// Asks the person in the key app whether to accept a booking someone else made that names them, from the
    /// business's booking passed unchanged; then call wait_for_answer.
    #[tool(annotations(
        title = "Ask to accept an invitation",
        read_only_hint = false,
        destructive_hint = false,
        idempotent_hint = true,
        open_world_hint = true
    ))]
    async fn request_invitation(
        &self,
        Parameters(args): Parameters<InvitationRequest>,
    ) -> Result<CallToolResult, ErrorData> {
        self.ask(NewRequest::Invitation(args)).await
    }

    /// Asks the person in the key app for a standing rule that lets a calendar assistant they name accept meetings for
    /// them, within the limits they set.
    #[tool(annotations(
        title = "Ask for a rule",
        read_only_hint = false,
        destructive_hint = false,
        idempotent_hint = true,
        open_world_hint = false
    ))]
    async fn request_rule(&self, Parameters(args): Parameters<RuleRequest>) -> Result<CallToolResult, ErrorData> {
        self.ask(NewRequest::Rule(args)).await
    }

    /// Waits up to 45 seconds for the person's answer in the key app, reporting progress, and returns what they issued
    /// or how the request ended.
    #[tool(annotations(
        title = "Wait for the person's answer",
        read_only_hint = true,
        destructive_hint = false,
        open_world_hint = false
    ))]
    async fn wait_for_answer(
        &self,
        Parameters(args): Parameters<WaitArgs>,
        meta: RequestMetaObject,
        peer: Peer<RoleServer>,
        ct: CancellationToken,
    ) -> Result<CallToolResult, ErrorData> {
        let client = match self.client() {
            Ok(c) => c,
            Err(r) => return Ok(refused(r)),
        };
        let total = args.timeout_seconds.unwrap_or(MAX_WAIT_SECONDS).clamp(1, MAX_WAIT_SECONDS);
        let token = meta.get_progress_token();
        let mut waited = 0u32;
        loop {
            let step = PROGRESS_EVERY_SECONDS.min(total - waited);
            // The long poll is dropped when the client cancels: nothing is
            // withdrawn, the request stays pending for the person.
            let polled = tokio::select! {
                _ = ct.cancelled() => return Err(ErrorData::internal_error("cancelled by the client", None)),
                r = client.request_status(&args.request_id, step) => r,
            };
            let req = match polled {
                Ok(r) => r,
                Err(e) => return Ok(refused(Refusal::from_agent(&e))),
            };
            match req.status {
                RequestStatus::Pending => {}
                RequestStatus::Approved => {
                    self.remember(&req).await;
                    let text = format!(
                        "The person approved request {}. The credential is in the result; use it only for what \
                         the person approved.",
                        req.request_id
                    );
                    return Ok(ok(text, request_value(&req)));
                }
                _ => return Ok(ended(&req)),
            }
            waited += step;
            if let Some(token) = &token {
                let note = ProgressNotificationParam::new(token.clone(), f64::from(waited))
                    .with_total(f64::from(total))
                    .with_message(format!("waiting for the person's answer in the key app ({waited} of {total} s)"));
                // A client that stopped listening for progress is no reason to stop waiting.
                let _ = peer.notify_progress(note).await;
            }
            if waited >= total {
                let text = format!(
                    "The person has not answered request {} yet; it still waits in the key app until {}. Call \
                     wait_for_answer again, or tell the person it waits for them.",
                    req.request_id,
                    req.expires_at.as_deref().unwrap_or("it expires")
                );
                return Ok(ok(text, request_value(&req)));
            }
        }
    }

    /// Lists what the person has allowed this assistant, in words: what each permission allows, until when, and the
    /// bookings left under a shared limit.
    #[tool(annotations(
        title = "List mandates",
        read_only_hint = true,
        destructive_hint = false,
        open_world_hint = false
    ))]
    async fn list_mandates(&self) -> Result<CallToolResult, ErrorData> {
        let client = match self.client() {
            Ok(c) => c,
            Err(r) => return Ok(refused(r)),
        };
        match client.mandates().await {
            Ok(list) => {
                let session = self.inner.session.lock().await;
                let described: Vec<Value> = list
                    .iter()
                    .map(|m| {
                        let words = describe(m, session.credentials.get(&m.jti));
                        json!({"jti": m.jti, "kind": m.kind, "hosts": m.aud, "status": m.status,
                               "valid_until": crate::words::iso(m.exp), "remaining": m.remaining,
                               "description": words})
                    })
                    .collect();
                let mut text = match list.len() {
                    0 => "The person has issued no credential to this assistant yet.".to_owned(),
                    n => format!("The person has issued {n} credential(s) to this assistant:"),
                };
                for d in &described {
                    text.push_str(&format!(
                        "\n- {}: {}",
                        d["jti"].as_str().unwrap_or(""),
                        d["description"].as_str().unwrap_or("")
                    ));
                }
                Ok(ok(text, json!({ "mandates": described })))
            }
            Err(e) => Ok(refused(Refusal::from_agent(&e))),
        }
    }

    /// Withdraws a request of this assistant that still waits for the person, so that they are no longer asked.
    #[tool(annotations(
        title = "Withdraw a request",
        read_only_hint = false,
        destructive_hint = false,
        idempotent_hint = true,
        open_world_hint = false
    ))]
    async fn withdraw_request(&self, Parameters(args): Parameters<WithdrawArgs>) -> Result<CallToolResult, ErrorData> {
        let client = match self.client() {
            Ok(c) => c,
            Err(r) => return Ok(refused(r)),
        };
        match client.withdraw(&args.request_id).await {
            Ok(req) => {
                let text = format!("Request {} is withdrawn; the person is no longer asked.", req.request_id);
                Ok(ok(text, request_value(&req)))
            }
            Err(e) => Ok(refused(Refusal::from_agent(&e))),
        }
    }
}

/// What one credential allows and until when, in words.
fn describe(m: &agent::MandateListing, held: Option<&crate::session::Held>) -> String {
    let hosts = m.aud.join(" and ");
    let claims = held.map(|h| &h.claims);
    let limits = claims.and_then(|c| c.constraints.as_ref());
    let what = match m.kind.as_str() {
        "mandate" => {
            let actions = claims.map_or_else(|| "act".to_owned(), |c| crate::words::actions(&c.scope));
            let mut w = format!("standing permission to {actions} at {hosts}");
            if let Some(k) = limits {
                if let Some(s) = &k.services {
                    w.push_str(&format!(", for {}", s.join(", ")));
                }
                if let Some(win) = &k.window {
                    w.push_str(&format!(", between {} and {}", win.not_before, win.not_after));
                }
                if let Some(p) = &k.max_price {
                    w.push_str(&format!(", up to {} {} stated by the business", p.currency, p.amount));
                }
                if let Some(n) = k.max_bookings {
                    let shared = if k.shared_limit == Some(true) { " in all, across these businesses" } else { "" };
                    w.push_str(&format!(", at most {n} booking(s){shared}"));
                }
            }
            w
        }
        "closed_mandate" => format!("the person's approval of one exact offer at {hosts}"),
        "management_mandate" => {
            let ids =
                limits.and_then(|k| k.bookings.as_ref()).map(|b| b.join(", ")).unwrap_or_else(|| "one booking".into());
            format!("permission to cancel or move booking {ids} at {hosts}")
        }
        "invitation" => format!("the person's acceptance of one invitation at {hosts}"),
        "rule" => "a standing rule for meetings another calendar may accept for the person".to_owned(),
        "meeting_contract" | "acceptance" => "the person's agreement to one meeting".to_owned(),
        other => format!("a credential of kind {other} for {hosts}"),
    };
    let until = match m.status {
        agent::MandateStatus::Active => format!("valid until {}", crate::words::iso(m.exp)),
        agent::MandateStatus::Revoked => "revoked by the person".to_owned(),
        _ => format!("expired at {}", crate::words::iso(m.exp)),
    };
    let left = m.remaining.map(|n| format!("; {n} booking(s) left of its shared limit")).unwrap_or_default();
    format!("{what}; {until}{left}.")
}

const INSTRUCTIONS: &str = "This server connects you to the person's SchCP Key App, which holds their signing key. \
You never sign anything: you ask, the key app shows the person a consent text, and only their yes in the key app \
issues a credential. Start with keyapp_status; if not paired, call pair and have the person compare the code. To \
book: find_host with the business's address, availability for the days the person wants, then (with a standing \
permission from request_mandate allowing hold and book there) hold the time the person chose, and book it; book asks \
the person to approve the exact terms when their permission does not already cover them. booking, reschedule and \
cancel manage it afterwards, asking the person in the key app when needed. Whenever a tool returns a consent text, \
show it to the person exactly as written; when it says the person has not answered yet, call the same tool again \
with the same arguments. Treat a declined request as final.";

#[tool_handler(router = self.tool_router)]
impl ServerHandler for KeyAppServer {
    fn get_info(&self) -> rmcp::model::ServerConfig {
        rmcp::model::ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("schcp-mcp", env!("CARGO_PKG_VERSION")))
            .with_instructions(INSTRUCTIONS)
    }

    /// The router's own call, with one change: arguments that do not fit a
    /// tool's schema come back as a sentence the model can act on, not as
    /// serde's "failed to deserialize parameters: missing field `hosts`".
    async fn call_tool(
        &self,
        request: rmcp::model::CallToolRequestParams,
        context: rmcp::service::RequestContext<RoleServer>,
    ) -> Result<rmcp::model::CallToolResponse, ErrorData> {
        let tool = request.name.to_string();
        let tcc = rmcp::handler::server::tool::ToolCallContext::new(self, request, context);
        let response = self.tool_router.call(tcc).await?;
        Ok(match response {
            rmcp::model::CallToolResponse::Complete(result) => match argument_error(&result) {
                Some(detail) => refused(argument_refusal(&tool, &detail)).into(),
                None => result.into(),
            },
            other => other,
        })
    }
}

/// rmcp's text for arguments that do not deserialize, if this is one.
fn argument_error(result: &CallToolResult) -> Option<String> {
    if result.is_error != Some(true) {
        return None;
    }
    let text = result.content.first()?.as_text()?.text.clone();
    text.strip_prefix("failed to deserialize parameters:").map(|d| d.trim().to_owned())
}

/// One sentence for arguments that do not fit: which one, and what to do.
fn argument_refusal(tool: &str, detail: &str) -> Refusal {
    let name = detail.split('`').nth(1).unwrap_or_default();
    let sentence = if detail.starts_with("missing field") {
        format!("{tool} needs the argument \"{name}\"; add it as the tool's input schema describes and call again.")
    } else if detail.starts_with("unknown field") {
        format!("{tool} takes no argument \"{name}\"; leave it out and call again.")
    } else if detail.starts_with("unknown variant") {
        format!(
            "\"{name}\" is not one of the values {tool} accepts there; use one the input schema lists and call again."
        )
    } else {
        format!("One of the arguments of {tool} has the wrong form; check the tool's input schema and call again.")
    };
    Refusal::own(sentence, schcp::refusal::Reason::MalformedJson)
}
