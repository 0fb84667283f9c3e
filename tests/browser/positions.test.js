// A game imported from a round-2 position string whose stores are written C+T (kept + taken in
// the round): the result and the scoreboard's "This round" count the round's takings.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serverAndBrowser, openAs, settle, closeDialog } from './harness.js';

const env = serverAndBrowser();

const thisRound = (page) =>
  page.evaluate(() => ['S', 'N'].map((s) => Number(document.querySelector(`#scoreboard td[data-store="${s}"]`).nextElementSibling.textContent)));

test('a single game from a round-2 position is won and scored by the seeds taken in its round', async () => {
  const { server, browser } = env;
  const pos = 'x,x,x,x,x,0,1/0,0,0,0,0,0,1 2+48 46 S 2 raja-pasu';
  const r = await server.post('/api/games/import', { record: `[Game "raja-pasu"]\n[Position "${pos}"]\n\n1. G a 1-0\n` });
  assert.equal(r.state.winner, 'S', JSON.stringify(r));
  const { page, ctx } = await openAs(browser, server, r.id, null);
  await settle(page, r.state.ply);
  await closeDialog(page);
  // South took 48 in the round, North 2; both hold 50 and 48 in store.
  assert.match(await page.textContent('#turn'), /Game over: South wins 48–2/);
  assert.deepEqual(await thisRound(page), [48, 2]);
  // The start position: South's 48 were already taken in the round.
  await page.keyboard.press('Home');
  await page.waitForFunction(() => document.body.dataset.view === '0', null, { timeout: 5000 });
  assert.deepEqual(await thisRound(page), [48, 0]);
  await ctx.close();
});
