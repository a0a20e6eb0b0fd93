//! Honest games (legal moves played with the engine) pass; each kind of lie is refused with
//! the place and the reason.

use engine::notation::parse_uci;
use engine::rules::Reason;
use engine::{Color, OpeningLine};
use proto::domain::{
    Adjudication, ForfeitAttempt, GameOutcome, GameReport, LeaseId, MoveStat, PairReport, PairTask, PositionSample,
    RunId, Termination, TimeControl,
};

use super::{check_batch, unscored_game};
use crate::error::Error;
use crate::storage::LeaseTerms;

const KNIGHTS: [&str; 4] = ["b0c2", "b9c7", "c2b0", "c7b9"];
const SIX: [&str; 6] = ["h2e2", "h9g7", "h0g2", "i9h9", "i0h0", "b9c7"];
const MATE_FEN: &str = "4k4/R8/9/9/9/9/9/9/9/1R1K5 w - - 0 1";

fn terms(opening: &str, tc: TimeControl, sample_every: u32) -> LeaseTerms {
    LeaseTerms {
        lease: LeaseId::new(7),
        run: RunId::new(1),
        tc,
        adjudication: Adjudication::default(),
        sample_every,
        tasks: vec![PairTask {
            pair_index: 3,
            pairing: 0,
            opening_index: 0,
            opening: opening.into(),
            second_opening: None,
            variants: ["a".into(), "b".into()],
        }],
        tablebases: Vec::new(),
    }
}

/// A game over `moves` from the terms' opening: each move scored by `score(ply, mover)` and
/// taking 10 ms, positions sampled as the run asks, as the worker reports it.
fn game(
    terms: &LeaseTerms,
    moves: &[&str],
    score: impl Fn(usize, Color) -> Option<i32>,
    reason: Termination,
    outcome: GameOutcome,
) -> GameReport {
    let mut pos = OpeningLine::parse(&terms.tasks[0].opening).expect("opening").position;
    let start_fen = pos.fen();
    let mut positions = Vec::new();
    let mut move_stats = Vec::new();
    for (ply, m) in moves.iter().enumerate() {
        let every = terms.sample_every as usize;
        if every > 0 && ply > 0 && ply % every == 0 {
            positions.push(PositionSample {
                ply: ply as u32,
                fen: pos.fen(),
                red_to_move: pos.side_to_move() == Color::Red,
                static_eval: 0,
                search_score: None,
                best_move: (*m).into(),
                in_check: pos.in_check(),
                quiet: true,
            });
        }
        move_stats.push(MoveStat { score: score(ply, pos.side_to_move()), time_ms: 10 });
        pos.try_play(parse_uci(m).expect("uci")).unwrap_or_else(|e| panic!("fixture move {m}: {e}"));
    }
    GameReport {
        red: "a".into(),
        black: "b".into(),
        start_fen,
        outcome,
        reason,
        moves: moves.iter().map(|m| (*m).to_string()).collect(),
        move_stats,
        forfeit: None,
        duration_ms: 100,
        nodes: 1000,
        positions,
    }
}

/// Both games of the pair the same (the players swapped), as a symmetric game allows.
fn pair(game: GameReport) -> PairReport {
    let second = GameReport { red: "b".into(), black: "a".into(), ..game.clone() };
    PairReport { pair_index: 3, games: [game, second] }
}

fn no_score(_: usize, _: Color) -> Option<i32> {
    None
}

/// Red's engine says +700 and Black's -700 (their own views): Black resigns after 6 plies.
fn red_winning(_: usize, mover: Color) -> Option<i32> {
    Some(if mover == Color::Red { 700 } else { -700 })
}

fn repetition(terms: &LeaseTerms) -> GameReport {
    let moves: Vec<&str> = KNIGHTS.iter().chain(&KNIGHTS).copied().collect();
    game(terms, &moves, no_score, Termination::Rules(Reason::Repetition), GameOutcome::Draw)
}

