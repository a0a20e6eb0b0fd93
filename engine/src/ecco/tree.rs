//! The ECCO decision tree over the first ten rounds, written from xqbase's published
//! definition as vschess's `WXF2ECCO` states it (LGPL; studied, not copied).
//!
//! Each branch reads the moves as the definition does: `r(i)` and `b(i)` are Red's and Black's
//! moves of round `i` (counting from 0), in the normalised WXF of [`super::normalise`], with
//! the game already turned so that Red's first move is on Red's right wing. A missing move is
//! the empty string, which matches no pattern, so a short game takes each `_` arm. Where the
//! published tree scans "the moves so far" it scans rounds 1..=9 (Black's also from round 1),
//! and where its scans fall through into the next case the code below does the same, so a
//! game gets the code the definition gives it, quirks included.

/// The rounds the definition reads: ten, twenty plies.
pub(super) const PLIES: usize = 20;

/// A game's first twenty plies, normalised, padded with empty strings.
#[derive(Debug)]
pub(super) struct Game {
    plies: Vec<String>,
}

/// Which of a set of moves Red has played.
#[derive(Default)]
struct Seen {
    first: bool,
    second: bool,
}

impl Game {
    pub(super) fn new(mut plies: Vec<String>) -> Game {
        plies.truncate(PLIES);
        plies.resize(PLIES, String::new());
        Game { plies }
    }

    fn ply(&self, i: usize) -> &str {
        self.plies.get(i).map_or("", String::as_str)
    }

    /// Red's move of round `i`.
    fn r(&self, i: usize) -> &str {
        self.ply(2 * i)
    }

    /// Black's move of round `i`.
    fn b(&self, i: usize) -> &str {
        self.ply(2 * i + 1)
    }

    /// The plies from `start` on are `moves`, in that order.
    fn line_at(&self, start: usize, moves: &[&str]) -> bool {
        moves.iter().enumerate().all(|(k, m)| self.ply(start + k) == *m)
    }

    /// The first plies are `moves` (alternating Red, Black) with each side's moves in any order.
    fn transposes(&self, moves: &[&str]) -> bool {
        let side = |parity: usize, ply_of: fn(&Game, usize) -> &str| {
            let mut wanted: Vec<&str> = moves.iter().skip(parity).step_by(2).copied().collect();
            (0..wanted.len()).all(|i| match wanted.iter().position(|w| *w == ply_of(self, i)) {
                Some(at) => {
                    wanted.swap_remove(at);
                    true
                }
                None => false,
            })
        };
        side(0, Game::r) && side(1, Game::b)
    }

    /// Red's rounds 1..=9 are all among `moves` and include both `a` and `b`.
    fn red_plays_both(&self, a: &str, b: &str, also: &[&str]) -> bool {
        let mut seen = Seen::default();
        for i in 1..10 {
            let m = self.r(i);
            if m == a {
                if seen.second {
                    return true;
                }
                seen.first = true;
            } else if m == b {
                if seen.first {
                    return true;
                }
                seen.second = true;
            } else if !also.contains(&m) {
                return false;
            }
        }
        false
    }

