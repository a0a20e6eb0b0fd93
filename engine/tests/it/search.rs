//! Search tests: mates for both colours, determinism at fixed nodes, the rules inside the
//! tree.

use engine::rules::{GameResult, judge};
use engine::search::Score;
use engine::{Engine, Limits, Position};

/// The position rotated 180 degrees with colours swapped (Red's mate becomes Black's).
fn flip_fen(fen: &str) -> String {
    let mut fields = fen.split_whitespace();
    let board = fields.next().expect("placement");
    let side = fields.next().unwrap_or("w");
    let ranks: Vec<String> = board
        .split('/')
        .rev()
        .map(|r| {
            r.chars()
                .rev()
                .map(|c| if c.is_ascii_uppercase() { c.to_ascii_lowercase() } else { c.to_ascii_uppercase() })
                .collect()
        })
        .collect();
    let side = if side == "b" { "w" } else { "b" };
    format!("{} {side} - - 0 1", ranks.join("/"))
}

/// Whether the side to move can force a win (mate or stalemate, both lose in Xiangqi) within
/// `moves` of its own moves: a brute-force check independent of the search.
fn forced_win(pos: &mut Position, moves: u32) -> bool {
    if moves == 0 {
        return false;
    }
    for m in pos.legal_moves().to_vec() {
        pos.play_unchecked(m);
        let wins = defender_loses(pos, moves - 1);
        pos.undo();
        if wins {
            return true;
        }
    }
    false
}

fn defender_loses(pos: &mut Position, moves_left: u32) -> bool {
    let replies = pos.legal_moves().to_vec();
    if replies.is_empty() {
        return true;
    }
    if moves_left == 0 {
        return false;
    }
    replies.into_iter().all(|r| {
        pos.play_unchecked(r);
        let w = forced_win(pos, moves_left);
        pos.undo();
        w
    })
}

const MATES: [(&str, i32); 3] = [
    ("3k5/9/9/9/9/9/9/9/4R4/4K4 w - - 0 1", 1),
    ("4k4/9/9/R8/1R7/9/9/9/9/3K5 w - - 0 1", 2),
    ("3ak4/4a4/9/9/9/9/9/9/9/RR2K4 w - - 0 1", 3),
];

