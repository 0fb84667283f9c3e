// Test harness: starts the real `pussa serve` binary on a free port with a temporary data
// directory, and Debian's Chromium through playwright-core (never a browser download).

import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import assert from 'node:assert/strict';
import { before, after, afterEach } from 'node:test';
import { chromium } from 'playwright-core';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '..', '..');
export const SHOTS = join(here, 'screenshots');
mkdirSync(SHOTS, { recursive: true });

/** The pussa binary: $PUSSA_BIN, else $CARGO_TARGET_DIR/debug/pussa, else target/debug/pussa. */
export function pussaBinary() {
  const candidates = [
    process.env.PUSSA_BIN,
    process.env.CARGO_TARGET_DIR && join(resolve(root, process.env.CARGO_TARGET_DIR), 'debug', 'pussa'),
    join(root, 'target', 'debug', 'pussa'),
  ].filter(Boolean);
  const found = candidates.find((p) => existsSync(p));
  if (!found) throw new Error(`pussa binary not found (tried ${candidates.join(', ')}); run cargo build -p pussa`);
  return found;
}

function freePort() {
  return new Promise((res, rej) => {
    const s = createServer();
    s.unref();
    s.on('error', rej);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => res(port));
    });
  });
}

/**
 * A running `pussa serve`: `url`, `port`, `data`, `get(path)`, `post(path, body)`,
 * `stop({ keep })`. `port` and `data` start it again where an earlier one was stopped with
 * `keep: true` (its games and address kept). `newGamesPerMinute` is `--new-games-per-minute`
 * (0: a test that makes hundreds of games at once).
 */
