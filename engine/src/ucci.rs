//! UCCI, ElephantEye's protocol, where it differs from UCI: the handshake, `setoption
//! <name> <value>`, `go time T increment I opptime O ...` (seconds unless `usemillisec`),
//! and scores in UCCI's units (centipawns; a mate as +-(10000 - plies), as ElephantEye).

use std::time::Duration;

use crate::search::{Limits, Score};
use crate::types::Color;
use crate::uci::UciSession;

/// UCCI's mate value.
const UCCI_MATE: i32 = 10_000;

pub(crate) fn handshake(session: &mut UciSession) {
    session.say(&format!("id name {}", session.name()));
    session.say("id copyright the xqfarm developers");
    session.say("id author the xqfarm developers");
    session.say("option usemillisec type check default false");
    session.say("option hashsize type spin min 1 max 65536 default 16");
    session.say("option paramsfile type string default <empty>");
    session.say("option tablebasepath type string default <empty>");
    session.say("option ownbook type check default false");
    session.say("option bookfile type string default <empty>");
    session.say("option evalfile type string default <empty>");
    session.say("option eval type combo default hce var hce var nnue");
    session.say("ucciok");
}

/// `setoption <name> <value>` (the value may be absent for buttons).
pub(crate) fn setoption(session: &mut UciSession, args: &[&str]) -> Result<(), String> {
    let Some((name, value)) = args.split_first() else {
        return Err("expected `setoption <name> <value>`".to_owned());
    };
    let value = value.join(" ");
    session.set_option(name, if value.is_empty() { None } else { Some(value.as_str()) })
}

/// Parses UCCI `go` arguments for the side to move.
pub(crate) fn parse_go(args: &[&str], side: Color, millis: bool) -> Result<Limits, String> {
    let mut limits = Limits::default();
    let unit = |n: u64| {
        if millis { Duration::from_millis(n) } else { Duration::from_secs(n) }
    };
    let (us, them) = (side.index(), (!side).index());
    let mut i = 0;
    while i < args.len() {
        let word = args[i];
        if matches!(word, "ponder" | "draw") {
            i += 1;
            continue;
        }
        if word == "infinite" {
            limits.infinite = true;
            i += 1;
            continue;
        }
        let text = args.get(i + 1).ok_or_else(|| format!("`go {word}` needs a number"))?;
        let n: u64 = text.parse().map_err(|_| format!("`go {word} {text}`: not a non-negative integer"))?;
        match word {
            "depth" => limits.depth = Some(n.min(1000) as u32),
            "nodes" => limits.nodes = Some(n),
            "time" => limits.time[us] = Some(unit(n)),
            "increment" => limits.inc[us] = unit(n),
            "opptime" => limits.time[them] = Some(unit(n)),
            "oppincrement" => limits.inc[them] = unit(n),
            "movestogo" => limits.movestogo = Some(n.min(10_000) as u32),
            "oppmovestogo" => {}
            other => return Err(format!("unknown `go` parameter `{other}`")),
        }
        i += 2;
    }
    Ok(limits)
}

/// A score in UCCI's units.
pub fn score(score: Score) -> i32 {
    match score {
        Score::Cp(cp) => cp.clamp(-(UCCI_MATE - 200), UCCI_MATE - 200),
        Score::Mate(n) if n > 0 => UCCI_MATE - (2 * n - 1),
        Score::Mate(n) => -(UCCI_MATE + 2 * n),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_times_in_seconds_or_milliseconds() {
        let l = parse_go(&["time", "60", "increment", "2", "opptime", "30"], Color::Black, false).expect("valid");
        assert_eq!(l.time[1], Some(Duration::from_secs(60)));
        assert_eq!(l.inc[1], Duration::from_secs(2));
        assert_eq!(l.time[0], Some(Duration::from_secs(30)));
        let l = parse_go(&["time", "1500"], Color::Red, true).expect("valid");
        assert_eq!(l.time[0], Some(Duration::from_millis(1500)));
        assert!(parse_go(&["time"], Color::Red, true).is_err());
        assert!(parse_go(&["depth", "x"], Color::Red, true).is_err());
        assert!(parse_go(&["sideways", "3"], Color::Red, true).is_err());
    }

    #[test]
    fn mate_scores_in_ucci_units() {
        assert_eq!(score(Score::Mate(1)), 9999);
        assert_eq!(score(Score::Mate(-1)), -9998);
        assert_eq!(score(Score::Cp(35)), 35);
    }
}
