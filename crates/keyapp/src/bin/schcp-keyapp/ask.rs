//! The commands that ask the person first: the words are shown, and only an
//! explicit yes goes on.

use crate::error::CliError;
use crate::socket::Socket;
use crate::tty_agent;
use keyapp::control::Command;
use keyapp::views::{HoldsView, HostChangeView, Prompt, UnpairedView};
use std::io::{BufRead, Write};

/// Prints the consent text, asks, and approves on an explicit yes.
pub(crate) async fn approve(socket: &Socket, id: String) -> Result<(), CliError> {
    let shown: Prompt = socket.view(Command::Show { id: id.clone() }).await?;
    println!("{}", shown.consent_text);
    if !asked_yes("Approve?")? {
        println!("not approved");
        return Ok(());
    }
    // The OS confirms it was the person (polkit): in a terminal, its prompt
    // is asked here, while the service waits for it.
    let tty_agent = tty_agent::start().await;
    let done = socket.call(Command::Approve { id }).await;
    tty_agent.stop().await;
    let done = done?;
    println!("approved");
    if let Some(result) = done.get("result").filter(|r| !r.is_null()) {
        println!("{}", serde_json::to_string_pretty(result).map_err(|_| CliError::Version)?);
    }
    Ok(())
}

/// Says a host's move in words, asks, and accepts it on an explicit yes.
/// Unpairs an assistant; asks first whether to revoke the credentials it
/// holds (SchCP §3.3 check 7), unless `--revoke-credentials` said yes.
pub(crate) async fn unpair(socket: &Socket, agent: String, revoke_credentials: bool) -> Result<(), CliError> {
    let holds: HoldsView = socket.view(Command::AgentHolds { agent: agent.clone() }).await?;
    let revoke = match &holds.question {
        Some(_) if revoke_credentials => true,
        Some(question) => asked_yes(question)?,
        None => false,
    };
    let done: UnpairedView = socket.view(Command::Unpair { agent, revoke_credentials: revoke }).await?;
    println!("{}", done.words);
    for line in &done.kept {
        println!("{line}");
    }
    Ok(())
}

pub(crate) async fn accept_host(socket: &Socket, host_id: String, domain: String) -> Result<(), CliError> {
    let changes: Vec<HostChangeView> = socket.view(Command::HostChanges).await?;
    let Some(change) = changes.iter().find(|c| c.change.host_id == host_id && c.change.domain == domain) else {
        return Err(CliError::HostNotMet { host: host_id, domain });
    };
    println!("{}", change.words);
    if asked_yes("Accept?")? {
        socket.call(Command::AcceptHostDomain { host_id, domain }).await?;
        println!("accepted");
    } else {
        println!("not accepted");
    }
    Ok(())
}

/// Asks `question` on the terminal; only an explicit yes (`is_yes`) is one.
fn asked_yes(question: &str) -> Result<bool, CliError> {
    print!("{question} [y/N] ");
    std::io::stdout().flush()?;
    let mut answer = String::new();
    std::io::stdin().lock().read_line(&mut answer)?;
    Ok(is_yes(&answer))
}

/// The person's yes is explicit: only `y` or `yes` approves; anything else, including nothing, does not.
fn is_yes(answer: &str) -> bool {
    matches!(answer.trim().to_ascii_lowercase().as_str(), "y" | "yes")
}

#[cfg(test)]
mod tests {
    use super::is_yes;

    #[test]
    fn only_y_or_yes_approves() {
        for yes in ["y", "Y", "yes", "YES", " yes\n"] {
            assert!(is_yes(yes), "{yes:?}");
        }
        for no in ["", "\n", "n", "no", "yep", "ye", "sure", "y es", "yes please"] {
            assert!(!is_yes(no), "{no:?}");
        }
    }
}