export async function startServer({ port: wanted, data: kept, claimAfter, newGamesPerMinute } = {}) {
  const port = wanted || (await freePort());
  const data = kept || mkdtempSync(join(tmpdir(), 'pussa-browser-'));
  const extra = claimAfter ? ['--claim-after', String(claimAfter)] : [];
  if (newGamesPerMinute !== undefined) extra.push('--new-games-per-minute', String(newGamesPerMinute));
  const proc = spawn(pussaBinary(), ['serve', '--addr', `127.0.0.1:${port}`, '--data', data, ...extra], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, RUST_LOG: process.env.RUST_LOG || 'warn' },
  });
  let output = '';
  proc.stdout.on('data', (d) => (output += d));
  proc.stderr.on('data', (d) => (output += d));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30000;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`pussa serve exited (${proc.exitCode}):\n${output}`);
    try {
      const r = await fetch(`${url}/api/meta`);
      if (r.ok) break;
    } catch {
      /* not up yet */
    }
    if (Date.now() > deadline) {
      proc.kill('SIGKILL');
      throw new Error(`pussa serve did not answer within 30 s:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  const json = async (r) => {
    const body = await r.text();
    assert.ok(r.ok, `${r.status}: ${body}`);
    return JSON.parse(body);
  };
  return {
    url,
    port,
    data,
    output: () => output,
    get: (p) => fetch(url + p).then(json),
    post: (p, body) =>
      fetch(url + p, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) }).then(json),
    async stop({ keep = false } = {}) {
      proc.kill('SIGTERM');
      await new Promise((r) => {
        if (proc.exitCode !== null) r();
        else proc.once('exit', r);
        setTimeout(() => {
          proc.kill('SIGKILL');
          r();
        }, 3000);
      });
      if (!keep) rmSync(data, { recursive: true, force: true });
    },
  };
}

/**
 * The setup every page test file shares: registers the file's `before` hook (one `pussa serve`
 * and one headless Chromium) and `after` hook (closes both). Call it once at the top of the file;
 * the returned object has `server` and `browser` once `before` has run, so read them inside the
 * tests (`const { server, browser } = env;`).
 */
export function serverAndBrowser() {
  const env = { server: null, browser: null };
  before(async () => {
    env.server = await startServer();
    env.browser = await launchBrowser();
  });
  after(async () => {
    await env.browser?.close();
    await env.server?.stop();
  });
  return env;
}

/**
 * Every page any context of a browser from [`launchBrowser`] opens, with what it showed the
 * player that a test should fail on: uncaught page errors, `console.error` messages and error
 * notices (`#notice` without `info`, e.g. "Display error: …"). After each test the harness
 * asserts that every page opened since the previous check (closed or not) showed none that the
 * test did not declare with `page.expectErrors(…)` (see [`newPage`]).
 */
const watched = [];

/** The record of `page`, made the first time the harness sees it. */
function watch(page) {
  let w = watched.find((x) => x.page === page);
  if (w) return w;
  w = { page, errors: [], expected: [], url: '' };
  watched.push(w);
  // A new tab's about:blank is not pussa's page: an init script failing there (its storage is
  // refused) is no error of the page's.
  const ours = () => page.url() !== 'about:blank';
  page.on('pageerror', (e) => ours() && w.errors.push(`page error: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error' && ours()) w.errors.push(`console.error: ${m.text()}`);
  });
  page.on('framenavigated', (f) => {
    if (f === page.mainFrame()) w.url = f.url();
  });
  /** Declares errors this test provokes on purpose: each is a RegExp or a substring. */
  page.expectErrors = (...patterns) => w.expected.push(...patterns);
  page.unexpectedErrors = () => unexpected(w);
  return w;
}

/**
 * The console error the browser itself logs for a request the server refused with `status` (a
 * test that provokes a refusal declares it: `page.expectErrors(refusedWith(404), …)`).
 */
export const refusedWith = (status) => `Failed to load resource: the server responded with a status of ${status} `;

const matches = (text, p) => (p instanceof RegExp ? p.test(text) : text.includes(p));
const unexpected = (w) => w.errors.filter((e) => !w.expected.some((p) => matches(e, p)));

/** Instruments a new context: its pages are watched, its error notices reported. */
async function instrument(ctx) {
  ctx.on('page', (p) => watch(p));
  await ctx.exposeBinding('__pussaErrorNotice', ({ page }, text) => {
    watch(page).errors.push(`error notice: ${text}`);
  });
  await ctx.addInitScript(() => {
    const start = () => {
      const n = document.querySelector('#notice');
      if (!n) return;
      let last = '';
      const check = () => {
        const text = n.hidden ? '' : (document.querySelector('#notice-text')?.textContent || '');
        const shown = text && !n.classList.contains('info') ? text : '';
        if (shown && shown !== last) window.__pussaErrorNotice(shown);
        last = shown;
      };
      new MutationObserver(check).observe(n, { attributes: true, childList: true, subtree: true, characterData: true });
      check();
    };
    if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
    else start();
  });
}

/** Fails the current test on what a page opened since the last check showed unexpectedly. */
function checkWatched() {
  const pages = watched.splice(0);
  const bad = pages
    .map((w) => ({ url: w.url, errors: unexpected(w) }))
    .filter((w) => w.errors.length);
  assert.deepEqual(bad, [], 'a page showed errors the test did not declare with page.expectErrors(…)');
}

afterEach(() => checkWatched());
after(() => checkWatched());

/**
 * Debian's Chromium, headless. Every context it makes is instrumented: its pages fail the test
 * that opened them on an error the player sees (see `watched`).
 */
export async function launchBrowser() {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      // With PUSSA_WEB_DIR the files come from disk through request interception, which Chromium
      // treats as a public address: let such a page still reach the loopback server's WebSocket.
      ...(process.env.PUSSA_WEB_DIR ? ['--disable-features=LocalNetworkAccessChecks'] : []),
    ],
  });
  const newContext = browser.newContext.bind(browser);
  browser.newContext = async (opts) => {
    const ctx = await newContext(opts);
    await instrument(ctx);
    return ctx;
  };
  browser.newPage = async (opts) => {
    const ctx = await browser.newContext(opts);
    return ctx.newPage();
  };
  return browser;
}

/**
 * A new page whose animation speed starts at `speed` ('off' | 'fast' | 'normal' | 'slow'; null:
 * none stored, the page's own default), `scale` device pixels a CSS pixel (a zoomed page: 1280×800
 * at 200 % is a 640×400 viewport at scale 2). `media` adds the context's emulated media
 * (`{ reducedMotion, colorScheme, forcedColors }`). `expectErrors` (RegExps or substrings, as
 * `page.expectErrors(…)`) declares the errors the test provokes on purpose. Fails the test on any
 * page error, `console.error` message or error notice it did not declare (checked after every
 * test for every page, and by `page.checkClean()` where the test calls it), and on any request
 * to another host.
 */
export async function newPage(
  browser,
  server,
  { speed = 'off', viewport, mobile = false, scale = 1, context, media = {}, expectErrors = [] } = {},
) {
  const ctx =
    context ||
    (await browser.newContext({
      viewport: viewport || { width: 1280, height: 860 },
      isMobile: mobile,
      hasTouch: mobile,
      deviceScaleFactor: scale,
      ...media,
    }));
  if (process.env.PUSSA_WEB_DIR && !context) {
    // Development aid: serve the page's files from disk, so a change shows without a rebuild.
    await ctx.route(
      (u) => u.host === new URL(server.url).host && !u.pathname.startsWith('/api/'),
      async (route) => {
        const p = new URL(route.request().url()).pathname.replace(/^\/$/, '/index.html');
        const file = join(process.env.PUSSA_WEB_DIR, p);
        const types = { js: 'text/javascript', css: 'text/css', html: 'text/html', svg: 'image/svg+xml' };
        if (!existsSync(file)) return route.fulfill({ status: 404, body: 'not found' });
        return route.fulfill({ path: file, contentType: types[p.split('.').pop()] || 'application/octet-stream' });
      },
    );
  }
  if (speed !== null) {
    await ctx.addInitScript((s) => {
      // Not on a new tab's about:blank, whose storage is refused (an uncaught error there).
      if (!location.protocol.startsWith('http')) return;
      if (!localStorage.getItem('pussa.speed.set')) {
        localStorage.setItem('pussa.speed', s);
        localStorage.setItem('pussa.speed.set', '1');
      }
    }, speed);
  }
  const page = await ctx.newPage();
  const w = watch(page);
  page.expectErrors(...expectErrors);
  const foreign = [];
  page.on('request', (r) => {
    const u = new URL(r.url());
    if (u.protocol.startsWith('http') || u.protocol.startsWith('ws')) {
      if (u.host !== new URL(server.url).host) {
        foreign.push(r.url());
        w.errors.push(`request to another host: ${r.url()}`);
      }
    }
  });
  page.checkClean = () => {
    assert.deepEqual(unexpected(w), [], 'page errors, console errors or error notices');
    assert.deepEqual(foreign, [], 'requests to other hosts');
  };
  return { page, ctx };
}

/** Waits until the page is idle (no request pending, no animation) and shows ply `ply` (or more). */
export async function settle(page, ply, timeout = 60000) {
  await page.waitForFunction(
    (p) => document.body.dataset.busy === '0' && Number(document.body.dataset.ply) >= p,
    ply,
    { timeout },
  );
}

/** The counts the page shows: {board: [14], stores: [2], closed: [letters]} from the SVG. */
export async function shownCounts(page) {
  return page.evaluate(() => {
    const letters = 'ABCDEFGabcdefg';
    const board = [];
    const closed = [];
    for (const l of letters) {
      const g = document.querySelector(`svg.board .hole[data-hole="${l}"]`);
      const text = g.querySelector('.count').textContent;
      const isClosed = g.classList.contains('closed');
      if (isClosed) closed.push(l);
      board.push(isClosed ? 0 : Number(text));
      if (!isClosed && g.dataset.count !== text) throw new Error(`hole ${l}: data-count ${g.dataset.count} vs text ${text}`);
      const label = g.getAttribute('aria-label');
      if (!isClosed && !label.includes(`${text} seed`)) throw new Error(`hole ${l}: aria-label "${label}" vs ${text}`);
    }
    const stores = ['South', 'North'].map((s) =>
      Number(document.querySelector(`svg.board [data-store="${s}"] .count`).textContent),
    );
    const table = ['S', 'N'].map((s) => Number(document.querySelector(`#scoreboard td[data-store="${s}"]`).textContent));
    return { board, stores, closed, table, ply: Number(document.body.dataset.ply) };
  });
}

/** Asserts the page shows exactly the server's state of game `id`; returns the state. */
export async function assertShowsServer(page, server, id, what = '') {
  const st = await server.get(`/api/games/${id}`);
  await settle(page, st.ply);
  const shown = await shownCounts(page);
  assert.equal(shown.ply, st.ply, `${what}: ply`);
  assert.deepEqual(shown.board, st.board, `${what}: holes after ply ${st.ply}`);
  assert.deepEqual(shown.stores, st.stores, `${what}: stores after ply ${st.ply}`);
  assert.deepEqual(shown.table, st.stores, `${what}: scoreboard after ply ${st.ply}`);
  assert.deepEqual([...shown.closed].sort(), [...(st.closed || [])].sort(), `${what}: closed holes`);
  return st;
}

/** The id of the game the page shows (from its URL). */
export async function gameId(page) {
  await page.waitForFunction(() => /^#\/game\/[^/]+$/.test(location.hash));
  return page.evaluate(() => decodeURIComponent(location.hash.split('/')[2]));
}

/** Closes the round-end dialog if it is open. */
export async function closeDialog(page) {
  if (await page.locator('#round-dialog[open]').count()) {
    await page.locator('#round-dialog button[value="ok"]').click();
    await page.waitForSelector('#round-dialog:not([open])', { state: 'attached' });
  }
}

/** Starts a game through the form. */
export async function startFromForm(page, server, { game = 'walak-pussa', mode = 'single', opponent = 'computer', level, seat = 'S', first = 'S' } = {}) {
  await page.goto(`${server.url}/`);
  await page.waitForSelector('body[data-ready="1"]');
  await page.check(`input[name="game"][value="${game}"]`);
  await page.check(`input[name="mode"][value="${mode}"]`);
  await page.check(`input[name="opponent"][value="${opponent}"]`);
  if (opponent === 'computer' && level) await page.selectOption('#level', level);
  if (opponent !== 'hotseat') await page.selectOption('select[name="seat"]', seat);
  await page.selectOption('select[name="first"]', first);
  await page.click('#start');
  return gameId(page);
}

/**
 * An online game made through the API, South the host: `{id, S, N, invite, url}` with each
 * seat's `{token, seats}` (`N` once the friend joined: `join` true, the default).
 */
export async function onlineGame(server, { game = 'raja-pasu', mode = 'single', first = 'S', join = true } = {}) {
  const r = await server.post('/api/games', { game, mode, first, seat: 'S', opponent: { kind: 'online' } });
  const invite = r.invite.token;
  const out = { id: r.id, S: { token: r.token, seats: r.seats || ['S'] }, invite, url: new URL(r.invite.url, server.url).href };
  if (join) {
    const j = await server.post(`/api/games/${r.id}/join`, { invite });
    out.N = { token: j.token, seats: j.seats || [j.seat] };
  }
  return out;
}

/**
 * Opens game `id` in a new page holding `seat` (`{token, seats}`, as the page keeps it in
 * localStorage), or as a watcher when `seat` is null; `opts` as for `newPage`.
 */
export async function openAs(browser, server, id, seat, opts = {}) {
  const { page, ctx } = await newPage(browser, server, opts);
  if (seat) {
    await ctx.addInitScript(
      ([gid, s]) => {
        // Not on a new tab's about:blank, whose storage is refused (an uncaught error there).
        if (!location.protocol.startsWith('http')) return;
        const all = JSON.parse(localStorage.getItem('pussa.seats') || '{}');
        if (!all[gid]) all[gid] = s;
        localStorage.setItem('pussa.seats', JSON.stringify(all));
      },
      [id, { token: seat.token, seats: seat.seats }],
    );
  }
  await page.goto(`${server.url}/#/game/${id}`);
  await page.waitForSelector('body[data-ready="1"]');
  return { page, ctx };
}

/** Plays `move` (default: the first legal one) for whoever is to move in online game `g`
 * (from [`onlineGame`]), through the API; the new state. */
export async function apiMove(server, g, move) {
  const st = await server.get(`/api/games/${g.id}`);
  const r = await server.post(`/api/games/${g.id}/moves`, { move: move || st.legal[0], token: g[st.to_move].token, expected_ply: st.ply });
  return r.state;
}

/** The text of the page's floating notice, or '' when none is shown. */
export const noticeText = (page) => page.evaluate(() => (document.querySelector('#notice').hidden ? '' : document.querySelector('#notice-text').textContent));
