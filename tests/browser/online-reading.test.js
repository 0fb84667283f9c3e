// Online play as QA pass 14's second report found it (report2-online.md, its items in brackets):
// the rules or help opened from the game keep the player at the table [1]; a background tab
// tells "Your move" as soon as the friend's move arrives, not after its animation [2]; a click
// on one's own hole that cannot be played says why, as its key does [3]; a draw offer made on
// one's own turn goes with one's move and stands until the friend answers or moves [4].
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serverAndBrowser, startServer, onlineGame, openAs, settle, apiMove, noticeText } from './harness.js';

const env = serverAndBrowser();

for (const link of ['#game-rules', '#game-help']) {
  test(`reading the ${link === '#game-rules' ? 'rules' : 'help'} opened from the game does not make the player away`, { timeout: 90000 }, async () => {
    const { browser } = env;
    // A short claim time: were North counted away, South could claim within seconds.
    const server = await startServer({ claimAfter: 2 });
    try {
      const g = await onlineGame(server);
      const { page: south } = await openAs(browser, server, g.id, g.S);
      const { page: north } = await openAs(browser, server, g.id, g.N);
      // Both have moved (a claim is for a game the friend has moved in); North is to move.
      for (let i = 0; i < 3; i++) await apiMove(server, g);
      assert.equal((await server.get(`/api/games/${g.id}`)).to_move, 'N');
      await settle(south, 3);
      await settle(north, 3);
      // North, to move, opens the game page's own link and reads for longer than the presence
      // silence (three missed pings) and the claim time together.
      await north.click(link);
      await north.waitForSelector(link === '#game-rules' ? '#view-rules:not([hidden])' : '#view-help:not([hidden])');
      const bar = north.locator('#game-behind');
      await bar.waitFor({ state: 'visible' });
      assert.match(await bar.textContent(), /Your Raja Pasu online game is open.*Your move/);
      await south.waitForTimeout(10000);
      assert.equal(await south.locator('#scoreboard .away').count(), 0, 'South does not see North away');
      assert.equal(await south.locator('#claim-bar').isVisible(), false, 'no claim bar for South');
      const claim = await fetch(`${server.url}/api/games/${g.id}/claim`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ token: g.S.token, result: 'win' }),
      });
      assert.equal(claim.status, 409, 'the server refuses a claim: North is present');
      // Back to the game: the same game, its title, and North's move to make.
      await north.click('#game-behind-link');
      await north.waitForSelector('#view-game:not([hidden])');
      assert.equal(await north.locator('#game-behind').isVisible(), false);
      assert.equal(await north.title(), 'pussa: Raja Pasu');
      assert.match(await north.textContent('#turn'), /Your move/);
      await north.waitForFunction(() => document.querySelectorAll('svg.board .hole.legal').length > 0);
      south.checkClean();
      north.checkClean();
      await south.context().close();
      await north.context().close();
    } finally {
      await server.stop();
    }
  });
}

test("the friend's move reaches the bar over the rules, without animation", async () => {
  const { server, browser } = env;
  const g = await onlineGame(server);
  const { page: north } = await openAs(browser, server, g.id, g.N, { speed: 'normal' });
  await settle(north, 0);
  await north.click('#game-rules');
  await north.locator('#game-behind').waitFor({ state: 'visible' });
  assert.match(await north.textContent('#game-behind'), /Friend \(South\) to move/);
  const sent = Date.now();
  await apiMove(server, g);
  await north.waitForFunction(() => /Your move/.test(document.querySelector('#game-behind').textContent), null, { timeout: 5000 });
  assert.ok(Date.now() - sent < 5000, 'told at once, not after the animation');
  // Back: the board shows the position after the move.
  await north.goBack();
  await settle(north, 1);
  assert.equal(await north.locator('#game-behind').isVisible(), false);
  north.checkClean();
  await north.context().close();
});

test('a hidden tab says "Your move" as soon as the friend has moved, not after the animation', async () => {
  const { server, browser } = env;
  const g = await onlineGame(server);
  const { page: north, ctx } = await openAs(browser, server, g.id, g.N, { speed: 'normal' });
  await settle(north, 0);
  // What a background tab reports.
  await north.evaluate(() => {
    Object.defineProperty(document, 'hidden', { configurable: true, get: () => true });
    Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'hidden' });
    document.dispatchEvent(new Event('visibilitychange'));
  });
  assert.equal(await north.evaluate(() => document.querySelector('#speed').value), 'normal');
  const sent = Date.now();
  await apiMove(server, g, 'E');
  await north.waitForFunction(() => /^Your move · /.test(document.title), null, { timeout: 5000 });
  assert.ok(Date.now() - sent < 5000, `title after ${Date.now() - sent} ms`);
  await settle(north, 1, 5000);
  north.checkClean();
  await ctx.close();
});

