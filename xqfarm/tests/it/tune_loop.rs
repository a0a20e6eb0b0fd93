//! `xqfarm loop`, `tune` and `report` as a user runs them, on a tiny budget: one iteration of
//! self-play, tuning and a capped SPRT on the embedded coordinator, then the tuner and the
//! report again over the data the loop left, and their errors on bad input.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Output, Stdio};

fn xqfarm(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_xqfarm")).args(args).current_dir(dir).output().expect("xqfarm runs")
}

fn text(out: &Output) -> String {
    format!("{}\n{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

#[test]
fn loop_then_tune_then_report() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let dir = tmp.path();
    let out = xqfarm(
        &[
            "loop",
            "--dir",
            "loop",
            "--iterations",
            "1",
            "--pairs",
            "16",
            "--nodes",
            "400",
            "--epochs",
            "8",
            "--max-games",
            "24",
            "--suite-size",
            "40",
            "--concurrency",
            "2",
        ],
        dir,
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let summary = std::fs::read_to_string(dir.join("loop/loop.md")).expect("loop.md");
    assert!(summary.contains("\n| 1 | 32 |"), "one iteration of 32 self-play games:\n{summary}");
    for file in
        ["best.toml", "elo-progress.png", "openings.txt", "iteration-1/tuned.toml", "iteration-1/tuned-loss.png"]
    {
        assert!(dir.join("loop").join(file).is_file(), "{file} missing:\n{}", text(&out));
    }
    assert_eq!(std::fs::read_to_string(dir.join("loop/openings.txt")).expect("openings").lines().count(), 40);
    let report = std::fs::read_to_string(dir.join("loop/report/report.md")).expect("report.md");
    assert!(report.contains("| 1 | self-play 1 | games | completed |"), "{report}");
    assert!(report.contains("tuned-1 vs start"), "{report}");

    // The tuner alone, over the self-play run the loop left.
    let out = xqfarm(
        &["tune", "--data", "loop/data", "--run", "1", "--out", "t/tuned.toml", "--epochs", "5", "--only", "material"],
        dir,
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let tuned = std::fs::read_to_string(dir.join("t/tuned.toml")).expect("tuned.toml");
    let changes = std::fs::read_to_string(dir.join("t/tuned-changes.md")).expect("changes");
    // Only material weights may move.
    assert!(changes.lines().skip(2).all(|l| l.starts_with("| material.")), "{changes}");
    assert!(tuned.contains("material"), "{tuned}");
    assert!(text(&out).contains("K = "), "{}", text(&out));

    // A base's search parameters travel into the tuned file: the tuner moves only the
    // evaluation, and a variant carries both.
    std::fs::write(dir.join("base-search.toml"), "[search]\nrfp_margin = 123\n").expect("write base");
    let base_args = ["--base", "base-search.toml", "--out", "b/tuned.toml"];
    let out = xqfarm(&[&args_of_run1()[..], &base_args[..]].concat(), dir);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let tuned = engine::ParamSet::from_toml_file(dir.join("b/tuned.toml")).expect("the tuned file parses");
    assert_eq!(tuned.search.rfp_margin, 123, "the base's [search] table is kept");

    // Weights seen in fewer positions than --min-positions stay: with a bound above the data
    // all 12 material weights (6 pieces, mg and eg) are kept and nothing changes.
    let args = ["tune", "--data", "loop/data", "--run", "1", "--epochs", "5"];
    let out = xqfarm(
        &[&args[..], &["--out", "m/tuned.toml", "--only", "material", "--min-positions", "100000000"]].concat(),
        dir,
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(text(&out).contains("too rare: 12"), "{}", text(&out));
    let changes = std::fs::read_to_string(dir.join("m/tuned-changes.md")).expect("changes");
    assert_eq!(changes.lines().count(), 2, "only the table's header: {changes}");
    // A negative ridge pull is refused by name, before any file is written.
    let out = xqfarm(&[&args[..], &["--l2", "-1", "--out", "n/tuned.toml"]].concat(), dir);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("l2"), "{}", text(&out));
    assert!(!dir.join("n/tuned.toml").exists());

    // The report of one run.
    let out = xqfarm(&["report", "--data", "loop/data", "--run", "2", "--out", "r"], dir);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let md = std::fs::read_to_string(dir.join("r/report.md")).expect("report.md");
    assert!(md.contains("tuned-1 vs start") && !md.contains("self-play 1"), "{md}");
    assert!(dir.join("r/llr.png").is_file());

    // --submit: the tuned set goes to a coordinator as a variant with an SPRT against the base.
    let mut serve = Command::new(env!("CARGO_BIN_EXE_xqfarm"))
        .args(["serve", "--listen", "127.0.0.1:0", "--db", "farm.db", "--data", "farm-data", "--token", "T"])
        .current_dir(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the coordinator");
    let mut lines = BufReader::new(serve.stderr.take().expect("stderr")).lines();
    let addr = loop {
        let line = lines.next().expect("the coordinator prints its address").expect("utf-8");
        if let Some(rest) = line.strip_prefix("xqfarm coordinator on ") {
            break rest.split_whitespace().next().expect("an address").to_owned();
        }
    };
    std::thread::spawn(move || for _ in lines {});
    let url = format!("http://{addr}");
    let args =
        ["tune", "--data", "loop/data", "--out", "s/tuned.toml", "--epochs", "3", "--submit", &url, "--token", "T"];
    let out = xqfarm(&args, dir);
    let listed = xqfarm(&["run", "list", "--coordinator", &url, "--token", "T"], dir);
    let _ = serve.kill();
    let _ = serve.wait();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(text(&out).contains("submitted: run 1"), "{}", text(&out));
    assert!(text(&listed).contains("tuned vs default (tuned)"), "{}", text(&listed));
}

#[test]
fn bad_input_is_named() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let dir = tmp.path();
    let out = xqfarm(&["report", "--data", "nowhere"], dir);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out).contains("nowhere"), "{}", text(&out));

    std::fs::create_dir_all(dir.join("empty")).expect("mkdir");
    let out = xqfarm(&["tune", "--data", "empty", "--out", "t.toml"], dir);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out).contains("no tuning positions"), "{}", text(&out));
    assert!(!dir.join("t.toml").exists());

    let out = xqfarm(&["tune", "--data", "empty", "--out", "t.toml", "--only", "materiel"], dir);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out).contains("materiel"), "{}", text(&out));

    let out = xqfarm(&["tune", "--data", "empty", "--out", "t.toml", "--base", "missing.toml"], dir);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out).contains("missing.toml"), "{}", text(&out));
}

