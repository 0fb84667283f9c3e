//! The search against a plain minimax, and its limits, determinism and legality.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

mod common;

use pussa_engine::reference::minimax_state_budget;
use pussa_engine::{analyze, search, Limits};
use pussa_rules::{Game, GameState, Mode, Position, Rng, Side};

/// A random position of `game` with `seeds` seeds on the board (the rest in the stores), a random
/// side to move, then up to `walk` random moves played through `GameState` (so the state carries
/// a repetition history). `None` if the round is already over.
fn small_state(game: Game, seeds: u32, walk: u32, rng: &mut Rng) -> Option<GameState> {
    let pos = common::random_position(game, seeds, rng);
    let to_move = pos.to_move();
    let mut st = GameState::from_position(pos, Mode::Single, 1, to_move);
    for _ in 0..walk {
        if st.is_round_over() {
            break;
        }
        let legal = st.legal_moves();
        let mv = legal.nth(rng.below(legal.len() as u32) as usize).unwrap();
        st.play(mv).unwrap();
    }
    (!st.is_round_over()).then_some(st)
}

#[test]
fn search_equals_plain_minimax_on_small_positions_every_game() {
    let mut rng = Rng::new(2024);
    let mut compared = [0; 4];
    let mut with_history = 0;
    for (gi, game) in Game::ALL.into_iter().enumerate() {
        let mut tries = 0;
        while compared[gi] < 40 && tries < 2000 {
            tries += 1;
            let seeds = 2 + rng.below(6);
            let Some(st) = small_state(game, seeds, rng.below(4), &mut rng) else {
                continue;
            };
            // Only positions the search proves within 12 plies (it may prove more than the
            // minimax, which needs every line to end, where alpha-beta cuts some off) and
            // where every line ends within 12 plies.
            let r = search(
                &st,
                &Limits {
                    depth: Some(12),
                    ..Limits::default()
                },
                &mut |_| {},
            );
            if !r.exact {
                continue;
            }
            let Some((want, true)) = minimax_state_budget(&st, 12, 200_000) else {
                continue;
            };
            assert_eq!(
                r.score,
                want,
                "{game} {:?} history {}",
                st.position(),
                st.history().len()
            );
            let best = r.best.unwrap();
            assert!(st.legal_moves().contains(best));
            // The best move's own value is the root value.
            let mut child = st.clone();
            child.play(best).unwrap();
            let child_value = match child.is_round_over() {
                false => -minimax_state_budget(&child, 11, 400_000).unwrap().0,
                true => {
                    let t = child.taken_this_round();
                    let me = st.position().to_move().index();
                    i32::from(t[me]) - i32::from(t[1 - me])
                }
            };
            assert_eq!(
                child_value,
                want,
                "{game} {:?}: best move {best} is not best",
                st.position()
            );
            // Every move's value from analyze, against minimax of the child.
            for mvv in analyze(
                &st,
                &Limits {
                    depth: Some(12),
                    ..Limits::default()
                },
            ) {
                let mut c = st.clone();
                c.play(mvv.mv).unwrap();
                let v = match c.is_round_over() {
                    false => {
                        let (v, e) = minimax_state_budget(&c, 11, 400_000).unwrap();
                        assert!(e);
                        -v
                    }
                    true => {
                        let t = c.taken_this_round();
                        let me = st.position().to_move().index();
                        i32::from(t[me]) - i32::from(t[1 - me])
                    }
                };
                assert!(mvv.exact);
                assert_eq!(mvv.score, v, "{game} {:?} move {}", st.position(), mvv.mv);
            }
            if st.history().len() > 1 {
                with_history += 1;
            }
            compared[gi] += 1;
        }
    }
    assert!(
        compared.iter().all(|&c| c >= 20),
        "too few exact positions compared: {compared:?}"
    );
    assert!(
        with_history >= 10,
        "too few positions with a repetition history: {with_history}"
    );
}

#[test]
fn same_limits_same_move_score_and_nodes() {
    for game in Game::ALL {
        let st = GameState::new(game, Mode::Single, Side::South);
        let l = Limits {
            nodes: Some(30_000),
            seed: 5,
            ..Limits::default()
        };
        let a = search(&st, &l, &mut |_| {});
        let b = search(&st, &l, &mut |_| {});
        assert_eq!(a, b);
        let l = Limits {
            depth: Some(6),
            ..Limits::default()
        };
        assert_eq!(search(&st, &l, &mut |_| {}), search(&st, &l, &mut |_| {}));
    }
}

