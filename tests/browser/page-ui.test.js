// The page's robustness (QA pass 17): phones, page-local storage, held keys, the lists of games,
// links to a move, and the page hosted under a path prefix behind a proxy.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createReadStream, existsSync, statSync } from 'node:fs';
import { createServer, request } from 'node:http';
import { connect } from 'node:net';
import { join } from 'node:path';
import {
  serverAndBrowser, startServer, newPage, settle, gameId, startFromForm, closeDialog, SHOTS,
} from './harness.js';

const env = serverAndBrowser();

/** A hot-seat game made through the API with `moves` played: `{id, token}`. */
async function hotseat(server, { game = 'walak-pussa', moves = [] } = {}) {
  const r = await server.post('/api/games', { game, mode: 'single', opponent: { kind: 'hotseat' } });
  let ply = 0;
  for (const move of moves) {
    await server.post(`/api/games/${r.id}/moves`, { move, token: r.token, expected_ply: ply });
    ply += 1;
  }
  return { id: r.id, token: r.token, seats: r.seats || ['S', 'N'] };
}

/** Opens `hash` with `pussa.seats` (and any other local storage) set to `stored` first. */
async function openWithStorage(browser, server, hash, stored, opts = {}) {
  const { page, ctx } = await newPage(browser, server, opts);
  await ctx.addInitScript((kept) => {
    if (sessionStorage.getItem('seeded')) return;
    sessionStorage.setItem('seeded', '1');
    for (const [k, v] of Object.entries(kept)) localStorage.setItem(k, v);
  }, stored);
  await page.goto(`${server.url}/${hash}`);
  await page.waitForSelector('body[data-ready="1"]');
  return { page, ctx };
}

test('a stored pussa.seats that is not a plain object neither stops a game from starting nor loses its seat', async () => {
  const { server, browser } = env;
  for (const bad of ['"x"', '5', 'true', '[]', 'null', '{not json']) {
    const { page, ctx } = await openWithStorage(browser, server, '', { 'pussa.seats': bad });
    const id = await startFromForm(page, { url: server.url }, { opponent: 'hotseat' });
    await settle(page, 0);
    assert.equal(await page.locator('svg.board .hole.legal').count(), 7, `pussa.seats=${bad}: South plays on this screen`);
    assert.match(await page.textContent('#game-sub'), /both seats on this screen/, `pussa.seats=${bad}`);
    // The bad value was replaced by one holding the new seat.
    const kept = JSON.parse(await page.evaluate(() => localStorage.getItem('pussa.seats')));
    assert.ok(kept && !Array.isArray(kept) && kept[id] && typeof kept[id].token === 'string', `pussa.seats=${bad}: ${JSON.stringify(kept)}`);
    page.checkClean();
    await ctx.close();
  }
});

test('a stored seat of the wrong shape is ignored: the game opens to watch, the others still count', async () => {
  const { server, browser } = env;
  const broken = await hotseat(server, { moves: ['C'] });
  const good = await hotseat(server);
  const stored = JSON.stringify({
    [broken.id]: { token: broken.token, seats: 'S' },
    [good.id]: { token: good.token, seats: good.seats },
    junk: 7,
  });
  const { page, ctx } = await openWithStorage(browser, server, `#/game/${broken.id}`, { 'pussa.seats': stored });
  await settle(page, 1);
  assert.equal(await page.locator('svg.board .hole').count(), 14, 'the board is drawn');
  assert.match(await page.textContent('#game-sub'), /watching/);
  assert.match(await page.textContent('#turn'), /North to move/);
  // A well-formed seat next to it still plays.
  await page.goto(`${server.url}/#/game/${good.id}`);
  // (`settle` alone is met by the watched game, at ply 1, before the new one is drawn.)
  await page.waitForSelector('svg.board .hole.legal', { timeout: 10000 });
  await settle(page, 0);
  assert.equal(await page.locator('svg.board .hole.legal').count(), 7);
  page.checkClean();
  await ctx.close();
});

