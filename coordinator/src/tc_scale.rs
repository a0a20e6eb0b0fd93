//! Time controls scaled to each worker's speed, as Fishtest scales them: a worker measures its
//! speed at start (bench nodes per second, with every game slot busy), and a coordinator given
//! a reference speed (`xqfarm serve --reference-nps N`) stretches the thinking time of a slower
//! worker and shrinks a faster one's, so that both search about as many nodes per move: a slow
//! machine plays the game a fast one does.
//!
//! Pure functions over plain numbers, no clock and no I/O:
//!
//! ```
//! use std::num::NonZeroU64;
//! use coordinator::tc_scale::{TcScale, worker_scale};
//! use proto::domain::TimeControl;
//!
//! let reference = NonZeroU64::new(1_000_000);
//! // A worker at half the reference speed thinks twice as long ...
//! let half = worker_scale(reference, 500_000);
//! assert_eq!(half.scale.permille(), 2_000);
//! assert_eq!(half.scale.apply(TimeControl::MoveTimeMs(100)), TimeControl::MoveTimeMs(200));
//! let clock = TimeControl::Clock { base_ms: 10_000, inc_ms: 100 };
//! assert_eq!(half.scale.apply(clock), TimeControl::Clock { base_ms: 20_000, inc_ms: 200 });
//! // ... and node or depth limits are the same work on every machine.
//! assert_eq!(half.scale.apply(TimeControl::Nodes(20_000)), TimeControl::Nodes(20_000));
//! // Without a measured speed, or without a reference, nothing is scaled.
//! assert_eq!(worker_scale(reference, 0).scale, TcScale::UNSCALED);
//! assert_eq!(worker_scale(None, 500_000).scale, TcScale::UNSCALED);
//! ```
//!
//! A run that plays a network is scaled by the other speed a worker measures, its speed with a
//! network, against the coordinator's reference for networks (`--reference-nnue-nps`): a
//! network costs more per node than the hand-crafted evaluation, and by how much depends on the
//! machine (its SIMD level above all), so the HCE's ratio would scale it wrong
//! ([`lease_scale`]).
//!
//! The scale is kept in thousandths (`permille`), rounded once when the lease is granted and
//! stored with the lease, so that the time control a lease was given and the one the referee
//! replays its games against are computed from the same integer, before and after a restart.

use std::num::{NonZeroU32, NonZeroU64};

use proto::domain::{MAX_TIME_MS, TimeControl};

/// The smallest scale a worker is given, in thousandths: a worker more than four times faster
/// than the reference plays a quarter of the time, not less.
pub const MIN_SCALE_PERMILLE: u32 = 250;
/// The largest scale, in thousandths: a worker more than four times slower than the reference
/// plays four times the time, not more (its games would otherwise take hours, and a figure that
/// far off is more likely a bad measurement than a machine).
pub const MAX_SCALE_PERMILLE: u32 = 4_000;
/// Thousandths of the unscaled time control.
const UNIT: u32 = 1_000;

/// How much of the run's thinking time a worker gets, in thousandths (1000 = unscaled).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TcScale(NonZeroU32);

impl TcScale {
    /// The run's own time control.
    pub const UNSCALED: TcScale = TcScale(NonZeroU32::new(UNIT).expect("1000 is not zero"));

    /// A scale of `permille` thousandths; `None` for 0. Any positive value is accepted (what a
    /// store holds was clamped when it was granted, by whichever bounds applied then).
    pub fn from_permille(permille: u32) -> Option<TcScale> {
        NonZeroU32::new(permille).map(TcScale)
    }

    pub fn permille(self) -> u32 {
        self.0.get()
    }

    /// The scale as a factor (2.0: twice the time).
    pub fn factor(self) -> f64 {
        f64::from(self.permille()) / f64::from(UNIT)
    }