#[test]
fn stops_on_node_budget_time_and_flag() {
    let st = GameState::new(Game::RajaPasu, Mode::Single, Side::South);
    let r = search(
        &st,
        &Limits {
            nodes: Some(5_000),
            ..Limits::default()
        },
        &mut |_| {},
    );
    assert!(r.nodes <= 5_000, "{} nodes", r.nodes);
    assert!(st.legal_moves().contains(r.best.unwrap()));

    let t = Instant::now();
    let r = search(
        &st,
        &Limits {
            movetime: Some(Duration::from_millis(60)),
            ..Limits::default()
        },
        &mut |_| {},
    );
    // Time is the behaviour here (a movetime honoured): 10 times the movetime, a bound that a
    // loaded 2-core machine running the other tests does not break.
    assert!(
        t.elapsed() < Duration::from_millis(600),
        "took {:?}",
        t.elapsed()
    );
    assert!(st.legal_moves().contains(r.best.unwrap()));

    // A raised stop: nothing searched (not timed, QA pass 18 review-tests #6).
    let flag = Arc::new(AtomicBool::new(true));
    let r = search(
        &st,
        &Limits {
            depth: Some(60),
            stop: Some(flag),
            ..Limits::default()
        },
        &mut |_| {},
    );
    assert_eq!((r.nodes, r.depth), (0, 0), "a raised stop searches nothing");
    assert!(
        st.legal_moves().contains(r.best.unwrap()),
        "a stopped search still returns a legal move"
    );
}

#[test]
fn plays_only_legal_moves_through_whole_matches() {
    for game in Game::ALL {
        let mut st = GameState::new(game, Mode::Match, Side::South);
        let mut moves = 0;
        while !st.is_over() && moves < 400 {
            if st.is_round_over() {
                st.next_round();
                continue;
            }
            let r = search(
                &st,
                &Limits {
                    depth: Some(3),
                    ..Limits::default()
                },
                &mut |_| {},
            );
            let mv = r.best.expect("a move is expected");
            st.play(mv)
                .unwrap_or_else(|e| panic!("{game}: search chose {e}"));
            moves += 1;
        }
        assert!(search(&st, &Limits::default(), &mut |_| {}).best.is_none() || !st.is_round_over());
    }
}

#[test]
fn reported_info_is_monotone_and_pv_is_playable() {
    let st = GameState::new(Game::WalakPussa, Mode::Single, Side::South);
    let mut infos = Vec::new();
    let r = search(
        &st,
        &Limits {
            depth: Some(8),
            ..Limits::default()
        },
        &mut |i| infos.push(i.clone()),
    );
    assert_eq!(infos.len(), 8);
    assert!(infos
        .windows(2)
        .all(|w| w[0].depth < w[1].depth && w[0].nodes <= w[1].nodes));
    let mut g = st.clone();
    for mv in &r.pv {
        if g.is_round_over() {
            break;
        }
        g.play(*mv).unwrap();
    }
}

/// An oracle answering with the plain minimax for positions with few seeds (fresh history),
/// counting its answers.
struct MinimaxOracle {
    max_seeds: u32,
    answered: std::sync::atomic::AtomicU64,
}

impl pussa_engine::ExactOracle for MinimaxOracle {
    fn probe(&self, pos: &Position) -> Option<i32> {
        if pos.seeds_on_board() > self.max_seeds {
            return None;
        }
        let mut budget = 100_000;
        let (v, exact) =
            pussa_engine::reference::minimax_budget(pos, 14, &mut Vec::new(), &mut budget)?;
        if !exact {
            return None;
        }
        self.answered
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Some(v / pussa_engine::params::SCALE)
    }
}

#[test]
fn an_exact_oracle_is_used_and_agrees_with_the_search() {
    let mut rng = Rng::new(99);
    let mut checked = 0;
    let oracle = Arc::new(MinimaxOracle {
        max_seeds: 4,
        answered: Default::default(),
    });
    let mut tries = 0;
    while checked < 15 && tries < 500 {
        tries += 1;
        let Some(st) = small_state(Game::WalakPussa, 5 + rng.below(3), 0, &mut rng) else {
            continue;
        };
        let plain = search(
            &st,
            &Limits {
                depth: Some(14),
                ..Limits::default()
            },
            &mut |_| {},
        );
        if !plain.exact {
            continue;
        }
        let with = search(
            &st,
            &Limits {
                depth: Some(14),
                oracle: Some(oracle.clone()),
                ..Limits::default()
            },
            &mut |_| {},
        );
        // The oracle changes the tree (its nodes are not searched), so the proof may take
        // other lines; where both are proven they must agree.
        if with.exact {
            assert_eq!(with.score, plain.score, "{:?}", st.position());
            checked += 1;
        }
    }
    assert!(checked >= 10, "{checked}");
    assert!(
        oracle.answered.load(std::sync::atomic::Ordering::Relaxed) > 0,
        "the oracle was never asked"
    );
}

