//! The endgame tables: generated here into a temporary directory, then checked against
//! known theory (cited positions with their verdicts), against themselves (every verdict
//! follows from its successors' verdicts, DTC included) and against a brute-force search.

use std::path::Path;
use std::sync::OnceLock;

use engine::rules::MOVE_LIMIT_PLIES;
use engine::tablebase::index::Placement;
use engine::tablebase::{Material, Table, Tablebases, Value, Wdl, file};
use engine::{Color, Position};

/// The sets these tests generate (with every smaller set their captures lead to).
const SETS: &[&str] =
    &["KRK", "KNK", "KCK", "KPK", "KNKA", "KNKAA", "KRKAA", "KRKBB", "KRKN", "KCKA", "KPKA", "KRKC", "KNKP", "KCKP"];

struct Fixture {
    _dir: tempfile::TempDir,
    tbs: Tablebases,
    generated: Vec<Material>,
}

fn fixture() -> &'static Fixture {
    static F: OnceLock<Fixture> = OnceLock::new();
    F.get_or_init(|| {
        let dir = tempfile::tempdir().expect("temp dir");
        let tbs = Tablebases::open(dir.path()).expect("a directory");
        let mut generated = Vec::new();
        for set in SETS {
            let m: Material = set.parse().expect("valid set");
            for g in tbs.generate(m, &|_| {}).expect("generates") {
                generated.push(g.material);
            }
        }
        Fixture { _dir: dir, tbs, generated }
    })
}

fn probe(fen: &str) -> Value {
    let pos = Position::from_fen(fen).expect("valid FEN");
    fixture().tbs.probe(&pos).expect("readable").unwrap_or_else(|| panic!("{fen}: no table"))
}

fn position(placement: &Placement, stm: Color) -> Option<Position> {
    let mut board = [None; 90];
    for &(p, sq) in placement {
        board[sq.index()] = Some(p);
    }
    Position::from_setup(&engine::position::Setup { board, side_to_move: stm, rule60: 0, fullmove: 1 }).ok()
}

