//! External engines as child processes, over UCI or UCCI, behind the same [`Player`] trait
//! as the in-process engine.
//!
//! ```no_run
//! use proto::domain::EngineProtocol;
//! use worker::external::{EngineCommand, ExternalConfig, ExternalEngine};
//! use worker::player::Player;
//!
//! let command = EngineCommand::new("xqengine", EngineProtocol::Uci).option("Hash", "16");
//! let mut engine = ExternalEngine::spawn("xq", command, ExternalConfig::default())?;
//! engine.new_game()?;
//! let reply = engine.play(&engine::Position::startpos(), &engine::Limits::depth(4))?;
//! assert!(reply.mv.is_some());
//! # Ok::<(), worker::Error>(())
//! ```
//!
//! Every read has a deadline: a reader thread forwards the child's stdout line by line over
//! a channel, so a silent engine is caught by a timeout instead of blocking the worker. The
//! child's stderr is kept in a small ring of its last lines for error messages.
//!
//! Failures are errors naming the engine (the game loop scores them as `engine_error`):
//! no `uciok`/`readyok` within the handshake timeout, no `bestmove` within the move's time
//! budget plus a grace (the child is killed), the child exiting (its exit status and last
//! stderr lines are quoted), or an unreadable `bestmove`. A legal-looking but illegal move is
//! not an error here: the game loop judges it and records `illegal_move`.
//!
//! The handshake collects the options the engine advertises (`option name Hash type spin
//! ...`); every option asked for is checked against them first, and one the engine did not
//! advertise, or a value its type does not admit, is refused as [`Error::EngineOption`] naming
//! it ([`options`]). An engine that advertises `UCI_Variant` (Fairy-Stockfish) is a variant
//! engine: over UCI it is set to `xiangqi` unless asked otherwise, and it writes ranks 1-10
//! there (`h3e3`), so the arbiter does too; over UCCI it plays xiangqi with ranks 0-9.
//!
//! Respawn: any error drops the child (killed and reaped), and the next `new_game` (or
//! `play`) starts a fresh one with a full handshake, so one crash costs one game, not the
//! rest of the batch. Dropping an `ExternalEngine` sends `quit`, waits briefly and kills and
//! reaps the child: no zombies.

pub mod options;
mod process;
mod protocol;

use std::sync::mpsc::RecvTimeoutError;
use std::time::{Duration, Instant};

use engine::notation::{parse_uci, parse_uci_one_based};
use engine::{Color, Limits, Position};
use proto::domain::EngineProtocol;

use crate::error::{Error, Result};
use crate::player::{Player, Reply};

use options::{AdvertisedOption, SpinRange, check_setting, find_option, parse_option_line};
use process::Process;
pub use protocol::{EngineLine, go_command, move_text, parse_line, position_command};

/// How to start an external engine: the path and arguments of an engine the worker was given
/// ([`crate::engines::EngineSet`]), the variant's protocol and options.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineCommand {
    pub command: String,
    pub args: Vec<String>,
    pub protocol: EngineProtocol,
    /// Sent after the handshake, in order; an empty value sets a button.
    pub options: Vec<(String, String)>,
}

impl EngineCommand {
    pub fn new(command: impl Into<String>, protocol: EngineProtocol) -> EngineCommand {
        EngineCommand { command: command.into(), args: Vec::new(), protocol, options: Vec::new() }
    }

    pub fn arg(mut self, arg: impl Into<String>) -> EngineCommand {
        self.args.push(arg.into());
        self
    }

    pub fn option(mut self, name: impl Into<String>, value: impl Into<String>) -> EngineCommand {
        self.options.push((name.into(), value.into()));
        self
    }
}