/// Moves that repeat a position of the round end it (each player takes their own row), inside
/// the search exactly as in `GameState`: found by playing random small games until a legal
/// move would repeat a position, then comparing `analyze`'s value of that move with the round's
/// real end.
#[test]
fn a_move_that_repeats_a_position_ends_the_round_in_the_search() {
    let mut rng = Rng::new(7);
    let mut found = 0;
    for _ in 0..3000 {
        if found >= 5 {
            break;
        }
        let game = Game::ALL[rng.below(4) as usize];
        let Some(mut st) = small_state(game, 3 + rng.below(5), 0, &mut rng) else {
            continue;
        };
        for _ in 0..30 {
            if st.is_round_over() {
                break;
            }
            let me = st.position().to_move().index();
            let repeating = st.legal_moves().find(|&mv| {
                let mut c = st.clone();
                let r = c.play(mv).unwrap();
                matches!(r.round_end, Some(e) if e.reason == pussa_rules::EndReason::Repetition)
            });
            if let Some(mv) = repeating {
                let mut c = st.clone();
                c.play(mv).unwrap();
                let t = c.taken_this_round();
                let want = i32::from(t[me]) - i32::from(t[1 - me]);
                let values = analyze(
                    &st,
                    &Limits {
                        depth: Some(3),
                        ..Limits::default()
                    },
                );
                let got = values.iter().find(|v| v.mv == mv).unwrap();
                assert!(got.exact, "{game} {:?} {mv}", st.position());
                assert_eq!(got.score, want, "{game} {:?} {mv}", st.position());
                found += 1;
                break;
            }
            let legal = st.legal_moves();
            let mv = legal.nth(rng.below(legal.len() as u32) as usize).unwrap();
            st.play(mv).unwrap();
        }
    }
    assert!(found >= 5, "only {found} repeating moves found");
}

/// With a node budget, a proven root lets the search choose among equally good moves (traps
/// for the opponent): the move it plays must still reach the proven result (same value, or in
/// a drawn or lost single game the same result), and the score it reports is that move's value.
#[test]
fn trap_choice_keeps_the_proven_result() {
    let mut rng = Rng::new(77);
    let mut checked = 0;
    let mut tries = 0;
    while checked < 40 && tries < 3000 {
        tries += 1;
        let game = Game::ALL[rng.below(4) as usize];
        let Some(st) = small_state(game, 2 + rng.below(6), rng.below(4), &mut rng) else {
            continue;
        };
        let r = search(
            &st,
            &Limits {
                nodes: Some(200_000),
                ..Limits::default()
            },
            &mut |_| {},
        );
        if !r.exact {
            continue;
        }
        let Some((want, true)) = minimax_state_budget(&st, 12, 200_000) else {
            continue;
        };
        let best = r.best.unwrap();
        let mut child = st.clone();
        child.play(best).unwrap();
        let got = if child.is_round_over() {
            let t = child.taken_this_round();
            let me = st.position().to_move().index();
            i32::from(t[me]) - i32::from(t[1 - me])
        } else {
            match minimax_state_budget(&child, 11, 400_000) {
                Some((v, true)) => -v,
                _ => continue,
            }
        };
        assert_eq!(r.score, got, "{game} {:?}: reported score", st.position());
        // The result of the game: the stores now plus what is still to be taken.
        let (p, t) = (st.position(), st.taken_this_round());
        let me = p.to_move();
        let shift = i32::from(p.store(me))
            - i32::from(p.store(me.other()))
            - (i32::from(t[me.index()]) - i32::from(t[me.other().index()]));
        if (want + shift).signum() > 0 {
            assert_eq!(got, want, "{game} {:?}: a won game", st.position());
        } else {
            assert_eq!(
                (got + shift).signum(),
                (want + shift).signum(),
                "{game} {:?}",
                st.position()
            );
        }
        checked += 1;
    }
    assert!(checked >= 20, "too few proven positions: {checked}");
}

/// The result (-1, 0, 1) for `me` of a single game in state `st` if the side to move there
/// gets `score` (a search score: the round's final margin for it).
fn result_for(st: &GameState, me: Side, score: i32) -> i32 {
    let (p, t) = (st.position(), st.taken_this_round());
    let mover = p.to_move();
    let r = (score + i32::from(p.store(mover))
        - i32::from(p.store(mover.other()))
        - (i32::from(t[mover.index()]) - i32::from(t[mover.other().index()])))
    .signum();
    if mover == me {
        r
    } else {
        -r
    }
}

/// The exact values of every move of `st` (deep enough to be proven), or `None`.
fn exact_values(st: &GameState) -> Option<Vec<pussa_engine::MoveValue>> {
    let v = analyze(
        st,
        &Limits {
            nodes: Some(1_000_000),
            ..Limits::default()
        },
    );
    (!v.is_empty() && v.iter().all(|m| m.exact)).then_some(v)
}

