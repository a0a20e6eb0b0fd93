//! `xqfarm spsa --local`: a short tune of two search parameters end to end (embedded
//! coordinator, a local worker, the tuned file), and the refusals of bad input lines.

use std::process::Command;

fn spsa(params: &str, dir: &std::path::Path, extra: &[&str]) -> std::process::Output {
    std::fs::create_dir_all(dir).expect("dir");
    let csv = dir.join("spsa.csv");
    std::fs::write(&csv, params).expect("write the input");
    Command::new(env!("CARGO_BIN_EXE_xqfarm"))
        .args(["spsa", "--base", "default", "--params"])
        .arg(&csv)
        .args(["--tc", "nodes=300", "--concurrency", "2", "--local", "--dir"])
        .arg(dir.join("farm"))
        .args(extra)
        .output()
        .expect("xqfarm runs")
}

#[test]
fn a_short_tune_writes_a_tuned_variant() {
    let dir = tempfile::tempdir().expect("temp dir");
    let lines = "search.rfp_margin,90,20,300,10,0.002\nsearch.lmr_div,225,100,500,20,0.002\n";
    let out = spsa(lines, dir.path(), &["--games", "16"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains("games: 16 "), "{stdout}");
    for name in ["search.rfp_margin", "search.lmr_div"] {
        assert!(stdout.lines().any(|l| l.starts_with(name)), "the values table lists {name}: {stdout}");
    }
    assert!(stdout.contains("tuned variant `default-spsa1`"), "{stdout}");
    // The tuned file carries the tuned search parameters and loads as a parameter set.
    let tuned = std::fs::read_to_string(dir.path().join("farm/tuned.toml")).expect("tuned file");
    let set = engine::ParamSet::from_toml_str(&tuned).expect("the tuned file loads");
    let value = |name: &str| -> f64 {
        let line = stdout.lines().find(|l| l.starts_with(name)).expect("listed");
        line.split_whitespace().nth(1).expect("a value").parse().expect("a number")
    };
    assert_eq!(f64::from(set.get("search.rfp_margin").expect("set")), value("search.rfp_margin").round());
    assert_eq!(f64::from(set.get("search.lmr_div").expect("set")), value("search.lmr_div").round());
    // The history is stored: the start and one point per recorded submission, 8 pairs in all.
    let db = rusqlite::Connection::open(dir.path().join("farm/xqfarm.db")).expect("db");
    let (points, last): (i64, i64) = db
        .query_row("SELECT COUNT(*), MAX(iteration) FROM spsa_history WHERE run_id = 1", [], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .expect("history");
    assert_eq!(last, 8);
    assert!((2..=9).contains(&points), "{points} history points");
    // And in Parquet, one row per parameter per point.
    let file = std::fs::File::open(dir.path().join("farm/data/spsa/run=1.parquet")).expect("the spsa table");
    let rows = parquet::file::reader::FileReader::metadata(
        &parquet::file::serialized_reader::SerializedFileReader::new(file).expect("a Parquet file"),
    )
    .file_metadata()
    .num_rows();
    assert_eq!(rows, 2 * points);
}

#[test]
fn bad_input_lines_are_refused_by_name() {
    let dir = tempfile::tempdir().expect("temp dir");
    let cases = [
        ("search.rfp_margin,90,20,300,10\n", "line 1 `search.rfp_margin,90,20,300,10`: expected 6"),
        ("search.rfp_margin,90,300,20,10,0.002\n", "min: 300 is above max 20"),
        ("search.rfp_margin,900,20,300,10,0.002\n", "start: 900 is outside its range 20..=300"),
        ("search.nope,1,0,2,1,0.002\n", "`search.nope`: the built-in engine has no such parameter"),
        (
            "search.rfp_margin,90,0,300,10,0.002\n",
            "`search.rfp_margin`: range 0..=300 exceeds the parameter's declared 20..=300",
        ),
    ];
    for (i, (lines, want)) in cases.into_iter().enumerate() {
        let out = spsa(lines, &dir.path().join(i.to_string()), &["--games", "4"]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{lines}");
        assert!(stderr.contains(want), "{lines:?}: {stderr}");
        assert!(!dir.path().join(i.to_string()).join("farm/xqfarm.db").exists(), "nothing started for {lines:?}");
    }
}

/// An external base's parameters are its spin options: checked with a handshake before the
/// run starts, each refusal naming the option (Debian's Fairy-Stockfish, as `.ci/run` installs).
#[test]
fn external_parameters_must_be_advertised_spin_options() {
    let dir = tempfile::tempdir().expect("temp dir");
    let cases = [
        ("Ponder,0,0,1,1,0.002\n", "option `Ponder`: it is a check option, not a spin option"),
        ("Contempt Factor,0,0,10,1,0.002\n", "option `Contempt Factor`"),
        (
            "Slow Mover,84,10,2000,10,0.002\n",
            "option `Slow Mover`: the range 10..=2000 leaves the engine's spin range 10..=1000",
        ),
    ];
    for (i, (lines, want)) in cases.into_iter().enumerate() {
        let case = dir.path().join(i.to_string());
        std::fs::create_dir_all(&case).expect("dir");
        std::fs::write(case.join("fsf.csv"), lines).expect("write the input");
        let out = Command::new(env!("CARGO_BIN_EXE_xqfarm"))
            .args(["spsa", "--base", "engine:fsf", "--engine", "fsf=/usr/games/fairy-stockfish", "--params"])
            .arg(case.join("fsf.csv"))
            .args(["--games", "4", "--tc", "nodes=300", "--local", "--dir"])
            .arg(case.join("farm"))
            .output()
            .expect("xqfarm runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{lines}");
        assert!(stderr.contains(want), "{lines:?}: {stderr}");
        assert!(!case.join("farm/xqfarm.db").exists(), "nothing started for {lines:?}");
    }
}
