//! AdamW and the learning-rate schedule.
//!
//! # Schedule
//!
//! Linear warm-up over the first 2% of the run's optimiser steps (at least one), then a cosine
//! decay from the base rate to 5% of it at the last step:
//!
//! ```text
//! lr(t) = base · min(1, (t + 1) / warmup) · (0.05 + 0.95 · (1 + cos(pi · t / steps)) / 2)
//! ```
//!
//! A function of the step alone, so a resumed run follows it exactly.
//!
//! # AdamW
//!
//! Adam (beta1 0.9, beta2 0.999, epsilon 1e-8, bias-corrected) with decoupled weight decay on
//! the weights W1 and W2, not on the biases:
//! `w -= lr · (m̂ / (√v̂ + eps) + decay · w)`, then the weight is clipped to its quantisable
//! range. The gradient of a batch is the sum of its chunks' buffers in chunk order, so the
//! step is the same whatever the number of threads.

use rayon::prelude::*;

use super::model::{Layout, clip};

pub const BETA1: f32 = 0.9;
pub const BETA2: f32 = 0.999;
pub const EPSILON: f32 = 1e-8;
/// The warm-up's share of the run's steps.
pub const WARMUP_FRACTION: f64 = 0.02;
/// The rate at the last step, as a share of the base rate.
pub const FINAL_FRACTION: f64 = 0.05;
/// Parameters per parallel work item of the optimiser step.
const PARAMS_PER_TASK: usize = 8192;

/// The learning rate at every step of a run (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Schedule {
    pub base: f64,
    pub steps: u64,
}

impl Schedule {
    pub fn warmup(&self) -> u64 {
        ((self.steps as f64 * WARMUP_FRACTION).ceil() as u64).max(1)
    }

    /// The rate of step `t` (0-based).
    pub fn rate(&self, t: u64) -> f64 {
        let warm = ((t + 1) as f64 / self.warmup() as f64).min(1.0);
        let progress = (t as f64 / self.steps.max(1) as f64).min(1.0);
        let cosine = 0.5 * (1.0 + (std::f64::consts::PI * progress).cos());
        self.base * warm * (FINAL_FRACTION + (1.0 - FINAL_FRACTION) * cosine)
    }
}

/// Adam's moments and step count.
#[derive(Clone, Debug, PartialEq)]
pub struct AdamState {
    pub m: Vec<f32>,
    pub v: Vec<f32>,
    /// Steps taken.
    pub step: u64,
}

impl AdamState {
    pub fn new(len: usize) -> AdamState {
        AdamState { m: vec![0.0; len], v: vec![0.0; len], step: 0 }
    }

    /// One step: the gradient is `sum of grads[..] / positions`, summed in buffer order.
    pub fn step(
        &mut self,
        params: &mut [f32],
        layout: Layout,
        grads: &[Vec<f32>],
        positions: usize,
        rate: f64,
        weight_decay: f64,
    ) {
        self.step += 1;
        let t = self.step as i32;
        let correct1 = 1.0 - f64::from(BETA1).powi(t);
        let correct2 = 1.0 - f64::from(BETA2).powi(t);
        // lr · m̂ / (√v̂ + eps) = lr / c1 · m / (√v / √c2 + eps)
        let step_size = (rate / correct1) as f32;
        let sqrt_c2 = correct2.sqrt() as f32;
        let decay = (rate * weight_decay) as f32;
        let inv_n = 1.0 / positions.max(1) as f32;
        let decayed = layout.w1().start..layout.b1().start;
        let decayed_out = layout.w2();
        params
            .par_chunks_mut(PARAMS_PER_TASK)
            .zip(self.m.par_chunks_mut(PARAMS_PER_TASK))
            .zip(self.v.par_chunks_mut(PARAMS_PER_TASK))
            .enumerate()
            .for_each(|(task, ((w, m), v))| {
                let start = task * PARAMS_PER_TASK;
                for j in 0..w.len() {
                    let i = start + j;
                    let mut g = 0f32;
                    for buffer in grads {
                        g += buffer[i];
                    }
                    g *= inv_n;
                    m[j] = BETA1 * m[j] + (1.0 - BETA1) * g;
                    v[j] = BETA2 * v[j] + (1.0 - BETA2) * g * g;
                    let mut update = step_size * m[j] / (v[j].sqrt() / sqrt_c2 + EPSILON);
                    if decayed.contains(&i) || decayed_out.contains(&i) {
                        update += decay * w[j];
                    }
                    w[j] -= update;
                }
                clip(w, layout, start);
            });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_schedule_warms_up_then_decays_to_five_percent() {
        let s = Schedule { base: 0.01, steps: 1000 };
        assert_eq!(s.warmup(), 20);
        assert!((s.rate(0) - 0.01 / 20.0).abs() < 1e-9);
        assert!(s.rate(19) > s.rate(18) && (s.rate(19) - 0.01).abs() < 1e-4);
        assert!((1..999).all(|t| t < 20 || s.rate(t + 1) <= s.rate(t)));
        assert!((s.rate(1000) - 0.0005).abs() < 1e-9);
    }
}
