//! `xqfarm tb generate`: a set with the smaller sets it needs, resumed set by set, and bad
//! input refused by name.

use std::process::{Command, Output};

fn xqfarm(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_xqfarm")).args(args).output().expect("xqfarm runs")
}

#[test]
fn generate_makes_the_set_and_its_captures_then_resumes() {
    let dir = tempfile::tempdir().expect("temp dir");
    let d = dir.path().join("tb");
    let d = d.to_str().expect("utf-8");
    let o = xqfarm(&["tb", "generate", "--dir", d, "--set", "KNKA"]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{out}{}", String::from_utf8_lossy(&o.stderr));
    let sets: Vec<&str> = out.lines().skip(1).filter_map(|l| l.split_whitespace().next()).collect();
    // KNKA's captures lead to KNK and KAK (the knight taken, seen from the stronger side),
    // and those to KK.
    for s in ["KK", "KNK", "KAK", "KNKA"] {
        assert!(sets.contains(&s), "{s} in {out}");
        assert!(std::path::Path::new(d).join(format!("{s}.xqtb")).is_file(), "{s}.xqtb");
    }
    assert_eq!(sets.last(), Some(&"generated"), "{out}");
    assert!(out.contains("generated 4 sets"), "{out}");
    // A second run finds every file and generates nothing.
    let o = xqfarm(&["tb", "generate", "--dir", d, "--set", "KNKA", "--set", "KAK"]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("generated 0 sets"), "{out}");
}

#[test]
fn bad_sets_are_refused_by_name() {
    let dir = tempfile::tempdir().expect("temp dir");
    let d = dir.path().to_str().expect("utf-8");
    for (args, needle) in [
        (vec!["--set", "KXK"], "KXK"),
        (vec!["--set", "KRRRK"], "KRRRK"),
        (vec!["--max-pieces", "4"], "--max-pieces 4"),
        (vec!["--set", "KRRCCKNN"], "KRRCCKNN"),
        (vec!["--set", "KPPPPK"], "KPPPPK"),
    ] {
        let mut a = vec!["tb", "generate", "--dir", d];
        a.extend(args);
        let o = xqfarm(&a);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success() && err.contains(needle), "{needle}: {err}");
    }
}
