//! The text protocols: UCI (Pikafish dialect) and UCCI (ElephantEye's), over the library
//! API. Parsing lives here and in `ucci.rs`; searching runs on a thread of its own so that
//! `stop` and `isready` are answered during a search. Every bad command, FEN, move or
//! option answers `info string error: <why>` and the loop goes on.

use std::io::{self, BufRead, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use crate::engine::Engine;
use crate::eval::Params;
use crate::notation::parse_uci;
use crate::perft;
use crate::position::Position;
use crate::search::{Info, Limits, Score, SearchResult};
use crate::types::Move;
use crate::ucci;

/// Engine name and version, as `id name` prints it unless the session is [`UciSession::named`]
/// (the `xqengine` binary adds its git commit: a build script in this crate would rebuild the
/// whole workspace on every commit).
pub const ENGINE_NAME: &str = concat!("xqengine ", env!("CARGO_PKG_VERSION"));

/// Where protocol output goes; shared with the search thread.
pub type SharedOut = Arc<Mutex<dyn Write + Send>>;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protocol {
    Uci,
    Ucci,
}

/// What the loop should do after a command.
#[derive(Debug, PartialEq, Eq)]
pub enum Flow {
    Continue,
    Quit,
}

/// One protocol session.
pub struct UciSession {
    engine: Option<Engine>,
    search: Option<JoinHandle<Engine>>,
    stop: Arc<AtomicBool>,
    out: SharedOut,
    protocol: Protocol,
    /// UCCI `usemillisec`: times in `go` are milliseconds rather than seconds.
    pub(crate) ucci_millis: bool,
    /// The running search waits for `stop` (`go infinite`).
    search_infinite: bool,
    /// What `id name` says.
    name: String,
    /// The network the session starts evaluating with and returns to when `EvalFile` is
    /// emptied (the one `xqengine` embeds); `None`: the HCE is the default.
    default_network: Option<Arc<crate::nnue::Network>>,
}

impl std::fmt::Debug for UciSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UciSession").field("protocol", &self.protocol).finish_non_exhaustive()
    }
}

pub(crate) fn say(out: &SharedOut, line: &str) {
    // A closed output (the GUI went away) is not an error worth stopping for: `quit` or end
    // of input follows.
    if let Ok(mut w) = out.lock() {
        let _ = writeln!(w, "{line}");
        let _ = w.flush();
    }
}

impl UciSession {
    pub fn new(out: SharedOut) -> UciSession {
        let engine = Engine::new();
        let stop = engine.stop_handle();
        UciSession {
            engine: Some(engine),
            search: None,
            stop,
            out,
            protocol: Protocol::Uci,
            ucci_millis: false,
            search_infinite: false,
            name: ENGINE_NAME.to_owned(),
            default_network: None,
        }
    }

    /// The session with a default network: it evaluates with `network` unless `Eval` says
    /// `hce`, and an empty `EvalFile` returns to it.
    pub fn with_default_network(mut self, network: Arc<crate::nnue::Network>) -> UciSession {
        self.default_network = Some(Arc::clone(&network));
        let engine = self.engine();
        engine.set_network(Some(Arc::clone(&network)));
        engine.set_eval(crate::EvalKind::Nnue(network));
        self
    }

    /// The session, answering `id name NAME`.
    pub fn named(mut self, name: impl Into<String>) -> UciSession {
        self.name = name.into();
        self
    }

    /// What `id name` says.
    pub(crate) fn name(&self) -> &str {
        &self.name
    }

    /// A session writing to stdout.
    pub fn stdout() -> UciSession {
        UciSession::new(Arc::new(Mutex::new(io::stdout())))
    }

    /// Reads commands until `quit` or end of input, then waits for a running search.
    pub fn run(&mut self, input: impl BufRead) -> io::Result<()> {
        for line in input.lines() {
            if self.handle(&line?) == Flow::Quit {
                return Ok(());
            }
        }
        // End of input: let a bounded search finish (its bestmove is expected), stop an
        // infinite one.
        self.finish_search();
        Ok(())
    }

