// Secrets stay out of URLs (QA pass 18, security report, defect 3): a proxy's access log holds
// every request URL (and `Referer`), so no URL the page requests may hold a seat's token or an
// invite. The page's WebSocket carries its token in `Sec-WebSocket-Protocol`, the hint in a POST
// body, and new invite links carry the invite in the fragment, which browsers never send; an
// old `?game=…&invite=…` link still works and its invite leaves the address at once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serverAndBrowser, newPage, startFromForm, settle, gameId } from './harness.js';

const env = serverAndBrowser();

/**
 * Records every request `page` sends: `{url, referer}` each, WebSockets (`ws: true`) included,
 * and the messages it sends on its WebSockets (`frames`, their text).
 * The page's WebSockets are also noted in the page as they are made, with the subprotocols
 * offered (`window.sockets`: `{url, protocols}`), which become `Sec-WebSocket-Protocol`.
 */
async function recordRequests(page) {
  const sent = [];
  page.on('request', async (r) => {
    const entry = { url: r.url(), referer: '' };
    sent.push(entry);
    try {
      entry.referer = (await r.allHeaders()).referer || '';
    } catch {
      /* the page went on */
    }
  });
  // And every message the page sends on them (`sent.frames`): the WebSocket library of the
  // server logs each one at its trace level.
  sent.frames = [];
  page.on('websocket', (ws) => {
    sent.push({ url: ws.url(), referer: '', ws: true });
    ws.on('framesent', (f) => sent.frames.push(String(f.payload)));
  });
  await page.context().addInitScript(() => {
    const Native = window.WebSocket;
    window.sockets = [];
    window.WebSocket = class extends Native {
      constructor(url, protocols) {
        super(url, protocols);
        window.sockets.push({ url: String(url), protocols: [protocols || []].flat() });
      }
    };
  });
  return sent;
}

/** The page's WebSockets made so far (see `recordRequests`). */
const socketsMade = (page) => page.evaluate(() => window.sockets);

/** Asserts that no URL nor `Referer` in `sent` holds any of `secrets`. */
function assertNoSecretInUrls(sent, secrets, what) {
  assert.ok(secrets.every((s) => typeof s === 'string' && s.length >= 16), `${what}: secrets known`);
  for (const { url, referer } of sent) {
    for (const s of secrets) {
      assert.ok(!url.includes(s), `${what}: a request URL holds a secret: ${url}`);
      assert.ok(!referer.includes(s), `${what}: a Referer holds a secret: ${referer} (of ${url})`);
    }
  }
}

/** The seats the page keeps, by game id. */
const keptSeats = (page) => page.evaluate(() => JSON.parse(localStorage.getItem('pussa.seats') || '{}'));

