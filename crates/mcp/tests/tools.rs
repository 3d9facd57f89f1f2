//! The MCP server in-process: an rmcp client over a duplex pipe
//! lists the tools and their schemas and calls each one against the key app
//! started for real on loopback (OS keychain: run under scripts/with-keyring)
//! and the HTTPS test host; the person answers over the real control socket.

use agent::{AgentProfile, KeyBackend};
use ed25519_dalek::SigningKey;
use keyapp::control::Command;
use mcp::{KeyAppServer, KeyAppSource, ServerConfig};
use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientRequest, ProgressNotificationParam, Request as McpRequest,
};
use rmcp::service::{NotificationContext, PeerRequestOptions, RunningService};
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use schcp::verify::{verify_mandate_chain, ChainContext};
use serde_json::{json, Map, Value};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use testkit::env::*;
use testkit::invitation::served_invitation;
use testkit::now;
use testkit::stranger::Stranger;

/// A client that counts the progress notifications it is sent.
#[derive(Clone, Default)]
struct Client {
    progress: Arc<AtomicUsize>,
}

impl ClientHandler for Client {
    async fn on_progress(&self, _params: ProgressNotificationParam, _cx: NotificationContext<RoleClient>) {
        self.progress.fetch_add(1, Ordering::SeqCst);
    }
}

struct Mcp {
    client: RunningService<RoleClient, Client>,
    progress: Arc<AtomicUsize>,
    key: SigningKey,
}

async fn connect(keyapp: KeyAppSource, profile_dir: &Path) -> Mcp {
    let profile = AgentProfile::at(profile_dir);
    let (key, _) = profile.key(KeyBackend::Auto).await.unwrap();
    let server = KeyAppServer::new(ServerConfig {
        keyapp,
        key: key.clone(),
        profile,
        agent_name: "Test Assistant".into(),
        trust: Default::default(),
    });
    let (server_io, client_io) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        let running = server.serve(server_io).await.expect("the server handshakes");
        let _ = running.waiting().await;
    });
    let handler = Client::default();
    let progress = handler.progress.clone();
    let client = handler.serve(client_io).await.expect("the client handshakes");
    Mcp { client, progress, key }
}

impl Mcp {
    async fn try_call(&self, tool: &str, args: Value) -> Result<CallToolResult, rmcp::ServiceError> {
        let Value::Object(map) = args else { panic!("arguments are an object") };
        self.client.call_tool(CallToolRequestParams::new(tool.to_owned()).with_arguments(map)).await
    }

    async fn call(&self, tool: &str, args: Value) -> CallToolResult {
        self.try_call(tool, args).await.unwrap_or_else(|e| panic!("{tool}: {e}"))
    }

    /// A successful call's structured content.
    async fn ok(&self, tool: &str, args: Value) -> Value {
        let r = self.call(tool, args).await;
        assert_eq!(r.is_error, Some(false), "{tool}: {r:?}");
        r.structured_content.clone().expect("structured content")
    }

    /// A tool error: its one sentence and its structured content.
    async fn refused(&self, tool: &str, args: Value) -> (String, Value) {
        let r = self.call(tool, args).await;
        assert_eq!(r.is_error, Some(true), "{tool}: {r:?}");
        (text(&r), r.structured_content.clone().unwrap_or(Value::Null))
    }
}

fn text(r: &CallToolResult) -> String {
    r.content.first().and_then(|c| c.as_text()).map(|t| t.text.clone()).unwrap_or_default()
}

