//! Game records of stored games, written with `pussa_rules::record` (the one record format of
//! pussa: the same text `pussa` reads and writes on the command line).

use pussa_rules::record::{Record, RecordError, RecordResult};
use pussa_rules::Side;

use crate::live::{EndKind, Ending, LiveGame, Opponent};

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
    if let Some(ending) = g.meta.ended {
        if let Some(w) = ending.winner() {
            rec.set_result(RecordResult::from_winner(w))?;
        }
        rec.set_tag("Termination", &g.ending_text(ending))?;
    }
    Ok(rec.to_string())
}

/// How the players ended the game a record holds, when its moves leave it unfinished: the
/// ending its `Termination` tag names (as [`write()`] writes it, or `pussa tournament` for a
/// match drawn at its round limit, a forfeit or a loss on time: `forfeit: South …`, `time
/// forfeit: South …`, whose text the game keeps) if that agrees with its result, else, for a
/// decided result,
/// a resignation of the loser or an agreed draw. An aborted game is taken as aborted by
/// `seat`. A round limit agrees when the record's moves end round N of its `(N)` (the round is
/// over, the next not begun) and its result is a draw.
#[must_use]
pub fn ending(rec: &Record, seat: Side) -> Option<Ending> {
    if rec.state().is_over() {
        return None;
    }
    let result = rec.result();
    let tagged = rec.tag("Termination").and_then(Ending::from_text);
    if let Some((mut e, limit)) = tagged {
        if e.kind == EndKind::Abort {
            e.by = Some(seat);
        }
        let at_limit = e.kind != EndKind::RoundLimit
            || (rec.state().is_round_over() && limit.is_none_or(|n| n == rec.state().round()));
        let agrees = at_limit
            && match e.winner() {
                Some(w) => result == RecordResult::from_winner(w),
                None => result == RecordResult::Unfinished,
            };
        if agrees {
            return Some(e);
        }
    }
    let (kind, by) = match result {
        RecordResult::SouthWins => (EndKind::Resign, Some(Side::North)),
        RecordResult::NorthWins => (EndKind::Resign, Some(Side::South)),
        RecordResult::Draw => (EndKind::DrawAgreed, None),
        RecordResult::Unfinished => return None,
    };
    Some(Ending { kind, by })
}
