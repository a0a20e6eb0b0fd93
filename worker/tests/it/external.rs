//! External engines as child processes: our own xqengine over UCI and UCCI against the
//! in-process engine, and small Python fakes that misbehave in each way the worker must
//! survive.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use engine::eval::Params;
use engine::notation::parse_uci;
use engine::rules::GameResult;
use engine::{Limits, Position};
use proto::domain::EngineProtocol;
use worker::external::{EngineCommand, ExternalConfig, ExternalEngine};
use worker::game::{GameSettings, Termination, TimeControl, play_game};
use worker::player::{InProcess, Player};

/// The xqengine binary: `$XQENGINE`, or beside this test's target directory, built there if
/// missing (`cargo test --workspace` has built it already).
fn xqengine() -> &'static Path {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| {
        if let Some(path) = std::env::var_os("XQENGINE") {
            return PathBuf::from(path);
        }
        let exe = std::env::current_exe().expect("the test executable's path");
        // target/<profile>/deps/external-<hash>
        let profile_dir = exe.parent().and_then(Path::parent).expect("a target/<profile> directory");
        let binary = profile_dir.join(format!("xqengine{}", std::env::consts::EXE_SUFFIX));
        if !binary.is_file() {
            let mut cargo = Command::new(env!("CARGO"));
            cargo.current_dir(env!("CARGO_MANIFEST_DIR")).args(["build", "-p", "xqengine"]);
            if profile_dir.file_name().is_some_and(|n| n == "release") {
                cargo.arg("--release");
            }
            let status = cargo.status().expect("cargo runs");
            assert!(status.success(), "building xqengine: {status}");
            assert!(binary.is_file(), "{} after the build", binary.display());
        }
        binary
    })
}

fn quick() -> ExternalConfig {
    ExternalConfig {
        handshake_timeout: Duration::from_millis(1500),
        move_grace: Duration::from_millis(200),
        untimed_move_timeout: Duration::from_millis(1500),
        quit_grace: Duration::from_millis(100),
        ..ExternalConfig::default()
    }
}

fn is_running_or_zombie(pid: u32) -> bool {
    Path::new(&format!("/proc/{pid}")).exists()
}

/// A fake UCI engine: handshake and `isready` answered, `go` handled by `on_go` (Python,
/// indented by four spaces, with `say(line)` and `cmd` (the words) in scope). Every command
/// received is appended to `<name>.log` beside the script.
fn fake(dir: &Path, name: &str, on_go: &str) -> EngineCommand {
    fake_with(dir, name, "", on_go)
}

fn fake_with(dir: &Path, name: &str, on_uci: &str, on_go: &str) -> EngineCommand {
    let script = format!(
        r#"import sys, time, os
def say(line):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()
def on_go(cmd):
{on_go}
while True:
    line = sys.stdin.readline()
    if not line:
        break
    with open(os.path.join({dir:?}, "{name}.log"), "a") as f:
        f.write(line)
    cmd = line.split()
    if not cmd:
        continue
    if cmd[0] == "uci":
{on_uci}
        say("id name fake {name}")
        say("uciok")
    elif cmd[0] == "isready":
        say("readyok")
    elif cmd[0] == "go":
        on_go(cmd)
    elif cmd[0] == "quit":
        break
"#,
        dir = dir.display().to_string(),
        on_uci = if on_uci.is_empty() { "        pass".to_owned() } else { on_uci.to_owned() },
    );
    let path = dir.join(format!("{name}.py"));
    std::fs::write(&path, script).expect("write the fake engine");
    EngineCommand::new("python3", EngineProtocol::Uci).arg(path.display().to_string())
}

fn error_text<T: std::fmt::Debug>(r: worker::Result<T>) -> String {
    r.expect_err("an error").to_string()
}

