//! A program run as a person runs it in a terminal: one line typed on its
//! standard input, then what it printed.

use std::io::Write;
use std::process::{Command, Stdio};

/// Runs `command` with `line` and a newline on its standard input:
/// (exit success, stdout, stderr).
pub fn typed(command: &mut Command, line: &str) -> (bool, String, String) {
    with_input(command, &format!("{line}\n"))
}

/// Runs `command` with `input` on its standard input, then closed: (exit
/// success, stdout, stderr).
pub fn with_input(command: &mut Command, input: &str) -> (bool, String, String) {
    let mut child = command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}
