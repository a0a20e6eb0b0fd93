//! The result of an SPRT between two sides as machines and people read it: the JSON a CI job
//! parses (`xqfarm sprt --json`, its schema in `docs/ci/sprt.schema.json`) and the markdown
//! summary it shows (`--markdown`, `$GITHUB_STEP_SUMMARY`). Both are made from the run's last
//! status, the failures counted per engine and what each side is.

use std::collections::BTreeMap;

use proto::domain::{RunStatus, SprtSettings, TimeControl};
use serde::Serialize;

use crate::failures::{EngineFailures, FailureTally, kinds};

/// The version of the JSON's shape; a field's meaning never changes under one version.
pub const SCHEMA_VERSION: u32 = 1;

/// How an SPRT command ended, with its documented exit code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Ending {
    /// H1 accepted: exit 0.
    H1,
    /// H0 accepted: exit 1.
    H0,
    /// An engine failed too often (`failures::FailureTally::stop`): exit 2.
    EngineFailures,
    /// The game cap was reached without a verdict: exit 3.
    MaxGames,
    /// `--max-minutes` passed without a verdict: exit 3.
    MaxMinutes,
}

impl Ending {
    pub fn exit_code(self) -> u8 {
        match self {
            Ending::H1 => 0,
            Ending::H0 => 1,
            Ending::EngineFailures => 2,
            Ending::MaxGames | Ending::MaxMinutes => 3,
        }
    }

    /// The verdict's words, as the summary's first line says them.
    pub fn text(self) -> &'static str {
        match self {
            Ending::H1 => "H1 accepted (the candidate is better)",
            Ending::H0 => "H0 accepted (no gain shown)",
            Ending::EngineFailures => "stopped: an engine kept failing",
            Ending::MaxGames => "no verdict: the game cap was reached",
            Ending::MaxMinutes => "no verdict: --max-minutes passed",
        }
    }
}

/// One side of the SPRT as the result names it.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Side {
    /// The side's name in the games (an `--engine` name, a parameter file's stem).
    pub name: String,
    /// As given on the command line (`engine:new`, `tuned.toml`, `nnue:net.xqnn`).
    pub spec: String,
    /// The engine's `id name` (empty for our engine in process).
    pub id_name: String,
    /// The SHA-256 of the binary (an external engine) or of the file (a parameter or network
    /// file); empty for a built-in set (`default`).
    pub sha256: String,
}

/// An estimate with its 95% interval.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Interval {
    pub estimate: f64,
    pub lower: f64,
    pub upper: f64,
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct SprtBounds {
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
    /// `normalized` or `logistic`: the Elo model of `elo0` and `elo1`.
    pub model: &'static str,
    pub llr: f64,
    pub lower_bound: f64,
    pub upper_bound: f64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Wdl {
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
}

/// Everything `--json` writes.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SprtResult {
    pub schema_version: u32,
    /// `h1`, `h0`, `engine_failures`, `max_games` or `max_minutes`.
    pub ending: Ending,
    pub exit_code: u8,
    /// The engine whose failures stopped the run, and why (`ending` = `engine_failures`).
    pub failure_stop: Option<FailureStopText>,
    pub candidate: Side,
    pub base: Side,
    pub time_control: String,
    pub sprt: SprtBounds,
    /// Logistic Elo of the candidate over the base.
    pub elo: Interval,
    pub nelo: Interval,
    /// Likelihood of superiority of the candidate, 0..=1.
    pub los: f64,
    /// The candidate's view.
    pub wdl: Wdl,
    /// Pairs by the candidate's points over both games: 0, 0.5, 1, 1.5, 2.
    pub pentanomial: [u64; 5],
    pub games: u64,
    /// Per side name: its games and failures by kind.
    pub failures: BTreeMap<String, EngineFailures>,
    pub run_id: u64,
    pub minutes: f64,
    pub xqfarm_version: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FailureStopText {
    pub engine: String,
    pub reason: String,
}

/// What the result is made of besides the run's status.
#[derive(Debug)]
pub struct ResultInput<'a> {
    pub ending: Ending,
    pub failure_stop: Option<crate::failures::FailureStop>,
    pub candidate: Side,
    pub base: Side,
    pub tc: TimeControl,
    pub sprt: SprtSettings,
    pub failures: &'a FailureTally,
    pub minutes: f64,
    pub xqfarm_version: &'a str,
}

