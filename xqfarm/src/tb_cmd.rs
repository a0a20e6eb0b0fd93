//! `xqfarm tb generate`: endgame tables by retrograde analysis (`engine::tablebase`) into a
//! directory, resumable set by set, with a progress bar on a terminal and one line per set.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use clap::{Args, Subcommand};
use engine::tablebase::{Generated, Material, Progress as TbProgress, Tablebases};

use crate::progress::Progress;

#[derive(Subcommand, Debug)]
pub enum TbCommand {
    /// Generate tables: every set of up to `--max-pieces` pieces besides the kings (3 when
    /// no `--set` is given), and each `--set` with the smaller sets its captures lead to. A
    /// set whose file exists is skipped, so an interrupted run resumes.
    Generate(GenerateArgs),
}

#[derive(Args, Debug)]
pub struct GenerateArgs {
    /// Directory of the `.xqtb` files (made if missing).
    #[arg(long, default_value = "tablebases")]
    pub dir: PathBuf,
    /// Every set with at most this many pieces besides the two kings.
    #[arg(long)]
    pub max_pieces: Option<u32>,
    /// A set to generate, named as `KRNKAB` (Red's pieces after the first K, Black's after
    /// the second); repeatable.
    #[arg(long = "set", value_name = "SET")]
    pub sets: Vec<String>,
    /// Worker threads (default: every core).
    #[arg(long)]
    pub threads: Option<usize>,
}

pub fn run(cmd: &TbCommand) -> Result<()> {
    match cmd {
        TbCommand::Generate(args) => generate(args),
    }
}

fn generate(args: &GenerateArgs) -> Result<()> {
    let mut wanted: Vec<Material> = Vec::new();
    for name in &args.sets {
        let m: Material = name.parse().with_context(|| format!("--set {name}"))?;
        if m.pieces() > 5 {
            bail!("--set {name}: {} pieces besides the kings; the generator goes up to 5", m.pieces());
        }
        wanted.push(m);
    }
    let max = args.max_pieces.or(if wanted.is_empty() { Some(3) } else { None });
    if let Some(n) = max {
        if n > 3 {
            bail!("--max-pieces {n}: every set of more than 3 pieces is too large; name sets with --set");
        }
        wanted.extend(Material::all_up_to(n));
    }
    if let Some(t) = args.threads {
        rayon::ThreadPoolBuilder::new().num_threads(t.max(1)).build_global().context("--threads")?;
    }
    std::fs::create_dir_all(&args.dir).with_context(|| format!("making {}", args.dir.display()))?;
    let tbs = Tablebases::open(&args.dir)?;
    let progress = Progress::stderr();
    let bar = |p: TbProgress| {
        let frac = p.resolved as f64 / p.positions.max(1) as f64;
        let filled = (frac * 30.0).round() as usize;
        progress.update(&format!(
            "{:<10} pass {:>4} [{}{}] {:>5.1}% resolved of {} positions",
            p.material.to_string(),
            p.pass,
            "#".repeat(filled),
            ".".repeat(30 - filled.min(30)),
            100.0 * frac,
            p.positions
        ));
    };
    let start = Instant::now();
    let mut all: Vec<Generated> = Vec::new();
    println!(
        "{:<10} {:>12} {:>12} {:>12} {:>12} {:>7} {:>12} {:>9}",
        "set", "positions", "wins", "draws", "losses", "maxdtc", "bytes", "seconds"
    );
    for m in wanted {
        for g in tbs.generate(m, &bar)? {
            progress.clear();
            let [r, b] = g.census;
            println!(
                "{:<10} {:>12} {:>12} {:>12} {:>12} {:>7} {:>12} {:>9.2}",
                g.material.to_string(),
                r.positions() + b.positions(),
                r.wins + b.wins,
                r.draws + b.draws,
                r.losses + b.losses,
                r.max_dtc.max(b.max_dtc),
                g.bytes,
                g.elapsed.as_secs_f64()
            );
            all.push(g);
        }
    }
    let positions: u64 = all.iter().map(|g| g.census[0].positions() + g.census[1].positions()).sum();
    let bytes: u64 = all.iter().map(|g| g.bytes).sum();
    println!(
        "generated {} sets, {positions} positions, {bytes} bytes in {:.1} s into {}",
        all.len(),
        start.elapsed().as_secs_f64(),
        args.dir.display()
    );
    Ok(())
}
