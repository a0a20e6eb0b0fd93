//! `xqfarm local`: the README's main job. An SPRT of the default parameters against a
//! deliberately weakened variant (mobility weights zeroed) at a few thousand nodes per move,
//! on the embedded coordinator with local workers; Parquet data and a summary land in
//! `./xqfarm-data/`.

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args;
use engine::eval::{Group, Params};

use campaign::sprt_result::Ending;
use clap::Parser;

use crate::sprt::{self, SprtArgs};

/// `xqfarm sprt`'s arguments on their own.
#[derive(Parser, Debug)]
struct Sprt {
    #[command(flatten)]
    args: SprtArgs,
}

#[derive(Args, Debug)]
pub struct LocalArgs {
    /// Where the database, the Parquet data and the summary go.
    #[arg(long, default_value = "xqfarm-data")]
    dir: PathBuf,
    /// Nodes per move.
    #[arg(long, default_value_t = 3000)]
    nodes: u64,
    /// Games played at once (default: all cores).
    #[arg(long)]
    concurrency: Option<usize>,
}

/// The default parameters without any mobility weight.
pub fn weakened() -> Params {
    let mut p = Params::default();
    for i in 0..p.len() {
        if Params::group_of(i) == Some(Group::Mobility) {
            let _ = p.set(i, 0);
        }
    }
    p
}

pub async fn run(args: &LocalArgs) -> Result<()> {
    std::fs::create_dir_all(&args.dir).with_context(|| format!("creating {}", args.dir.display()))?;
    let weak = args.dir.join("weakened.toml");
    std::fs::write(&weak, weakened().to_toml()).with_context(|| format!("writing {}", weak.display()))?;
    let base = args.dir.join("default.toml");
    std::fs::write(&base, Params::default().to_toml()).with_context(|| format!("writing {}", base.display()))?;
    let mut command = vec!["sprt".to_owned(), "--base".into(), base.display().to_string()];
    command.extend(["--candidate".into(), weak.display().to_string(), "--elo0".into(), "-10".into()]);
    command.extend(["--elo1".into(), "0".into(), "--tc".into(), format!("nodes={}", args.nodes)]);
    command.extend(["--local".into(), "--dir".into(), args.dir.display().to_string()]);
    if let Some(n) = args.concurrency {
        command.extend(["--concurrency".into(), n.to_string()]);
    }
    // The SPRT's arguments as `xqfarm sprt` reads them, so its defaults are written once.
    let sprt_args = Sprt::try_parse_from(&command).context("the SPRT's arguments")?.args;
    eprintln!("xqfarm local: SPRT[-10, 0] of weakened (no mobility) vs default at nodes={}", args.nodes);
    let outcome = sprt::run(&sprt_args).await?;
    print!("{}", sprt::summary(&outcome.status));
    let verdict = match outcome.ending {
        Ending::H0 => "H0 accepted — the weakened variant is at least 10 Elo weaker, as it should be",
        Ending::H1 => "H1 accepted — the weakened variant is not measurably weaker",
        other => other.text(),
    };
    println!("verdict: {verdict}");
    println!(
        "data: {}/data (games/, positions/ as Parquet), summary: {}/summary.txt",
        args.dir.display(),
        args.dir.display()
    );
    Ok(())
}
