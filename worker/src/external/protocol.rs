//! The text of UCI and UCCI as the arbiter speaks it: the commands it sends (`position`,
//! `go`) and what it reads back (`info` scores and nodes, `bestmove`). Pure functions.

use engine::search::Score;
use engine::{Color, Limits, Move, Position};
use proto::domain::EngineProtocol;

use crate::player::score_cp;

/// UCCI's mate value (ElephantEye's): mates are +-(10000 - plies), plain scores stay
/// within +-(10000 - 200).
const UCCI_MATE: i32 = 10_000;

/// `position fen <start> moves ...`: the position's history undone back to where it was set
/// up (or as far as its history was kept), then replayed.
pub fn position_command(pos: &Position, one_based: bool) -> String {
    let mut start = pos.clone();
    let mut moves = Vec::with_capacity(pos.history().len());
    while let Some(mv) = start.undo() {
        if mv.is_null() {
            // Only search plays null moves; a game position never has one. Send the
            // position itself rather than an unplayable move list.
            return format!("position fen {}", pos.fen());
        }
        moves.push(mv);
    }
    let mut line = format!("position fen {}", start.fen());
    if !moves.is_empty() {
        line.push_str(" moves");
        for mv in moves.iter().rev() {
            line.push(' ');
            line.push_str(&move_text(*mv, one_based));
        }
    }
    line
}

/// A move in UCI coordinates, ranks 0-9 or 1-10.
pub fn move_text(mv: Move, one_based: bool) -> String {
    if !one_based {
        return mv.to_string();
    }
    let square = |sq: engine::Square| format!("{}{}", char::from(b'a' + sq.file() as u8), sq.rank() + 1);
    format!("{}{}", square(mv.from()), square(mv.to()))
}

/// The `go` command for `limits` with `side` to move. UCCI times are in milliseconds
/// (`usemillisec` is set at the handshake); UCCI has no `movetime`, so a fixed move time is
/// sent as the whole clock for one move (`time T movestogo 1`).
pub fn go_command(limits: &Limits, side: Color, protocol: EngineProtocol) -> String {
    let mut go = vec!["go".to_owned()];
    let mut add = |word: &str, value: u128| go.push(format!("{word} {value}"));
    if let Some(depth) = limits.depth {
        add("depth", depth.into());
    }
    if let Some(nodes) = limits.nodes {
        add("nodes", nodes.into());
    }
    let clock = limits.time.iter().any(Option::is_some);
    match protocol {
        EngineProtocol::Uci => {
            if let Some(t) = limits.movetime {
                add("movetime", t.as_millis());
            }
            if clock {
                for (word, t) in [("wtime", limits.time[0]), ("btime", limits.time[1])] {
                    if let Some(t) = t {
                        add(word, t.as_millis());
                    }
                }
                add("winc", limits.inc[0].as_millis());
                add("binc", limits.inc[1].as_millis());
            }
            if let Some(n) = limits.movestogo {
                add("movestogo", n.into());
            }
        }
        EngineProtocol::Ucci => {
            let (us, them) = (side.index(), (!side).index());
            if let Some(t) = limits.movetime {
                add("time", t.as_millis());
                add("movestogo", 1);
            } else if clock {
                if let Some(t) = limits.time[us] {
                    add("time", t.as_millis());
                }
                add("increment", limits.inc[us].as_millis());
                if let Some(t) = limits.time[them] {
                    add("opptime", t.as_millis());
                }
                add("oppincrement", limits.inc[them].as_millis());
                if let Some(n) = limits.movestogo {
                    add("movestogo", n.into());
                }
            }
        }
    }
    if limits.infinite {
        go.push("infinite".to_owned());
    }
    go.join(" ")
}

/// What a line from the engine means to the arbiter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EngineLine {
    /// A progress line; the score in centipawns from the engine's side with mates as
    /// +-(30000 - plies), as [`score_cp`].
    Info { score: Option<i32>, nodes: Option<u64> },
    /// The answer: a move's text, or none (`bestmove (none)`, `bestmove 0000`, UCCI's
    /// `nobestmove`).
    BestMove(Option<String>),
    /// Anything else (`id`, `option`, `info string`, noise).
    Other,
}

/// Reads one line. Unknown or malformed lines are [`EngineLine::Other`], never an error:
/// engines print banners and debug output.
pub fn parse_line(line: &str, protocol: EngineProtocol) -> EngineLine {
    let words: Vec<&str> = line.split_ascii_whitespace().collect();
    match words.as_slice() {
        ["nobestmove", ..] | ["bestmove"] => EngineLine::BestMove(None),
        ["bestmove", mv, ..] => {
            if matches!(*mv, "(none)" | "0000" | "none") {
                EngineLine::BestMove(None)
            } else {
                EngineLine::BestMove(Some((*mv).to_owned()))
            }
        }
        ["info", "string", ..] => EngineLine::Other,
        ["info", rest @ ..] => {
            let (mut score, mut nodes) = (None, None);
            let mut i = 0;
            while i < rest.len() {
                match rest[i] {
                    "score" => {
                        let (value, used) = parse_score(&rest[i + 1..], protocol);
                        score = value.or(score);
                        i += used;
                    }
                    "nodes" => {
                        nodes = rest.get(i + 1).and_then(|n| n.parse().ok()).or(nodes);
                        i += 1;
                    }
                    // The rest of the line is moves or free text.
                    "pv" | "string" => break,
                    _ => {}
                }
                i += 1;
            }
            EngineLine::Info { score, nodes }
        }
        _ => EngineLine::Other,
    }
}