/// After our move (the opponent to move in `st`): within how many of our moves (1: the
/// opponent's very next reply) a greedy opponent, answered by our moves that keep the exact
/// value, plays a reply after which `me`'s result is better than `base`; `None` if not within
/// `left` moves. `first`: the reply's own proven value counts too (the search knows it from
/// the replies it analysed).
fn greedy_flip_depth(st: &GameState, me: Side, base: i32, left: u32, first: bool) -> Option<u32> {
    let g = pussa_engine::arena::greedy_net_capture(st)?;
    if first {
        let replies = analyze(
            st,
            &Limits {
                nodes: Some(1_000_000),
                ..Limits::default()
            },
        );
        let reply = replies.iter().find(|v| v.mv == g)?;
        if reply.exact && result_for(st, me, reply.score) > base {
            return Some(1);
        }
    }
    let mut c = st.clone();
    c.play(g).unwrap();
    if c.is_round_over() {
        let r = match c.winner().flatten() {
            Some(w) if w == me => 1,
            Some(_) => -1,
            None => 0,
        };
        return (r > base).then_some(1);
    }
    if c.position().to_move() != me {
        return None;
    }
    let values = exact_values(&c)?;
    let best = values[0].score;
    if result_for(&c, me, best) > base {
        return Some(1);
    }
    if left <= 1 {
        return None;
    }
    values
        .iter()
        .filter(|m| m.score == best)
        .filter_map(|m| {
            let mut next = c.clone();
            next.play(m.mv).unwrap();
            if next.is_round_over() {
                return None;
            }
            greedy_flip_depth(&next, me, base, left - 1, false).map(|d| d + 1)
        })
        .min()
}

/// In a drawn or lost single game with several moves of the same proven value, the search
/// plays one whose greedy line (the opponent always taking the most seeds at once, we always
/// keeping the value) changes the result in our favour the soonest, looking
/// `params::SWINDLE_DEPTH` of our moves ahead, as found here by brute force.
#[test]
fn trap_choice_follows_the_greedy_line_deepest_first() {
    let depth = pussa_engine::params::SWINDLE_DEPTH;
    let mut rng = Rng::new(4242);
    let (mut checked, mut deep, mut tries) = (0, 0, 0);
    while (checked < 20 || deep < 3) && tries < 20_000 {
        tries += 1;
        let game = Game::ALL[rng.below(4) as usize];
        // Close games only: the stores level, so that results can change.
        let seeds = 5 + rng.below(5);
        let mut board = [0u8; 14];
        for _ in 0..seeds {
            board[rng.below(14) as usize] += 1;
        }
        let rest = u32::from(game.total_seeds()) - seeds;
        let south = rest / 2 + rng.below(2);
        let me = if rng.below(2) == 0 {
            Side::South
        } else {
            Side::North
        };
        let pos =
            Position::from_parts_unchecked(game, board, 0, [south as u8, (rest - south) as u8], me);
        let st = GameState::from_position(pos, Mode::Single, 1, me);
        if st.is_round_over() {
            continue;
        }
        let Some(values) = exact_values(&st) else {
            continue;
        };
        let best = values[0].score;
        let base = result_for(&st, me, best);
        let tied: Vec<_> = values.iter().filter(|m| m.score == best).collect();
        if base > 0 || tied.len() < 2 {
            continue;
        }
        let depths: Vec<Option<u32>> = tied
            .iter()
            .map(|m| {
                let mut c = st.clone();
                c.play(m.mv).unwrap();
                if c.is_round_over() {
                    None
                } else {
                    greedy_flip_depth(&c, me, base, depth, true)
                }
            })
            .collect();
        let Some(soonest) = depths.iter().flatten().min().copied() else {
            continue;
        };
        let r = search(
            &st,
            &Limits {
                nodes: Some(4_000_000),
                ..Limits::default()
            },
            &mut |_| {},
        );
        // The trap choice is made only once the search has proven the root.
        if !r.exact {
            continue;
        }
        assert_eq!(r.score, best, "{game} {:?}", st.position());
        let chosen = tied
            .iter()
            .position(|m| Some(m.mv) == r.best)
            .expect("the search plays a move of the best value");
        assert_eq!(
            depths[chosen],
            Some(soonest),
            "{game} {:?}: moves {:?} with greedy-line depths {depths:?}, played {:?}",
            st.position(),
            tied.iter().map(|m| m.mv).collect::<Vec<_>>(),
            r.best
        );
        checked += 1;
        if soonest > 1 {
            deep += 1;
        }
    }
    assert!(
        checked >= 20 && deep >= 3,
        "too few positions with a trap: {checked}, {deep} deeper than one move"
    );
}

