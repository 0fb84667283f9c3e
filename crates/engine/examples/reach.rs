//! The search's signature and reach: `cargo run --release -p pussa-engine --example reach [MS]`
//! prints the total node count of the `pussa bench --search` positions (the signature), then
//! the depth and nodes one thread reaches in MS milliseconds (default 200) from each game's
//! start and from each bench mid-game.

use std::time::{Duration, Instant};

use pussa_engine::{bench, search, Limits};

fn main() {
    let ms: u64 = std::env::args()
        .nth(1)
        .map_or(200, |s| s.parse().expect("milliseconds"));
    let t = Instant::now();
    let mut total = 0;
    for p in bench::positions() {
        total += p.run().nodes;
    }
    println!(
        "signature {total} nodes ({:.2} s)",
        t.elapsed().as_secs_f64()
    );
    for p in bench::positions() {
        let r = search(
            &p.state,
            &Limits {
                movetime: Some(Duration::from_millis(ms)),
                ..Limits::default()
            },
            &mut |_| {},
        );
        println!(
            "{:<22} depth {:>2}  nodes {:>8}  score {:+}",
            p.name, r.depth, r.nodes, r.score
        );
    }
}
