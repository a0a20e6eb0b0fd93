//! The one-line SPRT between engine binaries, as a CI job runs it: real child processes (our
//! `xqengine`, built beside this binary by `cargo test --workspace`; Debian's Fairy-Stockfish;
//! small scripts that crash, stall or print a bench), every exit code (0 H1, 1 H0 in
//! `sprt_cli`, 2 error, 3 no verdict within the caps), the JSON checked against its committed
//! schema by `check-jsonschema` (`.ci/run` installs it), the markdown and the PGN, and each
//! refusal before a game is played, named.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const FAIRY: &str = "/usr/games/fairy-stockfish";

/// Our engine's binary, built beside `xqfarm` (`cargo test --workspace` builds it).
fn xqengine() -> PathBuf {
    let path = Path::new(env!("CARGO_BIN_EXE_xqfarm")).with_file_name("xqengine");
    assert!(
        path.is_file(),
        "{} is missing: build it (`cargo build -p xqengine`; `cargo test --workspace` does)",
        path.display()
    );
    path
}

fn sprt(args: &[&str], envs: &[(&str, &Path)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_xqfarm"));
    command.env("XQFARM_LOG", "warn").env("NO_COLOR", "1").env_remove("GITHUB_STEP_SUMMARY").arg("sprt").args(args);
    for (key, value) in envs {
        command.env(key, value);
    }
    command.output().expect("xqfarm runs")
}

fn text(out: &Output) -> String {
    format!("{}\n{}\n{}", out.status, String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

/// A minimal UCI engine in shell: it completes the handshake, then does `on_go` when asked
/// to move; `PATH bench` prints a node count.
fn script_engine(dir: &Path, name: &str, on_go: &str) -> PathBuf {
    let path = dir.join(name);
    let body = format!(
        "#!/bin/sh\n\
         if [ \"$1\" = bench ]; then echo '4242 nodes 1000 nps'; exit 0; fi\n\
         while read -r line; do\n\
           case \"$line\" in\n\
             uci) echo 'id name {name} 1'; echo 'option name Hash type spin default 16 min 1 max 64'; echo uciok ;;\n\
             isready) echo readyok ;;\n\
             go*) {on_go} ;;\n\
             quit) exit 0 ;;\n\
           esac\n\
         done\n"
    );
    std::fs::write(&path, body).expect("script written");
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    path
}

/// `xqfarm sprt ARGS --json FILE`.
fn sprt_json(json: &Path, args: &[&str]) -> Output {
    sprt(&[args, &["--json", json.to_str().expect("a UTF-8 path")]].concat(), &[])
}

/// The failures in a row that stopped the run, from `error: engine `NAME` kept failing: N ...`.
fn failures_in_a_row(out: &Output, engine: &str) -> u64 {
    let stderr = String::from_utf8_lossy(&out.stderr);
    let prefix = format!("error: engine `{engine}` kept failing: ");
    let line = stderr.lines().find_map(|l| l.strip_prefix(&prefix)).unwrap_or_else(|| panic!("{}", text(out)));
    assert!(line.contains(" failures in a row ("), "{line}");
    line.split_whitespace().next().and_then(|n| n.parse().ok()).unwrap_or_else(|| panic!("{line}"))
}

fn json_of(path: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).expect("the result is JSON")
}

/// Validates `file` against the committed schema with check-jsonschema.
fn check_schema(file: &Path) {
    let schema = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/ci/sprt.schema.json");
    let out =
        Command::new("check-jsonschema").arg("--schemafile").arg(&schema).arg(file).output().unwrap_or_else(|e| {
            panic!("check-jsonschema: {e}: install it (`pip install check-jsonschema`; .ci/run does)")
        });
    assert!(out.status.success(), "{} against the schema: {}", file.display(), text(&out));
}

#[test]
fn xqengine_against_a_weaker_params_file_is_h1_at_nodes_with_json_markdown_and_pgn() {
    let dir = tempfile::tempdir().expect("tempdir");
    let engine = xqengine();
    // Rooks and cannons worth a pawn: the base gives them away. Both evaluate with the HCE,
    // which ParamsFile weighs (xqengine's default evaluation is its network).
    let weak = dir.path().join("weak.toml");
    std::fs::write(&weak, "[material.rook]\nmg = 100\neg = 100\n\n[material.cannon]\nmg = 100\neg = 100\n")
        .expect("written");
    let (json, md, pgn, step) =
        (dir.path().join("r.json"), dir.path().join("r.md"), dir.path().join("g.pgn"), dir.path().join("step.md"));
    std::fs::write(&step, "earlier step\n").expect("written");
    let new = format!("new={}", engine.display());
    let base = format!("base={}", engine.display());
    let option = format!("base:ParamsFile={}", weak.display());
    let out = sprt(
        &[
            "--engine",
            &new,
            "--engine",
            &base,
            "--option",
            &option,
            "--option",
            "new:Hash=8",
            "--option",
            "new:Eval=hce",
            "--option",
            "base:Eval=hce",
            "--tc",
            "nodes=300",
            "--elo0",
            "0",
            "--elo1",
            "50",
            "--concurrency",
            "2",
            "--max-games",
            "400",
            "--json",
            json.to_str().expect("utf-8"),
            "--markdown",
            md.to_str().expect("utf-8"),
            "--pgn",
            pgn.to_str().expect("utf-8"),
            "--pgn-notation",
            "chinese",
        ],
        &[("GITHUB_STEP_SUMMARY", &step)],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("verdict: H1 accepted"), "{}", text(&out));
    check_schema(&json);
    let result = json_of(&json);
    assert_eq!(result["ending"], "h1");
    assert_eq!(result["exit_code"], 0);
    assert_eq!(result["candidate"]["name"], "new");
    assert!(result["candidate"]["id_name"].as_str().is_some_and(|n| n.starts_with("xqengine")), "{result}");
    let sha = result["base"]["sha256"].as_str().expect("sha256");
    assert_eq!(sha.len(), 64);
    let games = result["games"].as_u64().expect("games");
    let wdl = &result["wdl"];
    assert_eq!(
        wdl["wins"].as_u64().unwrap_or(0) + wdl["draws"].as_u64().unwrap_or(0) + wdl["losses"].as_u64().unwrap_or(0),
        games
    );
    assert!(result["elo"]["estimate"].as_f64().is_some_and(|e| e > 100.0), "{result}");
    assert!(result["sprt"]["llr"].as_f64().is_some_and(|l| l >= 2.94), "{result}");
    assert_eq!(result["failures"]["new"]["games"].as_u64(), Some(games));
    // Every game is in the PGN, players by name, in Chinese.
    let pgn = std::fs::read_to_string(&pgn).expect("the PGN");
    // Games in flight when the verdict came are recorded too, after the statistics froze.
    assert!(pgn.matches("[Event ").count() as u64 >= games, "one record a game, {games} at least");
    assert!(pgn.contains("[Red \"new\"]") && pgn.contains("[Black \"base\"]"), "{}", &pgn[..pgn.len().min(600)]);
    assert!(pgn.contains("[Format \"Chinese\"]"), "{}", &pgn[..pgn.len().min(600)]);
    let md = std::fs::read_to_string(&md).expect("markdown");
    assert!(md.starts_with("## SPRT: new vs base: H1 accepted"), "{md}");
    let step = std::fs::read_to_string(&step).expect("step summary");
    assert_eq!(step, format!("earlier step\n{md}"), "appended to $GITHUB_STEP_SUMMARY");
}

#[test]
fn a_crashing_engine_and_a_stalling_one_stop_the_run_with_exit_2_naming_them() {
    let dir = tempfile::tempdir().expect("tempdir");
    let crashy = script_engine(dir.path(), "crashy", "exit 3");
    let json = dir.path().join("r.json");
    let flag = format!("crashy={}", crashy.display());
    let out = sprt_json(&json, &["--engine", &flag, "--base", "default", "--tc", "nodes=200", "--concurrency", "2"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    // Games arrive in batches: the run stops at the first status with 10 or more in a row.
    let in_a_row = failures_in_a_row(&out, "crashy");
    assert!(in_a_row >= 10, "{}", text(&out));
    let expected = format!("{in_a_row} failures in a row ({in_a_row} crashed or broke the protocol)");
    assert!(String::from_utf8_lossy(&out.stderr).contains(&expected), "{}", text(&out));
    check_schema(&json);
    let result = json_of(&json);
    assert_eq!(result["ending"], "engine_failures");
    assert_eq!(result["exit_code"], 2);
    assert_eq!(result["failure_stop"]["engine"], "crashy");
    assert!(result["failures"]["crashy"]["engine_error"].as_u64().is_some_and(|n| n >= 10), "{result}");
    assert_eq!(result["failures"]["default"]["engine_error"], 0);

    // Stalls: the engine never answers `go`; at a move time the worker gives up on it after
    // the time and its grace, and the game is the staller's failure.
    let stall = script_engine(dir.path(), "staller", "sleep 1000");
    let flag = format!("staller={}", stall.display());
    let out = sprt(&["--engine", &flag, "--base", "default", "--tc", "movetime=20", "--concurrency", "4"], &[]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let in_a_row = failures_in_a_row(&out, "staller");
    assert!(in_a_row >= 10, "{}", text(&out));
    let expected = format!("{in_a_row} failures in a row ({in_a_row} hung)");
    assert!(String::from_utf8_lossy(&out.stderr).contains(&expected), "{}", text(&out));
}

#[test]
fn the_caps_end_without_a_verdict_with_exit_3() {
    let dir = tempfile::tempdir().expect("tempdir");
    let engine = format!("twin={}", xqengine().display());
    let json = dir.path().join("cap.json");
    let cap = ["--engine", &engine, "--base", "default", "--tc", "nodes=200", "--concurrency", "2", "--max-games", "4"];
    let out = sprt_json(&json, &cap);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("verdict: no verdict: the game cap was reached"),
        "{}",
        text(&out)
    );
    check_schema(&json);
    let result = json_of(&json);
    assert_eq!(result["ending"], "max_games");
    assert!(result["games"].as_u64().is_some_and(|g| g >= 4), "{result}");

    // A minute's fraction at a long move time: the deadline comes first.
    let out = sprt(
        &[
            "--engine",
            &engine,
            "--base",
            "default",
            "--tc",
            "movetime=2000",
            "--concurrency",
            "1",
            "--max-minutes",
            "0.05",
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(3), "{}", text(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("no verdict: --max-minutes passed"), "{}", text(&out));
}

#[test]
fn xqengine_against_fairy_stockfish_detects_its_protocol_and_counts_no_failure() {
    assert!(Path::new(FAIRY).is_file(), "{FAIRY} is missing: install Debian's fairy-stockfish (.ci/run does)");
    let dir = tempfile::tempdir().expect("tempdir");
    let json = dir.path().join("fsf.json");
    let (xq, fsf) = (format!("xq={}", xqengine().display()), format!("fsf={FAIRY}"));
    let out = sprt(
        &[
            "--engine",
            &xq,
            "--engine",
            &fsf,
            "--option",
            "fsf:Hash=16",
            "--option",
            "fsf:Threads=1",
            "--tc",
            "nodes=2000",
            "--concurrency",
            "2",
            "--max-games",
            "4",
            "--json",
            json.to_str().expect("utf-8"),
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(3), "{}", text(&out));
    check_schema(&json);
    let result = json_of(&json);
    assert!(result["base"]["id_name"].as_str().is_some_and(|n| n.starts_with("Fairy-Stockfish")), "{result}");
    for side in ["xq", "fsf"] {
        let f = &result["failures"][side];
        assert!(f["games"].as_u64().is_some_and(|g| g >= 4), "{result}");
        for kind in ["engine_error", "engine_hung", "time_forfeit", "illegal_move", "no_move"] {
            assert_eq!(f[kind], 0, "{side} {kind}: {result}");
        }
    }
}

#[test]
fn bad_engines_options_benches_and_openings_are_refused_by_name_before_any_game() {
    let dir = tempfile::tempdir().expect("tempdir");
    let quiet = script_engine(dir.path(), "quiet", "echo 'bestmove (none)'");
    let flag = format!("quiet={}", quiet.display());
    let refused = |args: &[&str], expected: &str| {
        let out = sprt(args, &[]);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", text(&out));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(expected), "{args:?}: expected `{expected}` in:\n{}", text(&out));
        assert!(!stderr.contains("run 1 created"), "{args:?}: refused before any run:\n{}", text(&out));
    };
    refused(&["--engine", "x=/no/such/engine", "--base", "default"], "engine `x` (/no/such/engine): no such file");
    let plain = dir.path().join("plain");
    std::fs::write(&plain, "not a program").expect("written");
    refused(&["--engine", &format!("p={}", plain.display()), "--base", "default"], "not executable");
    let mute = dir.path().join("mute");
    std::fs::write(&mute, "#!/bin/sh\nexec cat > /dev/null\n").expect("written");
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&mute, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    refused(
        &["--engine", &format!("mute={}", mute.display()), "--base", "default", "--protocol", "mute:uci"],
        "engine `mute`",
    );
    refused(&["--candidate", "engine:ghost", "--base", "default"], "--candidate `engine:ghost`: no such --engine");
    refused(&["--engine", &flag, "--base", "default", "--option", "quiet:Contempt=5"], "Contempt");
    refused(
        &["--engine", &flag, "--base", "default", "--option", "ghost:Hash=5"],
        "--option `ghost:Hash=5`: no --engine ghost",
    );
    refused(
        &["--engine", &flag, "--base", "default", "--bench", "quiet:99"],
        "bench` gives 4242: not the build expected",
    );
    let empty = dir.path().join("empty.epd");
    std::fs::write(&empty, "# nothing\nnot a fen\n").expect("written");
    refused(
        &["--engine", &flag, "--base", "default", "--openings", empty.to_str().expect("utf-8")],
        "no usable opening",
    );
    // More games at once than cores under a time control: warned, before anything else.
    let empty_path = empty.to_str().expect("utf-8");
    let many = ["--engine", &flag, "--base", "default", "--openings", empty_path, "--tc", "movetime=100"];
    refused(&[&many[..], &["--concurrency", "512"]].concat(), "warning: --concurrency 512 on ");
    refused(&["--candidate", "default", "--base", "default"], "both named `default`");
    // The right signature starts the run; an engine that answers with no move fails its games.
    let json = dir.path().join("quiet.json");
    let out = sprt(
        &[
            "--engine",
            &flag,
            "--base",
            "default",
            "--bench",
            "quiet:4242",
            "--tc",
            "nodes=100",
            "--max-games",
            "2",
            "--json",
            json.to_str().expect("utf-8"),
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(3), "{}", text(&out));
    assert!(String::from_utf8_lossy(&out.stderr).contains("bench of quiet: 4242, as expected"), "{}", text(&out));
    let result = json_of(&json);
    assert!(result["failures"]["quiet"]["no_move"].as_u64().is_some_and(|n| n >= 2), "{result}");
}