    pub(super) fn code(&self) -> &'static str {
        match self.r(0) {
            "B3+5" => self.elephant(),
            "N2+3" => match self.b(0) {
                "P7+1" => match self.r(1) {
                    "P7+1" => "A45",
                    "C8.5" => "A44",
                    "C8.6" => "A43",
                    "C2.1" => "A42",
                    _ => "A41",
                },
                _ => "A40",
            },
            "C2.4" => match self.b(0) {
                "C2.5" if self.red_plays_both("N2+3", "N8+7", &["R9.8", "P3+1", "P7+1"]) => "A53",
                "C2.5" => "A52",
                "P7+1" => "A54",
                "N8+7" => "A51",
                _ => "A50",
            },
            "C2.5" => match self.b(0) {
                "C8.5" => self.same_direction(),
                "N8+7" => self.left_horse(),
                "N2+3" => self.right_horse(),
                "C2.5" => "D50",
                _ => "B00",
            },
            "C2.6" => match self.b(0) {
                "C8.5" if self.r(1) == "N2+3" && self.r(2) == "R1.2" => match (self.b(1), self.b(2)) {
                    ("N8+7", "R9+1") | ("R9+1", "N8+7") => "A65",
                    _ => "A64",
                },
                "C8.5" => "A63",
                "R9+1" => "A62",
                "N8+7" => "A61",
                _ => "A60",
            },
            "P3+1" => self.pawn(),
            "P1+1" => "A08",
            "C2.7" => "A07",
            "C2.3" => "A06",
            "C2+4" => "A05",
            "C2+2" => "A04",
            "C2.1" => "A03",
            "N2+1" => "A02",
            "A4+5" => "A01",
            _ => "A00",
        }
    }

    /// A1x-A3x: the elephant opening.
    fn elephant(&self) -> &'static str {
        match self.b(0) {
            "N2+3" => match self.r(1) {
                "P7+1" => "A16",
                "P3+1" => "A15",
                _ => "A14",
            },
            "C2.4" => match self.r(1) {
                "P7+1" => "A26",
                "P3+1" => "A25",
                "R9+1" => "A24",
                "N8+9" => "A23",
                "N8+7" => "A22",
                _ => "A21",
            },
            "C8.4" if self.r(1) == "N2+3" && self.line_at(3, &["N8+7", "R1.2", "P7+1"]) => match self.r(3) {
                "P7+1" => "A34",
                "C2.1" => "A33",
                _ => "A32",
            },
            "C8.4" if self.r(1) == "N2+3" => "A31",
            "C8.4" => "A30",
            "P7+1" => match self.r(1) {
                "P7+1" => "A38",
                "N8+7" => "A37",
                _ => "A36",
            },
            "C8.5" if self.red_plays_both("N2+3", "N8+7", &["R1.2", "P3+1", "P7+1"]) => "A28",
            "C8.5" => "A27",
            "P3+1" => "A39",
            "C2.6" => "A35",
            "C2.5" => "A29",
            "C8.6" => "A20",
            "N8+7" => "A13",
            "B3+5" => "A12",
            "B7+5" => "A11",
            _ => "A10",
        }
    }

    /// E: the pawn opening (Red's third pawn, or its mirror, first).
    fn pawn(&self) -> &'static str {
        match self.b(0) {
            "C8.7" => match self.r(1) {
                "C8.5" => match self.b(1) {
                    "B3+5" if self.r(2) == "N2+1" => {
                        if self.b(2) == "N8+9" {
                            "E16"
                        } else {
                            "E15"
                        }
                    }
                    "B3+5" => "E14",
                    "B7+5" => self.pawn_left_elephant(),
                    "C2.5" => "E17",
                    _ => "E13",
                },
                "B7+5" | "B3+5" => "E11",
                "C2.5" => "E12",
                _ => "E10",
            },
            "N2+3" => match self.r(1) {
                "N2+3" if self.b(1) == "P3+1" => self.pawns_and_horses(),
                "N2+3" => "E07",
                "P7+1" if self.b(1) == "C8.7" => "E09",
                "P7+1" => "E08",
                _ => "E06",
            },
            "P3+1" => match self.r(1) {
                "N2+3" if self.b(1) == "N2+3" => self.pawns_and_horses(),
                "N2+3" => "E41",
                "C8.7" => match self.b(1) {
                    "C8.5" => "E48",
                    "C2.5" => "E47",
                    _ => "E46",
                },
                _ => "E40",
            },
            "B7+5" | "B3+5" if self.r(1) == "N2+3" => "E02",
            "B7+5" | "B3+5" => "E01",
            "C8.6" | "C8.4" | "C2.6" | "C2.4" => "E04",
            "C8.5" | "C2.5" => "E03",
            "C2.7" => "E05",
            _ => "E00",
        }
    }

    /// E42-E45: both sides' third pawns and right horses.
    fn pawns_and_horses(&self) -> &'static str {
        match self.r(2) {
            "B3+5" | "B7+5" => "E43",
            "C2.1" => "E45",
            "R1+1" => "E44",
            _ => "E42",
        }
    }

    /// E2x-E3x: the pawn opening turned left central cannon against Black's left elephant.
    fn pawn_left_elephant(&self) -> &'static str {
        match self.r(2) {
            "N8+7" => match self.b(2) {
                "R1+1" if self.line_at(6, &["R9.8", "R1.8", "N2+3", "N8+6"]) => {
                    if self.line_at(10, &["C2.1", "N2+1", "N3+4"]) {
                        match self.b(6) {
                            "P1+1" => "E27",
                            "R8+6" => "E26",
                            "A6+5" => "E25",
                            _ => "E24",
                        }
                    } else {
                        "E24"
                    }
                }
                "R1+1" => "E23",
                "P7+1" if self.line_at(6, &["N2+1", "P7+1"]) || self.line_at(6, &["R9.8", "P7+1"]) => {
                    if matches!(self.r(4), "N2+1" | "R9.8") {
                        match self.b(4) {
                            "R1+1" => match self.r(5) {
                                "R1.2" => "E36",
                                "R8+4" => "E35",
                                "A4+5" => "E34",
                                _ => "E33",
                            },
                            "N8+6" => "E32",
                            _ => "E31",
                        }
                    } else {
                        "E31"
                    }
                }
                "P7+1" => "E30",
                _ => "E22",
            },
            "C5+4" => "E38",
            "N2+1" => "E37",
            "A4+5" => "E21",
            _ => "E20",
        }
    }

    /// D0x-D2x: same-direction cannons.
    fn same_direction(&self) -> &'static str {
        match self.r(1) {
            "N2+3" => match self.b(1) {
                "N8+7" => match self.r(2) {
                    "R1.2" if self.b(2) == "R9+1" => self.straight_vs_horizontal(),
                    "R1.2" => self.straight_vs_slow(),
                    "R1+1" if self.b(2) == "R9.8" => {
                        if self.b(3) == "R8+4" {
                            "D05"
                        } else {
                            "D04"
                        }
                    }
                    "R1+1" => "D03",
                    _ => match self.b(2) {
                        "R9.8" => "D02",
                        "R9+1" => "D01",
                        _ => "D00",
                    },
                },
                "R9+1" if self.line_at(4, &["R1.2", "N8+7"]) => self.straight_vs_horizontal(),
                "R9+1" => "D01",
                _ => "D00",
            },
            "R1+1" if self.line_at(3, &["R9.8", "N8+7"]) => {
                if self.b(2) == "R8+4" {
                    "D05"
                } else {
                    "D04"
                }
            }
            "R1+1" => "D03",
            _ => "D00",
        }
    }

    /// D1x: Red's straight rook against Black's slow rook.
    fn straight_vs_slow(&self) -> &'static str {
        for i in 2..10 {
            match self.b(i) {
                "N2+3" | "P7+1" | "P3+1" => {}
                "C2.1" => return "D15",
                "C2+4" => return "D14",
                "R9.8" => return "D13",
                "R1+1" => return "D12",
                "R9+1" => return "D11",
                _ => return "D10",
            }
        }
        "D10"
    }

    /// D2x: Red's straight rook against Black's horizontal rook.
    fn straight_vs_horizontal(&self) -> &'static str {
        let mut pawns = Seen::default();
        for i in 3..10 {
            match self.r(i) {
                "A4+5" | "A6+5" => return "D21",
                "N8+9" => return "D22",
                "R2+4" => return "D23",
                "R2+6" => return "D24",
                "C8.6" => return "D25",
                "P3+1" | "P7+1" => {
                    let (this, other) = if self.r(i) == "P3+1" {
                        (&mut pawns.first, pawns.second)
                    } else {
                        (&mut pawns.second, pawns.first)
                    };
                    if other {
                        for j in 3..10 {
                            match self.b(j) {
                                "N2+3" | "R9.4" => {}
                                "R1+1" => return "D29",
                                _ => return "D28",
                            }
                        }
                        return "D28";
                    }
                    *this = true;
                }
                "N8+7" => {}
                _ if pawns.first => return "D26",
                _ if pawns.second => return "D27",
                _ => return "D20",
            }
        }
        "D20"
    }

    /// B0x-B2x and D3x-D5x: central cannon against Black's left horse (or none), which
    /// becomes a screen horse, a left three-step tiger, a left cannon blocking the rook or
    /// an opposite-direction cannon.
    fn left_horse(&self) -> &'static str {
        let mut cannon = 0;
        let mut kind = 0;
        for i in 1..10 {
            kind = match self.b(i) {
                "R9.8" | "R8+5" | "P7+1" | "P3+1" => continue,
                "N2+3" if cannon != 0 => cannon,
                "N2+3" => 7,
                "R9+1" if cannon != 0 => cannon,
                "R9+1" => 6,
                "C8+4" => {
                    cannon = 2;
                    continue;
                }
                "C8.9" => {
                    cannon = 1;
                    continue;
                }
                "C2.5" => 5 - cannon,
                _ => cannon,
            };
            break;
        }
        let mut pawns = Seen::default();
        let mut rooks = Seen::default();
        match kind {
            1 => {
                for i in 1..10 {
                    match self.r(i) {
                        "B7+9" if self.b(i - 1) == "R8+5" => return "B21",
                        "B7+9" => return "B20",
                        "P3+1" if pawns.second => return "B25",
                        "P3+1" => pawns.first = true,
                        "P7+1" if pawns.first => return "B25",
                        "P7+1" => pawns.second = true,
                        "N2+3" | "N8+7" => {}
                        "C8+4" => return "B24",
                        "C8+2" => return "B23",
                        "R1+1" => return "B22",
                        _ => return "B20",
                    }
                }
                "B20"
            }
            3 if self.line_at(2, &["N2+3", "R9.8", "R1.2", "C8+4", "P3+1", "C2.5"]) => match self.r(4) {
                "P7+1" => "D36",
                "C8+5" => "D35",
                "N8+9" => "D34",
                "N8+7" => "D33",
                "N3+4" => "D32",
                _ => "D31",
            },
            3 => "D30",
            4 => {
                for i in 1..10 {
                    match self.r(i) {
                        "P5+1" if self.b(i - 1) == "R8+5" && self.b(i) == "C2.5" => return "D41",
                        "P5+1" => return "D40",
                        "P3+1" if pawns.second => return "D43",
                        "P3+1" => pawns.first = true,
                        "P7+1" if pawns.first => return "D43",
                        "P7+1" => pawns.second = true,
                        "N2+3" | "N8+7" => {}
                        "R9.8" => return "D42",
                        _ => return "D40",
                    }
                }
                "D40"
            }
            5 => {
                for i in 1..10 {
                    match self.r(i) {
                        "R2+6" => return "D53",
                        "N2+3" | "N8+7" | "P3+1" | "P7+1" => {}
                        "R1.2" if rooks.second => return "D55",
                        "R1.2" => rooks.first = true,
                        "R9.8" if rooks.first => return "D55",
                        "R9.8" => rooks.second = true,
                        _ if rooks.first => return "D52",
                        _ if rooks.second => return "D54",
                        _ => return "D51",
                    }
                }
                "D50"
            }
            7 => self.screen(),
            2 => "B07",
            6 => "B06",
            _ => "B05",
        }
    }

    /// B0x-B1x: central cannon against Black's right horse first.
    fn right_horse(&self) -> &'static str {
        match self.b(1) {
            "R9+1" if self.r(1) == "N2+3" && self.line_at(4, &["R1.2", "R9.4"]) => match self.r(3) {
                "P7+1" => "B14",
                "C8+2" => "B13",
                _ => "B12",
            },
            "R9+1" | "N8+9" => "B10",
            "C8.6" => match self.b(2) {
                "N8+9" | "R9+1" => "B11",
                _ => self.palcorner(),
            },
            "P3+1" | "P7+1" => match self.b(2) {
                "A6+5" | "A4+5" => "B02",
                "C8.6" => self.palcorner(),
                "N8+7" => self.screen(),
                "R9+2" => "B03",
                _ => "B01",
            },
            "N8+7" => self.screen(),
            "C2.1" => "B04",
            _ => "B01",
        }
    }

    /// B3x-B5x: central cannon against the palcorner-cannon horse (反宫马).
    fn palcorner(&self) -> &'static str {
        if self.line_at(2, &["P7+1", "C8.6", "N8+7"]) {
            return "B32";
        }
        for i in 1..10 {
            match self.b(i) {
                "N8+7" => return self.palcorner_red(),
                "B7+5" | "B3+5" | "C8.6" | "P7+1" | "P3+1" => {}
                _ => return "B30",
            }
        }
        "B30"
    }

    fn palcorner_red(&self) -> &'static str {
        let (mut horse7, mut horse9, mut cannon6) = (false, false, false);
        for i in 1..10 {
            match self.r(i) {
                "N8+9" => horse9 = true,
                "N8+7" => horse7 = true,
                "C8.6" => cannon6 = true,
                "N2+3" | "R1.2" | "P3+1" | "P7+1" => {}
                "R1+1" if !cannon6 => return "B34",
                "R2+6" if !cannon6 => return "B33",
                "R1+1" | "R2+6" => {}
                "C8.7" => return self.five_seven_palcorner(),
                "C8+4" => return "B36",
                "C8+2" => return "B35",
                _ if !cannon6 => return "B31",
                _ if !self.line_at(2, &["N2+3", "C8.6", "R1.2", "N8+7"]) => return "B40",
                _ if horse7 && self.r(3) == "C8.6" && self.b(3) == "R1.2" => {
                    return match (self.b(4), self.b(5)) {
                        ("C2.1", "P7+1") => "B44",
                        ("C2.1", _) => "B43",
                        _ => "B42",
                    };
                }
                _ if horse7 => return "B41",
                _ if horse9 => return "B45",
                _ => return "B40",
            }
        }
        "B30"
    }

    /// B5x: the five-seven cannons against the palcorner-cannon horse.
    fn five_seven_palcorner(&self) -> &'static str {
        let b54 = (1..5).all(|i| matches!(self.r(i), "N2+3" | "N8+9" | "R1.2" | "P3+1"))
            && (1..4).all(|i| matches!(self.b(i), "N8+7" | "C8.6" | "P3+1"));
        if b54 {
            if !self.line_at(9, &["B7+5", "C8.7", "R1.2", "R9.8", "C2+4"]) {
                return "B54";
            }
            return if self.line_at(14, &["P7+1", "P3+1", "P3+1"]) { "B56" } else { "B55" };
        }
        for i in 1..10 {
            match self.b(i) {
                "B7+5" | "B3+5" | "N8+7" | "C8.6" | "P7+1" | "P3+1" => {}
                "R1.2" => return "B53",
                "R9+1" => return "B52",
                "R9.8" => return "B51",
                _ => return "B50",
            }
        }
        "B50"
    }

    /// C: central cannon against the screen horses (屏风马).
    fn screen(&self) -> &'static str {
        const C2X: [&str; 10] = ["C2.5", "N8+7", "N2+3", "R9.8", "R1.2", "P7+1", "R2+6", "N2+3", "N8+7", "P3+1"];
        const C3X: [&str; 9] = ["C2.5", "N8+7", "N2+3", "R9.8", "R1.2", "P7+1", "R2+6", "N2+3", "P7+1"];
        const C6X: [&str; 9] = ["C2.5", "N8+7", "N2+3", "R9.8", "R1.2", "P7+1", "N8+9", "N2+3", "C8.7"];
        const C7X: [&str; 12] =
            ["C2.5", "N8+7", "N2+3", "R9.8", "R1.2", "N2+3", "P3+1", "P3+1", "N8+9", "P1+1", "C8.7", "N3+2"];
        if self.transposes(&C2X) {
            self.c2x()
        } else if self.transposes(&C3X) {
            self.c3x()
        } else if self.transposes(&C6X) {
            match self.b(4) {
                "R1.2" if self.r(5) == "R9.8" => match self.b(5) {
                    "C2+4" => "C66",
                    "C2+2" => "C65",
                    "C8+4" => "C64",
                    _ => "C63",
                },
                "R1.2" => "C62",
                "C2+2" => "C67",
                _ => "C61",
            }
        } else if self.transposes(&C7X) {
            match (self.r(6), self.b(6)) {
                ("R9+1", "B7+5") => match self.r(7) {
                    "R2+4" => "C76",
                    "N3+4" => "C75",
                    _ => "C74",
                },
                ("R9+1", "P1+1") => "C78",
                ("R9+1", "B3+5") => "C77",
                ("R9+1", _) => "C73",
                _ => "C72",
            }
        } else {
            self.screen_by_red_plan()
        }
    }

    /// C20-C25: the rook across the river, Red's seventh-file horse, Black's two pawns.
    fn c2x(&self) -> &'static str {
        if self.r(5) != "R9+1" {
            return "C20";
        }
        if !self.line_at(11, &["C2+1", "R2-2", "B3+5"]) {
            return "C21";
        }
        match (self.r(7), self.r(8)) {
            ("P3+1" | "P7+1", "P7+1") => "C25",
            ("P3+1", _) => "C23",
            ("P7+1", _) => "C24",
            _ => "C22",
        }
    }

    /// C30-C49: the rook across the river, both sides' seventh pawns.
    fn c3x(&self) -> &'static str {
        match self.b(4) {
            "N7+6" if self.r(5) != "N8+7" => "C35",
            "N7+6" if self.b(5) != "B3+5" => "C36",
            "N7+6" => match self.r(6) {
                "C8.9" => "C39",
                "C8+1" => "C38",
                _ => "C37",
            },
            "C8.9" if !self.line_at(10, &["R2.3", "C9-1"]) => "C40",
            "C8.9" => match self.r(6) {
                "N8+7" if self.b(6) == "A4+5" => match self.r(7) {
                    "C8.9" if self.b(7) == "R1.2" || self.b(8) == "R1.2" => "C46",
                    "C8.9" => "C45",
                    "N7+6" => "C44",
                    _ => "C43",
                },
                "N8+7" => "C42",
                "P5+1" => "C49",
                "C8.6" => "C48",
                "N8+9" => "C47",
                _ => "C41",
            },
            "B7+5" | "B3+5" => "C32",
            "A6+5" | "A4+5" => "C31",
            "C2+4" => "C34",
            "R1+1" => "C33",
            _ => "C30",
        }
    }

    /// C0x-C1x, C5x, C6x-C7x, C8x-C9x: the screen horses, told apart by Red's first
    /// distinctive move in rounds 1-8.
    fn screen_by_red_plan(&self) -> &'static str {
        let (mut horse9, mut horse7, mut rook6) = (false, false, false);
        for i in 1..9 {
            match self.r(i) {
                "R2+4" => {
                    for j in 1..10 {
                        match self.r(j) {
                            "N2+3" | "R1.2" | "R2+4" | "P3+1" | "P7+1" => {}
                            "N8+7" | "N8+9" => return "C16",
                            _ => return "C15",
                        }
                    }
                    // Red's nine moves all fit the river-rook plan: the definition falls
                    // through to the horizontal-rook scan.
                    return self.right_horizontal_rook();
                }
                "R1+1" => return self.right_horizontal_rook(),
                "C8.7" => {
                    let mut pawn3 = false;
                    for j in 1..10 {
                        match self.b(j) {
                            "P7+1" => {
                                for k in 1..10 {
                                    match self.r(k) {
                                        "N2+3" | "N8+9" | "R1.2" | "R2+6" | "C8.7" => {}
                                        "P7+1" => return "C68",
                                        _ => return "C60",
                                    }
                                }
                                return "C60";
                            }
                            "P3+1" => pawn3 = true,
                            "N3+2" => return "C71",
                            "N2+3" | "N8+7" | "R9.8" => {}
                            _ if pawn3 => return "C70",
                            _ => return "C60",
                        }
                    }
                    // Black's nine moves all fit: the definition's scan ends with no code.
                    return "C00";
                }
                "N2+3" | "R1.2" | "P3+1" | "P7+1" => {}
                "N8+9" => horse9 = true,
                "N8+7" => horse7 = true,
                "R2+6" => rook6 = true,
                "C8+4" => return self.c9x(),
                "C8+2" => return self.c8x(),
                "C8.6" => return self.c5x(),
                "C8.9" => return "C99",
                _ if rook6 => {
                    return self.scan_red(&["N2+3", "R1.2", "R2+6", "P3+1", "P7+1"], "C17", |m| match m {
                        "N8+9" => "C19",
                        "N8+7" => "C18",
                        _ => "C17",
                    });
                }
                _ if horse7 => return self.seventh_file_horse(),
                _ if horse9 => {
                    return self.scan_red(&["N2+3", "N8+9", "R1.2", "P3+1", "P7+1"], "C05", |m| match m {
                        "R9+1" => "C06",
                        _ => "C05",
                    });
                }
                _ => return "C00",
            }
        }
        "C00"
    }

    /// Scans Red's rounds 1..=9, skipping `skip`; the first other move decides by `decide`,
    /// and `none` is the code when every move is skipped.
    fn scan_red(&self, skip: &[&str], none: &'static str, decide: fn(&str) -> &'static str) -> &'static str {
        (1..10).map(|i| self.r(i)).find(|m| !skip.contains(m)).map_or(none, decide)
    }

    /// C10-C14: Red's right horizontal rook.
    fn right_horizontal_rook(&self) -> &'static str {
        self.scan_red(&["N2+3", "N8+7", "R1+1", "R1.4", "R1.6", "P3+1", "P7+1"], "C10", |m| match m {
            "P5+1" => "C14",
            "C8.9" => "C13",
            "C8+2" => "C12",
            "N7+6" => "C11",
            _ => "C10",
        })
    }

    /// C01-C04: Red's seventh-file horse.
    fn seventh_file_horse(&self) -> &'static str {
        for i in 1..10 {
            match self.r(i) {
                "P5+1" => {
                    let mut cannons = Seen::default();
                    for j in 1..10 {
                        match self.b(j) {
                            "N2+3" | "N8+7" | "R9.8" | "P7+1" | "P3+1" => {}
                            "C8+4" if cannons.second => return "C04",
                            "C8+4" => cannons.first = true,
                            "C2+4" if cannons.first => return "C04",
                            "C2+4" => cannons.second = true,
                            _ => return "C03",
                        }
                    }
                    return "C03";
                }
                "N2+3" | "N8+7" | "R1.2" | "P3+1" | "P7+1" => {}
                "N7+6" => return "C02",
                _ => return "C01",
            }
        }
        "C01"
    }

    /// C5x: the five-six cannons.
    fn c5x(&self) -> &'static str {
        let (mut c52, mut c55) = (true, true);
        for i in 1..5 {
            match self.r(i) {
                "N2+3" | "R1.2" | "C8.6" => {}
                "N8+9" => c55 = false,
                "R2+6" => c52 = false,
                _ => (c52, c55) = (false, false),
            }
        }
        if !(1..4).all(|i| matches!(self.b(i), "N2+3" | "N8+7" | "R9.8" | "P7+1")) {
            (c52, c55) = (false, false);
        }
        if c52 {
            if !self.line_at(9, &["R1.2", "R9.8"]) {
                "C51"
            } else if self.b(5) == "C2+4" {
                "C53"
            } else {
                "C52"
            }
        } else if c55 {
            match self.b(4) {
                "P3+1" => "C56",
                "R1.2" => "C55",
                _ => "C54",
            }
        } else {
            self.scan_red(&["N2+3", "R1.2", "C8.6", "P3+1", "P7+1"], "C50", |m| match m {
                "R2+6" => "C54",
                "N8+9" => "C51",
                _ => "C50",
            })
        }
    }

    /// C8x: the central cannon with its river cannon.
    fn c8x(&self) -> &'static str {
        let c85 = (1..5).all(|i| matches!(self.r(i), "N2+3" | "N8+7" | "C8+2" | "P7+1"))
            && (1..4).all(|i| matches!(self.b(i), "N8+7" | "N2+3" | "R9.8" | "P7+1"));
        if c85 && self.b(4) == "N7+8" {
            return if self.r(5) == "N7+6" && self.r(6) == "R1+1" { "C86" } else { "C85" };
        }
        let mut elephant7 = false;
        for i in 1..10 {
            match self.b(i) {
                "B7+5" => elephant7 = true,
                "B3+5" => return "C84",
                "P7+1" | "P3+1" | "N8+7" | "N2+3" | "R9.8" => {}
                "C8+2" if elephant7 => return "C83",
                "R1+1" if elephant7 => return "C82",
                _ if elephant7 => return "C81",
                _ => return "C80",
            }
        }
        "C80"
    }

    /// C9x: the five-eight cannons.
    fn c9x(&self) -> &'static str {
        for i in 1..10 {
            match self.r(i) {
                "P3+1" => return self.c9x_black_pawn(),
                "N2+3" | "N8+7" | "N8+9" | "R1.2" | "R2+6" | "C8+4" => {}
                _ => return "C90",
            }
        }
        "C90"
    }

    fn c9x_black_pawn(&self) -> &'static str {
        for i in 1..10 {
            match self.b(i) {
                "P3+1" => {
                    for j in 1..10 {
                        match self.r(j) {
                            "N8+9" => {
                                let fifth = if matches!(self.b(4), "B7+5" | "B3+5") { self.b(5) } else { self.b(4) };
                                return match fifth {
                                    "P1+1" if self.r(6) == "C8.7" => "C97",
                                    "P1+1" => "C96",
                                    "A6+5" | "A4+5" => "C94",
                                    "P7+1" => "C95",
                                    _ => "C93",
                                };
                            }
                            "N2+3" | "R1.2" | "C8+4" | "P3+1" => {}
                            "C8.7" => return "C98",
                            "N8+7" => return "C92",
                            _ => return "C91",
                        }
                    }
                    return "C91";
                }
                "N8+7" | "N2+3" | "R9.8" => {}
                _ => return "C90",
            }
        }
        "C90"
    }
}
