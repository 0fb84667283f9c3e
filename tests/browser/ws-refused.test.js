// A page whose WebSocket upgrade the server refuses (QA pass 19, review-server2 second pass,
// defect 3): a browser does not tell the page why, so the page asks the same URL with a plain
// GET, learns the reason and shows it, instead of "reconnecting…" for ever with no word.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serverAndBrowser, newPage, onlineGame, openAs, refusedWith } from './harness.js';

const env = serverAndBrowser();

test("a page refused its live connection says the server's reason", async () => {
  const { server, browser } = env;
  const g = await onlineGame(server);
  // A stranger's page takes all 100 watchers' places of the game.
  const { page: stranger } = await newPage(browser, server);
  stranger.expectErrors('Error during WebSocket handshake: Unexpected response code: 429');
  await stranger.goto(`${server.url}/`);
  const opened = await stranger.evaluate(
    ([gid, count]) => {
      window.held = [];
      const one = () =>
        new Promise((resolve) => {
          const ws = new WebSocket(`ws://${location.host}/api/games/${gid}/ws`);
          ws.onopen = () => {
            window.held.push(ws);
            resolve(true);
          };
          ws.onerror = () => resolve(false);
        });
      return Promise.all(Array.from({ length: count }, one)).then((r) => r.filter(Boolean).length);
    },
    [g.id, 100],
  );
  assert.equal(opened, 100);
  // A watcher's page (no seat) is refused: it says why.
  const { page: watcher } = await openAs(browser, server, g.id, null, {
    expectErrors: [
      'Error during WebSocket handshake: Unexpected response code: 429',
      refusedWith(429),
      "error notice: The server refused this page's live connection",
    ],
  });
  await watcher.waitForFunction(
    () => !document.querySelector('#notice').hidden && /too many watchers of game/.test(document.querySelector('#notice-text').textContent),
    null,
    { timeout: 15000 },
  );
  assert.match(await watcher.textContent('#notice-text'), /refused this page's live connection/);
  assert.equal((await watcher.textContent('#live')).trim(), 'not connected');
  // A place frees: the page connects on its own, and the notice goes.
  await stranger.evaluate(() => window.held.pop().close());
  await watcher.waitForFunction(() => document.querySelector('#live')?.textContent.trim() === 'live', null, { timeout: 20000 });
  assert.equal(await watcher.evaluate(() => document.querySelector('#notice').hidden), true);
});
