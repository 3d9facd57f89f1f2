//! `schcp-status`: `migrate`, `serve`, and `--check` (one sentence on the
//! database URL). docs/hosted-status.md has the operator's guide.
#![forbid(unsafe_code)]

use anyhow::{anyhow, Context};
use clap::{Parser, Subcommand};
use schcp_status::admin;
use schcp_status::config::Config;
use schcp_status::service::{self, ServiceState};
use schcp_status::store::{self, MIGRATOR};
use sqlx::postgres::PgConnectOptions;
use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

#[derive(Parser)]
#[command(name = "schcp-status", version, about = "The hosted SchCP status service (PostgreSQL).")]
struct Cli {
    /// The configuration file (TOML); `DATABASE_URL` overrides its database_url.
    #[arg(long, global = true)]
    config: Option<PathBuf>,
    /// Say in one sentence whether the database URL works, and exit.
    #[arg(long)]
    check: bool,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Apply the schema migrations (safe to run again, and from several hosts).
    Migrate,
    /// Serve hosts and key apps. Prints `listening on ADDR` once bound.
    Serve {
        /// Overrides the file's `listen` (port 0: any free port).
        #[arg(long)]
        listen: Option<SocketAddr>,
        /// Overrides the file's `admin_listen`: where /healthz, /readyz and
        /// /metrics are served (prints `admin on ADDR` once bound).
        #[arg(long)]
        admin_listen: Option<SocketAddr>,
    },
}

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "schcp_status=info".into()),
        )
        .with_writer(std::io::stderr)
        .init();
    let cli = Cli::parse();
    let config = match Config::load(cli.config.as_deref(), std::env::var("DATABASE_URL").ok()) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("schcp-status: {e}");
            return ExitCode::from(2);
        }
    };
    let mut runtime = tokio::runtime::Builder::new_multi_thread();
    if let Some(n) = config.worker_threads {
        runtime.worker_threads(n);
    }
    let runtime = runtime.enable_all().build().expect("a Tokio runtime");
    if cli.check {
        let (ok, sentence) = runtime.block_on(check(&config));
        println!("{sentence}");
        return if ok { ExitCode::SUCCESS } else { ExitCode::FAILURE };
    }
    let result = match cli.command {
        None => Err(anyhow!("say what to do: `migrate`, `serve` or `--check` (see --help)")),
        Some(Command::Migrate) => runtime.block_on(migrate(&config)),
        Some(Command::Serve { listen, admin_listen }) => {
            let config = Config { admin_listen: admin_listen.or(config.admin_listen), ..config };
            runtime.block_on(serve(&config, listen.unwrap_or(config.listen)))
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("schcp-status: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn database_url(config: &Config) -> anyhow::Result<&str> {
    config.database_url.as_deref().context("no database URL: set DATABASE_URL or database_url in the config file")
}

async fn migrate(config: &Config) -> anyhow::Result<()> {
    let pool = store::connect(database_url(config)?, &config.db).await.context("connecting to the database")?;
    MIGRATOR.run(&pool).await.context("applying migrations")?;
    eprintln!("schcp-status: schema up to date ({} migrations)", MIGRATOR.iter().count());
    Ok(())
}

async fn serve(config: &Config, listen: SocketAddr) -> anyhow::Result<()> {
    let pool = store::connect(database_url(config)?, &config.db).await.context("connecting to the database")?;
    if let Some(problem) = schema_problem(&pool).await {
        return Err(anyhow!("{problem}"));
    }
    let listener = tokio::net::TcpListener::bind(listen).await.with_context(|| format!("listening on {listen}"))?;
    let addr = listener.local_addr()?;
    // The one line a supervisor or a test reads to find the port.
    println!("listening on {addr}");
    std::io::stdout().flush()?;
    let state = ServiceState::new(pool.clone(), config.edge.clone())
        .with_namespaces(config.namespaces.clone())
        .with_status_max_age(config.status_max_age)
        .with_claim_batches(config.claim_batches, config.claim_gather);
    let admin = match config.admin_listen {
        None => None,
        Some(at) => {
            let l =
                tokio::net::TcpListener::bind(at).await.with_context(|| format!("listening on {at} (admin_listen)"))?;
            println!("admin on {}", l.local_addr()?);
            std::io::stdout().flush()?;
            Some(l)
        }
    };
    let admin = async {
        match admin {
            Some(l) => admin::serve(l, state.clone()).await,
            None => std::future::pending().await,
        }
    };
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
    tokio::select! {
        r = service::serve(listener, state.clone()) => r?,
        r = admin => r.context("serving admin_listen")?,
        never = purge_forever(&pool) => match never {},
        _ = tokio::signal::ctrl_c() => {}
        _ = term.recv() => {}
    }
    // Every acknowledged change is already committed; closing only ends idle connections.
    pool.close().await;
    Ok(())
}

/// `store::purge` every `PURGE_EVERY`, for as long as the process serves. A
/// failed purge is logged and tried again at the next round: the rows it would
/// have dropped answer correctly meanwhile.
async fn purge_forever(pool: &sqlx::PgPool) -> std::convert::Infallible {
    let mut every = tokio::time::interval(store::PURGE_EVERY);
    loop {
        every.tick().await;
        let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64);
        match store::purge(pool, now).await {
            Ok(p) => tracing::info!(credentials = p.credentials, claims = p.claims, updates = p.updates, "purged"),
            Err(e) => tracing::warn!(error = %e, "purge failed; tried again at the next round"),
        }
    }
}

/// What is wrong with the schema, if anything.
async fn schema_problem<'c>(db: impl sqlx::PgExecutor<'c>) -> Option<String> {
    let applied: Result<Vec<i64>, _> =
        sqlx::query_scalar("SELECT version FROM _sqlx_migrations WHERE success ORDER BY version").fetch_all(db).await;
    let known: Vec<i64> = MIGRATOR.iter().map(|m| m.version).collect();
    match applied {
        Err(_) => Some("the database has no schcp-status schema yet: run `schcp-status migrate`".into()),
        Ok(applied) if applied.iter().any(|v| !known.contains(v)) => {
            Some("the database's schema is newer than this schcp-status: upgrade the binary".into())
        }
        Ok(applied) if applied.len() < known.len() => Some(format!(
            "the database's schema is behind ({} of {} migrations): run `schcp-status migrate`",
            applied.len(),
            known.len()
        )),
        Ok(_) => None,
    }
}

