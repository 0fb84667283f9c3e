//! `pussa tournament --plot FILE.svg`: the results drawn as a self-contained SVG image (no
//! scripts, fonts or links to other hosts): the histogram of game lengths, each bar stacked by
//! the result seen from the seats, and the first mover's score with its 95% interval, overall
//! and for each player.
//!
//! Every bar is a `<g class="bar">` carrying its bin and counts in `data-` attributes
//! (`data-from`, `data-to`, `data-games`, `data-first-mover-wins`, `data-draws`,
//! `data-second-mover-wins`), and every point a `<g class="score">` (`data-games`,
//! `data-score`, `data-low`, `data-high`), so that tests and scripts can read the figures back.

use std::fmt::Write as _;

use pussa_engine::tournament::{Config, LengthBin, Report, Wdl};
use pussa_rules::Mode;

const WIDTH: f64 = 960.0;
const HEIGHT: f64 = 500.0;
/// The plot area of the histogram: left, right, top, bottom.
const HIST: (f64, f64, f64, f64) = (70.0, 610.0, 80.0, 390.0);
/// The plot area of the scores.
const SCORE: (f64, f64, f64, f64) = (700.0, 930.0, 80.0, 390.0);
const FIRST_WON: &str = "#2b6cb0";
const DRAW: &str = "#b8b8b8";
const SECOND_WON: &str = "#dd6b20";

/// Text and attribute values with `&`, `<`, `>`, `"` and `'` escaped.
fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// A player's name cut to `n` characters (long engine command lines).
fn short(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(n.saturating_sub(1)).collect();
        t.push('…');
        t
    }
}

/// A tick step of 1, 2 or 5 times a power of ten giving at most `ticks` steps up to `max`.
fn nice_step(max: u32, ticks: u32) -> u32 {
    let mut p = 1u32;
    loop {
        for m in [1u32, 2, 5] {
            let step = m.saturating_mul(p);
            if max.div_ceil(step) <= ticks || step == u32::MAX {
                return step;
            }
        }
        p = p.saturating_mul(10);
    }
}

/// The image: a title, the histogram of game lengths (left) and the first mover's scores
/// (right).
pub fn tournament_svg(config: &Config, report: &Report) -> String {
    let mut s = String::new();
    let n = report.games.len();
    let mode = if config.mode == Mode::Match {
        "matches"
    } else {
        "single games"
    };
    let title = format!(
        "{} {mode}: {} vs {}, {n} game{}",
        config.game.name(),
        short(&report.players[0], 40),
        short(&report.players[1], 40),
        if n == 1 { "" } else { "s" }
    );
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(s, "<title>{}</title>", esc(&title));
    let _ = writeln!(
        s,
        r##"<rect x="0" y="0" width="{WIDTH}" height="{HEIGHT}" fill="#ffffff"/>"##
    );
    let _ = writeln!(
        s,
        r#"<text x="{}" y="26" text-anchor="middle" font-size="16" font-weight="bold">{}</text>"#,
        WIDTH / 2.0,
        esc(&title)
    );
    let seats = report.seats();
    let first = seats.first_mover;
    let mut sub = format!(
        "first mover ({}): won {}, drew {}, second mover won {}",
        pussa_engine::tournament::FIRST_MOVER,
        first.wins,
        first.draws,
        first.losses
    );
    if let Some(p) = report.plies() {
        let _ = write!(sub, "; plies a game: mean {:.1}", p.mean);
        if let (Some(lo), Some(hi), Some(sd)) = (p.mean_low, p.mean_high, p.sd) {
            let _ = write!(sub, " [{lo:.1}, {hi:.1}], sd {sd:.1}");
        }
        let _ = write!(sub, ", median {}, {} to {}", p.median, p.min, p.max);
    }
    if config.mode == Mode::Match {
        if let Some(r) = report.rounds() {
            let _ = write!(sub, "; rounds a match: mean {:.1}", r.mean);
            if let (Some(lo), Some(hi), Some(sd)) = (r.mean_low, r.mean_high, r.sd) {
                let _ = write!(sub, " [{lo:.1}, {hi:.1}], sd {sd:.1}");
            }
        }
    }
    let _ = writeln!(
        s,
        r#"<text x="{}" y="46" text-anchor="middle">{}</text>"#,
        WIDTH / 2.0,
        esc(&sub)
    );
    histogram(&mut s, &report.length_histogram());
    scores(&mut s, report);
    s.push_str("</svg>\n");
    s
}