#[test]
fn xqengine_plays_whole_games_over_uci_and_ucci() {
    for (protocol, external_is_red) in [(EngineProtocol::Uci, true), (EngineProtocol::Ucci, false)] {
        let command = EngineCommand::new(xqengine().display().to_string(), protocol).option("Hash", "4");
        let command = match protocol {
            EngineProtocol::Uci => command,
            // UCCI spells it its own way.
            EngineProtocol::Ucci => EngineCommand { options: vec![("hashsize".to_owned(), "4".to_owned())], ..command },
        };
        let mut external = ExternalEngine::spawn(format!("xq-{protocol:?}"), command, ExternalConfig::default())
            .expect("spawn xqengine");
        assert!(external.id_name().is_some_and(|n| n.starts_with("xqengine")), "{:?}", external.id_name());
        let mut inproc = InProcess::new("inproc", Params::default());
        let started = Instant::now();
        let players: [&mut dyn Player; 2] =
            if external_is_red { [&mut external, &mut inproc] } else { [&mut inproc, &mut external] };
        let game = play_game(players, &Position::startpos(), &GameSettings::new(TimeControl::Depth(3)));
        assert!(
            matches!(
                game.termination,
                Termination::Rules(_) | Termination::AdjudicatedResign | Termination::AdjudicatedDraw
            ),
            "{protocol:?}: {:?} {:?} after {} plies",
            game.termination,
            game.detail,
            game.moves.len()
        );
        assert_ne!(game.result, GameResult::Ongoing);
        // The external side's scores arrived.
        let first_external = usize::from(!external_is_red);
        assert!(
            game.scores.iter().skip(first_external).step_by(2).all(Option::is_some),
            "{protocol:?}: {:?}",
            game.scores
        );
        eprintln!("{protocol:?}: {} plies, {} in {:?}", game.moves.len(), game.termination.as_str(), started.elapsed());
    }
}

#[test]
fn xqengine_keeps_time_over_uci_movetime_and_ucci_clock() {
    let settings = |tc| GameSettings {
        max_plies: 24,
        adjudication: worker::adjudication::NO_ADJUDICATION,
        ..GameSettings::new(tc)
    };
    for (protocol, tc) in [
        (EngineProtocol::Uci, TimeControl::MoveTimeMs(50)),
        (EngineProtocol::Ucci, TimeControl::Clock { base_ms: 1000, inc_ms: 20 }),
    ] {
        let command = EngineCommand::new(xqengine().display().to_string(), protocol);
        let mut external = ExternalEngine::spawn("xq", command, ExternalConfig::default()).expect("spawn xqengine");
        let mut inproc = InProcess::new("inproc", Params::default());
        let started = Instant::now();
        let game = play_game([&mut inproc, &mut external], &Position::startpos(), &settings(tc));
        assert!(
            !matches!(
                game.termination,
                Termination::EngineError | Termination::TimeForfeit | Termination::IllegalMove | Termination::NoMove
            ),
            "{protocol:?} {tc}: {:?} {:?}",
            game.termination,
            game.detail
        );
        eprintln!(
            "{protocol:?} {tc}: {} plies, {} in {:?}",
            game.moves.len(),
            game.termination.as_str(),
            started.elapsed()
        );
    }
}

#[test]
fn a_silent_engine_fails_the_handshake() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("silent.py");
    std::fs::write(&path, "import time\ntime.sleep(60)\n").expect("write");
    let command = EngineCommand::new("python3", EngineProtocol::Uci).arg(path.display().to_string());
    let config = ExternalConfig { handshake_timeout: Duration::from_millis(300), ..quick() };
    let started = Instant::now();
    let err = error_text(ExternalEngine::spawn("silent", command, config));
    assert!(err.contains("engine `silent`") && err.contains("no uciok within 300ms"), "{err}");
    assert!(started.elapsed() < Duration::from_secs(2), "{:?}", started.elapsed());
}

#[test]
fn a_missing_command_is_an_error_naming_it() {
    let command = EngineCommand::new("/nonexistent/engine", EngineProtocol::Ucci);
    let err = error_text(ExternalEngine::spawn("ghost", command, quick()));
    assert!(err.contains("ghost") && err.contains("/nonexistent/engine"), "{err}");
}