    /// The time control a worker of this scale plays: a move time and a clock's base and
    /// increment multiplied and rounded to the millisecond (a positive time stays at least
    /// 1 ms, a zero increment stays zero, nothing exceeds [`MAX_TIME_MS`]); nodes and depth are
    /// never scaled.
    pub fn apply(self, tc: TimeControl) -> TimeControl {
        match tc {
            TimeControl::Nodes(_) | TimeControl::Depth(_) => tc,
            TimeControl::MoveTimeMs(ms) => TimeControl::MoveTimeMs(self.scale_ms(ms)),
            TimeControl::Clock { base_ms, inc_ms } => {
                TimeControl::Clock { base_ms: self.scale_ms(base_ms), inc_ms: self.scale_ms(inc_ms) }
            }
        }
    }

    /// `ms` times the scale, rounded half up, within 1..=[`MAX_TIME_MS`] unless it was 0.
    fn scale_ms(self, ms: u64) -> u64 {
        if ms == 0 {
            return 0;
        }
        let unit = u128::from(UNIT);
        let scaled = (u128::from(ms) * u128::from(self.permille()) + unit / 2) / unit;
        u64::try_from(scaled).unwrap_or(u64::MAX).clamp(1, MAX_TIME_MS)
    }
}

impl Default for TcScale {
    fn default() -> TcScale {
        TcScale::UNSCALED
    }
}

impl std::fmt::Display for TcScale {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{:03}", self.permille() / UNIT, self.permille() % UNIT)
    }
}

/// A worker's scale, and whether its speed lay beyond the bounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WorkerScale {
    pub scale: TcScale,
    /// The exact scale was below [`MIN_SCALE_PERMILLE`] or above [`MAX_SCALE_PERMILLE`]: the
    /// worker is served at the bound.
    pub clamped: bool,
}

/// The scale of a worker measured at `worker_nps` (0: not measured) on a coordinator whose
/// reference speed is `reference_nps` (`None`: no scaling): reference / worker, rounded to
/// the thousandth and clamped to [`MIN_SCALE_PERMILLE`]..=[`MAX_SCALE_PERMILLE`]. Unmeasured
/// workers, and every worker of a coordinator without a reference, play the run's time control.
pub fn worker_scale(reference_nps: Option<NonZeroU64>, worker_nps: u64) -> WorkerScale {
    let unscaled = WorkerScale { scale: TcScale::UNSCALED, clamped: false };
    let Some(reference) = reference_nps else {
        return unscaled;
    };
    if worker_nps == 0 {
        return unscaled;
    }
    let (reference, worker) = (u128::from(reference.get()), u128::from(worker_nps));
    let exact = (reference * u128::from(UNIT) + worker / 2) / worker;
    let (min, max) = (u128::from(MIN_SCALE_PERMILLE), u128::from(MAX_SCALE_PERMILLE));
    let permille = u32::try_from(exact.clamp(min, max)).unwrap_or(MAX_SCALE_PERMILLE);
    let scale = TcScale::from_permille(permille).unwrap_or(TcScale::UNSCALED);
    WorkerScale { scale, clamped: exact < min || exact > max }
}

/// A coordinator's reference speeds, in a worker's bench nodes per second: what its runs' move
/// times and clocks are meant for. `None`: runs of that kind are not scaled.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReferenceNps {
    /// With the hand-crafted evaluation (`serve --reference-nps`), against a worker's
    /// `bench_nps`.
    pub hce: Option<NonZeroU64>,
    /// With a network (`serve --reference-nnue-nps`), against a worker's `nnue_bench_nps`.
    pub nnue: Option<NonZeroU64>,
}

impl ReferenceNps {
    /// Only a reference for the hand-crafted evaluation: runs that play a network are not
    /// scaled.
    pub const fn hce(nps: Option<NonZeroU64>) -> ReferenceNps {
        ReferenceNps { hce: nps, nnue: None }
    }
}

/// Which of a worker's speeds a run's time control is scaled by: [`lease_scale`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScaledBy {
    /// The hand-crafted evaluation's: every variant of the run is the HCE or an external engine.
    Hce,
    /// A network's: an in-process variant of the run evaluates with a network.
    Network,
}

