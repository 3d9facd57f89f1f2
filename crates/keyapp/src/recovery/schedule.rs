//! The automatic backup: once a day, while the key app runs, the records are
//! written encrypted (`backup::write`) into the folder the person chose
//! (`[backup] folder` in the configuration), and only the newest `keep` are
//! kept. Only files this schedule named are ever removed from that folder.
//!
//! It needs no secret: a backup is encrypted to the kit's public X25519 key.

use super::backup::{self, BackupError};
use crate::store::Store;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How often the schedule looks whether a backup is due.
pub const CHECK_EVERY: Duration = Duration::from_secs(15 * 60);

/// A day, in seconds: a backup is due once the newest is this old.
const DAY: i64 = 24 * 60 * 60;

/// Every name this schedule writes starts so, then `YYYYMMDDTHHMMSSZ.age`.
const PREFIX: &str = "schcp-keyapp-backup-";
const SUFFIX: &str = ".age";

/// `[backup]` in the configuration.
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AutoBackup {
    /// Where the daily backups go; none: no automatic backup.
    #[serde(default)]
    pub folder: Option<PathBuf>,
    /// How many to keep (the newest); at least one.
    #[serde(default = "default_keep")]
    pub keep: usize,
}

fn default_keep() -> usize {
    7
}

impl Default for AutoBackup {
    fn default() -> Self {
        AutoBackup { folder: None, keep: default_keep() }
    }
}

/// What to back up, and with what.
#[derive(Clone)]
pub struct Schedule {
    pub store: Store,
    pub recipient: age::x25519::Recipient,
    pub principal: String,
    /// The data directory, where the copy is made while it is read.
    pub work_dir: PathBuf,
    pub folder: PathBuf,
    pub keep: usize,
}

/// The name of the backup taken at `at` (UTC, so names sort as times do).
fn name_at(at: i64) -> String {
    let when = chrono::DateTime::from_timestamp(at, 0).unwrap_or_default();
    format!("{PREFIX}{}{SUFFIX}", when.format("%Y%m%dT%H%M%SZ"))
}

/// When the backup named `name` was taken, if this schedule wrote it.
fn taken_at(name: &str) -> Option<i64> {
    let stamp = name.strip_prefix(PREFIX)?.strip_suffix(SUFFIX)?;
    let when = chrono::NaiveDateTime::parse_from_str(stamp, "%Y%m%dT%H%M%SZ").ok()?;
    Some(when.and_utc().timestamp())
}

/// The schedule's backups in `folder`, oldest first.
fn existing(folder: &Path) -> Result<Vec<(i64, PathBuf)>, BackupError> {
    let entries = std::fs::read_dir(folder).map_err(|error| BackupError::Io {
        action: "read the folder",
        path: folder.to_owned(),
        error,
    })?;
    let mut found: Vec<(i64, PathBuf)> =
        entries.filter_map(Result::ok).filter_map(|e| Some((taken_at(e.file_name().to_str()?)?, e.path()))).collect();
    found.sort();
    Ok(found)
}

impl Schedule {
    /// Writes a backup if none was taken in the last day (by the names in the
    /// folder, so a restart does not take another), then removes all but the
    /// newest `keep`. Returns the one written, if any.
    pub async fn run_due(&self, now: i64) -> Result<Option<PathBuf>, BackupError> {
        let before = existing(&self.folder)?;
        // A name from the future (a clock set back) does not stop backups for good.
        let due = before.iter().rev().find(|(at, _)| *at <= now).is_none_or(|(at, _)| now - at >= DAY);
        if !due {
            return Ok(None);
        }
        let dest = self.folder.join(name_at(now));
        backup::write(&self.store, &self.recipient, &self.principal, &self.work_dir, &dest, now).await?;
        let all = existing(&self.folder)?;
        let surplus = all.len().saturating_sub(self.keep.max(1));
        for (_, old) in all.into_iter().take(surplus) {
            std::fs::remove_file(&old).map_err(|error| BackupError::Io {
                action: "remove the old backup",
                path: old.clone(),
                error,
            })?;
        }
        Ok(Some(dest))
    }

