// The animation's captions (crates/server/web/board.js), run in node: one line per trace event,
// whatever spelling of the sides the server uses ("S"/"N" or "South"/"North").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';

const src = await readFile(new URL('../../crates/server/web/board.js', import.meta.url), 'utf8');
const { caption, reasonText, holeIndex, ownerOf } = await import(`data:text/javascript,${encodeURIComponent(src)}`);

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
    'Round over (all seeds in one row): South sweeps 3, North 0',
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
    'Round over (you cannot move: F would sow for ever): you sweep 0, Computer 9',
  );
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
    'Round over (you cannot move): you sweep 0, Computer 9',
  );
  // Without names, the sides as before.
  assert.equal(caption({ type: 'match_end', winner: 'N' }, 'South'), 'North wins');
});
