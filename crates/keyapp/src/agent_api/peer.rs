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

use std::net::{IpAddr, SocketAddr};

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
pub fn socket_owner(peer: SocketAddr, local: SocketAddr) -> Option<u32> {
    let (peer, local) = (canonical(peer), canonical(local));
    let table = match peer.ip() {
        IpAddr::V4(_) => "/proc/net/tcp",
        IpAddr::V6(_) => "/proc/net/tcp6",
    };
    let text = std::fs::read_to_string(table).ok()?;
    find_owner(&text, &proc_address(peer)?, &proc_address(local)?)
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

/// The `uid` column of the line whose local and remote addresses are `local`
/// and `remote` (columns 2 and 3; `uid` is column 8).
fn find_owner(table: &str, local: &str, remote: &str) -> Option<u32> {
    table.lines().skip(1).find_map(|line| {
        let mut cols = line.split_ascii_whitespace();
        let (_, l, r) = (cols.next()?, cols.next()?, cols.next()?);
        if !l.eq_ignore_ascii_case(local) || !r.eq_ignore_ascii_case(remote) {
            return None;
        }
        cols.nth(4)?.parse().ok()
    })
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
        assert_eq!(find_owner(table, "0100007F:A000", "0100007F:1CF3"), Some(1001));
        assert_eq!(find_owner(table, "0100007F:A001", "0100007F:1CF3"), None);
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
    }
}
