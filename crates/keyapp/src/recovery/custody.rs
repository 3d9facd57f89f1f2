//! The recovery kit and the records backup as the desktop window reaches them.
//! The running key app keeps the principal key here, next to the service that
//! signs with it, so the window can show the kit (after the OS confirmed the
//! person, [`super::reveal`]), write a backup on demand, and change the daily
//! backup. Nothing here is reachable from the agent API, MCP or the control
//! socket: only `app::Running` holds a `Custody`, and only the desktop shell
//! reads it.

use super::backup::{self, BackupError, BackupHeader};
use super::schedule::{AutoBackup, Schedule};
use super::{RecoveryKit, WORDS};
use crate::keystore::PrincipalKey;
use crate::store::Store;
use crate::user_verification::{Asker, Method, Refusal, UserVerifier};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// The key, what confirms the person, and the records to back up.
pub struct Custody {
    key: Arc<PrincipalKey>,
    verifier: Arc<dyn UserVerifier>,
    store: Store,
    data_dir: PathBuf,
    /// The word positions the person was last asked to type back; only these
    /// can be confirmed, so the check cannot be used to read other words.
    asked: Mutex<Option<[usize; 2]>>,
    /// The daily backup running now, if a folder is chosen.
    daily: Mutex<Option<(AutoBackup, tokio::task::JoinHandle<()>)>>,
}

/// Why the daily backup's choice was not taken.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AutoBackupError {
    #[error("{} is not a folder you can write to ({error}), so the automatic backup was not changed; choose an existing folder", path.display())]
    Folder { path: PathBuf, error: std::io::Error },
    #[error("keep must be between 1 and {max}, so the automatic backup was not changed")]
    Keep { max: usize },
    #[error(transparent)]
    Config(#[from] crate::config::ConfigError),
    #[error("the choice could not be kept ({0}), so the automatic backup was not changed; try again")]
    Store(#[from] crate::store::StoreError),
}

/// The most backups the daily schedule keeps.
pub const MAX_KEEP: usize = 365;

impl Custody {
    /// The custody of `key` (from `keystore::open` or `restore`): the
    /// running key app makes one (`app::start`), and tests theirs.
    pub fn new(key: Arc<PrincipalKey>, verifier: Arc<dyn UserVerifier>, store: Store, data_dir: PathBuf) -> Custody {
        Custody { key, verifier, store, data_dir, asked: Mutex::new(None), daily: Mutex::new(None) }
    }

    pub fn principal(&self) -> &str {
        self.key.principal_id()
    }

    /// The kit, once the OS confirmed the person for `asker` (a refusal hands
    /// out nothing), with the two positions to type back.
    pub async fn reveal(&self, asker: Asker, summary: String) -> Result<(RecoveryKit, Method, [usize; 2]), Refusal> {
        let (kit, method) = super::reveal(&self.key, self.verifier.as_ref(), asker, summary).await?;
        let positions = super::confirmation_positions(&mut rand_core::OsRng);
        *self.asked.lock().unwrap_or_else(|p| p.into_inner()) = Some(positions);
        Ok((kit, method, positions))
    }

    /// Whether `typed` are the kit's words at the two positions the last
    /// [`Custody::reveal`] asked for. Without a reveal first, nothing confirms.
    pub fn confirm(&self, typed: &[String]) -> bool {
        let Some(positions) = *self.asked.lock().unwrap_or_else(|p| p.into_inner()) else {
            return false;
        };
        typed.len() == positions.len()
            && positions.iter().all(|p| *p < WORDS)
            && super::confirm_words(
                self.key.kit(),
                &positions.iter().zip(typed).map(|(p, w)| (*p, w.as_str())).collect::<Vec<_>>(),
            )
    }

    /// The records, encrypted to the kit, written to `dest` (replaced whole).
    pub async fn backup_to(&self, dest: &Path, now: i64) -> Result<BackupHeader, BackupError> {
        backup::write(&self.store, &self.key.backup_recipient(), self.principal(), &self.data_dir, dest, now).await
    }

    /// The daily backup now in force (none chosen: no folder).
    pub fn auto_backup(&self) -> AutoBackup {
        self.daily.lock().unwrap_or_else(|p| p.into_inner()).as_ref().map(|(a, _)| a.clone()).unwrap_or_default()
    }

    /// Runs the daily backup into `choice.folder` (none: stops it), replacing
    /// the one running. The caller writes the choice to the configuration.
    pub fn run_daily(&self, choice: AutoBackup, clock: crate::service::Clock) {
        let mut daily = self.daily.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((_, running)) = daily.take() {
            running.abort();
        }
        let Some(folder) = choice.folder.clone() else {
            return;
        };
        let schedule = Schedule {
            store: self.store.clone(),
            recipient: self.key.backup_recipient(),
            principal: self.principal().to_owned(),
            work_dir: self.data_dir.clone(),
            folder,
            keep: choice.keep,
        };
        let task = tokio::spawn(async move {
            if let Err(e) = schedule.run(clock).await {
                tracing::warn!(error = %e, "the automatic backup stopped");
            }
        });
        *daily = Some((choice, task));
    }

    /// Checks the person's choice, keeps it (in the configuration file at
    /// `config_file` when the key app read one, else in the records), and
    /// runs it from now on. A refusal changes nothing.
    pub async fn choose_daily(
        &self,
        choice: AutoBackup,
        config_file: Option<&Path>,
        clock: crate::service::Clock,
    ) -> Result<AutoBackup, AutoBackupError> {
        if choice.keep == 0 || choice.keep > MAX_KEEP {
            return Err(AutoBackupError::Keep { max: MAX_KEEP });
        }
        if let Some(folder) = &choice.folder {
            let writable = std::fs::metadata(folder).and_then(|m| {
                if m.is_dir() {
                    tempfile::tempfile_in(folder).map(drop)
                } else {
                    Err(std::io::Error::new(std::io::ErrorKind::NotADirectory, "not a folder"))
                }
            });
            if let Err(error) = writable {
                return Err(AutoBackupError::Folder { path: folder.clone(), error });
            }
        }
        match config_file {
            Some(path) => crate::config::Config::write_auto_backup(path, &choice)?,
            None => crate::store::auto_backup::choose(&self.store, &choice).await?,
        }
        self.run_daily(choice.clone(), clock);
        Ok(choice)
    }

    /// The daily backup to run at start: the config file's when it names a
    /// folder, else the one chosen in the window and kept in the records.
    pub(crate) async fn daily_at_start(&self, configured: &AutoBackup) -> AutoBackup {
        if configured.folder.is_some() {
            return configured.clone();
        }
        match crate::store::auto_backup::chosen(&self.store).await {
            Ok(Some(chosen)) => chosen,
            Ok(None) => configured.clone(),
            Err(e) => {
                tracing::warn!(error = %e, "the automatic backup chosen in the window could not be read");
                configured.clone()
            }
        }
    }
}

impl Drop for Custody {
    fn drop(&mut self) {
        if let Some((_, task)) = self.daily.get_mut().unwrap_or_else(|p| p.into_inner()).take() {
            task.abort();
        }
    }
}