    pub(crate) fn say(&self, line: &str) {
        say(&self.out, line);
    }

    /// The engine, once any running search has finished.
    pub(crate) fn engine(&mut self) -> &mut Engine {
        if let Some(handle) = self.search.take() {
            match handle.join() {
                Ok(engine) => self.engine = Some(engine),
                Err(_) => {
                    self.say("info string error: the search thread failed; the engine was reset");
                    let mut engine = Engine::new();
                    if let Some(network) = &self.default_network {
                        engine.set_network(Some(Arc::clone(network)));
                        engine.set_eval(crate::EvalKind::Nnue(Arc::clone(network)));
                    }
                    self.stop = engine.stop_handle();
                    self.engine = Some(engine);
                }
            }
        }
        self.engine.get_or_insert_with(Engine::new)
    }

    fn finish_search(&mut self) {
        if self.search_infinite {
            self.stop.store(true, Ordering::Relaxed);
        }
        self.engine();
    }

    fn stop_search(&mut self) {
        if self.search.is_some() {
            self.stop.store(true, Ordering::Relaxed);
            self.engine();
        }
    }

    /// Handles one command line.
    pub fn handle(&mut self, line: &str) -> Flow {
        let words: Vec<&str> = line.split_ascii_whitespace().collect();
        let Some((&cmd, rest)) = words.split_first() else {
            return Flow::Continue;
        };
        let result = match cmd {
            "uci" => {
                self.protocol = Protocol::Uci;
                self.cmd_uci();
                Ok(())
            }
            "ucci" => {
                self.protocol = Protocol::Ucci;
                ucci::handshake(self);
                Ok(())
            }
            "isready" => {
                self.say("readyok");
                Ok(())
            }
            "ucinewgame" => {
                let engine = self.engine();
                engine.new_game();
                engine.set_position(Position::startpos());
                Ok(())
            }
            "position" => self.cmd_position(rest),
            "banmoves" => self.cmd_banmoves(rest),
            "go" => self.cmd_go(rest),
            "stop" => {
                self.stop_search();
                Ok(())
            }
            "setoption" => match self.protocol {
                Protocol::Uci => self.cmd_setoption_uci(rest),
                Protocol::Ucci => ucci::setoption(self, rest),
            },
            "d" => {
                let text = self.engine().position().to_string();
                self.say(&text);
                Ok(())
            }
            "eval" => {
                let engine = self.engine();
                let (v, kind) = (engine.static_eval(), engine.eval_kind().name());
                self.say(&format!("info string static eval {v} cp (side to move, {kind})"));
                Ok(())
            }
            "quit" => {
                self.stop_search();
                if self.protocol == Protocol::Ucci {
                    self.say("bye");
                }
                return Flow::Quit;
            }
            other => Err(format!("unknown command `{other}`")),
        };
        if let Err(why) = result {
            self.say(&format!("info string error: {why}"));
        }
        Flow::Continue
    }

    fn cmd_uci(&mut self) {
        self.say(&format!("id name {}", self.name));
        self.say("id author the xqfarm developers");
        let engine = self.engine();
        let hash = engine.hash_mib();
        let overhead = engine.move_overhead().as_millis();
        let params = engine.params().clone();
        let search = engine.search_params().values();
        self.say(&format!("option name Hash type spin default {hash} min 1 max 65536"));
        self.say("option name Clear Hash type button");
        self.say("option name Threads type spin default 1 min 1 max 1");
        self.say(&format!("option name Move Overhead type spin default {overhead} min 0 max 5000"));
        self.say("option name ParamsFile type string default <empty>");
        self.say("option name TablebasePath type string default <empty>");
        self.say("option name OwnBook type check default false");
        self.say("option name BookFile type string default <empty>");
        // An empty EvalFile is the default network, where there is one.
        self.say("option name EvalFile type string default <empty>");
        let eval = if self.default_network.is_some() { "nnue" } else { "hce" };
        self.say(&format!("option name Eval type combo default {eval} var hce var nnue"));
        for (spec, value) in crate::search::SEARCH_PARAMS.iter().zip(search) {
            self.say(&format!(
                "option name {} type spin default {value} min {} max {}",
                spec.name(),
                spec.min,
                spec.max
            ));
        }
        for i in 0..params.len() {
            let spec = Params::spec(i);
            self.say(&format!(
                "option name {} type spin default {} min {} max {}",
                spec.name,
                params.get(i),
                spec.min,
                spec.max
            ));
        }
        self.say("uciok");
    }

