//! `xqfarm tournament create --local`: a 4-variant, 3-round Swiss and a 4-player knockout at
//! nodes=2000 end to end (embedded coordinator, a local worker), with the standings recomputed
//! from the Parquet games equal to the coordinator's; and the refusals of bad designs.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use coordinator::Storage as _;
use coordinator::tournament::director::Tournament;
use coordinator::tournament::standings::{self, Game};
use proto::domain::{RunId, RunKind, RunState};

/// Four players: the default, the default with half its mobility weights, with none, and with
/// its rook worth less: different enough to give decisive games at 2000 nodes.
fn players(dir: &Path) -> Vec<String> {
    let default = engine::ParamSet::default();
    let mut out = vec!["default".to_owned()];
    for (name, scale) in [("mob-half", 0.5), ("mob-zero", 0.0)] {
        let text = scaled_mobility(&default.to_toml(), scale);
        let path = dir.join(format!("{name}.toml"));
        std::fs::write(&path, text).expect("write a player");
        out.push(path.display().to_string());
    }
    let path = dir.join("weak-rook.toml");
    std::fs::write(&path, "[material.rook]\nmg = 700\neg = 800\n").expect("write a player");
    out.push(path.display().to_string());
    out
}

/// The parameter file with every mobility table scaled by `scale`.
fn scaled_mobility(toml: &str, scale: f64) -> String {
    let mut in_mobility = false;
    let mut out = String::new();
    for line in toml.lines() {
        if line.starts_with('[') {
            in_mobility = line.starts_with("[mobility.");
        }
        let scaled = match line.split_once(" = [") {
            Some((key, values)) if in_mobility && (key == "mg" || key == "eg") => {
                let nums: Vec<String> = values
                    .trim_end_matches(']')
                    .split(',')
                    .map(|v| ((v.trim().parse::<f64>().expect("a number") * scale).round() as i64).to_string())
                    .collect();
                format!("{key} = [{}]", nums.join(", "))
            }
            _ => line.to_owned(),
        };
        out.push_str(&scaled);
        out.push('\n');
    }
    out
}

fn tournament(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_xqfarm"))
        .args(["tournament", "create"])
        .args(args)
        .args(["--tc", "nodes=2000", "--concurrency", "2", "--local", "--dir"])
        .arg(dir)
        .output()
        .expect("xqfarm runs")
}

/// The finished tournament of `dir`'s farm: the coordinator's view, and the standings
/// recomputed from the Parquet games alone (each game's round from the match its two players
/// played, unique in a Swiss and a knockout).
fn check_against_parquet(dir: &Path) -> Tournament {
    let storage = coordinator::SqliteStorage::open(dir.join("xqfarm.db")).expect("the farm's database");
    let run = storage.get_run(RunId::new(1)).expect("run 1");
    assert_eq!(run.state, RunState::Completed);
    let RunKind::Tournament(settings) = &run.spec.kind else { panic!("a tournament: {:?}", run.spec.kind) };
    let draw = storage.tournament_draw(run.id).expect("draw").expect("a tournament");
    let t = Tournament::from_draw(settings, run.spec.variants.len(), &draw, &run.stats);

    let games = farmdata::read_games(&dir.join("data"), run.id).expect("the Parquet games");
    let recorded: u64 = run.stats.iter().map(|s| s.games()).sum();
    assert_eq!(games.len() as u64, recorded, "every recorded game is in Parquet");
    let index = |id: &str| run.spec.variants.iter().position(|v| v.as_str() == id).expect("a player's game");
    let mut rounds: BTreeMap<(usize, usize), u32> = BTreeMap::new();
    for m in &draw.matches {
        let key = (m.m.a.min(m.m.b), m.m.a.max(m.m.b));
        let round = *rounds.entry(key).or_insert(m.m.round);
        assert_eq!(round, m.m.round, "two players meet in one round only");
    }
    let from_parquet: Vec<Game> = games
        .iter()
        .map(|g| {
            let (red, black) = (index(&g.red_variant), index(&g.black_variant));
            let red_points = match g.result.as_str() {
                "1-0" => standings::WIN,
                "1/2-1/2" => standings::DRAW,
                "0-1" => 0,
                other => panic!("result {other}"),
            };
            Game { round: rounds[&(red.min(black), red.max(black))], red, black, red_points }
        })
        .collect();
    let per_bye = (2 * settings.pairs_per_match) as u32;
    let byes: Vec<standings::Bye> =
        draw.byes.iter().map(|b| standings::Bye { round: b.round, player: b.player, games: per_bye }).collect();
    let recomputed = standings::standings(t.players, &from_parquet, &byes, &settings.tiebreaks);
    assert_eq!(recomputed, t.standings(u32::MAX), "Parquet's standings are the coordinator's");
    t
}

