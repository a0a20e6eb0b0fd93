//! Fishtest's dynamic overshoot correction of the SPRT bounds.
//!
//! The LLR moves in jumps, so when it crosses a bound it lands beyond it, and the test's real
//! error rates come out below alpha and beta: it plays more games than it needs. Fishtest
//! estimates the expected overshoot from the test's own history (Siegmund, Sequential
//! Analysis, Corollary 8.33) and moves each bound inwards by it. The estimate needs every
//! update, one batch of samples apart; a skipped update resets the reference points and a
//! lost one (fewer samples than before) or a batch of the wrong size voids the estimate,
//! after which the plain bounds apply again.

/// The running overshoot estimate of one SPRT (Fishtest's `sprt["overshoot"]`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Overshoot {
    last_update: u64,
    skipped_updates: u64,
    ref0: f64,
    m0: f64,
    sq0: f64,
    ref1: f64,
    m1: f64,
    sq1: f64,
}

/// Whether an [`Overshoot`] estimate still holds after an update.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OvershootUpdate {
    /// The estimate is valid.
    Valid,
    /// The update broke the contract (samples not a multiple of the batch size, or fewer
    /// samples than at the last update): drop the estimate and judge with plain bounds.
    Void,
}

impl Overshoot {
    /// Records the LLR after the results reached `samples` samples (pairs or games), updates
    /// arriving every `batch_size` samples.
    pub fn update(&mut self, samples: u64, llr: f64, batch_size: u64) -> OvershootUpdate {
        if batch_size == 0 || !samples.is_multiple_of(batch_size) || samples < self.last_update {
            return OvershootUpdate::Void;
        }
        if samples == self.last_update {
            // The same data again.
        } else if samples == self.last_update + batch_size {
            if llr < self.ref0 {
                let delta = llr - self.ref0;
                self.m0 += delta;
                self.sq0 += delta * delta;
                self.ref0 = llr;
            }
            if llr > self.ref1 {
                let delta = llr - self.ref1;
                self.m1 += delta;
                self.sq1 += delta * delta;
                self.ref1 = llr;
            }
        } else {
            // Updates were missed: restart the ladder from here.
            self.ref0 = llr;
            self.ref1 = llr;
            self.skipped_updates += (samples - self.last_update) / batch_size - 1;
        }
        self.last_update = samples;
        OvershootUpdate::Valid
    }

    /// The expected overshoots `(o0, o1)` below the lower and above the upper bound, each 0
    /// until the LLR has made a new low (high): `E(jump²) / (2 E(jump))` of the ladder jumps.
    pub fn corrections(&self) -> (f64, f64) {
        let o0 = if self.m0 != 0.0 { -self.sq0 / self.m0 / 2.0 } else { 0.0 };
        let o1 = if self.m1 != 0.0 { self.sq1 / self.m1 / 2.0 } else { 0.0 };
        (o0, o1)
    }

    /// Batches whose update never arrived (an audit figure).
    pub fn skipped_updates(&self) -> u64 {
        self.skipped_updates
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ladder_jumps_give_the_corrections() {
        let mut o = Overshoot::default();
        for (samples, llr) in [(1, -0.5), (2, -0.2), (3, -1.0), (4, 0.3), (5, 0.4)] {
            assert_eq!(o.update(samples, llr, 1), OvershootUpdate::Valid);
        }
        // Lows: -0.5 then -1.0: jumps -0.5, -0.5; highs: 0.3, 0.4: jumps 0.3, 0.1.
        let (o0, o1) = o.corrections();
        assert!((o0 - 0.5 / 2.0).abs() < 1e-12, "{o0}");
        assert!((o1 - (0.09 + 0.01) / 0.4 / 2.0).abs() < 1e-12, "{o1}");
    }

    #[test]
    fn contract_breaches() {
        let mut o = Overshoot::default();
        assert_eq!(o.update(4, 0.1, 2), OvershootUpdate::Valid);
        assert_eq!(o.skipped_updates(), 1);
        assert_eq!(o.update(3, 0.1, 2), OvershootUpdate::Void);
        assert_eq!(o.update(2, 0.1, 2), OvershootUpdate::Void);
        assert_eq!(o.update(4, 0.1, 2), OvershootUpdate::Valid);
        assert_eq!(Overshoot::default().corrections(), (0.0, 0.0));
    }
}
