// The words of a match on the page (QA pass 15, report3 crossmatch defects 1 and 4): the hint
// tells a match value as the terminal game does (a match won or lost, or the holdings expected
// after the next round), and a match that ends on a holding too small to fill a hole says so in
// the sentence `pussa replay` and the terminal game use.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serverAndBrowser, openAs, settle, closeDialog } from './harness.js';

const env = serverAndBrowser();

/** Imports a hot-seat Raja Pasu match from `pos` and opens it; the page. */
async function openMatch(pos, result = '*') {
  const { server, browser } = env;
  const record = `[Game "raja-pasu"]\n[Mode "match"]\n[Position "${pos}"]\n\n${result}\n`;
  const r = await server.post('/api/games/import', { record, opponent: { kind: 'hotseat' } });
  const { page } = await openAs(browser, server, r.id, { token: r.token, seats: r.seats || ['S', 'N'] });
  await settle(page, 0);
  return { page, state: r.state };
}

async function hintText(page) {
  await closeDialog(page);
  await page.click('#hint');
  await page.waitForFunction(() => /^Hint: [A-Ga-g]/.test(document.querySelector('#hint-text').textContent), null, { timeout: 60000 });
  return page.textContent('#hint-text');
}

test('a match hint that wins the match says so, not "seeds with the next round"', async () => {
  const { page } = await openMatch('7,7,7,7,7,7,7/x,x,x,x,x,7,7 31 4 S 3 raja-pasu');
  const text = await hintText(page);
  assert.equal(text, 'Hint: A, South wins the match (match value +290, proven)');
  page.checkClean();
});

test('a match hint short of the end gives the holdings expected after the next round', async () => {
  const { page } = await openMatch('7,7,7,7,7,7,7/x,x,x,x,x,7,7 0+31 0+4 N 3 raja-pasu');
  const text = await hintText(page);
  assert.match(
    text,
    /^Hint: [a-g], North is expected to hold \d+ seeds? (more|fewer) than South after the next round \(match value [+-]\d+, depth \d+\)/,
  );
  assert.doesNotMatch(text, /with the next round/);
  page.checkClean();
});

test('a match that ends on a holding too small for a hole says why, in the turn line and the dialog', async () => {
  const { page, state } = await openMatch('0,0,0,0,0,0,0/x,x,x,x,x,1,1 93 3 S 3 raja-pasu', '1-0');
  assert.equal(state.match_over, true);
  const want = 'North holds 5, too few to fill a hole of 7 seeds, so the match is over: South wins, 93 to 5.';
  await page.waitForFunction(() => /too few/.test(document.querySelector('#turn').textContent), null, { timeout: 10000 });
  assert.equal((await page.textContent('#turn')).trim(), want);
  await page.waitForSelector('#round-dialog[open]');
  const dialog = await page.textContent('#round-dialog');
  assert.ok(dialog.includes(`${want} Seeds held: South 93, North 5.`), dialog);
  page.checkClean();
});
