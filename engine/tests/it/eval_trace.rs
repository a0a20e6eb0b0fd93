//! The evaluation's linear trace is exact, and the evaluation is colour- and
//! mirror-symmetric, over thousands of positions from random legal playouts (from the start
//! position and from the perft suite's FENs) and random parameters.

use std::path::PathBuf;

use engine::eval::{NUM_PARAMS, PHASE_MAX, Params, evaluate, evaluate_scaled, phase, trace};
use engine::{Color, Position, START_FEN};

/// Marsaglia's xorshift64: reproducible without a dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn shared_dir() -> PathBuf {
    match std::env::var_os("XQFARM_SHARED") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared"),
    }
}

fn perft_fens() -> Vec<String> {
    let path = shared_dir().join("xiangqi/perft.txt");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    text.lines()
        .filter(|line| !line.trim().is_empty() && !line.starts_with('#'))
        .filter_map(|line| line.split(';').next())
        .map(str::to_owned)
        .collect()
}

/// Positions met along random legal playouts from each start FEN.
fn playout_positions(rng: &mut Rng, playouts_per_fen: usize, max_plies: usize) -> Vec<Position> {
    let mut starts = vec![START_FEN.to_owned()];
    starts.extend(perft_fens());
    assert!(starts.len() > 10, "the perft suite should provide start FENs");
    let mut out = Vec::new();
    for fen in &starts {
        for _ in 0..playouts_per_fen {
            let mut pos = Position::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
            for _ in 0..max_plies {
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                pos.play_unchecked(moves[rng.below(moves.len() as u64) as usize]);
                out.push(pos.clone());
            }
        }
    }
    out
}

fn random_params(rng: &mut Rng) -> Params {
    let values: Vec<i32> = (0..NUM_PARAMS)
        .map(|i| {
            let spec = Params::spec(i);
            let span = (i64::from(spec.max) - i64::from(spec.min) + 1) as u64;
            (i64::from(spec.min) + rng.below(span) as i64) as i32
        })
        .collect();
    Params::from_values(&values).expect("values drawn within each range")
}

/// The same position with colours swapped and ranks mirrored (Red's pieces become Black's
/// on the mirrored squares), and the other side to move.
fn flip_colors(fen: &str) -> String {
    let mut fields: Vec<String> = fen.split_whitespace().map(str::to_owned).collect();
    let swap_case = |c: char| {
        if c.is_ascii_uppercase() { c.to_ascii_lowercase() } else { c.to_ascii_uppercase() }
    };
    fields[0] = fields[0]
        .split('/')
        .rev()
        .map(|rank| rank.chars().map(swap_case).collect::<String>())
        .collect::<Vec<_>>()
        .join("/");
    fields[1] = if fields[1] == "b" { "w".into() } else { "b".into() };
    fields.join(" ")
}

/// The same position mirrored left to right.
fn mirror_files(fen: &str) -> String {
    let mut fields: Vec<String> = fen.split_whitespace().map(str::to_owned).collect();
    fields[0] = fields[0].split('/').map(|rank| rank.chars().rev().collect::<String>()).collect::<Vec<_>>().join("/");
    fields.join(" ")
}

/// The documented transform from the scaled Red-side score to the side-to-move centipawns.
fn expected_evaluate(pos: &Position, scaled: i64) -> i32 {
    let red_view = (scaled / i64::from(PHASE_MAX)) as i32;
    if pos.side_to_move() == Color::Red { red_view } else { -red_view }
}

#[test]
fn trace_dot_params_equals_evaluate_exactly() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let positions = playout_positions(&mut rng, 8, 60);
    assert!(positions.len() >= 5000, "only {} positions", positions.len());
    let defaults = Params::default();
    let mut nonzero_phases = [false; 2];
    for pos in &positions {
        let params = random_params(&mut rng);
        let t = trace(pos);
        assert_eq!(t.phase, phase(pos));
        assert!(t.coefficients.windows(2).all(|w| w[0].0 < w[1].0), "sorted, merged indices: {}", pos.fen());
        assert!(t.coefficients.iter().all(|&(i, c)| c != 0 && usize::from(i) < NUM_PARAMS));
        for p in [&params, &defaults] {
            let scaled = evaluate_scaled(pos, p);
            assert_eq!(t.dot(p), scaled, "{}", pos.fen());
            assert_eq!(evaluate(pos, p), expected_evaluate(pos, scaled), "{}", pos.fen());
        }
        nonzero_phases[usize::from(t.phase < PHASE_MAX)] = true;
    }
    assert_eq!(nonzero_phases, [true, true], "the sample covers full and reduced phases");
}

