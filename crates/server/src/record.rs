//! Game records of stored games, written with `pussa_rules::record` (the one record format of
//! pussa: the same text `pussa` reads and writes on the command line).

use pussa_rules::record::{Record, RecordError};
use pussa_rules::Side;

use crate::live::{LiveGame, Opponent};

/// `YYYY.MM.DD` for a Unix time.
fn date(t: i64) -> String {
    crate::util::rfc3339(t)[..10].replace('-', ".")
}

fn player(g: &LiveGame, side: Side) -> String {
    match &g.meta.opponent {
        Opponent::Computer { level } if side != g.meta.creator_seat => {
            format!("pussa level {level}")
        }
        Opponent::Computer { .. } | Opponent::Hotseat => "player".to_string(),
        Opponent::Online if side == g.meta.creator_seat => "player (host)".to_string(),
        Opponent::Online => "player (invited)".to_string(),
    }
}

/// The record of `g`.
///
/// # Errors
/// Only if the stored moves do not replay (which the server never lets happen).
pub fn write(g: &LiveGame) -> Result<String, RecordError> {
    let mut rec = match g.meta.setup {
        Some(setup) => Record::from_setup(setup, g.meta.mode)?,
        None => Record::new(g.meta.game, g.meta.mode, g.meta.first),
    };
    rec.set_tag("Event", &format!("pussa web game {}", g.meta.id))?;
    rec.set_tag("Date", &date(g.meta.created))?;
    rec.set_tag("South", &player(g, Side::South))?;
    rec.set_tag("North", &player(g, Side::North))?;
    for m in &g.moves {
        rec.push(m.mv)?;
    }
    Ok(rec.to_string())
}
