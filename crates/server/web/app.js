// The page: routing between views, the new-game form, the game view (board, animation, move
// list, scoreboard, undo, hint, export, invite), saved games and the rules pages.

import { api, seats, sideIndex, GameSocket, SIDE_NAME, SIDE_LETTER, ApiError, pageLink, noAnswerYet } from './api.js';
import { Board, Animator, LETTERS, SEEDS_PER_HOLE, holeIndex, reasonText, sweepText, cloneModel } from './board.js';
import { markdown } from './markdown.js';
import { storage } from './storage.js';
import { sounds } from './sound.js';

const $ = (sel) => document.querySelector(sel);
const VIEWS = ['home', 'game', 'games', 'rules', 'help'];
const TITLES = {
  'walak-pussa': 'Walak-pussa',
  'raja-pasu': 'Raja Pasu',
  'pasu-pondi': 'Pasu Pondi',
  'pasu-pondi-6': 'Pasu Pondi (6 seeds)',
};

let meta = null;
let game = null; // the open game's controller
let pending = null; // a just created or joined game's answer, consumed by the game view
let landingNotice = null;
let landingKind = 'info'; // an error stays until closed; an information fades
/**
 * An invite whose seat could not be taken yet because the server could not be reached
 * (`{id, invite, delay, timer, reason}`): kept in memory and in the address
 * (`#/game/ID?invite=T`, so a reload tries again) and tried again until the server answers.
 * Only the server's refusal (invite used, no such game) makes the visitor a watcher.
 */
let joining = null;
/** The notice when the browser's storage refused a seat the server granted. */
const SEAT_NOT_KEPT =
  'This browser does not let the page store your seat (site data blocked or storage full): you play in this page, but a reload or another tab will not know your seat.';

/** Keeps a seat the server granted (`seats.put`); storage refusing it leaves the notice above. */
function keepSeat(id, seat) {
  if (seats.put(id, seat)) return;
  landingNotice = landingNotice ? `${landingNotice} ${SEAT_NOT_KEPT}` : SEAT_NOT_KEPT;
}
/** Local storage: the game whose rematch this browser asked for last (see `askedHere`). */
const REMATCH_ASKED = 'pussa.rematchAsked';
/** While a request's "cannot reach the server" stands, the page asks whether it can, this often. */
const REACH_CHECK_MS = 1000;
/** A notice about the connection cleared by the socket's ping is shown this long at least. */
const NOTICE_MIN_MS = 2000;
/**
 * Live updates that follow on within this of the last one told are told together with it: a
 * burst (what a connection held by a short drop brings at once) would otherwise leave only its
 * last move in the caption, and to screen readers, which hear only the last of quick changes.
 */
const CATCH_UP_MS = 1000;
let keyboardUser = false; // the last interaction was a key, not a pointer // a message from the landing (invite) step, shown once routed

// ---------------------------------------------------------------------------------------------
// Small helpers

let noticeTimer = null;

/**
 * Shows `text` in the notice over the page (it never moves the board), or hides it (`null`).
 * An error stays until it is closed or the next action; an information fades after a while.
 */
function notice(text, kind = 'error') {
  const n = $('#notice');
  clearTimeout(noticeTimer);
  if (!text) {
    n.hidden = true;
    return;
  }
  $('#notice-text').textContent = text;
  n.className = `notice${kind === 'info' ? ' info' : ''}`;
  n.setAttribute('role', kind === 'info' ? 'status' : 'alert');
  n.hidden = false;
  if (kind === 'info') noticeTimer = setTimeout(() => (n.hidden = true), 12000);
}

/**
 * Shows `text` as the error of form field `input`, under the field (never over it): the field is
 * marked invalid, described by the error (before its own note) and takes the focus, as an
 * accessible form does (WCAG 3.3.1). The error goes when the field is edited or the form is
 * sent again (`fieldError(input, null)`).
 */
function fieldError(input, text) {
  const errId = `${input.id}-error`;
  let err = document.getElementById(errId);
  const described = (input.getAttribute('aria-describedby') || '').split(/\s+/).filter((d) => d && d !== errId);
  if (!text) {
    if (err) err.remove();
    input.removeAttribute('aria-invalid');
    if (described.length) input.setAttribute('aria-describedby', described.join(' '));
    else input.removeAttribute('aria-describedby');
    return;
  }
  notice(null);
  if (!err) {
    err = h('p', { id: errId, class: 'field-error' });
    input.after(err);
    input.addEventListener('input', () => fieldError(input, null), { once: true });
  }
  err.textContent = text;
  input.setAttribute('aria-invalid', 'true');
  input.setAttribute('aria-describedby', [errId, ...described].join(' '));
  input.focus();
}

/**
 * Turns button `btn` off (or on) while what it started is under way, without taking the focus
 * from it: `aria-disabled`, not `disabled` (a disabled button drops the focus to the page's
 * body). Its click handler checks `isOff`.
 */
function setOff(btn, off) {
  if (off) btn.setAttribute('aria-disabled', 'true');
  else btn.removeAttribute('aria-disabled');
}

/** Whether button `btn` is turned off by `setOff`. */
const isOff = (btn) => btn.getAttribute('aria-disabled') === 'true';

/**
 * A stale request's refusal (`stale undo: the game is at ply 1, not 2; reload the state`) in a
 * player's words, saying which way the game went: a move played, or one taken back.
 */
function staleWords(message) {
  const m = String(message).match(/at ply (\d+), not (\d+)/);
  if (m && Number(m[1]) > Number(m[2])) return 'the game moved on meanwhile (a move was played)';
  if (m && Number(m[1]) < Number(m[2])) return 'a move was taken back meanwhile';
  return 'the game changed meanwhile';
}

/** `text` cut to `max` characters (an id or address quoted in a message). */
function shorten(text, max = 60) {
  const t = String(text);
  return t.length > max ? `${t.slice(0, max)}…` : t;
}