/// `xqfarm tune` over the loop's self-play run, two epochs of material only.
fn args_of_run1() -> [&'static str; 9] {
    ["tune", "--data", "loop/data", "--run", "1", "--epochs", "2", "--only", "material"]
}

/// The network loop's flags for a CI-sized iteration: 20 datagen pairs at 300 nodes, a network
/// of 16 hidden neurons trained 2 epochs, an SPRT at movetime 20 capped at 4 games.
const NNUE_LOOP: [&str; 24] = [
    "loop",
    "--eval",
    "nnue",
    "--dir",
    "nl",
    "--pairs",
    "20",
    "--datagen-nodes",
    "300",
    "--tc",
    "movetime=20",
    "--hidden",
    "16",
    "--epochs",
    "2",
    "--validation",
    "0.3",
    "--max-games",
    "4",
    "--suite-size",
    "20",
    "--concurrency",
    "2",
    "--iterations=1",
];

#[test]
fn the_network_loop_trains_a_network_the_farm_plays_and_resumes_instead_of_repeating() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let dir = tmp.path();
    let out = xqfarm(&NNUE_LOOP, dir);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let loop_dir = dir.join("nl");
    // The tuned set names the network it trained, kept by id beside its manifest.
    let tuned = std::fs::read_to_string(loop_dir.join("iteration-1/tuned.toml")).expect("tuned.toml");
    let bytes = std::fs::read(loop_dir.join("iteration-1/network.xqnn")).expect("the network");
    let id = engine::nnue::NetworkId::of_file(&bytes);
    assert!(tuned.contains(&format!("eval = \"nnue:{id}\"")), "{tuned}");
    assert_eq!(std::fs::read(loop_dir.join(format!("networks/{id}.xqnn"))).expect("kept by id"), bytes);
    let manifest = std::fs::read_to_string(loop_dir.join("iteration-1/network.json")).expect("manifest");
    assert!(manifest.contains(&id.to_string()), "{manifest}");
    let summary = std::fs::read_to_string(loop_dir.join("loop.md")).expect("loop.md");
    assert!(summary.contains("\n| 1 | 40 |"), "40 datagen games:\n{summary}");
    assert!(summary.contains(&format!("| 1 | nnue:{} |", id.short())), "{summary}\n{}", text(&out));
    let sprt = std::fs::read_to_string(loop_dir.join("iteration-1/sprt.txt")).expect("sprt.txt");
    assert!(sprt.contains("run 2: tuned-1 vs start"), "{sprt}");
    let log = text(&out);
    assert!(log.contains("datagen run 1, 20 pairs at nodes=300"), "{log}");

    // Again on the same directory: every step is found or read back, nothing is played or
    // trained twice.
    let again = xqfarm(&NNUE_LOOP, dir);
    assert_eq!(again.status.code(), Some(0), "{}", text(&again));
    let log = text(&again);
    assert!(log.contains("run 1 (datagen 1) is this step's: resumed"), "{log}");
    assert!(log.contains("run 2 (tuned-1 vs start) is this step's: resumed"), "{log}");
    assert!(log.contains("iteration 1: the tuning in"), "{log}");
    assert!(!log.contains("epoch   1/2"), "no training:\n{log}");
    let resumed = std::fs::read_to_string(loop_dir.join("loop.md")).expect("loop.md");
    assert_eq!(without_minutes(&resumed), without_minutes(&summary), "the same iteration, read back");

    // A network's SPRT at fixed nodes is refused before anything runs.
    let mut fixed = NNUE_LOOP;
    fixed[4] = "fixed";
    fixed[10] = "nodes=300";
    let out = xqfarm(&fixed, dir);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("setting tc: nodes=300: a network costs another time per node"), "{}", text(&out));
}

/// loop.md without its minutes column (the 16th), which a resumed iteration does not repeat.
fn without_minutes(md: &str) -> String {
    md.lines()
        .map(|l| {
            if l.starts_with("| 1 |") {
                l.split('|').enumerate().filter(|(i, _)| *i != 16).map(|(_, c)| c).collect()
            } else {
                l.to_owned()
            }
        })
        .collect::<Vec<String>>()
        .join("\n")
}