/// The worker's patience with external engines.
#[derive(Clone, Copy, Debug)]
pub struct ExternalConfig {
    /// For `uciok`/`ucciok`, and separately for each `readyok`.
    pub handshake_timeout: Duration,
    /// Added to a timed move's budget (movetime, or the mover's clock) before the engine
    /// counts as hung.
    pub move_grace: Duration,
    /// Also added, as a percentage of the budget (slow pipes, a loaded machine).
    pub move_grace_percent: u32,
    /// The whole allowance of a move with no time limit (nodes, depth).
    pub untimed_move_timeout: Duration,
    /// How long a dropped engine may take to obey `quit` before it is killed.
    pub quit_grace: Duration,
    /// The engine writes and reads ranks 1-10 (`h3e3`) instead of Pikafish's 0-9, whatever
    /// it advertises. (Fairy-Stockfish over UCI is recognised without it: it advertises
    /// `UCI_Variant`.)
    pub one_based_ranks: bool,
    /// How many of the last stderr lines to keep for error messages.
    pub stderr_lines: usize,
}

impl Default for ExternalConfig {
    fn default() -> ExternalConfig {
        ExternalConfig {
            handshake_timeout: Duration::from_secs(10),
            move_grace: Duration::from_secs(1),
            move_grace_percent: 50,
            untimed_move_timeout: Duration::from_secs(30),
            quit_grace: Duration::from_millis(250),
            one_based_ranks: false,
            stderr_lines: 20,
        }
    }
}

impl ExternalConfig {
    /// How long to wait for the `bestmove` of a search under `limits` by `side`.
    pub fn move_timeout(&self, limits: &Limits, side: Color) -> Duration {
        let budget = limits.movetime.or(limits.time[side.index()]);
        match budget {
            Some(budget) => budget + self.move_grace + budget * self.move_grace_percent / 100,
            None => self.untimed_move_timeout,
        }
    }
}

/// The option by which an engine says it plays many games (Fairy-Stockfish's).
const VARIANT_OPTION: &str = "UCI_Variant";

/// An engine in a child process, speaking UCI or UCCI.
pub struct ExternalEngine {
    name: String,
    command: EngineCommand,
    config: ExternalConfig,
    process: Option<Process>,
    /// What the engine calls itself (`id name`).
    id_name: Option<String>,
    /// The options of the last handshake, in the engine's order.
    advertised: Vec<AdvertisedOption>,
    /// Ranks 1-10 on the wire: configured, or a variant engine over UCI.
    one_based_ranks: bool,
}

impl std::fmt::Debug for ExternalEngine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ExternalEngine")
            .field("name", &self.name)
            .field("command", &self.command)
            .field("pid", &self.pid())
            .finish_non_exhaustive()
    }
}

impl ExternalEngine {
    /// Starts the engine and completes the handshake (options set, `readyok` seen).
    pub fn spawn(name: impl Into<String>, command: EngineCommand, config: ExternalConfig) -> Result<ExternalEngine> {
        let mut engine = ExternalEngine {
            name: name.into(),
            command,
            config,
            process: None,
            id_name: None,
            advertised: Vec::new(),
            one_based_ranks: config.one_based_ranks,
        };
        engine.start()?;
        Ok(engine)
    }

    /// The child's process id while it runs.
    pub fn pid(&self) -> Option<u32> {
        self.process.as_ref().map(|p| p.child.id())
    }

    /// The engine's `id name`, once a handshake has been seen.
    pub fn id_name(&self) -> Option<&str> {
        self.id_name.as_deref()
    }

    /// The options the engine advertised at its handshake.
    pub fn advertised_options(&self) -> &[AdvertisedOption] {
        &self.advertised
    }

    /// The range of the spin option `name`; an option the engine did not advertise as a spin
    /// option is refused, naming it.
    pub fn spin_range(&self, name: &str) -> Result<SpinRange> {
        options::spin_range(&self.advertised, name, self.command.protocol).map_err(|reason| Error::EngineOption {
            engine: self.name.clone(),
            option: name.to_owned(),
            reason,
        })
    }

    /// Whether moves go over the wire with ranks 1-10.
    pub fn one_based_ranks(&self) -> bool {
        self.one_based_ranks
    }

    fn error(&self, reason: String) -> Error {
        tracing::warn!(engine = %self.name, %reason, "external engine failed");
        Error::Engine { engine: self.name.clone(), reason }
    }

