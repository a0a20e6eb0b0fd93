//! Changes one coordinator announces to the others that share its store (PostgreSQL's
//! LISTEN/NOTIFY): that runs or their results changed (watchers re-read them), and how many
//! games of a run the exporter has written to Parquet. An embedded store has no other
//! coordinator, and its backend announces nothing.

use std::sync::Arc;

use proto::domain::RunId;

/// A change, as announced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    /// Runs, leases or results changed: re-read what you show.
    Runs,
    /// The exporter has `games` games of `run` in Parquet.
    Exported { run: RunId, games: u64 },
}

/// Where a backend delivers the changes other coordinators announce.
pub type ChangeSink = Arc<dyn Fn(Change) + Send + Sync>;

impl Change {
    /// The notification's text: the announcing coordinator's id (so that it ignores its own),
    /// then the change.
    pub fn encode(self, origin: u64) -> String {
        match self {
            Change::Runs => format!("{origin:016x} runs"),
            Change::Exported { run, games } => format!("{origin:016x} exported {} {games}", run.get()),
        }
    }

    /// A notification's origin and change; `None` for text no coordinator of this version sends.
    pub fn decode(text: &str) -> Option<(u64, Change)> {
        let mut words = text.split(' ');
        let origin = u64::from_str_radix(words.next()?, 16).ok()?;
        let change = match (words.next()?, words.next(), words.next(), words.next()) {
            ("runs", None, None, None) => Change::Runs,
            ("exported", Some(run), Some(games), None) => {
                Change::Exported { run: RunId::new(run.parse().ok()?), games: games.parse().ok()? }
            }
            _ => return None,
        };
        Some((origin, change))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changes_round_trip_with_their_origin() {
        for change in [Change::Runs, Change::Exported { run: RunId::new(7), games: 1234 }] {
            for origin in [0, 42, u64::MAX] {
                assert_eq!(Change::decode(&change.encode(origin)), Some((origin, change)));
            }
        }
    }

    #[test]
    fn other_text_is_ignored() {
        for text in
            ["", "runs", "zz runs", "0000000000000001 runs extra", "0000000000000001 exported 7", "1 exported x 3"]
        {
            assert_eq!(Change::decode(text), None, "{text:?}");
        }
    }
}
