//! `sqlx::migrate!` embeds crates/status/migrations at compile time, but on
//! stable Rust the macro cannot tell cargo to watch that folder: without this,
//! a changed migration would not rebuild the binary that embeds it.
fn main() {
    println!("cargo:rerun-if-changed=migrations");
}
