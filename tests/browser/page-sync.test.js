// The page kept in step with the server and with the game shown (QA pass 17, review-web defects
// 1, 2, 6, 8, 9, 11, 12, 13): a resync at the same ply count with other moves, a move refused as
// illegal on a stale board, a left game's answers and hints never drawn onto the next game, U
// online never accepting the friend's takeback, the resign question not carried into the next
// game, one game per press of Import and Play again, a stale undo said in words and caught up
// with, the player's own second tab told that they started the rematch, and no media-query
// listener left behind by each board.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serverAndBrowser, newPage, onlineGame, openAs, settle, assertShowsServer, noticeText, refusedWith } from './harness.js';

const env = serverAndBrowser();

/**
 * Routes the page's game WebSocket through a switch: `hole.on = true` holds every message both
 * ways (a laptop asleep, a lost Wi-Fi), `false` lets them through again.
 */
async function switchedSocket(page) {
  const hole = { on: false };
  await page.routeWebSocket(/\/ws(\?.*)?$/, (ws) => {
    const server = ws.connectToServer();
    ws.onMessage((m) => {
      if (!hole.on) server.send(m);
    });
    server.onMessage((m) => {
      if (!hole.on) ws.send(m);
    });
  });
  return hole;
}

/** A game on one screen opened in a new page that holds both seats; `{id, token, page, ctx, hole}`. */
async function hotseatPage(browser, server, { game = 'walak-pussa', cut = false } = {}) {
  const c = await server.post('/api/games', { game, opponent: { kind: 'hotseat' } });
  const { page, ctx } = await newPage(browser, server);
  const hole = cut ? await switchedSocket(page) : null;
  await ctx.addInitScript(([gid, s]) => {
    const all = JSON.parse(localStorage.getItem('pussa.seats') || '{}');
    if (!all[gid]) all[gid] = s;
    localStorage.setItem('pussa.seats', JSON.stringify(all));
  }, [c.id, { token: c.token, seats: c.seats || ['S', 'N'] }]);
  await page.goto(`${server.url}/#/game/${c.id}`);
  await page.waitForSelector('body[data-ready="1"]');
  await settle(page, 0);
  return { id: c.id, token: c.token, page, ctx, hole };
}

/** The moves the page's move list shows, in order ("C d …"). */
const shownMoves = (page) => page.evaluate(() => [...document.querySelectorAll('#move-list .mv')].map((m) => m.textContent.trim().split(/\s+/).pop()).join(' '));

/** The ids of the games the server lists. */
const gameIds = async (server) => new Set(((await server.get('/api/games?limit=200')).games || []).map((g) => g.id));

test('a resync at the same ply count with other moves shows the server’s game', async () => {
  const { server, browser } = env;
  const { id, token, page, ctx, hole } = await hotseatPage(browser, server, { cut: true });
  await page.waitForSelector('#live.open');
  await page.click('svg.board .hole[data-hole="C"]');
  await settle(page, 1);
  // The connection drops; meanwhile another window takes C back and plays D instead: the game
  // is at ply 1 again, with another move.
  hole.on = true;
  await page.waitForSelector('#live:not(.open)', { timeout: 15000 });
  await server.post(`/api/games/${id}/undo`, { token });
  const st = (await server.post(`/api/games/${id}/moves`, { move: 'D', token, expected_ply: 0 })).state;
  assert.equal(st.ply, 1);
  hole.on = false;
  await page.waitForSelector('#live.open', { timeout: 20000 });
  await page.waitForFunction(() => /D/.test(document.querySelector('#move-list').textContent), null, { timeout: 10000 });
  await assertShowsServer(page, server, id, 'after the resync');
  assert.equal(await shownMoves(page), 'D');
  const legal = await page.evaluate(() => [...document.querySelectorAll('svg.board .hole.legal')].map((g) => g.dataset.hole).sort().join(''));
  assert.equal(legal, [...st.legal].sort().join(''));
  // What changed is told: the move taken back and the one played.
  assert.match(await page.textContent('#caption'), /1 move was taken back\. .*played D/);
  page.checkClean();
  await ctx.close();
});

