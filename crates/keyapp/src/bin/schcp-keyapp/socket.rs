//! The running service's control socket, as this program calls it: each
//! answer, or its refusal as a typed [`CliError`].

use crate::error::CliError;
use keyapp::control::{self, Command};
use serde_json::Value;
use std::path::PathBuf;

/// The control socket, in the service's runtime directory.
pub(crate) struct Socket(PathBuf);

impl Socket {
    pub(crate) fn new(runtime_dir: PathBuf) -> Socket {
        Socket(runtime_dir)
    }

    /// The key app's runtime folder, where its control socket is.
    pub(crate) fn path(&self) -> &std::path::Path {
        &self.0
    }

    /// One command's answer, or its refusal as the error (by its reason,
    /// never by its message).
    pub(crate) async fn call(&self, c: Command) -> Result<Value, CliError> {
        match control::call(&self.0, &c).await? {
            Ok(v) => Ok(v),
            Err(e) => {
                let reason = serde_json::from_value(e["reason"].clone()).map_err(|_| CliError::Version)?;
                let message = e["message"].as_str().unwrap_or_default().to_owned();
                Err(CliError::Refused { reason, message, id: named(&c) })
            }
        }
    }

    /// One command's answer as the view it is (`keyapp::views`), the same
    /// type the window receives.
    pub(crate) async fn view<T: serde::de::DeserializeOwned>(&self, c: Command) -> Result<T, CliError> {
        serde_json::from_value(self.call(c).await?).map_err(|_| CliError::Version)
    }
}

/// The id a command names, which its refusal is about.
fn named(c: &Command) -> Option<String> {
    match c {
        Command::Show { id } | Command::Approve { id } | Command::Decline { id } => Some(id.clone()),
        Command::Revoke { jti } => Some(jti.clone()),
        _ => None,
    }
}
