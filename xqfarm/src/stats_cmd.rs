//! `xqfarm stats`: the SPRT calculator engine developers know from Fishtest. Pentanomial
//! counts in; games, score, Elo and nElo with 95% intervals, LOS, and the LLR with its bounds
//! and verdict out, one `name: value` line each. The statistics live in `analysis::stats`.

use analysis::stats::{self, EloModel, Hypothesis, Outcomes, Pentanomial, SprtSettings};
use anyhow::{Context, Result};
use clap::Args;

#[derive(Args, Debug)]
pub struct StatsArgs {
    /// Pentanomial counts: game pairs scoring 0, 0.5, 1, 1.5 and 2 points for the candidate
    /// (Fishtest's Ptnml(0-2)), e.g. 10789,19328,33806,19402,10543.
    #[arg(long, value_name = "N0,N1,N2,N3,N4", value_parser = parse_ptnml)]
    pub ptnml: Pentanomial,
    /// SPRT bound of H0, in the Elo of --model.
    #[arg(long, default_value_t = 0.0, allow_negative_numbers = true)]
    pub elo0: f64,
    /// SPRT bound of H1, in the Elo of --model.
    #[arg(long, default_value_t = 5.0, allow_negative_numbers = true)]
    pub elo1: f64,
    /// Largest false positive rate (accepting H1 at elo0).
    #[arg(long, default_value_t = 0.05)]
    pub alpha: f64,
    /// Largest false negative rate (accepting H0 at elo1).
    #[arg(long, default_value_t = 0.05)]
    pub beta: f64,
    /// Elo model of the bounds: normalized Elo (Fishtest's default) or logistic Elo.
    #[arg(long, value_enum, default_value_t = EloModel::Normalized)]
    pub model: EloModel,
}

/// Reads `--ptnml`: five comma-separated counts; the error names the input.
fn parse_ptnml(input: &str) -> Result<Pentanomial, String> {
    input.parse::<Pentanomial>().map_err(|e| e.to_string())
}

pub fn run(args: &StatsArgs) -> Result<()> {
    print!("{}", report(args)?);
    Ok(())
}

/// The report `run` prints.
fn report(args: &StatsArgs) -> Result<String> {
    let p = &args.ptnml;
    let params =
        SprtSettings { elo0: args.elo0, elo1: args.elo1, alpha: args.alpha, beta: args.beta, model: args.model };
    let sprt = stats::sprt(p, &params).with_context(|| format!("SPRT of pentanomial [{p}]"))?;
    let elo = stats::elo_estimate(p);
    let nelo = stats::nelo_estimate(p);
    let verdict = match sprt.verdict {
        Some(Hypothesis::H1) => "H1 accepted",
        Some(Hypothesis::H0) => "H0 accepted",
        None => "none yet (keep playing)",
    };
    let lines = [
        ("games", p.games().to_string()),
        ("pairs", p.pairs().to_string()),
        ("ptnml", format!("[{p}]")),
        ("score", format!("{:.5}", elo.score)),
        ("elo", format!("{:.2} +- {:.2} (95%: {:.2} .. {:.2})", elo.elo, elo.error(), elo.lower, elo.upper)),
        ("nelo", format!("{:.2} +- {:.2} (95%: {:.2} .. {:.2})", nelo.nelo, nelo.error(), nelo.lower, nelo.upper)),
        ("los", format!("{:.2}%", 100.0 * elo.los)),
        (
            "sprt",
            format!(
                "{} [{}, {}], alpha {}, beta {}",
                params.model, params.elo0, params.elo1, params.alpha, params.beta
            ),
        ),
        ("llr", format!("{:.2}", sprt.llr)),
        ("lower bound", format!("{:.2}", sprt.lower)),
        ("upper bound", format!("{:.2}", sprt.upper)),
        ("verdict", verdict.to_owned()),
    ];
    Ok(lines.iter().map(|(name, value)| format!("{name}: {value}\n")).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser, Debug)]
    struct Cli {
        #[command(flatten)]
        stats: StatsArgs,
    }

    #[test]
    fn ptnml_parser_accepts_fishtest_counts() {
        let p = parse_ptnml("10789,19328,33806,19402,10543").unwrap();
        assert_eq!(p.counts, [10789, 19328, 33806, 19402, 10543]);
        assert_eq!(parse_ptnml(" 1, 2 ,3,4 , 5 ").unwrap().counts, [1, 2, 3, 4, 5]);
    }

    #[test]
    fn ptnml_parser_names_the_bad_input() {
        let err = parse_ptnml("1,2,3,4").unwrap_err();
        assert!(err.contains("`1,2,3,4`") && err.contains("expected 5") && err.contains("found 4"), "{err}");
        let err = parse_ptnml("1,2,three,4,5").unwrap_err();
        assert!(err.contains("`1,2,three,4,5`") && err.contains("count 3 `three`"), "{err}");
        assert!(parse_ptnml("1,2,3,4,-5").is_err());
        assert!(parse_ptnml("").is_err());
        let err = Cli::try_parse_from(["stats", "--ptnml", "1,2"]).unwrap_err().to_string();
        assert!(err.contains("1,2") && err.contains("--ptnml"), "{err}");
    }

    #[test]
    fn defaults_are_fishtests() {
        let cli = Cli::try_parse_from(["stats", "--ptnml", "1,2,3,4,5"]).unwrap();
        let a = cli.stats;
        assert_eq!((a.elo0, a.elo1, a.alpha, a.beta, a.model), (0.0, 5.0, 0.05, 0.05, EloModel::Normalized));
        let cli = Cli::try_parse_from([
            "stats",
            "--ptnml",
            "1,2,3,4,5",
            "--elo0",
            "-3",
            "--elo1",
            "1",
            "--model",
            "logistic",
        ])
        .unwrap();
        assert_eq!((cli.stats.elo0, cli.stats.model), (-3.0, EloModel::Logistic));
    }

    #[test]
    fn report_of_the_fishtest_sample() {
        let cli = Cli::try_parse_from(["stats", "--ptnml", "10789,19328,33806,19402,10543"]).unwrap();
        let text = report(&cli.stats).unwrap();
        for line in [
            "games: 187736\n",
            "pairs: 93868\n",
            "score: 0.49889\n",
            "elo: -0.77 +- 1.28 (95%: -2.05 .. 0.50)\n",
            "nelo: -0.95 +- 1.57 (95%: -2.52 .. 0.62)\n",
            "los: 11.77%\n",
            "llr: -26.84\n",
            "lower bound: -2.94\n",
            "upper bound: 2.94\n",
            "verdict: H0 accepted\n",
        ] {
            assert!(text.contains(line), "missing {line:?} in\n{text}");
        }
        assert!(text.lines().all(|l| l.split_once(": ").is_some()), "{text}");
    }

    #[test]
    fn bad_sprt_parameters_are_errors() {
        let cli = Cli::try_parse_from(["stats", "--ptnml", "1,2,3,4,5", "--alpha", "1.5"]).unwrap();
        let err = format!("{:#}", report(&cli.stats).unwrap_err());
        assert!(err.contains("`alpha`") && err.contains("got 1.5"), "{err}");
    }
}