    /// `position startpos|fen FEN [moves m1 m2 ...]`; on any error the position is unchanged.
    fn cmd_position(&mut self, args: &[&str]) -> Result<(), String> {
        let pos = parse_position_command(args)?;
        self.engine().set_position(pos);
        Ok(())
    }

    fn cmd_banmoves(&mut self, args: &[&str]) -> Result<(), String> {
        let engine = self.engine();
        let mut banned = Vec::with_capacity(args.len());
        for (i, text) in args.iter().enumerate() {
            let m = parse_uci(text).map_err(|e| format!("banmoves {i} `{text}`: {e}"))?;
            if !engine.position().is_legal_move(m) {
                return Err(format!("banmoves {i} `{text}` is not a legal move here"));
            }
            banned.push(m);
        }
        engine.set_banmoves(banned);
        Ok(())
    }

    fn cmd_setoption_uci(&mut self, args: &[&str]) -> Result<(), String> {
        let value_at = args.iter().position(|&w| w.eq_ignore_ascii_case("value"));
        let (name_words, value) = match (args.first(), value_at) {
            (Some(n), Some(v)) if n.eq_ignore_ascii_case("name") => (&args[1..v], Some(args[v + 1..].join(" "))),
            (Some(n), None) if n.eq_ignore_ascii_case("name") => (&args[1..], None),
            _ => return Err("expected `setoption name <name> [value <value>]`".to_owned()),
        };
        let name = name_words.join(" ");
        self.set_option(&name, value.as_deref())
    }