#[test]
fn a_four_player_swiss_of_three_rounds_agrees_with_its_parquet_games() {
    let dir = tempfile::tempdir().expect("temp dir");
    let farm = dir.path().join("farm");
    let players = players(dir.path());
    let mut args = vec!["--format", "swiss", "--rounds", "3", "--name", "ci swiss", "--variants"];
    args.extend(players.iter().map(String::as_str));
    let out = tournament(&farm, &args);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    let t = check_against_parquet(&farm);
    assert_eq!(t.round(), 3);
    assert_eq!(t.played.len(), 6, "two matches a round");
    // No rematch.
    let mut met: Vec<(usize, usize)> = t.played.iter().map(|p| (p.m.a.min(p.m.b), p.m.a.max(p.m.b))).collect();
    met.sort_unstable();
    met.dedup();
    assert_eq!(met.len(), 6);
    // The printed standings are the coordinator's, points and all.
    assert!(stdout.contains("standings:"), "{stdout}");
    let names = ["default", "mob-half", "mob-zero", "weak-rook"];
    for line in t.standings(u32::MAX) {
        let printed = stdout
            .lines()
            .find(|l| l.split_whitespace().nth(1) == Some(names[line.player]))
            .unwrap_or_else(|| panic!("{} in the table: {stdout}", names[line.player]));
        let cells: Vec<&str> = printed.split_whitespace().collect();
        assert_eq!(cells[0], line.rank.to_string(), "{printed}");
        assert_eq!(cells[2], line.points.to_string(), "{printed}");
    }
    let saved = std::fs::read_to_string(farm.join("tournament.txt")).expect("the standings file");
    assert!(saved.contains("round 3"), "{saved}");
}

#[test]
fn a_four_player_knockout_crowns_one_and_agrees_with_its_parquet_games() {
    let dir = tempfile::tempdir().expect("temp dir");
    let farm = dir.path().join("farm");
    let players = players(dir.path());
    let mut args = vec!["--format", "knockout", "--extra-pairs", "1", "--variants"];
    args.extend(players.iter().map(String::as_str));
    let out = tournament(&farm, &args);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    let t = check_against_parquet(&farm);
    assert_eq!(t.round(), 2, "semi-finals and a final");
    // Seeds 1 v 4 and 2 v 3 in the semi-finals.
    let semis: Vec<(usize, usize)> = t
        .played
        .iter()
        .filter(|p| p.m.round == 1 && p.m.stage == proto::domain::MatchStage::Main)
        .map(|p| (p.m.a, p.m.b))
        .collect();
    assert_eq!(semis, [(0, 3), (1, 2)]);
    let winner = coordinator::tournament::director::knockout_winner(&t.settings, &t.played, &t.byes).expect("a winner");
    let final_tie = &t.ties(2)[0];
    let finalists = [final_tie.players.0, final_tie.players.1.expect("two finalists")];
    assert!(finalists.contains(&winner));
    let names = ["default", "mob-half", "mob-zero", "weak-rook"];
    assert!(stdout.contains(&format!("winner: {}", names[winner])), "{stdout}");
    assert!(stdout.contains("bracket:"), "{stdout}");
}

#[test]
fn bad_designs_are_refused_by_name_before_anything_starts() {
    let dir = tempfile::tempdir().expect("temp dir");
    let players = players(dir.path());
    let four: Vec<&str> = players.iter().map(String::as_str).collect();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            [&["--format", "swiss", "--rounds", "4", "--variants"][..], &four].concat(),
            "a Swiss of 4 players plays 1 to 3 rounds",
        ),
        (vec!["--format", "swiss", "--rounds", "1", "--variants", "default"], "at least 2 variants, got 1"),
        (
            vec!["--format", "swiss", "--rounds", "1", "--variants", "default", four[1], "default"],
            "`default` is given twice",
        ),
        (
            [&["--format", "round-robin", "--pairs-per-match", "0", "--variants"][..], &four].concat(),
            "--pairs-per-match 0",
        ),
        (
            [&["--format", "swiss", "--rounds", "2", "--tiebreaks", "buchholz,median", "--variants"][..], &four]
                .concat(),
            "unknown tiebreak `median`",
        ),
        (
            [&["--format", "knockout", "--rounds", "2", "--variants"][..], &four].concat(),
            "a knockout's rounds follow from its bracket",
        ),
    ];
    for (i, (args, want)) in cases.into_iter().enumerate() {
        let farm = dir.path().join(format!("farm{i}"));
        let out = tournament(&farm, &args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?}");
        assert!(stderr.contains(want), "{args:?}: {stderr}");
        assert!(!farm.join("xqfarm.db").exists(), "nothing started for {args:?}");
    }
}
