//! Black-box tests of the `xqengine` binary: the exact command forms other tools call.

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn xqengine(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_xqengine"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn xqengine");
    child.stdin.take().expect("stdin").write_all(stdin.as_bytes()).expect("write stdin");
    child.wait_with_output().expect("xqengine runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("utf-8 stdout")
}

#[test]
fn uci_loop_survives_bad_input() {
    let o = xqengine(
        &[],
        "uci\nisready\nposition fen 9/9 w\nbogus\nposition startpos moves h2e2 a0a5\n\
         position startpos moves h2e2\ngo perft 2\nd\nquit\n",
    );
    let out = stdout(&o);
    assert!(o.status.success());
    assert!(out.contains("uciok") && out.contains("readyok"));
    // `id name xqengine VERSION COMMIT`: the commit from the build script (`unknown` outside git).
    let id = out.lines().find(|l| l.starts_with("id name ")).expect("an id name line");
    let words: Vec<&str> = id.split_whitespace().collect();
    assert_eq!(words[..4], ["id", "name", "xqengine", env!("CARGO_PKG_VERSION")], "{id}");
    assert!(words.len() == 5 && (words[4] == "unknown" || words[4].chars().all(|c| c.is_ascii_hexdigit())), "{id}");
    assert_eq!(out.matches("info string error:").count(), 3, "{out}");
    assert!(out.contains("Nodes searched: "));
    // The diagram of `d` carries the FEN after h2e2.
    assert!(out.contains("Fen: rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1"), "{out}");
}

#[test]
fn perft_subcommand_matches_go_perft() {
    let fen = "4k4/9/9/9/9/9/5p3/4B4/3N5/4K4 w - - 0 1";
    let sub = xqengine(&["perft", "--fen", fen, "--depth", "3"], "");
    let via_loop = xqengine(&[], &format!("position fen {fen}\ngo perft 3\nquit\n"));
    assert!(sub.status.success());
    assert_eq!(stdout(&sub), stdout(&via_loop));
    assert!(stdout(&sub).trim_end().ends_with("Nodes searched: 467"));
    assert_eq!(stdout(&sub).lines().filter(|l| l.contains(": ") && !l.starts_with("Nodes")).count(), 9);
}

#[test]
fn judge_prints_json_and_rejects_illegal_moves() {
    let o = xqengine(&["judge", "--fen", "startpos", "--moves", "h2e2", "h9g7"], "");
    assert!(o.status.success());
    let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).expect("one JSON line");
    assert_eq!(v["result"], "*");
    assert_eq!(v["reason"], "ongoing");
    assert_eq!(v["fen"], "rnbakab1r/9/1c4nc1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR w - - 2 2");

    let bad = xqengine(&["judge", "--moves", "h2e2", "h9g7", "e2e9"], "");
    assert_eq!(bad.status.code(), Some(2));
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(err.contains("move 2") && err.contains("e2e9"), "{err}");

    // Checkmate: the rook mates on the back rank next to the facing-king file.
    let mate = xqengine(&["judge", "--fen", "3k5/9/9/9/9/9/9/9/4R4/4K4 w - - 0 1", "--moves", "e1d1"], "");
    let v: serde_json::Value = serde_json::from_str(stdout(&mate).trim()).expect("JSON");
    assert_eq!(v["result"], "1-0", "{v}");
    assert_eq!(v["reason"], "checkmate");
}

#[test]
fn notation_translates_between_forms() {
    let cases = [
        ("h2e2", "wxf", "C2.5"),
        ("C2.5", "uci", "h2e2"),
        ("H2-E2", "chinese", "炮二平五"),
        ("炮二平五", "iccs", "H2-E2"),
        ("b0c2", "wxf", "H8+7"),
    ];
    for (mv, to, want) in cases {
        let o = xqengine(&["notation", "--fen", "startpos", "--move", mv, "--to", to], "");
        assert!(o.status.success(), "{mv} -> {to}: {}", String::from_utf8_lossy(&o.stderr));
        assert_eq!(stdout(&o).trim(), want, "{mv} -> {to}");
    }
    let bad = xqengine(&["notation", "--move", "h2h8", "--to", "wxf"], "");
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("h2h8"));
}

#[test]
fn uci_search_with_options_and_errors() {
    let o = xqengine(
        &[],
        "uci\nsetoption name Hash value 4\nsetoption name Hash value -3\nsetoption name Bogus value 1\n\
         setoption name material.rook.mg value 999999\nsetoption name material.rook.mg value 950\n\
         setoption name ParamsFile value /nonexistent/params.toml\n\
         ucinewgame\nposition startpos moves h2e2\ngo nodes 5000\nisready\n",
    );
    let out = stdout(&o);
    assert!(o.status.success());
    assert!(out.contains("option name material.rook.mg type spin"), "every parameter is a UCI option");
    assert_eq!(out.matches("info string error:").count(), 4, "{out}");
    assert!(out.contains("/nonexistent/params.toml"), "the error names the file: {out}");
    let info = out.lines().find(|l| l.starts_with("info depth")).expect("an info line");
    for field in ["seldepth", "score cp", "nodes", "nps", "time", "hashfull", "pv"] {
        assert!(info.contains(field), "{field} missing in {info}");
    }
    assert!(out.lines().any(|l| l.starts_with("bestmove ")), "{out}");
}