#[test]
fn finds_mates_in_one_to_three_for_both_colours() {
    for (red_fen, n) in MATES {
        for fen in [red_fen.to_owned(), flip_fen(red_fen)] {
            let pos = Position::from_fen(&fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
            // The puzzle is what it claims: a forced win in n, none in n - 1.
            let mut p = pos.clone();
            assert!(forced_win(&mut p, n as u32), "{fen} is not a win in {n}");
            assert!(!forced_win(&mut p, n as u32 - 1), "{fen} is a win in fewer than {n}");

            let mut engine = Engine::new();
            engine.set_position(pos.clone());
            let result = engine.go(&Limits::depth(2 * n as u32 + 3), |_| {});
            assert_eq!(result.score, Score::Mate(n), "{fen}: {result:?}");
            let best = result.best_move.expect("a move");
            let mut after = pos.clone();
            after.play_unchecked(best);
            assert!(defender_loses(&mut after, n as u32 - 1), "{fen}: {best} does not force the win");
        }
    }
}

#[test]
fn fixed_nodes_search_is_deterministic() {
    let fens = [
        engine::START_FEN,
        "2bakab2/6r2/2n1c1nc1/p1p2rp1p/4p4/2PN2PC1/P3P3P/6N2/3CA4/1RBAK1B1R w - - 0 1",
        "2bak4/9/3a5/p2Np3p/3n1P3/3pc3P/P4r1c1/B2CC2R1/4A4/3AK1B2 b - - 0 1",
    ];
    let limits = Limits::nodes(30_000);
    let mut engine = Engine::new();
    let mut first = Vec::new();
    for fen in fens {
        engine.new_game();
        engine.set_position(Position::from_fen(fen).expect("valid"));
        first.push(engine.go(&limits, |_| {}));
    }
    // Other searches in between, then the same searches again after `new_game`, and in a
    // fresh engine: identical move, score and node count.
    engine.set_position(Position::startpos());
    engine.go(&Limits::depth(6), |_| {});
    let mut fresh = Engine::new();
    for (fen, want) in fens.iter().zip(&first) {
        for e in [&mut engine, &mut fresh] {
            e.new_game();
            e.set_position(Position::from_fen(fen).expect("valid"));
            let got = e.go(&limits, |_| {});
            assert_eq!(
                (got.best_move, got.score, got.nodes, &got.pv),
                (want.best_move, want.score, want.nodes, &want.pv),
                "{fen}"
            );
        }
        assert_eq!(want.nodes, 30_000, "{fen}: the node limit is exact");
    }
}

#[test]
fn no_legal_move_gives_no_best_move() {
    // Black is stalemated (and so has lost): no move to return.
    let pos = Position::from_fen("5k3/R8/9/9/9/9/9/9/9/4K4 b - - 0 1").expect("valid");
    assert!(pos.legal_moves().is_empty());
    let mut engine = Engine::new();
    engine.set_position(pos);
    let r = engine.go(&Limits::depth(3), |_| {});
    assert_eq!(r.best_move, None);
    assert_eq!(r.score, Score::Mate(0));
}

#[test]
fn search_avoids_losing_by_perpetual_check() {
    // Red's rook has checked the king back and forth (the RULES.md perpetual-check case);
    // one more check, a8a9, would let Black complete the cycle and Red would lose by
    // perpetual check. The search, which judges the first repetition on its path with the
    // game history, must play something else, and must score a8a9 as a loss.
    let mut pos = Position::from_fen("R8/4k4/9/9/9/9/9/9/9/3K5 w - - 0 1").expect("valid");
    for m in ["a9a8", "e8e9", "a8a9", "e9e8", "a9a8", "e8e9"] {
        let mv = engine::notation::parse_uci(m).expect("uci");
        pos.try_play(mv).expect("legal");
    }
    let perpetual = engine::notation::parse_uci("a8a9").expect("uci");
    let mut engine = Engine::new();
    engine.set_position(pos.clone());
    let r = engine.go(&Limits::depth(6), |_| {});
    let best = r.best_move.expect("a move");
    assert_ne!(best, perpetual, "{r:?}");
    assert!(matches!(r.score, Score::Cp(v) if v > 0) || matches!(r.score, Score::Mate(n) if n > 0), "{r:?}");

    // Forced into the check, the search sees the loss.
    let mut forced = Engine::new();
    let mut after = pos.clone();
    after.play_unchecked(perpetual);
    forced.set_position(after.clone());
    let reply = forced.go(&Limits::depth(4), |_| {});
    let completes = engine::notation::parse_uci("e9e8").expect("uci");
    assert_eq!(reply.best_move, Some(completes), "Black completes the cycle: {reply:?}");
    after.play_unchecked(completes);
    assert_eq!(judge(&after).result, GameResult::BlackWins);
}

#[test]
fn time_limits_are_respected() {
    let mut engine = Engine::new();
    engine.set_position(Position::startpos());
    let limits = Limits {
        time: [Some(std::time::Duration::from_millis(200)), Some(std::time::Duration::from_millis(200))],
        ..Limits::default()
    };
    let r = engine.go(&limits, |_| {});
    assert!(r.best_move.is_some());
    assert!(r.time < std::time::Duration::from_millis(200), "used {:?} of 200 ms", r.time);
}

#[test]
fn quiescence_resolves_captures() {
    let params = engine::eval::Params::default();
    // Quiet start position: quiescence equals the static evaluation.
    let start = Position::startpos();
    assert_eq!(engine::search::quiescence(&start, &params), engine::eval::evaluate(&start, &params));
    // A hanging black rook on e5 in front of a red rook on e1: quiescence sees the capture.
    let pos = Position::from_fen("3k5/9/9/9/4r4/9/9/9/4R4/5K3 w - - 0 1").expect("valid");
    let q = engine::search::quiescence(&pos, &params);
    assert!(q > engine::eval::evaluate(&pos, &params) + 500, "q = {q}");
}

/// One `Quiescence` reused over many positions scores each as a fresh table does (its table is
/// emptied of what each position wrote), over the positions of pseudo-random playouts, many of
/// them with captures pending.
#[test]
fn reused_quiescence_scores_as_a_fresh_one() {
    let params = engine::eval::Params::default();
    let mut positions = Vec::new();
    let mut seed = 0x2545_f491_4f6c_dd1d_u64;
    for _ in 0..8 {
        let mut pos = Position::startpos();
        for _ in 0..60 {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            pos.play_unchecked(moves[(seed % moves.len() as u64) as usize]);
            positions.push(pos.clone());
        }
    }
    let fresh: Vec<i32> = positions.iter().map(|p| engine::search::quiescence(p, &params)).collect();
    let unresolved = positions.iter().zip(&fresh).filter(|(p, q)| **q != engine::eval::evaluate(p, &params)).count();
    assert!(unresolved >= 20, "only {unresolved} of {} positions have captures to resolve", positions.len());
    let mut reused = engine::search::Quiescence::new();
    // Twice over, the second time in reverse, so that every position follows others' writes.
    let forward: Vec<i32> = positions.iter().map(|p| reused.score(p, &params)).collect();
    let backward: Vec<i32> = positions.iter().rev().map(|p| reused.score(p, &params)).collect();
    assert_eq!(forward, fresh);
    assert_eq!(backward.into_iter().rev().collect::<Vec<_>>(), fresh);
}