    /// Sets an option by name (shared by UCI and UCCI spellings).
    pub(crate) fn set_option(&mut self, name: &str, value: Option<&str>) -> Result<(), String> {
        fn need<'v>(name: &str, v: Option<&'v str>) -> Result<&'v str, String> {
            v.filter(|s| !s.is_empty()).ok_or_else(|| format!("option `{name}` needs a value"))
        }
        let int = |v: Option<&str>, min: i64, max: i64| -> Result<i64, String> {
            let text = need(name, v)?;
            let n: i64 = text.parse().map_err(|_| format!("option `{name}`: `{text}` is not an integer"))?;
            if !(min..=max).contains(&n) {
                return Err(format!("option `{name}`: {n} is outside {min}..={max}"));
            }
            Ok(n)
        };
        match name.to_ascii_lowercase().as_str() {
            "hash" | "hashsize" => {
                let mib = int(value, 1, 65536)?;
                self.engine().set_hash(mib as usize);
            }
            "clear hash" | "clearhash" => self.engine().clear_hash(),
            "threads" => {
                int(value, 1, 1)?;
            }
            "move overhead" | "moveoverhead" => {
                let ms = int(value, 0, 5000)?;
                self.engine().set_move_overhead(Duration::from_millis(ms as u64));
            }
            "ownbook" => {
                let on = match need(name, value)?.to_ascii_lowercase().as_str() {
                    "true" | "on" | "1" => true,
                    "false" | "off" | "0" => false,
                    other => return Err(format!("option `{name}`: `{other}` is not true or false")),
                };
                let book = self.engine().book().cloned();
                self.engine().set_book(book, on);
            }
            "bookfile" => {
                let book = match path_option(value) {
                    None => None,
                    Some(path) => {
                        Some(Arc::new(crate::book::Book::open(std::path::Path::new(path)).map_err(|e| e.to_string())?))
                    }
                };
                let on = self.engine().own_book();
                self.engine().set_book(book, on);
            }
            "tablebasepath" => {
                let tables = match path_option(value) {
                    None => None,
                    Some(path) => Some(Arc::new(crate::tablebase::Tablebases::open(path).map_err(|e| e.to_string())?)),
                };
                self.engine().set_tablebases(tables);
            }
            "evalfile" => {
                let network = match path_option(value) {
                    None => self.default_network.clone(),
                    Some(path) => Some(Arc::new(
                        crate::nnue::Network::load(std::path::Path::new(path)).map_err(|e| e.to_string())?,
                    )),
                };
                self.engine().set_network(network);
            }
            "eval" => match need(name, value)?.to_ascii_lowercase().as_str() {
                "hce" => self.engine().set_eval(crate::EvalKind::Hce),
                "nnue" => {
                    let Some(net) = self.engine().network().cloned() else {
                        return Err(format!(
                            "option `{name}`: nnue needs a network, and none is loaded (set EvalFile first); \
                             the evaluation stays {}",
                            self.engine().eval_kind().name()
                        ));
                    };
                    self.engine().set_eval(crate::EvalKind::Nnue(net));
                }
                other => return Err(format!("option `{name}`: `{other}` is not hce or nnue")),
            },
            "paramsfile" => {
                let path = need(name, value)?;
                let set = crate::ParamSet::from_toml_file(std::path::Path::new(path)).map_err(|e| e.to_string())?;
                self.engine().set_param_set(set);
            }
            "usemillisec" => {
                self.ucci_millis = match need(name, value)? {
                    "true" | "on" | "1" => true,
                    "false" | "off" | "0" => false,
                    other => {
                        return Err(format!("option `{name}`: `{other}` is not true or false"));
                    }
                };
            }
            lower if lower.starts_with(crate::search::params::PREFIX) => {
                let text = need(name, value)?;
                let v: i64 = text.parse().map_err(|_| format!("option `{name}`: `{text}` is not an integer"))?;
                self.engine().set_search_param(lower, v).map_err(|e| e.to_string())?;
            }
            _ => {
                let text = need(name, value)?;
                let Some(idx) = Params::index_of(name) else {
                    return Err(format!("unknown option `{name}`"));
                };
                let v: i32 = text.parse().map_err(|_| format!("option `{name}`: `{text}` is not an integer"))?;
                self.engine().params_mut().set_by_name(Params::spec(idx).name, v).map_err(|e| e.to_string())?;
            }
        }
        Ok(())
    }

    fn cmd_go(&mut self, args: &[&str]) -> Result<(), String> {
        if let ["perft", depth] = args {
            let depth: u32 = depth.parse().map_err(|_| format!("perft depth `{depth}` is not a number"))?;
            let mut pos = self.engine().position().clone();
            let mut buf = Vec::new();
            write_divide(&mut pos, depth, &mut buf).map_err(|e| e.to_string())?;
            let text = String::from_utf8_lossy(&buf);
            self.say(text.trim_end_matches('\n'));
            return Ok(());
        }
        let (limits, searchmoves) = match self.protocol {
            Protocol::Uci => parse_go_uci(args, self.engine().position())?,
            Protocol::Ucci => {
                (ucci::parse_go(args, self.engine().position().side_to_move(), self.ucci_millis)?, Vec::new())
            }
        };
        self.start_search(limits, searchmoves);
        Ok(())
    }

    fn start_search(&mut self, limits: Limits, searchmoves: Vec<Move>) {
        let mut engine = match self.engine.take() {
            Some(e) => e,
            None => {
                self.engine();
                match self.engine.take() {
                    Some(e) => e,
                    None => return,
                }
            }
        };
        if !searchmoves.is_empty() {
            let pos = engine.position();
            let banned = pos.legal_moves().iter().copied().filter(|m| !searchmoves.contains(m)).collect();
            engine.set_banmoves(banned);
        }
        let out = Arc::clone(&self.out);
        let protocol = self.protocol;
        self.search_infinite = limits.infinite;
        self.search = Some(std::thread::spawn(move || {
            let result = engine.go(&limits, |info| say(&out, &format_info(info, protocol)));
            if let Some(b) = result.book {
                let line = format!("info string book move {} games {} score {:.1}%", b.mv, b.games, 100.0 * b.score());
                say(&out, &line);
            }
            if let Some(v) = result.tablebase {
                say(
                    &out,
                    &format!(
                        "info string tablebase {}{} dtc {}",
                        v.wdl,
                        if v.by_rule { " by rule" } else { "" },
                        v.dtc
                    ),
                );
            }
            say(&out, &format_bestmove(&result, protocol));
            engine
        }));
    }
}