#[test]
fn go_infinite_waits_for_stop() {
    let o = xqengine(&[], "position startpos\ngo infinite\nisready\nstop\nquit\n");
    let out = stdout(&o);
    let ready = out.find("readyok").expect("readyok while searching");
    let best = out.find("bestmove ").expect("bestmove after stop");
    assert!(ready < best, "{out}");
}

#[test]
fn ucci_mode() {
    let o = xqengine(
        &[],
        "ucci\nsetoption usemillisec true\nsetoption hashsize 8\nsetoption hashsize lots\n\
         position fen 3k5/9/9/9/9/9/9/9/4R4/4K4 w - - 0 1\nbanmoves e1e2\ngo depth 5\n",
    );
    let out = stdout(&o);
    assert!(out.contains("ucciok"));
    assert_eq!(out.matches("info string error:").count(), 1, "{out}");
    assert!(out.contains("bestmove e1d1"), "{out}");
    // A mate in one, in UCCI's units.
    assert!(out.contains("score 9999"), "{out}");
    // `quit` answers `bye` (and stops a running search at once).
    let bye = stdout(&xqengine(&[], "ucci\nquit\n"));
    assert!(bye.trim_end().ends_with("bye"), "{bye}");
}

#[test]
fn bench_prints_its_signature_line() {
    let o = xqengine(&["bench", "3"], "");
    assert!(o.status.success());
    let out = stdout(&o);
    let last = out.lines().last().expect("a line");
    let words: Vec<&str> = last.split_whitespace().collect();
    assert_eq!(words.len(), 4, "{last}");
    assert_eq!((words[1], words[3]), ("nodes", "nps"));
    let nodes: u64 = words[0].parse().expect("node count");
    assert!(nodes > 0);
    let again = stdout(&xqengine(&["bench", "3"], ""));
    assert_eq!(
        again.lines().last().and_then(|l| l.split_whitespace().next()),
        Some(words[0]),
        "bench is deterministic"
    );
}

