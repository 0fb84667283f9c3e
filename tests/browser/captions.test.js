// The animation's captions (crates/server/web/board.js), run in node: one line per trace event,
// whatever spelling of the sides the server uses ("S"/"N" or "South"/"North").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';

const src = await readFile(new URL('../../crates/server/web/board.js', import.meta.url), 'utf8');
const { caption, reasonText, sweepText, holeIndex, ownerOf } = await import(`data:text/javascript,${encodeURIComponent(src)}`);

test('captions of a sowing, as in the brief', () => {
  assert.equal(caption({ type: 'lift', hole: 'A', seeds: 4, relay: false }, 'South'), 'South lifts A (4)');
  assert.equal(caption({ type: 'lift', hole: 'F', seeds: 4, relay: true }, 'South'), 'Relay: lift F (4)');
  assert.equal(caption({ type: 'drop', hole: 'B', now: 5 }, 'South'), null);
  assert.equal(caption({ type: 'stop', last: 'G', empty: 'a' }, 'South'), 'a is empty: sowing ends');
  for (const [s, n] of [['S', 'N'], ['South', 'North']]) {
    assert.equal(caption({ type: 'capture', hole: 'b', seeds: 6, by: s, chained: false }, 'South'), 'South takes 6 from b');
    assert.equal(caption({ type: 'capture', hole: 'd', seeds: 2, by: s, chained: true }, 'South'), 'Necklace: South takes 2 from d too');
    assert.equal(caption({ type: 'four', hole: 'c', owner: n }, 'South'), 'Four in c: North takes 4');
    assert.equal(caption({ type: 'match_end', winner: n }, 'South'), 'North wins');
    assert.equal(
      caption({ type: 'refill', round: 2, filled: [7, 5], remainder: [3, 1], closed: [], starter: n }, 'South'),
      'Round 2: South fills 7 holes, North 5; North starts',
    );
    assert.equal(reasonText({ kind: 'no_legal_move', stuck: n }), 'North cannot move');
  }
  assert.equal(caption({ type: 'match_end', winner: null }, 'South'), 'A draw');
  assert.equal(
    caption({ type: 'round_end', reason: { kind: 'one_row' }, swept: [3, 0] }, 'North'),
    'Round over (all seeds in one row): each player takes their own row: South 3, North 0',
  );
  assert.equal(reasonText({ kind: 'repetition' }), 'the position repeated');
});

test('a player stuck because every move left is endless is told which holes would sow for ever', () => {
  assert.equal(reasonText({ kind: 'no_legal_move', stuck: 'N', endless: ['g'] }), 'North cannot move: g would sow for ever');
  assert.equal(
    reasonText({ kind: 'no_legal_move', stuck: 'S', endless: ['A', 'C', 'G'] }),
    'South cannot move: A, C and G would each sow for ever',
  );
  assert.equal(reasonText({ kind: 'no_legal_move', stuck: 'N', endless: [] }), 'North cannot move');
  assert.equal(
    caption({ type: 'round_end', reason: { kind: 'no_legal_move', stuck: 'S', endless: ['F'] }, swept: [0, 9] }, 'North', ['You', 'Computer']),
    'Round over (you cannot move: F would sow for ever): Computer takes the 9 seeds left on the board',
  );
});

test('the end of a round says who takes the seeds left on the board (the sweep), not "South sweeps 0, North 3"', () => {
  // Walak-pussa and Raja Pasu: the player to move cannot move; the other takes them all.
  assert.equal(sweepText({ kind: 'no_legal_move', stuck: 'S' }, [0, 3]), 'North takes the 3 seeds left on the board');
  assert.equal(sweepText({ kind: 'no_legal_move', stuck: 'N' }, [1, 0]), 'South takes the 1 seed left on the board');
  assert.equal(
    caption({ type: 'round_end', reason: { kind: 'no_legal_move', stuck: 'S' }, swept: [0, 3] }, 'North'),
    'Round over (South cannot move): North takes the 3 seeds left on the board',
  );
  assert.equal(
    caption({ type: 'round_end', reason: { kind: 'no_legal_move', stuck: 'N' }, swept: [4, 0] }, 'South', ['You', 'Computer']),
    'Round over (Computer cannot move): you take the 4 seeds left on the board',
  );
  // One row, a repetition, and Pasu Pondi's stuck player (whose row holds the endless holes):
  // each player takes their own row.
  assert.equal(sweepText({ kind: 'repetition' }, [2, 5]), 'Each player takes their own row: South 2, North 5');
  assert.equal(sweepText({ kind: 'one_row' }, [0, 12], ['You', 'Friend'], false), 'each player takes their own row: you 0, Friend 12');
  assert.equal(sweepText({ kind: 'no_legal_move', stuck: 'N', endless: ['c'] }, [3, 6]), 'Each player takes their own row: South 3, North 6');
  assert.equal(sweepText({ kind: 'no_legal_move', stuck: 'N' }, [0, 0]), 'No seeds are left on the board');
});

