// A player's page always gets a place in its own game (QA pass 15, review-server defect 1):
// strangers holding every watcher's place of the game must not keep the player out, or the
// server counts the player away and the friend may claim the win. The page connects with its
// seat's token (in `Sec-WebSocket-Protocol`), which the server never refuses for the watchers'
// cap.
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
  // The watchers past the limit are refused on purpose.
  stranger.expectErrors('Error during WebSocket handshake: Unexpected response code: 429');
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

// A seat token the server refuses (a stale or wrong seat in this browser's storage: QA pass 15,
// review-server second pass, defect 1): the server counts the page as a watcher, so the page
// must not go on saying "Your move" and offering holes. It says the seat is no longer valid,
// shows the game as a watcher's and forgets the seat (other games' seats stay).
test('a page whose stored seat the server refuses says so, watches and forgets the seat', async () => {
  const { server, browser } = env;
  const g = await onlineGame(server);
  const other = await onlineGame(server);
  const { page, ctx } = await newPage(browser, server);
  // The seat refused on purpose (403), and the page saying so.
  page.expectErrors('Unexpected response code: 403', "This browser's seat in this game is no longer valid");
  await ctx.addInitScript(
    ([gid, oid, otherSeat]) => {
      if (sessionStorage.getItem('seeded')) return;
      sessionStorage.setItem('seeded', '1');
      localStorage.setItem(
        'pussa.seats',
        JSON.stringify({ [gid]: { token: '0123456789abcdef0123456789abcdef', seats: ['S'] }, [oid]: otherSeat }),
      );
    },
    [g.id, other.id, { token: other.S.token, seats: other.S.seats }],
  );
  await page.goto(`${server.url}/#/game/${g.id}`);
  await page.waitForSelector('body[data-ready="1"]');
  await page.waitForFunction(() => /no longer valid/.test(document.querySelector('#notice-text')?.textContent || ''), null, {
    timeout: 15000,
  });
  const shown = await page.evaluate(() => ({
    notice: document.querySelector('#notice').hidden ? '' : document.querySelector('#notice-text').textContent,
    turn: document.querySelector('#turn').textContent,
    sub: document.querySelector('#game-sub').textContent,
    legal: document.querySelectorAll('svg.board .hole.legal').length,
    seats: JSON.parse(localStorage.getItem('pussa.seats') || '{}'),
  }));
  assert.equal(
    shown.notice,
    "This browser's seat in this game is no longer valid (the server does not know its token): you are watching this game.",
  );
  assert.doesNotMatch(shown.turn, /Your move/);
  // The server counts South away: nobody is on South's seat.
  assert.equal(shown.turn, 'South to move, but away: the move waits for them.');
  assert.match(shown.sub, /watching \(read-only\)/);
  assert.equal(shown.legal, 0, 'no hole is offered');
  assert.equal(shown.seats[g.id], undefined, 'the stale seat is forgotten');
  assert.deepEqual(shown.seats[other.id]?.token, other.S.token, "another game's seat stays");
  // Clicking a hole plays nothing.
  await page.locator('svg.board .hole[data-hole="A"]').click();
  await page.waitForTimeout(300);
  assert.equal((await server.get(`/api/games/${g.id}`)).ply, 0);
  // A reload opens the game as a watcher's, without the notice.
  await page.reload();
  await page.waitForSelector('body[data-ready="1"]');
  await page.waitForFunction(() => document.querySelector('#live')?.textContent.trim() === 'live');
  assert.equal(await page.evaluate(() => document.querySelectorAll('svg.board .hole.legal').length), 0);
  assert.match(await page.locator('#game-sub').textContent(), /watching \(read-only\)/);
  page.checkClean();
});