/** The move a pasted game page's address names (`…#/game/ID/PLY`), or null. */
function plyFromInput(text) {
  const m = text.trim().match(/#\/game\/[^/?#\s]+\/(\d+)(?=$|[?#\s])/);
  return m ? Number(m[1]) : null;
}

/**
 * The game id in what a player typed or pasted: an id, a watch or invite link
 * (`…/?game=ID`) or a game page's address (`…#/game/ID`). Ids are lower case.
 */
function idFromInput(text) {
  const t = text.trim();
  const m = t.match(/[?&]game=([^&#\s]+)/) || t.match(/#\/game\/([^/?#\s]+)/);
  let id = m ? m[1] : t;
  try {
    id = decodeURIComponent(id);
  } catch {
    /* keep it as typed: the server will say there is no such game */
  }
  return /^[0-9A-Za-z]+$/.test(id) ? id.toLowerCase() : id;
}

function h(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') e.className = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

/** "42–28", the winner's seeds first (a draw or no winner: South's first). */
function scoreText(w, stores) {
  const i = sideIndex(w);
  return i === 1 ? `${stores[1]}–${stores[0]}` : `${stores[0]}–${stores[1]}`;
}

/** Half points as players write them: 1.5 → "1½". */
function points(x) {
  const whole = Math.floor(x);
  return x - whole >= 0.5 ? `${whole || ''}½` : String(whole);
}

/**
 * How a game ended other than on the board (`s.ended`): "North resigned", "Game aborted", …;
 * '' when it ended on the board. A player's page names the other player of an online game
 * "your friend", never by the seat, whatever the ending ("Your friend resigned", "Your friend
 * claimed the win while you were away", "Game aborted by your friend"); itself "You"; a page
 * that holds neither seat (a watcher's, or one screen's two players) names both by the seat
 * ("North resigned").
 */
function endedText(s, names) {
  const e = s.ended;
  if (!e) return '';
  const i = sideIndex(e.by);
  const me = i >= 0 && names[i] === 'You';
  const friend = i >= 0 && names[i] === 'Friend';
  const who = i >= 0 ? (me ? 'You' : friend ? 'Your friend' : SIDE_NAME[i]) : '';
  // The claimant's page says why it could claim; the absent player's, when it happened.
  const why = i < 0 ? '' : me ? ': your friend left' : friend ? ' while you were away' : `: ${SIDE_NAME[1 - i]} left`;
  switch (e.kind) {
    case 'resign':
      return `${i >= 0 ? who : ''} resigned`;
    case 'abort':
      return me ? 'Game aborted (by you)' : friend ? 'Game aborted by your friend' : i >= 0 ? `Game aborted by ${who}` : 'Game aborted';
    case 'draw_agreed':
      return 'Draw agreed';
    case 'claim_win':
      return `${who} claimed the win${why}`;
    case 'claim_draw':
      return `${who} called it a draw${why}`;
    case 'round_limit':
      return `Drawn at the round limit (${e.rounds} ${e.rounds === 1 ? 'round' : 'rounds'})`;
    // An imported tournament game: the loser forfeited (an illegal move, an engine that
    // failed) or ran out of time (the record's own words are `e.termination`).
    case 'forfeit':
      return `${me ? 'You' : SIDE_NAME[i] || ''} forfeited`;
    case 'time':
      return `${me ? 'You' : SIDE_NAME[i] || ''} lost on time`;
    default:
      return `Game ended (${e.kind})`;
  }
}

/**
 * The result in a sentence: "Your friend resigned: you win", "You resigned: your friend wins",
 * "North resigned: South wins" (a watcher), "Game over: you win 42–28".
 */
function resultText(s, names) {
  const end = endedText(s, names);
  if (end) {
    if (s.ended.kind === 'abort' || s.winner === null || s.winner === undefined) return end;
    // A claim names its winner already ("You claimed the win: your friend left").
    if (['draw_agreed', 'claim_draw', 'claim_win', 'round_limit'].includes(s.ended.kind)) return end;
    // The friend, as `endedText` names them: "your friend wins".
    const w = sideIndex(s.winner);
    if (w >= 0 && names[w] === 'Friend') return `${end}: your friend wins`;
    return `${end}: ${winnerText(s.winner, names)}`;
  }
  return shortHoldingText(s, names) || `${s.mode === 'match' ? 'Match over' : 'Game over'}: ${winnerText(s.winner, names)} ${scoreText(s.winner, finalScore(s))}`;
}

/**
 * A match value for the side to move `toMove` in words, as the terminal game's hint gives it:
 * "South wins the match" / "South loses the match" for a value of ±100 or more (a round that
 * ends the match counts the final holdings margin ±200), otherwise "South is expected to hold
 * 29 seeds more than North after the next round".
 */
function matchValueWords(toMove, score) {
  const i = sideIndex(toMove);
  const side = SIDE_NAME[i] || String(toMove);
  const other = SIDE_NAME[1 - i] || '';
  if (score >= 100) return `${side} wins the match`;
  if (score <= -100) return `${side} loses the match`;
  if (score === 0) return `${side} and ${other} are expected to hold even after the next round`;
  const n = Math.abs(score);
  return `${side} is expected to hold ${n} seed${n === 1 ? '' : 's'} ${score < 0 ? 'fewer' : 'more'} than ${other} after the next round`;
}

/**
 * Why a match ended on the board before its last round, in the sentence `pussa replay` and the
 * terminal game use: "North holds 5, too few to fill a hole of 7 seeds, so the match is over:
 * South wins, 93 to 5". '' when the match is not over that way (or this is a single game).
 */
function shortHoldingText(s, names) {
  if (s.mode !== 'match' || !s.match_over || s.ended || !s.stores) return '';
  const sph = SEEDS_PER_HOLE[s.game] || 4;
  const held = s.stores;
  const short = [0, 1].filter((i) => held[i] < sph);
  if (!short.length) return '';
  const holds = (i) => (names[i] === 'You' ? `You hold ${held[i]}` : `${names[i]} holds ${held[i]}`);
  const who = short.length === 1 ? holds(short[0]) : `${holds(0)} and ${names[1]} ${held[1]}`;
  const w = sideIndex(s.winner);
  const verdict = w < 0 ? `a draw, ${held[0]} to ${held[1]}` : `${winnerText(s.winner, names)}, ${held[w]} to ${held[1 - w]}`;
  return `${who}, too few to fill a hole of ${sph} seeds, so the match is over: ${verdict}`;
}

/**
 * The seeds a finished game is scored by: a single game is won by the seeds taken in its round
 * (from a round-2 position the stores also hold what was carried over); a match by the seeds held.
 */
function finalScore(s) {
  return s.mode === 'match' ? s.stores : s.taken || s.stores;
}

function winnerText(w, names) {
  if (w === 'draw' || w === null || w === undefined) return 'a draw';
  const i = sideIndex(w);
  if (i < 0) return String(w);
  return names[i] === 'You' ? 'you win' : `${names[i]} wins`;
}

/**
 * What a round that starts exactly as an earlier one did means for the match. Only the computer
 * (its search, its hints) counts a third such start as a draw; between two people (online, or on
 * one screen) nothing happens then: the match goes on, or the players agree a draw.
 */
function circleText(s) {
  const start = `Round ${s.round} starts exactly as round ${s.repeats_round} did: the same seeds held, the same starter. The match is going round in a circle; played the same way it never ends. The rules give it no end`;
  const kind = s.opponent?.kind;
  if (kind === 'computer') return `${start}; once a start comes round a third time the computer counts the circle as a draw, so the player ahead has to find another way to finish a round.`;
  const draw = kind === 'online' ? ', or the players agree a draw (Offer a draw)' : ', or the players agree to call the match a draw';
  return `${start}: the match goes on until the player ahead finds another way to finish a round${draw}.`;
}

/**
 * How the round after round `r` of the match state `s` was laid out: its number, the stores
 * carried into it, its closed holes and who starts it (the computer may already have moved).
 * The move that ended round `r` carries the layout. A game started from a position whose round
 * was already over has no such move: then the layout is the state's own until the next round's
 * first move, and after it the `refill` at the head of that move's trace (`traceOf(ply)`, the
 * server's trace of a ply when the page has it). `stores` is null when it cannot be told yet.
 */
function nextRoundLayout(s, r, traceOf = () => null) {
  const moves = s.moves || [];
  const next = r ? r.round + 1 : s.round;
  const endMove = r ? moves.filter((m) => m.round === r.round).pop() : null;
  const first = moves.find((m) => m.round === next);
  const starter = first ? first.side : s.to_move;
  if (endMove || !first) {
    const layout = endMove || s;
    return { next, stores: layout.stores, closed: layout.closed || [], starter };
  }
  const refill = (traceOf(first.ply) || []).find((e) => e.type === 'refill' && e.round === next);
  if (!refill) return { next, stores: null, closed: [], starter, ply: first.ply };
  return { next, stores: refill.remainder, closed: refill.closed.map((i) => LETTERS[i]), starter: refill.starter || starter };
}

/** "you", "Computer": a player's name inside a sentence. */
function midName(n) {
  return n === 'You' ? 'you' : n;
}

/**
 * The rounds `rounds` of the match `s` that just ended, in words for screen readers: who won
 * each, the rounds won so far and how the next round is laid out ("Round 1: you won. Rounds won:
 * you 1, Computer 0. Round 2: holes a and b closed; Computer (North) starts."). '' in a single
 * game (its result is the game's).
 */
function roundNews(rounds, s, names, interim = false, traceOf = () => null) {
  if (s.mode !== 'match' || !rounds.length) return '';
  const out = [];
  for (const r of rounds) {
    const w = sideIndex(r.winner);
    out.push(`Round ${r.round}: ${w < 0 ? 'drawn' : names[w] === 'You' ? 'you won' : `${names[w]} won`}.`);
  }
  // `interim`: told at the end of the last of `rounds` while the rest of the answer is still to
  // be shown (rounds after it not counted yet, the next one laid out even if the answer ends it).
  const upto = interim ? rounds[rounds.length - 1].round : Infinity;
  const won = [0, 0];
  for (const r of s.rounds || []) {
    const w = sideIndex(r.winner);
    if (w >= 0 && r.round <= upto) won[w]++;
  }
  out.push(`Rounds won: ${midName(names[0])} ${won[0]}, ${midName(names[1])} ${won[1]}.`);
  if (interim || (!s.match_over && !s.ended)) {
    const l = nextRoundLayout(s, rounds[rounds.length - 1], traceOf);
    const holes = l.closed.length
      ? `hole${l.closed.length === 1 ? '' : 's'} ${l.closed.length === 1 ? l.closed[0] : `${l.closed.slice(0, -1).join(', ')} and ${l.closed[l.closed.length - 1]}`} closed`
      : 'no hole closed';
    const i = sideIndex(l.starter);
    const who = names[i] === 'You' ? 'you start' : names[i] === SIDE_NAME[i] ? `${names[i]} starts` : `${names[i]} (${SIDE_NAME[i]}) starts`;
    // The layout not known yet (see nextRoundLayout): only who starts.
    out.push(l.stores ? `Round ${l.next}: ${holes}; stores ${midName(names[0])} ${l.stores[0]}, ${midName(names[1])} ${l.stores[1]}; ${who}.` : `Round ${l.next}: ${who}.`);
  }
  return out.join(' ');
}

async function copyText(text, input) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    if (input) {
      input.value = text;
      input.select();
      try {
        return document.execCommand('copy');
      } catch {
        return false;
      }
    }
    return false;
  }
}

/**
 * Side `i`'s playable holes (`legal`, the server's list) for the turn line: "holes A–G",
 * "holes c–g", "holes a, b, e–g", "hole d". An empty, closed or endless hole cannot be played,
 * so it is not named.
 */
export function playableHoles(i, legal = []) {
  const letters = [...(i === 0 ? 'ABCDEFG' : 'abcdefg')];
  const runs = [];
  letters.forEach((l, k) => {
    if (!legal.includes(l)) return;
    const last = runs[runs.length - 1];
    if (last && last.end === k - 1) last.end = k;
    else runs.push({ start: k, end: k });
  });
  const open = runs.reduce((n, r) => n + r.end - r.start + 1, 0);
  const text = runs
    .map((r) => (r.end === r.start ? letters[r.start] : `${letters[r.start]}${r.end === r.start + 1 ? ', ' : '–'}${letters[r.end]}`))
    .join(', ');
  return `${open === 1 ? 'hole' : 'holes'} ${text}`;
}

/**
 * The holes of the player to move in `s` whose move would sow for ever. The server lists the
 * legal moves (`s.legal`); a move is the lifting of an open hole of one's own that holds seeds
 * (rules-spec.md, "One move"), and such a move is refused only when it is endless ("Endless
 * sowing"; the rules crate's `legal_moves` drops exactly the endless candidates). So in a round
 * still going on, every open, non-empty hole of the mover missing from `s.legal` is endless.
 */
export function endlessHoles(s) {
  if (!s || !s.to_move || s.round_over || s.match_over || s.ended || !Array.isArray(s.legal) || !s.board) return [];
  const side = sideIndex(s.to_move);
  if (side < 0) return [];
  const closed = s.closed || [];
  return [...LETTERS.slice(side * 7, side * 7 + 7)].filter((l, k) => s.board[side * 7 + k] > 0 && !closed.includes(l) && !s.legal.includes(l));
}

function closedBools(letters) {
  const c = new Array(14).fill(false);
  for (const l of letters || []) {
    const i = holeIndex(l);
    if (i >= 0) c[i] = true;
  }
  return c;
}

function modelOf(s) {
  return { board: [...s.board], closed: closedBools(s.closed), stores: [...s.stores] };
}

/**
 * The scoreboard's numbers for the position after ply `ply` of the state `s` (`s.ply` and
 * beyond: the live ones): seeds held, taken this round, rounds won, closed holes, the round, the
 * player to move.
 */
function scoreAt(s, ply) {
  const moves = s.moves || [];
  const rounds = s.rounds || [];
  const wins = (before) => {
    const won = [0, 0];
    for (const r of rounds) {
      const w = sideIndex(r.winner);
      if (r.round < before && w >= 0) won[w]++;
    }
    return won;
  };
  if (ply >= s.ply || (ply > 0 && !moves[ply - 1]) || (ply === 0 && !s.start)) {
    return {
      stores: [...s.stores],
      taken: [...(s.taken || [0, 0])],
      won: wins(Infinity),
      closed: [...(s.closed || [])],
      round: s.round,
      played: rounds.length,
      toMove: s.match_over ? null : s.to_move,
    };
  }
  const at = ply === 0 ? s.start : moves[ply - 1];
  // The round the position belongs to: the next move's (a move that ended a round leaves the
  // next round laid out).
  const round = ply < moves.length ? moves[ply].round : s.round;
  // What each player held when that round began: the live round's from the live state, an
  // earlier round's from the move that laid it out.
  let begun;
  if (round === s.round) begun = [0, 1].map((i) => s.stores[i] - (s.taken || [0, 0])[i]);
  else {
    const layout = moves.filter((m) => m.round < round && m.ply <= ply).pop();
    // The start position's round: what was held then less what had been taken in it already.
    const startTaken = s.start.taken || [0, 0];
    begun = layout ? layout.stores : [0, 1].map((i) => s.start.stores[i] - startTaken[i]);
  }
  return {
    stores: [...at.stores],
    taken: [0, 1].map((i) => Math.max(0, at.stores[i] - begun[i])),
    won: wins(round),
    closed: [...(at.closed || [])],
    round,
    played: rounds.filter((r) => r.round < round).length,
    toMove: ply < moves.length ? moves[ply].side : s.to_move,
  };
}

/** What identifies the position of state `s` (a hint is for one position only). */
function positionKey(s) {
  return `${s.id} ${s.position || s.ply}`;
}

/** How many of the first moves states `a` and `b` of one game share (at most `upto`). */
function commonMoves(a, b, upto = Infinity) {
  const x = a.moves || [];
  const y = b.moves || [];
  const n = Math.min(x.length, y.length, upto);
  let k = 0;
  while (k < n && x[k].move === y[k].move && x[k].side === y[k].side && x[k].round === y[k].round) k++;
  return k;
}

/**
 * Whether states `a` and `b` are the same game at the same point: the same position and the
 * same moves to it (not only as many).
 */
function sameMoves(a, b) {
  const n = (a.moves || []).length;
  return a.id === b.id && a.ply === b.ply && (a.position || '') === (b.position || '') && n === (b.moves || []).length && commonMoves(a, b) === n;
}

/** Whether the played move `p` ended a round (its trace has the round's end). */
function endsRound(p) {
  return (p.trace || []).some((ev) => ev.type === 'round_end');
}

/**
 * One line on a played move: who played what and what each side took, and how a round it ended
 * ended. `names`: what the page calls South and North ("You", "Computer"…), in every part of it;
 * `where`, said after the move ("from your other window").
 */
function summary(p, names = SIDE_NAME, where = '') {
  const side = sideIndex(p.side);
  const got = [0, 0];
  // What each side took: its fours counted, each capture with its hole.
  const fours = [0, 0];
  const caps = [[], []];
  let laps = 0;
  for (const ev of p.trace || []) {
    if (ev.type === 'lift') laps++;
    if (ev.type === 'four') {
      got[sideIndex(ev.owner)] += 4;
      fours[sideIndex(ev.owner)]++;
    }
    if (ev.type === 'capture') {
      got[sideIndex(ev.by)] += ev.seeds;
      caps[sideIndex(ev.by)].push(`${ev.seeds} from ${ev.hole}`);
    }
  }
  // "You" starts a sentence only; mid-sentence it is "you".
  const mid = (n) => (n === 'You' ? 'you' : n);
  const how = (i) => {
    const parts = [...(fours[i] ? [fours[i] === 1 ? 'a four' : `${fours[i]} fours`] : []), ...caps[i]];
    return parts.length > 1 ? `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]}` : parts[0];
  };
  const took = [];
  if (got[side]) took.push(`took ${got[side]}: ${how(side)}`);
  if (got[1 - side]) took.push(`${mid(names[1 - side])} took ${got[1 - side]}: ${how(1 - side)}`);
  let text = `${names[side]} played ${p.move}${where ? ` ${where}` : ''} (${laps} lap${laps === 1 ? '' : 's'}${took.length ? `; ${took.join('; ')}` : ''}).`;
  const end = (p.trace || []).find((ev) => ev.type === 'round_end');
  if (end) {
    text += ` Round over: ${reasonText(end.reason, names)}; ${sweepText(end.reason, end.swept, names, false)}.`;
  }
  return text;
}

/**
 * The moves `moves` (a state's list, in order) numbered as records number them: one number for a
 * South move and the North move after it, counted from 1 in each round (docs/notation.md). Each
 * row is `{ round, n, south, north }` (either move may be null: a North move that opens a round,
 * or a South move not answered yet). The move list and the history banner both use it.
 */
function numberedMoves(moves) {
  const rows = [];
  let n = 0;
  let round = null;
  for (let k = 0; k < moves.length; ) {
    const a = moves[k];
    if (a.round !== round) {
      round = a.round;
      n = 0;
    }
    n += 1;
    let south = null;
    let north = null;
    if (sideIndex(a.side) === 0) {
      south = a;
      const b = moves[k + 1];
      if (b && sideIndex(b.side) === 1 && b.round === a.round) north = b;
    } else north = a;
    k += (south ? 1 : 0) + (north ? 1 : 0);
    rows.push({ round, n, south, north });
  }
  return rows;
}

/**
 * Move `ply` of the state `s` numbered as the move list and records number it: `{ round, n,
 * name }`, `name` as a record writes the move ("4. F", "3... g", in a match's later rounds with
 * the round's marker: "R2 4. F", "R3 1... a"); null when the state does not list it.
 */
function moveNumber(s, ply) {
  for (const row of numberedMoves(s.moves || [])) {
    const m = row.south && row.south.ply === ply ? row.south : row.north && row.north.ply === ply ? row.north : null;
    if (!m) continue;
    const marker = s.mode === 'match' && row.round > 1 ? `R${row.round} ` : '';
    return { round: row.round, n: row.n, name: `${marker}${row.n}${m === row.south ? '.' : '...'} ${m.move}` };
  }
  return null;
}

/**
 * The animation speed chosen in this browser, or null (none yet, or a value the Speed box does
 * not offer: an old or hand-edited one, which then gives way to the default).
 */
function storedSpeed() {
  const s = storage.get('pussa.speed');
  return s && [...$('#speed').options].some((o) => o.value === s) ? s : null;
}

/**
 * The speed before the player chooses one: no animation when the system asks for reduced
 * motion (prefers-reduced-motion), else normal. The Speed box still offers every speed.
 */
function defaultSpeed() {
  return window.matchMedia && window.matchMedia('(prefers-reduced-motion: reduce)').matches ? 'off' : 'normal';
}

// ---------------------------------------------------------------------------------------------
// Routing

/**
 * Moves the focus to the main content of the page shown (the skip link): on a game page a
 * playable hole (else the board's heading), elsewhere the page's heading. The route stays.
 */
function skipToContent() {
  const view = VIEWS.find((v) => !$(`#view-${v}`).hidden);
  if (view === 'game' && game && !$('#view-game').hidden) {
    const hole = game.board.svg.querySelector('.hole.legal');
    if (hole) {
      hole.focus();
      return;
    }
  }
  const head = view && $(`#view-${view} h1`);
  if (head) focusHeading(head);
  else $('#main').focus();
}

/** Focuses `head` (a heading: focusable from script only), without scrolling. */
function focusHeading(head) {
  if (!head) return;
  head.setAttribute('tabindex', '-1');
  head.focus({ preventScroll: true });
}

let routed = null; // the address last routed (a hash that is no route goes back to it)
let dialogDismissed = false; // the round dialog was closed by a page change, not by the player

/**
 * Closes the game's round or result dialog when a page change takes the game away (or puts it
 * behind the rules or help): it never stays over another page. True if it was open.
 */
function dismissDialog() {
  const d = $('#round-dialog');
  if (!d.open) return false;
  dialogDismissed = true;
  d.close();
  return true;
}

function route() {
  // A hash that is no route (`#main`, a fragment typed by hand) is an anchor in the page shown:
  // the view stays, and the address goes back to the route.
  if (location.hash && !location.hash.startsWith('#/') && routed !== null) {
    history.replaceState(null, '', routed || location.pathname);
    skipToContent();
    return;
  }
  // The first page shown is a page load (the focus stays at the document's start, where the
  // skip link is); later ones move it into the new page.
  const moveFocus = routed !== null;
  routed = location.hash;
  // Leaving the page of a game whose seat is still being asked for drops the invite: its seat
  // is never taken behind the player's back while they do something else.
  if (joining && !location.hash.startsWith(`#/game/${encodeURIComponent(joining.id)}`)) {
    joining.cancelled = true;
    stopJoining();
  }
  notice(landingNotice, landingKind);
  landingNotice = null;
  landingKind = 'info';
  // `#/game/ID?invite=T`: the game, with an invite whose seat is not taken yet (see `joining`).
  const hash = (location.hash || '#/').split('?')[0];
  let parts;
  try {
    parts = hash.replace(/^#\/?/, '').split('/').filter(Boolean).map(decodeURIComponent);
  } catch {
    // A link mangled on its way (a broken %-escape): say so and offer the start page.
    parts = [];
    notice(`This address is not a valid pussa link (a broken %-escape): ${shorten(hash)}`);
  }
  let view = 'home';
  if (parts[0] === 'game' && parts[1]) view = 'game';
  else if (parts[0] === 'games') view = 'games';
  else if (parts[0] === 'rules') view = 'rules';
  else if (parts[0] === 'help') view = 'help';
  for (const v of VIEWS) $(`#view-${v}`).hidden = v !== view;
  $('#view-missing').hidden = true;
  for (const a of document.querySelectorAll('[data-nav]')) {
    if (a.dataset.nav === view) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  // Back (or Forward) to a rules page left by one of its section links: where the player was
  // reading (the scroll, and the focus on the link followed), kept in that history entry.
  const rulesGame = parts[1] || 'walak-pussa';
  const st = history.state;
  const restore = view === 'rules' && st && st.rulesGame === rulesGame && typeof st.rulesY === 'number' ? st : null;
  // A rules page's section (#/rules/GAME/SECTION) scrolls there once the text is in.
  if (!(view === 'rules' && (parts[2] || restore) && lastRules === rulesGame)) window.scrollTo(0, 0);
  // The rules and the help reached from a game (its own links, or any way while it is open)
  // show in front of it: the game stays open behind them, its connection too, so an online
  // player reading them is not "away" and the friend cannot claim the game meanwhile (as on
  // lichess, nothing reached from the game counts as leaving it). A bar on those pages tells
  // the game's turn and leads back. Any other page closes the game.
  const behind = (view === 'rules' || view === 'help') && game && !game.closed && !!game.state;
  if (view !== 'game' && game && !behind) {
    game.close();
    game = null;
  }
  if (behind) {
    game.behind = true;
    // Its round or result dialog is not shown over those pages: it opens again on the way back.
    if (dismissDialog()) game.dialogLater = true;
    // A move being animated ends at once: nobody sees the board now.
    if (game.animator.running) game.animator.skip();
  }
  if (view === 'home') {
    document.title = 'pussa: play';
    showContinue();
  }
  if (view === 'game') openGame(parts[1], moveFocus, /^\d+$/.test(parts[2] || '') ? Number(parts[2]) : null);
  // A new page takes the focus: its heading (the game page places it once the game is shown).
  // A rules section link scrolls to its section and focuses its heading instead; Back to
  // where the link was followed focuses the link again.
  else if (moveFocus && !(view === 'rules' && (parts[2] || restore))) focusHeading($(`#view-${view} h1`));
  if (view === 'games') showGames();
  if (view === 'rules') showRules(rulesGame, parts[2], { restore, focus: moveFocus });
  if (view === 'help') document.title = 'pussa: how to play online';
  if (game) game.renderBehind();
  else $('#game-behind').hidden = true;
}

/**
 * Keeps the address on the game's position shown, without a new history entry: `#/game/ID`
 * for the live position, `#/game/ID/PLY` for the position after move PLY looked at (a reload,
 * a bookmark or a copied address opens the game at that move, as `#/game/ID/PLY` does).
 */
function gameAddress(id, ply = null) {
  const here =
    ply === null && joining && joining.id === id
      ? inviteAddress(id, joining.invite)
      : `#/game/${encodeURIComponent(id)}${ply === null ? '' : `/${ply}`}`;
  if (location.hash === here || !/^#\/game\//.test(location.hash)) return;
  history.replaceState(history.state, '', here);
  routed = here;
}

/**
 * The invite in a link: in its fragment (`#invite=T`, the form the server gives: browsers never
 * send a fragment, so it stays out of every log) or, in an older link, its query (`?invite=T`).
 */
function inviteOf(url) {
  const inHash = url.hash.startsWith('#invite=') ? new URLSearchParams(url.hash.slice(1)).get('invite') : null;
  return inHash || url.searchParams.get('invite');
}

/** The address of game `id` that keeps `invite` while its seat is not taken yet. */
function inviteAddress(id, invite) {
  return `#/game/${encodeURIComponent(id)}?invite=${encodeURIComponent(invite)}`;
}

// An invite link (/?game=ID#invite=T, or the older /?game=ID&invite=T) or a watch link
// (/?game=ID) lands here first; so does the address of an invite whose seat is not taken yet
// (#/game/ID?invite=T, reloaded).
async function landing() {
  const kept = location.hash.match(/^#\/game\/([^/?]+)\?invite=([^&]+)$/);
  if (kept) {
    let id, invite;
    try {
      id = decodeURIComponent(kept[1]);
      invite = decodeURIComponent(kept[2]);
    } catch {
      return;
    }
    if (seats.get(id)) history.replaceState(null, '', `${location.pathname}#/game/${encodeURIComponent(id)}`);
    else startJoining(id, invite);
    return;
  }
  const q = new URLSearchParams(location.search);
  const id = q.get('game');
  if (!id) return;
  const invite = inviteOf(new URL(location.href));
  // The address becomes the game's at once: an old link's invite (in the query) is not sent
  // again by a reload, nor kept in the history.
  history.replaceState(null, '', `${location.pathname}#/game/${encodeURIComponent(id)}`);
  if (!invite) return;
  // This browser already plays in this game (its creator opened the invite link, say): keep
  // its seat and leave the invite for the friend it is meant for.
  const held = seats.get(id);
  if (held) {
    // The friend who took the seat with this very link, back again: just open their game.
    if (held.invite === invite) return;
    landingNotice = 'You already play in this game: the invite link is for your friend. Send it to them; opening it here does not take the other seat.';
    return;
  }
  startJoining(id, invite);
}

/**
 * Asks for the seat of `invite` while the game is shown (its turn line says "Taking your
 * seat…"): the page is never blank while the join is on its way. Once taken the game is opened
 * again as the player's (see `retryJoin`).
 */
function startJoining(id, invite) {
  stopJoining();
  joining = { id, invite, delay: 1000, timer: null, reason: null, first: true };
  history.replaceState(null, '', `${location.pathname}${inviteAddress(id, invite)}`);
  retryJoin();
}

/** The notice while the seat of an invite waits for the server (see `joining`). */
function joiningText(reason) {
  return `Your seat is not taken yet: ${reason}. The page keeps trying and takes it as soon as the connection is back; meanwhile you watch the game.`;
}

/**
 * Takes the free seat of game `id` with `invite`. A refusal by the server leaves a notice (the
 * game is watched); no answer at all (the server cannot be reached) keeps the invite and tries
 * again (see `joining`). True once the seat is taken.
 */
async function joinInvite(id, invite, attempt = null) {
  try {
    const r = await api.join(id, invite);
    // Given up meanwhile (the player left the game's page): the seat is kept (the server took
    // it and answers it again to this invite) but nothing is opened behind the player's back.
    if (attempt && joining !== attempt) {
      keepSeat(r.id || id, { token: r.token, seats: r.seats || [r.seat], invite });
      return true;
    }
    stopJoining();
    keepSeat(r.id || id, { token: r.token, seats: r.seats || [r.seat], invite });
    pending = { id: r.id || id, state: r.state, played: [] };
    return true;
  } catch (e) {
    if (attempt && joining !== attempt) return false;
    // No answer, a proxy's 502/503 while the server restarts, a 429: not a refusal of the
    // invite; it is kept and asked for again.
    if (noAnswerYet(e)) {
      keepJoining(id, invite, e.status === 0 ? e.message : `no answer from the server yet (${e.message})`);
      return false;
    }
    stopJoining();
    // The seat taken meanwhile by this browser (another tab, with the same invite or not):
    // the game is opened as the player's.
    if (seats.get(id)) return true;
    // No such game: its own "Game not found" page says so (there is nothing to watch).
    if (e.status === 404) return false;
    if (!seats.get(id)) landingNotice = `Cannot take the seat: ${e.message}. You are watching this game.`;
    return false;
  }
}

/** The seat of `invite` could not be asked for (`reason`): kept, asked again with a back-off. */
function keepJoining(id, invite, reason) {
  const first = !joining || joining.id !== id;
  if (first) {
    stopJoining();
    joining = { id, invite, delay: 1000, timer: null, reason };
  }
  joining.reason = reason;
  joining.failed = true;
  const here = inviteAddress(id, invite);
  if (location.hash !== here && (first || location.hash.startsWith(`#/game/${encodeURIComponent(id)}`))) {
    history.replaceState(null, '', `${location.pathname}${here}`);
    if (routed !== null) routed = here;
  }
  landingNotice = joiningText(reason);
  landingKind = 'error';
  clearTimeout(joining.timer);
  joining.timer = setTimeout(retryJoin, joining.delay);
  joining.delay = Math.min(joining.delay * 2, 10000);
}

function stopJoining() {
  if (joining) clearTimeout(joining.timer);
  joining = null;
}

/**
 * Asks again for the seat of the invite kept in `joining` (a timer, the browser back online,
 * the game's connection open again). Once taken, the game is opened again as the player's.
 */
async function retryJoin() {
  const j = joining;
  if (!j || j.trying) return;
  clearTimeout(j.timer);
  j.trying = true;
  let ok = false;
  try {
    ok = await joinInvite(j.id, j.invite, j);
  } finally {
    j.trying = false;
  }
  if (joining === j) {
    // Still no answer: the notice says so again (it may have been closed), and the game's
    // turn line ("Taking your seat…").
    if (game && game.id === j.id && !game.closed) {
      notice(joiningText(j.reason));
      if (game.state) game.renderTurn();
    }
    landingNotice = null;
    return;
  }
  // Given up (the player went elsewhere): nothing is shown.
  if (j.cancelled) return;
  const onGame = location.hash.startsWith(`#/game/${encodeURIComponent(j.id)}`);
  if (onGame) history.replaceState(null, '', `${location.pathname}#/game/${encodeURIComponent(j.id)}`);
  if (!ok) {
    // Refused by the server: the page stays the watcher's, and says why.
    if (onGame && landingNotice) notice(landingNotice, landingKind);
    landingNotice = null;
    landingKind = 'info';
    return;
  }
  if (onGame) {
    // The game is opened again as the player's (the watcher's view has no seat).
    if (game) game.close();
    game = null;
    if (!j.first || j.failed) {
      landingNotice = landingNotice ? `You have taken your seat. ${landingNotice}` : 'You have taken your seat: the connection is back.';
    }
    // The seat is taken: what is said of it is an information, not the error of the retries.
    landingKind = 'info';
    route();
  }
}
window.addEventListener('online', () => joining && retryJoin());

// ---------------------------------------------------------------------------------------------
// New game, import, open by id

/** The ladder of `game` played as `mode` (`{levels, default}` from the server), or null. */
function ladderOf(game, mode) {
  const g = (meta.games || []).find((x) => x.name === game);
  return g && g.ladders ? g.ladders[mode] : null;
}

/** `level` if the ladder of `game` and `mode` offers it, else the strongest level below it there. */
function onLadder(game, mode, level) {
  const ladder = ladderOf(game, mode);
  if (!ladder || ladder.levels.includes(level)) return level;
  const names = (meta.levels || []).map((l) => (typeof l === 'string' ? l : l.name));
  const below = ladder.levels.filter((l) => names.indexOf(l) <= names.indexOf(level));
  return below.length ? below[below.length - 1] : ladder.default;
}

const LEVEL_KEY = 'pussa.level';

/** The level picked last in this browser, or null. */
function storedLevel() {
  return storage.get(LEVEL_KEY);
}

/** Keeps `name` as the level picked last (storage refused: for as long as the page). */
function storeLevel(name) {
  storage.set(LEVEL_KEY, name);
}

const FORM_KEY = 'pussa.newGame';
/** The New game form's choices kept in this browser (the level is kept on its own). */
const FORM_FIELDS = ['game', 'mode', 'opponent', 'seat', 'first'];

/** Sets the New game form's choices to those picked last in this browser (each one checked). */
function restoreForm(form) {
  let kept;
  try {
    kept = JSON.parse(storage.get(FORM_KEY) || 'null');
  } catch {
    kept = null;
  }
  if (!kept || typeof kept !== 'object') return;
  for (const name of FORM_FIELDS) {
    const v = kept[name];
    const field = form.elements[name];
    if (typeof v !== 'string' || !field) continue;
    // A radio group or a select: only a value it still offers.
    const options = field instanceof RadioNodeList ? [...field] : [...field.options];
    if (options.some((o) => o.value === v)) field.value = v;
  }
}

/** Keeps the New game form's choices (storage refused: for as long as the page). */
function storeForm(form) {
  storage.set(FORM_KEY, JSON.stringify(Object.fromEntries(FORM_FIELDS.map((n) => [n, form.elements[n].value]))));
}

/**
 * The level a record's `South`/`North` tag names for pussa, with the player's seat: `{level,
 * seat}`, or null when neither tag names one. Every writer is read: the server's export
 * (`pussa level club`), `pussa tournament --pgn` (`level:club`, `level:club+tables` for a player
 * with endgame tables) and the terminal game's `pussa play --save` (`North (computer, club)`).
 */
function recordOpponent(text) {
  const tag = (name) => {
    const m = String(text).match(new RegExp(`^\\s*\\[${name}\\s+"((?:[^"\\\\]|\\\\.)*)"\\s*\\]`, 'm'));
    return m ? m[1].replace(/\\(.)/g, '$1') : null;
  };
  const level = (v, side) => {
    if (!v) return null;
    const m =
      v.match(/^pussa level (\S+)$/) ||
      v.match(/^level:([^\s+]+)(?:\+tables)?$/) ||
      v.match(new RegExp(`^${side} \\(computer, (\\S+)\\)$`));
    return m ? m[1] : null;
  };
  const north = level(tag('North'), 'North');
  const south = level(tag('South'), 'South');
  // The computer plays the seat its tag names; the player the other one.
  if (north && !south) return { level: north, seat: 'S' };
  if (south && !north) return { level: south, seat: 'N' };
  return null;
}

/** The game a position string names (its sixth field), if the server offers it; else null. */
function positionGame(position) {
  const name = String(position).trim().split(/\s+/)[5];
  return name && (meta.games || []).some((g) => g.name === name) ? name : null;
}

function setupHome() {
  const form = $('#new-game');
  const level = $('#level');
  // The game, length, opponent and seats picked last (Back, a reload, the next visit).
  restoreForm(form);
  // A level is a name, or {name, number, description}.
  const all = (meta.levels || []).map((l) => (typeof l === 'string' ? { name: l } : l));
  // The levels offered for the chosen game and length (its ladder: each level scores at least
  // 65% against the one below, so a game that squeezes two levels together offers one of them).
  const fillLevels = () => {
    const game = (meta.games || []).find((g) => g.name === form.game.value);
    const ladder = ladderOf(form.game.value, form.mode.value);
    const offered = ladder ? all.filter((l) => ladder.levels.includes(l.name)) : all;
    // The level the player picked (kept while they look at other games), or the strongest
    // offered level below it; the ladder's default until they pick one.
    const chosen = level.dataset.chosen;
    const pick = chosen
      ? onLadder(form.game.value, form.mode.value, chosen)
      : ladder ? ladder.default : meta.default_level;
    // Labels start with the name, so typing its first letter in the list selects it.
    level.replaceChildren(
      ...offered.map((l) =>
        h('option', { value: l.name, selected: l.name === pick }, `${l.name}${l.description ? `: ${l.description}` : ''}`),
      ),
    );
    const note = $('#level-note');
    const left = all.filter((l) => !offered.includes(l)).map((l) => l.name);
    note.hidden = !left.length;
    note.textContent = left.length
      ? `Not offered in ${game ? game.title : 'this game'} ${form.mode.value === 'match' ? 'matches' : 'single games'}: ${left.join(', ')}. Each level offered scored at least 65% against the one below in 100 games; a list with ${left.length === 1 ? 'it' : 'them'} would have a smaller step.`
      : '';
  };
  // The level picked last is kept in this browser, so that Back, a reload or the next visit
  // offers it again (the list is built after the page loads, so the browser cannot restore it).
  const remembered = storedLevel();
  if (remembered && all.some((l) => l.name === remembered)) level.dataset.chosen = remembered;
  level.addEventListener('change', () => {
    level.dataset.chosen = level.value;
    storeLevel(level.value);
  });
  fillLevels();
  const sync = (e) => {
    const opp = form.opponent.value;
    $('#level-field').hidden = opp !== 'computer';
    $('#level-note').hidden = opp !== 'computer' || !$('#level-note').textContent;
    $('#seat-field').hidden = opp === 'hotseat';
    if (e && (e.target.name === 'game' || e.target.name === 'mode')) {
      fillLevels();
      $('#level-note').hidden = opp !== 'computer' || !$('#level-note').textContent;
    }
  };
  form.addEventListener('change', sync);
  // A message about the last attempt does not outlive a change of the form.
  form.addEventListener('change', (e) => {
    notice(null);
    if (FORM_FIELDS.includes(e.target.name)) storeForm(form);
  });
  // A start position decides who moves first, and its game is the one played (it names it:
  // the game is ticked, and the levels follow).
  const syncFirst = () => {
    form.first.disabled = !!form.position.value.trim();
  };
  form.position.addEventListener('input', () => {
    syncFirst();
    const named = positionGame(form.position.value);
    if (named && form.game.value !== named) {
      form.game.value = named;
      fillLevels();
      sync();
      storeForm(form);
    }
  });
  syncFirst();
  sync();
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const opp = form.opponent.value;
    const req = {
      game: form.game.value,
      mode: form.mode.value,
      first: form.first.value,
      opponent: opp === 'computer' ? { kind: 'computer', level: form.level.value } : { kind: opp },
      seat: opp === 'hotseat' ? 'S' : form.seat.value,
    };
    storeForm(form);
    const position = form.position.value.trim();
    // From a position: the server reads it (`position: …` names what is wrong with a bad one),
    // and the side to move in it moves first. A position whose round is over is a game already
    // decided (a single game: shown over at once), or a match that goes on with its next round.
    if (position) {
      req.position = position;
      delete req.first;
    }
    // Start keeps the focus while the server answers (a refused position hands it to the field).
    const btn = $('#start');
    if (isOff(btn)) return;
    fieldError(form.position, null);
    setOff(btn, true);
    // The server lists the position's moves before the game starts, proving which would sow
    // for ever: in a few positions one has a cycle of hundreds of millions of laps, which takes
    // seconds. The page says at once what it is doing (and a plain start that takes more than
    // a moment says so too), rather than looking stuck with a greyed Start.
    const status = $('#start-status');
    const STARTING = 'Starting the game…';
    const CHECKING =
      'Checking the moves of this position: which would sow for ever (a move with a very long cycle takes seconds to prove). The game starts as soon as they are known…';
    const slow = position ? null : setTimeout(() => (status.textContent = STARTING), 800);
    if (position) status.textContent = CHECKING;
    try {
      const r = await api.create(req);
      status.textContent = '';
      started(r);
    } catch (err) {
      status.textContent = '';
      // A refused position: the error under the field, which takes the focus to be corrected.
      if (position && err.status >= 400 && err.status < 500) fieldError(form.position, `Cannot start from this position: ${err.message}`);
      else notice(position ? `Cannot start from this position: ${err.message}` : `Cannot start the game: ${err.message}`);
    } finally {
      clearTimeout(slow);
      setOff(btn, false);
    }
  });

  // How an imported record is played: on this screen, or against the computer (level, seat).
  const importForm = $('#import-form');
  const importLevel = $('#import-level');
  const syncImport = () => {
    const computer = importForm.elements['import-opponent'].value === 'computer';
    $('#import-level-field').hidden = !computer;
    $('#import-seat-field').hidden = !computer;
  };
  // The levels of the record's game and length (its Game and Mode tags), `pick` chosen; the
  // record's tags, its game and mode.
  const recordTags = (text) => ({
    game: (String(text).match(/^\s*\[Game\s+"([^"]*)"\]/m) || [])[1],
    mode: (String(text).match(/^\s*\[Mode\s+"([^"]*)"\]/m) || [])[1] || 'single',
  });
  const fillImportLevels = (text, pick) => {
    const named = recordOpponent(text) || {};
    const tags = recordTags(text);
    const ladder = tags.game ? ladderOf(tags.game, tags.mode) : null;
    const offered = ladder ? all.filter((l) => ladder.levels.includes(l.name)) : all;
    const want = pick || importLevel.value || level.value || meta.default_level;
    const chosen = ladder && want ? onLadder(tags.game, tags.mode, want) : want;
    importLevel.replaceChildren(
      ...offered.map((l) => h('option', { value: l.name, selected: l.name === chosen }, `${l.name}${l.description ? `: ${l.description}` : ''}`)),
    );
  };
  const importNote = $('#import-note');
  const IMPORT_NOTE = importNote.textContent;
  // The opponent and seat chosen by hand (not derived from the text pasted): a record that
  // names no computer then leaves them as they are.
  let importByHand = false;
  // A record that names pussa as a player (`[North "pussa level club"]`, the tournament's
  // `[North "level:club"]`, or the terminal game's `[North "North (computer, club)"]`) is
  // played against it again, at that level, the
  // player in the other seat; a level that cannot be kept is said in the note. A record that
  // names no computer goes back to this screen, unless the player chose the opponent by hand.
  const fromRecord = () => {
    const text = $('#import-text').value;
    const named = recordOpponent(text);
    if (named) {
      importForm.elements['import-opponent'].value = 'computer';
      $('#import-seat').value = named.seat;
      importByHand = false;
    } else if (!importByHand) {
      importForm.elements['import-opponent'].value = 'hotseat';
    }
    const known = named && all.some((l) => l.name === named.level);
    fillImportLevels(text, known ? named.level : null);
    let note = IMPORT_NOTE;
    if (named && !known) {
      note = `The record names the level '${named.level}', which pussa does not have: the game is against ${importLevel.value} (change it above).`;
    } else if (named && importLevel.value !== named.level) {
      const tags = recordTags(text);
      const where = `${(meta.games || []).find((g) => g.name === tags.game)?.title || tags.game} ${tags.mode === 'match' ? 'matches' : 'single games'}`;
      note = `The level ${named.level} is not offered in ${where}: the game is against ${importLevel.value}, the strongest level below it there.`;
    }
    importNote.textContent = note;
    syncImport();
  };
  importForm.addEventListener('change', (e) => {
    if (e.target.name === 'import-opponent') syncImport();
    if (e.target.name === 'import-opponent' || e.target.id === 'import-seat') importByHand = true;
  });
  $('#import-text').addEventListener('input', fromRecord);
  fillImportLevels('', null);
  syncImport();

  $('#import-file').addEventListener('change', async (e) => {
    const f = e.target.files[0];
    if (f) {
      $('#import-text').value = await f.text();
      fromRecord();
    }
  });
  $('#import-form').addEventListener('submit', async (e) => {
    e.preventDefault();
    const text = $('#import-text').value;
    if (!text.trim()) {
      fieldError($('#import-text'), 'Paste a record or choose a file first.');
      return;
    }
    // One press, one game (as Start): the button is off while the server answers.
    const btn = importForm.querySelector('button[type="submit"]');
    if (isOff(btn)) return;
    fieldError($('#import-text'), null);
    const computer = importForm.elements['import-opponent'].value === 'computer';
    const opponent = computer ? { kind: 'computer', level: importLevel.value } : { kind: 'hotseat' };
    setOff(btn, true);
    try {
      const r = await api.importRecord(text, opponent, computer ? $('#import-seat').value : 'S');
      $('#import-text').value = '';
      started(r, true);
    } catch (err) {
      // A refused record: the error under the field, which takes the focus to be corrected.
      if (err.status >= 400 && err.status < 500) fieldError($('#import-text'), `Cannot import the record: ${err.message}`);
      else notice(`Cannot import the record: ${err.message}`);
    } finally {
      setOff(btn, false);
    }
  });
  $('#open-form').addEventListener('submit', (e) => {
    e.preventDefault();
    openTyped($('#open-id'));
  });
  $('#missing-form').addEventListener('submit', (e) => {
    e.preventDefault();
    openTyped($('#missing-id'));
  });
}

/** Opens the game named in `input` (an id, a watch or invite link, a game page's address). */
async function openTyped(input) {
  const text = input.value;
  const id = idFromInput(text);
  if (!id) {
    fieldError(input, 'Type or paste a game id or link first.');
    return;
  }
  fieldError(input, null);
  // A link to a move (`#/game/ID/PLY`) opens at that move, as the address does.
  const ply = plyFromInput(text);
  const hash = `#/game/${encodeURIComponent(id)}${ply === null ? '' : `/${ply}`}`;
  // A pasted invite link takes the free seat, exactly as opening the link does.
  const invite = (text.match(/[?&#]invite=([^&#\s]+)/) || [])[1];
  let target = hash;
  if (invite && !seats.get(id)) {
    await joinInvite(id, decodeURIComponent(invite));
    input.value = '';
    // Not taken for want of an answer: the address keeps the invite (see `joining`).
    if (joining && joining.id === id) target = inviteAddress(id, joining.invite);
  } else if (invite) {
    const held = seats.get(id);
    if (held.invite !== decodeURIComponent(invite)) landingNotice = 'You already play in this game: the invite link is for your friend. Send it to them; opening it here does not take the other seat.';
  }
  if (location.hash === target) {
    // The game shown already (or the id that was not found, typed again): open it afresh.
    if (game) game.close();
    game = null;
    route();
  } else location.hash = target;
}

function started(r, imported = false) {
  keepSeat(r.id, { token: r.token, seats: r.seats || [r.seat] });
  if (r.invite && r.invite.url) {
    // The server's link is `/?game=…#invite=…`: its query and fragment on the page's own
    // address, which keeps a proxy's path prefix.
    const link = new URL(r.invite.url, location.href);
    const url = pageLink(link.search + link.hash);
    storage.set(`pussa.invite.${r.id}`, url);
  }
  pending = { id: r.id, state: r.state, played: imported ? [] : r.played || [], fresh: !imported };
  location.hash = `#/game/${encodeURIComponent(r.id)}`;
}

// ---------------------------------------------------------------------------------------------
// The game view

class GameView {
  constructor(id) {
    this.id = id;
    this.seat = seats.get(id); // {token, seats}
    this.mine = new Set((this.seat?.seats || []).map(sideIndex));
    this.state = null;
    this.shownPly = -1;
    this.shownRounds = 0;
    this.viewPly = null; // the earlier ply shown (null: the live position)
    this.hintInfo = null; // the hint of the live position: {key, text, move}
    this.hintPending = false; // a hint asked for and not yet answered
    this.positions = null; // GET …/positions, for replaying an earlier move's animation
    this.traces = new Map(); // ply → the trace of a move this page was told (an answer's `played`)
    this.busy = false; // waiting for the server or animating
    this.chain = Promise.resolve();
    this.closed = false;
    this.board = new Board($('#board-host'), {
      onPlay: (l) => this.play(l),
      // A hole of one's own that cannot be played now is handled as its key: during a move's
      // animation the animation ends and the hole is played (or refused with the reason);
      // otherwise the reason is given at once ("It is not your move…", "E is empty.").
      onOther: (l) => {
        if (this.mine.has(holeIndex(l) < 7 ? 0 : 1)) this.key(l);
      },
    });
    this.animator = new Animator(this.board, $('#caption'));
    this.animator.sound = sounds;
    this.animator.speed = storedSpeed() || defaultSpeed();
    $('#speed').value = this.animator.speed;
    const near = this.mine.size === 1 ? [...this.mine][0] : 0;
    this.board.setView(near);
    this.flipped = false;
    this.setBusy(false);
  }

  close() {
    this.closed = true;
    if (this.socket) this.socket.close();
    this.animator.skip();
    // The game's round or result dialog goes with it (Back, a link, another game opened).
    dismissDialog();
    // So does a "Resign this game?" left open: it belongs to this game's Resign.
    $('#resign-confirm').hidden = true;
    // The board's listeners go too (nothing keeps the old board alive).
    this.board.destroy();
  }

  /**
   * Whether this view was closed or replaced (another game opened): what it is still told
   * (a move's answer, a hint, a refusal) is not drawn, since the page shows another game.
   */
  gone() {
    return this.closed || game !== this;
  }

  /** A notice about this game, unless the page has gone on to another (see `gone`). */
  note(text, kind) {
    if (!this.gone()) notice(text, kind);
  }

  get kind() {
    return this.state?.opponent?.kind || 'hotseat';
  }

  names() {
    const s = this.state;
    if (!s) return ['South', 'North'];
    return [0, 1].map((i) => {
      const seat = s.seats?.[SIDE_LETTER[i]];
      if (this.kind === 'hotseat') return SIDE_NAME[i];
      if (this.mine.has(i)) return 'You';
      if (seat?.kind === 'computer') return 'Computer';
      if (this.kind === 'online' && this.mine.size) return seat?.taken ? 'Friend' : 'Friend (invited)';
      return SIDE_NAME[i];
    });
  }

  setBusy(b) {
    this.busy = b;
    this.board.busy = b;
    // A view closed meanwhile (an answer that came after another game was opened) never
    // paints over the game shown: the page's controls are the next game's.
    if (this.closed) return;
    document.body.dataset.busy = b ? '1' : '0';
    $('#skip').disabled = !this.animator.running;
    if (this.state) this.renderActions();
    this.updateTitle();
  }

  /**
   * The tab's title: "Your move · pussa: …" while this page is in the background and the
   * friend's move has made it this player's turn (online), as lichess does; the game's own
   * title again once the page is looked at.
   */
  updateTitle() {
    if (!this.baseTitle || this.closed || game !== this || (!this.behind && $('#view-game').hidden)) return;
    const yours = document.hidden && this.kind === 'online' && !this.busy && this.myTurn();
    if (this.behind) {
      // The rules or help read in front of the game: their own title, with the same notice.
      this.renderBehind();
      const base = document.title.replace(/^Your move · /, '');
      document.title = yours ? `Your move · ${base}` : base;
      return;
    }
    document.title = yours ? `Your move · ${this.baseTitle}` : this.baseTitle;
  }

  /**
   * The bar over the rules or help read in front of this game (kept open behind them): the
   * game's turn line ("Your move …", "Friend to move …", the result) and "Back to your game".
   * Hidden while the game itself is shown.
   */
  renderBehind() {
    const bar = $('#game-behind');
    const shown = !!this.behind && !this.closed && game === this && !!this.state;
    bar.hidden = !shown;
    if (!shown) return;
    const s = this.state;
    const title = TITLES[s.game] || s.title || s.game;
    const what = `${title}${s.mode === 'match' ? ' match' : ''}${this.kind === 'online' ? ' online' : ''}`;
    const stay = this.kind === 'online' && this.mine.size && !s.ended && !s.match_over ? ' (you are still at the table: your friend does not see you away)' : '';
    const turn = $('#turn').textContent.trim();
    // What waits at the table besides the turn: the friend's offers, a claim, a summary.
    const waiting = [];
    for (const [bar, text] of [['#offer-bar', '#offer-text'], ['#offer-bar2', '#offer2-text'], ['#claim-bar', '#claim-text']]) {
      if (!$(bar).hidden) waiting.push($(text).textContent.trim());
    }
    if (this.dialogLater) waiting.push('A summary of the round waits for you.');
    const more = waiting.length ? ` ${waiting.join(' ')}` : '';
    $('#game-behind-text').textContent = this.mine.size
      ? `Your ${what} game is open${stay}: ${turn}${more}`
      : `The ${what} game you are watching is open: ${turn}`;
    $('#game-behind-link').textContent = this.mine.size ? 'Back to your game' : 'Back to the game';
    bar.classList.toggle('yours', this.mine.size > 0 && !this.busy && this.myTurn() && this.kind !== 'hotseat');
    $('#game-behind-link').href = `#/game/${encodeURIComponent(this.id)}`;
  }

  /** The game shown again after the rules or help read in front of it. */
  resume(moveFocus) {
    this.behind = false;
    $('#game-behind').hidden = true;
    if (this.baseTitle) document.title = this.baseTitle;
    this.updateTitle();
    // A round's or game's summary that came meanwhile opens now.
    if (this.dialogLater) {
      this.dialogLater = false;
      if (!$('#round-dialog').open) $('#round-dialog').showModal();
      $('#round-dialog').scrollTop = 0;
    }
    if (moveFocus) this.placeFocus();
  }

  async start(initial) {
    let delay = 1000;
    for (;;) {
      const r = await this.startOnce(initial);
      if (r !== 'retry' || this.closed) return;
      // The server could not be reached (or failed): try again, as the live socket does.
      await new Promise((res) => setTimeout(res, delay));
      delay = Math.min(delay * 2, 8000);
      if (this.closed) return;
    }
  }

  /** Opens the game once: undefined when done (shown, or refused for good), 'retry' otherwise. */
  async startOnce(initial) {
    try {
      let st;
      let played = [];
      if (initial && initial.id === this.id) {
        st = initial.state;
        played = initial.played || [];
      } else {
        st = await api.state(this.id);
      }
      if (this.closed) return;
      if (played.length && initial.fresh && played[0].ply === 1) {
        // The computer opened the game: show its move from the opening layout.
        this.state = { ...st, ply: 0 };
        this.shownPly = 0;
        this.board.render(modelOf(st.start));
        this.setHeader(st);
        this.enqueue(st, played);
      } else {
        this.shownRounds = (st.rounds || []).length;
        this.show(st);
        this.resumeRound(st);
        this.explainLast(st);
        // A link to a move (`#/game/ID/PLY`) opens at that move (the live ply or beyond: the
        // game as it is now).
        if (this.linkPly !== null && this.linkPly !== undefined) this.drawAt(this.linkPly);
      }
      this.linkPly = null;
      if (this.retrying) {
        this.retrying = false;
        notice('The server answers again.', 'info');
      }
      $('#view-game').hidden = false;
      if (this.takeFocus) this.placeFocus();
    } catch (e) {
      if (this.closed) return undefined;
      $('#view-game').hidden = true;
      const transient = e instanceof ApiError && (e.status === 0 || e.status >= 500);
      if (transient) {
        this.retrying = true;
        notice(`Cannot open the game: ${e.message}. Trying again…`);
        document.title = 'pussa: cannot open the game';
        return 'retry';
      }
      if (e.status === 404) {
        // A page of its own: what was asked for, the id to correct, the ways on.
        $('#missing-text').textContent = `No game with id “${shorten(this.id)}”. Check the id (or paste the whole link) and open it again.`;
        $('#missing-id').value = this.id;
        $('#view-missing').hidden = false;
        if (this.takeFocus) focusHeading($('#view-missing h1'));
      } else notice(`Cannot open the game: ${e.message}`);
      document.title = e.status === 404 ? 'pussa: no such game' : 'pussa: cannot open the game';
      return undefined;
    }
    this.socket = new GameSocket(
      this.id,
      (m) => this.onSocket(m),
      (status, reason) => this.onStatus(status, reason),
      this.seat?.token,
      () => this.seatLost(),
    );
  }

  /**
   * The server refused this browser's seat token for the game (a stale or wrong seat: the
   * database it was taken in is gone, or the token was changed by hand): the server counts
   * this page as a watcher, so the page says so, stops offering moves and forgets the seat, as
   * on lichess a page without the player's session is a spectator's view.
   */
  seatLost() {
    if (this.closed || !this.seat) return;
    seats.remove(this.id);
    this.seat = null;
    this.mine = new Set();
    this.unsent = null;
    this.connNotice = null;
    notice("This browser's seat in this game is no longer valid (the server does not know its token): you are watching this game.");
    const redraw = () => {
      if (!this.closed && game === this && this.state) this.show(this.state);
    };
    if (this.busy) this.chain = this.chain.then(redraw);
    else redraw();
  }

  /**
   * The focus once the game is shown (it never stays on the page left, or on nothing): a
   * playable hole for a keyboard player whose move it is, else the invite's Copy button while
   * the friend is awaited, else the game's heading.
   */
  placeFocus() {
    if (this.closed || game !== this) return;
    const a = document.activeElement;
    if (a && this.board.svg.contains(a)) return;
    if (!$('#invite-box').hidden) {
      $('#copy-invite').focus({ preventScroll: true });
      return;
    }
    const hole = keyboardUser && this.myTurn() && !this.busy ? this.board.svg.querySelector('.hole.legal') : null;
    if (hole) hole.focus({ preventScroll: true });
    else focusHeading($('#game-title'));
  }

  /**
   * The focus after the round's or game's dialog closed: a playable hole, else Play again (or
   * Rematch), else the turn line with the result.
   */
  afterDialog() {
    if (this.closed || game !== this) return;
    const hole = this.board.svg.querySelector('.hole.legal');
    if (hole) hole.focus();
    else if (!$('#again').hidden && !$('#again').disabled) $('#again').focus();
    else focusHeading($('#turn'));
  }

  /**
   * A match opened (a reload, a link) just after a round ended, before its players moved in the
   * next one: the round's summary shows again, and screen readers are told the new layout.
   */
  resumeRound(s) {
    const rounds = s.rounds || [];
    if (s.mode !== 'match' || s.match_over || s.ended || !rounds.length || !this.mine.size) return;
    const last = rounds[rounds.length - 1];
    if (last.round !== s.round - 1) return;
    if ((s.moves || []).some((m) => m.round === s.round && this.mine.has(sideIndex(m.side)))) return;
    this.roundDialog([last], s);
    this.announce(`${roundNews([last], s, this.names(), false, (ply) => this.traceOf(ply))} ${$('#turn').textContent}`);
  }

  /**
   * A game opened with moves played already (a reload, Back then Forward, a link): the caption
   * tells the last move(s) as the page told them when they were played (this player's last
   * move and the replies after it; a watcher's or one-screen game's: the last move), from the
   * server's stored traces (`GET …/positions`), and Replay (R) plays them again.
   */
  async explainLast(s) {
    if (!s.ply || !(s.moves || []).length) return;
    let pos;
    try {
      pos = await api.positions(this.id);
    } catch {
      return; // the board is right; only the words are missing
    }
    // Anything shown meanwhile (a move, a resync, a key's message) is newer than this.
    const same = () => !this.closed && game === this && this.state && this.state.id === s.id && this.state.ply === s.ply;
    if (!same() || pos.ply !== s.ply || this.busy || this.replayable || $('#caption').textContent) return;
    this.positions = pos;
    const moves = pos.moves || [];
    let k = moves.length - 1;
    if (this.mine.size === 1) {
      let j = k;
      while (j >= 0 && !this.mine.has(sideIndex(moves[j].side))) j--;
      if (j >= 0) k = j;
    }
    const played = moves.slice(k);
    const prev = k === 0 ? pos.start : moves[k - 1];
    if (!played.length || !prev || !prev.board || played.some((p) => !p.trace)) return;
    $('#caption').textContent = played.map((p) => summary(p, this.names())).join(' ');
    this.replayable = {
      before: { board: [...prev.board], closed: closedBools(prev.closed), stores: [...prev.stores] },
      played,
      state: this.state,
    };
    this.renderActions();
  }

  /**
   * Tells screen readers `text` (the polite live region); the caption showing the same words is
   * hidden from them meanwhile, so browse mode does not read it twice.
   */
  announce(text) {
    if (this.gone()) return;
    this.say(text);
    const cap = $('#caption');
    cap.dataset.said = cap.textContent;
    cap.setAttribute('aria-hidden', 'true');
  }

  /**
   * Tells screen readers `text` through the polite live region, the caption left as it is: a
   * key taken ("You play A.") before the answer is shown, a claim becoming possible. The same
   * words twice in a row (a key refused again) are a change too, so they are read again.
   */
  say(text) {
    if (this.gone()) return;
    const live = $('#announce');
    live.textContent = live.textContent === text ? `${text}\u00a0` : text;
  }

  /**
   * What became of a key, click or request the board does not show: the reason a key is
   * refused ("E is empty.", "It is not your move: …"), a takeback proposed. It goes on the
   * caption and is said to screen readers, which do not read the caption as it changes.
   */
  tell(text) {
    if (this.gone()) return;
    $('#caption').textContent = text;
    this.announce(text);
  }

  /**
   * The live connection opened ('open'), was lost ('closed'), or was refused by the server
   * ('refused', with its reason: too many watchers, the address's share, the server full),
   * which the page says instead of 'reconnecting…' alone; it keeps trying meanwhile.
   */
  onStatus(status, reason) {
    if (this.closed) return;
    const live = $('#live');
    if (status === 'refused') {
      live.textContent = 'not connected';
      live.className = 'live closed';
      this.connected = false;
      this.connNotice = `The server refused this page's live connection (moves are not shown as they are played; trying again): ${reason}`;
      notice(this.connNotice);
      if (this.state && !this.busy) this.renderActions();
      return;
    }
    live.textContent = status === 'open' ? 'live' : 'reconnecting…';
    live.className = `live ${status}`;
    this.connected = status === 'open';
    // On (re)connecting the server sends the state: onSocket catches up with anything missed.
    if (status === 'open') {
      // A message about the lost connection is stale now (unless another replaced it).
      this.clearConnNotice();
      // A move that could not be sent goes again (at the ply it was made for: never twice).
      if (this.unsent) setTimeout(() => this.resend(), 300);
      // So does the seat of an invite that could not be taken.
      if (joining && joining.id === this.id) setTimeout(retryJoin, 300);
    }
    // The turn line says "Reconnecting…", and what needs the connection (a claim) waits for it.
    if (this.state && !this.busy) {
      this.renderTurn();
      this.renderActions();
    }
  }

  /**
   * Shows `text`, a notice about the lost connection: it goes once the socket reconnects
   * (`clearConnNotice`), and, after a drop too short for the socket to notice (under its 5 s
   * silence limit), as `until` says:
   * - 'reach' (a request that found no server): once a request reaches the server again. The
   *   page asks for `api/meta` every `REACH_CHECK_MS` while the notice stands (the first time
   *   `REACH_CHECK_MS` after it was shown), and the socket checks its connection now;
   * - 'live' (the server refused because it does not hear this page, a claim): once the socket
   *   is known live, a ping sent after the notice answered (the server has heard the page
   *   then), and no sooner than `NOTICE_MIN_MS` after it was shown, so that it is read;
   * - null (a kept move): only on reconnecting, or once the move is played (`clearUnsentNote`).
   *
   * A notice that another replaced meanwhile is left alone.
   */
  connNote(text, until = 'reach') {
    if (this.gone()) return;
    this.connNotice = text;
    notice(text);
    if (until === 'reach') {
      this.socket?.confirm();
      this.checkReach(text);
    } else if (until === 'live' && this.socket) {
      const shown = Date.now();
      this.socket.confirm().then(() => {
        setTimeout(() => {
          if (!this.closed && this.connNotice === text) this.clearConnNotice();
        }, Math.max(0, shown + NOTICE_MIN_MS - Date.now()));
      });
    }
  }

  /**
   * While the notice `text` stands (a request found no server), asks the server for `api/meta`
   * every `REACH_CHECK_MS`: the first answer clears the notice. A drop shorter than the
   * socket's silence limit is seen this way too, whatever the socket's pings showed.
   */
  checkReach(text) {
    clearTimeout(this.reachTimer);
    this.reachTimer = setTimeout(async () => {
      if (this.closed || this.connNotice !== text) return;
      let reached = false;
      try {
        await api.reach();
        reached = true;
      } catch {
        /* still no server: asked again */
      }
      if (this.closed || this.connNotice !== text) return;
      if (reached) this.clearConnNotice();
      else this.checkReach(text);
    }, REACH_CHECK_MS);
  }

  /** The notice about the lost connection goes, unless another notice replaced it meanwhile. */
  clearConnNotice() {
    const text = this.connNotice;
    this.connNotice = null;
    if (text && !$('#notice').hidden && $('#notice-text').textContent === text) notice(null);
  }

  onSocket(m) {
    if (this.closed) return;
    if (m.type === 'presence' && m.present) {
      // Which players have the game open now (online games: the friend may have left).
      const before = this.present;
      this.present = m.present;
      this.watchers = m.watchers;
      this.awayMs = m.away_ms || {};
      this.awayAt = Date.now();
      if (m.claim_after_ms !== undefined) this.claimAfter = m.claim_after_ms;
      this.renderWatchers();
      if (this.state && this.mine.size && this.kind === 'online' && !this.state.match_over && before) {
        // Screen readers are told when the friend leaves or comes back, as when they join.
        for (const i of [0, 1]) {
          const side = SIDE_LETTER[i];
          // A friend who just took their seat is told by "Your friend has joined the game";
          // their page connects a moment after the join, and that gap is no leaving.
          if (this.joining?.has(side)) {
            if (m.present[side]) this.joining.delete(side);
            continue;
          }
          if (this.mine.has(i) || before[side] === m.present[side]) continue;
          const seat = this.state.seats?.[side];
          if (!seat?.taken) continue;
          $('#announce').textContent = m.present[SIDE_LETTER[i]]
            ? 'Your friend is back on the game page.'
            : 'Your friend has left the game page; the move waits for them.';
        }
      }
      if (this.state && !this.busy) {
        this.renderTurn();
        this.renderActions();
        if (!this.viewing()) this.renderScore();
      }
      return;
    }
    if (m.type === 'rematch' && m.id) {
      this.rematchStarted(m.id);
      return;
    }
    if (m.type === 'update' && m.state) {
      // An update carries what changed (the new moves are `played`): the whole state is made
      // from the last one this connection got. One that does not follow on is fetched whole.
      const state = this.followOn(m);
      if (!state) {
        this.resync();
        return;
      }
      m = { ...m, state };
    }
    if (m.state) {
      this.latest = m.state;
      // Ordering for `request`: an answer older than a state the socket brought is not shown.
      this.stateMessages = (this.stateMessages || 0) + 1;
    }
    // Against the computer the socket brings your move as soon as it is stored, then the
    // reply: while the move's own answer (both of them) is awaited, it tells them together.
    if (m.type === 'update' && this.awaitingReply) {
      this.heldUpdate = true;
      return;
    }
    if (m.type === 'state' && m.state) {
      this.offersSeen = m.state.offers || null;
      this.chain = this.chain.then(() => {
        // The game changed unless the position, the moves, the end and the offers are all the
        // same: the ply count alone may have come back to the same number (moves taken back
        // and others played meanwhile, from another window).
        const changed = !this.state || m.state.ply !== this.shownPly || !!m.state.ended !== !!this.state.ended ||
          JSON.stringify(m.state.offers || null) !== JSON.stringify(this.state.offers || null) ||
          !sameMoves(m.state, this.state);
        if (changed && !this.busy) {
          // The moves both have in common; those after it were taken back, the rest missed.
          const common = this.state && m.state.id === this.state.id ? commonMoves(m.state, this.state, this.shownPly) : m.state.ply;
          const undone = this.state && m.state.id === this.state.id ? Math.max(0, this.shownPly - common) : 0;
          this.show(m.state);
          // A resync after a lost connection: say what was missed (the caption still told an
          // older move).
          if (m.state.ply - common > 0 || undone > 0) this.tellMissed(m.state, m.state.ply - common, undone);
        }
      });
    } else if (m.type === 'update' && m.state) {
      // Offers as the last message left them (the queue may show older states still).
      this.tellOfferFate(m, this.offersSeen !== undefined ? this.offersSeen : this.state?.offers);
      this.offersSeen = m.state.offers || null;
      if (m.joined && this.mine.size) notice('Your friend has joined the game.', 'info');
      // Who joined has the game open (their presence may come a moment later).
      if (m.joined && this.present) this.present = { ...this.present, [m.joined]: true };
      if (m.joined) (this.joining ||= new Set()).add(m.joined);
      // Online, the friend's move is shown at once: the animation running (your own move's)
      // ends now rather than keeping theirs waiting behind it.
      if (this.kind === 'online' && this.animator.running) this.animator.skip();
      this.enqueue(m.state, m.played, m.undone, true);
    }
  }

  /**
   * Whether the played move `p` (of a state the server sent) is one of this page's seat that
   * this window did not send: the same seat played it from another window (or tab).
   */
  fromOtherWindow(p) {
    return this.kind === 'online' && this.mine.has(sideIndex(p.side)) && !this.sentHere(p);
  }

  /** Whether the played move `p` was sent from this window. */
  sentHere(p) {
    return this.mine.has(sideIndex(p.side)) && !!this.sentMoves?.has(`${p.ply - 1}:${p.move}`);
  }

  /**
   * The whole state an `update` leads to: the last state this connection got, its `moves` and
   * `rounds` cut to `moves_kept`/`rounds_kept`, then the moves `played` and the `rounds_added`;
   * null when it does not follow on from that state (docs/api.md, WebSocket).
   */
  followOn(m) {
    const s = m.state;
    if (Array.isArray(s.moves)) return s;
    const base = this.latest;
    const played = m.played || [];
    const kept = m.moves_kept;
    const roundsKept = m.rounds_kept;
    if (!base || base.id !== s.id || !Array.isArray(base.moves) || !Array.isArray(base.rounds)) return null;
    if (!(kept <= base.moves.length) || !(roundsKept <= base.rounds.length) || kept + played.length !== s.ply) return null;
    const moves = base.moves
      .slice(0, kept)
      .concat(played.map((p) => ({ ply: p.ply, round: p.round, side: p.side, move: p.move, board: p.board, closed: p.closed, stores: p.stores, taken: p.taken, position: p.position })));
    return { ...s, moves, rounds: base.rounds.slice(0, roundsKept).concat(m.rounds_added || []) };
  }

  /** Fetches the whole state (an update did not follow on) and shows it as a connection's. */
  async resync() {
    if (this.resyncing) return;
    this.resyncing = true;
    try {
      const st = await api.state(this.id);
      if (!this.closed) this.onSocket({ type: 'state', state: st });
    } catch {
      // The next connection's state catches up.
    } finally {
      this.resyncing = false;
    }
  }

  /**
   * The caption and the screen reader tell the `missed` latest moves of `s`, after the
   * `undone` moves shown before that were taken back meanwhile.
   */
  tellMissed(s, missed, undone = 0) {
    const moves = missed > 0 ? (s.moves || []).slice(-missed) : [];
    if (!moves.length && !undone) return;
    const names = this.names();
    const said = moves
      .map((m) => {
        const where = this.fromOtherWindow(m) ? 'from your other window' : '';
        return m.trace ? summary(m, names, where) : `${names[sideIndex(m.side)]} played ${m.move}${where ? ` ${where}` : ''}.`;
      })
      .join(' ');
    const back = undone ? `${undone} move${undone === 1 ? ' was' : 's were'} taken back.` : '';
    const text = `While the connection was down: ${[back, said].filter(Boolean).join(' ')}`;
    $('#caption').textContent = text;
    this.announce(`${text} ${$('#turn').textContent}`);
    // The hole just played flashes once.
    const last = moves[moves.length - 1];
    const g = last && this.board.svg.querySelector(`.hole[data-hole="${last.move}"]`);
    if (g) {
      g.classList.remove('missed');
      void g.getBoundingClientRect();
      g.classList.add('missed');
    }
  }

  renderWatchers() {
    const w = $('#watchers');
    const n = this.watchers || 0;
    w.hidden = this.kind !== 'online' || !n;
    w.textContent = `${n} watching`;
    w.title = `${n} ${n === 1 ? 'person is' : 'people are'} watching this game`;
  }

  /** Shows `state` after the page's queue (`live`: a live update of the socket). */
  enqueue(state, played, undone, live = false) {
    this.chain = this.chain.then(() => this.apply(state, played, undone, live)).catch((e) => {
      console.error(e);
      notice(`Display error: ${e.message}`);
      // Whatever went wrong in the drawing, the game goes on from the server's state.
      try {
        if (!this.closed) this.show(state);
      } catch (again) {
        console.error(again);
      }
    });
    return this.chain;
  }

  async apply(state, played, undone, live = false) {
    if (this.closed) return;
    if (!undone && played && state.ply <= this.shownPly && state.id === this.state?.id) return;
    // A new move snaps back to the live position (the animation starts from it).
    if (this.viewing()) this.leavePast();
    // Online (and for a watcher), a round's summary left open closes when the next round's
    // first move arrives: nothing modal stays over a game that goes on.
    if ((this.kind === 'online' || !this.mine.size) && played && played.length && !undone && $('#round-dialog').open && !this.state?.match_over) {
      $('#round-dialog').close();
    }
    const animate = !undone && played && played.length && played[0].ply === this.shownPly + 1;
    // A live update that follows on right after the last one told (a burst, `CATCH_UP_MS`): the
    // caption and screen readers tell the moves of both, not only the last. Only moves played
    // elsewhere (the friend's, the other window's) in an online game or for a watcher are told
    // so: a move clicked here was heard as it was clicked (against the computer, with its reply).
    const elsewhere =
      live && (this.kind === 'online' || !this.mine.size) && !undone && played?.length > 0 && !played.some((p) => this.sentHere(p));
    const last = this.lastTold;
    const carry =
      elsewhere && last && last.id === state.id && last.ply === played[0].ply - 1 && Date.now() - last.at < CATCH_UP_MS ? last.text : '';
    this.lastTold = null;
    this.replayable = null;
    // The moves up to a round's end told with its summary (summaryFirst), not told again.
    this.toldThrough = null;
    if (animate) {
      // Kept so the last move(s) can be watched again.
      this.replayable = { before: cloneModel(this.board.model), played, state };
      if (this.animator.speed !== 'off' || this.holdsForSummary(played)) await this.animatePlayed(state, played);
      else sounds.playMoves(played.map((p) => p.trace || []));
    }
    // A move of this seat that came live and was not sent from here: from the other window.
    const tellMove = (p) => summary(p, this.names(), live && this.fromOtherWindow(p) ? 'from your other window' : '');
    let said = '';
    if (undone) said = `Took back ${undone} move${undone === 1 ? '' : 's'}.`;
    else if (played && played.length) said = [carry, ...played.map(tellMove)].filter(Boolean).join(' ');
    if (said) $('#caption').textContent = said;
    const ended = undone ? [] : (state.rounds || []).slice(this.shownRounds);
    this.show(state);
    // One announcement per change for screen readers (the captions during the animation are not
    // read one by one), with what a round's end changed (the dialog's news).
    const news = roundNews(ended, state, this.names(), false, (ply) => this.traceOf(ply));
    const told = this.toldThrough;
    const heard = told === null || undone ? said : played.filter((p) => p.ply > told).map(tellMove).join(' ');
    if (said) this.announce(`${heard ? `${heard} ` : ''}${news ? `${news} ` : ''}${$('#turn').textContent}`);
    if (said && elsewhere) this.lastTold = { id: state.id, ply: state.ply, text: said, at: Date.now() };
  }

  /**
   * Whether nobody looks at the board: the tab is in the background, or the rules or help are
   * shown over the game (the game stays open behind them). A move is then not animated: the
   * page shows its result at once, so the title and the way back tell the turn without waiting
   * for an animation nobody sees (background tabs throttle its timers too). It can be watched
   * again with Replay.
   */
  unseen() {
    return document.hidden || !!this.behind;
  }

  /** Animates `played` (moves in order, each with its trace) from the board shown now. */
  async animatePlayed(state, played) {
    this.setBusy(true);
    this.board.setLegal([]);
    this.animator.running = true;
    $('#skip').disabled = false;
    if (this.unseen()) this.animator.skip();
    try {
      for (const p of played) {
        if (this.closed) return;
        if (p.trace) this.traces.set(p.ply, p.trace);
        const before = this.board.model;
        const who = this.names()[sideIndex(p.side)];
        this.renderMoves(state, p.ply);
        $('#turn').textContent = `${who === 'You' ? 'You play' : `${who} plays`} ${p.move}.`;
        this.animator.names = this.names();
        this.animator.onStep = this.scoreFollower(state, p);
        await this.animator.play(before, p.trace || [], SIDE_NAME[sideIndex(p.side)], state.game);
        this.board.render({ board: [...p.board], closed: closedBools(p.closed), stores: [...p.stores] });
        this.renderScore(scoreAt(state, p.ply));
        if (p !== played[played.length - 1] && endsRound(p)) await this.summaryFirst(state, played, p);
      }
    } finally {
      // One Skip skips every move of the answer (your move and the computer's reply).
      this.animator.endSkip();
      this.animator.onStep = null;
    }
  }

  /**
   * Against the computer, an answer that ends a round and goes on into the next (the computer
   * opens it) stops at the round's end until its summary is closed: the next round starts once
   * the player has seen how it is laid out.
   */
  holdsForSummary(played) {
    return this.kind === 'computer' && this.mine.size > 0 && played.slice(0, -1).some(endsRound);
  }

  /** Shows the summary of the round move `p` ended and waits until it is closed. */
  async summaryFirst(state, played, p) {
    if (!this.holdsForSummary(played) || this.closed) return;
    const ended = (state.rounds || []).filter((r) => r.round === p.round);
    if (!ended.length) return;
    this.shownRounds = Math.max(this.shownRounds, (state.rounds || []).findIndex((r) => r.round === p.round) + 1);
    // The caption tells the answer up to the round's end (the rest is told once shown).
    const upToEnd = played
      .slice(0, played.indexOf(p) + 1)
      .map((m) => summary(m, this.names()))
      .join(' ');
    $('#caption').textContent = upToEnd;
    // A key typed during the animation belonged to the round that ended.
    if (this.queuedKey !== undefined && this.queuedKey !== null) {
      this.queuedKey = null;
      $('#caption').textContent = 'The key typed during the animation was not played: the round ended.';
    }
    $('#turn').textContent = `Round ${p.round} is over: round ${p.round + 1} starts when you close its summary.`;
    // The summary of this round only, as its end left the match: the rest of the answer (which
    // may end the next round, and the match, too) has its own summary once it is shown.
    this.roundDialog(ended, state, true);
    // Screen readers hear the answer up to the round's end once (the player's own move too),
    // and the moves after it once they are shown.
    this.announce(`${upToEnd} ${roundNews(ended, state, this.names(), true, (ply) => this.traceOf(ply))}`);
    this.toldThrough = p.ply;
    const d = $('#round-dialog');
    await new Promise((resolve) => {
      const timer = setInterval(() => this.closed && done(), 250);
      function done() {
        clearInterval(timer);
        d.removeEventListener('close', done);
        resolve();
      }
      d.addEventListener('close', done);
    });
    // The rest of the answer animates again (a skip asked for before the round's end is over).
    this.animator.endSkip();
  }

  /** Plays the animation of the last move(s) again, then shows the server's state. */
  async replay() {
    if (this.viewing()) return this.replayPast();
    const r = this.replayable;
    if (!r || this.busy || r.state.ply !== this.shownPly) return;
    const speed = this.animator.speed;
    if (speed === 'off') this.animator.speed = 'normal';
    this.board.render(cloneModel(r.before));
    this.chain = this.chain.then(async () => {
      try {
        await this.animatePlayed(r.state, r.played);
      } finally {
        this.animator.speed = speed;
        $('#caption').textContent = r.played.map((p) => summary(p, this.names())).join(' ');
        this.show(this.state);
      }
    });
    return this.chain;
  }

  setHeader(s) {
    const title = TITLES[s.game] || s.title || s.game;
    $('#game-title').textContent = `${title}${s.mode === 'match' ? ' match' : ''}`;
    this.baseTitle = `pussa: ${title}`;
    // Behind the rules or help, their page keeps its own title (updateTitle adds the notice).
    if (!this.behind) document.title = this.baseTitle;
    const you = [...this.mine];
    const role =
      this.kind === 'hotseat' && this.mine.size
        ? 'both seats on this screen'
        : you.length
          ? `you play ${SIDE_NAME[you[0]]}`
          : 'watching (read-only)';
    const opp =
      this.kind === 'computer' ? `against the computer (${s.opponent.level})` : this.kind === 'online' ? 'online' : 'same screen';
    $('#game-sub').textContent = `${opp} · ${role} · id ${s.id}`;
    $('#game-rules').href = `#/rules/${encodeURIComponent(s.game)}`;
    $('#game-rules').textContent = `Rules of ${title}`;
    $('#game-help').hidden = this.kind !== 'online';
  }

  viewing() {
    return this.viewPly !== null;
  }

  /** Forgets the earlier position shown (the caller draws the live one). */
  leavePast() {
    this.viewPly = null;
    gameAddress(this.id);
    $('#history-banner').hidden = true;
    document.body.classList.remove('viewing-past');
    delete document.body.dataset.view;
    this.board.render(modelOf(this.state));
  }

  /**
   * Shows the position after ply `ply` (0: before the first move) as the server gave it in the
   * state's move list; the live ply returns to the game. The board does not respond meanwhile.
   */
  viewAt(ply) {
    this.guardFocus(() => this.drawAt(ply));
  }

  drawAt(ply) {
    const s = this.state;
    if (!s || this.closed || this.animator.running) return;
    const moves = s.moves || [];
    const target = Math.max(0, Math.min(ply, s.ply, moves.length));
    if (target >= s.ply) {
      if (this.viewing()) {
        this.leavePast();
        $('#caption').textContent = '';
        this.show(s);
      }
      return;
    }
    if (target > 0 && !moves[target - 1].board) return;
    if (target === 0 && !s.start) return;
    this.viewPly = target;
    const at = target === 0 ? s.start : moves[target - 1];
    this.board.clearMarks();
    this.board.setLegal([]);
    this.board.render({ board: [...at.board], closed: closedBools(at.closed), stores: [...at.stores] });
    const names = this.names();
    // The move named as the move list and records number it ("R2 4. F", "21... g"), not by ply.
    let what;
    if (target === 0) {
      what = 'the start of the game';
      $('#caption').textContent = 'The position before the first move.';
    } else {
      const m = moves[target - 1];
      this.board.mark(holeIndex(m.move), 'last');
      const num = moveNumber(s, target);
      what = num.name;
      const next = moves[target];
      const ended = next && next.round !== m.round;
      const who = names[sideIndex(m.side)];
      $('#caption').textContent =
        `${s.mode === 'match' ? `Round ${num.round}, move ${num.n}` : `Move ${num.n}`}: ${who === 'You' ? 'you' : who} played ${m.move}.` +
        (ended ? ` Round ${m.round} ended; round ${next.round} is laid out.` : '');
    }
    $('#history-text').textContent = `Viewing ${what} — press End to return`;
    if (this.myTurn()) $('#turn').textContent = 'Your move is waiting: press End (or Back to the game) to play.';
    $('#history-banner').hidden = false;
    document.body.classList.add('viewing-past');
    document.body.dataset.view = String(target);
    // The address names the move looked at (a reload or a shared link shows it again).
    gameAddress(this.id, target);
    this.renderMoves(s, Infinity, target);
    this.renderScore(scoreAt(s, target));
    this.renderActions();
    this.renderHint();
  }

  /** One step back or forward (`delta`), from the position shown. */
  step(delta) {
    if (!this.state) return;
    const from = this.viewing() ? this.viewPly : this.state.ply;
    this.viewAt(from + delta);
  }

  /** Plays the animation of the earlier move shown, from the server's replay of the game. */
  async replayPast() {
    const ply = this.viewPly;
    const s = this.state;
    if (!ply || this.busy) return;
    this.chain = this.chain.then(async () => {
      if (this.viewPly !== ply || this.state !== s) return;
      try {
        if (!this.positions || this.positions.ply !== s.ply || this.positions.id !== s.id) {
          this.positions = await api.positions(this.id);
        }
      } catch (e) {
        notice(`Cannot replay the move: ${e.message}`);
        return;
      }
      const p = (this.positions.moves || [])[ply - 1];
      if (!p || this.viewPly !== ply || this.state !== s) return;
      const prev = ply === 1 ? this.positions.start : this.positions.moves[ply - 2];
      const before = { board: [...prev.board], closed: closedBools(prev.closed), stores: [...prev.stores] };
      const speed = this.animator.speed;
      if (speed === 'off') this.animator.speed = 'normal';
      this.setBusy(true);
      this.animator.names = this.names();
      this.animator.onStep = this.scoreFollower(s, p);
      try {
        await this.animator.play(before, p.trace || [], SIDE_NAME[sideIndex(p.side)], s.game);
      } finally {
        this.animator.onStep = null;
        this.animator.running = false;
        this.animator.speed = speed;
        this.setBusy(false);
        if (this.viewPly === ply && this.state === s) this.viewAt(ply);
      }
    });
    return this.chain;
  }

  /** Draws a state exactly as the server sent it (the focus kept in the game: `keepPlace`). */
  show(s) {
    this.guardFocus(() => this.drawState(s));
  }

  /**
   * Runs `draw` (a change of what the game page shows) and keeps a keyboard player's place
   * when the control that had the focus goes meanwhile: see `keepPlace`. Nested draws are
   * checked once, at the end of the outermost.
   */
  guardFocus(draw) {
    if (this.guarding) return draw();
    const a = document.activeElement;
    const mark = a && a !== document.body && $('#view-game').contains(a) ? { el: a, ply: a.classList.contains('mv') ? a.dataset.ply : null } : null;
    this.guarding = true;
    try {
      return draw();
    } finally {
      this.guarding = false;
      if (mark) this.keepPlace(mark);
    }
  }

  /**
   * The focus was on `mark.el` in the game, and that control has gone (hidden, disabled,
   * rebuilt, a hole no longer playable): an offer answered, the invite once the friend joined,
   * a step through the moves. It goes to the same move in the rebuilt move list; else, while an
   * earlier position is shown, to the move shown (or the step forward, at the start); else to a
   * playable hole; else to the turn line. It never falls to the page, where a screen reader
   * starts again from the top.
   */
  keepPlace(mark) {
    if (this.closed || game !== this || $('#view-game').hidden || $('#round-dialog').open) return;
    const el = mark.el;
    // A hole of the live board is `updateLegal`'s (the board turning leaves the focus alone).
    if (el instanceof SVGElement && !this.viewing()) return;
    const a = document.activeElement;
    const gone =
      !el.isConnected || el.disabled || !el.checkVisibility({ visibilityProperty: true }) || (el instanceof SVGElement && !el.hasAttribute('tabindex'));
    if (!(a === null || a === document.body || (a === el && gone))) return;
    let target = mark.ply !== null ? $(`#move-list .mv[data-ply="${mark.ply}"]`) : null;
    if (!target && this.viewing()) target = $('#move-list .mv.cur') || (!$('#hist-next').disabled ? $('#hist-next') : null);
    if (!target && this.myTurn() && !this.busy && !this.viewing()) target = this.board.svg.querySelector('.hole.legal');
    if (target) target.focus({ preventScroll: true });
    else focusHeading($('#turn'));
  }

  drawState(s) {
    // A view closed meanwhile (the player went on to the rematch) never paints over the next.
    if (this.closed || game !== this) return;
    // A finished game reopened by an undo is one to continue again ("Continue your games").
    if (this.mine.size && !s.match_over && !s.ended) seats.markOver(this.id, false);
    this.viewPly = null;
    $('#history-banner').hidden = true;
    document.body.classList.remove('viewing-past');
    delete document.body.dataset.view;
    const newRounds = (s.rounds || []).slice(this.shownRounds);
    const overNow = s.match_over && !(this.state && this.state.match_over && this.shownPly === s.ply);
    this.state = s;
    this.shownPly = s.ply;
    this.shownRounds = (s.rounds || []).length;
    // The address always names the game on screen (a reload, a bookmark or a copied address
    // opens this game).
    if (s.id === this.id) gameAddress(s.id);
    if (this.pendingOffer && !(s.offers && s.offers[this.pendingOffer])) this.pendingOffer = null;
    // A game that ended (resigned, claimed, aborted, drawn…) or went back before the move makes
    // an unsent move moot: its notice goes as when the move is played.
    if (s.id === this.id) {
      this.settleSending(s);
      const moot = s.ended || s.match_over || (this.unsentNote && s.ply < this.unsentNote.ply);
      const passed = !moot && this.unsent && s.ply > this.unsent.ply ? this.unsent : null;
      this.clearUnsentNote(moot ? Infinity : s.ply);
      if (passed) this.explainPassed(passed, s);
    }
    this.setHeader(s);
    // Short names on the board's stores (the scoreboard has the long ones).
    // Same screen: optionally turn the board so the player to move has their row nearest.
    $('#turn-board-field').hidden = !(this.kind === 'hotseat' && this.mine.size);
    let turned = false;
    if (this.kind === 'hotseat' && $('#turn-board').checked && s.to_move && this.board.view !== sideIndex(s.to_move)) {
      this.board.setView(sideIndex(s.to_move));
      turned = true;
    }
    this.board.setNames(this.names().map((n, i) => (n.length > 9 ? n.split(' ')[0] : n) || SIDE_NAME[i]));
    this.board.clearMarks();
    this.board.render(modelOf(s));
    const last = s.moves && s.moves.length ? s.moves[s.moves.length - 1] : null;
    if (last && last.round === s.round) this.board.mark(holeIndex(last.move), 'last');
    this.renderTurn();
    this.renderScore();
    this.renderMoves(s);
    this.animator.running = false;
    this.setBusy(false);
    this.renderActions();
    // A hint asked in this very position stays (with its mark); any other is dropped.
    this.renderHint();
    document.body.dataset.ply = String(s.ply);
    // The board turning to the other player does not move the focus on its own.
    this.updateLegal(turned);
    if (newRounds.length || overNow) {
      // A key typed while the animation ran belongs to the position it was typed in: a round
      // (or the game) that ended meanwhile drops it, and the next round waits for the summary.
      if (this.queuedKey !== undefined && this.queuedKey !== null) {
        this.queuedKey = null;
        $('#caption').textContent = `${$('#caption').textContent} The key typed during the animation was not played: the ${s.match_over || s.ended ? 'game' : 'round'} ended.`.trim();
      }
      this.roundDialog(newRounds, s);
    }
    // A key typed while the animation ran is played now (or refused with the reason).
    if (this.queuedKey !== undefined && this.queuedKey !== null) {
      const k = this.queuedKey;
      this.queuedKey = null;
      setTimeout(() => {
        if (!this.closed && !this.busy && !$('#round-dialog').open) this.key(k);
      }, 0);
    }
  }

  myTurn() {
    const s = this.state;
    return !!s && s.to_move && this.mine.has(sideIndex(s.to_move)) && !s.match_over && !s.ended && !this.waitingForFriend();
  }

  /** Side `i`'s player has taken their seat of this online game but has no page open on it. */
  away(i) {
    const s = this.state;
    if (!s || this.kind !== 'online' || !this.present || s.match_over || s.ended) return false;
    const seat = s.seats?.[SIDE_LETTER[i]];
    return !!seat && seat.kind !== 'computer' && seat.taken && this.present[SIDE_LETTER[i]] === false;
  }

  /** An online game whose second seat is not taken yet: nobody moves until it is. */
  waitingForFriend() {
    const s = this.state;
    return !!s && this.kind === 'online' && !!s.seats && Object.values(s.seats).some((x) => !x.taken);
  }

  updateLegal(keepFocus = false) {
    const active = document.activeElement;
    const inBoard = active && this.board.svg.contains(active);
    const live = this.myTurn() && !this.busy && !this.viewing() && !this.unsent;
    this.board.setLegal(live ? this.state.legal : [], live ? endlessHoles(this.state) : []);
    // A keyboard player whose focus was on the board gets it back on a playable hole.
    const parked = active === document.body || active === $('#game-title') || active === $('#turn');
    if (keyboardUser && !keepFocus && this.myTurn() && !this.busy && !this.viewing() && (inBoard || parked)) {
      const same = active?.dataset?.hole;
      const target = this.state.legal.includes(same) ? same : this.state.legal[0];
      const g = this.board.svg.querySelector(`.hole[data-hole="${target}"]`);
      if (g && document.activeElement !== g && !$('#round-dialog').open) g.focus({ preventScroll: true });
    }
  }

  renderTurn() {
    if (this.gone()) return;
    this.updateTitle();
    const s = this.state;
    const names = this.names();
    const t = $('#turn');
    t.classList.remove('pending', 'offline', 'result');
    t.title = '';
    if (s.match_over || s.round_over || !s.to_move || s.ended) {
      // A result is never cut (style.css): the winner and the score end the sentence.
      t.classList.add('result');
      t.textContent = `${resultText(s, names)}.`;
      t.title = t.textContent;
      return;
    }
    const i = sideIndex(s.to_move);
    if (this.sending) {
      t.classList.add('pending');
      t.textContent = `Sending your move ${this.sending}…`;
      return;
    }
    // A move not sent yet: the board waits for it, and the turn line says so at once (the
    // socket may take seconds to notice a lost connection).
    if (this.kind === 'online' && this.unsent && this.connected !== false) {
      t.classList.add('offline');
      t.textContent = `Your move ${this.unsent.letter} is not sent yet: it is sent when the connection is back.`;
      return;
    }
    // Online, a lost connection is said where the player looks (the small label is easy to miss).
    if (this.kind === 'online' && this.socket && this.connected === false) {
      t.classList.add('offline');
      t.textContent = this.unsent
        ? `Reconnecting… your move ${this.unsent.letter} is sent when the connection is back.`
        : 'Reconnecting… the game shows again when the connection is back.';
      return;
    }
    if (this.waitingForFriend()) {
      t.textContent = this.mine.size
        ? 'Waiting for your friend to join: send them the invite link below.'
        : joining && joining.id === this.id
          ? 'Taking your seat: waiting for the connection to the server…'
          : 'Waiting for the second player.';
      return;
    }
    if (this.myTurn()) {
      t.innerHTML = '';
      if (this.kind === 'hotseat') {
        t.append(h('span', { class: 'you' }, `${SIDE_NAME[i]} to move`), ` (${playableHoles(i, s.legal)})`);
      } else {
        t.append(h('span', { class: 'you' }, 'Your move'), ` (${SIDE_NAME[i]}, ${playableHoles(i, s.legal)})`);
      }
    } else if (s.seats?.[SIDE_LETTER[i]]?.kind === 'computer') {
      t.textContent = 'The computer is thinking…';
    } else if (this.away(i)) {
      // Short enough for one line: the board never moves (the scoreboard marks them away too).
      t.textContent = `${names[i] === SIDE_NAME[i] ? names[i] : `${names[i]} (${SIDE_NAME[i]})`} to move, but away: the move waits for them.`;
    } else {
      t.textContent = names[i] === SIDE_NAME[i] ? `${names[i]} to move.` : `${names[i]} to move (${SIDE_NAME[i]}).`;
    }
    t.title = t.textContent;
  }

  /**
   * Follows a move's animation on the scoreboard: each step of the trace (`onStep` of the
   * animator, with the board model drawn) moves the numbers on from the position before ply
   * `p.ply` of `state`.
   */
  scoreFollower(state, p) {
    const view = scoreAt(state, p.ply - 1);
    let begun = [0, 1].map((i) => view.stores[i] - view.taken[i]);
    return (ev, m) => {
      if (ev.type === 'drop' || ev.type === 'lift') return;
      if (ev.type === 'round_end') {
        const r = (state.rounds || []).find((x) => x.round === view.round);
        const w = r ? sideIndex(r.winner) : -1;
        if (w >= 0) view.won[w]++;
        view.played++;
      }
      if (ev.type === 'refill') {
        view.round = ev.round;
        begun = [...m.stores];
        view.toMove = ev.starter;
      }
      view.stores = [...m.stores];
      view.taken = [0, 1].map((i) => Math.max(0, m.stores[i] - begun[i]));
      view.closed = [...LETTERS].filter((_, i) => m.closed[i]);
      this.renderScore(view, true);
    };
  }

  /**
   * Draws the scoreboard: `view` is `scoreAt` of the position shown (default: the live one);
   * `moving` while a move is animated (nobody is to move then).
   */
  renderScore(view = scoreAt(this.state, this.state.ply), moving = false) {
    const s = this.state;
    const names = this.names();
    const body = $('#scoreboard tbody');
    body.replaceChildren();
    const closed = [0, 0];
    for (const l of view.closed) closed[holeIndex(l) < 7 ? 0 : 1]++;
    const near = this.board.view;
    for (const i of [1 - near, near]) {
      const tr = h(
        'tr',
        { class: !moving && view.toMove && sideIndex(view.toMove) === i ? 'to-move' : '', 'data-side': SIDE_LETTER[i] },
        h(
          // The player's name heads the row: a screen reader names whose number each cell is.
          'th',
          { class: 'who', scope: 'row' },
          // The side's dot stays on the line of the name's first word.
          h('span', { class: 'lead' }, h('span', { class: `dot ${i ? 'n' : 's'}`, 'aria-hidden': 'true' }), names[i].split(' ')[0]),
          names[i].split(' ').slice(1).map((w) => ` ${w}`).join(''),
          // The ▶ drawn before the player to move is words for screen readers.
          !moving && view.toMove && sideIndex(view.toMove) === i ? h('span', { class: 'sr-only' }, ' (to move)') : '',
          this.away(i) ? h('span', { class: 'away', title: 'No page of theirs is open on this game' }, ' away') : '',
          // A rematch: the points each player has from the earlier games of the series.
          s.series && s.series.score
            ? h('span', { class: 'series', title: `Points from the earlier games of this series (this is game ${s.series.game})` }, ` ${points(s.series.score[SIDE_LETTER[i]] || 0)}`)
            : '',
          names[i] !== SIDE_NAME[i] ? h('small', { class: 'muted' }, SIDE_NAME[i]) : '',
        ),
        h('td', { class: 'big', 'data-store': SIDE_LETTER[i] }, view.stores[i]),
        h('td', {}, view.taken[i]),
        h('td', {}, view.won[i]),
        h('td', {}, closed[i]),
      );
      body.append(tr);
    }
    const live = view.round === s.round && view.played === (s.rounds || []).length;
    const circle = live && s.repeats_round && !s.match_over;
    const series = s.series ? ` Game ${s.series.game} of a rematch series: ${names[0]} ${points(s.series.score.S || 0)}, ${names[1]} ${points(s.series.score.N || 0)} so far.` : '';
    $('#round-line').textContent =
      (s.mode === 'match'
        ? `Round ${view.round} · ${view.played} round${view.played === 1 ? '' : 's'} played · ${(SEEDS_PER_HOLE[s.game] || 4)} seeds fill a hole${circle ? ` · starts as round ${s.repeats_round} did` : ''}`
        : 'Single game: whoever takes more seeds wins.') + series;
    $('#round-line').title = circle ? circleText(s) : '';
  }

  /** The move list up to ply `upto`; `at` is the ply to highlight (default: the last one). */
  renderMoves(s, upto = Infinity, at = null) {
    const ol = $('#move-list');
    ol.replaceChildren();
    const moves = (s.moves || []).filter((m) => m.ply <= upto);
    const results = new Map((s.rounds || []).map((r) => [r.round, r]));
    const multi = s.mode === 'match';
    let lastLi = null;
    const rows = numberedMoves(moves);
    rows.forEach((row, k) => {
      const { round, n } = row;
      if (multi && (k === 0 || rows[k - 1].round !== round)) ol.append(h('li', { class: 'round' }, `Round ${round}`));
      // South's moves in the first column, North's in the second (as in records: a round
      // North starts begins `1... a`).
      // Named for screen readers with the move's number and side ("Round 2, move 3, South: C").
      const cell = (m) =>
        h(
          'span',
          {
            class: 'mv',
            role: 'button',
            tabindex: '0',
            'data-ply': m.ply,
            title: `${SIDE_NAME[sideIndex(m.side)]} plays ${m.move}: show the position after it`,
            'aria-label': `${multi ? `Round ${round}, move` : 'Move'} ${n}, ${SIDE_NAME[sideIndex(m.side)]}: ${m.move}`,
          },
          m.move,
        );
      const li = h(
        'li',
        {},
        h('span', { class: 'n' }, row.south ? `${n}.` : `${n}...`),
        row.south ? cell(row.south) : h('span', { class: 'gap', 'aria-hidden': 'true' }, ''),
        row.north ? cell(row.north) : '',
      );
      ol.append(li);
      lastLi = li;
      const r = results.get(round);
      if (r && upto === Infinity && (k === rows.length - 1 || rows[k + 1].round !== round)) {
        ol.append(
          h('li', { class: 'result' }, `${reasonText(r.reason)}: South ${r.taken[0]} – ${r.taken[1]} North, ${winnerText(r.winner, SIDE_NAME)}`),
        );
      }
    });
    if (!moves.length) ol.append(h('li', { class: 'result' }, 'No moves yet.'));
    const box = ol;
    if (at !== null) {
      const cur = ol.querySelector(`.mv[data-ply="${at}"]`);
      if (cur) {
        cur.classList.add('cur');
        cur.setAttribute('aria-current', 'step');
      }
      // Keep the move shown in view inside the list (never scroll the page itself).
      if (box && cur) {
        const top = cur.offsetTop;
        if (top < box.scrollTop || top > box.scrollTop + box.clientHeight - cur.offsetHeight) {
          box.scrollTop = Math.max(0, top - box.clientHeight / 2);
        }
      } else if (box && at === 0) box.scrollTop = 0;
      return;
    }
    const cur = ol.querySelectorAll('.mv');
    if (cur.length) cur[cur.length - 1].classList.add('cur');
    // Keep the newest move in view inside the list (never scroll the page itself).
    if (box && lastLi) box.scrollTop = box.scrollHeight;
  }

  renderActions() {
    if (this.gone()) return;
    this.guardFocus(() => this.drawActions());
  }

  drawActions() {
    const s = this.state;
    const canTakeBack = this.mine.size > 0 && (this.kind === 'computer' || this.kind === 'hotseat');
    $('#undo').hidden = !canTakeBack;
    $('#hint').hidden = !canTakeBack;
    // A finished game keeps its "Play again" after the result dialog is closed; an online one
    // offers its players a rematch (started, or joined once the friend started it).
    const rematchId = this.rematchId || s.rematch || null;
    const online = this.kind === 'online' && this.mine.size > 0;
    // Online, a game nobody joined before it was aborted has no rematch (the server refuses one).
    $('#again').hidden = !(s.match_over && (canTakeBack || (online && !this.waitingForFriend())));
    $('#again').textContent = this.againLabel();
    // The result dialog's button names the same action.
    $('#rematch').textContent = this.againLabel();
    $('#again').disabled = this.busy;
    const watch = $('#watch-rematch');
    watch.hidden = !(rematchId && this.mine.size === 0);
    if (rematchId) watch.href = `#/game/${encodeURIComponent(rematchId)}`;
    $('#keys-player').hidden = this.mine.size === 0;
    $('#keys-watcher').hidden = this.mine.size > 0;
    // Online there is no undo or hint: U proposes a takeback to the friend.
    $('#keys-undo-hint').hidden = online;
    $('#keys-takeback').hidden = !online;
    this.renderOnline();
    // Against the computer, undo takes back your last move (and the replies after it): nothing
    // to do before you have moved.
    const mineMoved = this.kind !== 'computer' || (s.moves || []).some((m) => this.mine.has(sideIndex(m.side)));
    $('#undo').disabled = this.busy || s.ply === 0 || !mineMoved;
    setOff($('#hint'), this.busy || this.hintPending || !this.myTurn() || this.viewing());
    $('#replay').disabled = this.viewing()
      ? this.busy || !this.viewPly
      : this.busy || !this.replayable || this.replayable.state.ply !== s.ply;
    const shown = this.viewing() ? this.viewPly : s.ply;
    $('#hist-first').disabled = shown === 0;
    $('#hist-prev').disabled = shown === 0;
    $('#hist-next').disabled = !this.viewing();
    $('#hist-last').disabled = !this.viewing();
    $('#position').textContent = s.position || '';
    const exp = $('#export');
    exp.href = api.recordUrl(s.id);
    exp.setAttribute('download', `pussa-${s.id}.txt`);
    const inviteUrl = storage.get(`pussa.invite.${s.id}`);
    // The invite stands until the friend has joined, or the game is over (aborted unjoined).
    const waiting = this.kind === 'online' && s.seats && Object.values(s.seats).some((x) => !x.taken) && !s.match_over && !s.ended;
    $('#invite-box').hidden = !(inviteUrl && waiting);
    $('#share-invite').hidden = !navigator.share;
    if (inviteUrl && $('#invite-url').value !== inviteUrl) $('#invite-url').value = inviteUrl;
  }

  /**
   * The players' controls for ending a game: Resign (with a confirm) in every game, as on
   * lichess (against the computer the human resigns, on one screen the player to move); and an
   * online game's own: Abort while allowed, draw offers, takebacks, and claiming the game once
   * the friend has been away long enough.
   */
  renderOnline() {
    const s = this.state;
    const box = $('#online-actions');
    const player = this.mine.size > 0;
    const over = !!(s.match_over || s.ended);
    box.hidden = !player || over;
    const offerBar = $('#offer-bar');
    offerBar.hidden = true;
    $('#offer-bar2').hidden = true;
    clearTimeout(this.claimTimer);
    const claim = $('#claim-bar');
    claim.hidden = true;
    if (box.hidden) {
      $('#resign-confirm').hidden = true;
      return;
    }
    if (this.kind !== 'online') {
      for (const b of ['#abort', '#offer-draw', '#offer-takeback']) $(b).hidden = true;
      $('#resign').hidden = !$('#resign-confirm').hidden;
      $('#resign').disabled = this.busy || !!this.sending;
      $('#resign').title = this.kind === 'hotseat' ? 'The player to move resigns' : '';
      return;
    }
    $('#resign').title = '';
    const me = SIDE_LETTER[[...this.mine][0]];
    const friend = me === 'S' ? 'N' : 'S';
    const waiting = this.waitingForFriend();
    const moved = new Set((s.moves || []).map((m) => m.side));
    const abortable = waiting || !(moved.has('S') && moved.has('N'));
    const offers = s.offers || {};
    $('#abort').hidden = !abortable;
    $('#resign').hidden = abortable || !$('#resign-confirm').hidden;
    $('#offer-draw').hidden = waiting;
    $('#offer-takeback').hidden = waiting;
    const busy = this.busy || !!this.sending;
    for (const b of ['#abort', '#resign', '#offer-draw', '#offer-takeback']) $(b).disabled = busy;
    // My own offer standing: the button withdraws it.
    $('#offer-draw').textContent = offers.draw === me ? 'Cancel the draw offer' : 'Offer a draw';
    $('#offer-takeback').textContent = offers.takeback === me ? 'Cancel the takeback' : 'Propose a takeback';
    $('#offer-takeback').disabled = busy || (offers.takeback !== me && !(s.moves || []).some((m) => m.side === me));
    // The friend's offers, each with its Accept / Decline (a draw offer and a takeback
    // proposal may both stand).
    const theirs = ['draw', 'takeback'].filter((k) => offers[k] === friend);
    theirs.forEach((kind, n) => {
      const bar = n === 0 ? offerBar : $('#offer-bar2');
      bar.hidden = false;
      bar.dataset.offer = kind;
      $(n === 0 ? '#offer-text' : '#offer2-text').textContent = kind === 'draw' ? 'Your friend offers a draw.' : this.takebackText(friend);
    });
    // The friend away long enough: the game may be claimed.
    const i = sideIndex(friend);
    const awayFor = this.away(i) && this.awayMs && this.awayMs[friend] !== undefined
      ? this.awayMs[friend] + (Date.now() - (this.awayAt || Date.now()))
      : null;
    // As on lichess, and as the server rules: a game the friend has not moved in yet can only be
    // aborted (Abort is shown then), never claimed.
    claim.hidden = awayFor === null || waiting || this.claimAfter === undefined || !moved.has(friend);
    if (!claim.hidden) {
      const left = Math.ceil((this.claimAfter - awayFor) / 1000);
      // The server grants a claim only to a player it sees here: while this page reconnects
      // (its turn line says so) the claim waits for the connection, as the countdown does.
      const cut = this.connected === false;
      const ready = left <= 0 && !cut;
      $('#claim-win').hidden = !ready;
      $('#claim-draw').hidden = !ready;
      $('#claim-text').textContent = cut
        ? 'Your friend has left the game: you may claim it once your connection is back.'
        : ready
          ? 'Your friend has left the game. Claim the win, call it a draw, or wait for them.'
          : `Your friend has left the game: you may claim it in ${left} s.`;
      if (!ready) this.claimTimer = setTimeout(() => !this.closed && this.state && this.renderOnline(), 1000);
      // The bar is no live region (its seconds tick): screen readers hear the friend leave
      // (onSocket) and, once, that the game may be claimed.
      if (ready && !this.claimSaid) this.say($('#claim-text').textContent);
      this.claimSaid = ready;
    } else this.claimSaid = false;
    // Read in front of the game (the rules, the help): its bar tells the offers and the claim.
    this.renderBehind();
  }

  /**
   * What accepting the friend's takeback proposal does: the game goes back to just before
   * their last move, so a reply of yours made since goes too (the server takes back 1 ply, or
   * 2 when the other side has replied).
   */
  takebackText(friend) {
    const moves = this.state.moves || [];
    // The server goes back to just before the proposer's last move: every move since goes too.
    let k = moves.length - 1;
    while (k >= 0 && moves[k].side !== friend) k--;
    const n = k >= 0 ? moves.length - k : 1;
    if (n === 1) return 'Your friend proposes a takeback of their last move (1 move).';
    const yours = n === 2 ? 'your reply' : `your ${n - 1} moves since`;
    return `Your friend proposes a takeback of their last move and ${yours} (${n} moves): accepting takes back ${n === 2 ? 'both' : 'all of them'}.`;
  }

  /**
   * The proposer is told what became of their draw offer or takeback proposal when it goes
   * without being accepted: declined by the friend, or dropped because a move was played.
   * `m` is an `update` message; `before` the offers standing before it.
   */
  tellOfferFate(m, before) {
    if (this.kind !== 'online' || !this.mine.size || !before) return;
    const me = SIDE_LETTER[[...this.mine][0]];
    const after = m.state.offers || {};
    for (const kind of ['draw', 'takeback']) {
      if (before[kind] !== me || after[kind] === me) continue;
      const what = kind === 'draw' ? 'draw offer' : 'takeback proposal';
      if (m.offer && m.offer.kind === kind && m.offer.action === 'decline' && m.offer.by !== me) {
        notice(`Your friend declined your ${what}.`, 'info');
      } else if (m.played && m.played.length && !m.state.ended) {
        // A draw offer goes with one's own move (as on lichess): only the friend's move drops it.
        const why = kind === 'draw' ? 'your friend moved instead of answering' : 'a move was played';
        notice(`Your ${what} lapsed: ${why}.`, 'info');
      }
    }
  }

  /**
   * Sends one of the online game's requests (`what` names it in a refusal); shows the answer.
   * An answer is shown only if it cannot be older than what the page shows: a state the
   * WebSocket brought while the request was on its way may be newer (the friend's offer made
   * just after this request was handled), and the update of this request's own change comes
   * on the socket after it anyway. `onRefused(e)`, when given, handles a refusal itself
   * (returns true) before the general notice.
   */
  async request(what, call, onRefused = null) {
    if (!this.seat) return;
    notice(null);
    const heard = this.stateMessages;
    try {
      const r = await call();
      if (r && r.state && (this.stateMessages === heard || !this.socket?.live)) await this.enqueue(r.state, null, r.undone);
      return r || {};
    } catch (e) {
      if (onRefused && onRefused(e)) return;
      // "stale …: the game is at ply 15, not 14; reload the state": the page has the new state
      // already; say it in a player's words.
      const msg = /^stale/.test(e.message) ? `${staleWords(e.message)}; try again if you still want to` : e.message;
      // No answer (the network or the server down): a notice about the lost connection, which
      // goes once the connection is back.
      if (e instanceof ApiError && e.status === 0) this.connNote(`Cannot ${what}: ${msg}`);
      else this.note(`Cannot ${what}: ${msg}`);
      if (this.state) this.renderActions();
    }
  }

  /**
   * Accepts (`accept`) or declines the friend's standing offer of `kind` ('draw' or
   * 'takeback'). An Accept that arrives after the friend withdrew the offer does nothing on
   * the server (409): the player is told so, and the state is read again.
   */
  answerOffer(kind, accept) {
    if (this.kind !== 'online' || !this.seat || (kind !== 'draw' && kind !== 'takeback')) return;
    const what = kind === 'draw' ? 'draw offer' : 'takeback';
    if (!accept) {
      return kind === 'draw' ? this.draw(false) : this.takeback(false);
    }
    const call =
      kind === 'draw' ? () => api.acceptDraw(this.id, this.seat.token) : () => api.acceptTakeback(this.id, this.seat.token, this.state?.ply);
    return this.request(`accept the ${what}`, call, (e) => {
      if (!(e instanceof ApiError && e.status === 409 && /withdrawn/.test(e.message))) return false;
      this.note(
        kind === 'draw'
          ? 'Your friend withdrew the draw offer before your Accept arrived: the game goes on.'
          : 'Your friend withdrew the takeback proposal before your Accept arrived: nothing was taken back.',
        'info',
      );
      this.resync();
      return true;
    });
  }

  resign() {
    $('#resign-confirm').hidden = true;
    return this.request('resign', () => api.resign(this.id, this.seat.token));
  }

  abort() {
    return this.request('abort the game', () => api.abort(this.id, this.seat.token));
  }

  /** Offers (or withdraws, or declines) a draw. */
  draw(offer) {
    const me = SIDE_LETTER[[...this.mine][0]];
    const standing = this.state?.offers?.draw;
    const what = offer ? 'offer a draw' : standing && standing !== me ? 'decline the draw offer' : 'withdraw the draw offer';
    return this.request(what, () => api.draw(this.id, this.seat.token, offer));
  }

  takeback(offer) {
    if (this.kind !== 'online') return;
    const me = SIDE_LETTER[[...this.mine][0]];
    const standing = this.state?.offers?.takeback;
    const what = offer ? 'propose a takeback' : standing && standing !== me ? 'decline the takeback' : 'withdraw the takeback proposal';
    return this.request(what, () => api.takeback(this.id, this.seat.token, offer, this.state?.ply));
  }

  /**
   * U online (`key`), and the takeback button itself: does what the button shows, and says what
   * the server did. It proposes a takeback, or withdraws one's own proposal ("Cancel the
   * takeback"); it never accepts the friend's proposal silently: with one standing, the focus
   * goes to its Accept button and the player is asked.
   */
  async takebackKey(key = true) {
    const s = this.state;
    if (!s || this.busy || this.sending) return;
    const me = SIDE_LETTER[[...this.mine][0]];
    const standing = s.offers?.takeback || null;
    if (standing && standing !== me) {
      const bar = ['#offer-bar', '#offer-bar2'].map((b) => $(b)).find((b) => !b.hidden && b.dataset.offer === 'takeback');
      if (bar) bar.querySelector('button').focus();
      this.tell(`${this.takebackText(standing)} Accept or decline it${key ? ' (U does not answer it)' : ''}.`);
      return;
    }
    const btn = $('#offer-takeback');
    if (btn.hidden || btn.disabled) {
      this.tell('No takeback to propose now: you have not moved yet.');
      return;
    }
    const withdraw = standing === me;
    const heard = this.stateMessages;
    const r = await this.takeback(!withdraw);
    if (!r || this.gone()) return;
    // A late answer, once the live connection has told what became of the proposal meanwhile
    // (the friend accepted or declined it, a move lapsed it): the caption keeps that.
    const overtaken = this.stateMessages !== heard && this.socket?.live && (this.latest?.offers?.takeback === me) === withdraw;
    if (r.undone) this.tell(`Your friend had proposed a takeback meanwhile: it is accepted. Took back ${r.undone} move${r.undone === 1 ? '' : 's'}.`);
    else if (!overtaken) this.tell(withdraw ? 'Takeback proposal withdrawn.' : 'Takeback proposed: your friend accepts or declines it.');
  }

  claim(result) {
    const what = result === 'win' ? 'claim the win' : 'call it a draw';
    return this.request(what, () => api.claim(this.id, this.seat.token, result), (e) => {
      // The server does not see this page here (its connection lost or silent, not yet noticed
      // by the page): said in a player's words, not the API's.
      if (!(e instanceof ApiError && e.status === 409 && /not connected to the game|connection to the game has been silent/.test(e.message))) return false;
      // A notice about the connection: it goes once the server hears the page again (a ping
      // answered, or a new connection), when the claim buttons are back.
      this.connNote(`Cannot ${what} yet: the server does not see you here, as your connection to it was lost. Claim once the page is connected again.`, 'live');
      if (this.state) this.renderActions();
      return true;
    });
  }

  async play(letter) {
    if (this.busy || !this.myTurn() || this.viewing() || this.sending) return;
    if (this.unsent) {
      // As on lichess, the board waits while a move is unacknowledged: a second tap never
      // replaces the move waiting to be sent.
      this.tell(`Your move ${this.unsent.letter} is not sent yet: it is sent when the connection is back.`);
      return;
    }
    if (!this.state.legal.includes(letter)) return;
    const ply = this.state.ply;
    this.setBusy(true);
    this.board.setLegal([]);
    if (!this.connNotice) notice(null);
    this.unsent = null;
    const other = sideIndex(this.state.to_move) ^ 1;
    const computer = this.state.seats?.[SIDE_LETTER[other]]?.kind === 'computer';
    let lost = false;
    // Screen readers hear the move taken at once, as the turn line shows it: the answer is told
    // once it is shown, which at the default speed is seconds later.
    const who = this.names()[sideIndex(this.state.to_move)];
    this.say(`${who === 'You' ? 'You play' : `${who} plays`} ${letter}.${computer ? ' The computer is thinking…' : ''}`);
    if (computer) $('#turn').textContent = 'The computer is thinking…';
    else if (this.kind === 'online') {
      // The move is on its way: said at once, so a slow network is not mistaken for nothing.
      this.sending = letter;
      this.board.mark(holeIndex(letter), 'pending');
      this.renderTurn();
    }
    // This move's request: a live state showing it played settles it before its answer comes
    // (`settleSending`), and then its answer, late or lost, changes nothing.
    const seq = (this.moveSeq = (this.moveSeq || 0) + 1);
    this.sendingMove = this.kind === 'online' && !computer ? { letter, ply, seq } : null;
    const settled = () => this.kind === 'online' && !computer && this.sendingMove?.seq !== seq;
    let overtaken = false;
    // The updates of this move and the computer's reply wait for the answer (see onSocket).
    this.awaitingReply = computer;
    this.heldUpdate = false;
    try {
      // Moves sent from this window, by the ply they were made at: one of the seat's moves not
      // among them was played from another window (`fromOtherWindow`).
      if (this.kind === 'online') (this.sentMoves ||= new Set()).add(`${ply}:${letter}`);
      const r = await api.move(this.id, letter, this.seat.token, ply);
      if ((overtaken = settled())) return;
      this.sendingMove = null;
      this.awaitingReply = false;
      this.sending = null;
      // A move sent again and played: the notice that it was not sent is stale.
      this.clearUnsentNote(ply + 1);
      // The live update may have shown the move already (while it was still "sending").
      if (!this.closed && this.state && !this.busy) {
        this.renderTurn();
        this.renderActions();
      }
      await this.enqueue(r.state, r.played);
    } catch (e) {
      // Settled by the live state meanwhile: the lost answer says nothing new.
      if ((overtaken = settled())) return;
      this.sendingMove = null;
      this.awaitingReply = false;
      this.sending = null;
      if (!this.closed && this.state) this.board.clearMarks('pending');
      // The live state shows another move at this ply (another window's), or the game ended.
      const played = this.state && (this.state.ply > ply || (this.latest && this.latest.ply > ply));
      // Or this very move, brought by the live connection and not shown yet (an animation runs).
      const seen = this.latest && this.latest.ply > ply ? (this.latest.moves || [])[ply] : null;
      const mineSeen = !!seen && seen.move === letter && this.mine.has(sideIndex(seen.side));
      if (e instanceof ApiError && e.status === 0 && this.kind === 'online' && mineSeen) {
        // Played: shown once the page gets to it, and the lost answer says nothing new.
      } else if (e instanceof ApiError && e.status === 0 && this.kind === 'online' && this.state && (played || this.state.ended)) {
        // Not this move (it would have settled it): the server's game says what was played.
        if (played) await this.refused(letter, ply, e);
        if (!this.closed && this.state) {
          this.renderTurn();
          this.updateLegal();
        }
      } else if (e instanceof ApiError && e.status === 0 && this.kind === 'online') {
        // No answer: the move is kept and sent again once the connection is back.
        this.unsent = { letter, ply };
        const text = `Move ${letter} not sent yet: ${e.message}. It is sent again when the connection is back.`;
        this.unsentNote = { ply, text };
        this.connNote(text, null);
        if (this.socket && this.socket.live) setTimeout(() => this.resend(), 2000);
      } else if (e instanceof ApiError && (e.status === 409 || e.status === 422)) {
        // Refused because the game moved on, or as illegal on the server's position: the board
        // shown was behind; the server's state is loaded and shown.
        await this.refused(letter, ply, e);
      } else if (e instanceof ApiError && e.status === 403) {
        // The token holds no seat in this game (the socket may not have been told yet).
        lost = true;
      } else {
        this.note(`Move ${letter} refused: ${e.message}`);
      }
      // The move did not happen: the turn line says so again ("Your move", not the computer
      // thinking).
      if (!this.closed && this.state) this.renderTurn();
    } finally {
      // (A move settled meanwhile leaves the page to what came since: maybe the next move.)
      if (!overtaken) {
        this.awaitingReply = false;
        if (this.busy && !this.animator.running) {
          this.setBusy(false);
          this.updateLegal();
          this.renderActions();
        }
      }
    }
    // Updates held while the answer was awaited, and the answer lost: the socket's last
    // state is shown (the move may have been stored all the same).
    if (this.heldUpdate && !this.closed && this.latest && this.latest.ply > this.shownPly) {
      this.onSocket({ type: 'state', state: this.latest });
    }
    this.heldUpdate = false;
    if (lost) this.seatLost();
  }

  /**
   * The notice "Move X not sent yet" goes as soon as a state at ply `ply` or later is shown
   * (the move was played: the answer, a WebSocket update or a reconnection's state says so),
   * and with it the move kept to send again: the game has moved on from where it was made.
   */
  clearUnsentNote(ply) {
    const u = this.unsentNote;
    if (this.unsent && ply > this.unsent.ply) this.unsent = null;
    if (!u || ply <= u.ply) return;
    this.unsentNote = null;
    if (!this.gone() && !$('#notice').hidden && $('#notice-text').textContent === u.text) notice(null);
    if (!this.unsent && this.connNotice === u.text) this.connNotice = null;
  }

  /**
   * Online, a move whose answer has not come yet counts as played as soon as a state shows it
   * played (a live update: the friend's reply can only follow it): "Sending your move…" goes
   * and the player may move again, and the answer, late or lost, changes nothing then.
   */
  settleSending(s) {
    const p = this.sendingMove;
    if (!p || !this.sending || s.ply <= p.ply) return;
    const then = (s.moves || [])[p.ply];
    if (!then || then.move !== p.letter || !this.mine.has(sideIndex(then.side))) return;
    this.sendingMove = null;
    this.sending = null;
  }

  /**
   * A move kept to send (`u`, made offline) that the game `s` has gone past without it (the
   * same seat moved from another window, or the game changed): it is never sent, and the
   * player is told why, as when the two windows race online.
   */
  explainPassed(u, s) {
    const then = (s.moves || [])[u.ply];
    if (!then || this.gone()) return;
    const mine = this.mine.has(sideIndex(then.side));
    if (mine && then.move === u.letter) return; // it was played after all (only its answer was lost)
    notice(
      mine
        ? `${u.letter} was not played: ${then.move} was already played from your other window.`
        : `${u.letter} was not played: ${this.names()[sideIndex(then.side)]} played ${then.move} first.`,
      'info',
    );
  }

  /** A move refused because the game moved on (another window, the friend): said in words. */
  async refused(letter, ply, e) {
    let st = null;
    try {
      st = await api.state(this.id);
    } catch {
      /* keep the shown state */
    }
    if (this.closed || game !== this) return;
    if (!st) {
      notice(`Move ${letter} refused: ${e.message}`);
      return;
    }
    const then = (st.moves || [])[ply];
    // The game changed without moving on (moves taken back and others played meanwhile).
    const changed = this.state && !sameMoves(st, this.state);
    this.show(st);
    if (then && st.ply > ply) {
      const mine = this.mine.has(sideIndex(then.side));
      if (mine && then.move === letter) return; // the same move, sent twice: it is on the board
      notice(
        mine
          ? `${letter} was not played: ${then.move} was already played from your other window.`
          : `${letter} was not played: ${this.names()[sideIndex(then.side)]} played ${then.move} first.`,
        'info',
      );
    } else if (changed) {
      notice(`${letter} was not played: the game changed meanwhile (in another window); the board now shows it as it is.`, 'info');
    } else {
      notice(`Move ${letter} refused: ${e.message}`);
    }
  }

  /** Sends again a move that got no answer, if the game is still where it was made. */
  resend() {
    const u = this.unsent;
    if (!u || this.closed || !this.state) return;
    if (this.sending || this.busy) {
      setTimeout(() => this.resend(), 500);
      return;
    }
    this.unsent = null;
    if (this.state.ply !== u.ply) {
      // The game moved on from where the move was made: it is not sent, and its notice goes
      // (with why, when the game went past it).
      this.clearUnsentNote(Infinity);
      if (this.state.ply > u.ply && !this.state.ended && !this.state.match_over) this.explainPassed(u, this.state);
      this.renderTurn();
      this.updateLegal();
      return;
    }
    this.play(u.letter);
  }

  /**
   * Starts a new game with this game's settings (computer or same screen). One press, one
   * game: a second press (a double click) while the first is answered does nothing.
   */
  async rematch() {
    if (this.starting) return;
    this.starting = true;
    for (const b of ['#again', '#rematch']) setOff($(b), true);
    try {
      await this.startAgain();
    } finally {
      this.starting = false;
      for (const b of ['#again', '#rematch']) setOff($(b), false);
    }
  }

  async startAgain() {
    const s = this.state;
    if (this.kind === 'online') return this.onlineRematch();
    const seat = this.mine.size === 1 ? SIDE_LETTER[[...this.mine][0]] : 'S';
    const opponent = this.kind === 'computer' ? { kind: 'computer', level: onLadder(s.game, s.mode, s.opponent.level) } : { kind: 'hotseat' };
    try {
      // A game started from a position is played again from that position.
      const r = await api.create({ game: s.game, mode: s.mode, opponent, seat, ...(s.start_position ? { position: s.start_position } : { first: s.first }) });
      if (opponent.level && opponent.level !== s.opponent.level) {
        const where = `${(meta.games || []).find((g) => g.name === s.game)?.title || s.game} ${s.mode === 'match' ? 'matches' : 'single games'}`;
        landingNotice = `The level ${s.opponent.level} is no longer offered in ${where}: this game is against ${opponent.level}, the strongest level below it there.`;
      }
      started(r);
    } catch (e) {
      this.note(`Cannot start a new game: ${e.message}`);
    }
  }

  /**
   * An online game's rematch: the first player to ask starts it (sides swapped, both seats
   * taken), the other joins it with the same request; the server answers each with their seat.
   */
  async onlineRematch() {
    if (!this.seat) return;
    // A rematch this browser holds a seat in already (started in another tab): it opens.
    const held = this.rematchId || this.state?.rematch;
    if (held && seats.get(held)) {
      location.hash = `#/game/${encodeURIComponent(held)}`;
      return;
    }
    // Marked before asking: this player's other tabs, told of the rematch before this one has
    // its answer, know the ask was theirs.
    storage.set(REMATCH_ASKED, this.id);
    this.asking = true;
    try {
      const r = await api.rematch(this.id, this.seat.token);
      keepSeat(r.id, { token: r.token, seats: r.seats || [r.seat] });
      // Asked here: nothing to tell this page about it (it goes on to the rematch).
      this.rematchId = r.id;
      this.rematchTold = r.id;
      pending = { id: r.id, state: r.state, played: [] };
      location.hash = `#/game/${encodeURIComponent(r.id)}`;
    } catch (e) {
      storage.set(REMATCH_ASKED, '');
      this.note(`Cannot start the rematch: ${e.message}`);
    } finally {
      this.asking = false;
    }
  }

  /**
   * What "Play again" (and the result dialog's button) does here: "Play again" (computer, one
   * screen); online "Rematch", "Join the rematch" once the friend started it, or "Open the
   * rematch" once this browser holds a seat in it (started from another tab of this player).
   */
  againLabel() {
    if (this.kind !== 'online') return 'Play again';
    const id = this.rematchId || this.state?.rematch || null;
    if (!id) return 'Rematch';
    return this.askedHere(id) ? 'Open the rematch' : 'Join the rematch';
  }

  /** The rematch of this online game exists (`id`): players are offered to join, watchers to watch. */
  rematchStarted(id) {
    if (!id || this.rematchId === id) return;
    this.rematchId = id;
    if (this.state) this.renderActions();
    // This page asked for it (its answer on the way): nothing to tell.
    if (!this.mine.size || this.asking || this.rematchTold === id) return;
    // Who asked: this player's other tab (or window) marked the ask before sending it (its seat
    // in the rematch is kept once the server has answered, which may be after this message).
    if (this.askedHere(id)) this.note('You started the rematch (in another tab), sides swapped: press “Open the rematch” to play it.', 'info');
    else this.note('Your friend asks for a rematch, sides swapped: press “Join the rematch”.', 'info');
  }

  /** Whether this browser asked for the rematch `id` of this game (in any of its tabs). */
  askedHere(id) {
    return !!seats.get(id) || storage.get(REMATCH_ASKED) === this.id;
  }

  /**
   * This browser's seats changed in another tab (`storage` event): a rematch started there is
   * this player's own, and the buttons say so ("Open the rematch").
   */
  seatsChanged() {
    if (this.gone() || !this.state) return;
    this.renderActions();
  }

  /**
   * U: does what the Undo button does. With the button turned off (nothing of the player's to
   * take back yet) nothing is sent, and the caption says why.
   */
  undoKey() {
    if (this.busy || !this.seat) return;
    if ($('#undo').disabled) {
      const s = this.state;
      this.tell(s && s.ply > 0 ? 'Nothing of yours to take back yet: you have not moved.' : 'Nothing to take back yet: no move has been played.');
      return;
    }
    return this.undo();
  }

  async undo() {
    if (this.busy || !this.seat) return;
    this.setBusy(true);
    notice(null);
    try {
      const r = await api.undo(this.id, this.seat.token, this.state?.ply);
      await this.enqueue(r.state, null, r.undone || 1);
    } catch (e) {
      this.setBusy(false);
      this.updateLegal();
      if (this.gone()) return;
      if (e instanceof ApiError && e.status === 409 && /^stale/.test(e.message)) {
        // "stale undo: the game is at ply 2, not 1; reload the state": this page was behind (a
        // move played from another window while its connection was down). Said in a player's
        // words, as the other requests say it, and the game is shown as it is now (the moves
        // missed told in the caption, as after a reconnection).
        this.note(`Cannot undo: ${staleWords(e.message)}; it is shown as it is now: undo again if you still want to.`);
        await this.resync();
        return;
      }
      this.note(`Cannot undo: ${e.message}`);
    }
  }

  async hint() {
    if (this.busy || this.hintPending || !this.myTurn() || this.viewing()) return;
    // The hint belongs to the live position it was asked in: kept (and shown again, with its
    // mark, on coming back from an earlier position) until that position changes.
    const key = positionKey(this.state);
    this.hintInfo = { key, text: 'Thinking…', move: null };
    this.renderHint();
    // Hint is turned off while the engine thinks, and keeps the focus (setOff).
    this.hintPending = true;
    setOff($('#hint'), true);
    // The position moved on while the engine thought (a move, an undo): the hint is for a
    // position that is gone (show() has dropped it already).
    // A game left meanwhile (another one opened) is stale too: its hint never shows on the next.
    const stale = () => this.gone() || !this.state || positionKey(this.state) !== key || this.hintInfo?.key !== key;
    try {
      const r = await api.hint(this.id, this.seat.token);
      if (stale()) return;
      const pv = r.pv && r.pv.length > 1 ? `; line ${r.pv.join(' ')}` : '';
      let text;
      if (typeof r.score === 'number') {
        const v = r.score > 0 ? `+${r.score}` : String(r.score);
        // In a match the value is the match value (docs/engine.md, "Matches"): the holdings
        // margin expected after the next round, or the final holdings margin ±200 where the
        // round ends the match. It is exact only when it no longer rests on an estimate of a
        // later round (the match is decided), so "proven" means the same in both modes.
        const match = this.state && this.state.mode === 'match';
        const how = r.exact ? 'proven' : r.depth ? `depth ${r.depth}` : 'estimate';
        if (match) {
          text = `Hint: ${r.move}, ${matchValueWords(this.state.to_move, r.score)} (match value ${v}, ${how})${pv}`;
        } else {
          text = `Hint: ${r.move}, value ${v} seed${Math.abs(r.score) === 1 ? '' : 's'} (${how})${pv}`;
        }
      } else {
        text = `Hint: ${r.move}${pv}`;
      }
      this.hintInfo = { key, text, move: r.move };
      this.renderHint();
    } catch (e) {
      if (!stale()) {
        this.hintInfo = { key, text: `No hint: ${e.message}`, move: null };
        this.renderHint();
      }
    } finally {
      this.hintPending = false;
      if (!this.gone()) setOff($('#hint'), this.busy || !this.myTurn() || this.viewing());
    }
  }

  /**
   * Shows the hint of the live position (its text, its hole marked). While an earlier position
   * is looked at (or a move is animated) only a line saying the hint waits for the live
   * position is shown, without a mark; a hint for a position that is no longer the live one is
   * dropped.
   */
  renderHint() {
    if (this.gone()) return;
    const out = $('#hint-text');
    const hi = this.hintInfo;
    this.board.clearMarks('hint');
    if (!hi || !this.state || hi.key !== positionKey(this.state)) {
      this.hintInfo = null;
      out.textContent = '';
      return;
    }
    if (this.viewing()) {
      out.textContent = hi.move
        ? `The hint (${hi.move}) is for the live position: press End to see it again.`
        : 'The hint is for the live position: press End to see it.';
      return;
    }
    if (this.busy) {
      out.textContent = '';
      return;
    }
    out.textContent = hi.text;
    if (hi.move) this.board.mark(holeIndex(hi.move), 'hint');
  }

  /**
   * Plays the player's hole number k (0..6, from their left): the A..G keys; or the hole
   * named by the letter `k` (a click during an animation).
   */
  key(k) {
    if (this.viewing()) {
      this.tell('You are viewing an earlier position: press End to return to the game.');
      return true;
    }
    if (this.mine.size === 0 && this.state && !this.state.match_over) {
      this.tell('You are watching this game: only its players move.');
      return true;
    }
    if (!this.state || this.state.match_over || this.state.ended) return false;
    // A round's summary open: the next round starts once it is closed.
    if ($('#round-dialog').open) return true;
    if (this.animator.running) {
      // Typed during the animation: it ends now, and the key is played once the position is
      // shown (or refused with the reason).
      this.queuedKey = k;
      this.tell('Finishing the animation…');
      this.animator.skip();
      return true;
    }
    if (this.sending) {
      this.tell(`Your move ${this.sending} is on its way.`);
      return true;
    }
    if (this.unsent && this.myTurn()) {
      this.tell(`Your move ${this.unsent.letter} is not sent yet: it is sent when the connection is back.`);
      return true;
    }
    if (this.busy) return false;
    if (!this.myTurn()) {
      const s = this.state;
      const i = sideIndex(s.to_move);
      if (this.waitingForFriend()) this.tell('Not yet: the game starts when your friend joins.');
      else if (i >= 0) this.tell(`It is not your move: ${this.names()[i]} (${SIDE_NAME[i]}) to move.`);
      return true;
    }
    const side = sideIndex(this.state.to_move);
    const letter = typeof k === 'string' ? k : LETTERS[side * 7 + k];
    if (!this.state.legal.includes(letter)) {
      const i = holeIndex(letter);
      const closed = (this.state.closed || []).includes(letter);
      const theirs = (i < 7 ? 0 : 1) !== side;
      const why = theirs
        ? `${letter} is ${SIDE_NAME[i < 7 ? 0 : 1]}'s hole: ${SIDE_NAME[side]} to move`
        : closed
          ? `${letter} is closed this round`
          : this.state.board[i] === 0
            ? `${letter} is empty`
            : endlessHoles(this.state).includes(letter)
              ? `${letter} would sow for ever: the same board comes back with the same hole about to be lifted, so it is not a legal move`
              : `${letter} cannot be played now`;
      this.tell(`${why}.`);
      return true;
    }
    this.board.focusHole(letter);
    this.play(letter);
    return true;
  }

  flip() {
    this.board.setView(1 - this.board.view);
    if (!this.state) return;
    // While a move is animated or awaited, only the board turns: the animation goes on
    // drawing, and the holes stay locked until the new state is shown.
    if (this.busy || this.animator.running) return;
    if (this.viewing()) this.viewAt(this.viewPly);
    else this.show(this.state);
  }

  /**
   * Opens the summary of the rounds `rounds` of state `s` that just ended (the game's result when
   * it is over). `interim`: the answer shown goes on past the last of them (the computer opens
   * the next round, and may end it and the match too): the summary is of those rounds only, with
   * the next round's layout, never the match's result, which the next summary gives.
   */
  /** The server's trace of move `ply` of this game, if the page was told it; else null. */
  traceOf(ply) {
    const known = this.traces.get(ply);
    if (known) return known;
    const p = this.positions && this.positions.id === this.id ? (this.positions.moves || [])[ply - 1] : null;
    return p ? p.trace : null;
  }

  roundDialog(rounds, s, interim = false) {
    const d = $('#round-dialog');
    const body = $('#round-dialog-body');
    body.replaceChildren();
    const names = this.names();
    // Every round that ended since the board was last shown (one answer can end two).
    const ended = s.ended ? [] : rounds.length ? rounds : s.last_round ? [s.last_round] : [];
    // A single game is one round: it is told as the game, not as "round 1".
    const single = s.mode !== 'match';
    for (const r of ended) {
      body.append(
        h(
          'p',
          { class: 'sweep' },
          single ? `The game ended: ${reasonText(r.reason, names)}.` : `Round ${r.round} ended: ${reasonText(r.reason, names)}.`,
          ` ${sweepText(r.reason, r.swept, names)}.`,
        ),
        h(
          'table',
          {},
          // Every column named and scoped, as the Scoreboard's (no blank header for a screen reader).
          h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Player'), h('th', { scope: 'col' }, 'Swept at the end'), h('th', { scope: 'col' }, single ? 'Taken in the game' : 'Taken in the round'))),
          h(
            'tbody',
            {},
            [0, 1].map((i) =>
              h('tr', {}, h('th', { scope: 'row' }, names[i] === SIDE_NAME[i] ? names[i] : `${names[i]} (${SIDE_NAME[i]})`), h('td', {}, r.swept[i]), h('td', {}, r.taken[i])),
            ),
          ),
        ),
        single ? '' : h('p', {}, r.winner && r.winner !== 'draw' ? `${names[sideIndex(r.winner)]} won the round.` : 'The round is drawn.'),
      );
    }
    const r = ended.length ? ended[ended.length - 1] : null;
    let title = ended.length > 1 ? `Rounds ${ended[0].round}–${r.round} over` : 'Round over';
    const over = !interim && s.match_over;
    if (s.ended && !interim) {
      title = s.ended.kind === 'abort' ? 'Game aborted' : s.mode === 'match' ? 'Match over' : 'Game over';
      const text = resultText(s, names);
      body.append(h('p', { class: 'big' }, h('strong', {}, `${text}.`), ` Seeds held: ${names[0]} ${s.stores[0]}, ${names[1]} ${s.stores[1]}.`));
    } else if (over) {
      title = s.mode === 'match' ? 'Match over' : 'Game over';
      body.append(h('p', { class: 'big' }, h('strong', {}, `${shortHoldingText(s, names) || `${winnerText(s.winner, names)[0].toUpperCase()}${winnerText(s.winner, names).slice(1)} ${scoreText(s.winner, finalScore(s))}`}.`), ` Seeds held: ${names[0]} ${s.stores[0]}, ${names[1]} ${s.stores[1]}.`));
    } else if (s.mode === 'match') {
      // The layout as the round's end left it (the move that ended the round carries it), and
      // the starter as the next round's first move shows: the computer may already have moved.
      const layoutText = (l) =>
        `Round ${l.next} is laid out: South holds ${l.stores[0]} in store, North ${l.stores[1]}. ${l.closed.length ? `Closed holes: ${l.closed.join(' ')}.` : 'No hole is closed.'} ${SIDE_NAME[sideIndex(l.starter)]} starts.`;
      const l = nextRoundLayout(s, r, (ply) => this.traceOf(ply));
      const para = h('p', {}, l.stores ? layoutText(l) : `Round ${l.next}: ${SIDE_NAME[sideIndex(l.starter)]} starts.`);
      body.append(para);
      // Started from a position whose round was over, the next round's layout is in the trace of
      // its first move: read from the server's replay when the page does not have it.
      if (!l.stores) {
        api
          .positions(this.id)
          .then((pos) => {
            if (this.closed || game !== this || pos.id !== s.id) return;
            if (!this.positions || this.positions.ply <= pos.ply) this.positions = pos;
            const known = nextRoundLayout(s, r, (ply) => pos.moves[ply - 1]?.trace);
            if (known.stores && para.isConnected) para.textContent = layoutText(known);
          })
          .catch(() => {});
      }
      // The live round starting as an earlier one did (not a round the answer went past).
      if (s.repeats_round && l.next === s.round && !s.match_over) body.append(h('p', { class: 'circle' }, circleText(s)));
    }
    const again = $('#rematch');
    again.hidden = !(over && this.mine.size && !(this.kind === 'online' && this.waitingForFriend()));
    again.textContent = this.againLabel();
    // The game goes on after a round; after the last one the button only closes the dialog.
    $('#round-dialog-ok').textContent = over ? 'Close' : 'Continue';
    $('#round-dialog-title').textContent = title;
    // Not over the rules or help read in front of the game: it opens once the game is back.
    if (this.behind) {
      this.dialogLater = true;
      return;
    }
    if (!d.open) d.showModal();
    // A summary taller than the screen opens at its heading (Continue stays in sight below).
    d.scrollTop = 0;
  }
}

async function openGame(id, moveFocus = false, ply = null) {
  if (game && game.id === id && game.state) {
    // Back from the rules or help read in front of it: the game was kept open. An address
    // naming a move (`#/game/ID/PLY`, typed or Back to it) shows that move.
    if (ply !== null) game.viewAt(ply);
    game.resume(moveFocus);
    return;
  }
  if (game && game.id === id) return;
  if (game) game.close();
  game = new GameView(id);
  game.takeFocus = moveFocus;
  game.linkPly = ply;
  const initial = pending;
  pending = null;
  $('#caption').textContent = '';
  $('#hint-text').textContent = '';
  $('#watchers').hidden = true;
  $('#move-list').replaceChildren();
  await game.start(initial);
}

function setupGameControls() {
  $('#speed').addEventListener('change', (e) => {
    storage.set('pussa.speed', e.target.value);
    if (game) {
      game.animator.speed = e.target.value;
      if (e.target.value === 'off') game.animator.skip();
    }
  });
  $('#skip').addEventListener('click', () => game && game.animator.skip());
  // Sound: on unless turned off in this browser; the audio starts at the first key or tap.
  $('#sound').checked = sounds.on;
  $('#sound').addEventListener('change', (e) => sounds.setOn(e.target.checked));
  for (const type of ['pointerdown', 'keydown']) document.addEventListener(type, () => sounds.unlock(), { capture: true });
  $('#rematch').addEventListener('click', () => {
    $('#round-dialog').close();
    if (game && !isOff($('#rematch'))) game.rematch();
  });
  $('#again').addEventListener('click', () => game && !isOff($('#again')) && game.rematch());
  // Another tab of this browser took a seat (a rematch it started): the game shown may be told.
  window.addEventListener('storage', (e) => {
    if (game && (e.key === 'pussa.seats' || e.key === null)) game.seatsChanged();
  });
  $('#notice-close').addEventListener('click', () => notice(null));
  // Esc dismisses the message too, on every page (a dialog open takes its own Esc first).
  document.addEventListener('keydown', (e) => {
    if (e.key === 'Escape' && !$('#notice').hidden && !document.querySelector('dialog[open]')) notice(null);
  });
  $('#flip').addEventListener('click', () => game && game.flip());
  $('#replay').addEventListener('click', () => game && game.replay());
  $('#turn-board').checked = storage.get('pussa.turnBoard') === '1';
  $('#turn-board').addEventListener('change', (e) => {
    storage.set('pussa.turnBoard', e.target.checked ? '1' : '0');
    if (game && game.state) game.show(game.state);
  });
  $('#undo').addEventListener('click', () => game && game.undo());
  $('#hist-first').addEventListener('click', () => game && game.viewAt(0));
  $('#hist-prev').addEventListener('click', () => game && game.step(-1));
  $('#hist-next').addEventListener('click', () => game && game.step(1));
  $('#hist-last').addEventListener('click', () => game && game.state && game.viewAt(game.state.ply));
  $('#hist-live').addEventListener('click', () => game && game.state && game.viewAt(game.state.ply));
  $('#move-list').addEventListener('click', (e) => {
    const mv = e.target.closest('.mv');
    if (mv && game) game.viewAt(Number(mv.dataset.ply));
  });
  $('#move-list').addEventListener('keydown', (e) => {
    const mv = e.target.closest('.mv');
    if (!mv || !game || (e.key !== 'Enter' && e.key !== ' ')) return;
    e.preventDefault();
    e.stopPropagation();
    game.viewAt(Number(mv.dataset.ply));
  });
  $('#hint').addEventListener('click', () => game && !isOff($('#hint')) && game.hint());
  $('#copy-watch').addEventListener('click', async () => {
    if (!game) return;
    const url = pageLink(`?game=${encodeURIComponent(game.id)}`);
    const ok = await copyText(url, null);
    // Copied, a short line (it fits the title's place on a phone held sideways); else the link
    // itself, to copy by hand.
    notice(ok ? 'Watch link copied.' : `Watch link: ${url}`, 'info');
  });
  $('#copy-invite').addEventListener('click', async () => {
    const url = $('#invite-url').value;
    const ok = await copyText(url, $('#invite-url'));
    notice(ok ? 'Invite link copied. Send it to your friend: it gives them the other seat.' : 'Copy the invite link from the box.', 'info');
  });
  $('#share-invite').addEventListener('click', async () => {
    const url = $('#invite-url').value;
    try {
      await navigator.share({ title: 'pussa: play with me', text: 'Take the other seat of my pussa game:', url });
    } catch {
      /* the share sheet was closed */
    }
  });
  // An online game's requests.
  $('#resign').addEventListener('click', () => {
    $('#resign-confirm').hidden = false;
    $('#resign').hidden = true;
    $('#resign-no').focus();
  });
  $('#resign-yes').addEventListener('click', () => game && game.resign());
  // No (or Escape in the question) puts the Resign button back, with the focus on it.
  const keepPlaying = () => {
    $('#resign-confirm').hidden = true;
    if (game && game.state) game.renderActions();
    if (!$('#resign').hidden) $('#resign').focus();
  };
  $('#resign-no').addEventListener('click', keepPlaying);
  $('#resign-confirm').addEventListener('keydown', (e) => {
    if (e.key !== 'Escape') return;
    e.preventDefault();
    e.stopPropagation();
    keepPlaying();
  });
  $('#abort').addEventListener('click', () => game && game.abort());
  $('#offer-draw').addEventListener('click', () => {
    if (!game || !game.state) return;
    const me = SIDE_LETTER[[...game.mine][0]];
    game.draw(game.state.offers?.draw !== me);
  });
  // The button does what it says, as U does: propose, or withdraw one's own proposal; with the
  // friend's proposal standing it never accepts it, it leads to that proposal's Accept.
  $('#offer-takeback').addEventListener('click', () => game && game.state && game.takebackKey(false));
  // Accept and Decline answer the offer their bar shows (`data-offer`): an Accept of an offer
  // withdrawn meanwhile is refused by the server, never taken as an offer of one's own.
  for (const [bar, accept, decline] of [['#offer-bar', '#offer-accept', '#offer-decline'], ['#offer-bar2', '#offer2-accept', '#offer2-decline']]) {
    $(accept).addEventListener('click', () => game && game.answerOffer($(bar).dataset.offer, true));
    $(decline).addEventListener('click', () => game && game.answerOffer($(bar).dataset.offer, false));
  }
  // The "Your move" title of a background tab goes once the page is looked at.
  // A tab put in the background shows the move being animated at once (its end, its turn).
  // The bar over the rules or help follows the turn line of the game kept open behind them.
  new MutationObserver(() => game && game.renderBehind()).observe($('#turn'), { childList: true, characterData: true, subtree: true });
  document.addEventListener('visibilitychange', () => {
    if (!game) return;
    if (document.hidden && game.animator.running) game.animator.skip();
    game.updateTitle();
  });
  window.addEventListener('focus', () => game && game.updateTitle());
  $('#claim-win').addEventListener('click', () => game && game.claim('win'));
  $('#claim-draw').addEventListener('click', () => game && game.claim('draw'));
  document.addEventListener('pointerdown', () => (keyboardUser = false), true);
  // A key held down acts once. The auto-repeat of Enter or Space (a keydown every few ms after
  // half a second) would press again whatever has the focus by then: after a move or an undo
  // the focus goes to a legal hole, the result dialog's button or "Play again", so a held key
  // would play move after move, close the result and start a new game. Caught first (capture
  // phase, before a hole's or a button's own handling), and dropped with its default action
  // (a button's Enter activation, a form's submission). Space typed into a text field repeats
  // as usual; arrows and the letters are handled below.
  window.addEventListener(
    'keydown',
    (e) => {
      if (!e.repeat || (e.key !== 'Enter' && e.key !== ' ')) return;
      const t = e.target;
      if (t && t.tagName === 'TEXTAREA') return;
      if (e.key === ' ' && t && t.tagName === 'INPUT' && !['checkbox', 'radio', 'button', 'submit', 'reset'].includes(t.type)) return;
      e.preventDefault();
      e.stopImmediatePropagation();
    },
    true,
  );
  document.addEventListener('keydown', (e) => {
    if (e.key === 'Tab' || e.key === 'Enter' || e.key.length === 1) keyboardUser = true;
    if (!game || $('#view-game').hidden) return;
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const t = e.target;
    // Letters typed into a text field or a list are theirs; a checkbox or button passes them on.
    const typing = t && (t.tagName === 'TEXTAREA' || t.tagName === 'SELECT' || (t.tagName === 'INPUT' && !['checkbox', 'radio', 'button'].includes(t.type)));
    if (typing) return;
    if ($('#round-dialog').open) return;
    if (e.key === 'Escape') {
      game.animator.skip();
      return;
    }
    const steps = { ArrowLeft: -1, ArrowRight: 1 };
    if (e.key in steps || e.key === 'Home' || e.key === 'End') {
      if (e.shiftKey || !game.state) return;
      e.preventDefault();
      if (e.key === 'Home') game.viewAt(0);
      else if (e.key === 'End') game.viewAt(game.state.ply);
      else game.step(steps[e.key]);
      return;
    }
    // Only a fresh press acts: the auto-repeat of a held key (a keydown every few ms after half
    // a second) never plays another move, for either player, nor undoes or replays again.
    if (e.repeat && e.key.length === 1) return;
    const k = 'abcdefg'.indexOf(e.key.toLowerCase());
    if (e.key.length === 1 && k >= 0) {
      if (game.key(k)) e.preventDefault();
    } else if (e.key === 'u' || e.key === 'U') {
      if (!$('#undo').hidden) game.undoKey();
      else if (game.kind === 'online' && game.mine.size && game.state && !game.state.match_over) game.takebackKey();
    } else if (e.key === 'r' || e.key === 'R') {
      game.replay();
    } else if (e.key === 'h' || e.key === 'H') {
      if (!$('#hint').hidden) game.hint();
      else if (game.kind === 'online' && game.mine.size) game.tell('Hints are not offered in online games.');
    }
  });
}

/** How many games "Continue your games" lists at most (the seats taken last first). */
const CONTINUE_MAX = 8;

/**
 * The games in progress this browser holds a seat in, on the start page. Each is asked for by
 * its id (the server's list holds everybody's games, so this browser's could be far down it),
 * a few at a time, the seat taken last first, until the list is full. A game found over is
 * marked so in the seat and not asked for again (until the game view shows it going on again,
 * reopened by an undo). A listing never forgets a seat: a game the server does not know now
 * (a restored or wrong database, a proxy's 404) is listed as not found, with a Forget button
 * that is the player's to press; the seat stays until then.
 */
async function showContinue() {
  const mine = Object.entries(seats.all())
    .filter(([, seat]) => !seat.over)
    .sort((a, b) => (b[1].saved || 0) - (a[1].saved || 0));
  if (!mine.length) return;
  try {
    const list = [];
    for (let i = 0; i < mine.length && list.length < CONTINUE_MAX; i += 4) {
      const got = await Promise.all(mine.slice(i, i + 4).map(([id]) => api.state(id).catch((e) => ({ id, error: e }))));
      for (const g of got) {
        if (g.error) {
          if (g.error.status === 404 && list.length < CONTINUE_MAX) list.push({ id: g.id, missing: true });
        } else if (g.match_over) seats.markOver(g.id);
        else if (list.length < CONTINUE_MAX) list.push(g);
      }
    }
    const ul = $('#continue-list');
    ul.replaceChildren(
      ...list.map((g) => {
        if (g.missing) {
          const forget = h('button', { type: 'button', class: 'forget-seat' }, 'Forget');
          forget.setAttribute('aria-label', `Forget game ${g.id}`);
          const li = h(
            'li',
            { class: 'missing', 'data-game': g.id },
            h('a', { href: `#/game/${encodeURIComponent(g.id)}` }, `Game ${g.id}`),
            ' not found on this server now (your seat in it is kept) ',
            forget,
          );
          forget.addEventListener('click', () => {
            seats.remove(g.id);
            const next = li.nextElementSibling || li.previousElementSibling;
            li.remove();
            if (!ul.children.length) $('#continue').hidden = true;
            // The focus is not dropped to the page's body with the button.
            (next ? next.querySelector('a') : $('#start')).focus();
          });
          return li;
        }
        const opp = typeof g.opponent === 'object' ? g.opponent.kind : g.opponent;
        const who = { computer: 'against the computer', hotseat: 'on this screen', online: 'online' }[opp] || opp || '';
        return h(
          'li',
          {},
          h('a', { href: `#/game/${encodeURIComponent(g.id)}` }, `${TITLES[g.game] || g.game}${g.mode === 'match' ? ' match' : ''}`),
          ` ${who}, ${g.ply} move${g.ply === 1 ? '' : 's'}`,
        );
      }),
    );
    $('#continue').hidden = list.length === 0;
  } catch {
    $('#continue').hidden = true;
  }
}

// ---------------------------------------------------------------------------------------------
// Saved games

/** Saved games listed a page at a time; "Older games" asks for the page after the last shown. */
const GAMES_PAGE = 100;
let gamesNext = null; // the `next` of the last page shown (null: the list's end)
let gamesAsked = 0; // which request's answer is drawn (a newer one wins)

async function showGames(more = false) {
  document.title = 'pussa: saved games';
  const body = $('#games-table tbody');
  const filter = $('#games-filter').value;
  const asked = ++gamesAsked;
  const before = more === true ? gamesNext : null;
  if (before) {
    setOff($('#games-more'), true);
  } else {
    body.replaceChildren(h('tr', {}, h('td', { colspan: 6 }, 'Loading…')));
    $('#games-more').hidden = true;
  }
  try {
    const r = await api.list(filter === '' ? undefined : filter, GAMES_PAGE, before);
    if (asked !== gamesAsked) return;
    if (!before) body.replaceChildren();
    gamesNext = r.next || null;
    // "Older games" pressed a last time goes away: the focus moves on to the first of the games
    // it added (never dropped to the page's body).
    const moreHadFocus = document.activeElement === $('#games-more');
    const firstNew = body.children.length;
    $('#games-more').hidden = !gamesNext;
    setOff($('#games-more'), false);
    const mineAll = seats.all();
    for (const g of r.games || []) {
      const mine = mineAll[g.id];
      // An aborted game has no result (winner null): never a draw.
      const result = !g.finished
        ? 'in progress'
        : g.ended === 'abort'
          ? 'aborted'
          : g.winner === 'draw' || !g.winner
            ? 'draw'
            : `${SIDE_NAME[sideIndex(g.winner)]} won`;
      const opp = typeof g.opponent === 'object' ? g.opponent.kind + (g.opponent.level ? ` (${g.opponent.level})` : '') : g.opponent;
      body.append(
        h(
          'tr',
          {},
          // On a phone each row is a card: the labels name the values (the header is hidden).
          h('td', {}, `${TITLES[g.game] || g.game}${g.mode === 'match' ? ' match' : ''}`, h('small', { class: 'muted id' }, g.id)),
          h('td', { 'data-label': 'Started' }, g.created ? new Date(g.created).toLocaleString() : ''),
          h('td', { 'data-label': 'Opponent' }, opp || ''),
          h('td', { 'data-label': 'Moves' }, g.ply),
          h('td', { 'data-label': 'Result' }, result),
          h(
            'td',
            { class: 'actions-cell' },
            h('a', { class: 'open', href: `#/game/${encodeURIComponent(g.id)}` }, mine ? 'Open' : 'Watch'),
            h('span', { class: 'sep' }, ' · '),
            h('a', { href: api.recordUrl(g.id), download: `pussa-${g.id}.txt` }, 'Record'),
          ),
        ),
      );
    }
    $('#games-empty').hidden = body.children.length > 0;
    if (moreHadFocus && !gamesNext) (body.children[firstNew] || body.lastElementChild)?.querySelector('a.open')?.focus();
  } catch (e) {
    if (asked !== gamesAsked) return;
    setOff($('#games-more'), false);
    if (!before) body.replaceChildren();
    notice(`Cannot list the games: ${e.message}`);
  }
}

// ---------------------------------------------------------------------------------------------
// Rules

/**
 * A player's introduction to each game, above the full rules: enough to start playing, in the
 * contract's terms (rules-spec.md), every word it uses defined there. `text`: the game's own
 * rules (seeds, direction, fours, chain); `end`: what ends a round and who takes the seeds left.
 */
const FOURS = (owner) =>
  `Whenever a seed makes a hole hold exactly four, ${owner} takes those four at once (a “four”), and sowing goes on; this counts in either row, and for the last seed too.`;
const NO_MOVE_END =
  'A round ends when the player to move has no move: the other player, the one who just moved, takes every seed left on the board (the sweep).';
const ONE_ROW_END =
  'A round ends as soon as every seed left on the board lies in one row: each player takes the seeds in their own row (the sweep).';
const INTROS = {
  'walak-pussa': {
    seeds: 4,
    dir: 1,
    text: 'Four seeds in each hole; sowing goes counterclockwise (to the right along your row, then on along the other row). A capture can chain on (the “necklace”, or chain): after taking a hole, while the next hole is empty and the one after it holds seeds and is not the hole where your last seed fell, you take those too. There are no fours.',
    end: NO_MOVE_END,
  },
  'raja-pasu': {
    seeds: 7,
    dir: 1,
    text: `Seven seeds in each hole; sowing goes counterclockwise (to the right along your row, then on along the other row). ${FOURS('the owner of the row the hole is in')}`,
    end: NO_MOVE_END,
  },
  'pasu-pondi': {
    seeds: 5,
    dir: -1,
    text: `Five seeds in each hole; sowing goes clockwise (to the left along your row, then on along the other row). ${FOURS('the owner of the row the hole is in')}`,
    end: ONE_ROW_END,
  },
  'pasu-pondi-6': {
    seeds: 6,
    dir: -1,
    text: `Pasu Pondi with six seeds in each hole; sowing goes clockwise (to the left along your row, then on along the other row). ${FOURS('the owner of the row the hole is in')}`,
    end: ONE_ROW_END,
  },
};

/**
 * A small board as South sees it, with the direction of sowing as a loop round the ring: one
 * arrow along each row (South's row below, A to G; North's row above, g to a from the left), the
 * two joined at the ends, so each row's arrow points the way its seeds go.
 */
function boardDiagram(seeds, dir) {
  const ns = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(ns, 'svg');
  svg.setAttribute('viewBox', '0 0 360 160');
  svg.setAttribute('class', 'diagram');
  svg.setAttribute('role', 'img');
  svg.setAttribute(
    'aria-label',
    `The board: North's row a to g on top (g at the left), South's row A to G below (A at the left), ${seeds} seeds in each hole; sowing goes ${dir > 0 ? "counterclockwise: along South's row from A to G (to the right), then along North's row from a to g (to the left on this picture)" : "clockwise: along South's row from G to A (to the left), then along North's row from g to a (to the right on this picture)"}, round and round.`,
  );
  const add = (tag, attrs, text) => {
    const e = document.createElementNS(ns, tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    svg.append(e);
    return e;
  };
  add('rect', { x: 4, y: 14, width: 352, height: 132, rx: 22, class: 'wood' });
  const ROW = { north: 46, south: 114 };
  for (let k = 0; k < 7; k++) {
    const x = 40 + k * 47;
    // North's row: g … a from the left; South's: A … G.
    add('circle', { cx: x, cy: ROW.north, r: 17, class: 'pit' });
    add('text', { x, y: ROW.north + 5, class: 'n' }, seeds);
    add('text', { x, y: 10, class: 'l' }, 'gfedcba'[k]);
    add('circle', { cx: x, cy: ROW.south, r: 17, class: 'pit' });
    add('text', { x, y: ROW.south + 5, class: 'n' }, seeds);
    add('text', { x, y: 158, class: 'l' }, 'ABCDEFG'[k]);
  }
  // The loop between the rows: its lower side runs along South's row, its upper side along
  // North's, joined round the ends as the ring is.
  const [top, bottom, left, right] = [72, 88, 64, 296];
  add('path', { d: `M${left} ${bottom} L${right} ${bottom} A8 8 0 0 0 ${right} ${top} L${left} ${top} A8 8 0 0 0 ${left} ${bottom} Z`, class: 'arrow' });
  // One arrowhead on each side, pointing the way that row's seeds go (counterclockwise: South's
  // to the right, North's to the left).
  const head = (row, x, y, towards) =>
    add('path', { d: `M${x + towards * 8} ${y} l${-towards * 14} -8 l0 16 z`, class: 'arrowhead', 'data-row': row, 'data-points': towards > 0 ? 'right' : 'left' });
  head('south', 220, bottom, dir > 0 ? 1 : -1);
  head('north', 140, top, dir > 0 ? -1 : 1);
  return svg;
}

let lastRules = null;

/**
 * A rules page's section links keep, in the history entry they leave, where the player was
 * reading (the scroll and which link): Back returns there (`showRules`'s `restore`).
 */
function setupRulesLinks() {
  $('#rules-body').addEventListener('click', (e) => {
    const a = e.target.closest('a[data-anchor]');
    const g = $('#rules-body').dataset.game;
    if (!a || !g || e.defaultPrevented || e.button !== 0 || e.ctrlKey || e.metaKey || e.shiftKey || e.altKey) return;
    const rulesLink = [...$('#rules-body').querySelectorAll('a[data-anchor]')].indexOf(a);
    history.replaceState({ ...(history.state || {}), rulesGame: g, rulesY: window.scrollY, rulesLink }, '');
  });
}

/**
 * Shows the rules of game `g`, at `section` (a heading's id without `rules-`) if given: its
 * heading takes the focus (with `focus`: not on a page load), as an in-page anchor moves the
 * reading and Tab start there. `restore` (a history entry's state, `rulesY` and `rulesLink`)
 * puts the page back where a section link was followed: that scroll, the focus on that link.
 */
async function showRules(g, section, { restore = null, focus = false } = {}) {
  for (const a of document.querySelectorAll('#rules-tabs a')) {
    if (a.dataset.game === g) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  // A game pussa does not have is not named in the title as if its rules were here: the
  // server's answer decides (a 404 is "rules not found").
  document.title = TITLES[g] ? `pussa: rules of ${TITLES[g]}` : 'pussa: rules';
  const art = $('#rules-body');
  const scrollTo = () => {
    if (restore) {
      const link = art.querySelectorAll('a[data-anchor]')[restore.rulesLink];
      // A link in a folded part opens it again.
      const fold = link && link.closest('details');
      if (fold) fold.open = true;
      window.scrollTo(0, restore.rulesY);
      if (link && focus) link.focus({ preventScroll: true });
      return;
    }
    const target = section && document.getElementById(`rules-${section}`);
    if (target) {
      // A section in a folded part opens it.
      const fold = target.closest('details');
      if (fold) fold.open = true;
      target.scrollIntoView({ block: 'start' });
      if (focus) {
        target.setAttribute('tabindex', '-1');
        target.focus({ preventScroll: true });
      }
    }
  };
  if (lastRules === g && art.dataset.game === g) {
    scrollTo();
    return;
  }
  lastRules = g;
  art.textContent = 'Loading…';
  try {
    const text = await api.rules(g);
    art.innerHTML = markdown(typeof text === 'string' ? text : JSON.stringify(text));
    art.dataset.game = g;
    // The server's text is this game's page already: its title, its introduction, no notes for
    // the command line.
    // The player's introduction: the game in a few lines and a picture of the board.
    const intro = INTROS[g];
    if (intro) {
      const at = art.querySelector('h2');
      const intro_ = (
        h(
          'section',
          { class: 'intro', 'aria-label': 'In short' },
          h('h3', {}, `${TITLES[g] || g} in short`),
          boardDiagram(intro.seeds, intro.dir),
          h('p', {}, 'Two rows of seven holes, one row each. On your turn you lift all the seeds of one of your holes and sow them one by one into the following holes. When the last seed falls, look at the next hole: if it holds seeds, lift them and sow on; if it is empty, your move ends, and you take the hole after it if it holds seeds and is not the hole where your last seed fell. ' + intro.text),
          h(
            'p',
            { class: 'intro-end' },
            `${intro.end} In every game a round also ends when a position comes back (the same seeds in every hole, with the same player to move): each player then takes the seeds in their own row. A move that would sow for ever (the same board coming back in the middle of the move) is not allowed. Whoever takes more seeds wins the game. In a match, a player who cannot fill a hole at the next round plays with it closed; the match ends when one player cannot fill any. The full rules follow; `,
            h('a', { href: '#/help' }, 'how to play on this page'),
            ' is told separately.',
          ),
        )
      );
      if (at) at.after(intro_);
      else art.prepend(intro_);
    }
    // The decisions taken where sources differ, and the notation, are for the curious: folded.
    const fold = (id, label) => {
      const head = document.getElementById(`rules-${id}`);
      if (!head) return;
      const d = h('details', { class: 'fold' }, h('summary', {}, label));
      head.before(d);
      let n = head;
      const level = Number(head.tagName[1]);
      while (n && !(n !== head && /^H[1-6]$/.test(n.tagName) && Number(n.tagName[1]) <= level)) {
        const next = n.nextElementSibling;
        d.append(n);
        n = next;
      }
    };
    // Endless moves: the rule stays in view, with what a player sees of it on this page; how
    // pussa finds such moves is for the curious.
    const endless = document.getElementById('rules-endless-moves');
    if (endless) {
      if (document.getElementById('rules-how-pussa-finds-them')) fold('how-pussa-finds-them', 'For the curious: how pussa finds endless moves');
      else fold('endless-moves', 'For the curious: how pussa finds endless moves');
      const folded = (document.getElementById('rules-how-pussa-finds-them') || endless).closest('details');
      const onPage = h(
        'p',
        { class: 'on-page', id: 'rules-endless-on-page' },
        h('strong', {}, 'On this page: '),
        'a hole of yours whose move would sow for ever cannot be played: it has only a thin dashed ring, not the full ring of a playable hole, and its label (or tooltip) says “would sow for ever”. Clicking it, or pressing its letter, is refused with the reason, and the turn line names only the holes you can play. If every move left to a player would sow for ever, that player cannot move and the round ends; its summary says which holes “would sow for ever”, and who takes the seeds left on the board: ',
        g.startsWith('pasu-pondi') ? 'in Pasu Pondi each player takes the seeds in their own row.' : 'the other player, who just moved, takes them all.',
      );
      if (folded) folded.before(onPage);
    }
    fold('decisions-and-why', 'For the curious: where the sources differ, and why pussa decides as it does');
    fold('sources', 'For the curious: the sources of these rules');
    fold('notation', 'For the curious: how moves, positions and records are written');
    // In-page links add a history entry (#/rules/GAME/SECTION), so Back returns to where the
    // player was reading.
    for (const a of art.querySelectorAll('a[data-anchor]')) {
      const sectionId = a.dataset.anchor.replace(/^rules-/, '');
      a.href = `#/rules/${encodeURIComponent(g)}/${encodeURIComponent(sectionId)}`;
    }
    scrollTo();
  } catch (e) {
    art.textContent = '';
    lastRules = null;
    document.title = e.status === 404 ? 'pussa: rules not found' : 'pussa: cannot load the rules';
    if (game) game.updateTitle();
    notice(`Cannot load the rules: ${e.message}`);
  }
}

// ---------------------------------------------------------------------------------------------

/**
 * The game page's parts in the order they are shown, so Tab goes down the page as the eye does:
 * on a phone (one column, or held sideways) the actions sit right under the board and caption,
 * and the keys and glossary at the foot, after the moves; on a wider screen the actions go back
 * to the side column, under the scoreboard.
 */
function orderGameForLayout() {
  const phone = matchMedia('(max-width: 860px), (orientation: landscape) and (max-height: 520px)');
  const place = () => {
    const focused = document.activeElement;
    const actions = $('#view-game .actions');
    const foot = [$('#keys-player'), $('#keys-watcher'), $('#view-game .glossary')];
    if (phone.matches) {
      if (actions.previousElementSibling !== $('#announce')) $('#announce').after(actions);
      $('#view-game .moves').after(...foot);
    } else {
      $('#view-game .score').after(actions);
      $('#view-game .anim-controls').after(...foot);
    }
    // A part moved with the focus in it keeps the focus.
    if (focused && focused !== document.activeElement && focused.isConnected) focused.focus({ preventScroll: true });
  };
  place();
  phone.addEventListener('change', place);
}

async function main() {
  setupGameControls();
  setupRulesLinks();
  orderGameForLayout();
  // The notice floats just under the header, whose height changes as its links wrap.
  const header = $('header.top');
  new ResizeObserver(() => document.documentElement.style.setProperty('--header-h', `${header.offsetHeight}px`)).observe(header);
  // The game's title row, whose place a message takes on a phone held sideways.
  const gameHead = $('#view-game .game-head');
  new ResizeObserver(() => {
    if (gameHead.offsetWidth) document.documentElement.style.setProperty('--game-head-w', `${gameHead.offsetWidth}px`);
  }).observe(gameHead);
  $('#games-filter').addEventListener('change', () => showGames());
  $('#games-more').addEventListener('click', () => !isOff($('#games-more')) && showGames(true));
  // The caption is hidden from screen readers only while the live region says the same.
  new MutationObserver(() => {
    const cap = $('#caption');
    if (cap.hasAttribute('aria-hidden') && cap.textContent !== cap.dataset.said) cap.removeAttribute('aria-hidden');
  }).observe($('#caption'), { childList: true, characterData: true, subtree: true });
  $('#round-dialog').addEventListener('close', () => {
    // Closed by a page change (dismissDialog), not by the player: the focus is the page's.
    if (dialogDismissed) {
      dialogDismissed = false;
      return;
    }
    if (game) game.afterDialog();
  });
  try {
    meta = await api.meta();
  } catch (e) {
    meta = { levels: [], default_level: null, games: [] };
    notice(`Cannot reach the server: ${e.message}`);
  }
  for (const g of meta.games || []) {
    if (g.name && g.seeds_per_hole) SEEDS_PER_HOLE[g.name] = g.seeds_per_hole;
    if (g.name && g.title) TITLES[g.name] = g.title;
  }
  setupHome();
  // The skip link moves the focus into the page shown; it is no route.
  $('.skip-link').addEventListener('click', (e) => {
    e.preventDefault();
    skipToContent();
  });
  await landing();
  window.addEventListener('hashchange', route);
  route();
  document.body.dataset.ready = '1';
}

main();
