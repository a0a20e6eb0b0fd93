//! The clock of a `BASE+INC` game, in whole milliseconds: the worker keeps it with this code
//! and the referee replays it from the reported move times, so both agree to the millisecond
//! on whether a move ran out of time.

use engine::Color;

use super::TimeControl;

/// Both sides' time left.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameClock {
    left_ms: [u64; 2],
    inc_ms: u64,
}

/// A move that took longer than the time its side had left: the side loses on time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Overrun {
    pub used_ms: u64,
    pub left_ms: u64,
}

impl GameClock {
    /// The clock of a [`TimeControl::Clock`] game; `None` for the other time controls, which
    /// are never lost on time.
    pub fn new(tc: TimeControl) -> Option<GameClock> {
        match tc {
            TimeControl::Clock { base_ms, inc_ms } => Some(GameClock { left_ms: [base_ms; 2], inc_ms }),
            _ => None,
        }
    }

    pub fn left_ms(&self, side: Color) -> u64 {
        self.left_ms[side.index()]
    }

    pub fn inc_ms(&self) -> u64 {
        self.inc_ms
    }

    /// Charges `side` for a move that took `used_ms`, then adds the increment. A move that
    /// took more than the time left overruns (using all of it exactly does not).
    pub fn spend(&mut self, side: Color, used_ms: u64) -> Result<(), Overrun> {
        let left = &mut self.left_ms[side.index()];
        if used_ms > *left {
            return Err(Overrun { used_ms, left_ms: *left });
        }
        *left = *left - used_ms + self.inc_ms;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn charges_each_side_and_adds_the_increment() {
        assert_eq!(GameClock::new(TimeControl::Nodes(10)), None);
        let mut clock = GameClock::new(TimeControl::Clock { base_ms: 100, inc_ms: 10 }).expect("a clock");
        assert_eq!(clock.spend(Color::Red, 100), Ok(()));
        assert_eq!(clock.left_ms(Color::Red), 10);
        assert_eq!(clock.left_ms(Color::Black), 100);
        assert_eq!(clock.spend(Color::Red, 11), Err(Overrun { used_ms: 11, left_ms: 10 }));
        assert_eq!(clock.left_ms(Color::Red), 10, "an overrun changes nothing");
    }
}