test('a stored animation speed the page does not offer falls back to the default, shown in the Speed box', async () => {
  const { server, browser } = env;
  const g = await hotseat(server);
  const { page, ctx } = await openWithStorage(browser, server, `#/game/${g.id}`, { 'pussa.speed': 'instant' }, { speed: null });
  await settle(page, 0);
  const box = await page.evaluate(() => ({ value: document.querySelector('#speed').value, index: document.querySelector('#speed').selectedIndex }));
  assert.deepEqual(box, { value: 'normal', index: 1 });
  page.checkClean();
  await ctx.close();
});

test('a held key plays one move: auto-repeat is never taken as new moves', async () => {
  const { server, browser } = env;
  for (const speed of ['off', 'normal']) {
    const g = await hotseat(server, { game: 'raja-pasu' });
    const { page, ctx } = await openWithStorage(browser, server, `#/game/${g.id}`, { 'pussa.seats': JSON.stringify({ [g.id]: g }) }, { speed });
    await settle(page, 0);
    // One press of E held down: the keydown, then two of the system's auto-repeats (after half
    // a second, as a keyboard sends them): the move is shown or being animated by then.
    await page.keyboard.down('e');
    await page.waitForTimeout(600);
    await page.keyboard.down('e');
    await page.waitForTimeout(100);
    await page.keyboard.down('e');
    await page.keyboard.up('e');
    await settle(page, 1);
    await page.waitForTimeout(800);
    await settle(page, 1);
    const st = await server.get(`/api/games/${g.id}`);
    assert.deepEqual(st.moves.map((m) => m.move), ['E'], `speed ${speed}: one move`);
    assert.equal(await page.evaluate(() => document.body.dataset.ply), '1');
    // A fresh press still plays (North's c).
    await page.keyboard.press('c');
    await settle(page, 2);
    assert.deepEqual((await server.get(`/api/games/${g.id}`)).moves.map((m) => m.move), ['E', 'c']);
    page.checkClean();
    await ctx.close();
  }
});

test('on an upright phone the history banner keeps "Back to the game" above the board, tappable', async () => {
  const { server, browser } = env;
  for (const width of [360, 390, 412]) {
    const g = await hotseat(server, { moves: ['C'] });
    const { page, ctx } = await openWithStorage(browser, server, `#/game/${g.id}`, { 'pussa.seats': JSON.stringify({ [g.id]: g }) }, {
      viewport: { width, height: 780 },
      mobile: true,
    });
    await settle(page, 1);
    await page.tap('#hist-prev');
    await page.waitForSelector('#history-banner:not([hidden])');
    await page.evaluate(() => window.scrollTo(0, 0));
    const at = await page.evaluate(() => {
      const b = document.querySelector('#hist-live').getBoundingClientRect();
      const banner = document.querySelector('#history-banner').getBoundingClientRect();
      const board = document.querySelector('.board-area').getBoundingClientRect();
      const top = document.elementFromPoint(b.x + b.width / 2, b.y + b.height / 2);
      return { inBanner: b.bottom <= banner.bottom + 0.5, aboveBoard: b.bottom <= board.top + 0.5, topmost: top && top.closest('#hist-live') !== null };
    });
    assert.deepEqual(at, { inBanner: true, aboveBoard: true, topmost: true }, `${width} px`);
    if (width === 360) await page.screenshot({ path: join(SHOTS, 'page-ui-banner-360.png') });
    await page.tap('#hist-live', { timeout: 3000 });
    await page.waitForSelector('#history-banner[hidden]', { state: 'attached' });
    page.checkClean();
    await ctx.close();
  }
});

