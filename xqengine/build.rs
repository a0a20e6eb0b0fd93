//! Records the git commit a binary is built from, as `XQ_GIT_HASH`: `xqengine`'s `id name` and
//! the engine version an `xqfarm` worker registers (the farm checks engine builds by their bench
//! signature; the hash helps humans). The build script of both binary packages (xqfarm's names
//! this file): it reruns on every commit, and a rerun rebuilds its package and all that depends
//! on it, so no library has one.
use std::process::Command;

fn main() {
    let hash = Command::new("git")
        .args(["rev-parse", "--short=10", "HEAD"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "unknown".to_owned());
    println!("cargo:rustc-env=XQ_GIT_HASH={hash}");
    println!("cargo:rerun-if-changed=../.git/HEAD");
    println!("cargo:rerun-if-changed=../.git/refs/heads");
}