/// Known theory, each position with its verdict for the side to move. The verdicts are the
/// standard ones of the Xiangqi endgame literature: 《象棋残局大全》 (the basic endgames:
/// 单车胜光将, 单马胜光将, 单炮不能胜光将, 高兵胜光将 and 底兵不能胜, 单马胜单士,
/// 单马难胜双士, 单车胜双士, 单车胜双象, 单车难胜士象全), as summarised at
/// <https://g230.com/569493922.html> for the rook against advisors and bishops.
#[test]
fn known_theory() {
    let cases: &[(&str, &str, Wdl)] = &[
        // K+R vs K wins, whoever moves.
        ("rook wins", "3k5/9/9/9/9/9/9/9/9/4K3R w", Wdl::Win),
        ("rook wins, defender to move", "3k5/9/9/9/9/9/9/9/9/4K3R b", Wdl::Loss),
        // K+N vs K wins.
        ("knight wins", "4k4/9/9/9/9/9/9/9/9/3K1N3 w", Wdl::Win),
        // K+C vs K draws: a cannon has no screen to mate over.
        ("cannon draws", "4k4/9/9/9/9/9/9/9/9/3K1C3 w", Wdl::Draw),
        // K+P vs K: a pawn across the river, not on the last rank, wins; on the last rank it
        // draws.
        ("crossed pawn wins", "3k5/9/9/4P4/9/9/9/9/9/4K4 w", Wdl::Win),
        ("last-rank pawn draws", "4P4/4k4/9/9/9/9/9/9/9/3K5 w", Wdl::Draw),
        // K+N vs K+A wins; K+N vs K+A+A draws.
        ("knight beats one advisor", "4k4/4a4/9/9/9/9/9/9/9/3K1N3 w", Wdl::Win),
        ("knight draws against two advisors", "3aka3/9/9/9/9/9/9/9/9/3K1N3 w", Wdl::Draw),
        // K+R vs K+A+A and K+R vs K+B+B win.
        ("rook beats two advisors", "3aka3/9/9/9/9/9/9/9/9/3K4R w", Wdl::Win),
        ("rook beats two bishops", "2b1k1b2/9/9/9/9/9/9/9/9/3K4R w", Wdl::Win),
    ];
    let mut wrong = Vec::new();
    for (name, fen, wdl) in cases {
        let v = probe(fen);
        if v.wdl != *wdl {
            wrong.push(format!("{name}: {fen}: the table says {} (DTC {}), theory {wdl}", v.wdl, v.dtc));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The value after a legal move, from the side to move there (a capture's DTC counts 0).
fn successor(tbs: &Tablebases, pos: &mut Position, m: engine::Move) -> Value {
    let capture = pos.is_capture(m);
    pos.play_unchecked(m);
    let v = tbs.probe(pos).expect("readable").expect("a table for every successor");
    pos.undo();
    if capture { Value { dtc: 0, by_rule: false, ..v } } else { v }
}

/// Every position of a table against its successors: a win has a move to a position the
/// opponent loses and its DTC is 1 + the smallest such DTC; a loss has only moves to
/// positions the opponent wins (or none at all) and its DTC is 1 + the largest; a draw has
/// no winning move and has a move to a draw.
fn check_consistent(tbs: &Tablebases, table: &Table) -> usize {
    let ix = table.indexer();
    let mut placement = Placement::new();
    let mut checked = 0;
    for side in Color::ALL {
        for idx in 0..ix.size() {
            let Some(v) = table.value(side, idx) else { continue };
            assert!(ix.decode(idx, &mut placement));
            let mut pos = position(&placement, side).expect("a valued index is a legal position");
            let fen = pos.fen();
            let succ: Vec<Value> = pos.legal_moves().iter().map(|&m| successor(tbs, &mut pos, m)).collect();
            let lost: Vec<Value> = succ.iter().filter(|s| s.wdl == Wdl::Loss).copied().collect();
            let won: Vec<Value> = succ.iter().filter(|s| s.wdl == Wdl::Win).copied().collect();
            let min_lost = lost.iter().map(|s| s.dtc).min();
            let max_won = won.iter().map(|s| s.dtc).max();
            if let Some(from) = table.rule_from() {
                assert_eq!(v.by_rule, v.wdl != Wdl::Draw && v.dtc >= from, "{fen}");
            } else {
                assert!(!v.by_rule, "{fen}");
            }
            // A position of a forced region (see `rule_region_...` below) keeps its level: the
            // winner's idle move stays in the region at the same DTC, and so does the loser.
            let region = |d: Option<u16>, of: &[Value]| {
                v.by_rule && d == Some(v.dtc) && of.iter().any(|s| s.by_rule && s.dtc == v.dtc)
            };
            match v.wdl {
                Wdl::Win => {
                    let ok = min_lost.map(|d| d + 1) == Some(v.dtc) || region(min_lost, &lost);
                    assert!(ok, "{fen}: win DTC {} (by rule {}), lost successors {lost:?}", v.dtc, v.by_rule);
                }
                Wdl::Loss => {
                    assert_eq!(won.len(), succ.len(), "{fen}: a loss with a move that does not lose");
                    let ok = max_won.map_or(0, |d| d + 1) == v.dtc || region(max_won, &won);
                    assert!(ok, "{fen}: loss DTC {} (by rule {}), won successors {won:?}", v.dtc, v.by_rule);
                }
                Wdl::Draw => {
                    assert!(lost.is_empty(), "{fen}: a draw with a winning move");
                    assert!(succ.iter().any(|s| s.wdl == Wdl::Draw), "{fen}: a draw with no drawing move");
                }
            }
            checked += 1;
        }
    }
    checked
}

#[test]
fn every_generated_set_is_self_consistent() {
    let f = fixture();
    for &m in &f.generated {
        let table = f.tbs.table(m).expect("readable").expect("generated");
        let n = check_consistent(&f.tbs, &table);
        let census = [table.census(Color::Red), table.census(Color::Black)];
        assert_eq!(n as u64, census[0].positions() + census[1].positions(), "{m}");
        assert!(n > 0, "{m}");
    }
    assert!(f.generated.len() >= SETS.len(), "{:?}", f.generated);
}

/// Whether the side to move forces a conversion it wins (mate, stalemate, or a capture into
/// a position the smaller table gives it as won) within `depth` plies.
fn wins_within(tbs: &Tablebases, pos: &mut Position, depth: u32) -> bool {
    if depth == 0 {
        return false;
    }
    let moves = pos.legal_moves();
    moves.iter().any(|&m| {
        let capture = pos.is_capture(m);
        pos.play_unchecked(m);
        let w = if capture {
            tbs.probe(pos).expect("readable").expect("table").wdl == Wdl::Loss
        } else {
            loses_within(tbs, pos, depth - 1)
        };
        pos.undo();
        w
    })
}

/// Whether the side to move cannot avoid the opponent's winning conversion within `depth`.
fn loses_within(tbs: &Tablebases, pos: &mut Position, depth: u32) -> bool {
    let moves = pos.legal_moves();
    if moves.is_empty() {
        return true;
    }
    if depth == 0 {
        return false;
    }
    moves.iter().all(|&m| {
        let capture = pos.is_capture(m);
        pos.play_unchecked(m);
        let l = if capture {
            tbs.probe(pos).expect("readable").expect("table").wdl == Wdl::Win
        } else {
            wins_within(tbs, pos, depth - 1)
        };
        pos.undo();
        l
    })
}

/// 10,000 random positions of the small sets with a DTC of at most 6 plies: a full-width
/// search to that depth finds the win (or the loss) at exactly the table's DTC.
#[test]
fn brute_force_agrees_on_short_wins_and_losses() {
    let f = fixture();
    let sets = ["KRK", "KNK", "KPK", "KNKA", "KRKA", "KPKA", "KCKA", "KRKN"];
    let mut rng = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    let mut placement = Placement::new();
    let mut checked = [0usize; 2];
    let mut tries = 0u64;
    while checked[0] + checked[1] < 10_000 {
        tries += 1;
        assert!(tries < 50_000_000, "too few short wins and losses: {checked:?}");
        let m: Material = sets[(next() % sets.len() as u64) as usize].parse().expect("valid");
        let table = f.tbs.table(m).expect("readable").expect("generated");
        let ix = table.indexer();
        let side = if next() & 1 == 0 { Color::Red } else { Color::Black };
        let idx = (next() % ix.size() as u64) as usize;
        let Some(v) = table.value(side, idx) else { continue };
        if v.wdl == Wdl::Draw || v.by_rule || v.dtc > 6 {
            continue;
        }
        assert!(ix.decode(idx, &mut placement));
        let mut pos = position(&placement, side).expect("legal");
        let d = u32::from(v.dtc);
        let fen = pos.fen();
        if v.wdl == Wdl::Win {
            assert!(wins_within(&f.tbs, &mut pos, d), "{fen}: no win within {d}");
            assert!(!wins_within(&f.tbs, &mut pos, d - 1), "{fen}: a win within {}", d - 1);
            checked[0] += 1;
        } else {
            assert!(loses_within(&f.tbs, &mut pos, d), "{fen}: no loss within {d}");
            assert!(d == 0 || !loses_within(&f.tbs, &mut pos, d - 1), "{fen}: a loss within {}", d - 1);
            checked[1] += 1;
        }
    }
    assert!(checked[0] > 1000 && checked[1] > 1000, "wins and losses both: {checked:?}");
}

#[test]
fn best_move_keeps_the_verdict_and_shortens_the_win() {
    let f = fixture();
    let mut pos = Position::from_fen("3k5/9/9/9/9/9/9/9/9/4K3R w").expect("valid");
    let start = f.tbs.probe(&pos).expect("readable").expect("table");
    assert_eq!(start.wdl, Wdl::Win);
    // Following the tables' moves for both sides mates in exactly the DTC.
    for ply in 0..start.dtc {
        let best = f.tbs.best_move(&pos).expect("readable").expect("a move");
        let expected = if ply % 2 == 0 { Wdl::Win } else { Wdl::Loss };
        assert_eq!(best.value.wdl, expected);
        assert_eq!(best.value.dtc, start.dtc - ply);
        pos.try_play(best.mv).expect("legal");
    }
    assert!(!pos.has_legal_move(), "mated after {} plies: {}", start.dtc, pos.fen());
}

#[test]
fn a_damaged_or_foreign_file_is_refused_by_name() {
    let f = fixture();
    let table = f.tbs.table("KRK".parse().expect("valid")).expect("readable").expect("generated");
    let bytes = file::encode(&table);
    assert!(file::decode(&bytes, "ok").expect("round trip") == *table, "the file holds the table");
    let mut damaged = bytes.clone();
    let mid = damaged.len() / 2;
    damaged[mid] ^= 0x40;
    let e = file::decode(&damaged, "KRK.xqtb").expect_err("damaged").to_string();
    assert!(e.contains("KRK.xqtb") && e.contains("checksum"), "{e}");
    let e = file::decode(&bytes[..10], "short.xqtb").expect_err("truncated").to_string();
    assert!(e.contains("short.xqtb"), "{e}");
    // A file under another set's name.
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("KNK.xqtb"), &bytes).expect("write");
    let other = Tablebases::open(dir.path()).expect("dir");
    let pos = Position::from_fen("4k4/9/9/9/9/9/9/9/9/3K1N3 w").expect("valid");
    let e = other.probe(&pos).expect_err("foreign").to_string();
    assert!(e.contains("KNK.xqtb") && e.contains("KRK"), "{e}");
    // No file: no value, no error.
    assert_eq!(other.probe(&Position::from_fen("3k5/9/9/9/9/9/9/9/9/4K3R w").expect("valid")).expect("ok"), None);
    assert!(Tablebases::open(Path::new("/nonexistent/tb")).is_err());
}

/// The engine with the tables: a root in a table plays the tables' move and says so; a
/// search whose capture enters a table scores it as proven; without a path it is the plain
/// search.
#[test]
fn the_engine_probes_in_search_and_plays_from_the_tables_at_the_root() {
    use engine::{Engine, Limits};
    use std::sync::Arc;
    let f = fixture();
    let tables = Arc::new(Tablebases::open(f.tbs.dir()).expect("dir"));

    let mut eng = Engine::new();
    eng.set_tablebases(Some(Arc::clone(&tables)));
    let root = Position::from_fen("3k5/9/9/9/9/9/9/9/9/4K3R w").expect("valid");
    eng.set_position(root.clone());
    let r = eng.go(&Limits::depth(6), |_| {});
    let best = tables.best_move(&root).expect("readable").expect("in the table");
    assert_eq!(r.best_move, Some(best.mv));
    assert_eq!(r.tablebase, Some(best.value));

    // Rook takes knight on e5 enters K+R vs K+A, a win; the root (K+R vs K+N+A) has no table.
    let fen = "4k4/4a4/9/9/4n4/9/9/4R4/9/3K5 w";
    let proven = |tb: Option<Arc<Tablebases>>| {
        let mut eng = Engine::new();
        eng.set_tablebases(tb);
        eng.set_position(Position::from_fen(fen).expect("valid"));
        eng.go(&Limits::depth(3), |_| {})
    };
    let with = proven(Some(tables));
    let without = proven(None);
    assert_eq!(with.tablebase, None, "no table for the root");
    assert_eq!(with.best_move.map(|m| m.to_string()).as_deref(), Some("e2e5"));
    assert!(with.value > 19_000, "a proven win: {}", with.value);
    assert!(without.value < 5_000, "an evaluation: {}", without.value);
}

#[test]
fn adjudication_takes_wins_within_the_move_limit_and_draws_only_where_one_side_attacks() {
    let tbs = &fixture().tbs;
    let adj = |fen: &str| tbs.adjudicate(&Position::from_fen(fen).expect("valid")).expect("readable");
    assert_eq!(adj("3k5/9/9/9/9/9/9/9/9/4K3R b"), Some(Wdl::Loss));
    // A win is adjudicated only when its DTC fits in the plies the move limit leaves.
    let fen = "4k4/9/9/9/9/9/9/9/9/R2K5 w";
    let dtc = u32::from(tbs.probe(&Position::from_fen(fen).expect("valid")).expect("readable").expect("in KRK").dtc);
    assert!(dtc > 1, "a win that takes a few moves: {dtc}");
    assert_eq!(adj(&format!("{fen} - - {} 1", MOVE_LIMIT_PLIES - dtc)), Some(Wdl::Win));
    assert_eq!(adj(&format!("{fen} - - {} 1", MOVE_LIMIT_PLIES + 1 - dtc)), None, "the rules would draw first");
    // K+N vs K+A+A: only Red attacks, so the draw is exact.
    assert_eq!(adj("3aka3/9/9/9/9/9/9/9/9/3K1N3 w"), Some(Wdl::Draw));
    // K+R vs K+N: both sides attack; a draw there is left to the game, a win is not.
    let table = tbs.table("KRKN".parse().expect("valid")).expect("readable").expect("generated");
    let mut placement = Placement::new();
    let mut found = [false; 2];
    for idx in 0..table.indexer().size() {
        let Some(v) = table.value(Color::Red, idx) else { continue };
        let slot = usize::from(v.wdl == Wdl::Draw);
        if found[slot] {
            continue;
        }
        assert!(table.indexer().decode(idx, &mut placement));
        let pos = position(&placement, Color::Red).expect("legal");
        let expected = if v.wdl == Wdl::Draw { None } else { Some(v.wdl) };
        assert_eq!(tbs.adjudicate(&pos).expect("readable"), expected, "{}", pos.fen());
        found[slot] = true;
    }
    assert_eq!(found, [true, true], "K+R vs K+N has both draws and decided positions");
    // Not in a table.
    assert_eq!(adj("4k4/4a4/9/9/4n4/9/9/4R4/9/3K5 w"), None);
}

#[test]
fn a_run_pins_sets_by_checksum_and_adjudication_keeps_to_them() {
    let f = fixture();
    let manifest = f.tbs.manifest().expect("the directory lists");
    // Every generated set, once, with the checksum its loaded file verified.
    let mut generated = f.generated.clone();
    generated.sort_unstable();
    generated.dedup();
    assert_eq!(manifest.iter().map(|(m, _)| *m).collect::<Vec<_>>(), generated);
    for (m, sum) in &manifest {
        assert_eq!(f.tbs.checksum(*m).expect("readable"), Some(*sum), "{m}");
    }
    let pos = Position::from_fen("3k5/9/9/9/9/9/9/9/9/4K3R b").expect("valid");
    let krk: Material = "KRK".parse().expect("valid");
    let all: engine::tablebase::Pins = manifest.iter().copied().collect();
    assert_eq!(f.tbs.adjudicate_pinned(&pos, &all).expect("readable"), Some(Wdl::Loss));
    // A set the run did not pin, or pinned with another file's checksum, adjudicates nothing.
    let mut without = all.clone();
    without.remove(&krk);
    assert_eq!(f.tbs.adjudicate_pinned(&pos, &without).expect("readable"), None);
    let mut other = all.clone();
    other.insert(krk, all[&krk] ^ 1);
    assert_eq!(f.tbs.adjudicate_pinned(&pos, &other).expect("readable"), None);
    // A copy of the same file has the same checksum: another directory pins the same way.
    let copy = tempfile::tempdir().expect("temp dir");
    std::fs::copy(f.tbs.dir().join(file::file_name(krk)), copy.path().join(file::file_name(krk))).expect("copy");
    std::fs::write(copy.path().join("notes.txt"), "not a table").expect("write");
    let other_dir = Tablebases::open(copy.path()).expect("a directory");
    assert_eq!(other_dir.manifest().expect("lists"), [(krk, all[&krk])]);
    assert_eq!(other_dir.adjudicate_pinned(&pos, &all).expect("readable"), Some(Wdl::Loss));
}

/// The Asian rules in the tables: in sets where both sides attack, some positions that
/// "every repetition is a draw" leaves drawn are wins, because the defender can hold only by
/// a perpetual check or chase. Each such region's positions are played out with the tables'
/// moves for both sides, and the arbiter (`rules::judge`, which knows nothing of tables) ends
/// every one of those games against the defender by `perpetual_check` or `perpetual_chase`,
/// with no capture or mate on the way.
#[test]
fn rule_region_positions_are_lost_to_the_arbiter_by_a_perpetual() {
    use engine::rules::{GameResult, Reason, judge};
    let f = fixture();
    let mut by_reason = std::collections::BTreeMap::<String, usize>::new();
    let mut placement = Placement::new();
    for &m in &f.generated {
        let table = f.tbs.table(m).expect("readable").expect("generated");
        let Some(from) = table.rule_from() else { continue };
        let ix = table.indexer();
        let mut played = 0;
        for side in Color::ALL {
            // The first region's positions with the defender to move, sampled.
            for idx in (0..ix.size())
                .filter(|&i| table.value(side, i).is_some_and(|v| v.dtc == from && v.wdl == Wdl::Loss))
                .step_by(97)
            {
                assert!(table.value(side, idx).is_some_and(|v| v.by_rule), "{m}: level {from} not by rule");
                assert!(ix.decode(idx, &mut placement));
                let start = position(&placement, side).expect("legal");
                let mut pos = Position::from_fen(&start.fen()).expect("a FEN the tables wrote");
                let outcome = loop {
                    let best = f.tbs.best_move(&pos).expect("readable").expect("a move");
                    assert!(!pos.is_capture(best.mv), "{m} from {}: a capture at {}", start.fen(), pos.fen());
                    pos.try_play(best.mv).expect("legal");
                    let o = judge(&pos);
                    if o.reason != Reason::Ongoing {
                        break o;
                    }
                    assert!(pos.rule60() < 120, "{m} from {}: no verdict within the move limit", start.fen());
                };
                let loser_lost = match side {
                    Color::Red => GameResult::BlackWins,
                    Color::Black => GameResult::RedWins,
                };
                assert_eq!(outcome.result, loser_lost, "{m} from {}: {outcome:?}", start.fen());
                assert!(matches!(outcome.reason, Reason::PerpetualCheck | Reason::PerpetualChase), "{outcome:?}");
                *by_reason.entry(format!("{m} {:?}", outcome.reason)).or_default() += 1;
                played += 1;
            }
        }
        assert!(played > 0, "{m}: a rule level with no defender to move");
    }
    eprintln!("{by_reason:?}");
    assert!(by_reason.keys().any(|k| k.contains("PerpetualCheck")), "{by_reason:?}");
    // One of them by name: Black's knight can keep the rook from winning only by checking
    // for ever (Nd2-b1 and back); every-repetition-is-a-draw would call this a draw.
    let v = probe("9/9/4k4/9/9/9/9/3n5/9/R2K5 b");
    assert!(v.wdl == Wdl::Loss && v.by_rule, "{v:?}");
}

/// A version-1 file (written by xqfarm a9126ec, before the Asian rules) still loads: the same
/// values as today's KRK table, and nothing by rule.
#[test]
fn a_version_1_file_reads_as_having_nothing_by_rule() {
    let f = fixture();
    let bytes = std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/KRK-v1.xqtb")).expect("fixture");
    assert_eq!(u32::from_le_bytes(bytes[4..8].try_into().expect("4 bytes")), 1, "a version-1 file");
    let old = file::decode(&bytes, "KRK-v1.xqtb").expect("version 1 is read");
    assert_eq!(old.rule_from(), None);
    let new = f.tbs.table("KRK".parse().expect("valid")).expect("readable").expect("generated");
    assert!(old == *new, "the same values");
}
