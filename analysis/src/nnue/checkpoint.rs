//! Checkpoints: everything a run needs to continue as if never stopped, written after each
//! epoch (`<dir>/checkpoint.xqck`, replaced atomically).
//!
//! ```text
//! magic "XQCK", version u32 = 1
//! what the run was:  hidden u32, epochs u32, batch u32, learning rate f64, weight decay f64,
//!                    lambda f64, seed u64, K f64, data fingerprint u64
//! where it stands:   epochs done u32, Adam steps u64, history (count u32; per epoch: epoch u32,
//!                    train loss f64, validation loss f64, learning rate f64, seconds f64,
//!                    positions per second f64)
//! weights, m, v:     count u32, then that many f32, each
//! FNV-1a 64 of every byte before it, u64
//! ```
//!
//! Little-endian. Resuming checks the run's settings and data against the checkpoint's and
//! names the first that differs: a different run would not give the same bytes.

use std::path::{Path, PathBuf};

use engine::nnue::network::fnv1a64;

use super::model::FloatNetwork;
use super::optim::AdamState;
use super::train::{EpochReport, TrainConfig, TrainState};
use crate::error::{Error, Result};

const MAGIC: [u8; 4] = *b"XQCK";
const VERSION: u32 = 1;
/// The file in a checkpoint directory.
pub const FILE_NAME: &str = "checkpoint.xqck";

/// The run a checkpoint belongs to.
#[derive(Clone, Debug, PartialEq)]
pub struct RunIdentity {
    pub config: TrainConfig,
    pub k: f64,
    /// A hash of the training and validation positions.
    pub data: u64,
}

/// A saved run.
#[derive(Clone, Debug, PartialEq)]
pub struct Checkpoint {
    pub run: RunIdentity,
    pub state: TrainState,
}

/// The checkpoint file of directory `dir`.
pub fn checkpoint_path(dir: &Path) -> PathBuf {
    dir.join(FILE_NAME)
}

impl Checkpoint {
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        let c = &self.run.config;
        out.extend_from_slice(&MAGIC);
        for v in [VERSION, c.hidden as u32, c.epochs as u32, c.batch_size as u32] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        for v in [c.learning_rate, c.weight_decay, c.lambda] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(&c.seed.to_le_bytes());
        out.extend_from_slice(&self.run.k.to_le_bytes());
        out.extend_from_slice(&self.run.data.to_le_bytes());
        let s = &self.state;
        out.extend_from_slice(&(s.epoch as u32).to_le_bytes());
        out.extend_from_slice(&s.adam.step.to_le_bytes());
        out.extend_from_slice(&(s.history.len() as u32).to_le_bytes());
        for r in &s.history {
            out.extend_from_slice(&(r.epoch as u32).to_le_bytes());
            for v in [r.train_loss, r.validation_loss, r.learning_rate, r.seconds, r.positions_per_second] {
                out.extend_from_slice(&v.to_le_bytes());
            }
        }
        for values in [s.model.params(), &s.adam.m, &s.adam.v] {
            out.extend_from_slice(&(values.len() as u32).to_le_bytes());
            for v in values {
                out.extend_from_slice(&v.to_le_bytes());
            }
        }
        let sum = fnv1a64(&out);
        out.extend_from_slice(&sum.to_le_bytes());
        out
    }

    /// Reads a checkpoint's bytes; `path` names it in errors.
    pub fn from_bytes(bytes: &[u8], path: &Path) -> Result<Checkpoint> {
        let bad = |reason: String| Error::Checkpoint { path: path.display().to_string(), reason };
        if bytes.len() < 12 || bytes[..4] != MAGIC {
            return Err(bad("not a checkpoint (no XQCK magic)".into()));
        }
        let (body, tail) = bytes.split_at(bytes.len() - 8);
        let stored = u64::from_le_bytes(tail.try_into().map_err(|_| bad("truncated".into()))?);
        if stored != fnv1a64(body) {
            return Err(bad("checksum mismatch: the file is damaged or cut".into()));
        }
        let mut r = Reader { bytes: body, at: 4, path };
        let version = r.u32()?;
        if version != VERSION {
            return Err(bad(format!("version {version}, this build reads {VERSION}")));
        }
        let (hidden, epochs, batch_size) = (r.u32()? as usize, r.u32()? as usize, r.u32()? as usize);
        let (learning_rate, weight_decay, lambda) = (r.f64()?, r.f64()?, r.f64()?);
        let seed = r.u64()?;
        let config = TrainConfig { hidden, epochs, batch_size, learning_rate, weight_decay, lambda, seed };
        let (k, data) = (r.f64()?, r.u64()?);
        let epoch = r.u32()? as usize;
        let step = r.u64()?;
        let reports = r.u32()? as usize;
        let mut history = Vec::with_capacity(reports.min(1 << 16));
        for _ in 0..reports {
            history.push(EpochReport {
                epoch: r.u32()? as usize,
                train_loss: r.f64()?,
                validation_loss: r.f64()?,
                learning_rate: r.f64()?,
                seconds: r.f64()?,
                positions_per_second: r.f64()?,
            });
        }
        let (params, m, v) = (r.f32s()?, r.f32s()?, r.f32s()?);
        if r.at != body.len() {
            return Err(bad(format!("{} bytes after the moments", body.len() - r.at)));
        }
        if m.len() != params.len() || v.len() != params.len() {
            return Err(bad("moments and weights differ in length".into()));
        }
        let model = FloatNetwork::from_params(hidden, params).map_err(|e| bad(e.to_string()))?;
        Ok(Checkpoint {
            run: RunIdentity { config, k, data },
            state: TrainState { model, adam: AdamState { m, v, step }, epoch, history },
        })
    }

    /// Writes `<dir>/checkpoint.xqck` through a temporary file, so a crash leaves the last one.
    pub fn save(&self, dir: &Path) -> Result<()> {
        let path = checkpoint_path(dir);
        let io = |e: std::io::Error| Error::Checkpoint { path: path.display().to_string(), reason: e.to_string() };
        std::fs::create_dir_all(dir).map_err(io)?;
        let temp = dir.join(format!("{FILE_NAME}.tmp"));
        std::fs::write(&temp, self.to_bytes()).map_err(io)?;
        std::fs::rename(&temp, &path).map_err(io)
    }

    /// Reads `<dir>/checkpoint.xqck`.
    pub fn load(dir: &Path) -> Result<Checkpoint> {
        let path = checkpoint_path(dir);
        let bytes = std::fs::read(&path)
            .map_err(|e| Error::Checkpoint { path: path.display().to_string(), reason: e.to_string() })?;
        Checkpoint::from_bytes(&bytes, &path)
    }

    /// The checkpoint's state, if it belongs to `run`; otherwise an error naming the first
    /// setting that differs.
    pub fn resume(self, run: &RunIdentity, path: &Path) -> Result<TrainState> {
        let (a, b) = (&self.run.config, &run.config);
        let differences: [(&str, String, String); 9] = [
            ("hidden", a.hidden.to_string(), b.hidden.to_string()),
            ("epochs", a.epochs.to_string(), b.epochs.to_string()),
            ("batch size", a.batch_size.to_string(), b.batch_size.to_string()),
            ("learning rate", a.learning_rate.to_string(), b.learning_rate.to_string()),
            ("weight decay", a.weight_decay.to_string(), b.weight_decay.to_string()),
            ("lambda", a.lambda.to_string(), b.lambda.to_string()),
            ("seed", a.seed.to_string(), b.seed.to_string()),
            ("K", self.run.k.to_string(), run.k.to_string()),
            ("data", format!("{:016x}", self.run.data), format!("{:016x}", run.data)),
        ];
        if let Some((name, saved, now)) = differences.into_iter().find(|(_, x, y)| x != y) {
            return Err(Error::Checkpoint {
                path: path.display().to_string(),
                reason: format!(
                    "{name} is {now} but the checkpoint's run had {saved}; resume with the same settings and data"
                ),
            });
        }
        Ok(self.state)
    }
}

