//! `xqfarm tournament create`: a tournament of N variants in rounds (round robin, Swiss,
//! knockout or random draw) on the embedded default or a remote coordinator, followed round
//! by round, ending with the standings (points by the Chinese rules, the tiebreaks and a
//! maximum-likelihood rating), the cross table or the bracket.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use campaign::{Farm as _, RemoteFarm};
use clap::{Args, Subcommand};
use coordinator::tournament::director::Tournament;
use proto::client::FarmClient;
use proto::domain::{
    Adjudication, EngineProtocol, RunKind, RunSpec, RunState, RunStatus, TimeControl, TournamentFormat,
    TournamentSettings, VariantKind, VariantSpec, parse_tiebreaks,
};

use crate::args::{load_params, name_of, opening_lines};
use crate::farm_target::FarmTarget;
use crate::progress::Progress;
use crate::sprt::summary;

mod text;

#[derive(Subcommand, Debug)]
pub enum TournamentCommand {
    /// Create a tournament and follow it to its standings.
    Create(TournamentArgs),
}

#[derive(Args, Debug, Clone)]
pub struct TournamentArgs {
    /// How rounds are paired.
    #[arg(long, value_enum)]
    pub format: TournamentFormat,
    /// Swiss and random: rounds (a Swiss at most N - 1); round robin: cycles (1 single,
    /// 2 double; default 1); knockout: none (the bracket decides).
    #[arg(long)]
    pub rounds: Option<u32>,
    /// The players, in seed order: parameter files, `default`, `material-only`, or
    /// `engine:NAME` for an external engine the workers were given as NAME (locally, give it
    /// with `--engine NAME=PATH`).
    #[arg(long, num_args = 1.., required = true)]
    pub variants: Vec<String>,
    /// Colour-swapped pairs per match, each on its own opening.
    #[arg(long, default_value_t = 1)]
    pub pairs_per_match: u64,
    /// Tiebreaks after points, in order, comma-separated (empty: none).
    #[arg(long, default_value = "buchholz,progressive,wins,head-to-head,sonneborn-berger")]
    pub tiebreaks: String,
    /// Knockout: extra pairs a tied match plays before its Armageddon game.
    #[arg(long, default_value_t = 2)]
    pub extra_pairs: u32,
    /// Random: the draw's seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Time control: nodes=N, depth=N, movetime=MS or BASE+INC seconds.
    #[arg(long, default_value = "nodes=20000")]
    pub tc: String,
    /// Tournament name (its PGN `[Event]`).
    #[arg(long)]
    pub name: Option<String>,
    /// Protocol of the `engine:NAME` players.
    #[arg(long, value_enum, default_value_t = EngineProtocol::Uci)]
    pub protocol: EngineProtocol,
    /// Options NAME=VALUE of the `engine:NAME` players.
    #[arg(long = "option", value_name = "NAME=VALUE", value_parser = proto::domain::parse_engine_option)]
    pub options: Vec<(String, String)>,
    /// Local external engines NAME=PATH (with --local).
    #[arg(long = "engine")]
    pub engines: Vec<String>,
    /// Openings: a suite file, an EPD/FEN file (`.epd`, `.fen`) or a PGN file (`.pgn`, its
    /// games' first 8 plies); the shipped default suite when absent.
    #[arg(long)]
    pub openings: Option<PathBuf>,
    /// Print the run id and return instead of following the tournament (remote only).
    #[arg(long, conflicts_with = "local")]
    pub detach: bool,
    #[command(flatten)]
    pub farm: FarmTarget,
}

impl TournamentArgs {
    /// The design asked for; bad input is named before anything starts.
    pub fn settings(&self) -> Result<TournamentSettings> {
        let rounds = match (self.format, self.rounds) {
            (TournamentFormat::RoundRobin, None) => 1,
            (TournamentFormat::Knockout, None) => 0,
            (TournamentFormat::Knockout, Some(r)) => {
                bail!("--rounds {r}: a knockout's rounds follow from its bracket; leave --rounds out")
            }
            (TournamentFormat::Swiss | TournamentFormat::Random, None) => {
                bail!("--format {}: give --rounds", self.format)
            }
            (_, Some(r)) => r,
        };
        let tiebreaks = parse_tiebreaks(&self.tiebreaks).with_context(|| format!("--tiebreaks {}", self.tiebreaks))?;
        let settings = TournamentSettings {
            format: self.format,
            rounds,
            pairs_per_match: self.pairs_per_match,
            tiebreaks,
            extra_pairs: self.extra_pairs,
            seed: self.seed,
        };
        if self.variants.len() < 2 {
            bail!("--variants: a tournament plays at least 2 variants, got {}", self.variants.len());
        }
        let mut seen = HashSet::new();
        for v in &self.variants {
            if !seen.insert(v.as_str()) {
                bail!("--variants: `{v}` is given twice");
            }
        }
        if self.pairs_per_match == 0 {
            bail!("--pairs-per-match 0: a match plays at least one pair");
        }
        settings.validate(self.variants.len()).map_err(in_flags)?;
        Ok(settings)
    }
}

/// A settings error in the command line's words: the field it names (`rounds`) becomes its
/// flag (`--rounds: ...`).
fn in_flags(error: proto::Error) -> anyhow::Error {
    match &error {
        proto::Error::InvalidField { field, reason } => match flag_of(field) {
            Some(flag) => anyhow::anyhow!("{flag}: {reason}"),
            None => error.into(),
        },
        _ => error.into(),
    }
}

/// The flag that sets a field of [`TournamentSettings`].
fn flag_of(field: &str) -> Option<&'static str> {
    match field {
        "rounds" => Some("--rounds"),
        "pairs_per_match" => Some("--pairs-per-match"),
        "tiebreaks" => Some("--tiebreaks"),
        "extra_pairs" => Some("--extra-pairs"),
        _ => None,
    }
}