test('a game’s result is shown whole on a phone, with the line’s title', async () => {
  const { server, browser } = env;
  const g = await server.post('/api/games', {
    game: 'raja-pasu', mode: 'match', opponent: { kind: 'hotseat' }, position: '0,0,0,0,0,0,0/0,0,0,0,0,0,0 93 5 S 1 raja-pasu',
  });
  for (const width of [360, 412, 1280]) {
    const { page, ctx } = await newPage(browser, server, { viewport: { width, height: 800 }, mobile: width < 500 });
    await page.goto(`${server.url}/#/game/${g.id}`);
    await page.waitForFunction(() => /wins/.test(document.querySelector('#turn').textContent));
    await closeDialog(page);
    const t = await page.evaluate(() => {
      const el = document.querySelector('#turn');
      const r = el.getBoundingClientRect();
      const board = document.querySelector('.board-area').getBoundingClientRect();
      return { text: el.textContent, cut: el.scrollHeight > el.clientHeight + 1, title: el.title, overBoard: r.bottom > board.top + 0.5 };
    });
    assert.match(t.text, /South wins, 93 to 5\.$/, `${width} px`);
    assert.equal(t.cut, false, `${width} px: the result is not cut`);
    assert.equal(t.overBoard, false, `${width} px: the result does not run under the board`);
    assert.equal(t.title, t.text, `${width} px: the line's title`);
    if (width === 360) await page.screenshot({ path: join(SHOTS, 'page-ui-result-360.png') });
    page.checkClean();
    await ctx.close();
  }
});

test('a link to a move: #/game/ID/PLY opens at that move and the address follows the move looked at', async () => {
  const { server, browser } = env;
  const g = await hotseat(server, { moves: ['C', 'b', 'D'] });
  const { page, ctx } = await newPage(browser, server);
  await page.goto(`${server.url}/#/game/${g.id}/2`);
  await page.waitForSelector('#history-banner:not([hidden])');
  const shown = () => page.evaluate(() => ({ hash: location.hash, view: document.body.dataset.view || 'live' }));
  assert.deepEqual(await shown(), { hash: `#/game/${g.id}/2`, view: '2' });
  // The position is the server's after ply 2.
  const st = await server.get(`/api/games/${g.id}`);
  const holes = await page.$$eval('svg.board .hole', (gs) => Object.fromEntries(gs.map((e) => [e.dataset.hole, Number(e.dataset.count)])));
  assert.deepEqual('ABCDEFGabcdefg'.split('').map((l) => holes[l]), st.moves[1].board);
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('ArrowLeft');
  assert.deepEqual(await shown(), { hash: `#/game/${g.id}/0`, view: '0' });
  // Stepping keeps one history entry: Back leaves the game, not the steps.
  assert.equal(await page.evaluate(() => history.length), 2);
  await page.reload();
  await page.waitForSelector('#history-banner:not([hidden])');
  assert.deepEqual(await shown(), { hash: `#/game/${g.id}/0`, view: '0' });
  await page.keyboard.press('End');
  await page.waitForSelector('#history-banner[hidden]', { state: 'attached' });
  assert.deepEqual(await shown(), { hash: `#/game/${g.id}`, view: 'live' });
  // An address naming a move typed while the game is open shows it; one past the end, the game.
  await page.evaluate((id) => (location.hash = `#/game/${id}/1`), g.id);
  await page.waitForFunction(() => document.body.dataset.view === '1');
  await page.evaluate((id) => (location.hash = `#/game/${id}/9`), g.id);
  await page.waitForSelector('#history-banner[hidden]', { state: 'attached' });
  // A new move snaps back to the live position, and the address with it.
  await page.keyboard.press('Home');
  assert.equal((await shown()).hash, `#/game/${g.id}/0`);
  await server.post(`/api/games/${g.id}/moves`, { move: st.legal[0], token: g.token, expected_ply: 3 });
  await page.waitForFunction((id) => location.hash === `#/game/${id}` && document.body.dataset.ply === '4', g.id);
  page.checkClean();
  await ctx.close();
});

