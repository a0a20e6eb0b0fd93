//! `xqfarm local`: the README's main job. An SPRT of the default parameters against a
//! deliberately weakened variant (mobility weights zeroed) at a few thousand nodes per move,
//! on the embedded coordinator with local workers; Parquet data and a summary land in
//! `./xqfarm-data/`.

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args;
use engine::eval::{Group, Params};

use crate::sprt::{self, SprtArgs, Verdict};

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
    let sprt_args = SprtArgs {
        base: base.display().to_string(),
        candidate: weak.display().to_string(),
        elo0: -10.0,
        elo1: 0.0,
        alpha: 0.05,
        beta: 0.05,
        model: proto::domain::EloModel::Normalized,
        tc: format!("nodes={}", args.nodes),
        openings: None,
        farm: crate::farm_target::FarmTarget {
            concurrency: args.concurrency,
            local: true,
            dir: Some(args.dir.clone()),
            ..Default::default()
        },
    };
    eprintln!("xqfarm local: SPRT[-10, 0] of weakened (no mobility) vs default at nodes={}", args.nodes);
    let (verdict, status) = sprt::run(&sprt_args).await?;
    print!("{}", sprt::summary(&status));
    println!(
        "verdict: {} — {}",
        match verdict {
            Verdict::H0 => "H0 accepted",
            Verdict::H1 => "H1 accepted",
        },
        match verdict {
            Verdict::H0 => "the weakened variant is at least 10 Elo weaker, as it should be",
            Verdict::H1 => "the weakened variant is not measurably weaker",
        }
    );
    println!(
        "data: {}/data (games/, positions/ as Parquet), summary: {}/summary.txt",
        args.dir.display(),
        args.dir.display()
    );
    Ok(())
}
