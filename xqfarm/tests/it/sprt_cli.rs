//! `xqfarm sprt --local` as CI uses it: exit 0 when H1 is accepted, 1 when H0 is, 2 on error.

use std::process::Command;

fn sprt(base: &str, candidate: &str, dir: &std::path::Path) -> (Option<i32>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_xqfarm"))
        .args([
            "sprt",
            "--base",
            base,
            "--candidate",
            candidate,
            "--tc",
            "depth=2",
            "--concurrency",
            "2",
            "--local",
            "--dir",
        ])
        .arg(dir)
        .output()
        .expect("xqfarm runs");
    (out.status.code(), String::from_utf8_lossy(&out.stdout).into_owned())
}

#[test]
fn exit_codes_follow_the_verdict() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (code, out) = sprt("material-only", "default", &dir.path().join("h1"));
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("H1 accepted"), "{out}");
    assert!(out.contains("llr: "), "{out}");

    let (code, out) = sprt("default", "material-only", &dir.path().join("h0"));
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("H0 accepted"), "{out}");
    // The embedded coordinator left its data behind.
    assert!(dir.path().join("h0/data/games").is_dir());
    assert!(dir.path().join("h0/summary.txt").is_file());

    let bad = Command::new(env!("CARGO_BIN_EXE_xqfarm"))
        .args(["sprt", "--base", "/nonexistent.toml", "--candidate", "default", "--local"])
        .output()
        .expect("xqfarm runs");
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("/nonexistent.toml"));
}