test('an online game and a hint: no request URL the page sends holds a token or the invite', async () => {
  const { server, browser } = env;
  const { page: host } = await newPage(browser, server);
  const hostSent = await recordRequests(host);
  const id = await startFromForm(host, server, { game: 'raja-pasu', opponent: 'online', seat: 'S' });
  await settle(host, 0);
  await host.waitForSelector('#invite-box:not([hidden])');
  const link = await host.inputValue('#invite-url');
  const url = new URL(link);
  assert.equal(url.search, `?game=${id}`, `the invite link's query is the watch link's: ${link}`);
  const invite = new URLSearchParams(url.hash.slice(1)).get('invite');
  assert.match(invite || '', /^[0-9a-f]{32}$/, `the invite is in the fragment: ${link}`);

  const { page: friend } = await newPage(browser, server);
  const friendSent = await recordRequests(friend);
  await friend.goto(link);
  assert.equal(await gameId(friend), id);
  assert.ok(!friend.url().includes(invite), `the address keeps no invite: ${friend.url()}`);
  await settle(friend, 0);
  assert.match(await friend.textContent('#game-sub'), /you play North/);
  // Both seated through their sockets: each sees the other present, and South moves.
  await host.waitForSelector('#invite-box', { state: 'hidden' });
  await host.waitForFunction(() => document.querySelectorAll('svg.board .hole.legal').length > 0);
  await host.keyboard.press('c');
  await settle(friend, 1);
  const south = (await keptSeats(host))[id].token;
  const north = (await keptSeats(friend))[id].token;
  // The sockets said whose they are in the subprotocol (a header, which a proxy does not log),
  // and were seated by it: each player is present for the other.
  for (const [page, token] of [[host, south], [friend, north]]) {
    const sockets = await socketsMade(page);
    assert.ok(sockets.length > 0 && sockets.every((w) => /\/ws$/.test(w.url)), JSON.stringify(sockets));
    assert.deepEqual(sockets.at(-1).protocols, ['pussa', `pussa.token.${token}`]);
  }
  await host.waitForFunction(() => !/away|left/i.test(document.querySelector('#game-sub').textContent + document.querySelector('#turn').textContent));
  await host.reload();
  await host.waitForSelector('body[data-ready="1"]');
  await settle(host, 1);
  assert.ok([...hostSent, ...friendSent].some((r) => r.ws), 'WebSockets were seen');

  // A hint against the computer.
  const { page: solo } = await newPage(browser, server);
  const soloSent = await recordRequests(solo);
  const soloId = await startFromForm(solo, server, { game: 'walak-pussa', opponent: 'computer', level: 'beginner' });
  await settle(solo, 0);
  await solo.click('#hint');
  await solo.waitForFunction(() => /^Hint: [A-G]/.test(document.querySelector('#hint-text').textContent), null, { timeout: 60000 });
  const soloToken = (await keptSeats(solo))[soloId].token;
  assert.ok(soloSent.some((r) => r.url.endsWith(`/api/games/${soloId}/hint`)), 'the hint was asked');

  assertNoSecretInUrls([...hostSent, ...friendSent, ...soloSent], [south, north, invite, soloToken], 'every page');
  // QA pass 18, second security report, defect 2: a socket seated by its subprotocol says no
  // hello; no message repeats a token (the server's WebSocket library logs messages at trace).
  const frames = () => [...hostSent.frames, ...friendSent.frames];
  // The page pings every 2 s: recording works once one is seen.
  for (let t0 = Date.now(); !frames().some((f) => f.includes('"ping"')) && Date.now() - t0 < 10000; ) {
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.ok(frames().some((f) => f.includes('"ping"')), `the sockets sent messages: ${JSON.stringify(frames())}`);
  for (const f of frames()) {
    for (const t of [south, north]) assert.ok(!f.includes(t), `a WebSocket message holds a token: ${f}`);
    assert.ok(!f.includes('"hello"'), `a seated socket says no hello: ${f}`);
  }
  for (const p of [host, friend, solo]) p.checkClean();
});

test('an old ?invite= link still takes the seat, and its invite goes no further than that first request', async () => {
  const { server, browser } = env;
  const c = await server.post('/api/games', { game: 'raja-pasu', opponent: { kind: 'online' }, seat: 'S' });
  const invite = c.invite.token;
  const { page: friend } = await newPage(browser, server);
  const sent = await recordRequests(friend);
  await friend.goto(`${server.url}/?game=${c.id}&invite=${invite}`);
  assert.equal(await gameId(friend), c.id);
  await settle(friend, 0);
  assert.match(await friend.textContent('#game-sub'), /you play North/);
  assert.ok(!friend.url().includes(invite), `the address keeps no invite: ${friend.url()}`);
  const north = (await keptSeats(friend))[c.id].token;
  // The link's own request holds it (an old link cannot help that); nothing after it does.
  assert.ok(sent[0].url.includes(invite), sent[0].url);
  assertNoSecretInUrls(sent.slice(1), [invite, north, c.token], 'after the old link');
  friend.checkClean();
});
