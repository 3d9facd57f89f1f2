//! The bounded accept loop both loopback and network listeners share: each
//! connection is HTTP/1.1 with a header-read timeout (which also closes a
//! connection that sits idle, sending nothing), a bounded request head (16 KiB,
//! 64 headers), a cap on open connections per peer and one on all of them,
//! which `axum::serve` cannot set, hence this loop.
//!
//! Who "a peer" is belongs to the listener: the status edge counts per client
//! address ([`crate::edge::serve_router`]), the key app's agent API per local
//! user, found from the connection's ports. The caller's `classify` says it
//! for each connection, and what the routes learn of the peer (an extension on
//! every request of the connection, beside `ConnectInfo<SocketAddr>`).

use axum::Router;
use std::collections::HashMap;
use std::hash::Hash;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::net::TcpListener;
use tower_service::Service;

/// How many connections a listener holds open, and for how long a silent one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConnectionLimits {
    /// Time to receive a request head; also the longest a connection may sit
    /// idle between requests (or before its first).
    pub header_timeout: Duration,
    /// Open connections one peer may hold at once.
    pub max_connections_per_peer: usize,
    /// Open connections of all peers together (`None`: no such cap).
    pub max_connections: Option<usize>,
}

/// One accepted connection as the listener sees it: whose cap it counts
/// against (`None`: none, e.g. a trusted proxy) and what its requests carry.
#[derive(Debug, Clone)]
pub struct Admitted<K, I> {
    /// The peer the per-peer cap counts, or none.
    pub peer: Option<K>,
    /// Put on every request of the connection as an extension.
    pub info: I,
}

/// Serves `router` on `listener` until the future is dropped. Accept errors are
/// retried, never fatal: a full file table frees up again. `classify` runs in
/// the connection's own task (it may read a small file, as the agent API's does),
/// given the peer's address and the listener's own.
pub async fn serve_connections<K, I, F>(
    listener: TcpListener,
    router: Router,
    limits: ConnectionLimits,
    classify: F,
) -> std::io::Result<()>
where
    K: Hash + Eq + Clone + Send + Sync + 'static,
    I: Clone + Send + Sync + 'static,
    F: Fn(SocketAddr, SocketAddr) -> Admitted<K, I> + Send + Sync + 'static,
{
    let classify = Arc::new(classify);
    let open = Arc::new(Mutex::new(HashMap::<K, usize>::new()));
    let total = Arc::new(AtomicUsize::new(0));
    let mut make_service = router.into_make_service_with_connect_info::<SocketAddr>();
    loop {
        let (stream, peer) = match listener.accept().await {
            Ok(accepted) => accepted,
            Err(e) if is_connection_error(&e) => continue,
            Err(_) => {
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let Some(counted) = Counted::enter(&total, limits.max_connections) else {
            continue; // dropping the stream closes it
        };
        let local = stream.local_addr().unwrap_or(peer);
        let _ = stream.set_nodelay(true);
        let service = match make_service.call(peer).await {
            Ok(s) => s,
            Err(never) => match never {},
        };
        let mut builder = hyper::server::conn::http1::Builder::new();
        builder
            .timer(hyper_util::rt::TokioTimer::new())
            .header_read_timeout(limits.header_timeout)
            .max_buf_size(16 * 1024)
            .max_headers(64)
            .keep_alive(true);
        let (classify, open, per_peer) = (classify.clone(), open.clone(), limits.max_connections_per_peer);
        tokio::spawn(async move {
            let _counted = counted;
            let admitted = classify(peer, local);
            let _guard = match admitted.peer {
                Some(key) => match ConnectionGuard::enter(&open, key, per_peer) {
                    Some(guard) => Some(guard),
                    None => return,
                },
                None => None,
            };
            let service = tower_layer::Layer::layer(&axum::Extension(admitted.info), service);
            let io = hyper_util::rt::TokioIo::new(stream);
            let _ = builder.serve_connection(io, hyper_util::service::TowerToHyperService::new(service)).await;
        });
    }
}

fn is_connection_error(e: &std::io::Error) -> bool {
    use std::io::ErrorKind::*;
    matches!(e.kind(), ConnectionRefused | ConnectionAborted | ConnectionReset)
}

/// One open connection among all of a listener's; dropping it frees its place.
struct Counted(Arc<AtomicUsize>);

impl Counted {
    fn enter(total: &Arc<AtomicUsize>, max: Option<usize>) -> Option<Counted> {
        let before = total.fetch_add(1, Ordering::SeqCst);
        let counted = Counted(total.clone());
        match max {
            Some(max) if before >= max => None, // `counted` drops, giving the place back
            _ => Some(counted),
        }
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// One open connection of a peer; leaving (drop) frees its place.
struct ConnectionGuard<K: Hash + Eq + Clone> {
    open: Arc<Mutex<HashMap<K, usize>>>,
    key: K,
}

impl<K: Hash + Eq + Clone> ConnectionGuard<K> {
    fn enter(open: &Arc<Mutex<HashMap<K, usize>>>, key: K, max: usize) -> Option<ConnectionGuard<K>> {
        let mut map = open.lock().unwrap_or_else(|e| e.into_inner());
        let n = map.entry(key.clone()).or_insert(0);
        if *n >= max {
            return None;
        }
        *n += 1;
        Some(ConnectionGuard { open: open.clone(), key })
    }
}

impl<K: Hash + Eq + Clone> Drop for ConnectionGuard<K> {
    fn drop(&mut self) {
        let mut map = self.open.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(n) = map.get_mut(&self.key) {
            *n -= 1;
            if *n == 0 {
                map.remove(&self.key);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_caps_count_open_connections_and_free_them_on_drop() {
        let total = Arc::new(AtomicUsize::new(0));
        let a = Counted::enter(&total, Some(2)).unwrap();
        let _b = Counted::enter(&total, Some(2)).unwrap();
        assert!(Counted::enter(&total, Some(2)).is_none());
        assert_eq!(total.load(Ordering::SeqCst), 2, "a refused one holds no place");
        drop(a);
        assert!(Counted::enter(&total, Some(2)).is_some());
        assert!(Counted::enter(&total, None).is_some());

        let open = Arc::new(Mutex::new(HashMap::new()));
        let one = ConnectionGuard::enter(&open, 1000u32, 1).unwrap();
        assert!(ConnectionGuard::enter(&open, 1000u32, 1).is_none());
        let _other = ConnectionGuard::enter(&open, 0u32, 1).expect("another peer has its own places");
        drop(one);
        assert!(ConnectionGuard::enter(&open, 1000u32, 1).is_some());
    }
}