/// The scale of a lease of a run on a worker measured at `bench_nps` with the hand-crafted
/// evaluation and `nnue_bench_nps` with a network (0: not measured). A run whose in-process
/// variants include one that evaluates with a network ([`ScaledBy::Network`]) is scaled by the
/// network speeds, [`worker_scale`]`(references.nnue, nnue_bench_nps)`: unscaled without a
/// network reference or on a worker that did not measure one (an older worker), never by the
/// HCE's ratio, which is not the network's. A lease has one time control, so a run that plays a
/// network against the HCE is scaled as a network run: the network's side is the one whose
/// speed varies most between machines. Every other run is scaled as before, by the HCE speeds.
pub fn lease_scale(references: ReferenceNps, bench_nps: u64, nnue_bench_nps: u64, by: ScaledBy) -> WorkerScale {
    match by {
        ScaledBy::Hce => worker_scale(references.hce, bench_nps),
        ScaledBy::Network => worker_scale(references.nnue, nnue_bench_nps),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const REF: Option<NonZeroU64> = NonZeroU64::new(1_000_000);

    fn scale(permille: u32) -> TcScale {
        TcScale::from_permille(permille).expect("positive")
    }

    #[test]
    fn the_factor_is_reference_over_worker_speed() {
        assert_eq!(worker_scale(REF, 1_000_000), WorkerScale { scale: TcScale::UNSCALED, clamped: false });
        assert_eq!(worker_scale(REF, 500_000).scale.permille(), 2_000, "half the speed, twice the time");
        assert_eq!(worker_scale(REF, 2_000_000).scale.permille(), 500);
        assert_eq!(worker_scale(REF, 3_000_000).scale.permille(), 333, "rounded to the thousandth");
        assert_eq!(worker_scale(REF, 1_500_000).scale.permille(), 667, "half up");
        assert_eq!(worker_scale(REF, 1_000_000).scale.factor(), 1.0);
        assert_eq!(worker_scale(REF, 800_000).scale.to_string(), "1.250");
    }

    #[test]
    fn unmeasured_workers_and_a_coordinator_without_reference_play_unscaled() {
        let unscaled = WorkerScale { scale: TcScale::UNSCALED, clamped: false };
        assert_eq!(worker_scale(REF, 0), unscaled);
        assert_eq!(worker_scale(None, 500_000), unscaled);
        assert_eq!(worker_scale(None, 0), unscaled);
        assert_eq!(TcScale::from_permille(0), None);
        assert_eq!(TcScale::default(), TcScale::UNSCALED);
    }

    #[test]
    fn speeds_beyond_the_bounds_are_served_at_the_bound() {
        let at = |nps| worker_scale(REF, nps);
        assert_eq!(at(250_000), WorkerScale { scale: scale(4_000), clamped: false }, "4x slower: the bound itself");
        assert_eq!(at(249_000), WorkerScale { scale: scale(4_000), clamped: true });
        assert_eq!(at(1), WorkerScale { scale: scale(MAX_SCALE_PERMILLE), clamped: true });
        assert_eq!(at(4_000_000), WorkerScale { scale: scale(250), clamped: false });
        assert_eq!(at(4_100_000), WorkerScale { scale: scale(MIN_SCALE_PERMILLE), clamped: true });
        assert_eq!(at(u64::MAX), WorkerScale { scale: scale(MIN_SCALE_PERMILLE), clamped: true });
        let huge = worker_scale(NonZeroU64::new(u64::MAX), 1);
        assert_eq!(huge, WorkerScale { scale: scale(MAX_SCALE_PERMILLE), clamped: true }, "no overflow");
    }

    #[test]
    fn move_times_and_clocks_scale_and_round_to_the_millisecond() {
        assert_eq!(scale(2_000).apply(TimeControl::MoveTimeMs(100)), TimeControl::MoveTimeMs(200));
        assert_eq!(scale(500).apply(TimeControl::MoveTimeMs(100)), TimeControl::MoveTimeMs(50));
        assert_eq!(scale(333).apply(TimeControl::MoveTimeMs(100)), TimeControl::MoveTimeMs(33));
        assert_eq!(scale(1_250).apply(TimeControl::MoveTimeMs(2)), TimeControl::MoveTimeMs(3), "2.5 rounds up");
        let clock = TimeControl::Clock { base_ms: 10_000, inc_ms: 100 };
        assert_eq!(scale(2_000).apply(clock), TimeControl::Clock { base_ms: 20_000, inc_ms: 200 });
        assert_eq!(scale(250).apply(clock), TimeControl::Clock { base_ms: 2_500, inc_ms: 25 });
        assert_eq!(TcScale::UNSCALED.apply(clock), clock);
    }

    #[test]
    fn scaled_times_stay_within_the_protocol_bounds() {
        // At least 1 ms: a quarter of 1 ms is still a move time.
        assert_eq!(scale(250).apply(TimeControl::MoveTimeMs(1)), TimeControl::MoveTimeMs(1));
        let clock = TimeControl::Clock { base_ms: 1, inc_ms: 1 };
        assert_eq!(scale(250).apply(clock), TimeControl::Clock { base_ms: 1, inc_ms: 1 });
        // A zero increment is no increment on any machine.
        let sudden_death = TimeControl::Clock { base_ms: 60_000, inc_ms: 0 };
        assert_eq!(scale(4_000).apply(sudden_death), TimeControl::Clock { base_ms: 240_000, inc_ms: 0 });
        // Never beyond what a time control may say.
        let long = TimeControl::MoveTimeMs(MAX_TIME_MS);
        assert_eq!(scale(4_000).apply(long), long);
        for tc in [scale(4_000).apply(long), scale(250).apply(TimeControl::MoveTimeMs(1))] {
            assert_eq!(tc.validate(), Ok(()), "{tc}");
        }
    }

    #[test]
    fn runs_that_play_a_network_are_scaled_by_the_network_speeds_and_others_by_the_hce() {
        let both = ReferenceNps { hce: REF, nnue: NonZeroU64::new(400_000) };
        // A worker at half the HCE reference but a quarter of the network's (no AVX2, say).
        let (hce, nnue) = (500_000, 100_000);
        assert_eq!(lease_scale(both, hce, nnue, ScaledBy::Hce).scale, scale(2_000), "the HCE's ratio");
        assert_eq!(lease_scale(both, hce, nnue, ScaledBy::Network).scale, scale(4_000), "the network's ratio");
        assert_eq!(lease_scale(both, hce, 800_000, ScaledBy::Network).scale, scale(500));
        let clamped = lease_scale(both, hce, 50_000, ScaledBy::Network);
        assert_eq!(clamped, WorkerScale { scale: scale(MAX_SCALE_PERMILLE), clamped: true });
        // The HCE path does not look at the network speeds.
        assert_eq!(lease_scale(both, hce, 0, ScaledBy::Hce), worker_scale(REF, hce));
        assert_eq!(lease_scale(ReferenceNps::hce(REF), hce, nnue, ScaledBy::Hce), worker_scale(REF, hce));
    }

    #[test]
    fn a_network_run_without_a_network_reference_or_speed_is_not_scaled_by_the_hce() {
        let unscaled = WorkerScale { scale: TcScale::UNSCALED, clamped: false };
        // No network reference: unscaled, however the HCE reference and speed compare.
        assert_eq!(lease_scale(ReferenceNps::hce(REF), 250_000, 100_000, ScaledBy::Network), unscaled);
        // A worker that did not measure a network (an older one): unscaled.
        let both = ReferenceNps { hce: REF, nnue: NonZeroU64::new(400_000) };
        assert_eq!(lease_scale(both, 250_000, 0, ScaledBy::Network), unscaled);
        assert_eq!(lease_scale(ReferenceNps::default(), 250_000, 100_000, ScaledBy::Hce), unscaled);
    }

    #[test]
    fn nodes_and_depth_are_never_scaled() {
        for permille in [MIN_SCALE_PERMILLE, 1_000, 2_000, MAX_SCALE_PERMILLE] {
            assert_eq!(scale(permille).apply(TimeControl::Nodes(20_000)), TimeControl::Nodes(20_000));
            assert_eq!(scale(permille).apply(TimeControl::Depth(7)), TimeControl::Depth(7));
        }
    }
}