/// The left panel: one stacked bar a bin.
fn histogram(s: &mut String, bins: &[LengthBin]) {
    let (x0, x1, y0, y1) = HIST;
    let _ = writeln!(
        s,
        r#"<text x="{}" y="{}" text-anchor="middle" font-weight="bold">Game length, by result for the seats</text>"#,
        (x0 + x1) / 2.0,
        y0 - 12.0
    );
    let top = bins.iter().map(LengthBin::games).max().unwrap_or(0).max(1);
    let step = nice_step(top, 6);
    let ymax = top.div_ceil(step) * step;
    let y_of = |v: f64| y1 - (y1 - y0) * v / f64::from(ymax);
    // The count axis, its ticks and grid lines.
    let mut t = 0;
    while t <= ymax {
        let y = y_of(f64::from(t));
        let _ = writeln!(
            s,
            r##"<line x1="{x0}" y1="{y:.1}" x2="{x1}" y2="{y:.1}" stroke="#e2e2e2"/><text x="{:.1}" y="{:.1}" text-anchor="end">{t}</text>"##,
            x0 - 6.0,
            y + 4.0
        );
        t += step;
    }
    let _ = writeln!(
        s,
        r#"<text x="20" y="{:.1}" text-anchor="middle" transform="rotate(-90 20 {:.1})">games</text>"#,
        (y0 + y1) / 2.0,
        (y0 + y1) / 2.0
    );
    let k = bins.len().max(1) as f64;
    let slot = (x1 - x0) / k;
    let width1 = bins.first().is_some_and(|b| b.from == b.to);
    // Every bar's left edge is labelled (and the last bar's right edge), so that each bar
    // reads from its left label to the next, as the caption says; many bars get a smaller
    // font (20 bars leave 27 px a label).
    let label_font = if bins.len() > 12 {
        r#" font-size="10""#
    } else {
        ""
    };
    for (i, b) in bins.iter().enumerate() {
        let x = x0 + slot * i as f64;
        let mut y = y1;
        let _ = write!(
            s,
            r#"<g class="bar" data-from="{}" data-to="{}" data-games="{}" data-first-mover-wins="{}" data-draws="{}" data-second-mover-wins="{}"><title>{}–{} plies: {} games, first mover won {}, drew {}, second mover won {}</title>"#,
            b.from,
            b.to,
            b.games(),
            b.first_mover_wins,
            b.draws,
            b.second_mover_wins,
            b.from,
            b.to,
            b.games(),
            b.first_mover_wins,
            b.draws,
            b.second_mover_wins
        );
        for (count, colour) in [
            (b.first_mover_wins, FIRST_WON),
            (b.draws, DRAW),
            (b.second_mover_wins, SECOND_WON),
        ] {
            if count == 0 {
                continue;
            }
            let h = (y1 - y0) * f64::from(count) / f64::from(ymax);
            y -= h;
            let _ = write!(
                s,
                r#"<rect x="{:.1}" y="{y:.1}" width="{:.1}" height="{h:.1}" fill="{colour}"/>"#,
                x + slot * 0.05,
                slot * 0.9
            );
        }
        s.push_str("</g>\n");
        let (lx, label) = if width1 {
            (x + slot / 2.0, b.from)
        } else {
            (x, b.from)
        };
        let _ = writeln!(
            s,
            r#"<text class="length-label" x="{lx:.1}" y="{:.1}" text-anchor="middle"{label_font}>{label}</text>"#,
            y1 + 16.0
        );
    }
    // The right edge of the last bar.
    if let (Some(last), false) = (bins.last(), width1) {
        let _ = writeln!(
            s,
            r#"<text class="length-label" x="{x1:.1}" y="{:.1}" text-anchor="middle"{label_font}>{}</text>"#,
            y1 + 16.0,
            last.to + 1
        );
    }
    let _ = writeln!(
        s,
        r##"<line x1="{x0}" y1="{y1}" x2="{x1}" y2="{y1}" stroke="#000000"/><line x1="{x0}" y1="{y0}" x2="{x0}" y2="{y1}" stroke="#000000"/>"##
    );
    let axis = match bins.first() {
        Some(b) if !width1 => format!(
            "plies a game (the random opening included); a bar counts {} lengths, from its left \
             label up to the next",
            b.to - b.from + 1
        ),
        _ => "plies a game (the random opening included)".to_string(),
    };
    let _ = writeln!(
        s,
        r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{axis}</text>"#,
        (x0 + x1) / 2.0,
        y1 + 36.0
    );
    // The legend.
    let mut lx = x0;
    let ly = y1 + 60.0;
    for (colour, label) in [
        (FIRST_WON, "first mover won"),
        (DRAW, "draw"),
        (SECOND_WON, "second mover won"),
    ] {
        let _ = writeln!(
            s,
            r#"<g class="legend"><rect x="{lx}" y="{:.1}" width="12" height="12" fill="{colour}"/><text x="{}" y="{ly:.1}">{label}</text></g>"#,
            ly - 10.0,
            lx + 17.0
        );
        lx += 40.0 + 7.0 * label.len() as f64;
    }
}