test("a click on one's own hole that cannot be played says why, as its key does", async () => {
  const { server, browser } = env;
  const g = await onlineGame(server, { game: 'walak-pussa' });
  // Play on until South is to move with an empty hole of its own.
  let st = await server.get(`/api/games/${g.id}`);
  const emptyOwn = (s) => 'ABCDEFG'.split('').find((l, i) => s.board[i] === 0 && !(s.closed || []).includes(l));
  while (!(st.to_move === 'S' && emptyOwn(st) && st.ply >= 2)) {
    st = await apiMove(server, g);
    assert.ok(st.ply < 60 && !st.ended && !st.match_over, 'no position with an empty hole of South');
  }
  const { page: south } = await openAs(browser, server, g.id, g.S);
  await settle(south, st.ply);
  const empty = emptyOwn(st);
  await south.click(`svg.board .hole[data-hole="${empty}"]`);
  assert.equal(await south.textContent('#caption'), `${empty} is empty.`);
  // South moves; out of turn, a click on its own hole tells whose move it is.
  const legal = st.legal[0];
  await south.click(`svg.board .hole[data-hole="${legal}"]`);
  await settle(south, st.ply + 1);
  const after = await server.get(`/api/games/${g.id}`);
  if (after.to_move === 'N') {
    await south.click(`svg.board .hole[data-hole="A"]`);
    assert.equal(await south.textContent('#caption'), 'It is not your move: Friend (North) to move.');
  }
  assert.equal((await server.get(`/api/games/${g.id}`)).ply, after.ply, 'nothing was played');
  south.checkClean();
  await south.context().close();
});

test('a draw offer made on one\'s own turn stands through one\'s move until the friend answers or moves', async () => {
  const { server, browser } = env;
  const g = await onlineGame(server);
  const { page: south } = await openAs(browser, server, g.id, g.S);
  const { page: north } = await openAs(browser, server, g.id, g.N);
  await apiMove(server, g);
  await apiMove(server, g);
  await settle(south, 2);
  await settle(north, 2);
  // South, to move, offers a draw, then plays.
  await south.click('#offer-draw');
  await north.waitForSelector('#offer-bar:not([hidden])');
  const st = await server.get(`/api/games/${g.id}`);
  await south.click(`svg.board .hole[data-hole="${st.legal[0]}"]`);
  await settle(south, 3);
  await settle(north, 3);
  assert.equal((await server.get(`/api/games/${g.id}`)).offers.draw, 'S');
  assert.equal(await north.locator('#offer-bar').isVisible(), true, 'North still sees the offer');
  assert.match(await north.textContent('#offer-text'), /Your friend offers a draw/);
  assert.match(await south.textContent('#offer-draw'), /Cancel the draw offer/);
  assert.doesNotMatch(await noticeText(south), /lapsed/);
  // North plays on instead of answering: the offer lapses, and South is told why.
  await apiMove(server, g);
  await south.waitForFunction(() => /draw offer lapsed: your friend moved instead of answering/.test(document.querySelector('#notice-text').textContent));
  assert.equal((await server.get(`/api/games/${g.id}`)).offers.draw, null);
  south.checkClean();
  north.checkClean();
  await south.context().close();
  await north.context().close();
});

test("the bar over the rules tells the friend's offer; a watcher's bar does not call the game theirs", async () => {
  const { server, browser } = env;
  const g = await onlineGame(server);
  const { page: south } = await openAs(browser, server, g.id, g.S);
  const { page: north } = await openAs(browser, server, g.id, g.N);
  const { page: watcher } = await openAs(browser, server, g.id, null);
  await apiMove(server, g);
  await apiMove(server, g);
  await settle(south, 2);
  await south.click('#game-rules');
  await south.locator('#game-behind').waitFor({ state: 'visible' });
  // North offers a draw while South reads: South's bar says so.
  await server.post(`/api/games/${g.id}/draw`, { token: g.N.token, offer: true });
  await south.waitForFunction(() => /Your friend offers a draw\./.test(document.querySelector('#game-behind').textContent), null, { timeout: 5000 });
  // Declined from the API: the bar drops it.
  await server.post(`/api/games/${g.id}/draw`, { token: g.S.token, offer: false });
  await south.waitForFunction(() => !/offers a draw/.test(document.querySelector('#game-behind').textContent), null, { timeout: 5000 });
  // A watcher reading the rules is told the game they watch, not "your game".
  await settle(watcher, 2);
  await watcher.click('#game-rules');
  await watcher.locator('#game-behind').waitFor({ state: 'visible' });
  const text = await watcher.textContent('#game-behind');
  assert.match(text, /The Raja Pasu online game you are watching is open/);
  assert.doesNotMatch(text, /[Yy]our (Raja|game)/);
  for (const p of [south, north, watcher]) {
    p.checkClean();
    await p.context().close();
  }
});
