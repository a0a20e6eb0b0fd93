//! The repetition lookup table (RULES.md, repetition steps 4-5) as a pure function over the
//! classes of the two sides' moves. M is the side that made the first move of the cycle,
//! O the other side.

/// One move of the cycle; a chase carries the chased pieces as a mask of piece identities
/// (see `chase::PieceIds`), so that a piece is the same piece after it moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CycleMove {
    Check,
    Chase(u32),
    Idle,
}

/// All of one side's moves in the cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SideClass {
    /// Not all of one class.
    Mixed,
    /// Every move a check.
    Check,
    /// Every move a chase; the pieces chased by every one of them (P+ or P-, may be 0).
    Chase(u32),
    /// Every move idle (also a side without moves, which a real cycle never has).
    Idle,
}

impl SideClass {
    /// Folds one side's moves into its class.
    pub fn of(moves: impl IntoIterator<Item = CycleMove>) -> SideClass {
        let mut class: Option<SideClass> = None;
        for m in moves {
            class = Some(match (class, m) {
                (None, CycleMove::Check) => SideClass::Check,
                (None, CycleMove::Chase(p)) => SideClass::Chase(p),
                (None, CycleMove::Idle) => SideClass::Idle,
                (Some(SideClass::Check), CycleMove::Check) => SideClass::Check,
                (Some(SideClass::Chase(p)), CycleMove::Chase(q)) => SideClass::Chase(p & q),
                (Some(SideClass::Idle), CycleMove::Idle) => SideClass::Idle,
                _ => SideClass::Mixed,
            });
        }
        class.unwrap_or(SideClass::Idle)
    }
}

/// What a side is punished for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Violation {
    PerpetualCheck,
    PerpetualChase,
}

/// The table's answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CycleVerdict {
    Draw,
    /// M, the side that made the first move of the cycle, loses.
    FirstMoverLoses(Violation),
    /// O, the other side, loses.
    SecondMoverLoses(Violation),
}

/// The verdict for a cycle in which M's moves are of class `m` and O's of class `o`: the
/// first matching row of the table wins.
///
/// | A | B | P+ | P- | verdict |
/// |---|---|---|---|---|
/// | mixed | any | | | draw (step 4) |
/// | any | mixed | | | draw (step 4) |
/// | check | check | | | draw |
/// | check | not check | | | M loses (perpetual check) |
/// | not check | check | | | O loses (perpetual check) |
/// | chase | chase | non-empty | non-empty | draw |
/// | chase | chase | non-empty | empty | M loses (perpetual chase) |
/// | chase | chase | empty | non-empty | O loses (perpetual chase) |
/// | chase | idle | non-empty | | M loses (perpetual chase) |
/// | idle | chase | | non-empty | O loses (perpetual chase) |
/// | anything else | | | | draw |
pub const fn cycle_verdict(m: SideClass, o: SideClass) -> CycleVerdict {
    use CycleVerdict::{Draw, FirstMoverLoses, SecondMoverLoses};
    use SideClass::{Chase, Check, Idle, Mixed};
    use Violation::{PerpetualChase, PerpetualCheck};
    match (m, o) {
        (Mixed, _) | (_, Mixed) => Draw,
        (Check, Check) => Draw,
        (Check, _) => FirstMoverLoses(PerpetualCheck),
        (_, Check) => SecondMoverLoses(PerpetualCheck),
        (Chase(p), Chase(q)) => match (p != 0, q != 0) {
            (true, true) | (false, false) => Draw,
            (true, false) => FirstMoverLoses(PerpetualChase),
            (false, true) => SecondMoverLoses(PerpetualChase),
        },
        (Chase(p), Idle) if p != 0 => FirstMoverLoses(PerpetualChase),
        (Idle, Chase(q)) if q != 0 => SecondMoverLoses(PerpetualChase),
        _ => Draw,
    }
}

#[cfg(test)]
mod tests {
    use super::CycleVerdict::{Draw, FirstMoverLoses, SecondMoverLoses};
    use super::SideClass::{Chase, Check, Idle, Mixed};
    use super::Violation::{PerpetualChase, PerpetualCheck};
    use super::*;

    const SOME: u32 = 0b101;
    const OTHER: u32 = 0b10;

    #[test]
    fn fold_of_moves() {
        assert_eq!(SideClass::of([CycleMove::Check, CycleMove::Check]), Check);
        assert_eq!(SideClass::of([CycleMove::Idle, CycleMove::Idle]), Idle);
        assert_eq!(SideClass::of([CycleMove::Check, CycleMove::Idle]), Mixed);
        assert_eq!(SideClass::of([CycleMove::Chase(SOME), CycleMove::Idle]), Mixed);
        assert_eq!(SideClass::of([CycleMove::Chase(SOME), CycleMove::Check]), Mixed);
        assert_eq!(SideClass::of([CycleMove::Chase(0b111), CycleMove::Chase(0b110)]), Chase(0b110));
        assert_eq!(SideClass::of([CycleMove::Chase(SOME), CycleMove::Chase(OTHER)]), Chase(0));
        assert_eq!(SideClass::of([]), Idle);
    }

    #[test]
    fn step_4_mixed_is_a_draw() {
        for other in [Mixed, Check, Chase(SOME), Chase(0), Idle] {
            assert_eq!(cycle_verdict(Mixed, other), Draw, "{other:?}");
            assert_eq!(cycle_verdict(other, Mixed), Draw, "{other:?}");
        }
    }

    #[test]
    fn row_1_check_check_draw() {
        assert_eq!(cycle_verdict(Check, Check), Draw);
    }

    #[test]
    fn row_2_check_against_no_check() {
        for o in [Chase(SOME), Chase(0), Idle] {
            assert_eq!(cycle_verdict(Check, o), FirstMoverLoses(PerpetualCheck), "{o:?}");
        }
    }

    #[test]
    fn row_3_no_check_against_check() {
        for m in [Chase(SOME), Chase(0), Idle] {
            assert_eq!(cycle_verdict(m, Check), SecondMoverLoses(PerpetualCheck), "{m:?}");
        }
    }

    #[test]
    fn row_4_mutual_chase_draw() {
        assert_eq!(cycle_verdict(Chase(SOME), Chase(OTHER)), Draw);
        assert_eq!(cycle_verdict(Chase(SOME), Chase(SOME)), Draw);
    }

    #[test]
    fn row_5_only_m_chases_one_piece() {
        assert_eq!(cycle_verdict(Chase(SOME), Chase(0)), FirstMoverLoses(PerpetualChase));
    }

    #[test]
    fn row_6_only_o_chases_one_piece() {
        assert_eq!(cycle_verdict(Chase(0), Chase(OTHER)), SecondMoverLoses(PerpetualChase));
    }

    #[test]
    fn row_7_chase_against_idle() {
        assert_eq!(cycle_verdict(Chase(SOME), Idle), FirstMoverLoses(PerpetualChase));
    }

    #[test]
    fn row_8_idle_against_chase() {
        assert_eq!(cycle_verdict(Idle, Chase(OTHER)), SecondMoverLoses(PerpetualChase));
    }

    #[test]
    fn row_9_anything_else_draw() {
        assert_eq!(cycle_verdict(Idle, Idle), Draw);
        assert_eq!(cycle_verdict(Chase(0), Chase(0)), Draw);
        assert_eq!(cycle_verdict(Chase(0), Idle), Draw);
        assert_eq!(cycle_verdict(Idle, Chase(0)), Draw);
    }
}
