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

#[cfg(test)]
use crate::error::Error;

/// Declares a closed set with its texts: `as_str`, `ALL`, `Display`, `FromStr` (an unknown
/// text is [`crate::Error::UnknownName`] listing the known ones) and, with `clap`, `ValueEnum` (`|
/// "alias"` after a text adds a spelling only the command line accepts).
///
/// Two forms. `enum Name ("what") { Variant = "text", ... }` declares a fieldless enum.
/// `impl Name ("what") { Variant = "text", Wrapper(Inner::Value) = "text", ... }` gives the
/// texts of an enum declared elsewhere whose members may wrap a value of another closed set
/// (a termination wraps the rules' reason); `otherwise = "text"` after the braces names the
/// values outside the set, which `FromStr` never returns and `ALL` does not hold.
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

        closed_set! {
            impl $name ($what) {
                $( $variant = $text $(| $alias)* ),+
            }
        }
    };
    (
        impl $name:ident ($what:literal) {
            $( $variant:ident $(($inner:path))? = $text:literal $(| $alias:literal)* ),+ $(,)?
        }
        $(otherwise = $other:literal)?
    ) => {
        impl $name {
            /// Every value, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant $(($inner))?),+];

            /// The value's one text, as stored and typed.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $( $name::$variant $(($inner))? => $text, )+
                    $( #[allow(unreachable_patterns)] _ => $other, )?
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl std::str::FromStr for $name {
            type Err = $crate::Error;
            fn from_str(s: &str) -> ::std::result::Result<$name, $crate::Error> {
                $name::ALL.iter().copied().find(|v| v.as_str() == s).ok_or_else(|| $crate::Error::UnknownName {
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
                    $( $name::$variant $(($inner))? => &[$($alias),*], )+
                    $( #[allow(unreachable_patterns)] _ => { let _ = $other; return None } )?
                };
                Some(clap::builder::PossibleValue::new(self.as_str()).aliases(aliases.iter().copied()))
            }
        }
    };
}

pub(crate) use closed_set;

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
        Spsa = "spsa",
        Tournament = "tournament",
        /// Training data: one variant against itself, every position recorded.
        Datagen = "datagen",
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

closed_set! {
    /// A game's result from Red's side, in PGN's words (as [`engine::rules::GameResult`] writes
    /// a finished game's).
    pub enum GameOutcome ("game outcome") {
        RedWins = "1-0",
        BlackWins = "0-1",
        Draw = "1/2-1/2",
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
        round_trips(GameOutcome::ALL, GameOutcome::as_str);
    }

    fn texts<T: Copy>(all: &[T], text: fn(T) -> &'static str) -> Vec<&'static str> {
        all.iter().map(|&v| text(v)).collect()
    }

    #[test]
    fn stored_texts_never_change() {
        // These texts are in SQLite databases and Parquet files written by earlier versions.
        assert_eq!(texts(EngineProtocol::ALL, EngineProtocol::as_str), ["uci", "ucci"]);
        assert_eq!(texts(EloModel::ALL, EloModel::as_str), ["normalized", "logistic"]);
        assert_eq!(
            texts(RunKindName::ALL, RunKindName::as_str),
            ["sprt", "games", "gauntlet", "round_robin", "spsa", "tournament", "datagen"]
        );
        assert_eq!(
            texts(RunStateName::ALL, RunStateName::as_str),
            ["active", "sprt_h0", "sprt_h1", "completed", "stopped"]
        );
        assert_eq!(texts(GameOutcome::ALL, GameOutcome::as_str), ["1-0", "0-1", "1/2-1/2"]);
    }

    #[test]
    fn outcomes_are_written_as_the_engine_writes_results() {
        use engine::rules::GameResult;
        let pairs = [
            (GameOutcome::RedWins, GameResult::RedWins),
            (GameOutcome::BlackWins, GameResult::BlackWins),
            (GameOutcome::Draw, GameResult::Draw),
        ];
        for (outcome, result) in pairs {
            assert_eq!(outcome.as_str(), result.as_str());
        }
        let err = "2-0".parse::<GameOutcome>().unwrap_err();
        assert_eq!(err.to_string(), "unknown game outcome `2-0` (expected 1-0 or 0-1 or 1/2-1/2)");
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