#[tokio::test]
async fn the_tools_their_schemas_and_annotations() {
    let dir = tempfile::tempdir().unwrap();
    let m = connect(KeyAppSource::AgentApiFile(dir.path().join("none.json")), &dir.path().join("p")).await;
    let tools = m.client.list_all_tools().await.unwrap();
    let mut names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    names.sort();
    assert_eq!(
        names,
        [
            "answer_invitation",
            "availability",
            "book",
            "booking",
            "cancel",
            "find_host",
            "hold",
            "keyapp_status",
            "list_mandates",
            "pair",
            "request_acceptance",
            "request_closed_mandate",
            "request_invitation",
            "request_management_mandate",
            "request_mandate",
            "request_meeting_contract",
            "request_rule",
            "reschedule",
            "wait_for_answer",
            "withdraw_request"
        ]
    );
    for t in &tools {
        let a = t.annotations.as_ref().unwrap_or_else(|| panic!("{} has annotations", t.name));
        // Only a cancellation cannot be undone.
        assert_eq!(a.destructive_hint, Some(t.name == "cancel"), "{} is not destructive", t.name);
        let read_only = ["keyapp_status", "list_mandates", "wait_for_answer", "find_host", "availability", "booking"]
            .contains(&t.name.as_ref());
        assert_eq!(a.read_only_hint, Some(read_only), "{}", t.name);
        // One sentence, in the person's words, saying what it does for them.
        let d = t.description.as_deref().unwrap_or_default();
        assert!(d.len() > 50 && d.ends_with('.') && !d.trim_end_matches('.').contains(". "), "{}: {d:?}", t.name);
        assert!(!d.contains('§') && !d.contains("JWS") && !d.contains("mandate"), "{}: {d:?}", t.name);
        assert!(!t.name.contains("sign") && !t.name.contains("approve"), "no tool signs or approves: {}", t.name);
    }
    let schema = |name: &str| Value::Object((*tools.iter().find(|t| t.name == name).unwrap().input_schema).clone());
    let closed = schema("request_closed_mandate");
    assert_eq!(closed["type"], "object");
    assert_eq!(closed["additionalProperties"], false, "{closed}");
    let mut required: Vec<&str> = closed["required"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
    required.sort();
    assert_eq!(required, ["discovery", "offer"]);
    assert!(closed["properties"]["offer"]["description"].as_str().unwrap().contains("JWS"));
    let mandate = schema("request_mandate");
    assert!(mandate["properties"]["scope"].is_object() && mandate["properties"]["hosts"].is_object(), "{mandate}");
    assert!(!mandate.to_string().contains("offer_sha256\":{"), "no offer_sha256 constraint: {mandate}");
    let invitation = schema("request_invitation");
    assert_eq!(invitation["additionalProperties"], false, "{invitation}");
    let mut required: Vec<&str> =
        invitation["required"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
    required.sort();
    assert_eq!(required, ["booking", "discovery"]);
    assert_eq!(invitation["properties"]["booking"]["type"], "object", "the served response, whole: {invitation}");
    assert!(invitation["properties"]["booking"]["description"].as_str().unwrap().contains("exactly as it was served"));
    let described = tools.iter().find(|t| t.name == "request_invitation").unwrap().description.clone().unwrap();
    assert!(described.contains("unchanged") && described.contains("wait_for_answer"), "{described}");
    let wait = schema("wait_for_answer");
    assert_eq!(wait["required"], json!(["request_id"]));

    // The key app is not running: status says so, every other tool refuses in one sentence.
    let status = m.ok("keyapp_status", json!({})).await;
    assert_eq!(status["running"], false, "{status}");
    let (sentence, detail) = m.refused("pair", json!({})).await;
    assert!(sentence.starts_with("The key app is not running"), "{sentence}");
    assert_eq!(detail["error"]["reason"], "keyapp_not_running");
    let (sentence, _) = m.refused("list_mandates", json!({})).await;
    assert!(sentence.contains("not running"), "{sentence}");
    m.client.cancel().await.unwrap();

    // Named by URL, with nothing listening there: the same.
    let m = connect(KeyAppSource::Url("http://127.0.0.1:9".into()), &dir.path().join("p")).await;
    assert_eq!(m.ok("keyapp_status", json!({})).await["running"], false);
    let (sentence, _) = m.refused("wait_for_answer", json!({"request_id": "rq_1"})).await;
    assert!(sentence.starts_with("The key app is not running (nothing answers at http://127.0.0.1:9)"), "{sentence}");
    m.client.cancel().await.unwrap();
}

#[tokio::test]
async fn every_tool_against_a_running_key_app() {
    let env = start().await;
    let dir = tempfile::tempdir().unwrap();
    let m = connect(KeyAppSource::AgentApiFile(env.app.runtime_dir.join("agent-api.json")), dir.path()).await;
    let jkt = schcp::jwk::Jwk::ed25519(&m.key.verifying_key()).thumbprint().unwrap();

    // Not paired: status says so, and a request is refused with what to do.
    let status = m.ok("keyapp_status", json!({})).await;
    assert_eq!((status["running"].clone(), status["paired"].clone()), (json!(true), json!("not_paired")));
    let offer = future_offer(&env.host, 5).1;
    let ask = json!({"offer": offer, "discovery": env.host.discovery_url()});
    let (sentence, detail) = m.refused("request_closed_mandate", ask.clone()).await;
    assert!(sentence.contains("not paired") && sentence.contains("call pair"), "{sentence}");
    assert_eq!(detail["error"]["reason"], "agent_not_paired");

    // Pairing: the fingerprint the model relays is the one the person sees.
    let p = m.ok("pair", json!({"agent_name": "Claude Test"})).await;
    let pid = p["pairing_id"].as_str().unwrap().to_owned();
    let shown = person(&env, Command::Show { id: pid.clone() }).await.unwrap();
    let shown_text = shown["consent_text"].as_str().unwrap();
    assert!(shown_text.contains(p["fingerprint"].as_str().unwrap()) && shown_text.contains("Claude Test"));
    assert_eq!(m.ok("keyapp_status", json!({})).await["paired"], "pending");
    person(&env, Command::Approve { id: pid }).await.unwrap();
    let status = m.ok("keyapp_status", json!({})).await;
    assert_eq!(status["paired"], "paired");
    let principal = person(&env, Command::Principal).await.unwrap();
    assert_eq!(status["principal"], principal["principal"], "{status} {principal}");
    assert_eq!(status["principal_jwk"], principal["jwk"]);
    assert_eq!(status["agent_key_thumbprint"], jkt.as_str());

    // A closed mandate: the consent text is the key app's, verbatim.
    let r = m.ok("request_closed_mandate", ask.clone()).await;
    let req = &r["request"];
    let rid = req["request_id"].as_str().unwrap().to_owned();
    assert_eq!(req["status"], "pending");
    assert!(req["expires_at"].as_str().unwrap().ends_with('Z'));
    let shown = person(&env, Command::Show { id: rid.clone() }).await.unwrap();
    assert_eq!(req["consent_text"], shown["consent_text"]);
    assert!(r["instruction"].as_str().unwrap().contains("exactly as written"));
    // The same call again is the same request, never a second prompt.
    let again = m.ok("request_closed_mandate", ask.clone()).await;
    assert_eq!(again["request"]["request_id"], rid.as_str());
    assert_eq!(pending_ids(&env).await, vec![rid.clone()]);

    // Waiting while the person has not answered: pending, with progress.
    let before = m.progress.load(Ordering::SeqCst);
    let handle = m
        .client
        .send_cancellable_request(
            ClientRequest::CallToolRequest(McpRequest::new(
                CallToolRequestParams::new("wait_for_answer")
                    .with_arguments(obj(json!({"request_id": rid, "timeout_seconds": 2}))),
            )),
            PeerRequestOptions::no_options(),
        )
        .await
        .unwrap();
    let resp = handle.await_response().await.unwrap();
    let rmcp::model::ServerResult::CallToolResult(waited) = resp else { panic!("{resp:?}") };
    assert_eq!(waited.structured_content.as_ref().unwrap()["status"], "pending");
    // The notification was sent before the answer; its handler may run just after.
    for _ in 0..20 {
        if m.progress.load(Ordering::SeqCst) > before {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(m.progress.load(Ordering::SeqCst) > before, "progress was reported while waiting");

    // The person approves: the mandate is for this agent's key and this offer.
    person(&env, Command::Approve { id: rid.clone() }).await.unwrap();
    let done = m.ok("wait_for_answer", json!({"request_id": rid})).await;
    assert_eq!(done["status"], "approved");
    let mandate = done["credential"]["mandate"].as_str().unwrap();
    let chain = verify_mandate_chain(
        mandate,
        &ChainContext { host_id: "maple-street-auto", request_jkt: &jkt, now: now(), allow_wildcard: false },
    )
    .expect("the mandate passes a host's checks");
    assert_eq!(chain.root.claims.constraints.unwrap().offer_sha256.unwrap(), schcp::hash::jws_sha256(&offer));

    // list_mandates names it.
    let listed = m.ok("list_mandates", json!({})).await;
    assert_eq!(listed["mandates"][0]["jti"], done["credential"]["jti"]);
    assert_eq!(listed["mandates"][0]["status"], "active");

    // An invitation (§5.10): the booking as the host served it, whole; the
    // consent text relayed verbatim; the person's yes is a closed mandate for
    // that booking's current contract.
    let me = principal["principal"].as_str().unwrap();
    let (served, contract) = served_invitation(&env.host, me, 9).await;
    let booking_id = served["booking"]["booking_id"].clone();
    let r = m.call("request_invitation", json!({"booking": served, "discovery": env.host.discovery_url()})).await;
    assert_eq!(r.is_error, Some(false), "{r:?}");
    let inv = r.structured_content.clone().unwrap();
    let inv_id = inv["request"]["request_id"].as_str().unwrap().to_owned();
    assert_eq!((&inv["request"]["kind"], &inv["request"]["status"]), (&json!("invitation"), &json!("pending")));
    assert!(inv["request"]["expires_at"].as_str().unwrap().ends_with('Z'));
    assert!(inv["instruction"].as_str().unwrap().contains("exactly as written"));
    let shown = person(&env, Command::Show { id: inv_id.clone() }).await.unwrap();
    assert_eq!(inv["request"]["consent_text"], shown["consent_text"]);
    assert!(text(&r).ends_with(shown["consent_text"].as_str().unwrap()), "the text the model reads ends with it");
    person(&env, Command::Approve { id: inv_id.clone() }).await.unwrap();
    let done = m.ok("wait_for_answer", json!({"request_id": inv_id})).await;
    assert_eq!((&done["status"], &done["kind"]), (&json!("approved"), &json!("invitation")));
    assert_eq!(done["credential"]["booking_id"], booking_id);
    assert_eq!(done["credential"]["offer_sha256"], schcp::hash::jws_sha256(&contract).as_str());
    let chain = verify_mandate_chain(
        done["credential"]["mandate"].as_str().unwrap(),
        &ChainContext { host_id: "maple-street-auto", request_jkt: &jkt, now: now(), allow_wildcard: false },
    )
    .expect("the host takes it for respond");
    assert_eq!(chain.root.claims.constraints.unwrap().bookings, Some(vec![booking_id.as_str().unwrap().to_owned()]));
    // A booking edited after it was served: refused with the reason, nothing asked.
    let (mut edited, _) = served_invitation(&env.host, me, 10).await;
    edited["booking"]["status"] = json!("confirmed");
    let (sentence, detail) =
        m.refused("request_invitation", json!({"booking": edited, "discovery": env.host.discovery_url()})).await;
    assert_eq!(detail["error"]["reason"], "booking_mismatch", "{sentence}");
    assert!(pending_ids(&env).await.is_empty());

    // A rule for this agent's own key, then withdrawn; withdrawing twice is refused.
    let rule = m
        .ok(
            "request_rule",
            json!({"agent_jkt": jkt, "label": "Weekend playdates", "weekdays": ["sat"],
                                            "tz": "America/Toronto"}),
        )
        .await;
    let rule_id = rule["request"]["request_id"].as_str().unwrap().to_owned();
    assert!(rule["request"]["consent_text"].as_str().unwrap().contains("Weekend playdates"));
    let w = m.ok("withdraw_request", json!({"request_id": rule_id})).await;
    assert_eq!(w["status"], "withdrawn");
    let (sentence, detail) = m.refused("withdraw_request", json!({"request_id": rule_id})).await;
    assert_eq!(detail["error"]["reason"], "not_pending", "{sentence}");
    let (sentence, _) = m.refused("wait_for_answer", json!({"request_id": rule_id})).await;
    assert!(sentence.contains("withdrawn"), "{sentence}");
    let (sentence, _) = m.refused("wait_for_answer", json!({"request_id": "../v1/mandates"})).await;
    assert!(sentence.contains("not a request id"), "{sentence}");

    // Input the key app refuses: a tool error naming the reason, nothing pending.
    let (sentence, detail) = m
        .refused("request_management_mandate", json!({"receipt": "not-a-jws", "discovery": env.host.discovery_url()}))
        .await;
    // The reason is beside the sentence, never in it.
    let reason = detail["error"]["reason"].as_str().unwrap();
    assert!(!sentence.contains(reason) && sentence.contains("nothing was shown"), "{sentence} {detail}");
    let (sentence, detail) = m.refused("request_acceptance", json!({"contract": "e30.e30.AAAA"})).await;
    assert!(sentence.contains("nothing was shown to the person"), "{sentence} {detail}");
    let meeting = json!({"meeting": {"title": "Playdate", "tz": "America/Toronto", "start": "2030-12-05T17:00:00Z",
                                     "open_end": true, "place": {"name": "Café"}, "exp": now() + 3600},
                         "members": [{"name": "Noor", "host": "noor", "discovery": env.host.discovery_url(),
                                      "offer": offer}]});
    let (sentence, detail) = m.refused("request_meeting_contract", meeting).await;
    assert_eq!(detail["error"]["code"], "INVALID_REQUEST", "{sentence} {detail}");
    let mut tampered: Vec<String> = future_offer(&env.host, 6).1.split('.').map(str::to_owned).collect();
    tampered[2] = schcp::b64::encode([0u8; 64]);
    let (sentence, detail) = m
        .refused("request_closed_mandate", json!({"offer": tampered.join("."), "discovery": env.host.discovery_url()}))
        .await;
    assert_eq!(detail["error"]["reason"], "bad_signature");
    assert!(!sentence.contains("bad_signature") && !sentence.contains('§'), "{sentence}");
    assert!(sentence.contains("does not check out") && sentence.contains("nothing was shown"), "{sentence}");

    // §5.3: nothing the key app signs comes from the agent. A consent text, an
    // offer hash or a cnf handed to a tool is refused before the key app is asked.
    let offer2 = future_offer(&env.host, 7).1;
    for (tool, args) in [
        (
            "request_closed_mandate",
            json!({"offer": offer2, "discovery": env.host.discovery_url(), "consent_text": "Free oil change"}),
        ),
        (
            "request_closed_mandate",
            json!({"offer": offer2, "discovery": env.host.discovery_url(), "offer_sha256": "AAAA"}),
        ),
        (
            "request_closed_mandate",
            json!({"offer": offer2, "discovery": env.host.discovery_url(), "cnf": {"jkt": "x"}}),
        ),
        (
            "request_mandate",
            json!({"hosts": [{"id": "maple-street-auto", "discovery": env.host.discovery_url()}], "scope": ["book"],
                   "constraints": {"offer_sha256": "AAAA"}}),
        ),
        (
            "request_mandate",
            json!({"hosts": [{"id": "maple-street-auto", "discovery": env.host.discovery_url()}], "scope": ["book"],
                   "cnf": {"jkt": "someone-else"}}),
        ),
    ] {
        let refused = match m.try_call(tool, args.clone()).await {
            Err(_) => true,
            Ok(r) => r.is_error == Some(true),
        };
        assert!(refused, "{tool} took {args}");
    }
    assert!(pending_ids(&env).await.is_empty(), "nothing reached the person");

    // A root mandate; cancelling the wait leaves it pending and the server alive.
    let root = m
        .ok(
            "request_mandate",
            json!({"hosts": [{"id": "maple-street-auto", "discovery": env.host.discovery_url()}],
                   "scope": ["hold", "book"], "constraints": {"max_bookings": 1}}),
        )
        .await;
    let root_id = root["request"]["request_id"].as_str().unwrap().to_owned();
    let handle = m
        .client
        .send_cancellable_request(
            ClientRequest::CallToolRequest(McpRequest::new(
                CallToolRequestParams::new("wait_for_answer").with_arguments(obj(json!({"request_id": root_id}))),
            )),
            PeerRequestOptions::no_options(),
        )
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(700)).await;
    handle.cancel(Some("the person changed their mind".into())).await.unwrap();
    assert_eq!(m.ok("keyapp_status", json!({})).await["paired"], "paired", "the server is alive");
    assert_eq!(pending_ids(&env).await, vec![root_id.clone()], "cancelling withdrew nothing");

    // Declined comes back as a tool error saying so.
    person(&env, Command::Decline { id: root_id.clone() }).await.unwrap();
    let (sentence, detail) = m.refused("wait_for_answer", json!({"request_id": root_id})).await;
    assert!(sentence.contains("declined"), "{sentence}");
    assert_eq!(detail["status"], "declined");

    // Two declines in a row: the cooldown is a tool error with its retry time.
    let second = m.ok("request_closed_mandate", json!({"offer": offer2, "discovery": env.host.discovery_url()})).await;
    let second_id = second["request"]["request_id"].as_str().unwrap().to_owned();
    person(&env, Command::Decline { id: second_id }).await.unwrap();
    let offer3 = future_offer(&env.host, 8).1;
    let (sentence, detail) =
        m.refused("request_closed_mandate", json!({"offer": offer3, "discovery": env.host.discovery_url()})).await;
    assert_eq!(detail["error"]["reason"], "cooldown");
    let secs = detail["error"]["retry_after_seconds"].as_u64().unwrap();
    assert!(secs > 200 && secs <= 300, "{detail}");
    assert!(sentence.contains("do not ask again") && sentence.contains("minutes"), "{sentence}");
    assert!(!sentence.contains(&secs.to_string()) && !sentence.contains("cooldown"), "{sentence}");
    m.client.cancel().await.unwrap();
}

fn obj(v: Value) -> Map<String, Value> {
    let Value::Object(m) = v else { panic!("an object") };
    m
}

/// A stranger listening on the port agent-api.json recorded, after the key
/// app stopped, is named an impostor by keyapp_status (never "running and
/// paired"), and every other tool refuses to talk to it.
#[tokio::test]
async fn a_stranger_on_the_recorded_port_is_named_an_impostor() {
    let env = start().await;
    let dir = tempfile::tempdir().unwrap();
    let info = env.app.runtime_dir.join("agent-api.json");
    let m = connect(KeyAppSource::AgentApiFile(info.clone()), dir.path()).await;
    let p = m.ok("pair", json!({"agent_name": "Claude Test"})).await;
    person(&env, Command::Approve { id: p["pairing_id"].as_str().unwrap().to_owned() }).await.unwrap();
    let status = m.ok("keyapp_status", json!({})).await;
    assert_eq!(status["paired"], "paired", "{status}");
    assert!(dir.path().join(agent::PRINCIPAL_PIN_FILE).exists(), "pinned at pairing");
    let port = env.app.agent_addr.port();
    let url = format!("http://{}", env.app.agent_addr);

    // The key app stops; a crash would have left its agent-api.json, and a
    // stranger listens there, answering like a key app would, without a proof.
    let Env { _dir, host, app, .. } = env;
    app.withdraw();
    drop(app);
    assert!(!info.exists(), "agent-api.json is gone after a clean stop");
    // Dropping the app aborts its listeners' tasks; they close their sockets
    // once this runtime gets to run them.
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    std::fs::write(&info, json!({"url": url, "schcp": "0.4"}).to_string()).unwrap();
    let fake = json!({"principal": "urn:schcp:principal:jwk-thumbprint:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
                      "jwk": {"kty": "OKP", "crv": "Ed25519", "x": "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"},
                      "paired": true, "name": "Ellis"});
    let stranger = Stranger::listen(port, &fake.to_string());

    let (sentence, detail) = m.refused("keyapp_status", json!({})).await;
    assert!(
        sentence.starts_with(&format!("The program listening at 127.0.0.1:{port} is not your key app")),
        "{sentence}"
    );
    assert_eq!(detail["impostor"], true, "{detail}");
    assert_eq!(detail["running"], false, "{detail}");
    assert_ne!(detail["paired"], "paired", "{detail}");
    let (sentence, detail) = m.refused("list_mandates", json!({})).await;
    assert!(sentence.contains("is not your key app"), "{sentence}");
    assert_eq!(detail["error"]["reason"], "keyapp_impostor", "{detail}");
    let offer = future_offer(&host, 5).1;
    let (sentence, _) =
        m.refused("request_closed_mandate", json!({"offer": offer, "discovery": host.discovery_url()})).await;
    assert!(sentence.contains("is not your key app"), "{sentence}");
    // It was asked for the key app's proof, and for nothing else.
    let asked = stranger.requests();
    assert!(!asked.is_empty() && asked.iter().all(|l| l.starts_with("GET /v1/principal?nonce=")), "{asked:?}");
    m.client.cancel().await.unwrap();
}