/// The edge values of `Limits`, as documented: `nodes: Some(0)` and a stop flag already raised
/// answer at once with the first legal move, unsearched; `depth: Some(0)` searches one ply.
#[test]
fn limits_edge_values_are_as_documented() {
    let state = GameState::new(Game::RajaPasu, Mode::Single, Side::South);
    let first = state.legal_moves().next();
    let stopped = Limits {
        stop: Some(Arc::new(AtomicBool::new(true))),
        ..Limits::default()
    };
    let none = Limits {
        nodes: Some(0),
        ..Limits::default()
    };
    for limits in [stopped, none] {
        let mut infos = 0;
        let r = pussa_engine::search(&state, &limits, &mut |_| infos += 1);
        assert_eq!(r.best, first);
        assert_eq!((r.depth, r.nodes, r.exact, r.score), (0, 0, false, 0));
        assert_eq!(r.pv, first.into_iter().collect::<Vec<_>>());
        assert_eq!(infos, 0);
    }
    let d0 = pussa_engine::search(
        &state,
        &Limits {
            depth: Some(0),
            ..Limits::default()
        },
        &mut |_| {},
    );
    let d1 = pussa_engine::search(
        &state,
        &Limits {
            depth: Some(1),
            ..Limits::default()
        },
        &mut |_| {},
    );
    assert_eq!(d0, d1);
    assert_eq!(d0.depth, 1);
}

/// The margin of the round so far for `me` once `line` is played from `st`, if the line is
/// legal and ends the round at its last move (and not before).
fn line_ends_round(st: &GameState, me: Side, line: &[pussa_rules::Hole]) -> Option<i32> {
    let mut c = st.clone();
    for (i, &mv) in line.iter().enumerate() {
        if c.is_round_over() {
            return None;
        }
        c.play(mv).ok()?;
        if c.is_round_over() {
            if i + 1 != line.len() {
                return None;
            }
            let t = c.taken_this_round();
            return Some(i32::from(t[me.index()]) - i32::from(t[me.other().index()]));
        }
    }
    None
}

/// A move after which the round is over (stuck, one-row end, repetition) is scored with the
/// round's result and proven at every depth, depth 1 included; and a principal variation that
/// ends the round at the search's horizon carries that round's result (the report's
/// `0,1,0,0,1,1,0/0,0,0,0,0,0,0 77 18 S 1 raja-pasu` at depth 1: B, E and F all end the round
/// at +62, once scored +61/+60 "not proven").
#[test]
fn a_round_that_ends_at_the_horizon_carries_its_result() {
    // The reported position: every move leaves North stuck, South sweeps.
    let setup: pussa_rules::Setup = "0,1,0,0,1,1,0/0,0,0,0,0,0,0 77 18 S 1 raja-pasu"
        .parse()
        .unwrap();
    let st = setup.game_state(Mode::Single).unwrap();
    let values = analyze(
        &st,
        &Limits {
            depth: Some(1),
            ..Limits::default()
        },
    );
    assert_eq!(values.len(), 3);
    for v in &values {
        assert!(v.exact && v.score == 62, "{v:?}");
    }

    let mut rng = Rng::new(4242);
    let mut ends_at_leaf = 0;
    for _ in 0..3000 {
        let game = Game::ALL[rng.below(4) as usize];
        let Some(st) = small_state(game, 1 + rng.below(6), rng.below(3), &mut rng) else {
            continue;
        };
        let me = st.position().to_move();
        for depth in 1..=4u32 {
            let limits = Limits {
                depth: Some(depth),
                ..Limits::default()
            };
            for v in analyze(&st, &limits) {
                // The move alone ends the round: its exact result at any depth.
                if let Some(want) = line_ends_round(&st, me, &[v.mv]) {
                    assert!(v.exact, "{game} {:?} depth {depth}: {v:?}", st.position());
                    assert_eq!(v.score, want, "{game} {:?} depth {depth}", st.position());
                }
                // The principal variation ends the round where the search stopped.
                if v.pv.len() == depth as usize {
                    if let Some(want) = line_ends_round(&st, me, &v.pv) {
                        assert_eq!(
                            v.score,
                            want,
                            "{game} {:?} depth {depth}: {v:?}",
                            st.position()
                        );
                        ends_at_leaf += 1;
                    }
                }
            }
            let r = search(&st, &limits, &mut |_| {});
            if r.pv.len() == depth as usize {
                if let Some(want) = line_ends_round(&st, me, &r.pv) {
                    assert_eq!(
                        r.score,
                        want,
                        "{game} {:?} depth {depth}: {r:?}",
                        st.position()
                    );
                }
            }
        }
    }
    assert!(
        ends_at_leaf >= 50,
        "only {ends_at_leaf} lines ended at the horizon"
    );
}

