// A player's page always gets a place in its own game (QA pass 15, review-server defect 1):
// strangers holding every watcher's place of the game must not keep the player out, or the
// server counts the player away and the friend may claim the win. The page connects with its
// seat's token (`?token=`), which the server never refuses for the watchers' cap.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serverAndBrowser, newPage, onlineGame, openAs, apiMove } from './harness.js';

const env = serverAndBrowser();

/** Opens `n` token-less WebSockets to game `id` from `page`; answers how many opened. */
function fillWatchers(page, id, n) {
  return page.evaluate(
    ([gid, count]) => {
      window.held = window.held || [];
      const one = () =>
        new Promise((resolve) => {
          const ws = new WebSocket(`ws://${location.host}/api/games/${gid}/ws`);
          ws.onopen = () => {
            window.held.push(ws);
            resolve(true);
          };
          ws.onmessage = (e) => {
            const m = JSON.parse(e.data);
            if (m.type === 'presence') window.lastPresence = m;
          };
          ws.onerror = () => resolve(false);
        });
      return Promise.all(Array.from({ length: count }, one)).then((r) => r.filter(Boolean).length);
    },
    [id, n],
  );
}

test("a player's page connects to its game even when strangers hold every watcher's place", async () => {
  const { server, browser } = env;
  const g = await onlineGame(server);
  await apiMove(server, g); // South moved: North to move.
  // A stranger's page takes all 100 watchers' places; more are refused.
  const { page: stranger } = await newPage(browser, server);
  await stranger.goto(`${server.url}/`);
  assert.equal(await fillWatchers(stranger, g.id, 100), 100);
  assert.equal(await fillWatchers(stranger, g.id, 5), 0, 'the watchers are full');
  // North opens the game: the page connects with its seat and is live, not "reconnecting…".
  const { page: north } = await openAs(browser, server, g.id, g.N);
  await north.waitForFunction(() => document.querySelector('#live')?.textContent.trim() === 'live', null, {
    timeout: 15000,
  });
  // The others see North present (so nobody can claim the win from them).
  await stranger.waitForFunction(() => window.lastPresence?.present?.N === true, null, { timeout: 10000 });
  // And North, to move, plays as a player.
  await north.waitForFunction(() => document.querySelectorAll('svg.board .hole.legal').length > 0);
});
