//! The key app's HTTP client for a hosted status service (`schcp-status`, issue
//! 12; docs/hosted-status.md): it posts signed updates to `{base}/status/{thumb}`
//! and reads a credential's status at its status URL, the way a host does.
//! It carries bytes only: what an update says, and its signature, are built by
//! the publisher (`service::publication`) from the records.

use std::time::Duration;

/// How long one update may take; a service that does not answer in time is
/// retried like one that is down.
const UPDATE_TIMEOUT: Duration = Duration::from_secs(10);
/// How long the person's listing waits for a `remaining`.
const STATUS_TIMEOUT: Duration = Duration::from_secs(3);
/// A status answer is a few hundred bytes; anything far larger is not one.
const MAX_STATUS_BODY: usize = 16 * 1024;
/// A revoke-all's answer lists the credentials it revoked: at most a
/// namespace's worth (10 000 by default, ids of up to 255 characters).
const MAX_REVOKE_ALL_BODY: usize = 4 * 1024 * 1024;

/// Why an update was not acknowledged. Every one of them is retried.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PublishError {
    /// No answer: refused, reset, timed out, TLS.
    #[error("the status service at {url} did not answer: {reason}")]
    Unreachable { url: String, reason: String },
    /// An answer that is not a success, with the §9 reason when it gave one.
    #[error("the status service refused the update ({status}{}): {message}", reason.as_deref().map(|r| format!(", {r}")).unwrap_or_default())]
    Refused { status: u16, reason: Option<String>, message: String },
}

/// The hosted service's answer to `GET {status}`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
pub struct HostedStatus {
    pub status: String,
    #[serde(default)]
    pub remaining: Option<u32>,
}

/// The client, built once per key app.
#[derive(Debug, Clone)]
pub struct HostedClient {
    http: reqwest::Client,
}

impl HostedClient {
    pub fn new() -> Result<HostedClient, reqwest::Error> {
        let http = reqwest::Client::builder()
            // The configured base is the one place updates go; a redirect could
            // send a signed update, or a host's view, somewhere else.
            .redirect(reqwest::redirect::Policy::none())
            .connect_timeout(Duration::from_secs(5))
            .user_agent(concat!("schcp-keyapp/", env!("CARGO_PKG_VERSION")))
            .build()?;
        Ok(HostedClient { http })
    }

    /// `POST {base}/status/{thumb}` with one compact JWS. `Ok` only on 200 or
    /// 201: the service recorded the update, or had already (a retry).
    pub async fn post_update(&self, base: &str, thumb: &str, jws: &str) -> Result<u16, PublishError> {
        let response = self.post_jws(base, thumb, jws).await?;
        match response.status().as_u16() {
            status @ (200 | 201) => Ok(status),
            _ => Err(refusal(response).await),
        }
    }

    /// `POST {base}/status/{thumb}` with one signed revoke-all update
    /// (docs/hosted-status.md "Revoking everything"): the credentials the
    /// service revoked now, as it listed them. A 409 `update_replayed` is not
    /// "done" here: each attempt is signed afresh, so it never happens unless
    /// something else sent these bytes.
    pub async fn post_revoke_all(&self, base: &str, thumb: &str, jws: &str) -> Result<Vec<String>, PublishError> {
        let response = self.post_jws(base, thumb, jws).await?;
        let status = response.status().as_u16();
        if status != 200 {
            return Err(refusal(response).await);
        }
        let body: Option<serde_json::Value> =
            bounded_body(response, MAX_REVOKE_ALL_BODY).await.and_then(|b| serde_json::from_slice(&b).ok());
        let listed = body
            .as_ref()
            .and_then(|b| b.get("revoked"))
            .and_then(|r| r.as_array())
            .and_then(|a| a.iter().map(|j| j.as_str().map(str::to_owned)).collect::<Option<Vec<String>>>());
        listed.ok_or(PublishError::Refused {
            status,
            reason: None,
            message: "the answer does not list the credentials it revoked".to_owned(),
        })
    }

    /// `POST {base}/status/{thumb}` with one compact JWS (`application/jose`):
    /// the answer, whatever its status, or why there was none.
    async fn post_jws(&self, base: &str, thumb: &str, jws: &str) -> Result<reqwest::Response, PublishError> {
        let url = format!("{}/status/{thumb}", base.trim_end_matches('/'));
        self.http
            .post(&url)
            .header(reqwest::header::CONTENT_TYPE, "application/jose")
            .timeout(UPDATE_TIMEOUT)
            .body(jws.to_owned())
            .send()
            .await
            .map_err(|e| PublishError::Unreachable { reason: crate::outbound::error_chain(&e), url })
    }

    /// A client that reaches public addresses only, checked at connect time
    /// (§5.8's outbound policy, `outbound`): what setup uses to check a
    /// status service the person typed, as a host would reach it. A loopback
    /// literal is reached only when `status_reach` already allowed it
    /// (`hosts_on_this_machine`); `pinned` is the config's `[discovery] resolve`.
    pub fn public_only(pinned: crate::outbound::Pinned) -> Result<HostedClient, reqwest::Error> {
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .connect_timeout(Duration::from_secs(5))
            .dns_resolver(std::sync::Arc::new(crate::outbound::PublicOnlyResolver::new(pinned)))
            .user_agent(concat!("schcp-keyapp/", env!("CARGO_PKG_VERSION")))
            .build()?;
        Ok(HostedClient { http })
    }

