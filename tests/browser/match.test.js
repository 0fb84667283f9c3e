// A match on one screen: the move that ends a round is animated through the sweep and the
// refill, the round summary is shown, and the next round's board (closed holes included) equals
// the server's state.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { serverAndBrowser, newPage, settle, assertShowsServer, SHOTS } from './harness.js';

// One `pussa serve` and one Chromium for the file's tests.
const env = serverAndBrowser();

/** Opens the hot-seat game `id` that the API created (its token holding both seats), at `ply`. */
async function openHotseat(browser, server, id, token, ply) {
  const { page } = await newPage(browser, server, { speed: 'fast' });
  await page.addInitScript(
    ([gid, tok]) => localStorage.setItem('pussa.seats', JSON.stringify({ [gid]: { token: tok, seats: ['S', 'N'] } })),
    [id, token],
  );
  await page.goto(`${server.url}/#/game/${id}`);
  await settle(page, ply);
  return page;
}

test('a match: the round-ending move, the summary dialog, closed holes in the next round', async () => {
  const { server, browser } = env;
  const created = await server.post('/api/games', { game: 'pasu-pondi', mode: 'match', opponent: { kind: 'hotseat' } });
  const { id, token } = created;
  // Play through the API until the first round ends, then take the last move back.
  let st = created.state;
  let k = 0;
  while ((st.rounds || []).length === 0) {
    assert.ok(++k < 1000, 'the first round ends');
    const mv = st.legal[(k * 7) % st.legal.length];
    st = (await server.post(`/api/games/${id}/moves`, { move: mv, token })).state;
  }
  const ending = st.moves[st.moves.length - 1];
  const after = st;
  st = (await server.post(`/api/games/${id}/undo`, { token })).state;
  assert.equal(st.rounds.length, 0, 'undo went back into round 1');
  assert.ok(st.legal.includes(ending.move));

  const page = await openHotseat(browser, server, id, token, st.ply);
  await assertShowsServer(page, server, id, 'before the last move of round 1');
  await page.click(`svg.board .hole[data-hole="${ending.move}"]`);
  // The sweep (round_end) is captioned while the animation runs.
  await page.waitForFunction(() => /Round over|Round 2|wins|draw/.test(document.querySelector('#caption').textContent), null, { timeout: 60000 });
  await settle(page, st.ply + 1, 60000);
  st = await assertShowsServer(page, server, id, 'after the round-ending move');
  assert.deepEqual(st.board, after.board);
  await page.waitForSelector('#round-dialog[open]');
  const text = await page.textContent('#round-dialog');
  assert.match(text, /Round 1 ended/);
  const r = st.rounds[0];
  assert.ok(text.includes(String(r.taken[0])) && text.includes(String(r.taken[1])), 'the summary shows what each took');
  await page.screenshot({ path: join(SHOTS, 'match-round-summary.png') });
  await page.click('#round-dialog button[value="ok"]');
  if (!st.match_over) {
    assert.equal(st.round, 2);
    const closed = await page.$$eval('svg.board .hole.closed', (gs) => gs.map((g) => g.getAttribute('aria-label')));
    assert.equal(closed.length, st.closed.length);
    for (const label of closed) assert.match(label, /closed/);
    const listed = await page.$$eval('#move-list li.round', (els) => els.map((e) => e.textContent));
    assert.deepEqual(listed, ['Round 1', ...(st.moves.some((m) => m.round === 2) ? ['Round 2'] : [])]);
    // A move in round 2 still matches the server.
    await page.click(`svg.board .hole[data-hole="${st.legal[0]}"]`);
    await settle(page, st.ply + 1, 60000);
    st = await assertShowsServer(page, server, id, 'first move of round 2');
    await page.screenshot({ path: join(SHOTS, 'match-round-2.png') });
  }
  page.checkClean();
});

test('a round that starts as an earlier one did is called a circle in the summary and the score line', async () => {
  const { server, browser } = env;
  // Walak-pussa played perfectly for seeds (docs/solved.md): round 3 starts as round 2 did.
  const moves = 'A f B e E d C b A g G g F e F b D g A f C e D c E d F f G a e E f G d E b F b D b E'.split(' ');
  const created = await server.post('/api/games', { game: 'walak-pussa', mode: 'match', opponent: { kind: 'hotseat' } });
  const { id, token } = created;
  let st = created.state;
  for (const mv of moves.slice(0, -1)) st = (await server.post(`/api/games/${id}/moves`, { move: mv, token })).state;
  assert.equal(st.round, 2);
  assert.equal(st.repeats_round, null);

  const page = await openHotseat(browser, server, id, token, st.ply);
  assert.doesNotMatch(await page.textContent('#round-line'), /starts as round/);
  await page.click(`svg.board .hole[data-hole="${moves[moves.length - 1]}"]`);
  await settle(page, st.ply + 1, 60000);
  st = await assertShowsServer(page, server, id, 'after the move that ends round 2');
  assert.equal(st.round, 3);
  assert.equal(st.repeats_round, 2);
  await page.waitForSelector('#round-dialog[open]');
  assert.match(await page.textContent('#round-dialog'), /Round 3 starts exactly as round 2 did.*going round in a circle/);
  assert.match(await page.textContent('#round-line'), /Round 3 .* starts as round 2 did/);
  await page.screenshot({ path: join(SHOTS, 'match-circle.png') });
  page.checkClean();
});
