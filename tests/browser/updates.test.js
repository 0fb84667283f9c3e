// WebSocket updates carry what changed, not the whole game (QA pass 15, review-server defect 5):
// a watcher's page follows a long match from the updates alone (moves, undos across a round's
// end), and shows the server's state and its whole move list.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serverAndBrowser, openAs, assertShowsServer, settle } from './harness.js';

const env = serverAndBrowser();

test("a watcher's page follows a long match from the updates and shows the server's state", async () => {
  const { server, browser } = env;
  const c = await server.post('/api/games', { game: 'pasu-pondi', mode: 'match', opponent: { kind: 'hotseat' } });
  const { page } = await openAs(browser, server, c.id, null);
  await settle(page, 0);
  let rng = 12345;
  let st = c.state;
  let undos = 0;
  while (st.ply < 240 && !st.match_over) {
    rng = (rng * 1103515245 + 12345) % 2147483648;
    const rounds = (st.rounds || []).length;
    let r;
    if (st.ply > 0 && rng % 11 === 0) {
      r = await server.post(`/api/games/${c.id}/undo`, { token: c.token });
      undos += 1;
    } else {
      r = await server.post(`/api/games/${c.id}/moves`, { move: st.legal[rng % st.legal.length], token: c.token });
      // A round's end is taken back at once now and then.
      if (r.state.rounds.length > rounds && undos % 2 === 0) {
        r = await server.post(`/api/games/${c.id}/undo`, { token: c.token });
        undos += 1;
      }
    }
    st = r.state;
  }
  const shown = await assertShowsServer(page, server, c.id, 'after a long match');
  assert.ok(shown.ply >= 200, `ply ${shown.ply}`);
  // The move list, built from the page's own moves (the updates' `played`), is the server's.
  const listed = await page.evaluate(() => [...document.querySelectorAll('#move-list .mv[data-ply]')].map((e) => e.textContent));
  const server_ = await server.get(`/api/games/${c.id}`);
  assert.deepEqual(listed, server_.moves.map((m) => m.move));
  // And so are the rounds' results (the round dialog's news comes from them).
  const roundsShown = await page.evaluate(() => document.querySelectorAll('#move-list li.round').length);
  assert.equal(roundsShown, new Set(server_.moves.map((m) => m.round)).size);
  page.checkClean();
});
