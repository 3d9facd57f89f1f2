//! Memory of the agent API's replay memory at its bound (`agent_api::nonce::NonceCache`,
//! §3.2 nonces remembered until created + 301 s), beside the bare data
//! structure it wraps, filled with the same entries in the same run. Heap bytes
//! are counted by a global allocator wrapper, so the figures are exact and do
//! not depend on what else the machine runs.
//!
//! `cargo bench -p schcp-keyapp --bench memory`

use keyapp::agent_api::nonce::NonceCache;
use schcp::httpsig::NonceMemory;
use std::alloc::{GlobalAlloc, Layout, System};
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size(), Ordering::Relaxed);
        System.alloc(layout)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        System.dealloc(ptr, layout)
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LIVE.fetch_add(new_size, Ordering::Relaxed);
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        System.realloc(ptr, layout, new_size)
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Heap bytes `build`'s result holds.
fn held<T>(build: impl FnOnce() -> T) -> (T, usize) {
    let before = LIVE.load(Ordering::Relaxed);
    let value = build();
    (value, LIVE.load(Ordering::Relaxed).saturating_sub(before))
}

fn nonce(i: usize) -> String {
    schcp::b64::encode((i as u128).to_be_bytes())
}

fn main() {
    const NOW: i64 = 1_792_000_000;
    let keyid = "urn:ietf:params:oauth:jwk-thumbprint:sha-256:NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs";
    println!("| entries | NonceCache | bare HashMap<[u8; 32], i64> | ratio | per entry |");
    println!("|---:|---:|---:|---:|---:|");
    for n in [1usize << 10, 1 << 16, NonceCache::DEFAULT_CAPACITY - 1] {
        let (cache, cache_bytes) = held(|| {
            let cache = NonceCache::new();
            for i in 0..n {
                cache.remember(keyid, &nonce(i), NOW + 301, NOW).expect("below the bound");
            }
            cache
        });
        assert_eq!(cache.len(), n);
        let (map, map_bytes) = held(|| {
            let mut map: HashMap<[u8; 32], i64> = HashMap::new();
            for i in 0..n {
                let mut k = [0u8; 32];
                k[..16].copy_from_slice(&(i as u128).to_be_bytes());
                map.insert(k, NOW + 301);
            }
            map
        });
        assert_eq!(map.len(), n);
        println!(
            "| {n} | {:.1} MiB | {:.1} MiB | {:.2}× | {} B |",
            cache_bytes as f64 / (1 << 20) as f64,
            map_bytes as f64 / (1 << 20) as f64,
            cache_bytes as f64 / map_bytes as f64,
            cache_bytes / n
        );
        drop((cache, map));
    }
}