test('"Continue your games" and Saved games find this browser’s game among hundreds of others', async () => {
  const { browser } = env;
  const server = await startServer({ newGamesPerMinute: 0 });
  try {
    const { page, ctx } = await newPage(browser, server);
    const mine = await startFromForm(page, server, { opponent: 'hotseat' });
    await settle(page, 0);
    await page.keyboard.press('c');
    await settle(page, 1);
    // A finished game held too: it is not one to continue.
    const over = await server.post('/api/games', {
      game: 'raja-pasu', mode: 'match', opponent: { kind: 'hotseat' }, position: '0,0,0,0,0,0,0/0,0,0,0,0,0,0 93 5 S 1 raja-pasu',
    });
    await page.evaluate((o) => {
      const all = JSON.parse(localStorage.getItem('pussa.seats'));
      all[o.id] = { token: o.token, seats: o.seats, saved: Date.now() };
      localStorage.setItem('pussa.seats', JSON.stringify(all));
    }, over);
    // 230 games of other people, all newer than this browser's.
    for (let i = 0; i < 230; i += 10) {
      await Promise.all(Array.from({ length: 10 }, () => server.post('/api/games', { game: 'walak-pussa', mode: 'single', opponent: { kind: 'hotseat' } })));
    }
    await page.goto(`${server.url}/#/`);
    await page.waitForSelector('#continue:not([hidden])');
    const items = await page.$$eval('#continue-list a', (as) => as.map((a) => a.getAttribute('href')));
    assert.deepEqual(items, [`#/game/${mine}`]);
    assert.match(await page.textContent('#continue-list'), /on this screen, 1 move/);
    // The finished game is marked over in its seat and not asked for again.
    assert.equal(await page.evaluate((id) => JSON.parse(localStorage.getItem('pussa.seats'))[id].over, over.id), true);

    await page.click('a[data-nav="games"]');
    await page.waitForFunction(() => document.querySelectorAll('#games-table tbody tr').length === 100);
    const ids = () => page.$$eval('#games-table tbody small.id', (s) => s.map((e) => e.textContent));
    assert.ok(!(await ids()).includes(mine));
    // "Older games" pages back with the API's cursor, until the list's end.
    let pages = 1;
    while (await page.locator('#games-more:not([hidden])').count()) {
      const before = (await ids()).length;
      await page.click('#games-more');
      await page.waitForFunction((n) => document.querySelectorAll('#games-table tbody tr').length > n, before);
      pages += 1;
      assert.ok(pages <= 3, 'three pages at most');
    }
    // "Older games" went with the last page: the focus moved on to the first game it added
    // (never dropped to the page's body).
    const focused = await page.evaluate(() => {
      const a = document.activeElement;
      const rows = [...document.querySelectorAll('#games-table tbody tr')];
      return { open: a.matches('#games-table tbody a.open'), row: rows.indexOf(a.closest('tr')) };
    });
    assert.deepEqual(focused, { open: true, row: 200 });
    const all = await ids();
    assert.equal(all.length, 232);
    assert.equal(new Set(all).size, 232, 'no game listed twice');
    assert.ok(all.includes(mine), 'this browser’s game is listed');
    const row = page.locator('#games-table tbody tr', { has: page.locator(`small.id:text-is("${mine}")`) });
    assert.equal(await row.locator('a.open').textContent(), 'Open');
    // Another filter starts from the newest again.
    await page.selectOption('#games-filter', 'true');
    await page.waitForFunction(() => document.querySelectorAll('#games-table tbody tr').length === 1);
    assert.equal(await page.locator('#games-more').isHidden(), true);
    page.checkClean();
    await ctx.close();
  } finally {
    await server.stop();
  }
});

/** `host[:port]` without its port (an IPv6 address keeps its brackets). */
const bareHost = (h) => h.replace(/:\d+$/, '');

/**
 * A reverse proxy that serves the pussa server under `/pussa/` (as `location /pussa/ {
 * proxy_pass http://127.0.0.1:PORT/; }` does, WebSocket upgrades included) and nothing else:
 * `url`, `outside` (every request for a path outside the prefix), `seen`, `close()`. With
 * PUSSA_WEB_DIR the page's own files come from disk, as the harness serves them. With
 * `hostWithoutPort` it passes on the Host without its port, as nginx's `proxy_set_header Host
 * $host` does (the proxy listens on a port other than 80).
 */