#[test]
fn a_crash_names_the_exit_status_and_stderr_then_the_next_game_respawns() {
    let dir = tempfile::tempdir().expect("temp dir");
    let command = fake(
        dir.path(),
        "crasher",
        "    sys.stderr.write('assertion failed: board ok\\n')\n    sys.stderr.flush()\n    sys.exit(3)",
    );
    let mut engine = ExternalEngine::spawn("crasher", command, quick()).expect("handshake");
    let first = engine.pid().expect("running");
    engine.new_game().expect("new game");
    let err = error_text(engine.play(&Position::startpos(), &Limits::depth(3)));
    assert!(err.contains("engine `crasher`") && err.contains("exit status: 3"), "{err}");
    assert!(err.contains("assertion failed: board ok"), "{err}");
    assert_eq!(engine.pid(), None);
    assert!(!is_running_or_zombie(first), "the crashed child was reaped");
    engine.new_game().expect("a fresh process");
    assert!(engine.pid().is_some_and(|p| p != first));
}

#[test]
fn a_hung_search_is_killed() {
    let dir = tempfile::tempdir().expect("temp dir");
    let command = fake(dir.path(), "hang", "    time.sleep(60)");
    let config = ExternalConfig { untimed_move_timeout: Duration::from_millis(300), ..quick() };
    let mut engine = ExternalEngine::spawn("hang", command, config).expect("handshake");
    let pid = engine.pid().expect("running");
    let started = Instant::now();
    let err = error_text(engine.play(&Position::startpos(), &Limits::nodes(1000)));
    assert!(err.contains("engine `hang`") && err.contains("no bestmove within 300ms"), "{err}");
    assert!(started.elapsed() < Duration::from_secs(2), "{:?}", started.elapsed());
    assert!(!is_running_or_zombie(pid), "killed and reaped");

    // A timed move: budget + grace (200 ms) + 50 %.
    let started = Instant::now();
    let err = error_text(engine.play(&Position::startpos(), &Limits::movetime(100)));
    assert!(err.contains("no bestmove within 350ms"), "{err}");
    assert!(started.elapsed() < Duration::from_secs(2), "{:?}", started.elapsed());
}

#[test]
fn an_illegal_move_loses_the_game_with_the_move_named() {
    let dir = tempfile::tempdir().expect("temp dir");
    let command = fake(dir.path(), "cheat", "    say('info depth 1 score cp 10')\n    say('bestmove a0a9')");
    let mut cheat = ExternalEngine::spawn("cheat", command, quick()).expect("handshake");
    let mut inproc = InProcess::new("inproc", Params::default());
    let game = play_game([&mut cheat, &mut inproc], &Position::startpos(), &GameSettings::new(TimeControl::Depth(2)));
    assert_eq!(game.termination, Termination::IllegalMove);
    assert_eq!(game.termination.as_str(), "illegal_move");
    assert_eq!(game.result, GameResult::BlackWins);
    assert!(game.detail.as_deref().is_some_and(|d| d.contains("a0a9")), "{:?}", game.detail);
}

#[test]
fn garbage_around_the_answers_is_tolerated() {
    let dir = tempfile::tempdir().expect("temp dir");
    let on_uci = "        say('Fake Engine 1.0 by nobody, a banner before uciok')\n        say('option name Hash type spin default 16 min 1 max 1024')";
    let on_go = r#"    say("hello there")
    say("info string score cp 999 is not a score")
    say("info depth x score cp notanumber nodes many")
    say("bestmovex h0g2")
    say("   ")
    sys.stdout.buffer.write(b"\xff\xfe\x00 not utf-8\n")
    say("y" * 200000)
    say("info depth 1 score cp 42 nodes 7 pv h2e2")
    say("info currmove h2e2 currmovenumber 1")
    say("bestmove h2e2 ponder h9g7")"#;
    let command = fake_with(dir.path(), "noisy", on_uci, on_go);
    let mut engine = ExternalEngine::spawn("noisy", command, quick()).expect("handshake through the noise");
    engine.new_game().expect("new game");
    let reply = engine.play(&Position::startpos(), &Limits::depth(1)).expect("a move");
    assert_eq!(reply.mv, Some(parse_uci("h2e2").expect("uci")));
    assert_eq!(reply.score, Some(42));
    assert_eq!(reply.nodes, 7);
    // Still in step for the next move.
    let reply = engine.play(&Position::startpos(), &Limits::depth(1)).expect("a second move");
    assert_eq!(reply.mv, Some(parse_uci("h2e2").expect("uci")));
}

