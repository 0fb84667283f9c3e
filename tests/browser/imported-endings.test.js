// An imported tournament record of a match drawn at the round limit (QA pass 15, crossmatch
// defect 4): the page says so, not "Draw agreed".
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serverAndBrowser, openAs } from './harness.js';

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
});
