//! The one vocabulary of each closed set the farm stores or types: the text a value has in
//! SQLite, Parquet, JSON, the analysis and on the command line is its `as_str`, and `FromStr`
//! reads exactly those texts back. With the crate feature `clap`, each set is a
//! `clap::ValueEnum` whose possible values are the same texts.
//!
//! ```
//! use proto::domain::{EloModel, EngineProtocol};
//!
//! assert_eq!(EloModel::Logistic.as_str(), "logistic");
//! assert_eq!("ucci".parse::<EngineProtocol>()?, EngineProtocol::Ucci);
//! let err = "elo".parse::<EloModel>().unwrap_err();
//! assert_eq!(err.to_string(), "unknown Elo model `elo` (expected normalized or logistic)");
//! # Ok::<(), proto::Error>(())
//! ```

use crate::error::Error;

/// Declares a fieldless enum with its texts: `as_str`, `ALL`, `Display`, `FromStr` (an
/// unknown text is [`Error::UnknownName`] listing the known ones) and, with `clap`,
/// `ValueEnum` (`| "alias"` after a text adds a spelling only the command line accepts).
macro_rules! closed_set {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident ($what:literal) {
            $( $(#[$vmeta:meta])* $variant:ident = $text:literal $(| $alias:literal)* ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        $vis enum $name {
            $( $(#[$vmeta])* $variant ),+
        }

        impl $name {
            /// Every value, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The value's one text, as stored and typed.
            pub fn as_str(self) -> &'static str {
                match self {
                    $( $name::$variant => $text ),+
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl std::str::FromStr for $name {
            type Err = Error;
            fn from_str(s: &str) -> Result<$name, Error> {
                $name::ALL.iter().copied().find(|v| v.as_str() == s).ok_or_else(|| Error::UnknownName {
                    what: $what,
                    given: s.to_owned(),
                    expected: $name::ALL.iter().map(|v| v.as_str()).collect::<Vec<_>>().join(" or "),
                })
            }
        }

        #[cfg(feature = "clap")]
        impl clap::ValueEnum for $name {
            fn value_variants<'a>() -> &'a [Self] {
                $name::ALL
            }
            fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
                let aliases: &[&'static str] = match self {
                    $( $name::$variant => &[$($alias),*] ),+
                };
                Some(clap::builder::PossibleValue::new(self.as_str()).aliases(aliases.iter().copied()))
            }
        }
    };
}

closed_set! {
    /// Protocol of an external engine.
    pub enum EngineProtocol ("engine protocol") {
        Uci = "uci",
        Ucci = "ucci",
    }
}

closed_set! {
    /// Which Elo the SPRT bounds are stated in.
    #[derive(Default)]
    pub enum EloModel ("Elo model") {
        /// Normalized Elo (Fishtest's default since 2021): bounds mean the same test length
        /// whatever the draw rate.
        #[default]
        Normalized = "normalized",
        /// Logistic Elo: bounds on the expected score.
        Logistic = "logistic",
    }
}

closed_set! {
    /// What a run plays, without its settings (see [`super::RunKind`]).
    pub enum RunKindName ("run kind") {
        Sprt = "sprt",
        Games = "games",
        Gauntlet = "gauntlet",
        /// The command line also takes `round-robin`.
        RoundRobin = "round_robin" | "round-robin",
    }
}

closed_set! {
    /// Where a run stands (see [`super::RunState`], which this names one to one).
    pub enum RunStateName ("run state") {
        Active = "active",
        /// The SPRT accepted H0 (no gain of elo1).
        SprtH0 = "sprt_h0",
        /// The SPRT accepted H1 (the candidate is better).
        SprtH1 = "sprt_h1",
        /// All scheduled pairs played.
        Completed = "completed",
        /// Stopped by a user.
        Stopped = "stopped",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trips<T: Copy + PartialEq + std::fmt::Debug + std::str::FromStr<Err = Error>>(
        all: &[T],
        text: fn(T) -> &'static str,
    ) {
        let mut seen = std::collections::HashSet::new();
        for &v in all {
            assert!(seen.insert(text(v)), "{} twice", text(v));
            assert_eq!(text(v).parse::<T>().ok(), Some(v));
        }
    }

    #[test]
    fn every_text_reads_back_and_is_unique() {
        round_trips(EngineProtocol::ALL, EngineProtocol::as_str);
        round_trips(EloModel::ALL, EloModel::as_str);
        round_trips(RunKindName::ALL, RunKindName::as_str);
        round_trips(RunStateName::ALL, RunStateName::as_str);
    }

    #[test]
    fn unknown_texts_name_the_set_and_the_choices() {
        let err = "h1".parse::<RunStateName>().unwrap_err();
        assert_eq!(
            err.to_string(),
            "unknown run state `h1` (expected active or sprt_h0 or sprt_h1 or completed or stopped)"
        );
        assert!("Round_Robin".parse::<RunKindName>().is_err(), "texts are exact");
    }
}