test('the words of the captions and the round summary are in the Rules', async () => {
  const rules = await readFile(new URL('../../docs/rules.md', import.meta.url), 'utf8');
  const flat = rules.replace(/\s+/g, ' ');
  // "Necklace: South takes 3 from G too": the Rules give the caption's word for the chain.
  assert.match(caption({ type: 'capture', hole: 'd', seeds: 2, by: 'S', chained: true }, 'South'), /^Necklace:/);
  assert.match(flat, /\*\*The chain\*\* \(Walak-pussa only; the \*necklace\* in the web page's captions/);
  // The sweep, and the round summary's "Swept at the end".
  assert.match(flat, /Taking the seeds left on the board when a round ends is the \*\*sweep\*\*/);
  assert.match(flat, /"Swept at the end"/);
  // Endless moves: the rule for every player first, how pussa finds them in a section of its
  // own (the page folds it), and who takes the seeds when a player's every move is endless.
  const endless = rules.slice(rules.indexOf('### Endless moves'), rules.indexOf('\n## ', rules.indexOf('### Endless moves')));
  const [rule, how] = endless.split('#### How pussa finds them');
  assert.ok(how, 'a subsection "How pussa finds them"');
  assert.match(rule.replace(/\s+/g, ' '), /is \*\*not a legal move\*\*/);
  assert.match(rule.replace(/\s+/g, ' '), /in Walak-pussa and Raja Pasu the other player takes every seed left on the board; in Pasu Pondi each player takes the seeds in their own row/);
  assert.doesNotMatch(rule, /Brent|full hole|laps long|126,000/);
  assert.match(how, /Brent/);
});

test('hole names and owners', () => {
  assert.equal(holeIndex('A'), 0);
  assert.equal(holeIndex('g'), 13);
  assert.equal(holeIndex('x'), -1);
  assert.equal(ownerOf(6), 0);
  assert.equal(ownerOf(7), 1);
});

test('captions call the players what the page calls them, with "You" taking the plain verb', () => {
  const names = ['You', 'Computer'];
  assert.equal(caption({ type: 'lift', hole: 'A', seeds: 4, relay: false }, 'South', names), 'You lift A (4)');
  assert.equal(caption({ type: 'lift', hole: 'c', seeds: 4, relay: false }, 'North', names), 'Computer lifts c (4)');
  assert.equal(caption({ type: 'capture', hole: 'b', seeds: 6, by: 'S', chained: false }, 'South', names), 'You take 6 from b');
  assert.equal(caption({ type: 'capture', hole: 'd', seeds: 2, by: 'S', chained: true }, 'South', names), 'Necklace: you take 2 from d too');
  assert.equal(caption({ type: 'four', hole: 'c', owner: 'N' }, 'South', names), 'Four in c: Computer takes 4');
  assert.equal(caption({ type: 'four', hole: 'C', owner: 'S' }, 'North', names), 'Four in C: you take 4');
  assert.equal(caption({ type: 'match_end', winner: 'S' }, 'South', names), 'You win');
  assert.equal(
    caption({ type: 'refill', round: 2, filled: [7, 5], remainder: [3, 1], closed: [], starter: 'S' }, 'North', names),
    'Round 2: you fill 7 holes, Computer 5; you start',
  );
  assert.equal(
    caption({ type: 'round_end', reason: { kind: 'no_legal_move', stuck: 'S' }, swept: [0, 9] }, 'North', names),
    'Round over (you cannot move): Computer takes the 9 seeds left on the board',
  );
  // Without names, the sides as before.
  assert.equal(caption({ type: 'match_end', winner: 'N' }, 'South'), 'North wins');
});