#[test]
fn params_dump_round_trips_and_bad_files_are_named() {
    let dir = std::env::temp_dir().join(format!("xqengine-params-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let dump = xqengine(&["params", "--dump"], "");
    assert!(dump.status.success());
    let file = dir.join("base.toml");
    std::fs::write(&file, &dump.stdout).expect("write");
    let again = xqengine(&["--params", file.to_str().expect("utf-8 path"), "params", "--dump"], "");
    assert_eq!(stdout(&again), stdout(&dump));

    let bad = dir.join("bad.toml");
    std::fs::write(&bad, "[material.rook]\nmg = \"heavy\"\n").expect("write");
    let o = xqengine(&["--params", bad.to_str().expect("utf-8 path"), "params", "--dump"], "");
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("material.rook.mg"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn tb_probe_prints_the_verdict_and_names_a_missing_table() {
    let dir = tempfile::tempdir().expect("temp dir");
    let tbs = engine::tablebase::Tablebases::open(dir.path()).expect("a directory");
    tbs.generate("KRK".parse().expect("a set"), &|_| {}).expect("generates");
    let path = dir.path().to_str().expect("utf-8 path");
    let o = xqengine(&["tb", "probe", "--path", path, "--fen", "3k5/9/9/9/9/9/9/9/9/4K3R b"], "");
    let out = stdout(&o);
    assert!(o.status.success(), "{out}");
    assert!(out.starts_with("set KRK wdl loss dtc "), "{out}");
    // The bare king on d9 is the only piece Black can move.
    assert!(out.contains(" bestmove d9"), "{out}");
    // The UCI option: the root's move comes from the table and says so.
    let uci = xqengine(
        &[],
        &format!(
            "uci\nsetoption name TablebasePath value /nonexistent/tb\nsetoption name TablebasePath value {path}\nposition fen 3k5/9/9/9/9/9/9/9/9/4K3R w\ngo depth 5\nquit\n"
        ),
    );
    let out = stdout(&uci);
    assert!(out.contains("option name TablebasePath type string"), "{out}");
    assert!(out.contains("/nonexistent/tb") && out.contains("not a directory"), "{out}");
    assert!(out.contains("info string tablebase win dtc "), "{out}");
    assert!(out.contains("bestmove "), "{out}");
    let miss = xqengine(&["tb", "probe", "--path", path, "--fen", "4k4/9/9/9/9/9/9/9/9/3K1N3 w"], "");
    let err = String::from_utf8_lossy(&miss.stderr);
    assert!(!miss.status.success() && err.contains("KNK"), "{err}");
    let bad = xqengine(&["tb", "probe", "--path", "/nonexistent/tb", "--fen", "3k5/9/9/9/9/9/9/9/9/4K3R w"], "");
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(!bad.status.success() && err.contains("/nonexistent/tb"), "{err}");
}

#[test]
fn own_book_plays_the_books_move_and_says_so() {
    use engine::book::BookBuilder;
    use engine::notation::parse_uci;
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("b.xqb");
    let mut b = BookBuilder::new(4);
    let line: Vec<_> = ["h2e2", "h9g7"].iter().map(|m| parse_uci(m).expect("uci")).collect();
    for _ in 0..3 {
        b.add_game(&engine::Position::startpos(), &line, engine::rules::GameResult::RedWins).expect("legal");
    }
    b.finish(1).save(&path).expect("saved");
    let p = path.to_str().expect("utf-8");
    let o = xqengine(
        &[],
        &format!(
            "uci\nsetoption name BookFile value {p}\nsetoption name OwnBook value true\nposition startpos\ngo depth 3\nsetoption name OwnBook value false\nposition startpos\ngo depth 1\nsetoption name BookFile value {p}.missing\nquit\n"
        ),
    );
    let out = stdout(&o);
    assert!(out.contains("option name OwnBook type check default false"), "{out}");
    // h2e2 and its mirror image b2e2 are one entry at the symmetric start.
    assert!(
        out.contains("info string book move b2e2 games 3 score 100.0%")
            || out.contains("info string book move h2e2 games 3 score 100.0%"),
        "{out}"
    );
    assert_eq!(out.matches("info string book move").count(), 1, "OwnBook false searches: {out}");
    assert!(out.contains("b.xqb.missing"), "a missing book is named: {out}");
}

#[test]
fn bench_with_a_network_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let net = dir.path().join("random.xqnn");
    let net = net.to_str().expect("utf-8 path");
    let o = xqengine(&["nnue", "random", "--out", net, "--hidden", "32", "--seed", "2"], "");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let info = stdout(&xqengine(&["nnue", "info", net], ""));
    assert!(info.contains("hidden 32"), "{info}");
    // Its id, what parameter files name it by: the SHA-256 of the file (golden: the random
    // network of seed 2 is the same bytes in every build).
    assert!(info.contains("sha256 674c2f0f7b9869baa344f1392d4850ff15735b4e875f4eb5530b27ae07fb3c1a "), "{info}");
    let o = xqengine(&["bench", "3", "--eval", "nnue", "--evalfile", net], "");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let last = stdout(&o).lines().last().expect("a line").to_owned();
    assert!(last.ends_with(" nps") && last.contains(" nodes "), "{last}");
    // A file needs --eval nnue; a bad file is refused by name.
    assert!(!xqengine(&["bench", "3", "--evalfile", net], "").status.success());
    let bad = dir.path().join("bad.xqnn");
    std::fs::write(&bad, b"XQNN").expect("write");
    let o = xqengine(&["bench", "3", "--eval", "nnue", "--evalfile", bad.to_str().expect("utf-8 path")], "");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && err.contains("bad.xqnn") && err.contains("truncated"), "{err}");
}

/// The embedded default network's manifest (committed beside it): its sha256, and in
/// `bench_signature.nodes` what `xqengine bench --eval nnue` gives with it (also in engine/EVAL.md).
fn manifest() -> serde_json::Value {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/nets/default.json")).expect("manifest");
    serde_json::from_str(&text).expect("the manifest is JSON")
}

#[test]
fn the_uci_loop_evaluates_with_the_default_network_and_hce_stays_the_bench_signature() {
    let manifest = manifest();
    let sha = manifest["sha256"].as_str().expect("the manifest's sha256");
    let info = stdout(&xqengine(&["nnue", "info"], ""));
    assert!(info.starts_with("the default network: format 1 architecture 1 inputs 1260 hidden 128 "), "{info}");
    assert!(info.contains(&format!("sha256 {sha} ")), "the embedded bytes are the manifest's network: {info}");

    let out = stdout(&xqengine(&[], "uci\nposition startpos\neval\nsetoption name Eval value hce\neval\n"));
    assert!(out.contains("option name Eval type combo default nnue var hce var nnue"), "{out}");
    let evals: Vec<&str> = out.lines().filter(|l| l.starts_with("info string static eval")).collect();
    assert_eq!(evals.len(), 2, "{out}");
    assert!(evals[0].ends_with("(side to move, nnue)") && evals[1].ends_with("(side to move, hce)"), "{out}");

    // bench keeps the HCE (the signature the farm's workers check); --eval nnue is the network's.
    let last = |o: &Output| stdout(o).lines().last().unwrap_or_default().split_whitespace().next().map(str::to_owned);
    assert_eq!(last(&xqengine(&["bench"], "")).as_deref(), Some("1862357"));
    let nnue = last(&xqengine(&["bench", "--eval", "nnue"], ""));
    let signature = manifest["bench_signature"]["nodes"].as_u64().expect("the manifest's bench signature");
    assert_eq!(nnue, Some(signature.to_string()), "the manifest records it");
}