async function prefixProxy(server, { hostWithoutPort = false } = {}) {
  const target = new URL(server.url);
  const outside = [];
  const seen = [];
  const web = process.env.PUSSA_WEB_DIR;
  const inner = (url) => (url.startsWith('/pussa/') ? url.slice('/pussa'.length) : null);
  const proxy = createServer((req, res) => {
    seen.push(req.url);
    const path = inner(req.url);
    if (path === null) {
      outside.push(req.url);
      res.writeHead(404, { 'Content-Type': 'text/plain' });
      res.end('not under /pussa/');
      return;
    }
    const file = web && !path.startsWith('/api/') && join(web, path.split('?')[0].replace(/^\/$/, '/index.html'));
    if (file) {
      if (!existsSync(file) || !statSync(file).isFile()) {
        res.writeHead(404);
        res.end();
        return;
      }
      const types = { js: 'text/javascript', css: 'text/css', html: 'text/html', svg: 'image/svg+xml' };
      res.writeHead(200, { 'Content-Type': types[file.split('.').pop()] || 'application/octet-stream' });
      createReadStream(file).pipe(res);
      return;
    }
    const headers = hostWithoutPort ? { ...req.headers, host: bareHost(req.headers.host) } : req.headers;
    const up = request({ host: target.hostname, port: target.port, method: req.method, path, headers }, (r) => {
      res.writeHead(r.statusCode, r.headers);
      r.pipe(res);
    });
    up.on('error', () => {
      res.writeHead(502);
      res.end();
    });
    req.pipe(up);
  });
  proxy.on('upgrade', (req, socket, head) => {
    seen.push(req.url);
    const path = inner(req.url);
    if (path === null) {
      outside.push(req.url);
      socket.destroy();
      return;
    }
    const up = connect(Number(target.port), target.hostname, () => {
      const lines = [`${req.method} ${path} HTTP/1.1`];
      for (let i = 0; i < req.rawHeaders.length; i += 2) {
        const name = req.rawHeaders[i];
        const value = hostWithoutPort && name.toLowerCase() === 'host' ? bareHost(req.rawHeaders[i + 1]) : req.rawHeaders[i + 1];
        lines.push(`${name}: ${value}`);
      }
      up.write(`${lines.join('\r\n')}\r\n\r\n`);
      if (head.length) up.write(head);
      socket.pipe(up).pipe(socket);
    });
    up.on('error', () => socket.destroy());
    socket.on('error', () => up.destroy());
  });
  await new Promise((r) => proxy.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${proxy.address().port}`;
  return {
    url,
    outside,
    seen,
    close: () => new Promise((r) => {
      proxy.closeAllConnections();
      proxy.close(r);
    }),
  };
}

test('the page works under a path prefix behind a proxy: every URL it uses is relative to the page', async () => {
  const { server, browser } = env;
  const proxy = await prefixProxy(server);
  const base = `${proxy.url}/pussa`;
  const contexts = [];
  try {
    const open = async () => {
      const ctx = await browser.newContext({ viewport: { width: 1280, height: 860 } });
      contexts.push(ctx);
      await ctx.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: proxy.url });
      await ctx.addInitScript(() => localStorage.setItem('pussa.speed', 'off'));
      // `newPage` with the proxy for the server: a request to any other host fails the test.
      return (await newPage(browser, { url: proxy.url }, { context: ctx })).page;
    };
    const host = await open();
    const id = await startFromForm(host, { url: base }, { opponent: 'online', seat: 'S' });
    await settle(host, 0);
    await host.waitForSelector('#invite-box:not([hidden])');
    const invite = await host.inputValue('#invite-url');
    assert.ok(invite.startsWith(`${base}/?game=${id}#invite=`), invite);

    const friend = await open();
    await friend.goto(invite);
    assert.equal(await gameId(friend), id);
    assert.equal(new URL(friend.url()).pathname, '/pussa/', 'the invite lands on the page under the prefix');
    await settle(friend, 0);
    assert.match(await friend.textContent('#game-sub'), /you play North/);
    // The move goes over the API and reaches the friend over the WebSocket, both through the proxy.
    await host.waitForFunction(() => document.querySelectorAll('svg.board .hole.legal').length === 7);
    await host.keyboard.press('c');
    await settle(friend, 1);
    assert.ok(proxy.seen.some((u) => u.startsWith(`/pussa/api/games/${id}/ws`)), 'the WebSocket goes through the prefix');
    // The watch link and the record keep the prefix too.
    await host.click('#copy-watch');
    await host.waitForFunction(() => /Watch link/.test(document.querySelector('#notice-text').textContent));
    const note = await host.textContent('#notice-text');
    const watch = /copied/.test(note) ? await host.evaluate(() => navigator.clipboard.readText()) : note.replace(/^Watch link: /, '');
    assert.equal(watch, `${base}/?game=${id}`);
    assert.equal(await host.$eval('#export', (a) => a.href), `${base}/api/games/${id}/record`);
    const record = await fetch(`${base}/api/games/${id}/record`);
    assert.equal(record.status, 200);
    // Saved games and the rules, under the prefix too.
    await host.click('a[data-nav="games"]');
    await host.waitForSelector(`#games-table small.id:text-is("${id}")`);
    await host.click('a[data-nav="rules"]');
    await host.waitForSelector('#rules-body :is(h2, h3)');
    assert.deepEqual(proxy.outside, [], 'no request outside the prefix');
    host.checkClean();
    friend.checkClean();
  } finally {
    for (const c of contexts) await c.close();
    await proxy.close();
  }
});

