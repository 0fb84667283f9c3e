// The refill step of the move animation (crates/server/web/board.js), run in node on a trace the
// crate writes (`pussa explain --match --json`, the same serde as the web API's trace): the
// board drawn after the `refill` event closes exactly the holes the event lists by index.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import { pussaBinary } from './harness.js';

const src = await readFile(new URL('../../crates/server/web/board.js', import.meta.url), 'utf8');
const { Animator, SEEDS_PER_HOLE } = await import(`data:text/javascript,${encodeURIComponent(src)}`);
// The binary under test, found as every browser test finds it ($PUSSA_BIN, $CARGO_TARGET_DIR, target/).
const PUSSA = pussaBinary();

/** A board that draws nothing and keeps the last model rendered. */
function fakeBoard() {
  const drawn = { last: null };
  const noop = () => {};
  return {
    drawn,
    render(m) { drawn.last = { board: [...m.board], closed: [...m.closed], stores: [...m.stores] }; },
    clearMarks: noop, mark: noop, showHand: noop, hideHand: noop,
  };
}

test('a refill closes the holes its trace lists by index, and fills the others', async () => {
  // Raja Pasu: South's C ends round 1; North, holding 33, has a b c closed in round 2.
  const pos = '3,0,1,0,1,2,0/0,0,0,0,0,0,0 58 33 S 1 raja-pasu';
  const trace = JSON.parse(execFileSync(PUSSA, ['explain', '--position', pos, '--move', 'C', '--match', '--json'], { encoding: 'utf8' }));
  const refill = trace.find((e) => e.type === 'refill');
  assert.deepEqual(refill.closed, [7, 8, 9]);
  const board = fakeBoard();
  const animator = new Animator(board, null);
  animator.sleep = async () => {};
  let atRefill = null;
  animator.onStep = (ev, m) => { if (ev.type === 'refill') atRefill = { closed: [...m.closed], board: [...m.board] }; };
  const before = { board: [3, 0, 1, 0, 1, 2, 0, 0, 0, 0, 0, 0, 0, 0], closed: new Array(14).fill(false), stores: [58, 33] };
  await animator.play(before, trace, 'South', 'raja-pasu');
  assert.ok(atRefill, 'the refill was drawn');
  const sph = SEEDS_PER_HOLE['raja-pasu'];
  for (let i = 0; i < 14; i++) {
    const shut = [7, 8, 9].includes(i);
    assert.equal(atRefill.closed[i], shut, `hole ${i} closed`);
    assert.equal(atRefill.board[i], shut ? 0 : sph, `hole ${i} seeds`);
  }
  assert.deepEqual(atRefill.closed, board.drawn.last.closed);
});
