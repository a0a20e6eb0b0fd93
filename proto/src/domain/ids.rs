//! Typed ids: a run's id cannot be passed where a lease's is expected. Numeric ids are
//! assigned by the coordinator's store and travel as `u64` on the wire and `INTEGER` in SQLite;
//! [`new`](RunId::new) and [`get`](RunId::get) (or `u64::from`) are the only ways across
//! those boundaries.

use std::fmt;
use std::str::FromStr;

macro_rules! numeric_id {
    ($(#[$doc:meta])* $name:ident, $what:literal) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(u64);

        impl $name {
            pub const fn new(value: u64) -> $name {
                $name(value)
            }

            pub const fn get(self) -> u64 {
                self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Display::fmt(&self.0, f)
            }
        }

        impl From<$name> for u64 {
            fn from(id: $name) -> u64 {
                id.0
            }
        }

        impl FromStr for $name {
            type Err = crate::Error;
            /// A decimal number, as `Display` writes it.
            fn from_str(text: &str) -> crate::Result<$name> {
                text.trim().parse().map($name).map_err(|_| crate::Error::InvalidId { what: $what, given: text.to_owned() })
            }
        }
    };
}

numeric_id!(
    /// A run, numbered by the store from 1.
    RunId,
    "run id"
);
impl RunId {
    /// The first id of an imported run (`xqfarm import pgn`): imported runs are numbered from
    /// here, in a range no store reaches (a store numbers its runs from 1 and refuses to pass
    /// this one), so a coordinator never gives one of them to a run of its own. Below 2^24, so
    /// that a run still fits the top 24 bits of a game key (`analysis::data::game_key`).
    pub const FIRST_IMPORTED: RunId = RunId(1 << 23);

    /// Whether this run was imported from game archives rather than played by a farm.
    pub const fn is_imported(self) -> bool {
        self.0 >= RunId::FIRST_IMPORTED.0
    }
}

numeric_id!(
    /// A registered worker.
    WorkerId,
    "worker id"
);
numeric_id!(
    /// A lease of game pairs to one worker.
    LeaseId,
    "lease id"
);
numeric_id!(
    /// A stored opening suite.
    SuiteId,
    "suite id"
);

/// A variant, named by the hex SHA-256 of its canonical description: the same engine and
/// settings always have the same id. Lookups by `&str` work through `Borrow<str>`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VariantId(String);

impl VariantId {
    pub fn new(id: impl Into<String>) -> VariantId {
        VariantId(id.into())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for VariantId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::borrow::Borrow<str> for VariantId {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for VariantId {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl From<String> for VariantId {
    fn from(id: String) -> VariantId {
        VariantId(id)
    }
}

impl From<&str> for VariantId {
    fn from(id: &str) -> VariantId {
        VariantId(id.to_owned())
    }
}

impl From<VariantId> for String {
    fn from(id: VariantId) -> String {
        id.0
    }
}

impl FromStr for VariantId {
    type Err = crate::Error;
    /// Any non-empty text without spaces (the store says whether such a variant exists).
    fn from_str(text: &str) -> crate::Result<VariantId> {
        let id = text.trim();
        if id.is_empty() || id.contains(char::is_whitespace) {
            return Err(crate::Error::InvalidId { what: "variant id", given: text.to_owned() });
        }
        Ok(VariantId(id.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_print_and_parse_as_numbers() {
        let run = RunId::new(42);
        assert_eq!(run.to_string(), "42");
        assert_eq!("42".parse::<RunId>(), Ok(run));
        assert_eq!(run.get(), 42);
    }

    #[test]
    fn a_bad_id_names_what_and_the_text() {
        let err = "x7".parse::<LeaseId>().unwrap_err();
        assert_eq!(err.to_string(), "invalid lease id `x7` (expected a non-negative whole number)");
        assert!("-1".parse::<WorkerId>().is_err());
    }

    #[test]
    fn variant_ids_are_text_and_look_up_by_str() {
        let id: VariantId = "ab12".parse().expect("an id");
        assert_eq!(id.as_str(), "ab12");
        let map = std::collections::HashMap::from([(id.clone(), 1)]);
        assert_eq!(map.get("ab12"), Some(&1));
        assert!("".parse::<VariantId>().is_err());
        assert!("a b".parse::<VariantId>().is_err());
    }
}