impl SprtResult {
    pub fn new(status: &RunStatus, input: ResultInput<'_>) -> SprtResult {
        let live = status.live.first().copied();
        let counts = live.map(|l| l.counts).unwrap_or_default();
        let sprt = input.sprt;
        let progress = live.and_then(|l| l.sprt);
        let finite = |x: f64| if x.is_finite() { x } else { 0.0 };
        let interval =
            |e: f64, lo: f64, hi: f64| Interval { estimate: finite(e), lower: finite(lo), upper: finite(hi) };
        let (elo, nelo, los) = match live {
            Some(l) if counts.games() > 0 => {
                (interval(l.elo, l.elo_lower, l.elo_upper), interval(l.nelo, l.nelo_lower, l.nelo_upper), finite(l.los))
            }
            _ => (interval(0.0, 0.0, 0.0), interval(0.0, 0.0, 0.0), 0.5),
        };
        let lower_bound = (sprt.beta / (1.0 - sprt.alpha)).ln();
        let upper_bound = ((1.0 - sprt.beta) / sprt.alpha).ln();
        SprtResult {
            schema_version: SCHEMA_VERSION,
            ending: input.ending,
            exit_code: input.ending.exit_code(),
            failure_stop: input.failure_stop.map(|s| FailureStopText { engine: s.engine, reason: s.reason }),
            candidate: input.candidate,
            base: input.base,
            time_control: input.tc.to_string(),
            sprt: SprtBounds {
                elo0: sprt.elo0,
                elo1: sprt.elo1,
                alpha: sprt.alpha,
                beta: sprt.beta,
                model: sprt.model.as_str(),
                llr: progress.map_or(0.0, |p| finite(p.llr)),
                lower_bound,
                upper_bound,
            },
            elo,
            nelo,
            los,
            wdl: Wdl { wins: counts.wins, draws: counts.draws, losses: counts.losses },
            pentanomial: counts.pentanomial,
            games: counts.games(),
            failures: input.failures.engines().clone(),
            run_id: status.run.id.get(),
            minutes: (input.minutes * 100.0).round() / 100.0,
            xqfarm_version: input.xqfarm_version.to_owned(),
        }
    }

