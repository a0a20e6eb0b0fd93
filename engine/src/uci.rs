//! The UCI text loop: a thin layer that parses commands and calls the library.
//! Every bad command, FEN or move answers `info string error: <why>` and the loop goes on.

use std::io::{self, BufRead, Write};

use crate::notation::parse_uci;
use crate::perft;
use crate::position::Position;

/// Engine name and version as `id name` prints it.
pub const ENGINE_NAME: &str = concat!("xqengine ", env!("CARGO_PKG_VERSION"));

/// State of one UCI session.
#[derive(Debug, Default)]
pub struct UciSession {
    pos: Position,
}

/// What the loop should do after a command.
#[derive(Debug, PartialEq, Eq)]
pub enum Flow {
    Continue,
    Quit,
}

impl UciSession {
    pub fn new() -> UciSession {
        UciSession::default()
    }

    /// The current position.
    pub fn position(&self) -> &Position {
        &self.pos
    }

    /// Reads commands until `quit` or end of input.
    pub fn run(&mut self, input: impl BufRead, mut out: impl Write) -> io::Result<()> {
        for line in input.lines() {
            let line = line?;
            if self.handle(&line, &mut out)? == Flow::Quit {
                break;
            }
            out.flush()?;
        }
        out.flush()
    }

    /// Handles one command line.
    pub fn handle(&mut self, line: &str, out: &mut impl Write) -> io::Result<Flow> {
        let mut words = line.split_ascii_whitespace();
        let Some(cmd) = words.next() else { return Ok(Flow::Continue) };
        let rest: Vec<&str> = words.collect();
        let result = match cmd {
            "uci" => {
                writeln!(out, "id name {ENGINE_NAME}")?;
                writeln!(out, "id author the xqfarm developers")?;
                writeln!(out, "uciok")?;
                Ok(())
            }
            "isready" => {
                writeln!(out, "readyok")?;
                Ok(())
            }
            "ucinewgame" => {
                self.pos = Position::startpos();
                Ok(())
            }
            "position" => self.cmd_position(&rest),
            "go" => self.cmd_go(&rest, out),
            "d" => {
                writeln!(out, "{}", self.pos)?;
                Ok(())
            }
            "quit" => return Ok(Flow::Quit),
            other => Err(format!("unknown command `{other}`")),
        };
        if let Err(why) = result {
            writeln!(out, "info string error: {why}")?;
        }
        Ok(Flow::Continue)
    }

    /// `position startpos|fen FEN [moves m1 m2 ...]`; on any error the position is unchanged.
    fn cmd_position(&mut self, args: &[&str]) -> Result<(), String> {
        let moves_at = args.iter().position(|&w| w == "moves").unwrap_or(args.len());
        let (setup, moves) = (&args[..moves_at], args.get(moves_at + 1..).unwrap_or(&[]));
        let mut pos = match setup.first() {
            Some(&"startpos") if setup.len() == 1 => Position::startpos(),
            Some(&"fen") if setup.len() > 1 => {
                let fen = setup[1..].join(" ");
                Position::from_fen(&fen).map_err(|e| format!("invalid FEN `{fen}`: {e}"))?
            }
            _ => return Err("expected `position startpos|fen FEN [moves ...]`".to_owned()),
        };
        play_moves(&mut pos, moves)?;
        self.pos = pos;
        Ok(())
    }

    fn cmd_go(&mut self, args: &[&str], out: &mut impl Write) -> Result<(), String> {
        match args {
            ["perft", depth] => {
                let depth: u32 = depth.parse().map_err(|_| format!("perft depth `{depth}` is not a number"))?;
                write_divide(&mut self.pos, depth, out).map(|_| ()).map_err(|e| e.to_string())
            }
            _ => Err(format!("unsupported go command `go {}`", args.join(" "))),
        }
    }
}

/// Plays UCI moves in order; the error names the move and its index (0-based).
pub fn play_moves(pos: &mut Position, moves: &[&str]) -> Result<(), String> {
    for (i, text) in moves.iter().enumerate() {
        let m = parse_uci(text).map_err(|e| format!("move {i} `{text}`: {e}"))?;
        pos.try_play(m).map_err(|e| format!("move {i} `{text}`: {e}"))?;
    }
    Ok(())
}

/// Writes `move: count` per legal root move, a blank line and `Nodes searched: N`.
pub fn write_divide(pos: &mut Position, depth: u32, out: &mut impl Write) -> io::Result<u64> {
    let mut total = 0;
    if depth == 0 {
        total = 1;
    } else {
        for (m, n) in perft::divide(pos, depth) {
            writeln!(out, "{m}: {n}")?;
            total += n;
        }
    }
    writeln!(out)?;
    writeln!(out, "Nodes searched: {total}")?;
    Ok(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(input: &str) -> String {
        let mut out = Vec::new();
        UciSession::new().run(input.as_bytes(), &mut out).expect("in-memory io");
        String::from_utf8(out).expect("utf-8")
    }

    #[test]
    fn handshake_and_perft() {
        let out = run("uci\nisready\nposition startpos moves h2e2\ngo perft 1\nquit\n");
        assert!(out.contains("uciok") && out.contains("readyok"));
        assert!(out.contains("h9g7: 1"));
        assert!(out.trim_end().ends_with("Nodes searched: 44"));
    }

    #[test]
    fn bad_input_keeps_the_loop_and_the_position() {
        let out = run("position startpos moves h2e2\nposition fen xyz\nposition startpos moves h2e2 h2e2\nfoo\ngo perft x\nd\n");
        assert_eq!(out.matches("info string error:").count(), 4, "{out}");
        assert!(out.contains("move 1 `h2e2`"), "{out}");
        assert!(out.contains("1C2C4"), "position after h2e2 kept: {out}");
    }
}