    fn start(&mut self) -> Result<()> {
        self.process = None;
        self.process = Some(Process::start(&self.command, &self.config, &self.name)?);
        let wait = self.config.handshake_timeout;
        let protocol = self.command.protocol;
        let (hello, ok) = match protocol {
            EngineProtocol::Uci => ("uci", "uciok"),
            EngineProtocol::Ucci => ("ucci", "ucciok"),
        };
        self.send(hello)?;
        let until = Instant::now() + wait;
        self.advertised.clear();
        loop {
            let line = self.next_line(until, wait, ok)?;
            if line == ok {
                break;
            }
            if let Some(id) = line.strip_prefix("id name ") {
                self.id_name = Some(id.trim().to_owned());
            } else if let Some(option) = parse_option_line(&line) {
                self.advertised.push(option);
            }
        }
        let setup = match self.setup_lines() {
            Ok(lines) => lines,
            Err(refusal) => {
                // Refused before any game: the child goes (quit, then killed and reaped).
                self.process = None;
                tracing::debug!(engine = %self.name, error = %refusal, "external engine option refused");
                return Err(refusal);
            }
        };
        for line in &setup {
            self.send(line)?;
        }
        self.sync()
    }

    /// The `setoption` lines after the handshake: each asked-for option checked against the
    /// advertised ones and sent under the engine's own spelling; a variant engine set to
    /// xiangqi.
    fn setup_lines(&mut self) -> Result<Vec<String>> {
        let protocol = self.command.protocol;
        let mut setup = Vec::new();
        if protocol == EngineProtocol::Ucci {
            setup.push("setoption usemillisec true".to_owned());
        }
        let set = |name: &str, value: &str| match (protocol, value.is_empty()) {
            (EngineProtocol::Uci, false) => format!("setoption name {name} value {value}"),
            (EngineProtocol::Uci, true) => format!("setoption name {name}"),
            (EngineProtocol::Ucci, false) => format!("setoption {name} {value}"),
            (EngineProtocol::Ucci, true) => format!("setoption {name}"),
        };
        let mut variant_set = false;
        for (name, value) in &self.command.options {
            let option = check_setting(&self.advertised, name, value, protocol)
                .map_err(|reason| Error::EngineOption { engine: self.name.clone(), option: name.clone(), reason })?;
            variant_set |= option.name.eq_ignore_ascii_case(VARIANT_OPTION);
            setup.push(set(&option.name, value));
        }
        let variant = find_option(&self.advertised, VARIANT_OPTION, protocol);
        if let Some(variant) = variant
            && !variant_set
            && protocol == EngineProtocol::Uci
            && variant.default.as_deref() != Some("xiangqi")
        {
            setup.push(set(&variant.name, "xiangqi"));
        }
        self.one_based_ranks = self.config.one_based_ranks || (variant.is_some() && protocol == EngineProtocol::Uci);
        Ok(setup)
    }

    /// `isready` -> `readyok`, skipping anything before it.
    fn sync(&mut self) -> Result<()> {
        self.send("isready")?;
        let wait = self.config.handshake_timeout;
        let until = Instant::now() + wait;
        while self.next_line(until, wait, "readyok")? != "readyok" {}
        Ok(())
    }

    /// The running process, started anew if an earlier error dropped it.
    fn running(&mut self) -> Result<&mut Process> {
        if self.process.is_none() {
            tracing::info!(engine = %self.name, "restarting external engine");
            self.start()?;
        }
        self.process
            .as_mut()
            .ok_or_else(|| Error::Engine { engine: self.name.clone(), reason: "not running".to_owned() })
    }

    fn send(&mut self, line: &str) -> Result<()> {
        tracing::trace!(engine = %self.name, %line, "engine <");
        let process = self.running()?;
        match process.write_line(line) {
            Ok(()) => Ok(()),
            Err(e) => Err(self.died(&format!("writing `{line}` ({e})"))),
        }
    }