// QA pass 18, second security report, defect 1: nginx's `proxy_set_header Host $host` passes on
// the host name without the port; behind it, on a port other than 80/443, the page's WebSocket
// (Origin `http://127.0.0.1:PORT`, Host `127.0.0.1`) must still be served and the game played.
test('an online game plays through a proxy on another port that passes the Host on without its port', async () => {
  const { server, browser } = env;
  const proxy = await prefixProxy(server, { hostWithoutPort: true });
  const base = `${proxy.url}/pussa`;
  const contexts = [];
  try {
    const open = async () => {
      const ctx = await browser.newContext({ viewport: { width: 1280, height: 860 } });
      contexts.push(ctx);
      await ctx.addInitScript(() => localStorage.setItem('pussa.speed', 'off'));
      const { page } = await newPage(browser, { url: proxy.url }, { context: ctx });
      const refused = [];
      page.on('websocket', (ws) => ws.on('socketerror', (e) => refused.push(String(e))));
      return { page, refused };
    };
    const { page: host, refused: hostRefused } = await open();
    const id = await startFromForm(host, { url: base }, { opponent: 'online', seat: 'S' });
    await settle(host, 0);
    await host.waitForSelector('#invite-box:not([hidden])');
    const invite = await host.inputValue('#invite-url');

    const { page: friend, refused: friendRefused } = await open();
    await friend.goto(invite);
    assert.equal(await gameId(friend), id);
    await settle(friend, 0);
    assert.match(await friend.textContent('#game-sub'), /you play North/);
    // Both players' sockets are seated: the host sees the friend arrive, moves, and the move
    // reaches the friend over its WebSocket.
    await host.waitForSelector('#invite-box', { state: 'hidden' });
    await host.waitForFunction(() => document.querySelectorAll('svg.board .hole.legal').length === 7);
    await host.keyboard.press('c');
    await settle(friend, 1);
    assert.ok(proxy.seen.some((u) => u.startsWith(`/pussa/api/games/${id}/ws`)), 'the WebSocket goes through the proxy');
    assert.deepEqual([...hostRefused, ...friendRefused], [], 'no WebSocket was refused');
    assert.doesNotMatch(await friend.textContent('#turn'), /Reconnecting/);
    host.checkClean();
    friend.checkClean();
  } finally {
    for (const c of contexts) await c.close();
    await proxy.close();
  }
});
