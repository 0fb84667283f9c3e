//! Measures players against each other with the engine's own game runner ([`play_game`]):
//! `cargo run --release -p pussa-engine --example ladder -- GAME P1 P2 GAMES [OPENING] [SEED]
//! [FILTER_NODES]`.
//!
//! Players: `level:<name>`, `greedy-net-capture` (`arena::greedy_net_capture`; `greedy` is an
//! alias of it here, not the tournament's `greedy`, which is `greedy-most-held`,
//! `tournament::greedy_most_held`), `random`, `mcts:<ms>` (UCT for that many milliseconds a
//! move), `mctsn:<playouts>`, `search:<ms>` (the search on every core), `nodes:<n>`, `depth:<d>`.
//! Games are played in pairs (the same random opening of OPENING plies, default 4, seats
//! swapped; only openings within 3 seeds of even by a depth-10 search), several at once (RAYON_NUM_THREADS). Prints P1's wins, draws, losses, score and
//! Elo difference with a 95% interval.

use std::time::Duration;

use pussa_engine::arena::{play_game, Builtin};
use pussa_engine::{Level, Limits};
use pussa_rules::{Game, GameState, Mode, Rng, Side};
use rayon::prelude::*;

fn player(spec: &str, seed: u64) -> Builtin {
    let (kind, arg) = spec.split_once(':').unwrap_or((spec, ""));
    let num = || arg.parse::<u64>().expect("a number after ':'");
    match kind {
        "level" => Builtin::Level(arg.parse::<Level>().expect("a level"), seed),
        // `greedy` is an alias here: the tournament's `greedy` is `greedy-most-held`.
        "greedy-net-capture" | "greedy" => Builtin::GreedyNetCapture,
        "random" => Builtin::Random(seed),
        "mcts" => Builtin::Mcts(Limits {
            movetime: Some(Duration::from_millis(num())),
            seed,
            ..Limits::default()
        }),
        "mctsn" => Builtin::Mcts(Limits {
            nodes: Some(num()),
            seed,
            ..Limits::default()
        }),
        "search" => Builtin::Search(Limits {
            movetime: Some(Duration::from_millis(num())),
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            ..Limits::default()
        }),
        "search1" => Builtin::Search(Limits {
            movetime: Some(Duration::from_millis(num())),
            ..Limits::default()
        }),
        "nodes" => Builtin::Search(Limits {
            nodes: Some(num()),
            ..Limits::default()
        }),
        "depth" => Builtin::Search(Limits {
            depth: Some(num() as u32),
            ..Limits::default()
        }),
        _ => panic!("unknown player {spec}"),
    }
}

/// A random opening of `plies` plies whose value is within 3 seeds of even for the side to
/// move: random first moves in these games often give away a dozen seeds, and a decided opening
/// says nothing about the players. The value is a depth-10 search, or with `filter_nodes > 0` a
/// search of that many nodes (deeper: a depth-10 value often misjudges these openings by several
/// seeds), which must also see the opening played out in full (`plies` moves, none ending the
/// round).
fn opening(game: Game, plies: u32, seed: u64, filter_nodes: u64) -> Vec<pussa_rules::Hole> {
    for attempt in 0..1000u64 {
        let (open, st) = random_opening(game, plies, seed.wrapping_mul(1009).wrapping_add(attempt));
        if filter_nodes > 0 && open.len() < plies as usize {
            continue;
        }
        let limits = if filter_nodes > 0 {
            Limits {
                nodes: Some(filter_nodes),
                ..Limits::default()
            }
        } else {
            Limits {
                depth: Some(10),
                ..Limits::default()
            }
        };
        let r = pussa_engine::search(&st, &limits, &mut |_| {});
        if r.score.abs() <= 3 {
            return open;
        }
    }
    Vec::new()
}

fn random_opening(game: Game, plies: u32, seed: u64) -> (Vec<pussa_rules::Hole>, GameState) {
    let mut rng = Rng::new(seed);
    let mut st = GameState::new(game, Mode::Single, Side::South);
    let mut v = Vec::new();
    for _ in 0..plies {
        let legal = st.legal_moves();
        let mv = legal.nth(rng.below(legal.len() as u32) as usize).unwrap();
        let mut s = st.clone();
        s.play(mv).unwrap();
        if s.is_round_over() {
            break;
        }
        v.push(mv);
        st = s;
    }
    (v, st)
}

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let game: Game = a[1].parse().expect("a game");
    let (p1, p2) = (a[2].clone(), a[3].clone());
    let games: u32 = a[4].parse().unwrap();
    let plies: u32 = a.get(5).map_or(4, |s| s.parse().unwrap());
    let seed: u64 = a.get(6).map_or(1, |s| s.parse().unwrap());
    let filter_nodes: u64 = a.get(7).map_or(0, |s| s.parse().unwrap());
    let t = std::time::Instant::now();
    let scores: Vec<(f64, i32)> = (0..games)
        .into_par_iter()
        .map(|i| {
            let pair = u64::from(i / 2);
            let open = opening(
                game,
                plies,
                seed.wrapping_mul(1000).wrapping_add(pair),
                filter_nodes,
            );
            let s = seed.wrapping_mul(7919).wrapping_add(u64::from(i));
            let mut x = player(&p1, s);
            let mut y = player(&p2, s ^ 0xabcdef);
            let p1_south = i % 2 == 0;
            let rec = if p1_south {
                play_game(game, Mode::Single, &mut x, &mut y, &open, 1)
            } else {
                play_game(game, Mode::Single, &mut y, &mut x, &open, 1)
            }
            .expect("a game");
            let st = rec.state.position().stores();
            let south_margin = i32::from(st[0]) - i32::from(st[1]);
            let s = rec.south_score();
            if p1_south {
                (s, south_margin)
            } else {
                (1.0 - s, -south_margin)
            }
        })
        .collect();
    let n = scores.len() as f64;
    let w = scores.iter().filter(|s| s.0 == 1.0).count();
    let d = scores.iter().filter(|s| s.0 == 0.5).count();
    let l = scores.len() - w - d;
    let mean: f64 = scores.iter().map(|s| s.0).sum::<f64>() / n;
    let var: f64 = scores.iter().map(|s| (s.0 - mean).powi(2)).sum::<f64>() / n;
    let se = (var / n).sqrt();
    let elo = |p: f64| -400.0 * (1.0 / p.clamp(1e-3, 1.0 - 1e-3) - 1.0).log10();
    let margin: f64 = scores.iter().map(|s| f64::from(s.1)).sum::<f64>() / n;
    println!(
        "{game} {p1} vs {p2}: +{w} ={d} -{l}  score {:.1}%  elo {:+.0} [{:+.0}, {:+.0}]  mean margin {:+.1}  ({:.0} s)",
        100.0 * mean,
        elo(mean),
        elo(mean - 1.96 * se),
        elo(mean + 1.96 * se),
        margin,
        t.elapsed().as_secs_f64()
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use pussa_engine::arena::Player;

    /// `greedy-net-capture` names the net-capture player, as its reports do; `greedy` is its
    /// alias here (the tournament's `greedy` is `greedy-most-held`, another player).
    #[test]
    fn greedy_net_capture_is_accepted_and_greedy_is_its_alias() {
        assert!(matches!(
            player("greedy-net-capture", 1),
            Builtin::GreedyNetCapture
        ));
        assert!(matches!(player("greedy", 1), Builtin::GreedyNetCapture));
        assert_eq!(player("greedy", 1).name(), "greedy-net-capture");
    }
}
