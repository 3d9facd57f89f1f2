//! `schcp-status --check`: one sentence on what is wrong with the
//! database URL, for each way it can be wrong, and `migrate` then `serve`.

mod common;

use std::process::Command;

fn check(url: Option<&str>) -> (bool, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_schcp-status"));
    cmd.arg("--check").env_remove("DATABASE_URL");
    if let Some(url) = url {
        cmd.env("DATABASE_URL", url);
    }
    let out = cmd.output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.trim_end().lines().count(), 1, "one sentence: {text:?}");
    (out.status.success(), text.trim_end().to_owned())
}

/// The test database's URL with one part changed.
fn with(url: &str, edit: impl Fn(&mut url_parts::Parts)) -> String {
    let mut p = url_parts::Parts::of(url);
    edit(&mut p);
    p.join()
}

mod url_parts {
    /// `postgres://user:password@host:port/database`, split.
    pub(crate) struct Parts {
        pub(crate) user: String,
        pub(crate) password: String,
        pub(crate) host: String,
        pub(crate) port: String,
        pub(crate) db: String,
    }

    impl Parts {
        pub(crate) fn of(url: &str) -> Parts {
            let rest = url.strip_prefix("postgres://").unwrap();
            let (cred, rest) = rest.split_once('@').unwrap();
            let (user, password) = cred.split_once(':').unwrap();
            let (hostport, db) = rest.split_once('/').unwrap();
            let (host, port) = hostport.split_once(':').unwrap();
            Parts { user: user.into(), password: password.into(), host: host.into(), port: port.into(), db: db.into() }
        }

        pub(crate) fn join(&self) -> String {
            format!("postgres://{}:{}@{}:{}/{}", self.user, self.password, self.host, self.port, self.db)
        }
    }
}

#[tokio::test]
async fn check_says_what_is_wrong_in_one_sentence() {
    let url = common::database_url();
    let (ok, s) = check(None);
    assert!(!ok && s.contains("No database URL"), "{s}");
    let (ok, s) = check(Some("mysql://x@y/z"));
    assert!(!ok && s.contains("not a PostgreSQL URL"), "{s}");
    // A port nothing listens on: bind one, then free it.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let (ok, s) = check(Some(&with(&url, |p| {
        p.host = "127.0.0.1".into();
        p.port = port.to_string();
    })));
    assert!(!ok && s.contains("Nothing accepts connections"), "{s}");
    let (ok, s) = check(Some(&with(&url, |p| p.password = "wrong".into())));
    assert!(!ok && s.contains("refuses user"), "{s}");
    let (ok, s) = check(Some(&with(&url, |p| p.db = "no_such_db".into())));
    assert!(!ok && s.contains("has no database \"no_such_db\""), "{s}");
    // A database without the schema, then migrated.
    let admin = sqlx::PgPool::connect(&url).await.unwrap();
    let name = format!("check_{}", std::process::id());
    sqlx::query(&format!("DROP DATABASE IF EXISTS {name}")).execute(&admin).await.unwrap();
    sqlx::query(&format!("CREATE DATABASE {name}")).execute(&admin).await.unwrap();
    let fresh = with(&url, |p| p.db = name.clone());
    let (ok, s) = check(Some(&fresh));
    assert!(!ok && s.contains("run `schcp-status migrate`"), "{s}");
    let migrate = Command::new(env!("CARGO_BIN_EXE_schcp-status")).arg("migrate").env("DATABASE_URL", &fresh).status();
    assert!(migrate.unwrap().success());
    let (ok, s) = check(Some(&fresh));
    assert!(ok && s.contains("works"), "{s}");
}
