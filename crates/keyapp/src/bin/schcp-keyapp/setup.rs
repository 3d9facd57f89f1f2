//! `schcp-keyapp setup`: where hosts will check the person's credentials (SchCP
//! §3.3 "Status URLs"). With no option it says what is in force and asks, on
//! the terminal, for one of the three answers; an option gives the answer at
//! once. The running service checks a hosted service, asks the OS to confirm
//! a change (polkit, asked here by `tty_agent`), and writes the choice to the
//! config it read; a refusal writes nothing (keyapp::service::status_setup).

use crate::tty_agent;
use anyhow::{bail, Result};
use keyapp::control::{self, Command};
use keyapp::status_address::SetupChoice;
use keyapp::ui_words::text;
use schcp_consent::Language;
use serde_json::Value;
use std::io::{BufRead, Write};
use std::path::Path;

#[derive(clap::Args)]
#[group(multiple = false)]
pub(crate) struct SetupArgs {
    /// A hosted status service's https URL: checked, then your credentials are published there.
    #[arg(long, value_name = "URL")]
    hosted: Option<String>,
    /// Your own public https address for this key app's status API (behind your reverse proxy).
    #[arg(long, value_name = "URL")]
    own_base: Option<String>,
    /// Not now: hosts cannot check your credentials (shared limits are refused,
    /// and credentials cannot be withdrawn before they expire).
    #[arg(long)]
    not_now: bool,
    /// Confirm the status address your config file names, which is not in force until you do.
    #[arg(long)]
    confirm_config: bool,
}

pub(crate) async fn run(runtime_dir: &Path, language: Language, args: SetupArgs) -> Result<()> {
    let now = call(runtime_dir, Command::StatusSetup).await?;
    let command = if args.confirm_config {
        // What is asked, named before the OS's prompt (whose own words do not).
        print_view(&now);
        Command::ConfirmConfiguredStatus
    } else if let Some(url) = args.hosted {
        Command::ChooseStatus { setup: SetupChoice::Hosted { url } }
    } else if let Some(url) = args.own_base {
        Command::ChooseStatus { setup: SetupChoice::OwnBase { url } }
    } else if args.not_now {
        Command::ChooseStatus { setup: SetupChoice::NotNow }
    } else {
        print_view(&now);
        match ask(language)? {
            Some(setup) => Command::ChooseStatus { setup },
            None => return Ok(()),
        }
    };
    // A change is confirmed by the OS for this process: its prompt is asked here.
    let tty_agent = tty_agent::start().await;
    let done = call(runtime_dir, command).await;
    tty_agent.stop().await;
    print_view(&done?);
    Ok(())
}

/// One command's answer, or its refusal's sentence as the error.
async fn call(runtime_dir: &Path, c: Command) -> Result<Value> {
    match control::call(runtime_dir, &c).await? {
        Ok(v) => Ok(v),
        Err(e) => bail!("{}", e["message"].as_str().unwrap_or("refused")),
    }
}

/// What is in force, what the config asks for, and what publishing says.
fn print_view(view: &Value) {
    let text = |k: &str| view[k].as_str().unwrap_or_default().to_owned();
    println!("{}", text("words"));
    if let Some(words) = view["requested"]["words"].as_str() {
        println!("{words}");
    }
    println!("{}", text("publication_words"));
    for refused in view["refused"].as_array().into_iter().flatten() {
        println!("{}", refused["words"].as_str().unwrap_or_default());
    }
}

/// The three answers, read from the terminal; `None` when the person leaves it as it is.
fn ask(language: Language) -> Result<Option<SetupChoice>> {
    let say = |id: &str| text(language, id);
    println!();
    println!("{}", say("first-run-heading"));
    println!("  1. {}", say("setup-cli-hosted"));
    println!("  2. {}", say("setup-cli-own-base"));
    println!("  3. {}", say("setup-cli-not-now"));
    let answer = read_line(&say("setup-cli-choose"))?;
    Ok(match answer.trim() {
        "1" => Some(SetupChoice::Hosted { url: read_line(&say("setup-cli-hosted-url"))?.trim().to_owned() }),
        "2" => Some(SetupChoice::OwnBase { url: read_line(&say("setup-cli-own-base-url"))?.trim().to_owned() }),
        "3" => Some(SetupChoice::NotNow),
        _ => {
            println!("{}", say("setup-cli-left"));
            None
        }
    })
}

fn read_line(prompt: &str) -> Result<String> {
    print!("{prompt} ");
    std::io::stdout().flush()?;
    let mut line = String::new();
    std::io::stdin().lock().read_line(&mut line)?;
    Ok(line)
}
