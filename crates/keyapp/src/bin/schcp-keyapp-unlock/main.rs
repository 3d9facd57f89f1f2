//! `schcp-keyapp-unlock PROFILE`: releases the key-encryption key (KEK) that
//! seals one profile's principal key in the OS keychain, to the user who asked.
//!
//! Installed root-owned at `/usr/libexec/schcp-keyapp/schcp-keyapp-unlock` and
//! run only through `pkexec`, which asks polkit for `org.schcp.keyapp.unlock`
//! (packaging/polkit/org.schcp.keyapp.policy: the person's password or
//! fingerprint, every time) and runs it as root with `PKEXEC_UID` set to the
//! caller. Each (uid, profile) has one random 32-byte KEK in
//! `/var/lib/schcp-keyapp/kek/<uid>/<profile>`, root-only (directories 0700,
//! file 0600), so no process of the person reads it without that yes. It is
//! created on first use.
//!
//! Standard output: one byte, 1 when the KEK was created by this call and 0
//! when it existed (the key app accepts a bare legacy seed only for a profile
//! whose KEK is new, so a seed planted later is never adopted), then the 32
//! bytes. Nothing else; every failure is one sentence on stderr and exit 1.
#![forbid(unsafe_code)]

mod kek_store;

use std::io::Write;
use std::path::Path;

/// Where the KEKs live; root's, like the helper.
const KEK_ROOT: &str = "/var/lib/schcp-keyapp/kek";

fn main() -> std::process::ExitCode {
    match run() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("schcp-keyapp-unlock: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), kek_store::UnlockError> {
    let mut args = std::env::args_os().skip(1);
    let (Some(profile), None) = (args.next(), args.next()) else {
        return Err(kek_store::UnlockError::Usage);
    };
    let profile = kek_store::profile_name(&profile)?;
    if !rustix::process::geteuid().is_root() {
        return Err(kek_store::UnlockError::NotRoot);
    }
    let uid = kek_store::caller_uid(std::env::var_os("PKEXEC_UID").as_deref())?;
    let kek = kek_store::load_or_create(Path::new(KEK_ROOT), uid, &profile)?;
    let mut out = std::io::stdout().lock();
    out.write_all(&[u8::from(kek.created)])
        .and_then(|()| out.write_all(&kek.key[..]))
        .and_then(|()| out.flush())
        .map_err(|error| kek_store::UnlockError::Io {
            action: "write the key to",
            path: "standard output".into(),
            error,
        })
}