#[test]
fn the_engine_sees_the_game_from_its_start() {
    let dir = tempfile::tempdir().expect("temp dir");
    let command = fake(dir.path(), "logger", "    say('bestmove h0g2')");
    let mut engine = ExternalEngine::spawn("logger", command, quick()).expect("handshake");
    engine.new_game().expect("new game");
    let mut pos = Position::startpos();
    for m in ["h2e2", "h9g7"] {
        pos.try_play(parse_uci(m).expect("uci")).expect("legal");
    }
    let ms = Duration::from_millis;
    let clock = Limits { time: [Some(ms(1000)), Some(ms(2000))], inc: [ms(10), ms(10)], ..Limits::default() };
    let reply = engine.play(&pos, &clock).expect("a move");
    assert_eq!(reply.mv, Some(parse_uci("h0g2").expect("uci")));
    let pid = engine.pid().expect("running");
    drop(engine);
    assert!(!is_running_or_zombie(pid), "dropped engines are reaped");
    let log = std::fs::read_to_string(dir.path().join("logger.log")).expect("the fake's log");
    let lines: Vec<&str> = log.lines().collect();
    assert_eq!(lines[..2], ["uci", "isready"]);
    let position = format!("position fen {} moves h2e2 h9g7", engine::START_FEN);
    assert!(lines.contains(&"ucinewgame"), "{log}");
    assert!(lines.contains(&position.as_str()), "{log}");
    assert!(lines.contains(&"go wtime 1000 btime 2000 winc 10 binc 10"), "{log}");
    assert_eq!(lines.last(), Some(&"quit"), "{log}");
}

#[test]
fn one_based_ranks_only_when_configured() {
    let dir = tempfile::tempdir().expect("temp dir");
    let command = fake(dir.path(), "fairy", "    say('bestmove h3e3')");
    let config = ExternalConfig { one_based_ranks: true, ..quick() };
    let mut engine = ExternalEngine::spawn("fairy", command.clone(), config).expect("handshake");
    let reply = engine.play(&Position::startpos(), &Limits::depth(1)).expect("a move");
    assert_eq!(reply.mv, Some(parse_uci("h2e2").expect("uci")));
    // By default the same text is Pikafish's h3e3: a legal-looking move the arbiter judges.
    let mut engine = ExternalEngine::spawn("fairy", command, quick()).expect("handshake");
    let reply = engine.play(&Position::startpos(), &Limits::depth(1)).expect("a move");
    assert_eq!(reply.mv, Some(parse_uci("h3e3").expect("uci")));
}

#[test]
fn a_crash_costs_one_game_not_the_batch() {
    let dir = tempfile::tempdir().expect("temp dir");
    // Crashes on its first search ever; afterwards it cheats (a move the arbiter rejects),
    // which shows a fresh process answered.
    let marker = dir.path().join("crashed-once");
    let on_go = format!(
        "    if not os.path.exists({m:?}):\n        open({m:?}, 'w').close()\n        os._exit(9)\n    say('bestmove a0a9')",
        m = marker.display().to_string()
    );
    let command = fake(dir.path(), "flaky", &on_go);
    let mut flaky = ExternalEngine::spawn("flaky", command, quick()).expect("handshake");
    let mut inproc = InProcess::new("inproc", Params::default());
    let settings = GameSettings::new(TimeControl::Depth(2));
    let first = play_game([&mut flaky, &mut inproc], &Position::startpos(), &settings);
    assert_eq!(first.termination, Termination::EngineError, "{:?}", first.detail);
    assert_eq!(first.termination.as_str(), "engine_error");
    let detail = first.detail.unwrap_or_default();
    assert!(detail.contains("flaky") && detail.contains("exit status: 9"), "{detail}");
    let second = play_game([&mut flaky, &mut inproc], &Position::startpos(), &settings);
    assert_eq!(second.termination, Termination::IllegalMove, "{:?}", second.detail);
}
