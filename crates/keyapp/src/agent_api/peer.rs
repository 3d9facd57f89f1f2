//! Which local user an agent API connection comes from: the owner of the
//! agent's own socket, found in `/proc/net/tcp` (or `tcp6`) by its ports. The
//! service's accepted socket has the agent's address as its peer, and the
//! agent's socket has it as its local address with the service's as remote,
//! so the one line whose local and remote addresses are those two is the
//! agent's, and its `uid` column the user that made it.
//!
//! Per-user bounds (pairing prompts, connections, unpaired requests) count
//! against this, so one user's flood, or one of a user's processes, cannot
//! use up another user's share. It is the kernel's word: a process cannot
//! choose the uid its socket is listed under.

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Mutex, OnceLock};
use std::time::Instant;

/// What the agent API knows of a connection's peer: the local user owning the
/// agent's socket, when the kernel's table says (`None`: not found, e.g. the
/// agent already closed it, or a platform without `/proc/net`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct LocalPeer {
    pub uid: Option<u32>,
}

impl LocalPeer {
    /// The peer of the connection from `peer` to the listener at `local`.
    pub fn of(peer: SocketAddr, local: SocketAddr) -> LocalPeer {
        LocalPeer { uid: socket_owner(peer, local) }
    }
}

/// The uid owning the socket bound at `peer` and connected to `local`.
///
/// Reading the kernel's table costs milliseconds once it lists thousands of
/// sockets, so a burst of connections shares one read: the table is kept as
/// last read, a connection found in it is answered from it (a socket's four
/// addresses name it alone while it is open), and it is read again only for a
/// connection it may not list yet, one that came after the read.
pub fn socket_owner(peer: SocketAddr, local: SocketAddr) -> Option<u32> {
    static TABLES: OnceLock<Mutex<[Snapshot; 2]>> = OnceLock::new();
    let asked = Instant::now();
    let (peer, local) = (canonical(peer), canonical(local));
    let (path, which) = match peer.ip() {
        IpAddr::V4(_) => ("/proc/net/tcp", 0),
        IpAddr::V6(_) => ("/proc/net/tcp6", 1),
    };
    let key = (proc_address(peer)?, proc_address(local)?);
    let tables = TABLES.get_or_init(|| Mutex::new([Snapshot::default(), Snapshot::default()]));
    let mut tables = tables.lock().unwrap_or_else(|e| e.into_inner());
    let table = &mut tables[which];
    // A read older than a second is not trusted even for a hit: by then the
    // four addresses may name a newer socket of another user.
    let recent = table.taken.is_some_and(|taken| asked.saturating_duration_since(taken) < MAX_SNAPSHOT_AGE);
    if let Some(uid) = table.owners.get(&key).filter(|_| recent) {
        return Some(*uid);
    }
    if table.taken.is_some_and(|taken| taken >= asked) {
        return None; // read after this connection came, and it is not there
    }
    // Stamped when the read starts, not when it ends: a read that began before
    // this connection existed must not pass for one that would list it.
    let started = Instant::now();
    let text = std::fs::read_to_string(path).ok()?;
    *table = Snapshot { taken: Some(started), owners: owners(&text) };
    table.owners.get(&key).copied()
}

const MAX_SNAPSHOT_AGE: std::time::Duration = std::time::Duration::from_secs(1);

/// The kernel's table as last read: (local, remote) address → uid.
#[derive(Default)]
struct Snapshot {
    taken: Option<Instant>,
    owners: HashMap<(String, String), u32>,
}

/// Every line's (local, remote) addresses and `uid` (columns 2, 3 and 8).
fn owners(table: &str) -> HashMap<(String, String), u32> {
    table
        .lines()
        .skip(1)
        .filter_map(|line| {
            let mut cols = line.split_ascii_whitespace();
            let (_, l, r) = (cols.next()?, cols.next()?, cols.next()?);
            let uid = cols.nth(4)?.parse().ok()?;
            Some(((l.to_ascii_uppercase(), r.to_ascii_uppercase()), uid))
        })
        .collect()
}

/// An IPv4-mapped IPv6 peer (a dual-stack listener) has its socket in the IPv4 table.
fn canonical(addr: SocketAddr) -> SocketAddr {
    SocketAddr::new(addr.ip().to_canonical(), addr.port())
}

/// An address as the kernel prints it in `/proc/net/tcp*`: each 32-bit word of
/// the address in host byte order as 8 hex digits, then `:` and the port as 4.
fn proc_address(addr: SocketAddr) -> Option<String> {
    let octets: Vec<u8> = match addr.ip() {
        IpAddr::V4(a) => a.octets().to_vec(),
        IpAddr::V6(a) => a.octets().to_vec(),
    };
    let mut out = String::with_capacity(octets.len() * 2 + 5);
    for word in octets.chunks_exact(4) {
        let w = u32::from_ne_bytes(word.try_into().ok()?);
        out.push_str(&format!("{w:08X}"));
    }
    out.push_str(&format!(":{:04X}", addr.port()));
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_are_spelled_as_the_kernel_prints_them() {
        let a: SocketAddr = "127.0.0.1:7411".parse().unwrap();
        let expected = if cfg!(target_endian = "little") { "0100007F:1CF3" } else { "7F000001:1CF3" };
        assert_eq!(proc_address(a).unwrap(), expected);
        let six: SocketAddr = "[::1]:80".parse().unwrap();
        let one = if cfg!(target_endian = "little") { "01000000" } else { "00000001" };
        assert_eq!(proc_address(six).unwrap(), format!("000000000000000000000000{one}:0050"));
    }

    #[test]
    fn the_owner_is_read_from_the_agents_own_line() {
        let table = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:1CF3 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 100 1 0 100 0 0 10 0
   1: 0100007F:1CF3 0100007F:A000 01 00000000:00000000 00:00000000 00000000     0        0 101 1 0 20 4 30 10 -1
   2: 0100007F:A000 0100007F:1CF3 01 00000000:00000000 00:00000000 00000000  1001        0 102 1 0 20 4 30 10 -1
";
        let owners = owners(table);
        let at = |l: &str, r: &str| owners.get(&(l.to_owned(), r.to_owned())).copied();
        assert_eq!(at("0100007F:A000", "0100007F:1CF3"), Some(1001));
        assert_eq!(at("0100007F:1CF3", "0100007F:A000"), Some(0), "the service's own side");
        assert_eq!(at("0100007F:A001", "0100007F:1CF3"), None);
    }

    /// On this machine: a socket this process opens is listed under its uid.
    #[test]
    fn a_real_connection_is_found_under_this_processs_uid() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let client = std::net::TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let (_server_side, peer) = listener.accept().unwrap();
        let me = rustix::process::getuid().as_raw();
        assert_eq!(socket_owner(peer, listener.local_addr().unwrap()), Some(me));
        assert_eq!(peer, client.local_addr().unwrap());
        // A connection made after the table was read is found by a new read.
        let later = std::net::TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let (_later_side, later_peer) = listener.accept().unwrap();
        assert_eq!(socket_owner(later_peer, listener.local_addr().unwrap()), Some(me));
        assert_eq!(later_peer, later.local_addr().unwrap());
        // One that does not exist is nobody's.
        let nobody: SocketAddr = "127.0.0.1:1".parse().unwrap();
        assert_eq!(socket_owner(nobody, listener.local_addr().unwrap()), None);
    }
}