/// Reads what follows `score`: UCI `cp X` / `mate N`; UCCI a bare number (mates near
/// +-10000). Returns the score and how many words it took.
fn parse_score(words: &[&str], protocol: EngineProtocol) -> (Option<i32>, usize) {
    let number = |i: usize| words.get(i).and_then(|w| w.parse::<i32>().ok());
    match words.first() {
        Some(&"cp") => (number(1), 2),
        Some(&"mate") => (number(1).map(|n| score_cp(Score::Mate(n))), 2),
        Some(_) if protocol == EngineProtocol::Ucci => {
            let ucci = number(0).map(|x| {
                if x.abs() > UCCI_MATE - 200 {
                    let plies = (UCCI_MATE - x.abs()).max(0);
                    x.signum() * (30_000 - plies)
                } else {
                    x
                }
            });
            (ucci, 1)
        }
        _ => (None, 0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::notation::parse_uci;
    use std::time::Duration;

    fn uci(text: &str) -> Move {
        parse_uci(text).expect("uci move")
    }

    #[test]
    fn the_position_command_replays_the_game_from_its_start() {
        let mut pos = Position::startpos();
        assert_eq!(position_command(&pos, false), format!("position fen {}", engine::START_FEN));
        for m in ["h2e2", "h9g7", "h0g2"] {
            pos.try_play(uci(m)).expect("legal");
        }
        assert_eq!(position_command(&pos, false), format!("position fen {} moves h2e2 h9g7 h0g2", engine::START_FEN));
        assert_eq!(position_command(&pos, true), format!("position fen {} moves h3e3 h10g8 h1g3", engine::START_FEN));
    }

    #[test]
    fn go_commands_per_protocol() {
        let red = Color::Red;
        assert_eq!(go_command(&Limits::depth(3), red, EngineProtocol::Uci), "go depth 3");
        assert_eq!(go_command(&Limits::nodes(5000), red, EngineProtocol::Ucci), "go nodes 5000");
        assert_eq!(go_command(&Limits::movetime(250), red, EngineProtocol::Uci), "go movetime 250");
        assert_eq!(go_command(&Limits::movetime(250), red, EngineProtocol::Ucci), "go time 250 movestogo 1");
        let ms = Duration::from_millis;
        let clock = Limits { time: [Some(ms(1000)), Some(ms(2000))], inc: [ms(10), ms(20)], ..Limits::default() };
        assert_eq!(go_command(&clock, red, EngineProtocol::Uci), "go wtime 1000 btime 2000 winc 10 binc 20");
        assert_eq!(
            go_command(&clock, Color::Black, EngineProtocol::Ucci),
            "go time 2000 increment 20 opptime 1000 oppincrement 10"
        );
    }

    #[test]
    fn info_and_bestmove_lines() {
        let uci_proto = EngineProtocol::Uci;
        assert_eq!(
            parse_line("info depth 5 seldepth 7 score cp -35 nodes 1234 nps 1 pv h2e2 h9g7", uci_proto),
            EngineLine::Info { score: Some(-35), nodes: Some(1234) }
        );
        assert_eq!(
            parse_line("info depth 9 score mate 2 pv a0a1", uci_proto),
            EngineLine::Info { score: Some(29_997), nodes: None }
        );
        assert_eq!(parse_line("info score mate -1", uci_proto), EngineLine::Info { score: Some(-29_998), nodes: None });
        assert_eq!(
            parse_line("info score cp 12 lowerbound nodes 9", uci_proto),
            EngineLine::Info { score: Some(12), nodes: Some(9) }
        );
        assert_eq!(parse_line("info string score cp 500", uci_proto), EngineLine::Other);
        assert_eq!(parse_line("info score cp what nodes x", uci_proto), EngineLine::Info { score: None, nodes: None });
        assert_eq!(parse_line("bestmove h2e2 ponder h9g7", uci_proto), EngineLine::BestMove(Some("h2e2".to_owned())));
        assert_eq!(parse_line("bestmove (none)", uci_proto), EngineLine::BestMove(None));
        assert_eq!(parse_line("bestmovex h2e2", uci_proto), EngineLine::Other);
        assert_eq!(parse_line("", uci_proto), EngineLine::Other);

        let ucci = EngineProtocol::Ucci;
        assert_eq!(
            parse_line("info depth 3 score 41 time 5 nodes 300 pv h2e2", ucci),
            EngineLine::Info { score: Some(41), nodes: Some(300) }
        );
        // ElephantEye's mate in one ply and mated in two plies.
        assert_eq!(parse_line("info depth 3 score 9999", ucci), EngineLine::Info { score: Some(29_999), nodes: None });
        assert_eq!(
            parse_line("info depth 3 score -9998", ucci),
            EngineLine::Info { score: Some(-29_998), nodes: None }
        );
        assert_eq!(parse_line("nobestmove", ucci), EngineLine::BestMove(None));
    }
}