test('a move refused as illegal on a stale board loads the server’s game', async () => {
  const { server, browser } = env;
  const { id, token, page, ctx, hole } = await hotseatPage(browser, server, { cut: true });
  page.expectErrors(refusedWith(422)); // the move refused as illegal on purpose
  await page.waitForSelector('#live.open');
  await page.click('svg.board .hole[data-hole="C"]');
  await settle(page, 1);
  hole.on = true;
  await page.waitForSelector('#live:not(.open)', { timeout: 15000 });
  await server.post(`/api/games/${id}/undo`, { token });
  const st = (await server.post(`/api/games/${id}/moves`, { move: 'D', token, expected_ply: 0 })).state;
  // b shows seeds on the page's board (after 1. C) but is empty on the server's (after 1. D):
  // refused as illegal while the connection is still down.
  const b = 'abcdefg'.indexOf('b') + 7;
  assert.equal(st.board[b], 0);
  assert.ok(await page.evaluate(() => document.querySelector('svg.board .hole[data-hole="b"]').classList.contains('legal')));
  await page.click('svg.board .hole[data-hole="b"]');
  await page.waitForFunction(() => /D/.test(document.querySelector('#move-list').textContent), null, { timeout: 10000 });
  await assertShowsServer(page, server, id, 'after the refusal');
  assert.equal(await shownMoves(page), 'D');
  assert.match(await noticeText(page), /b was not played: the game changed meanwhile/);
  assert.equal((await server.get(`/api/games/${id}`)).ply, 1);
  page.checkClean();
  await ctx.close();
});

test('a move’s answer that comes after another game was opened is not drawn onto it', async () => {
  const { server, browser } = env;
  const { page, ctx } = await newPage(browser, server);
  await page.goto(`${server.url}/`);
  await page.waitForSelector('body[data-ready="1"]');
  const c = await server.post('/api/games', { game: 'walak-pussa', opponent: { kind: 'computer', level: 'beginner' }, seat: 'S', first: 'S' });
  const other = await server.post('/api/games', { game: 'raja-pasu', opponent: { kind: 'hotseat' } });
  await page.evaluate(([gid, s]) => localStorage.setItem('pussa.seats', JSON.stringify({ [gid]: s })), [c.id, { token: c.token, seats: c.seats || ['S'] }]);
  await page.evaluate((gid) => (location.hash = `#/game/${gid}`), c.id);
  await settle(page, 0);
  // The move's answer is held until the player has gone on to watch another game.
  let release;
  const held = new Promise((r) => (release = r));
  await page.route('**/api/games/*/moves', async (route) => {
    await held;
    await route.continue();
  });
  await page.click('svg.board .hole[data-hole="C"]');
  await page.evaluate((gid) => (location.hash = `#/game/${gid}`), other.id);
  await page.waitForFunction((gid) => document.querySelector('#game-sub').textContent.includes(gid), other.id);
  await settle(page, 0);
  const shown = () =>
    page.evaluate(() => ({
      title: document.querySelector('#game-title').textContent,
      exportHref: document.querySelector('#export').getAttribute('href'),
      position: document.querySelector('#position').textContent,
      undo: !document.querySelector('#undo').hidden,
      hint: !document.querySelector('#hint').hidden,
      watcherKeys: !document.querySelector('#keys-watcher').hidden,
    }));
  const before = await shown();
  assert.match(before.exportHref, new RegExp(other.id));
  release();
  // The answer arrives (the move is stored) while the Raja Pasu game is shown.
  for (let i = 0; i < 100 && (await server.get(`/api/games/${c.id}`)).ply < 2; i++) await page.waitForTimeout(100);
  await page.waitForTimeout(800);
  assert.deepEqual(await shown(), before);
  assert.match(before.position, /raja-pasu/);
  page.checkClean();
  await ctx.close();
});

