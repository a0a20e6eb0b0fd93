//! The trainer's throughput: real epochs (shuffle, batches, gradients, AdamW steps and the
//! validation pass) timed over a training set, as position-epochs per second, and the bytes
//! each position takes in memory. `xqfarm nnue train --bench` runs it on a data directory or
//! on synthetic positions ([`super::synthetic`]).

use std::time::Instant;

use super::packed::PackedPosition;
use super::train::{TrainConfig, TrainState, Trainer};
use crate::error::Result;
use crate::tune::is_validation_game;

/// What [`bench_epochs`] measured.
#[derive(Clone, Debug, PartialEq)]
pub struct BenchReport {
    /// Where the positions came from.
    pub source: String,
    pub train_positions: usize,
    pub validation_positions: usize,
    pub hidden: usize,
    pub batch_size: usize,
    pub threads: usize,
    /// Memory per training position: the packed position and its index in the epoch's order.
    pub bytes_per_position: f64,
    /// Seconds spent making the positions (reading Parquet, or the playouts).
    pub load_seconds: f64,
    pub epochs: usize,
    /// Seconds of the epochs alone.
    pub train_seconds: f64,
    /// Training positions times epochs per second of the epochs.
    pub position_epochs_per_second: f64,
    /// The same with the loading counted in.
    pub overall_position_epochs_per_second: f64,
    /// CPU seconds of the epochs, every thread (Linux only): on a shared machine the wall
    /// clock says how much of it this process got, this says what the work costs.
    pub cpu_seconds: Option<f64>,
    /// The process's peak resident memory so far, loading included (Linux only).
    pub peak_memory_bytes: Option<u64>,
}

/// The process's CPU time so far, user and system, every thread: `/proc/self/stat`'s utime
/// and stime in USER_HZ (100 per second on Linux); `None` elsewhere.
pub fn process_cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // After the command name's closing parenthesis come fields 3 onwards: utime is field 14.
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let utime: f64 = fields.get(11)?.parse().ok()?;
    let stime: f64 = fields.get(12)?.parse().ok()?;
    Some((utime + stime) / 100.0)
}

/// The process's peak resident memory (`/proc/self/status`' `VmHWM`); `None` elsewhere.
pub fn process_peak_memory() -> Option<u64> {
    peak_memory_of(&std::fs::read_to_string("/proc/self/status").ok()?)
}

/// `VmHWM` of a `/proc/PID/status` text, in bytes.
fn peak_memory_of(status: &str) -> Option<u64> {
    let line = status.lines().find_map(|l| l.strip_prefix("VmHWM:"))?;
    let kb: u64 = line.trim().strip_suffix("kB")?.trim().parse().ok()?;
    kb.checked_mul(1024)
}

impl std::fmt::Display for BenchReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: {} training + {} validation positions ({:.0} bytes each; loaded in {:.2} s), H = {}, batch {}, \
             {} epochs in {:.2} s on {} threads: {:.0} position-epochs/s ({:.0} with the loading){}",
            self.source,
            self.train_positions,
            self.validation_positions,
            self.bytes_per_position,
            self.load_seconds,
            self.hidden,
            self.batch_size,
            self.epochs,
            self.train_seconds,
            self.threads,
            self.position_epochs_per_second,
            self.overall_position_epochs_per_second,
            match self.cpu_seconds {
                Some(cpu) => format!(
                    "; {cpu:.2} CPU seconds, {:.0} position-epochs per CPU second",
                    (self.train_positions * self.epochs) as f64 / cpu.max(1e-9)
                ),
                None => String::new(),
            },
        )?;
        if let Some(peak) = self.peak_memory_bytes {
            let positions = (self.train_positions + self.validation_positions).max(1);
            write!(
                f,
                "; peak memory {:.0} MB, {:.0} bytes a position (loading included)",
                peak as f64 / 1e6,
                peak as f64 / positions as f64
            )?;
        }
        Ok(())
    }
}

/// Splits positions with their games by [`is_validation_game`].
pub fn split_by_game(
    positions: Vec<(PackedPosition, u64)>,
    validation_fraction: f64,
) -> (Vec<PackedPosition>, Vec<PackedPosition>) {
    let (validation, train): (Vec<_>, Vec<_>) =
        positions.into_iter().partition(|&(_, game)| is_validation_game(game, validation_fraction));
    (train.into_iter().map(|(p, _)| p).collect(), validation.into_iter().map(|(p, _)| p).collect())
}

/// Times `config.epochs` epochs of a fresh network over `train`, with K = `k`.
pub fn bench_epochs(
    source: &str,
    train: &[PackedPosition],
    validation: &[PackedPosition],
    load_seconds: f64,
    config: &TrainConfig,
    k: f64,
) -> Result<BenchReport> {
    let mut trainer = Trainer::new(config.clone(), k, train, validation, TrainState::fresh(config)?)?;
    let (started, cpu_before) = (Instant::now(), process_cpu_seconds());
    while !trainer.is_done() {
        std::hint::black_box(trainer.run_epoch(|_| {}));
    }
    let train_seconds = started.elapsed().as_secs_f64();
    let cpu_seconds = cpu_before.zip(process_cpu_seconds()).map(|(before, after)| after - before);
    let work = (train.len() * config.epochs) as f64;
    Ok(BenchReport {
        source: source.to_owned(),
        train_positions: train.len(),
        validation_positions: validation.len(),
        hidden: config.hidden,
        batch_size: config.batch_size,
        threads: rayon::current_num_threads(),
        bytes_per_position: (std::mem::size_of::<PackedPosition>() + std::mem::size_of::<u32>()) as f64,
        load_seconds,
        epochs: config.epochs,
        train_seconds,
        position_epochs_per_second: work / train_seconds.max(1e-9),
        overall_position_epochs_per_second: work / (train_seconds + load_seconds).max(1e-9),
        cpu_seconds,
        peak_memory_bytes: process_peak_memory(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nnue::synthetic::synthetic_positions;

    #[test]
    fn the_bench_counts_every_position_of_every_epoch() -> Result<()> {
        let (train, validation) = split_by_game(synthetic_positions(600, 3), 0.2);
        assert!(!train.is_empty() && !validation.is_empty());
        let config = TrainConfig { hidden: 16, epochs: 2, batch_size: 128, ..TrainConfig::default() };
        let report = bench_epochs("test", &train, &validation, 0.5, &config, 1.0)?;
        assert_eq!((report.train_positions, report.epochs, report.bytes_per_position), (train.len(), 2, 36.0));
        assert!(report.position_epochs_per_second > report.overall_position_epochs_per_second);
        assert!(report.to_string().contains("position-epochs/s"));
        Ok(())
    }

    #[test]
    fn peak_memory_is_read_from_vm_hwm() {
        let status = "Name:\txqfarm\nVmPeak:\t  900000 kB\nVmHWM:\t  582140 kB\nVmRSS:\t  1000 kB\n";
        assert_eq!(peak_memory_of(status), Some(582_140 * 1024));
        assert_eq!(peak_memory_of("VmRSS:\t1 kB\n"), None, "no VmHWM line");
        assert_eq!(peak_memory_of("VmHWM:\t12 MB\n"), None, "not in kB");
    }
}