/// The right panel: the first mover's score with its 95% interval, over every game and in the
/// games each player moved first, against the 50% line.
fn scores(s: &mut String, report: &Report) {
    let (x0, x1, y0, y1) = SCORE;
    let _ = writeln!(
        s,
        r#"<text x="{}" y="{}" text-anchor="middle" font-weight="bold">First mover's score, 95% interval</text>"#,
        (x0 + x1) / 2.0,
        y0 - 12.0
    );
    let y_of = |v: f64| y1 - (y1 - y0) * v;
    for (i, v) in [0.0, 0.25, 0.5, 0.75, 1.0].iter().enumerate() {
        let y = y_of(*v);
        let (stroke, dash) = if i == 2 {
            ("#000000", r#" stroke-dasharray="5 4""#)
        } else {
            ("#e2e2e2", "")
        };
        let _ = writeln!(
            s,
            r#"<line x1="{x0}" y1="{y:.1}" x2="{x1}" y2="{y:.1}" stroke="{stroke}"{dash}/><text x="{:.1}" y="{:.1}" text-anchor="end">{}%</text>"#,
            x0 - 6.0,
            y + 4.0,
            v * 100.0
        );
    }
    let _ = writeln!(
        s,
        r##"<line x1="{x0}" y1="{y0}" x2="{x0}" y2="{y1}" stroke="#000000"/><line x1="{x0}" y1="{y1}" x2="{x1}" y2="{y1}" stroke="#000000"/>"##
    );
    let seats = report.seats();
    let points: [(&str, Wdl); 3] = [
        ("all games", seats.first_mover),
        ("P1 first", seats.moving_first[0]),
        ("P2 first", seats.moving_first[1]),
    ];
    let slot = (x1 - x0) / points.len() as f64;
    for (i, (label, w)) in points.iter().enumerate() {
        let x = x0 + slot * (i as f64 + 0.5);
        let _ = writeln!(
            s,
            r#"<text x="{x:.1}" y="{:.1}" text-anchor="middle">{label}</text><text x="{x:.1}" y="{:.1}" text-anchor="middle">{} games</text>"#,
            y1 + 16.0,
            y1 + 30.0,
            w.games()
        );
        if w.games() == 0 {
            continue;
        }
        let (lo, hi) = w.wilson_interval();
        let sc = w.score();
        let (ylo, yhi, ys) = (y_of(lo), y_of(hi), y_of(sc));
        let _ = writeln!(
            s,
            r##"<g class="score" data-label="{label}" data-games="{}" data-score="{sc:.4}" data-low="{lo:.4}" data-high="{hi:.4}"><title>{label}: score {sc:.3}, 95% interval [{lo:.3}, {hi:.3}], +{} ={} -{}</title><line x1="{x:.1}" y1="{ylo:.1}" x2="{x:.1}" y2="{yhi:.1}" stroke="#000000" stroke-width="1.5"/><line x1="{:.1}" y1="{ylo:.1}" x2="{:.1}" y2="{ylo:.1}" stroke="#000000" stroke-width="1.5"/><line x1="{:.1}" y1="{yhi:.1}" x2="{:.1}" y2="{yhi:.1}" stroke="#000000" stroke-width="1.5"/><circle cx="{x:.1}" cy="{ys:.1}" r="4.5" fill="{FIRST_WON}"/><text x="{:.1}" y="{:.1}">{sc:.3}</text></g>"##,
            w.games(),
            w.wins,
            w.draws,
            w.losses,
            x - 6.0,
            x + 6.0,
            x - 6.0,
            x + 6.0,
            x + 8.0,
            ys + 4.0
        );
    }
    for (i, name) in report.players.iter().enumerate() {
        let _ = writeln!(
            s,
            r#"<text x="{x0}" y="{:.1}">P{} = {}</text>"#,
            y1 + 52.0 + 16.0 * i as f64,
            i + 1,
            esc(&short(name, 34))
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_escaped_and_steps_are_nice() {
        assert_eq!(
            esc(r#"engine:"a <b> & 'c'""#),
            "engine:&quot;a &lt;b&gt; &amp; &apos;c&apos;&quot;"
        );
        assert_eq!(nice_step(1, 6), 1);
        assert_eq!(nice_step(7, 6), 2);
        assert_eq!(nice_step(13, 6), 5);
        assert_eq!(nice_step(400, 6), 100);
        assert_eq!(short("abcdef", 4), "abc…");
        assert_eq!(short("abc", 4), "abc");
    }

    /// With more than 12 bars every bar's left edge is still labelled (only every other one
    /// was, 10 30 50 … under bars of 10, while the caption said a bar counts from its left
    /// label to the next), and the caption gives the bar's width.
    #[test]
    fn every_bar_has_its_left_label_and_the_caption_its_width() {
        let bins: Vec<LengthBin> = (1..=14)
            .map(|i| LengthBin {
                from: 10 * i,
                to: 10 * i + 9,
                first_mover_wins: i,
                draws: 0,
                second_mover_wins: 1,
            })
            .collect();
        let mut s = String::new();
        histogram(&mut s, &bins);
        let labels: Vec<u32> = s
            .lines()
            .filter(|l| l.contains(r#"class="length-label""#))
            .map(|l| {
                let text = l.split('>').nth(1).unwrap();
                text.split('<').next().unwrap().parse().unwrap()
            })
            .collect();
        let edges: Vec<u32> = (1..=15).map(|i| 10 * i).collect();
        assert_eq!(labels, edges);
        assert!(
            s.contains("a bar counts 10 lengths, from its left label up to the next"),
            "{s}"
        );
    }
}
