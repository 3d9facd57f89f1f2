//! Another local user, for the tests that tell local peers apart by the owner
//! of their socket (tests run as root in CI, and root may act as anyone), and
//! the open-files limit raised for tests that hold thousands of connections.

use std::process::Command;

/// Whether this process may act as another user.
pub fn is_root() -> bool {
    rustix::process::geteuid().is_root()
}

/// The non-root user scripts/with-polkit makes (`$SCHCP_POLKIT_TEST_USER`):
/// its name and ids, for tests that run the service or the CLI as that user.
#[derive(Debug, Clone)]
pub struct TestUser {
    pub name: String,
    pub uid: u32,
    pub gid: u32,
}

impl TestUser {
    /// The user scripts/with-polkit named, if the test runs under it.
    pub fn from_env() -> Option<TestUser> {
        let name = std::env::var("SCHCP_POLKIT_TEST_USER").ok()?;
        let id = |flag: &str| {
            let out = Command::new("id").args([flag, &name]).output().expect("id runs");
            String::from_utf8(out.stdout).unwrap().trim().parse::<u32>().expect("a numeric id")
        };
        Some(TestUser { uid: id("-u"), gid: id("-g"), name })
    }

    /// The same, required: the test cannot run without it.
    pub fn required() -> TestUser {
        TestUser::from_env().expect(
            "run as root under scripts/with-polkit (scripts/test does), which names the non-root test user \
             (SCHCP_POLKIT_TEST_USER)",
        )
    }
}

/// The other local user: `$SCHCP_POLKIT_TEST_USER` (scripts/with-polkit makes
/// it), else `nobody`'s uid, which needs no account to own a socket. (uid, gid).
pub fn other_uid() -> (u32, u32) {
    TestUser::from_env().map_or((65534, 65534), |u| (u.uid, u.gid))
}

/// Runs `f` on a thread whose effective uid is `uid` (Linux uids are
/// per-thread at the system call level), so the sockets it makes are that
/// user's in the kernel's table, then returns what it made.
pub fn as_uid<T: Send + 'static>(uid: u32, f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::spawn(move || {
        rustix::thread::set_thread_res_uid(None, Some(rustix::process::Uid::from_raw(uid)), None)
            .expect("root may take another effective uid");
        f()
    })
    .join()
    .unwrap()
}

/// Raises the soft open-files limit to `want` (or the hard limit); the limit now.
pub fn raise_open_files(want: u64) -> u64 {
    use rustix::process::{getrlimit, setrlimit, Resource};
    let mut limit = getrlimit(Resource::Nofile);
    let hard = limit.maximum.unwrap_or(u64::MAX);
    let soft = limit.current.unwrap_or(u64::MAX);
    if soft < want {
        limit.current = Some(want.min(hard));
        setrlimit(Resource::Nofile, limit).expect("the soft limit can rise to the hard one");
    }
    getrlimit(Resource::Nofile).current.unwrap_or(u64::MAX)
}