#[test]
fn colour_flip_negates_and_mirror_preserves() {
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let positions = playout_positions(&mut rng, 3, 60);
    assert!(positions.len() >= 2000, "only {} positions", positions.len());
    let defaults = Params::default();
    for (n, pos) in positions.iter().enumerate() {
        let fen = pos.fen();
        let flipped = Position::from_fen(&flip_colors(&fen)).unwrap_or_else(|e| panic!("flip of {fen}: {e}"));
        let mirrored = Position::from_fen(&mirror_files(&fen)).unwrap_or_else(|e| panic!("mirror of {fen}: {e}"));
        let random = random_params(&mut rng);
        let params = if n % 2 == 0 { &defaults } else { &random };
        let scaled = evaluate_scaled(pos, params);
        assert_eq!(evaluate_scaled(&flipped, params), -scaled, "{fen}");
        assert_eq!(evaluate(&flipped, params), evaluate(pos, params), "{fen}");
        assert_eq!(evaluate_scaled(&mirrored, params), scaled, "{fen}");
        let negated: Vec<(u16, i32)> = trace(pos).coefficients.iter().map(|&(i, c)| (i, -c)).collect();
        assert_eq!(trace(&flipped).coefficients, negated, "{fen}");
    }
}

#[test]
fn start_position_is_tempo_only() {
    let pos = Position::startpos();
    let defaults = Params::default();
    let tempo_mg = defaults.get(Params::index_of("tempo.mg").expect("declared"));
    assert_eq!(phase(&pos), PHASE_MAX);
    assert_eq!(evaluate_scaled(&pos, &defaults), i64::from(tempo_mg * PHASE_MAX));
    assert_eq!(evaluate(&pos, &defaults), tempo_mg);
    let black_to_move = Position::from_fen(&START_FEN.replace(" w ", " b ")).expect("valid");
    assert_eq!(evaluate(&black_to_move, &defaults), tempo_mg);
    assert_eq!(evaluate(&pos, &Params::material_only()), 0);
    assert_eq!(evaluate_scaled(&pos, &Params::material_only()), 0);
}

#[test]
fn evaluation_sees_material_and_threats() {
    let defaults = Params::default();
    // Black without the a9 rook: Red is about a rook up.
    let rook_up =
        Position::from_fen("1nbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1").expect("valid");
    let score = evaluate(&rook_up, &defaults);
    assert!((800..=1300).contains(&score), "a rook up: {score}");
    // Phase 28 (three rooks, four horses, four cannons): (920 * 28 + 1000 * 4) / 32.
    assert_eq!(phase(&rook_up), 28);
    assert_eq!(evaluate(&rook_up, &Params::material_only()), 930);
    // The same material with Black to move reads from Black's side.
    let black_view = Position::from_fen(&rook_up.fen().replace(" w ", " b ")).expect("valid");
    assert!(evaluate(&black_view, &defaults) < -800);
    // A red horse on e5 attacked by the black rook on a5: guarded by the rook on e0, it is
    // not hanging; with that rook on i0 it is.
    let guarded = Position::from_fen("5k3/9/9/9/r3N4/9/9/9/9/3KR4 w - - 0 1").expect("valid");
    let hanging = Position::from_fen("5k3/9/9/9/r3N4/9/9/9/9/3K4R w - - 0 1").expect("valid");
    let hanging_knight_mg = u16::try_from(2 * engine::eval::terms::HANGING.at(2)).expect("fits");
    let coefficient = |pos: &Position| trace(pos).coefficients.iter().find(|c| c.0 == hanging_knight_mg).map(|c| c.1);
    assert_eq!(coefficient(&guarded), None);
    assert_eq!(coefficient(&hanging), Some(phase(&hanging)));
    assert!(evaluate(&guarded, &defaults) > evaluate(&hanging, &defaults));
}