test('a hint that comes after another game was opened is not shown under it', async () => {
  const { server, browser } = env;
  const { id, page, ctx } = await hotseatPage(browser, server);
  const other = await server.post('/api/games', { game: 'raja-pasu', opponent: { kind: 'hotseat' } });
  let release;
  const held = new Promise((r) => (release = r));
  let answered = false;
  await page.route('**/api/games/*/hint*', async (route) => {
    await held;
    await route.continue();
    answered = true;
  });
  await page.click('#hint');
  await page.evaluate((gid) => (location.hash = `#/game/${gid}`), other.id);
  await page.waitForFunction((gid) => document.querySelector('#game-sub').textContent.includes(gid), other.id);
  await settle(page, 0);
  release();
  for (let i = 0; i < 200 && !answered; i++) await page.waitForTimeout(100);
  assert.ok(answered, `the hint of ${id} was answered`);
  await page.waitForTimeout(500);
  assert.equal(await page.textContent('#hint-text'), '');
  assert.equal(await page.evaluate(() => document.querySelectorAll('svg.board .hole.hint').length), 0);
  page.checkClean();
  await ctx.close();
});

test('online, U with the friend’s takeback standing asks; with one’s own standing it withdraws it', async () => {
  const { server, browser } = env;
  const g = await onlineGame(server, { game: 'walak-pussa' });
  const { page } = await openAs(browser, server, g.id, g.S);
  await settle(page, 0);
  await page.waitForSelector('#live.open');
  await page.click('svg.board .hole[data-hole="C"]');
  await settle(page, 1);
  const st1 = await server.get(`/api/games/${g.id}`);
  await server.post(`/api/games/${g.id}/moves`, { move: st1.legal[0], token: g.N.token, expected_ply: 1 });
  await settle(page, 2);
  // The friend proposes to take their move back; the host presses U.
  await server.post(`/api/games/${g.id}/takeback`, { token: g.N.token, offer: true });
  await page.waitForSelector('#offer-bar:not([hidden])');
  await page.focus('#game-title');
  await page.keyboard.press('u');
  await page.waitForTimeout(800);
  let st = await server.get(`/api/games/${g.id}`);
  assert.equal(st.ply, 2, 'nothing taken back');
  assert.equal(st.offers.takeback, 'N', "the friend's proposal still stands");
  assert.match(await page.textContent('#caption'), /Your friend proposes a takeback .*Accept or decline it/);
  assert.doesNotMatch(await page.textContent('#caption'), /Takeback proposed/);
  assert.equal(await page.evaluate(() => document.activeElement.id), 'offer-accept');
  // Declined, then the host proposes with U, and U again withdraws the proposal.
  await page.click('#offer-decline');
  await page.waitForSelector('#offer-bar', { state: 'hidden' });
  await page.focus('#game-title');
  await page.keyboard.press('u');
  await page.waitForFunction(() => /Takeback proposed/.test(document.querySelector('#caption').textContent));
  assert.equal((await server.get(`/api/games/${g.id}`)).offers.takeback, 'S');
  await page.waitForFunction(() => document.querySelector('#offer-takeback').textContent === 'Cancel the takeback');
  await page.focus('#game-title');
  await page.keyboard.press('u');
  await page.waitForFunction(() => /Takeback proposal withdrawn/.test(document.querySelector('#caption').textContent));
  st = await server.get(`/api/games/${g.id}`);
  assert.equal(st.offers.takeback, null);
  assert.equal(st.ply, 2);
  page.checkClean();
  await page.context().close();
});