/// The variant a `--variants` entry names.
fn variant_spec(entry: &str, protocol: EngineProtocol, options: &[(String, String)]) -> Result<VariantSpec> {
    if let Some(engine) = entry.strip_prefix("engine:") {
        proto::domain::check_engine_name(engine).map_err(|e| anyhow::anyhow!("--variants `{entry}`: {e}"))?;
        return Ok(VariantSpec {
            name: engine.to_owned(),
            kind: VariantKind::External { engine: engine.to_owned(), protocol, options: options.to_vec() },
        });
    }
    let set = load_params(entry).with_context(|| format!("--variants `{entry}`"))?;
    Ok(VariantSpec { name: name_of(entry), kind: VariantKind::Params { toml: set.to_toml() } })
}

/// `run show`'s tournament section: the draw, the rounds and the standings with ratings.
pub fn tournament_text(status: &RunStatus, names: &[String]) -> Option<String> {
    let t = Tournament::of_status(status)?;
    let ratings = t.ratings();
    Some(text::render(&t, names, Some(&ratings)))
}

pub async fn run(cmd: TournamentCommand) -> Result<()> {
    let TournamentCommand::Create(args) = cmd;
    let settings = args.settings()?;
    let tc: TimeControl = args.tc.parse().map_err(anyhow::Error::msg)?;
    let options = args.options.clone();
    let specs = args.variants.iter().map(|v| variant_spec(v, args.protocol, &options)).collect::<Result<Vec<_>>>()?;
    let names: Vec<String> = specs.iter().map(|s| s.name.clone()).collect();
    let openings = opening_lines(args.openings.as_deref())?;
    let name = args.name.clone().unwrap_or_else(|| format!("{} of {}", settings.format, names.join(", ")));
    let defs =
        args.engines.iter().map(|e| e.parse::<worker::engines::EngineDef>()).collect::<worker::Result<Vec<_>>>()?;
    let engines = if args.farm.local {
        tokio::task::spawn_blocking(move || {
            worker::engines::EngineSet::check(defs, worker::external::ExternalConfig::default())
        })
        .await??
    } else {
        worker::engines::EngineSet::empty()
    };

    let target = args.farm.open("xqfarm-tournament-", engines).await?;
    let result = async {
        let client = target.client(args.farm.ca_cert.as_deref()).await?;
        let mut ids = Vec::with_capacity(specs.len());
        for spec in &specs {
            let id = client.add_variant(spec.clone()).await?.id;
            if ids.contains(&id) {
                bail!("--variants: `{}` is the same variant as an earlier one (same parameters)", spec.name);
            }
            ids.push(id);
        }
        let farm = watching(&client, names.clone());
        let suite = farm.add_suite("tournament-openings", openings).await?;
        let spec = RunSpec {
            name: name.clone(),
            kind: RunKind::Tournament(settings.clone()),
            variants: ids,
            tc,
            openings: suite,
            adjudication: Adjudication::default(),
            bench_signature: None,
            sample_every: 8,
        };
        let run = farm.create_run(spec).await?;
        if args.detach {
            println!("{run}");
            return Ok(());
        }
        eprintln!(
            "run {run} created: {} tournament `{name}` of {} players, {} round(s), {} pair(s) a match at {tc}",
            settings.format,
            names.len(),
            settings.total_rounds(names.len()),
            settings.pairs_per_match
        );
        let status = farm.wait_finished(run, None).await?;
        print!("{}", summary(&status));
        if let Some(text) = tournament_text(&status, &names) {
            print!("{text}");
        }
        if status.run.state != RunState::Completed {
            bail!("tournament {run} ended {} before its last round", status.run.state.as_str());
        }
        if let Some(dir) = target.dir() {
            write_standings(dir, &status, &names)?;
        }
        Ok::<_, anyhow::Error>(())
    }
    .await;
    target.close().await;
    result
}

fn write_standings(dir: &Path, status: &RunStatus, names: &[String]) -> Result<()> {
    let path = dir.join("tournament.txt");
    let text = format!("{}{}", summary(status), tournament_text(status, names).unwrap_or_default());
    std::fs::write(&path, text).with_context(|| format!("writing {}", path.display()))?;
    eprintln!("standings written to {}", path.display());
    Ok(())
}

/// One progress line per status: the round and the games played.
fn watching(client: &FarmClient, names: Vec<String>) -> RemoteFarm {
    crate::sprt::watching_with(client, Progress::stderr(), move |status| {
        let t = Tournament::of_status(status)?;
        let games: u64 = status.run.stats.iter().map(|s| s.games()).sum();
        let leader = t.standings(u32::MAX).first().map(|s| (s.player, s.points));
        let lead = leader
            .map_or(String::new(), |(p, pts)| format!("  leader {} ({pts})", names.get(p).map_or("?", String::as_str)));
        Some(format!("round {}/{}  games {games}{lead}", t.round(), t.settings.total_rounds(t.players)))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_settings_error_names_the_flag_of_its_field() {
        let mut settings = TournamentSettings::new(TournamentFormat::Swiss, 4);
        let e = in_flags(settings.validate(4).expect_err("too many rounds")).to_string();
        assert!(e.starts_with("--rounds: a Swiss of 4 players plays 1 to 3 rounds"), "{e}");
        settings.rounds = 1;
        settings.pairs_per_match = 0;
        let e = in_flags(settings.validate(4).expect_err("no pairs")).to_string();
        assert!(e.starts_with("--pairs-per-match: must be positive"), "{e}");
    }
}
