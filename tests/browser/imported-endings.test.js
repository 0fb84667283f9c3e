// Imported records (QA pass 15, crossmatch defects 4 and 5): a tournament match drawn at the
// round limit is told so, not "Draw agreed"; a match from a position whose round is already
// over shows that position at its start and plays ply 1 from it (round end and refill first).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serverAndBrowser, openAs, settle, closeDialog, assertShowsServer, shownCounts } from './harness.js';

const env = serverAndBrowser();

test('a match imported as drawn at the round limit is told so on the page', async () => {
  const { server, browser } = env;
  const record =
    '[Game "raja-pasu"]\n[Mode "match"]\n[First "S"]\n[Result "1/2-1/2"]\n' +
    '[Termination "drawn at the round limit (1)"]\n\n1. G e 2. D c 3. B g 4. E f 5. E g 6. C 1/2-1/2\n';
  const r = await server.post('/api/games/import', { record });
  assert.deepEqual(r.state.ended, { kind: 'round_limit', rounds: 1 });
  const { page } = await openAs(browser, server, r.id, { token: r.token, seats: r.seats || ['S', 'N'] });
  await page.waitForFunction(() => document.querySelector('#turn')?.textContent.includes('round limit'), null, {
    timeout: 10000,
  });
  const turn = await page.textContent('#turn');
  assert.equal(turn.trim(), 'Drawn at the round limit (1 round).');
  // The match ends with its last round (QA pass 21): the page shows that round's end, swept,
  // the holdings in the stores, as the server's state and `pussa replay` give it, not round 2
  // laid out with the refill's remainders.
  const st = await assertShowsServer(page, server, r.id, 'at the round limit');
  assert.equal(st.round, 1);
  assert.deepEqual(st.board, Array(14).fill(0));
  assert.equal(st.stores[0] + st.stores[1], 98);
  page.checkClean();
});

test('a match imported from a position whose round is over starts there and plays its first move from it', async () => {
  const { server, browser } = env;
  const pos = '0,0,0,0,0,0,0/x,x,3,1,0,0,2 10+50 4+28 S 2 raja-pasu N';
  const record = `[Game "raja-pasu"]\n[Mode "match"]\n[First "S"]\n[Position "${pos}"]\n\n*\n`;
  const r = await server.post('/api/games/import', { record });
  const { page } = await openAs(browser, server, r.id, { token: r.token, seats: r.seats || ['S', 'N'] }, { speed: 'fast' });
  await settle(page, 0);
  await closeDialog(page);
  // North opens round 3 with c: the round-2 end and the refill come first in its trace.
  await page.click('svg.board .hole[data-hole="c"]');
  await settle(page, 1);
  await closeDialog(page);
  await assertShowsServer(page, server, r.id, 'after ply 1');
  // Stepping back to the start shows the position as imported, not round 3's layout.
  await page.keyboard.press('Home');
  await page.waitForFunction(() => document.body.dataset.view === '0', null, { timeout: 5000 });
  const shown = await shownCounts(page);
  assert.deepEqual(shown.board, [0, 0, 0, 0, 0, 0, 0, 0, 0, 3, 1, 0, 0, 2]);
  assert.deepEqual(shown.stores, [60, 32]);
  page.checkClean();
});

test('imported tournament games lost by forfeit or on time say so, not "resigned" nor "Game ended (…)"', async () => {
  const { server, browser } = env;
  const cases = [
    ['time forfeit: South no move within 423.432 ms with 392.928 ms left on its clock (2+0.1, + 10 ms margin)', '0-1', 'time', 'South lost on time'],
    ['forfeit: North played an illegal move: illegal move A: not your hole: North is to move and owns a-g', '1-0', 'forfeit', 'North forfeited'],
  ];
  for (const [termination, result, kind, words] of cases) {
    const record =
      `[Game "raja-pasu"]\n[Mode "match"]\n[First "S"]\n[Result "${result}"]\n[Event "pussa tournament"]\n` +
      `[Termination "${termination}"]\n\n1. C d 2. D c 3. F d 4. G c ${result}\n`;
    const r = await server.post('/api/games/import', { record });
    assert.equal(r.state.ended.kind, kind);
    assert.equal(r.state.ended.termination, termination);
    const { page } = await openAs(browser, server, r.id, { token: r.token, seats: r.seats || ['S', 'N'] });
    await page.waitForFunction((w) => document.querySelector('#turn')?.textContent.includes(w), words, { timeout: 10000 });
    const turn = (await page.textContent('#turn')).trim();
    assert.ok(turn.startsWith(`${words}: `), turn);
    assert.ok(!/resigned|Game ended/.test(turn), turn);
    page.checkClean();
  }
});