    /// The JSON `--json` writes, pretty-printed.
    pub fn to_json(&self) -> String {
        // Every field is a plain number, string, list or map with string keys: it serialises.
        serde_json::to_string_pretty(self).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}")) + "\n"
    }

    /// A markdown summary for a CI job's page.
    pub fn to_markdown(&self) -> String {
        let mut md = format!("## SPRT: {} vs {}: {}\n\n", self.candidate.name, self.base.name, self.ending.text());
        if let Some(stop) = &self.failure_stop {
            md.push_str(&format!("**{}** {}.\n\n", stop.engine, stop.reason));
        }
        let s = &self.sprt;
        md.push_str("| | |\n|---|---|\n");
        md.push_str(&format!(
            "| Elo | {:+.1} ({:+.1} .. {:+.1}) |\n| nElo | {:+.1} ({:+.1} .. {:+.1}) |\n",
            self.elo.estimate, self.elo.lower, self.elo.upper, self.nelo.estimate, self.nelo.lower, self.nelo.upper
        ));
        md.push_str(&format!("| LOS | {:.1}% |\n", 100.0 * self.los));
        md.push_str(&format!(
            "| LLR | {:.2} ({:.2}, {:.2}) |\n| SPRT | [{}, {}] {} Elo, alpha {}, beta {} |\n",
            s.llr, s.lower_bound, s.upper_bound, s.elo0, s.elo1, s.model, s.alpha, s.beta
        ));
        md.push_str(&format!(
            "| games | {} (W {} D {} L {}, the candidate's view) |\n| pentanomial | {:?} |\n",
            self.games, self.wdl.wins, self.wdl.draws, self.wdl.losses, self.pentanomial
        ));
        md.push_str(&format!("| time control | {} |\n| minutes | {:.1} |\n\n", self.time_control, self.minutes));
        md.push_str("| side | name | id name | sha256 | games | failures |\n|---|---|---|---|---:|---|\n");
        for (role, side) in [("candidate", &self.candidate), ("base", &self.base)] {
            let f = self.failures.get(&side.name).cloned().unwrap_or_default();
            let sha = if side.sha256.is_empty() {
                "—".to_owned()
            } else {
                format!("`{}`", &side.sha256[..side.sha256.len().min(12)])
            };
            md.push_str(&format!(
                "| {role} | {} | {} | {sha} | {} | {} |\n",
                side.name,
                if side.id_name.is_empty() { "—" } else { &side.id_name },
                f.games,
                kinds(&f)
            ));
        }
        md.push_str(&format!("\nxqfarm {}, run {}.\n", self.xqfarm_version, self.run_id));
        md
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proto::domain::{EloModel, GameOutcome, LiveStats, PairingStats, Termination};

    fn status_with(counts: PairingStats, llr: f64) -> RunStatus {
        let spec = crate::sprt_spec(
            "new vs base".into(),
            SprtSettings::default(),
            "c".into(),
            "b".into(),
            TimeControl::Nodes(1000),
            proto::domain::SuiteId::new(1),
        );
        let run = proto::domain::Run {
            id: proto::domain::RunId::new(7),
            spec,
            state: proto::domain::RunState::SprtDone { h1: true },
            stats: vec![counts],
            created_unix_ms: 0,
            tablebases: Vec::new(),
        };
        let live = LiveStats {
            counts,
            elo: 50.0,
            elo_lower: 20.0,
            elo_upper: 80.0,
            nelo: 70.0,
            nelo_lower: 30.0,
            nelo_upper: 110.0,
            los: 0.999,
            sprt: Some(proto::domain::SprtProgress { llr, lower_bound: -2.94, upper_bound: 2.94 }),
        };
        RunStatus {
            run,
            live: vec![live],
            missing_engines: Vec::new(),
            exported_games: 0,
            spsa: Vec::new(),
            tournament: None,
        }
    }

    #[test]
    fn the_json_names_the_verdict_its_exit_code_and_each_engines_failures() {
        let counts = PairingStats { pentanomial: [0, 1, 2, 3, 4], wins: 12, draws: 5, losses: 3 };
        let mut failures = FailureTally::default();
        failures.record("new", "base", GameOutcome::RedWins, Termination::TimeForfeit);
        let result = SprtResult::new(
            &status_with(counts, 2.97),
            ResultInput {
                ending: Ending::H1,
                failure_stop: None,
                candidate: Side {
                    name: "new".into(),
                    spec: "engine:new".into(),
                    id_name: "X 2".into(),
                    sha256: "ab".repeat(32),
                },
                base: Side { name: "base".into(), spec: "engine:base".into(), ..Side::default() },
                tc: TimeControl::Nodes(1000),
                sprt: SprtSettings { model: EloModel::Normalized, ..SprtSettings::default() },
                failures: &failures,
                minutes: 1.234,
                xqfarm_version: "0.1.0 abc",
            },
        );
        let json: serde_json::Value = serde_json::from_str(&result.to_json()).expect("valid JSON");
        assert_eq!(json["schema_version"], 1);
        assert_eq!(json["ending"], "h1");
        assert_eq!(json["exit_code"], 0);
        assert_eq!(json["wdl"]["wins"], 12);
        assert_eq!(json["games"], 20);
        assert_eq!(json["pentanomial"][4], 4);
        assert_eq!(json["sprt"]["llr"], 2.97);
        assert_eq!(json["sprt"]["model"], "normalized");
        assert_eq!(json["failures"]["base"]["time_forfeit"], 1);
        assert_eq!(json["failures"]["new"]["games"], 1);
        assert_eq!(json["minutes"], 1.23);
        assert!(json["failures"]["base"].get("in_a_row").is_none(), "internal counter not written");
        let md = result.to_markdown();
        assert!(md.starts_with("## SPRT: new vs base: H1 accepted"), "{md}");
        assert!(md.contains("| base | base | — | — | 1 | 1 lost on time |"), "{md}");
        assert!(md.contains("| Elo | +50.0 (+20.0 .. +80.0) |"), "{md}");
        assert_eq!(
            [Ending::H1, Ending::H0, Ending::EngineFailures, Ending::MaxGames, Ending::MaxMinutes]
                .map(Ending::exit_code),
            [0, 1, 2, 3, 3]
        );
    }
}