/// Parses `startpos|fen FEN [moves ...]` into a position with the moves played.
pub fn parse_position_command(args: &[&str]) -> Result<Position, String> {
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
    Ok(pos)
}

fn parse_go_uci(args: &[&str], pos: &Position) -> Result<(Limits, Vec<Move>), String> {
    let mut limits = Limits::default();
    let mut searchmoves = Vec::new();
    let mut i = 0;
    let number = |i: usize, what: &str| -> Result<u64, String> {
        let text = args.get(i + 1).ok_or_else(|| format!("`go {what}` needs a number"))?;
        text.parse().map_err(|_| format!("`go {what} {text}`: not a non-negative integer"))
    };
    while i < args.len() {
        let word = args[i];
        match word {
            "infinite" => limits.infinite = true,
            "ponder" => {}
            "searchmoves" => {
                i += 1;
                while i < args.len() {
                    let Ok(m) = parse_uci(args[i]) else { break };
                    if !pos.is_legal_move(m) {
                        return Err(format!("searchmoves `{}` is not a legal move here", args[i]));
                    }
                    searchmoves.push(m);
                    i += 1;
                }
                continue;
            }
            "depth" | "nodes" | "movetime" | "wtime" | "btime" | "winc" | "binc" | "movestogo" | "mate" => {
                let n = number(i, word)?;
                let ms = Duration::from_millis(n);
                match word {
                    "depth" => limits.depth = Some(n.min(1000) as u32),
                    "nodes" => limits.nodes = Some(n),
                    "movetime" => limits.movetime = Some(ms),
                    "wtime" => limits.time[0] = Some(ms),
                    "btime" => limits.time[1] = Some(ms),
                    "winc" => limits.inc[0] = ms,
                    "binc" => limits.inc[1] = ms,
                    "movestogo" => limits.movestogo = Some(n.min(10_000) as u32),
                    _ => limits.depth = Some((2 * n).min(1000) as u32),
                }
                i += 1;
            }
            other => return Err(format!("unknown `go` parameter `{other}`")),
        }
        i += 1;
    }
    Ok((limits, searchmoves))
}

/// A string option naming a file or directory: `None` when empty or `<empty>` (unset).
fn path_option(value: Option<&str>) -> Option<&str> {
    let path = value.unwrap_or("").trim();
    (!path.is_empty() && path != "<empty>").then_some(path)
}

/// Formats an iteration's progress line.
pub fn format_info(info: &Info, protocol: Protocol) -> String {
    let pv: Vec<String> = info.pv.iter().map(Move::to_string).collect();
    match protocol {
        Protocol::Uci => {
            let score = match info.score {
                Score::Cp(cp) => format!("cp {cp}"),
                Score::Mate(n) => format!("mate {n}"),
            };
            format!(
                "info depth {} seldepth {} score {score} nodes {} nps {} time {} hashfull {} pv {}",
                info.depth,
                info.seldepth,
                info.nodes,
                info.nps,
                info.time.as_millis(),
                info.hashfull,
                pv.join(" ")
            )
        }
        Protocol::Ucci => format!(
            "info depth {} score {} time {} nodes {} pv {}",
            info.depth,
            ucci::score(info.score),
            info.time.as_millis(),
            info.nodes,
            pv.join(" ")
        ),
    }
}