/// Checks that `pv` (reported for a completed iteration of `depth` plies from `st`) is a line
/// of legal moves that is at least `depth` moves long, or ends the round at its last move.
fn assert_full_pv(st: &GameState, depth: u32, pv: &[pussa_rules::Hole], what: &str) {
    let mut g = st.clone();
    for (i, mv) in pv.iter().enumerate() {
        assert!(
            !g.is_round_over(),
            "{what}: the pv {pv:?} goes on after the round ended (move {i})"
        );
        g.play(*mv)
            .unwrap_or_else(|e| panic!("{what}: the pv {pv:?} has an illegal move: {e}"));
    }
    assert!(
        pv.len() >= depth as usize || g.is_round_over(),
        "{what}: depth {depth} but a pv of {} moves that does not end the round: {pv:?}",
        pv.len()
    );
}

/// The principal variation of every completed iteration runs to the iteration's depth (or to
/// the round's end): a node cut off by an exact table entry takes the entry's line. Random
/// openings of every game, one thread and two; `analyze`'s lines too.
#[test]
fn pv_of_completed_iterations_is_as_long_as_the_depth() {
    let mut rng = Rng::new(77);
    let mut checked = 0;
    for game in Game::ALL {
        for trial in 0..10 {
            let mut st = GameState::new(game, Mode::Single, Side::South);
            let mut moves = Vec::new();
            for _ in 0..rng.below(7) {
                let legal = st.legal_moves();
                if legal.is_empty() {
                    break;
                }
                let mv = legal.nth(rng.below(legal.len() as u32) as usize).unwrap();
                st.play(mv).unwrap();
                moves.push(mv);
            }
            if st.is_round_over() {
                continue;
            }
            let threads = if trial % 5 == 4 { 2 } else { 1 };
            let mut infos = Vec::new();
            let r = search(
                &st,
                &Limits {
                    depth: Some(13),
                    threads,
                    ..Limits::default()
                },
                &mut |i| infos.push(i.clone()),
            );
            for i in &infos {
                let what = format!(
                    "{game} after {moves:?}, {threads} thread(s), info depth {}",
                    i.depth
                );
                assert_full_pv(&st, i.depth, &i.pv, &what);
                checked += 1;
            }
            assert_eq!(r.pv, infos.last().unwrap().pv);
            for m in analyze(
                &st,
                &Limits {
                    depth: Some(8),
                    ..Limits::default()
                },
            ) {
                let what = format!("{game} after {moves:?}, analyze {}", m.mv);
                assert_full_pv(&st, 8, &m.pv, &what);
            }
        }
    }
    assert!(checked > 300, "{checked} lines checked");
}

/// Raja Pasu's start to depth 25 (the QA case: its last line was one move long).
#[test]
fn pv_at_depth_25_from_the_raja_pasu_start_is_full() {
    let st = GameState::new(Game::RajaPasu, Mode::Single, Side::South);
    let mut infos = Vec::new();
    search(
        &st,
        &Limits {
            depth: Some(25),
            ..Limits::default()
        },
        &mut |i| infos.push(i.clone()),
    );
    assert_eq!(infos.len(), 25);
    for i in &infos {
        assert_full_pv(&st, i.depth, &i.pv, &format!("depth {}", i.depth));
    }
}

/// `whole_movetime` uses the whole move time (new iterations start until the deadline); the
/// default stops starting them after half of it. Lower bound only (a loaded machine may take
/// longer, never shorter): Raja Pasu's start is not proven in 400 ms.
#[test]
fn whole_movetime_searches_until_the_deadline() {
    let st = GameState::new(Game::RajaPasu, Mode::Single, Side::South);
    let t = Instant::now();
    let r = search(
        &st,
        &Limits {
            movetime: Some(Duration::from_millis(400)),
            whole_movetime: true,
            ..Limits::default()
        },
        &mut |_| {},
    );
    assert!(!r.exact);
    assert!(
        t.elapsed() >= Duration::from_millis(390),
        "took {:?}",
        t.elapsed()
    );
    assert!(st.legal_moves().contains(r.best.unwrap()));
}

/// A Walak-pussa position whose move `b` is endless with a cycle of millions of laps: proving
/// it endless takes about a second (docs/rules.md, "Endless moves"); the other moves end at
/// once.
const LONG_ENDLESS: &str = "1,2,6,2,4,3,5/4,2,6,3,4,7,6 1 0 N 1 walak-pussa";

fn long_endless_state() -> GameState {
    LONG_ENDLESS
        .parse::<pussa_rules::Setup>()
        .unwrap()
        .game_state(Mode::Single)
        .unwrap()
}

/// How long proving `b` endless takes here (in this build, on this machine now).
fn proving_b_takes() -> Duration {
    let st = long_endless_state();
    let t = Instant::now();
    let mut p = *st.position();
    assert!(p.play("b".parse().unwrap()).is_err());
    t.elapsed()
}