/// One sentence: what is wrong with the database URL, or that it works.
async fn check(config: &Config) -> (bool, String) {
    let Some(url) = config.database_url.as_deref() else {
        return (false, "No database URL is set: set DATABASE_URL or database_url in the config file.".into());
    };
    // sqlx reads any scheme as PostgreSQL; a mysql:// URL is a mistake to name.
    let parsed = if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        url.parse::<PgConnectOptions>().map_err(|e| e.to_string())
    } else {
        Err("the scheme must be postgres:// or postgresql://".to_owned())
    };
    let options = match parsed {
        Ok(o) => o,
        Err(e) => {
            return (
                false,
                format!("The database URL is not a PostgreSQL URL (postgres://user:password@host:port/database): {e}."),
            )
        }
    };
    let at = format!("{}:{}", options.get_host(), options.get_port());
    let db = options.get_database().unwrap_or(options.get_username()).to_owned();
    let user = options.get_username().to_owned();
    // One connection, not a pool: a pool retries and reports only its timeout.
    let connect = <sqlx::PgConnection as sqlx::Connection>::connect_with(&options);
    let mut conn = match tokio::time::timeout(Duration::from_secs(10), connect).await {
        Err(_) => return (false, format!("PostgreSQL at {at} did not answer within 10 seconds.")),
        Ok(Err(e)) => return (false, connect_failure(&e, &at, &user, &db)),
        Ok(Ok(conn)) => conn,
    };
    if let Some(problem) = schema_problem(&mut conn).await {
        return (false, format!("PostgreSQL at {at} accepts user {user:?} on database {db:?}, but {problem}."));
    }
    (true, format!("The database URL works: user {user:?} on database {db:?} at {at}, schema up to date."))
}

fn connect_failure(e: &sqlx::Error, at: &str, user: &str, db: &str) -> String {
    match e {
        sqlx::Error::Io(io) if io.kind() == std::io::ErrorKind::ConnectionRefused => {
            format!("Nothing accepts connections at {at}: is PostgreSQL running there, on that port?")
        }
        sqlx::Error::Io(io) => format!("Cannot reach {at}: {io}."),
        sqlx::Error::PoolTimedOut => format!("PostgreSQL at {at} did not answer in time."),
        sqlx::Error::Database(d) => match d.code().as_deref() {
            Some("28P01") | Some("28000") => {
                format!("PostgreSQL at {at} refuses user {user:?}: wrong password, or pg_hba.conf does not let it in.")
            }
            Some("3D000") => format!("PostgreSQL at {at} has no database {db:?}: create it, or fix the URL's path."),
            _ => format!("PostgreSQL at {at} refused the connection: {}.", d.message()),
        },
        other => format!("Cannot connect to PostgreSQL at {at}: {other}."),
    }
}
