//! Bad table directories are refused by name and never trusted, and nothing panics on them:
//! values a board cannot have (with good checksums), tables that contradict themselves,
//! missing layers, directories where files should be, and `verify_layer`'s sample count.

mod support;

use std::path::Path;

use pussa_egtb::format::{is_possible_byte, table_path, write_table};
use pussa_egtb::oracle::LazyTablesOracle;
use pussa_egtb::solve::{SolveError, Solver};
use pussa_egtb::{build_dir, index, BuildOptions, FormatError, Remedy, Tables};
use pussa_rules::{Game, GameState, Mode, Position, Side};

use support::{build, temp_dir};

fn open_err(dir: &Path, game: Game, max: Option<usize>) -> String {
    match Tables::open(dir, game, max) {
        Ok(_) => panic!("bad tables were accepted"),
        Err(e) => e.to_string(),
    }
}

/// The bytes a table of `k` seeds may hold: margins `-k..=k` of the parity of `k` (either
/// flag), and "not determined".
#[test]
fn possible_bytes_are_margins_within_the_seeds_of_their_parity() {
    for k in 0..=index::MAX_SEEDS {
        for b in 0..=255u8 {
            let m = i32::from(b & 0x7F) - 63;
            let want = b == 0xFF
                || (b & 0x7F != 0x7F && m.unsigned_abs() as usize <= k && (m + k as i32) % 2 == 0);
            assert_eq!(is_possible_byte(b, k), want, "byte {b:#04x}, {k} seeds");
        }
    }
}

