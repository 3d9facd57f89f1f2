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
    /// The daily backup in force, and its task when a folder is chosen.
    daily: Mutex<Option<(AutoBackup, Option<tokio::task::JoinHandle<()>>)>>,
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
        if let Some((_, Some(running))) = daily.take() {
            running.abort();
        }
        let Some(folder) = choice.folder.clone() else {
            *daily = Some((choice, None));
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
        *daily = Some((choice, Some(task)));
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
        if let Some((_, Some(task))) = self.daily.get_mut().unwrap_or_else(|p| p.into_inner()).take() {
            task.abort();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Config, KeystoreBackend};
    use crate::keystore::PassphraseSource;

    async fn custody(dir: &Path) -> Custody {
        let key = crate::keystore::open(KeystoreBackend::File, &dir.join("key"), PassphraseSource::Fixed("pw".into()))
            .await
            .unwrap();
        let store = Store::open(&dir.join("keyapp.db")).await.unwrap();
        let verifier = crate::user_verification::platform_verifier();
        Custody::new(Arc::new(key), verifier, store, dir.to_owned())
    }

    #[tokio::test]
    async fn the_daily_choice_goes_to_the_config_file_keeping_its_other_lines_and_a_refusal_writes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let c = custody(dir.path()).await;
        let file = dir.path().join("keyapp.toml");
        let before = "# mine\nlocale = \"fr\"\n[backup]\nkeep = 2\n";
        std::fs::write(&file, before).unwrap();
        let clock = crate::service::system_clock();
        for bad in [
            AutoBackup { folder: Some(dir.path().to_owned()), keep: 0 },
            AutoBackup { folder: Some(dir.path().to_owned()), keep: MAX_KEEP + 1 },
            AutoBackup { folder: Some(dir.path().join("missing")), keep: 3 },
            AutoBackup { folder: Some(file.clone()), keep: 3 },
        ] {
            assert!(c.choose_daily(bad.clone(), Some(&file), clock.clone()).await.is_err(), "{bad:?}");
            assert_eq!(std::fs::read_to_string(&file).unwrap(), before, "{bad:?}");
            assert_eq!(c.auto_backup(), AutoBackup::default());
        }
        let folder = dir.path().join("daily");
        std::fs::create_dir(&folder).unwrap();
        let choice = AutoBackup { folder: Some(folder.clone()), keep: 4 };
        assert_eq!(c.choose_daily(choice.clone(), Some(&file), clock.clone()).await.unwrap(), choice);
        let loaded = Config::load(&file).unwrap();
        assert_eq!(loaded.backup, choice);
        assert_eq!(loaded.locale.as_deref(), Some("fr"));
        assert!(std::fs::read_to_string(&file).unwrap().starts_with("# mine\n"));
        // Not in the records: the config file is where it is kept.
        assert_eq!(crate::store::auto_backup::chosen(&c.store).await.unwrap(), None);
        // Off: the folder is removed, the count kept.
        let off = AutoBackup { folder: None, keep: 4 };
        c.choose_daily(off.clone(), Some(&file), clock).await.unwrap();
        assert_eq!(Config::load(&file).unwrap().backup, off);
        assert_eq!(c.auto_backup(), off);
    }

    #[tokio::test]
    async fn without_a_config_file_the_choice_is_kept_in_the_records_and_used_at_the_next_start() {
        let dir = tempfile::tempdir().unwrap();
        let c = custody(dir.path()).await;
        let choice = AutoBackup { folder: Some(dir.path().to_owned()), keep: 2 };
        c.choose_daily(choice.clone(), None, crate::service::system_clock()).await.unwrap();
        assert_eq!(c.daily_at_start(&AutoBackup::default()).await, choice);
        // A folder the config file names wins.
        let configured = AutoBackup { folder: Some(dir.path().join("cfg")), keep: 9 };
        assert_eq!(c.daily_at_start(&configured).await, configured);
    }

    #[tokio::test]
    async fn only_the_positions_a_showing_asked_for_confirm() {
        let dir = tempfile::tempdir().unwrap();
        let c = custody(dir.path()).await;
        let words = c.key.kit().words();
        // Before any showing, even the right words at any place confirm nothing.
        for p in 0..WORDS - 1 {
            assert!(!c.confirm(&[words[p].clone(), words[p + 1].clone()]));
        }
        let positions = [3, 17];
        *c.asked.lock().unwrap() = Some(positions);
        assert!(c.confirm(&[words[3].clone(), words[17].clone()]));
        assert!(!c.confirm(&[words[17].clone(), words[3].clone()]) || words[3] == words[17]);
        assert!(!c.confirm(&[words[3].clone()]));
    }
}