#[test]
fn movetime_and_stop_are_honoured_while_a_long_endless_move_is_proven() {
    let st = long_endless_state();
    let slow = proving_b_takes();
    // A movetime far below the proof: the search answers at its deadline with a legal move.
    let t = Instant::now();
    let r = search(
        &st,
        &Limits {
            movetime: Some(Duration::from_millis(10)),
            whole_movetime: true,
            ..Limits::default()
        },
        &mut |_| {},
    );
    let took = t.elapsed();
    let best = r.best.expect("a move");
    assert!(st.clone().play(best).is_ok(), "{best}");
    // Time is the behaviour (a movetime honoured): half the proof, 50 times the movetime, a
    // bound a loaded machine does not break while ignoring the movetime takes the whole proof.
    assert!(
        took < slow / 2,
        "movetime 10 took {took:?} (proving b endless takes {slow:?})"
    );
    // The same for analyze: the moves proven legal, with their immediate gains.
    let t = Instant::now();
    let a = pussa_engine::analyze_report(
        &st,
        &Limits {
            movetime: Some(Duration::from_millis(10)),
            ..Limits::default()
        },
    );
    let took = t.elapsed();
    assert!(took < slow / 2, "analyze took {took:?}, proof {slow:?}");
    assert!(!a.moves.is_empty() && a.moves.iter().all(|m| m.mv.letter() != 'b'));
    // The proof was cut short, not run to its end: b is named unresolved.
    assert_eq!(a.unresolved, vec!["b".parse().unwrap()]);
    // `stop` from another thread, while the search proves b endless.
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    let raiser = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(20));
        flag.store(true, std::sync::atomic::Ordering::Relaxed);
        Instant::now()
    });
    let r = search(
        &st,
        &Limits {
            stop: Some(stop),
            ..Limits::default()
        },
        &mut |_| {},
    );
    let answered = Instant::now();
    let raised = raiser.join().unwrap();
    assert!(st.clone().play(r.best.unwrap()).is_ok());
    let late = answered.saturating_duration_since(raised);
    // Half the proof: a stop unheard answers only once the whole proof is done.
    assert!(
        late < slow / 2,
        "stop answered {late:?} late (proof {slow:?})"
    );
}

#[test]
fn a_long_endless_move_is_proven_once_and_the_search_goes_on() {
    // With time to prove b endless, the search completes iterations after it (the root's
    // moves are not sown again at every iteration) and never plays b.
    let st = long_endless_state();
    let slow = proving_b_takes();
    let mut depths = 0;
    let t = Instant::now();
    let r = search(
        &st,
        &Limits {
            depth: Some(6),
            ..Limits::default()
        },
        &mut |_| depths += 1,
    );
    let took = t.elapsed();
    assert_eq!(r.depth, 6);
    assert_eq!(depths, 6);
    assert_ne!(r.best.unwrap().letter(), 'b');
    // Once, not six times (nor once more for the fallback).
    assert!(took < slow * 3, "depth 6 took {took:?}, one proof {slow:?}");
}

/// A move time shorter than the proof of a long move (QA pass 15, review-rules2 #2): the proof
/// gets a share of the time, then the moves already proven legal are searched (the answer is
/// a searched move, not the depth-0 greedy fallback); the unresolved move is never played, and
/// `analyze` names it unresolved instead of dropping it silently, its value then not proven.
/// Without a time limit (a depth) the move is proven fully, as before: nothing is unresolved.
#[test]
fn a_timed_search_shorter_than_the_proof_searches_the_moves_known_legal() {
    let st = long_endless_state();
    let slow = proving_b_takes();
    let b: pussa_rules::Hole = "b".parse().unwrap();
    // Half the proof's time: the proof gets a quarter of it, and is cut short.
    let movetime = (slow / 2).max(Duration::from_millis(100));
    let t = Instant::now();
    let mut infos = 0;
    let r = search(
        &st,
        &Limits {
            movetime: Some(movetime),
            ..Limits::default()
        },
        &mut |_| infos += 1,
    );
    let took = t.elapsed();
    assert!(took < slow, "took {took:?}, the proof {slow:?}");
    let best = r.best.expect("a move");
    assert_ne!(best, b);
    assert!(st.clone().play(best).is_ok(), "{best}");
    assert!(
        r.depth >= 2 && r.nodes > 0 && infos >= 2,
        "searched: depth {} nodes {} ({infos} iterations)",
        r.depth,
        r.nodes
    );
    assert!(!r.exact);
    let a = pussa_engine::analyze_report(
        &st,
        &Limits {
            movetime: Some(movetime),
            ..Limits::default()
        },
    );
    assert!(a.depth >= 2, "analyze reached depth {}", a.depth);
    assert_eq!(a.unresolved, vec![b]);
    assert!(a.moves.iter().all(|m| m.mv != b));
    assert_eq!(a.moves.len(), 6);
    assert_eq!(a.value().map(|v| v.1), Some(false));
    // No time limit: b is proven endless, nothing is unresolved.
    let a = pussa_engine::analyze_report(
        &st,
        &Limits {
            depth: Some(2),
            ..Limits::default()
        },
    );
    assert!(a.unresolved.is_empty());
    assert_eq!(a.moves.len(), 6);
}

