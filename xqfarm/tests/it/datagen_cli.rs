//! `xqfarm run create --kind datagen`: a bad combination is named before any connection (the
//! coordinator on port 1 is never reached).

use std::process::Command;

fn create(args: &[&str]) -> (Option<i32>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_xqfarm"))
        .args(["run", "create", "--coordinator", "http://127.0.0.1:1", "--token", "t", "--suite", "1"])
        .args(args)
        .output()
        .expect("xqfarm runs");
    (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn bad_datagen_combinations_are_named_before_connecting() {
    let cases: [(&[&str], &str); 5] = [
        (&["--kind", "datagen", "--variants", "a", "b"], "a datagen run plays exactly 1 variant"),
        (&["--kind", "datagen", "--variant", "a", "--pairs", "0"], "datagen.pairs"),
        (&["--kind", "datagen", "--variant", "a", "--random-plies", "41"], "random_plies"),
        (&["--kind", "datagen", "--variant", "a", "--sample-every", "8"], "--sample-every must be 1, got 8"),
        (&["--kind", "games", "--variants", "a", "b", "--random-plies", "3"], "--random-plies is a datagen setting"),
    ];
    for (args, expected) in cases {
        let (code, stderr) = create(args);
        assert_ne!(code, Some(0), "{args:?}");
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
        assert!(!stderr.contains("127.0.0.1:1"), "{args:?} was refused before connecting: {stderr}");
    }
}