pub fn format_bestmove(result: &SearchResult, protocol: Protocol) -> String {
    match (result.best_move, protocol) {
        (Some(m), _) => match result.ponder {
            Some(p) => format!("bestmove {m} ponder {p}"),
            None => format!("bestmove {m}"),
        },
        (None, Protocol::Uci) => "bestmove (none)".to_owned(),
        (None, Protocol::Ucci) => "nobestmove".to_owned(),
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

/// An in-memory output for tests and embedding.
#[derive(Clone, Debug, Default)]
pub struct Captured(pub Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.lock().map_err(|_| io::Error::other("poisoned"))?.extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Captured {
    pub fn text(&self) -> String {
        self.0.lock().map(|b| String::from_utf8_lossy(&b).into_owned()).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(input: &str) -> String {
        let captured = Captured::default();
        let out: SharedOut = Arc::new(Mutex::new(captured.clone()));
        UciSession::new(out).run(input.as_bytes()).expect("in-memory io");
        captured.text()
    }

    #[test]
    fn handshake_and_perft() {
        let out = run("uci\nisready\nposition startpos moves h2e2\ngo perft 1\nquit\n");
        assert!(out.contains("uciok") && out.contains("readyok"));
        assert!(out.contains("h9g7: 1"));
        assert!(out.contains("Nodes searched: 45"), "{out}");
    }

    #[test]
    fn a_named_session_says_its_name_over_both_protocols() {
        for (input, ok) in [("uci\n", "uciok"), ("ucci\n", "ucciok")] {
            let captured = Captured::default();
            let out: SharedOut = Arc::new(Mutex::new(captured.clone()));
            UciSession::new(out).named("xqengine 9.9 abc").run(input.as_bytes()).expect("in-memory io");
            let text = captured.text();
            assert_eq!(text.lines().next(), Some("id name xqengine 9.9 abc"), "{text}");
            assert!(text.contains(ok), "{text}");
        }
        let plain = run("uci\n");
        assert_eq!(plain.lines().next(), Some(format!("id name xqengine {}", env!("CARGO_PKG_VERSION")).as_str()));
    }

    #[test]
    fn bad_input_keeps_the_loop_and_the_position() {
        let out = run(
            "position startpos moves h2e2\nposition fen xyz\nposition startpos moves h2e2 h2e2\nfoo\ngo perft x\nd\n",
        );
        assert_eq!(out.matches("info string error:").count(), 4, "{out}");
        assert!(out.contains("move 1 `h2e2`"), "{out}");
        assert!(out.contains("1C2C4"), "position after h2e2 kept: {out}");
    }

    #[test]
    fn go_depth_prints_info_and_bestmove() {
        let out = run("position startpos\ngo depth 4\n");
        assert!(out.contains("info depth 4 "), "{out}");
        let best = out.lines().find(|l| l.starts_with("bestmove ")).expect("a bestmove line");
        let m = best.split_whitespace().nth(1).expect("a move");
        let pos = Position::startpos();
        assert!(pos.is_legal_move(parse_uci(m).expect("uci move")), "{best}");
    }

    #[test]
    fn options_are_checked() {
        let out = run(
            "setoption name Hash value 0\nsetoption name Nope value 3\nsetoption name Hash value 8\nsetoption name material.rook.mg value abc\nisready\n",
        );
        assert_eq!(out.matches("info string error:").count(), 3, "{out}");
        assert!(out.contains("readyok"));
    }

    #[test]
    fn search_parameters_are_spin_options() {
        let out = run("uci\n");
        assert!(out.contains("option name search.rfp_margin type spin default 90 min 20 max 300"), "{out}");
        let out = run(
            "setoption name search.rfp_margin value 120\nsetoption name search.rfp_margin value 5000\nsetoption name search.nope value 1\nuci\n",
        );
        assert!(
            out.contains("info string error: search parameter `search.rfp_margin`: 5000 is outside its range 20..=300"),
            "{out}"
        );
        assert!(out.contains("info string error: search parameter `search.nope`: unknown"), "{out}");
        assert!(out.contains("option name search.rfp_margin type spin default 120 "), "{out}");
    }
}