/// QA's file: every payload byte 0x7E (margin +63) with the checksums recomputed. The loader
/// refuses it, naming the file, in `Tables::open`, in the lazy oracle's verification and when a
/// build would keep it; `check_dir` names every such file.
#[test]
fn impossible_values_with_good_checksums_are_refused() {
    let dir = temp_dir("impossible");
    let game = Game::RajaPasu;
    build(&dir, game, 4);
    for k in 1..=4 {
        let n = index::layer_size(k) as usize;
        write_table(&dir, game, k, &vec![0x7E; n], 0, 0).unwrap();
    }
    let e = open_err(&dir, game, None);
    assert!(
        e.contains("1.pegtb: impossible value at entry 0: margin +63 with 1 seed on the board"),
        "{e}"
    );
    let o = LazyTablesOracle::open(&dir, game, None).unwrap().unwrap();
    let e = o.wait().map(|_| ()).unwrap_err().to_string();
    assert!(e.contains("1.pegtb: impossible value"), "{e}");
    let e = build_dir(
        &dir,
        game,
        4,
        BuildOptions::default(),
        false,
        &|_| {},
        &mut |_| {},
    )
    .map(|_| ())
    .unwrap_err()
    .to_string();
    assert!(e.contains("1.pegtb: impossible value"), "{e}");
    let check = Tables::check_dir(&dir, game, pussa_egtb::Pattern::OPEN);
    assert_eq!(check.layers.len(), 5);
    for l in &check.layers[1..] {
        assert_eq!(l.problems.len(), 1);
        let e = l.problems[0].to_string();
        assert!(
            e.contains(&format!("{}.pegtb: impossible value", l.seeds))
                && e.contains(&format!("margin +63 with {} seed", l.seeds)),
            "{e}"
        );
    }
    assert_eq!(check.tables.map(|t| t.max_seeds()), Some(0));

    // A margin of the wrong parity (0 with 3 seeds) is impossible too, one byte is enough.
    build_dir(
        &dir,
        game,
        4,
        BuildOptions::default(),
        true,
        &|_| {},
        &mut |_| {},
    )
    .unwrap();
    let mut data = Tables::open(&dir, game, None).unwrap().layer(3).to_vec();
    data[100] = 0x3F;
    write_table(&dir, game, 3, &data, 0, 0).unwrap();
    let e = open_err(&dir, game, Some(4));
    assert!(
        e.contains("3.pegtb: impossible value at entry 100: margin +0 with 3 seeds"),
        "{e}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// Tables that were never checked (built in memory from bad layers) make the solver return an
/// error naming the inconsistency, never panic: values out of range, and values in range that
/// no move reaches.
#[test]
fn the_solver_reports_inconsistent_tables_instead_of_panicking() {
    let game = Game::RajaPasu;
    let good = Tables::build_in_memory(game, 4, BuildOptions::default(), &|_| {});
    let layers = |top: u8| -> Tables {
        let mut v: Vec<Vec<u8>> = (0..=4).map(|k| good.layer(k).to_vec()).collect();
        v[4] = vec![top; v[4].len()];
        Tables::from_layers(game, v)
    };
    let position = |board: [u8; 14]| {
        let rest = 98 - board.iter().sum::<u8>();
        Position::from_parts_unchecked(game, board, 0, [rest / 2, rest - rest / 2], Side::South)
    };
    // QA's position: 5 seeds, every child with 4 seeds or fewer.
    let qa = position([0, 1, 0, 2, 0, 0, 0, 1, 0, 0, 0, 1, 0, 1]);
    let wild = layers(0x7E);
    let e = Solver::new(&wild, 1_000_000).solve(&qa).unwrap_err();
    assert_eq!(
        e,
        SolveError::ImpossibleValue {
            seeds: 4,
            value: 63
        }
    );
    assert!(e.to_string().contains("impossible value +63"), "{e}");
    // The message names no command or method; the remedy says what finds the damaged file.
    assert!(e.to_string().ends_with("(a damaged table)"), "{e}");
    assert_eq!(e.remedy(), Some(Remedy::Verify));
    let m = pussa_egtb::matches::MatchError::Solve {
        round: 2,
        start: "start".into(),
        error: e,
    };
    assert_eq!(m.remedy(), Some(Remedy::Verify));
    assert_eq!(SolveError::NodeLimit.remedy(), None);

    // Every 4-seed board worth +4 (in range, the right parity): the roots read +4 from the
    // table, and the principal variation finds no move reaching it.
    let wrong = layers(0x43);
    let (mut inconsistent, mut solved) = (0, 0);
    for idx in 0..index::layer_size(4) {
        let pos = position(index::unrank(4, idx));
        if GameState::from_position(pos, Mode::Single, 1, Side::South).is_round_over() {
            continue;
        }
        match Solver::new(&wrong, 1_000_000).solve(&pos) {
            Ok(_) => solved += 1,
            Err(e @ SolveError::Inconsistent { value, .. }) => {
                inconsistent += 1;
                assert!(
                    e.to_string()
                        .starts_with("the tables are inconsistent: no move of the board ")
                        && e.to_string()
                            .contains(&format!("its exact value {value:+}"))
                        && e.to_string().ends_with("(a damaged table)")
                        && e.remedy() == Some(Remedy::Verify),
                    "{e}"
                );
            }
            Err(e) => panic!("{e}"),
        }
    }
    assert!(
        inconsistent > 100,
        "{inconsistent} inconsistent, {solved} solved"
    );
}

/// A layer asked for that is not there: the error names the file and the seed counts the
/// directory has (up to which, a gap, or none at all).
#[test]
fn a_missing_layer_names_the_seed_counts_there() {
    let dir = temp_dir("missing");
    let game = Game::RajaPasu;
    build(&dir, game, 4);
    let e = open_err(&dir, game, Some(5));
    let file = table_path(&dir, game, 5);
    assert_eq!(
        e,
        format!(
            "{} is missing: the tables of raja-pasu under {} go up to 4 seeds",
            file.display(),
            dir.display()
        )
    );
    std::fs::remove_file(table_path(&dir, game, 2)).unwrap();
    let e = open_err(&dir, game, Some(4));
    assert!(
        e.contains("2.pegtb is missing: the tables of raja-pasu under")
            && e.contains("go up to 4 seeds, but not 2"),
        "{e}"
    );
    let gone = dir.join("nowhere");
    let e = open_err(&gone, game, Some(3));
    assert!(
        e.contains("0.pegtb is missing: there is no directory"),
        "{e}"
    );
    let e = open_err(&dir, Game::WalakPussa, Some(3));
    assert!(
        e.contains("0.pegtb is missing: there are no tables of walak-pussa under"),
        "{e}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// A layer missing below the largest file is refused by every opener of a whole directory
/// (`Tables::open` with no limit, the lazy oracle, the eager oracle, a closed pattern): it
/// used to open the layers below the gap and leave the others out without a word.
#[test]
fn a_gap_below_the_largest_file_is_refused_by_every_opener() {
    let dir = temp_dir("gap-open");
    let game = Game::RajaPasu;
    build(&dir, game, 4);
    let three = table_path(&dir, game, 3);
    std::fs::remove_file(&three).unwrap();
    let want = format!(
        "{} is missing: the tables of raja-pasu under {} go up to 4 seeds, but not 3",
        three.display(),
        dir.display(),
    );
    assert_eq!(open_err(&dir, game, None), want);
    let e = LazyTablesOracle::open(&dir, game, None)
        .map(|_| ())
        .unwrap_err();
    assert!(matches!(e, FormatError::Missing { .. }), "{e}");
    assert_eq!(e.to_string(), want);
    // The message describes the problem; what fixes it is data, for the caller to phrase.
    assert_eq!(
        e.remedy(),
        Some(&Remedy::Build {
            dir: dir.clone(),
            game,
            pattern: pussa_egtb::Pattern::OPEN,
            max_seeds: 4,
            again: true,
        })
    );
    let e = pussa_egtb::oracle::oracle(game, &dir)
        .map(|_| ())
        .unwrap_err();
    assert_eq!(e.to_string(), want);
    // Asked for the layers below the gap only: those are all there.
    assert_eq!(Tables::open(&dir, game, Some(2)).unwrap().max_seeds(), 2);
    // The 0-seed file missing is a gap too, not "no tables".
    std::fs::remove_file(table_path(&dir, game, 0)).unwrap();
    let zero = table_path(&dir, game, 0).display().to_string();
    let e = pussa_egtb::oracle::oracle(game, &dir)
        .map(|_| ())
        .unwrap_err()
        .to_string();
    assert!(e.starts_with(&format!("{zero} is missing")), "{e}");
    let e = LazyTablesOracle::open(&dir, game, None)
        .map(|_| ())
        .unwrap_err()
        .to_string();
    assert!(e.starts_with(&format!("{zero} is missing")), "{e}");
    assert!(open_err(&dir, game, None).starts_with(&format!("{zero} is missing")));
    // A closed pattern whose mirror lacks a middle layer.
    let p = pussa_egtb::Pattern::new(1, 0);
    pussa_egtb::build_pattern_dir(
        &dir,
        game,
        p,
        4,
        BuildOptions::default(),
        false,
        &|_| {},
        &mut |_| {},
    )
    .unwrap();
    let mirror = pussa_egtb::format::pattern_path(&dir, game, p.flipped(), 2);
    std::fs::remove_file(&mirror).unwrap();
    let e = Tables::open_pattern(&dir, game, p, None)
        .map(|_| ())
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with(&format!("{} is missing", mirror.display())),
        "{e}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// A directory named like a table file: opening (eager and lazy) and building (with and
/// without `--rebuild`) name it, and no temporary file is left behind.
#[test]
fn a_directory_in_place_of_a_table_file_is_named() {
    let dir = temp_dir("dir-file");
    let game = Game::RajaPasu;
    build(&dir, game, 3);
    let f = table_path(&dir, game, 2);
    std::fs::remove_file(&f).unwrap();
    std::fs::create_dir(&f).unwrap();
    let want = format!("{} is a directory, not a table file", f.display());
    assert_eq!(open_err(&dir, game, None), want);
    assert_eq!(open_err(&dir, game, Some(3)), want);
    let e = LazyTablesOracle::open(&dir, game, None)
        .map(|_| ())
        .unwrap_err();
    assert!(matches!(e, FormatError::WrongKind { .. }), "{e}");
    assert_eq!(e.to_string(), want);
    for rebuild in [false, true] {
        let e = build_dir(
            &dir,
            game,
            3,
            BuildOptions::default(),
            rebuild,
            &|_| {},
            &mut |_| {},
        )
        .map(|_| ())
        .unwrap_err();
        assert_eq!(e.to_string(), want, "rebuild {rebuild}");
    }
    // Writing the file itself: refused before anything is written.
    let n = index::layer_size(2) as usize;
    let e = write_table(&dir, game, 2, &vec![0x3F; n], 0, 0).unwrap_err();
    assert_eq!(e.to_string(), want);
    let stray: Vec<_> = std::fs::read_dir(dir.join(game.name()))
        .unwrap()
        .filter_map(|e| {
            let name = e.unwrap().file_name().to_string_lossy().into_owned();
            name.ends_with(".tmp").then_some(name)
        })
        .collect();
    assert!(stray.is_empty(), "{stray:?}");
    // A file where the directory of the tables should be.
    let file = dir.join("plain");
    std::fs::write(&file, "x").unwrap();
    let e = write_table(&file, game, 0, &[0x3F], 0, 0).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!(
            "{} is a file, not a directory: the tables cannot be written under it",
            file.display()
        )
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// `check_dir` goes on past a missing layer: every file up to the largest is checked, the
/// missing one is reported as missing, and the tables it opens stop below the first problem.
#[test]
fn check_dir_reports_a_gap_and_every_file_after_it() {
    let dir = temp_dir("gap");
    let game = Game::RajaPasu;
    build(&dir, game, 4);
    std::fs::remove_file(table_path(&dir, game, 3)).unwrap();
    let four = table_path(&dir, game, 4);
    let bytes = std::fs::read(&four).unwrap();
    std::fs::write(&four, &bytes[..10]).unwrap();
    let check = Tables::check_dir(&dir, game, pussa_egtb::Pattern::OPEN);
    let seeds: Vec<usize> = check.layers.iter().map(|l| l.seeds).collect();
    assert_eq!(seeds, vec![0, 1, 2, 3, 4]);
    for l in &check.layers[..3] {
        assert!(l.problems.is_empty(), "{:?}", l.problems);
    }
    assert!(matches!(
        check.layers[3].problems[..],
        [FormatError::Missing { .. }]
    ));
    let e = check.layers[4].problems[0].to_string();
    assert!(e.contains("4.pegtb: truncated"), "{e}");
    assert_eq!(check.tables.map(|t| t.max_seeds()), Some(2));
    std::fs::remove_dir_all(&dir).ok();
}

/// `verify_layer(k, samples)` re-computes exactly `samples` positions (spread over the layer),
/// all of them if the layer has fewer, none for 0.
#[test]
fn verify_layer_recomputes_exactly_the_samples_asked() {
    let t = Tables::build_in_memory(Game::WalakPussa, 3, BuildOptions::default(), &|_| {});
    for (k, samples, want) in [
        (1, 0, 0),
        (1, 5, 5),
        (1, 13, 13),
        (1, 14, 14),
        (1, 2000, 14),
        (0, 0, 0),
        (0, 1, 1),
        (3, 7, 7),
        (3, 559, 559),
    ] {
        let r = t.verify_layer(k, samples);
        assert_eq!(r.checked, want, "{k} seeds, {samples} samples");
        assert_eq!(r.mismatches, 0);
    }
}

/// A build past the layers the builder can build (32-bit ranks) is refused before any work,
/// not stopped by a panic at that layer after hours: the open board goes to 24 seeds, a
/// pattern with closed holes further.
#[test]
fn a_build_past_the_32_bit_layers_is_refused_before_any_work() {
    let dir = temp_dir("too-many");
    let game = Game::RajaPasu;
    assert_eq!(
        pussa_egtb::max_build_seeds(game, pussa_egtb::Pattern::OPEN),
        24
    );
    for k in 0..=24 {
        assert!(index::layer_size(k) <= u64::from(u32::MAX));
    }
    assert!(index::layer_size(25) > u64::from(u32::MAX));
    let e = build_dir(
        &dir,
        game,
        25,
        BuildOptions::default(),
        false,
        &|_| {},
        &mut |_| {},
    )
    .map(|_| ())
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        format!(
            "{}: 25 seeds cannot be built: the tables of raja-pasu go up to 24 seeds at most \
             (a layer's boards are counted in 32 bits)",
            table_path(&dir, game, 25).display()
        )
    );
    let p = pussa_egtb::Pattern::new(6, 0);
    let limit = pussa_egtb::max_build_seeds(game, p);
    assert_eq!(limit, index::MAX_SEEDS);
    let p = pussa_egtb::Pattern::new(1, 0);
    let limit = pussa_egtb::max_build_seeds(game, p);
    assert!(pussa_egtb::pair_layer_size(game, p, limit) <= u64::from(u32::MAX));
    assert!(pussa_egtb::pair_layer_size(game, p, limit + 1) > u64::from(u32::MAX));
    let e = pussa_egtb::build_pattern_dir(
        &dir,
        game,
        p,
        limit + 1,
        BuildOptions::default(),
        false,
        &|_| {},
        &mut |_| {},
    )
    .map(|_| ())
    .unwrap_err();
    assert!(
        e.to_string()
            .contains("with closed holes (1, 0) go up to 25 seeds at most"),
        "{e}"
    );
    // Nothing was written.
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
    std::fs::remove_dir_all(&dir).ok();
}

/// Two builds of a game's tables into one directory: the second is refused at once, naming
/// the directory (they used to race on the same temporary files, and one failed with "0.pegtb:
/// No such file or directory"); once the first is done, a build goes ahead.
#[cfg(unix)]
#[test]
fn a_second_build_into_the_same_directory_is_refused() {
    let dir = temp_dir("two-builds");
    let game = Game::RajaPasu;
    let lock = pussa_egtb::BuildLock::take(&dir, game).unwrap();
    let build = |p: pussa_egtb::Pattern| {
        pussa_egtb::build_pattern_dir(
            &dir,
            game,
            p,
            2,
            BuildOptions::default(),
            false,
            &|_| {},
            &mut |_| {},
        )
        .map(|_| ())
    };
    let want = format!(
        "another build is writing {} (wait for it to finish, or stop it)",
        dir.join("raja-pasu").display()
    );
    for p in [pussa_egtb::Pattern::OPEN, pussa_egtb::Pattern::new(1, 0)] {
        let e = build(p).unwrap_err();
        assert!(matches!(e, FormatError::Busy { .. }), "{e}");
        assert_eq!(e.to_string(), want);
    }
    assert!(pussa_egtb::format::table_files(&dir, game, pussa_egtb::Pattern::OPEN).is_empty());
    // Another game's tables are not locked.
    build_dir(
        &dir,
        Game::WalakPussa,
        2,
        BuildOptions::default(),
        false,
        &|_| {},
        &mut |_| {},
    )
    .unwrap();
    drop(lock);
    build(pussa_egtb::Pattern::OPEN).unwrap();
    assert_eq!(Tables::open(&dir, game, None).unwrap().max_seeds(), 2);
    std::fs::remove_dir_all(&dir).ok();
}

/// Tables hold at least the layer of 0 seeds: `from_layers` refuses an empty list, with a
/// message saying so, instead of making tables whose `max_seeds` wraps around.
#[test]
#[should_panic(expected = "no layers: tables hold at least the layer of 0 seeds")]
fn tables_from_no_layers_are_refused() {
    let _ = Tables::from_layers(Game::RajaPasu, Vec::new());
}

/// `verify_layer` beyond the tables' seeds panics with a message naming the layer and the
/// tables' range (its documented `# Panics`), not an index out of bounds.
#[test]
fn verifying_a_layer_the_tables_do_not_hold_names_the_range() {
    let t = Tables::build_in_memory(Game::WalakPussa, 4, BuildOptions::default(), &|_| {});
    assert_eq!(t.max_seeds(), 4);
    assert_eq!(t.verify_layer(4, 10).mismatches, 0);
    for k in [5, 99] {
        let err = std::panic::catch_unwind(|| t.verify_layer(k, 10)).unwrap_err();
        let msg = err.downcast_ref::<String>().cloned().unwrap_or_default();
        assert_eq!(msg, format!("no layer of {k} seeds: the tables hold 0..=4"));
    }
}

/// A `Pattern` can only be made by its checked constructors, and reads back through getters.
#[test]
fn patterns_are_read_through_getters() {
    let p = pussa_egtb::Pattern::new(2, 5);
    assert_eq!((p.mine(), p.theirs()), (2, 5));
    assert_eq!((p.flipped().mine(), p.flipped().theirs()), (5, 2));
    assert_eq!(p.holes(), 7);
    assert!(std::panic::catch_unwind(|| pussa_egtb::Pattern::new(7, 0)).is_err());
}

/// The library's errors describe the problem and name no command line or CLI flag (a program
/// embedding the crate may not ship `pussa`); what fixes them is [`FormatError::remedy`].
#[test]
fn table_errors_name_no_command_line() {
    let dir = temp_dir("no-cli-words");
    let game = Game::WalakPussa;
    std::fs::create_dir_all(&dir).unwrap();
    let e = Tables::open(&dir, game, None).map(|_| ()).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!(
            "{}: no tables for walak-pussa",
            table_path(&dir, game, 0).display()
        )
    );
    assert_eq!(
        e.remedy(),
        Some(&Remedy::Build {
            dir: dir.clone(),
            game,
            pattern: pussa_egtb::Pattern::OPEN,
            max_seeds: 14,
            again: false,
        })
    );
    // A damaged file a build would keep.
    build(&dir, game, 2);
    let two = table_path(&dir, game, 2);
    let mut bytes = std::fs::read(&two).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0x01;
    std::fs::write(&two, &bytes).unwrap();
    let e = build_dir(
        &dir,
        game,
        2,
        BuildOptions::default(),
        false,
        &|_| {},
        &mut |_| {},
    )
    .map(|_| ())
    .unwrap_err();
    let text = e.to_string();
    assert_eq!(
        text,
        format!(
            "{}: payload checksum mismatch: the table is damaged",
            two.display()
        )
    );
    assert_eq!(e.remedy(), Some(&Remedy::DeleteOrRebuild));
    // The same damaged file found by `Tables::open`: the same remedy.
    let e = Tables::open(&dir, game, None).map(|_| ()).unwrap_err();
    assert_eq!(e.to_string(), text);
    assert_eq!(e.remedy(), Some(&Remedy::DeleteOrRebuild));
    std::fs::remove_dir_all(&dir).ok();
}

/// Opening `0..=max` of a directory without tables: the remedy builds up to `max`, what was
/// asked for, not the general suggestion past it (QA pass 21, interop2 #5: a 2-seed position's
/// error said `--max-seeds 14`); opened whole (`None`), the suggestion, which
/// `FormatError::needing_at_most` narrows to what a caller's case needs.
#[test]
fn a_remedy_for_an_empty_directory_builds_what_was_asked_for() {
    let dir = temp_dir("empty-remedy");
    std::fs::create_dir_all(&dir).unwrap();
    let game = Game::RajaPasu;
    let build = |pattern, max_seeds| Remedy::Build {
        dir: dir.clone(),
        game,
        pattern,
        max_seeds,
        again: false,
    };
    let open = pussa_egtb::Pattern::OPEN;
    let closed = pussa_egtb::Pattern::new(1, 0);
    let e = Tables::open(&dir, game, Some(2)).map(|_| ()).unwrap_err();
    assert_eq!(e.remedy(), Some(&build(open, 2)), "{e}");
    let e = Tables::open_pattern(&dir, game, closed, Some(3))
        .map(|_| ())
        .unwrap_err();
    assert_eq!(e.remedy(), Some(&build(closed, 3)), "{e}");
    let e = Tables::open_pattern(&dir, game, closed, None)
        .map(|_| ())
        .unwrap_err();
    assert_eq!(e.remedy(), Some(&build(closed, 14)), "{e}");
    let text = e.to_string();
    let e = e.needing_at_most(2);
    assert_eq!(e.remedy(), Some(&build(closed, 2)), "{e}");
    assert_eq!(e.to_string(), text, "the message is the same");
    // Never widened.
    assert_eq!(e.needing_at_most(20).remedy(), Some(&build(closed, 2)));
    std::fs::remove_dir_all(&dir).ok();
}

/// Opening more seeds than were built: the missing layer's remedy builds up to the seeds asked
/// for (the layers there are kept); past what the builder can build, there is none.
#[test]
fn opening_more_seeds_than_built_says_what_builds_them() {
    let dir = temp_dir("open-above-top");
    let game = Game::WalakPussa;
    build(&dir, game, 3);
    let e = Tables::open(&dir, game, Some(6)).map(|_| ()).unwrap_err();
    assert!(matches!(e, FormatError::Missing { .. }), "{e}");
    assert!(e.to_string().contains("go up to 3 seeds"), "{e}");
    assert_eq!(
        e.remedy(),
        Some(&Remedy::Build {
            dir: dir.clone(),
            game,
            pattern: pussa_egtb::Pattern::OPEN,
            max_seeds: 6,
            again: false,
        })
    );
    let too_many = pussa_egtb::max_build_seeds(game, pussa_egtb::Pattern::OPEN) + 1;
    let e = Tables::open_layer(&dir, game, too_many)
        .map(|_| ())
        .unwrap_err();
    assert!(matches!(e, FormatError::Missing { .. }), "{e}");
    assert_eq!(e.remedy(), None, "{e}");
    std::fs::remove_dir_all(&dir).ok();
}