test('the resign question left open is not carried into the next game', async () => {
  const { server, browser } = env;
  const { page, ctx } = await hotseatPage(browser, server);
  await page.click('#resign');
  await page.waitForSelector('#resign-confirm:not([hidden])');
  await page.evaluate(() => (location.hash = '#/'));
  await page.waitForSelector('#view-home:not([hidden])');
  await page.check('input[name="opponent"][value="hotseat"]');
  await page.click('#start');
  await page.waitForFunction(() => /^#\/game\//.test(location.hash) && !document.querySelector('#view-game').hidden);
  await settle(page, 0);
  assert.equal(await page.locator('#resign-confirm').isHidden(), true);
  assert.equal(await page.locator('#resign').isVisible(), true);
  page.checkClean();
  await ctx.close();
});

test('a double click on Import and open starts one game', async () => {
  const { server, browser } = env;
  const src = await server.post('/api/games', { game: 'walak-pussa', opponent: { kind: 'hotseat' } });
  await server.post(`/api/games/${src.id}/moves`, { move: 'C', token: src.token });
  const record = await fetch(`${server.url}/api/games/${src.id}/record`).then((r) => r.text());
  const { page, ctx } = await newPage(browser, server);
  await page.goto(`${server.url}/`);
  await page.waitForSelector('body[data-ready="1"]');
  await page.fill('#import-text', record);
  const before = await gameIds(server);
  await page.dblclick('#import-form button[type="submit"]');
  await page.waitForFunction(() => /^#\/game\//.test(location.hash));
  await settle(page, 1);
  await page.waitForTimeout(500);
  const made = [...(await gameIds(server))].filter((i) => !before.has(i));
  assert.equal(made.length, 1, `games made by one double click on Import: ${made}`);
  page.checkClean();
  await ctx.close();
});

test('a double click on Play again starts one game', async () => {
  const { server, browser } = env;
  const { page, ctx } = await hotseatPage(browser, server);
  await page.click('svg.board .hole[data-hole="C"]');
  await settle(page, 1);
  // Finished (the player to move resigns), the result closed: Play again, double-clicked.
  await page.click('#resign');
  await page.click('#resign-yes');
  await page.waitForSelector('#round-dialog[open]');
  await page.click('#round-dialog-ok');
  await page.waitForSelector('#again:not([hidden])');
  const first = await page.evaluate(() => location.hash);
  const before = await gameIds(server);
  await page.dblclick('#again');
  await page.waitForFunction((h) => location.hash !== h, first);
  await settle(page, 0);
  await page.waitForTimeout(500);
  const made = [...(await gameIds(server))].filter((i) => !before.has(i));
  assert.equal(made.length, 1, `games made by one double click on Play again: ${made}`);
  page.checkClean();
  await ctx.close();
});

test('undo on a page that is behind says so in words and catches up', async () => {
  const { server, browser } = env;
  const { id, token, page, ctx, hole } = await hotseatPage(browser, server, { cut: true });
  page.expectErrors(refusedWith(409), 'Cannot undo: the game moved on meanwhile');
  await page.waitForSelector('#live.open');
  await page.click('svg.board .hole[data-hole="C"]');
  await settle(page, 1);
  hole.on = true;
  await page.waitForSelector('#live:not(.open)', { timeout: 15000 });
  const st1 = await server.get(`/api/games/${id}`);
  await server.post(`/api/games/${id}/moves`, { move: st1.legal[0], token, expected_ply: 1 });
  await page.click('#undo');
  await page.waitForFunction(() => !document.querySelector('#notice').hidden);
  const text = await noticeText(page);
  assert.match(text, /^Cannot undo: the game moved on meanwhile/);
  assert.doesNotMatch(text, /reload the state|stale/);
  // The page loads the game as it is, its connection still down.
  await settle(page, 2, 10000);
  await assertShowsServer(page, server, id, 'after the stale undo');
  assert.equal((await server.get(`/api/games/${id}`)).ply, 2);
  page.checkClean();
  await ctx.close();
});

test('online, the tab of the player who started the rematch says so, both buttons alike', async () => {
  const { server, browser } = env;
  const g = await onlineGame(server, { game: 'walak-pussa' });
  const { page: tab1, ctx } = await openAs(browser, server, g.id, g.S);
  const tab2 = await ctx.newPage();
  await tab2.goto(`${server.url}/#/game/${g.id}`);
  await tab2.waitForSelector('body[data-ready="1"]');
  await settle(tab1, 0);
  await settle(tab2, 0);
  await tab1.waitForSelector('#live.open');
  await tab2.waitForSelector('#live.open');
  // Both have moved (a game nobody has moved in is aborted, not resigned); then North resigns.
  await tab1.click('svg.board .hole[data-hole="C"]');
  await settle(tab1, 1);
  const st1 = await server.get(`/api/games/${g.id}`);
  await server.post(`/api/games/${g.id}/moves`, { move: st1.legal[0], token: g.N.token, expected_ply: 1 });
  await server.post(`/api/games/${g.id}/resign`, { token: g.N.token });
  await tab1.waitForSelector('#round-dialog[open]');
  await tab2.waitForSelector('#round-dialog[open]');
  // Every message tab 2 shows from now on.
  await tab2.evaluate(() => {
    window.__notices = [];
    const t = document.querySelector('#notice-text');
    new MutationObserver(() => window.__notices.push(t.textContent)).observe(t, { childList: true, characterData: true, subtree: true });
  });
  await tab1.click('#round-dialog-ok');
  await tab1.click('#again');
  await tab1.waitForFunction((id) => /^#\/game\//.test(location.hash) && !location.hash.includes(id), g.id);
  const rematch = await tab1.evaluate(() => decodeURIComponent(location.hash.split('/')[2]));
  await tab2.waitForFunction(() => !document.querySelector('#notice').hidden);
  const said = await noticeText(tab2);
  assert.match(said, /You started the rematch/);
  assert.doesNotMatch(said, /Your friend asks/);
  assert.deepEqual((await tab2.evaluate(() => window.__notices)).filter((n) => /Your friend asks/.test(n)), []);
  assert.equal(await tab2.textContent('#again'), 'Open the rematch');
  assert.equal(await tab2.textContent('#rematch'), 'Open the rematch');
  // The dialog's button opens it, the seat held.
  await tab2.click('#rematch');
  await tab2.waitForFunction((id) => location.hash === `#/game/${id}`, rematch);
  await tab2.waitForFunction(() => /you play North/.test(document.querySelector('#game-sub').textContent));
  tab1.checkClean();
  await ctx.close();
});

test('a game view closed removes its board’s media-query listener', async () => {
  const { server, browser } = env;
  const a = await server.post('/api/games', { game: 'walak-pussa', opponent: { kind: 'hotseat' } });
  const b = await server.post('/api/games', { game: 'raja-pasu', opponent: { kind: 'hotseat' } });
  const { page, ctx } = await newPage(browser, server);
  await ctx.addInitScript(() => {
    // Counts the listeners standing on the board's media query (added less removed).
    window.__boardListeners = 0;
    window.__layouts = 0;
    const add = MediaQueryList.prototype.addEventListener;
    const remove = MediaQueryList.prototype.removeEventListener;
    const wrapped = new WeakMap();
    MediaQueryList.prototype.addEventListener = function (t, f, o) {
      if (t === 'change' && this.media.includes('600px')) {
        window.__boardListeners++;
        const w = function (...x) {
          window.__layouts++;
          return f.apply(this, x);
        };
        wrapped.set(f, w);
        return add.call(this, t, w, o);
      }
      return add.call(this, t, f, o);
    };
    MediaQueryList.prototype.removeEventListener = function (t, f, o) {
      if (t === 'change' && this.media.includes('600px') && wrapped.has(f)) {
        window.__boardListeners--;
        return remove.call(this, t, wrapped.get(f), o);
      }
      return remove.call(this, t, f, o);
    };
  });
  await page.setViewportSize({ width: 1000, height: 800 });
  await page.goto(`${server.url}/`);
  await page.waitForSelector('body[data-ready="1"]');
  for (let i = 0; i < 6; i++) {
    const id = i % 2 ? a.id : b.id;
    await page.evaluate((gid) => (location.hash = `#/game/${gid}`), id);
    await page.waitForFunction((gid) => document.querySelector('#game-sub').textContent.includes(gid) && !document.querySelector('#view-game').hidden, id);
    await page.evaluate(() => (location.hash = '#/'));
    await page.waitForSelector('#view-home:not([hidden])');
  }
  assert.equal(await page.evaluate(() => window.__boardListeners), 0, 'no game open: no listener');
  await page.evaluate((gid) => (location.hash = `#/game/${gid}`), a.id);
  await settle(page, 0);
  assert.equal(await page.evaluate(() => window.__boardListeners), 1);
  await page.setViewportSize({ width: 400, height: 800 });
  await page.waitForFunction(() => window.__layouts > 0);
  await page.waitForTimeout(300);
  assert.equal(await page.evaluate(() => window.__layouts), 1, 'one board laid out again');
  page.checkClean();
  await ctx.close();
});