    /// `GET {url}` as a host reads it, for setup's check: the answer's HTTP
    /// status and §9 reason, or why there was no answer.
    pub async fn read_answer(&self, url: &str) -> Result<(u16, Option<String>), PublishError> {
        let response =
            self.http.get(url).timeout(UPDATE_TIMEOUT).send().await.map_err(|e| PublishError::Unreachable {
                url: url.to_owned(),
                reason: crate::outbound::error_chain(&e),
            })?;
        let status = response.status().as_u16();
        let body = bounded_body(response, MAX_STATUS_BODY).await;
        let reason = body
            .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
            .and_then(|v| v.pointer("/error/reason").and_then(|r| r.as_str()).map(str::to_owned));
        Ok((status, reason))
    }

    /// `GET {status_url}`, as a host reads it: `None` when the service does not
    /// answer, or answers anything but a well-formed 200.
    pub async fn status(&self, status_url: &str) -> Option<HostedStatus> {
        let response = self.http.get(status_url).timeout(STATUS_TIMEOUT).send().await.ok()?;
        if response.status() != reqwest::StatusCode::OK {
            return None;
        }
        let body = bounded_body(response, MAX_STATUS_BODY).await?;
        serde_json::from_slice(&body).ok()
    }
}

/// An answer that is not a success, as a refusal: its §9 `error.reason` and
/// `error.message` when its (bounded) body has them.
async fn refusal(response: reqwest::Response) -> PublishError {
    let status = response.status().as_u16();
    let body: Option<serde_json::Value> =
        bounded_body(response, MAX_STATUS_BODY).await.and_then(|b| serde_json::from_slice(&b).ok());
    let error = body.as_ref().and_then(|b| b.get("error"));
    let text = |k: &str| error.and_then(|e| e.get(k)).and_then(|v| v.as_str()).map(str::to_owned);
    PublishError::Refused {
        status,
        reason: text("reason"),
        message: text("message").unwrap_or_else(|| "no §9 error body".to_owned()),
    }
}

/// A response's body up to `max` bytes, `None` past that or on a read error.
/// Read chunk by chunk: whatever `hosted` points at (a misconfigured base, a
/// compromised service) cannot make the key app hold an unbounded body.
async fn bounded_body(mut response: reqwest::Response, max: usize) -> Option<Vec<u8>> {
    if response.content_length().is_some_and(|n| n > max as u64) {
        return None;
    }
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.ok()? {
        if body.len() + chunk.len() > max {
            return None;
        }
        body.extend_from_slice(&chunk);
    }
    Some(body)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    /// A service that answers every request with a 200 whose chunked body never
    /// ends, counting what it managed to send.
    async fn endless() -> (String, Arc<AtomicUsize>) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let sent = Arc::new(AtomicUsize::new(0));
        let counter = sent.clone();
        tokio::spawn(async move {
            while let Ok((mut socket, _)) = listener.accept().await {
                let counter = counter.clone();
                tokio::spawn(async move {
                    let mut request = [0u8; 4096];
                    let _ = socket.read(&mut request).await;
                    let head =
                        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n";
                    if socket.write_all(head.as_bytes()).await.is_err() {
                        return;
                    }
                    let chunk = format!("10000\r\n{}\r\n", " ".repeat(0x10000));
                    while socket.write_all(chunk.as_bytes()).await.is_ok() {
                        counter.fetch_add(0x10000, Ordering::Relaxed);
                    }
                });
            }
        });
        (base, sent)
    }

    #[tokio::test]
    async fn an_endless_body_is_cut_off_not_read_into_memory() {
        let (base, sent) = endless().await;
        let client = HostedClient::new().unwrap();
        assert!(client.status(&format!("{base}/status/t/m-1")).await.is_none());
        // What was sent is what the socket buffers took before the key app let
        // go, not the seconds of a loopback stream a whole-body read would take.
        tokio::time::sleep(Duration::from_millis(200)).await;
        let after_status = sent.load(Ordering::Relaxed);
        assert!(after_status < 16 << 20, "{after_status} bytes sent for a 16 KiB limit");
    }

    #[tokio::test]
    async fn a_refusal_with_an_endless_body_is_still_a_refusal() {
        // A 200 is success without reading the body; only refusals are read.
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move {
            while let Ok((mut socket, _)) = listener.accept().await {
                tokio::spawn(async move {
                    let mut request = [0u8; 4096];
                    let _ = socket.read(&mut request).await;
                    let head = "HTTP/1.1 409 Conflict\r\ntransfer-encoding: chunked\r\n\r\n";
                    let _ = socket.write_all(head.as_bytes()).await;
                    let chunk = format!("10000\r\n{}\r\n", " ".repeat(0x10000));
                    while socket.write_all(chunk.as_bytes()).await.is_ok() {}
                });
            }
        });
        let client = HostedClient::new().unwrap();
        match client.post_update(&base, "t", "a.b.c").await {
            Err(PublishError::Refused { status, reason, .. }) => assert_eq!((status, reason), (409, None)),
            other => panic!("{other:?}"),
        }
    }
}