/// `nodes N` bounds the root's proof of a long move too (QA pass 15, review-rules2 #4): it sows
/// at most N laps, so `nodes 1` answers at once (not after the whole proof), with a legal move
/// other than the unresolved one; a larger budget searches the moves known legal.
#[test]
fn a_node_budget_bounds_the_roots_proof_of_a_long_move() {
    let st = long_endless_state();
    let slow = proving_b_takes();
    for nodes in [1, 5_000] {
        let t = Instant::now();
        let r = search(
            &st,
            &Limits {
                nodes: Some(nodes),
                ..Limits::default()
            },
            &mut |_| {},
        );
        let took = t.elapsed();
        // Half the proof: a budget that did not bound the proof takes all of it (the bound
        // itself is seen below: `analyze` with `nodes 1` names b unresolved).
        assert!(
            took < slow / 2,
            "nodes {nodes} took {took:?}, proof {slow:?}"
        );
        let best = r.best.expect("a move");
        assert_ne!(best.letter(), 'b');
        assert!(st.clone().play(best).is_ok(), "{best}");
        if nodes > 1 {
            assert!(r.depth >= 1, "nodes {nodes}: depth {}", r.depth);
        }
    }
    let a = pussa_engine::analyze_report(
        &st,
        &Limits {
            nodes: Some(1),
            ..Limits::default()
        },
    );
    assert_eq!(
        a.unresolved,
        vec!["b".parse::<pussa_rules::Hole>().unwrap()]
    );
}

/// The principal variation of every completed iteration is at most as long as its depth
/// (docs/protocol.md, "Search output"), whatever deeper lines the transposition table's
/// exact entries hold (transpositions within one thread's iterations; the helper threads').
#[test]
fn an_iterations_pv_is_never_longer_than_its_depth() {
    let mut rng = Rng::new(77);
    let mut bad = Vec::new();
    let mut lines = 0;
    for (gi, game) in Game::ALL.into_iter().enumerate() {
        for k in 0..40 {
            let seeds = 8 + rng.below(30);
            let pos = common::random_position(game, seeds, &mut rng);
            let to_move = pos.to_move();
            let st = GameState::from_position(pos, Mode::Single, 1, to_move);
            if st.is_round_over() {
                continue;
            }
            let threads = 1 + (k % 2) as usize;
            let limits = Limits {
                depth: Some(10),
                nodes: Some(20_000),
                threads,
                ..Limits::default()
            };
            search(&st, &limits, &mut |i| {
                lines += 1;
                if i.pv.len() > i.depth as usize {
                    bad.push(format!(
                        "{gi} {k} t{threads} depth {} pv {:?}",
                        i.depth, i.pv
                    ));
                }
            });
        }
    }
    assert!(lines > 300, "{lines}");
    assert!(
        bad.is_empty(),
        "{} of {lines}: {:?}",
        bad.len(),
        &bad[..bad.len().min(5)]
    );
}

/// QA pass 17, review-engine #5: with several threads a node budget is the budget of all of
/// them (the helpers used to search without one, so `nodes 1` searched a thousand nodes and
/// `nodes 1000` went 15 plies deep), and the reported nodes count every thread's.
#[test]
fn a_node_budget_is_shared_by_every_thread() {
    let mut state = GameState::new(Game::RajaPasu, Mode::Single, Side::South);
    state.play("G".parse().unwrap()).unwrap();
    for budget in [1u64, 100, 1000, 20_000] {
        for threads in [2, 4] {
            let mut infos = Vec::new();
            let r = search(
                &state,
                &Limits {
                    nodes: Some(budget),
                    threads,
                    ..Limits::default()
                },
                &mut |i| infos.push(i.nodes),
            );
            assert!(
                r.nodes <= budget,
                "{threads} threads, nodes {budget}: searched {}",
                r.nodes
            );
            assert!(
                infos.iter().all(|&n| n <= budget),
                "{threads} threads, nodes {budget}: {infos:?}"
            );
            assert!(state.legal_moves().contains(r.best.unwrap()));
        }
    }
    // One thread: exactly as before, the budget searched whole.
    let r = search(
        &state,
        &Limits {
            nodes: Some(1000),
            ..Limits::default()
        },
        &mut |_| {},
    );
    assert_eq!(r.nodes, 1000);
}
