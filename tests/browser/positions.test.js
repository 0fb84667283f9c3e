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

test('the Game over dialog of a single game from a later round gives the seeds taken, not the holdings', async () => {
  const { server, browser } = env;
  // Round 3 of Raja Pasu played alone: South holds far more, North takes more in the round.
  const pos = '1,1,2,0,0,2,5/x,x,x,x,x,x,0 65+5 0+17 S 3 raja-pasu';
  const r = await server.post('/api/games/import', { record: `[Game "raja-pasu"]\n[Mode "single"]\n[Position "${pos}"]\n\n1. C 0-1\n` });
  assert.equal(r.state.winner, 'N', JSON.stringify(r));
  assert.deepEqual(r.state.taken, [16, 17]);
  assert.deepEqual(r.state.stores, [81, 17]);
  const { page, ctx } = await openAs(browser, server, r.id, null);
  await settle(page, r.state.ply);
  await page.waitForSelector('#round-dialog[open] p.big strong');
  // The winner's score first, in seeds taken (17–16), as the top line and the CLI say; the
  // holdings (81 and 17) are told as holdings.
  assert.equal(await page.textContent('#round-dialog p.big strong'), 'North wins 17–16.');
  assert.match(await page.textContent('#round-dialog p.big'), /Seeds held: South 81, North 17\./);
  assert.match(await page.textContent('#turn'), /Game over: North wins 17–16/);
  await closeDialog(page);
  await ctx.close();
});