    /// Runs for the key app's life: checks every [`CHECK_EVERY`] on `clock`.
    /// A failed backup is logged and tried at the next check.
    pub async fn run(self, clock: crate::service::Clock) -> Result<(), String> {
        loop {
            match self.run_due(clock()).await {
                Ok(Some(path)) => tracing::info!(path = %path.display(), "automatic backup written"),
                Ok(None) => {}
                Err(e) => tracing::warn!(error = %e, "the automatic backup failed; it is tried again later"),
            }
            tokio::time::sleep(CHECK_EVERY).await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recovery::RecoveryKit;
    use std::sync::atomic::{AtomicI64, Ordering};
    use std::sync::Arc;

    const T0: i64 = 1_800_000_000;

    fn names(folder: &Path) -> Vec<String> {
        let mut n: Vec<String> =
            std::fs::read_dir(folder).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
        n.sort();
        n
    }

    #[tokio::test]
    async fn one_backup_a_day_and_only_the_newest_are_kept() {
        let (dir, store) = crate::store::testing::store().await;
        let folder = dir.path().join("backups");
        std::fs::create_dir(&folder).unwrap();
        std::fs::write(folder.join("notes.txt"), "mine").unwrap();
        let kit = RecoveryKit::generate(&mut rand_core::OsRng);
        let schedule = Schedule {
            store,
            recipient: kit.backup_identity().to_public(),
            principal: "urn:p".into(),
            work_dir: dir.path().to_owned(),
            folder: folder.clone(),
            keep: 3,
        };
        // An injected clock the test moves.
        let clock = Arc::new(AtomicI64::new(T0));
        let now = || clock.load(Ordering::SeqCst);

        assert_eq!(schedule.run_due(now()).await.unwrap(), Some(folder.join(name_at(T0))));
        clock.fetch_add(DAY - 1, Ordering::SeqCst);
        assert_eq!(schedule.run_due(now()).await.unwrap(), None, "not a day yet");
        for day in 1..=4 {
            clock.store(T0 + day * DAY, Ordering::SeqCst);
            assert!(schedule.run_due(now()).await.unwrap().is_some(), "day {day}");
            assert_eq!(schedule.run_due(now()).await.unwrap(), None, "twice the same day");
        }
        let kept = names(&folder);
        let expected: Vec<String> =
            ["notes.txt".into(), name_at(T0 + 2 * DAY), name_at(T0 + 3 * DAY), name_at(T0 + 4 * DAY)].into();
        assert_eq!(kept, expected, "the newest three, and the person's own file untouched");
        // Each one opens with the kit and holds the records.
        let (header, _) = backup::read(&kit.backup_identity(), &folder.join(name_at(T0 + 4 * DAY))).unwrap();
        assert_eq!(header.created_at, T0 + 4 * DAY);
    }

    #[test]
    fn names_sort_as_times_and_only_the_schedules_are_read() {
        assert_eq!(taken_at(&name_at(T0)), Some(T0));
        assert!(name_at(T0) < name_at(T0 + 1));
        assert_eq!(taken_at("schcp-keyapp-backup-garbage.age"), None);
        assert_eq!(taken_at("records.age"), None);
    }

    #[test]
    fn the_configuration_names_a_folder_and_how_many_to_keep() {
        let parsed: AutoBackup = toml::from_str("folder = \"/b\"\nkeep = 3").unwrap();
        assert_eq!(parsed, AutoBackup { folder: Some("/b".into()), keep: 3 });
        assert_eq!(toml::from_str::<AutoBackup>("").unwrap(), AutoBackup::default());
        assert!(toml::from_str::<AutoBackup>("folders = \"/b\"").is_err());
    }
}