/// Little-endian values from a checked body.
struct Reader<'b> {
    bytes: &'b [u8],
    at: usize,
    path: &'b Path,
}

impl Reader<'_> {
    fn take<const N: usize>(&mut self) -> Result<[u8; N]> {
        let end = self.at + N;
        let slice = self.bytes.get(self.at..end).ok_or_else(|| Error::Checkpoint {
            path: self.path.display().to_string(),
            reason: format!("truncated at byte {}", self.at),
        })?;
        self.at = end;
        let mut out = [0u8; N];
        out.copy_from_slice(slice);
        Ok(out)
    }
    fn u32(&mut self) -> Result<u32> {
        Ok(u32::from_le_bytes(self.take()?))
    }
    fn u64(&mut self) -> Result<u64> {
        Ok(u64::from_le_bytes(self.take()?))
    }
    fn f64(&mut self) -> Result<f64> {
        Ok(f64::from_le_bytes(self.take()?))
    }
    fn f32s(&mut self) -> Result<Vec<f32>> {
        let n = self.u32()? as usize;
        if n > (self.bytes.len() - self.at) / 4 {
            return Err(Error::Checkpoint {
                path: self.path.display().to_string(),
                reason: format!("{n} values do not fit in the file"),
            });
        }
        (0..n).map(|_| Ok(f32::from_le_bytes(self.take()?))).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn checkpoint() -> Result<Checkpoint> {
        let config = TrainConfig { hidden: 16, ..TrainConfig::default() };
        let mut state = TrainState::fresh(&config)?;
        state.epoch = 2;
        state.adam.step = 17;
        state.adam.m[3] = 0.25;
        state.history.push(EpochReport {
            epoch: 1,
            train_loss: 0.1,
            validation_loss: 0.2,
            learning_rate: 1e-3,
            seconds: 1.5,
            positions_per_second: 1e5,
        });
        Ok(Checkpoint { run: RunIdentity { config, k: 1.25, data: 99 }, state })
    }

    #[test]
    fn checkpoints_round_trip_and_refuse_damage() -> Result<()> {
        let c = checkpoint()?;
        let path = Path::new("x.xqck");
        let bytes = c.to_bytes();
        assert_eq!(Checkpoint::from_bytes(&bytes, path)?, c);
        let mut damaged = bytes.clone();
        damaged[40] ^= 1;
        let err = Checkpoint::from_bytes(&damaged, path).expect_err("damaged").to_string();
        assert!(err.contains("x.xqck") && err.contains("checksum"), "{err}");
        assert!(Checkpoint::from_bytes(&bytes[..bytes.len() - 9], path).is_err());
        Ok(())
    }

    #[test]
    fn resuming_another_run_names_the_difference() -> Result<()> {
        let c = checkpoint()?;
        let mut other = c.run.clone();
        other.config.lambda = 0.25;
        let err = c.clone().resume(&other, Path::new("ck")).expect_err("lambda differs").to_string();
        assert!(err.contains("lambda is 0.25"), "{err}");
        assert_eq!(c.clone().resume(&c.run, Path::new("ck"))?, c.state);
        Ok(())
    }
}