    /// The next stdout line before `until`; a timeout kills the child.
    fn next_line(&mut self, until: Instant, allowed: Duration, waiting_for: &str) -> Result<String> {
        let process = self.process.as_mut().ok_or_else(|| Error::Engine {
            engine: self.name.clone(),
            reason: format!("not running while waiting for {waiting_for}"),
        })?;
        match process.lines.recv_timeout(until.saturating_duration_since(Instant::now())) {
            Ok(line) => Ok(line),
            Err(RecvTimeoutError::Timeout) => {
                process.kill();
                let tail = process.stderr_tail();
                self.process = None;
                let reason = format!("no {waiting_for} within {allowed:?}; killed{tail}");
                tracing::warn!(engine = %self.name, %reason, "external engine hung");
                Err(Error::EngineHung { engine: self.name.clone(), reason })
            }
            Err(RecvTimeoutError::Disconnected) => Err(self.died(&format!("waiting for {waiting_for}"))),
        }
    }

    /// The error for a child whose pipes broke: its exit status and last stderr lines. The
    /// process is dropped (reaped).
    fn died(&mut self, doing: &str) -> Error {
        let Some(mut process) = self.process.take() else {
            return self.error(format!("not running while {doing}"));
        };
        let status = process.exit_status();
        let tail = process.stderr_tail();
        self.error(format!("exited ({status}) while {doing}{tail}"))
    }

    /// Fails the current game and drops the child: the next game gets a fresh process.
    fn abandon(&mut self, reason: String) -> Error {
        if let Some(mut process) = self.process.take() {
            process.kill();
        }
        self.error(reason)
    }

    fn search(&mut self, pos: &Position, limits: &Limits) -> Result<Reply> {
        let protocol = self.command.protocol;
        // Whatever arrived since the last command (late info lines) is stale.
        let process = self.running()?;
        while process.lines.try_recv().is_ok() {}
        let one_based = self.one_based_ranks;
        self.send(&position_command(pos, one_based))?;
        self.send(&go_command(limits, pos.side_to_move(), protocol))?;
        let allowed = self.config.move_timeout(limits, pos.side_to_move());
        let until = Instant::now() + allowed;
        let mut reply = Reply { mv: None, score: None, nodes: 0 };
        loop {
            let line = self.next_line(until, allowed, "bestmove")?;
            match parse_line(&line, protocol) {
                EngineLine::Info { score, nodes } => {
                    reply.score = score.or(reply.score);
                    reply.nodes = nodes.unwrap_or(reply.nodes);
                }
                EngineLine::BestMove(None) => return Ok(reply),
                EngineLine::BestMove(Some(text)) => {
                    let parsed = if one_based { parse_uci_one_based(&text) } else { parse_uci(&text) };
                    return match parsed {
                        Ok(mv) => Ok(Reply { mv: Some(mv), ..reply }),
                        Err(why) => Err(self.abandon(format!("unreadable bestmove `{text}`: {why}"))),
                    };
                }
                EngineLine::Other => {}
            }
        }
    }
}

impl Player for ExternalEngine {
    fn name(&self) -> &str {
        &self.name
    }

    /// `ucinewgame` (UCI only; UCCI has none) and `isready`; restarts the child if an
    /// earlier error dropped it.
    fn new_game(&mut self) -> Result<()> {
        if self.process.is_none() {
            return self.running().map(|_| ());
        }
        if self.command.protocol == EngineProtocol::Uci {
            self.send("ucinewgame")?;
        }
        self.sync()
    }

    /// Sends the game from its start with the moves played (so the engine sees
    /// repetitions) and waits for `bestmove`.
    fn play(&mut self, pos: &Position, limits: &Limits) -> Result<Reply> {
        self.search(pos, limits)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn move_budgets() {
        let cfg = ExternalConfig::default();
        assert_eq!(cfg.move_timeout(&Limits::movetime(1000), Color::Red), Duration::from_millis(2500));
        assert_eq!(cfg.move_timeout(&Limits::depth(20), Color::Red), Duration::from_secs(30));
        let clock = Limits { time: [Some(Duration::from_secs(10)), Some(Duration::from_secs(2))], ..Limits::default() };
        assert_eq!(cfg.move_timeout(&clock, Color::Black), Duration::from_secs(4));
    }
}
