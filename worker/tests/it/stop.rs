//! Stopping a lease early (`runner::play_lease_until`): no pair starts after the stop, and a
//! game in progress is abandoned at its next move and never reported.

use std::time::{Duration, Instant};

use engine::eval::Params;
use engine::{Limits, Position};
use proto::domain::{Adjudication, Lease, LeaseId, PairTask, RunId, TimeControl, Variant, VariantKind, VariantSpec};
use worker::player::{Player, Reply};
use worker::runner::{StopFlag, default_player, play_lease_until};

fn variant(id: &str, params: &Params) -> Variant {
    Variant {
        id: id.into(),
        spec: VariantSpec { name: id.into(), kind: VariantKind::Params { toml: params.to_toml() } },
    }
}

fn lease(pairs: u64) -> Lease {
    Lease {
        id: LeaseId::new(1),
        run: RunId::new(1),
        tasks: (0..pairs)
            .map(|i| PairTask {
                pair_index: i,
                pairing: 0,
                opening_index: 0,
                opening: "startpos moves h2e2 h9g7".into(),
                second_opening: None,
                variants: ["a".into(), "b".into()],
            })
            .collect(),
        deadline_unix_ms: 0,
        tc: TimeControl::Nodes(1_000),
        adjudication: Adjudication::default(),
        sample_every: 0,
        variants: vec![variant("a", &Params::default()), variant("b", &Params::material_only())],
        spsa: None,
        tablebases: Vec::new(),
    }
}

#[test]
fn without_a_stop_every_pair_is_played() {
    let mut pairs = Vec::new();
    play_lease_until(&lease(2), 2, &default_player, "t", &StopFlag::new(), |p| pairs.push(p.pair_index))
        .expect("played");
    pairs.sort_unstable();
    assert_eq!(pairs, [0, 1]);
}

#[test]
fn no_pair_starts_after_a_stop() {
    let stop = StopFlag::new();
    let mut pairs = Vec::new();
    play_lease_until(&lease(4), 1, &default_player, "t", &stop, |p| {
        pairs.push(p.pair_index);
        stop.stop();
    })
    .expect("a stop is no error");
    assert_eq!(pairs, [0], "the pair finished before the stop is reported, no other starts");
}

/// Plays like its inner player, and stops the whole worker on its `at`-th move.
struct StopsTheWorker {
    inner: Box<dyn Player>,
    moves: usize,
    at: usize,
    stop: StopFlag,
}

impl Player for StopsTheWorker {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn new_game(&mut self) -> worker::Result<()> {
        self.inner.new_game()
    }

    fn play(&mut self, pos: &Position, limits: &Limits) -> worker::Result<Reply> {
        self.moves += 1;
        if self.moves == self.at {
            self.stop.stop();
        }
        self.inner.play(pos, limits)
    }
}

#[test]
fn a_game_in_progress_is_abandoned_and_not_reported() {
    let stop = StopFlag::new();
    let trigger = stop.clone();
    let factory = move |v: &Variant| -> worker::Result<Box<dyn Player>> {
        Ok(Box::new(StopsTheWorker { inner: default_player(v)?, moves: 0, at: 6, stop: trigger.clone() }))
    };
    let started = Instant::now();
    let mut reported = Vec::new();
    play_lease_until(&lease(3), 1, &factory, "t", &stop, |p| reported.push(p)).expect("a stop is no error");
    assert!(reported.is_empty(), "an abandoned game is no result: {reported:?}");
    assert!(started.elapsed() < Duration::from_secs(10), "{:?}", started.elapsed());
}
