//! The real Fairy-Stockfish (`/usr/games/fairy-stockfish`, Debian's `fairy-stockfish` 11.1;
//! `.ci/run` installs it) as an external engine, over both of its xiangqi protocols:
//!
//! - UCI: the arbiter recognises a variant engine (it advertises `UCI_Variant`), sets it to
//!   xiangqi and speaks ranks 1-10; UCCI: xiangqi and ranks 0-9 as they are;
//! - `go nodes N` is a node limit it honours in both;
//! - a clock reaches it in milliseconds in both (in seconds it would lose on time);
//! - an option it did not advertise, or a spin value outside its range, is refused at the
//!   handshake, naming the option, and the child is gone.

use std::path::Path;

use engine::rules::GameResult;
use engine::{Limits, Position};
use proto::domain::EngineProtocol;
use worker::Error;
use worker::external::{EngineCommand, ExternalConfig, ExternalEngine};
use worker::game::{GameSettings, TimeControl, play_game};
use worker::player::{InProcess, Player};

const FAIRY: &str = "/usr/games/fairy-stockfish";

fn fairy(protocol: EngineProtocol) -> EngineCommand {
    assert!(
        Path::new(FAIRY).is_file(),
        "{FAIRY} is missing: install Debian's fairy-stockfish (`apt-get install fairy-stockfish`; .ci/run does)"
    );
    EngineCommand::new(FAIRY, protocol).option("Hash", "16").option("Threads", "1")
}

fn spawn(command: EngineCommand) -> worker::Result<ExternalEngine> {
    ExternalEngine::spawn("fsf", command, ExternalConfig::default())
}

#[test]
fn both_protocols_play_xiangqi_and_honour_a_node_limit() {
    for (protocol, one_based) in [(EngineProtocol::Uci, true), (EngineProtocol::Ucci, false)] {
        let mut fsf = spawn(fairy(protocol)).unwrap_or_else(|e| panic!("{protocol}: {e}"));
        assert!(fsf.id_name().is_some_and(|n| n.starts_with("Fairy-Stockfish")), "{:?}", fsf.id_name());
        assert_eq!(fsf.one_based_ranks(), one_based, "{protocol}");
        fsf.new_game().expect("new game");
        // Not the start position: a move read with the wrong rank base would be illegal here.
        let mut pos = Position::startpos();
        for text in ["h2e2", "h9g7", "h0g2", "i9h9"] {
            pos.try_play(engine::notation::parse_uci(text).expect("a move")).expect("legal");
        }
        for nodes in [5_000u64, 20_000] {
            let reply = fsf.play(&pos, &Limits::nodes(nodes)).unwrap_or_else(|e| panic!("{protocol}: {e}"));
            let mv = reply.mv.expect("a move");
            assert_eq!(pos.illegal_reason(mv), None, "{protocol}: {mv}");
            // Stockfish checks the limit every few nodes: it stops just past it.
            assert!(
                (nodes..=nodes + nodes / 20).contains(&reply.nodes),
                "{protocol}: {} nodes searched at `go nodes {nodes}`",
                reply.nodes
            );
        }
    }
}

#[test]
fn a_clock_reaches_it_in_milliseconds_over_both_protocols() {
    // 1.5 s + 0.05 s: read as seconds, the engine would think for minutes and lose on time.
    let tc = TimeControl::Clock { base_ms: 1_500, inc_ms: 50 };
    let settings =
        GameSettings { max_plies: 40, adjudication: proto::domain::NO_ADJUDICATION, ..GameSettings::new(tc) };
    for protocol in [EngineProtocol::Uci, EngineProtocol::Ucci] {
        let mut fsf = spawn(fairy(protocol)).expect("starts");
        let mut ours = InProcess::with_hash("ours", engine::ParamSet::default(), 16);
        let game = play_game([&mut fsf, &mut ours], &Position::startpos(), &settings);
        assert!(!game.termination.is_forfeit(), "{protocol}: {:?} {:?}", game.termination, game.detail);
        assert_ne!(game.result, GameResult::Ongoing, "{protocol}");
    }
}

#[test]
fn options_it_did_not_advertise_are_refused_naming_them() {
    for (protocol, name, value, why) in [
        (EngineProtocol::Uci, "Hashh", "16", "did not advertise it"),
        (EngineProtocol::Uci, "Hash", "0", "0 is outside its range 1..=131072"),
        (EngineProtocol::Uci, "Threads", "one", "not an integer"),
        (EngineProtocol::Uci, "UCI_Variant", "shogi", "xiangqi only"),
        // ElephantEye's name for the hash is not Fairy-Stockfish's.
        (EngineProtocol::Ucci, "hashsize", "16", "did not advertise it"),
    ] {
        let error = spawn(fairy(protocol).option(name, value)).expect_err(name);
        let text = error.to_string();
        assert!(matches!(&error, Error::EngineOption { option, .. } if option == name), "{protocol}: {error:?}");
        assert!(text.contains(&format!("engine `fsf`: option `{name}`")) && text.contains(why), "{protocol}: {text}");
    }
    // Its own spelling in each protocol is accepted; only spin options have a range to tune.
    let uci = spawn(fairy(EngineProtocol::Uci).option("Move Overhead", "30")).expect("a spin option");
    let range = uci.spin_range("Move Overhead").expect("a spin");
    assert_eq!((range.default, range.min, range.max), (Some(30), Some(0), Some(5000)));
    let error = uci.spin_range("Ponder").expect_err("a check").to_string();
    assert!(error.contains("option `Ponder`: it is a check option, not a spin option"), "{error}");
    let error = uci.spin_range("Contempt Factor").expect_err("absent").to_string();
    assert!(error.contains("option `Contempt Factor`: the engine did not advertise it"), "{error}");
    spawn(fairy(EngineProtocol::Ucci).option("Move_Overhead", "30")).expect("UCCI's spelling");
}