fn resign(terms: &LeaseTerms) -> GameReport {
    game(terms, &SIX, red_winning, Termination::AdjudicatedResign, GameOutcome::RedWins)
}

/// The lie in the first game of the pair: the error's place and reason.
fn refused(terms: &LeaseTerms, lie: GameReport) -> (Option<u8>, Option<usize>, String) {
    match check_batch(terms, &[pair(lie)], None) {
        Err(Error::InvalidReport { lease, pair: 3, game, ply, reason }) if lease == terms.lease => (game, ply, reason),
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[test]
fn honest_games_pass() {
    let t = terms("startpos", TimeControl::Nodes(100), 0);
    check_batch(&t, &[pair(repetition(&t))], None).expect("a repetition draw");
    check_batch(&t, &[pair(resign(&t))], None).expect("an adjudicated resignation");
    let sampled = terms("startpos", TimeControl::Nodes(100), 2);
    let g = resign(&sampled);
    assert_eq!(g.positions.iter().map(|p| p.ply).collect::<Vec<_>>(), [2, 4]);
    check_batch(&sampled, &[pair(g)], None).expect("sampled positions");
    let mate = terms(MATE_FEN, TimeControl::Depth(3), 0);
    let g = game(&mate, &["b0b9"], no_score, Termination::Rules(Reason::Checkmate), GameOutcome::RedWins);
    check_batch(&mate, &[pair(g)], None).expect("a mate");
}

#[test]
fn an_illegal_move_is_refused() {
    let t = terms("startpos", TimeControl::Nodes(100), 0);
    let mut g = resign(&t);
    g.moves[3] = "i9i0".into();
    let (game, ply, reason) = refused(&t, g);
    assert_eq!((game, ply), (Some(0), Some(3)));
    assert!(reason.contains("illegal move `i9i0`"), "{reason}");
}

#[test]
fn a_wrong_start_position_is_refused() {
    let t = terms("startpos moves h2e2", TimeControl::Nodes(100), 0);
    let mut g = game(&t, &SIX[1..], no_score, Termination::NoMove, GameOutcome::RedWins);
    // The game really is legal from the start position, but the lease's opening was h2e2.
    g.start_fen = engine::START_FEN.into();
    let (_, ply, reason) = refused(&t, g);
    assert_eq!(ply, None);
    assert!(reason.contains("leased opening `startpos moves h2e2`"), "{reason}");
}

#[test]
fn a_checkmate_where_there_is_none_is_refused() {
    let t = terms("startpos", TimeControl::Nodes(100), 0);
    let g = GameReport { reason: Termination::Rules(Reason::Checkmate), ..resign(&t) };
    let (_, ply, reason) = refused(&t, g);
    assert_eq!(ply, Some(6));
    assert!(reason.contains("checkmate claimed, but the rules do not end the game here"), "{reason}");
}

#[test]
fn a_winner_contradicting_the_mate_is_refused() {
    let t = terms(MATE_FEN, TimeControl::Depth(3), 0);
    let g = game(&t, &["b0b9"], no_score, Termination::Rules(Reason::Checkmate), GameOutcome::BlackWins);
    let (_, ply, reason) = refused(&t, g);
    assert_eq!(ply, Some(1));
    assert!(reason.contains("the rules give 1-0 by checkmate, the report 0-1"), "{reason}");
    // Nor may the mate be called anything else.
    let g = game(&t, &["b0b9"], no_score, Termination::AdjudicatedResign, GameOutcome::RedWins);
    assert!(refused(&t, g).2.contains("the rules end the game here (1-0 (checkmate)), not adjudication_resign"));
}

#[test]
fn a_rules_ending_before_the_last_move_is_refused() {
    let t = terms("startpos", TimeControl::Nodes(100), 0);
    let mut g = repetition(&t);
    g.moves.push("h2e2".into());
    g.move_stats.push(MoveStat::default());
    g.reason = Termination::NoMove;
    g.outcome = GameOutcome::RedWins;
    let (_, ply, reason) = refused(&t, g);
    assert_eq!(ply, Some(8));
    assert!(reason.contains("the rules end the game here (1/2-1/2 (repetition)), yet it goes on"), "{reason}");
    // After a mate, a further move is named as following the end.
    let m = terms(MATE_FEN, TimeControl::Depth(3), 0);
    let mut g = game(&m, &["b0b9"], no_score, Termination::Rules(Reason::Checkmate), GameOutcome::RedWins);
    g.moves.push("e9e8".into());
    g.move_stats.push(MoveStat::default());
    let (_, ply, reason) = refused(&m, g);
    assert_eq!(ply, Some(1));
    assert!(reason.contains("the rules ended the game here (1-0 (checkmate)), yet `e9e8` follows"), "{reason}");
}

#[test]
fn an_adjudication_at_the_wrong_ply_is_refused() {
    let t = terms("startpos", TimeControl::Nodes(100), 0);
    // Stopped one ply early: the scores have not agreed for three moves yet.
    let g = game(&t, &SIX[..5], red_winning, Termination::AdjudicatedResign, GameOutcome::RedWins);
    let (_, ply, reason) = refused(&t, g);
    assert_eq!(ply, Some(5));
    assert!(reason.contains("adjudication rules do not trigger at this ply"), "{reason}");
    // Played on past the resignation.
    let mut moves = SIX.to_vec();
    moves.push("h0h6");
    let g = game(&t, &moves, red_winning, Termination::AdjudicatedResign, GameOutcome::RedWins);
    let (_, ply, reason) = refused(&t, g);
    assert_eq!(ply, Some(6));
    assert!(reason.contains("the adjudication rules end the game here (Black resigns), yet it goes on"), "{reason}");
    // The right ply, the wrong winner.
    let g = GameReport { outcome: GameOutcome::BlackWins, ..resign(&t) };
    assert!(refused(&t, g).2.contains("adjudication_resign gives 1-0 here, the report 0-1"));
    // A forfeit where the adjudication had already ended the game.
    let g = GameReport { reason: Termination::EngineError, outcome: GameOutcome::BlackWins, ..resign(&t) };
    assert!(refused(&t, g).2.contains("the adjudication rules end the game here (Black resigns), not engine_error"));
}

#[test]
fn a_hung_engine_loses_as_the_side_to_move_and_only_it() {
    let t = terms("startpos", TimeControl::MoveTimeMs(100), 0);
    // After two moves Red is to move: Red hung, Black wins.
    let hung = |outcome| game(&t, &SIX[..2], no_score, Termination::EngineHung, outcome);
    check_batch(&t, &[pair(hung(GameOutcome::BlackWins))], None).expect("the mover hung and lost");
    let (_, _, reason) = refused(&t, hung(GameOutcome::RedWins));
    assert!(reason.contains("engine_hung gives a loss for the side at fault, the report 1-0"), "{reason}");
}

#[test]
fn time_forfeits_need_the_clock_to_run_out() {
    let t = terms("startpos", TimeControl::Clock { base_ms: 100, inc_ms: 0 }, 0);
    // Two moves of 10 ms each: Red has 90 ms left for its attempt.
    let honest = |time_ms| GameReport {
        forfeit: Some(ForfeitAttempt { mv: Some("h0g2".into()), time_ms }),
        ..game(&t, &SIX[..2], no_score, Termination::TimeForfeit, GameOutcome::BlackWins)
    };
    check_batch(&t, &[pair(honest(91))], None).expect("91 ms with 90 left");
    let (_, ply, reason) = refused(&t, honest(90));
    assert_eq!(ply, Some(2));
    assert!(reason.contains("time_forfeit, but the attempt took 90 ms with 90 ms left"), "{reason}");
    let mut g = honest(91);
    g.forfeit = None;
    assert!(refused(&t, g).2.contains("without the time"));
    // A move that overran is where the game ended.
    let mut g = honest(91);
    g.move_stats[0].time_ms = 101;
    let (_, ply, reason) = refused(&t, g);
    assert_eq!(ply, Some(0));
    assert!(reason.contains("took 101 ms with 100 ms left"), "{reason}");
    // No clock, no time forfeit.
    let n = terms("startpos", TimeControl::Nodes(100), 0);
    let g = GameReport {
        forfeit: Some(ForfeitAttempt { mv: None, time_ms: 1_000_000 }),
        ..game(&n, &SIX[..2], no_score, Termination::TimeForfeit, GameOutcome::BlackWins)
    };
    assert!(refused(&n, g).2.contains("without a clock"));
}

#[test]
fn illegal_move_forfeits_need_the_illegal_move() {
    let t = terms("startpos", TimeControl::Nodes(100), 0);
    let with = |mv: Option<&str>| GameReport {
        forfeit: Some(ForfeitAttempt { mv: mv.map(str::to_owned), time_ms: 5 }),
        ..game(&t, &SIX[..1], no_score, Termination::IllegalMove, GameOutcome::RedWins)
    };
    check_batch(&t, &[pair(with(Some("a9a0")))], None).expect("an illegal rook move");
    assert!(refused(&t, with(Some("h9g7"))).2.contains("illegal_move, but `h9g7` is legal here"));
    assert!(refused(&t, with(None)).2.contains("without the offending move"));
    // The side that moved illegally loses, not the other.
    let g = GameReport { outcome: GameOutcome::BlackWins, ..with(Some("a9a0")) };
    assert!(refused(&t, g).2.contains("illegal_move loses for Black (to move)"));
}

#[test]
fn wrong_samples_are_refused() {
    let t = terms("startpos", TimeControl::Nodes(100), 2);
    let mut g = resign(&t);
    g.positions[1].fen = engine::START_FEN.into();
    let (_, ply, reason) = refused(&t, g);
    assert_eq!(ply, Some(4));
    assert!(reason.contains("but the game stands at"), "{reason}");
    let mut g = resign(&t);
    g.positions.remove(0);
    assert_eq!(refused(&t, g).1, Some(2));
    let mut g = resign(&t);
    g.positions[1].ply = 3;
    assert!(refused(&t, g).2.contains("ply 3, which the run does not sample"));
    let mut g = resign(&t);
    g.positions[0].best_move = "b0c2".into();
    assert!(refused(&t, g).2.contains("sampled best move `b0c2`"));
}

#[test]
fn every_move_needs_its_stat_and_the_lie_may_be_in_either_game() {
    let t = terms("startpos", TimeControl::Nodes(100), 0);
    let mut g = resign(&t);
    g.move_stats.pop();
    assert!(refused(&t, g).2.contains("6 moves but 5 move stats"));
    // An honest first game does not cover a lying second one.
    let mut p = pair(resign(&t));
    p.games[1].reason = Termination::Rules(Reason::MoveLimit);
    match check_batch(&t, &[p], None) {
        Err(e @ Error::InvalidReport { game: Some(1), ply: Some(6), .. }) => {
            assert!(e.to_string().starts_with("invalid report for lease 7, pair 3, game 1, ply 6: move_limit"), "{e}");
        }
        other => panic!("expected game 1 refused, got {other:?}"),
    }
    // A pair the lease was never given.
    let mut p = pair(resign(&t));
    p.pair_index = 4;
    assert!(matches!(check_batch(&t, &[p], None), Err(Error::InvalidReport { pair: 4, .. })));
}

#[test]
fn a_tablebase_ending_is_checked_against_the_coordinators_tables() {
    let dir = tempfile::tempdir().expect("temp dir");
    let tables = engine::tablebase::Tablebases::open(dir.path()).expect("a directory");
    tables.generate("KRK".parse().expect("a set"), &|_| {}).expect("generates");
    let pins = proto::domain::TablePin::of_manifest(&tables.manifest().expect("lists"));
    let unpinned = terms("3k5/9/9/9/9/9/9/9/9/4K3R w - - 0 1", TimeControl::Depth(3), 0);
    let t = LeaseTerms { tablebases: pins.clone(), ..unpinned.clone() };
    // After the rook's quiet move Black, to move, is lost by the tables.
    let honest = game(&t, &["i0i1"], no_score, Termination::Tablebase, GameOutcome::RedWins);
    check_batch(&t, &[pair(honest.clone())], Some(&tables)).expect("the tables' verdict");
    // A run that pins no tables, or pins KRK at another file's checksum, takes no such ending.
    let why = |terms: &LeaseTerms| match check_batch(terms, &[pair(honest.clone())], Some(&tables)) {
        Err(Error::InvalidReport { reason, .. }) => reason,
        other => panic!("expected a refusal, got {other:?}"),
    };
    assert!(why(&unpinned).contains("set KRK, which the run does not pin"), "{}", why(&unpinned));
    let mut other_file = pins.clone();
    for p in &mut other_file {
        p.checksum ^= 1;
    }
    let stale = LeaseTerms { tablebases: other_file, ..unpinned.clone() };
    assert!(why(&stale).contains("the run pins its file at checksum"), "{}", why(&stale));

    let wrong = GameReport { outcome: GameOutcome::Draw, ..honest.clone() };
    match check_batch(&t, &[pair(wrong)], Some(&tables)) {
        Err(Error::InvalidReport { ply: Some(1), reason, .. }) => {
            assert!(reason.contains("the tables give 1-0") && reason.contains("the report 1/2-1/2"), "{reason}");
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
    let (_, _, why) = refused(&t, honest);
    assert!(why.contains("this coordinator has no endgame tables"), "{why}");

    // Outside the tables the claim is a lie.
    let s = terms("startpos", TimeControl::Depth(3), 0);
    let lie = game(&s, &["h2e2"], no_score, Termination::Tablebase, GameOutcome::RedWins);
    match check_batch(&s, &[pair(lie)], Some(&tables)) {
        Err(Error::InvalidReport { reason, .. }) => assert!(reason.contains("which the run does not pin"), "{reason}"),
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[test]
fn a_game_without_any_score_is_found_for_datagen() {
    let t = terms("startpos", TimeControl::Nodes(100), 1);
    let scored = resign(&t);
    assert_eq!(unscored_game(&[pair(scored.clone())]), None);
    // One score among the moves is enough (a book move or an early crash may lack one).
    let mut one = repetition(&t);
    one.move_stats[3].score = Some(12);
    assert_eq!(unscored_game(&[pair(one)]), None);
    // No move, no verdict either way.
    let empty = game(&t, &[], no_score, Termination::EngineError, GameOutcome::BlackWins);
    assert_eq!(unscored_game(&[pair(empty)]), None);
    // Moves and not one score: named by pair, game and the variant playing Red there.
    let mut second = pair(scored);
    second.games[1] = GameReport { red: "b".into(), black: "a".into(), ..repetition(&t) };
    assert_eq!(unscored_game(&[second]), Some((3, 1, &"b".into())));
}

#[test]
fn pairs_sharing_a_suite_opening_are_replayed_from_their_own_lines() {
    // Two datagen pairs from suite opening 0 with different random plies: each game is
    // replayed from its own task's line, not the first one seen for the opening index.
    let mut t = terms("startpos moves h2e2 h9g7", TimeControl::Nodes(100), 0);
    let mut other = t.tasks[0].clone();
    other.pair_index = 4;
    other.opening = "startpos moves c3c4 c6c5".into();
    t.tasks.push(other);
    let first = pair(repetition(&t));
    let mut second_terms = t.clone();
    second_terms.tasks.swap(0, 1);
    let mut second = pair(repetition(&second_terms));
    second.pair_index = 4;
    check_batch(&t, &[first, second], None).expect("each pair from its own line");
}
