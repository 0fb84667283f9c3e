// Online play as QA pass 14 found it (report-online.md, its items in brackets): a friend whose
// network drops is seen away [1]; a game aborted before the join keeps no invite and offers no
// rematch, and is listed as aborted [2, 3]; a click during the friend's animation is played as a
// key is [4]; the proposer is told of a decline or a lapse [5]; the takeback prompt says what
// accepting does [6]; summaries without animation tell fours and captures [7]; the turn line
// names the open holes only [8]; a background tab's title says "Your move" [9]; both of the
// friend's offers are shown [10]; an invite to an unknown game shows only "Game not found" [11].
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serverAndBrowser, newPage, onlineGame, openAs, settle, startFromForm, closeDialog, apiMove, noticeText, refusedWith } from './harness.js';

const env = serverAndBrowser();

test('a friend whose network drops (no close) is shown away within seconds', async () => {
  const { server, browser } = env;
  const g = await onlineGame(server);
  const { page: south } = await openAs(browser, server, g.id, g.S);
  const { page: north, ctx: northCtx } = await openAs(browser, server, g.id, g.N);
  // The network dropped on purpose: the page's reconnecting attempts fail.
  north.expectErrors('net::ERR_INTERNET_DISCONNECTED');
  await settle(south, 0);
  await settle(north, 0);
  await south.waitForFunction(() => !document.querySelector('#scoreboard .away'));
  // A friend who only sits there (their page pinging) stays present past the silence limit.
  await south.waitForTimeout(9000);
  assert.equal(await south.locator('#scoreboard .away').count(), 0, 'an idle friend is not away');
  const dropped = Date.now();
  await northCtx.setOffline(true);
  // Seven seconds of silence on the server (three missed pings), and a moment for the message.
  await south.waitForFunction(() => !!document.querySelector('#scoreboard .away'), null, { timeout: 12000 });
  assert.ok(Date.now() - dropped < 12000);
  assert.match(await south.textContent('#turn'), /Your move/);
  await northCtx.setOffline(false);
  await south.waitForFunction(() => !document.querySelector('#scoreboard .away'), null, { timeout: 20000 });
  south.checkClean();
  await south.context().close();
  await northCtx.close();
});

test('a game aborted before the friend joined: no invite, no Rematch', async () => {
  const { server, browser } = env;
  const { page } = await newPage(browser, server);
  const id = await startFromForm(page, server, { game: 'walak-pussa', opponent: 'online' });
  await page.waitForSelector('#invite-box:not([hidden])');
  await page.click('#abort');
  await page.waitForFunction(() => /Game aborted/.test(document.querySelector('#turn').textContent));
  await page.waitForSelector('#round-dialog[open]');
  assert.equal(await page.locator('#rematch').isVisible(), false, 'no Rematch in the result dialog');
  await closeDialog(page);
  assert.equal(await page.locator('#invite-box').isVisible(), false, 'the invite is gone');
  assert.equal(await page.locator('#again').isVisible(), false, 'no Rematch under the board');
  assert.equal((await server.get(`/api/games/${id}`)).ended.kind, 'abort');
  page.checkClean();
  await page.context().close();
});

test('Saved games lists aborted games as aborted, not as draws', async () => {
  const { server, browser } = env;
  const unjoined = await onlineGame(server, { join: false });
  await server.post(`/api/games/${unjoined.id}/abort`, { token: unjoined.S.token });
  const joined = await onlineGame(server);
  await apiMove(server, joined);
  await server.post(`/api/games/${joined.id}/abort`, { token: joined.N.token });
  const { page } = await newPage(browser, server);
  await page.goto(`${server.url}/#/games`);
  for (const id of [unjoined.id, joined.id]) {
    const row = page.locator('#games-table tbody tr', { hasText: id });
    await row.waitFor();
    assert.equal(await row.locator('td[data-label="Result"]').textContent(), 'aborted', id);
  }
  page.checkClean();
  await page.context().close();
});

test("a click on one's own hole during the friend's animation ends it and is played", async () => {
  const { server, browser } = env;
  const g = await onlineGame(server);
  const { page: north } = await openAs(browser, server, g.id, g.N, { speed: 'slow' });
  await settle(north, 0);
  // South's E: a long opening move (12 laps), shown slowly on North's page.
  await apiMove(server, g, 'E');
  const st1 = await server.get(`/api/games/${g.id}`);
  await north.waitForFunction(() => document.body.dataset.busy === '1');
  const hole = st1.legal[st1.legal.length - 1];
  await north.click(`svg.board .hole[data-hole="${hole}"]`);
  // Played within moments, not after the whole animation (which takes half a minute).
  const clicked = Date.now();
  let st2 = st1;
  while (st2.ply < 2 && Date.now() - clicked < 5000) {
    await north.waitForTimeout(100);
    st2 = await server.get(`/api/games/${g.id}`);
  }
  assert.equal(st2.ply, 2, 'the clicked hole was played');
  assert.equal(st2.moves[1].move, hole);
  north.checkClean();
  await north.context().close();
});

test('the proposer is told when a draw offer or takeback is declined, or lapses with a move', async () => {
  const { server, browser } = env;
  const g = await onlineGame(server);
  const { page: south } = await openAs(browser, server, g.id, g.S);
  await apiMove(server, g);
  await apiMove(server, g);
  await settle(south, 2);
  await south.click('#offer-draw');
  await south.waitForFunction(() => /Cancel the draw offer/.test(document.querySelector('#offer-draw').textContent));
  await server.post(`/api/games/${g.id}/draw`, { token: g.N.token, offer: false });
  await south.waitForFunction(() => /declined your draw offer/.test(document.querySelector('#notice-text').textContent));
  await south.click('#offer-takeback');
  await south.waitForFunction(() => /Cancel the takeback/.test(document.querySelector('#offer-takeback').textContent));
  await server.post(`/api/games/${g.id}/takeback`, { token: g.N.token, offer: false });
  await south.waitForFunction(() => /declined your takeback proposal/.test(document.querySelector('#notice-text').textContent));
  // South moves, offers a draw, and North plays on instead of answering.
  await apiMove(server, g);
  await settle(south, 3);
  await south.click('#offer-draw');
  await south.waitForFunction(() => /Cancel the draw offer/.test(document.querySelector('#offer-draw').textContent));
  await apiMove(server, g);
  await south.waitForFunction(() => /draw offer lapsed: your friend moved instead of answering/.test(document.querySelector('#notice-text').textContent));
  assert.match(await noticeText(south), /lapsed/);
  south.checkClean();
  await south.context().close();
});

test("the takeback prompt says what accepting does (1 or 2 moves)", async () => {
  const { server, browser } = env;
  const g = await onlineGame(server);
  const { page: north } = await openAs(browser, server, g.id, g.N);
  await apiMove(server, g);
  // South proposes before North replies: one move.
  await server.post(`/api/games/${g.id}/takeback`, { token: g.S.token, offer: true });
  await north.waitForSelector('#offer-bar:not([hidden])');
  assert.match(await north.textContent('#offer-text'), /takeback of their last move \(1 move\)/);
  await server.post(`/api/games/${g.id}/takeback`, { token: g.S.token, offer: false });
  await apiMove(server, g);
  // After North's reply: accepting takes back both.
  await server.post(`/api/games/${g.id}/takeback`, { token: g.S.token, offer: true });
  await north.waitForFunction(() => /your reply \(2 moves\)/.test(document.querySelector('#offer-text').textContent));
  north.checkClean();
  await north.context().close();
});

test("both of the friend's standing offers are shown, each with its Accept / Decline", async () => {
  const { server, browser } = env;
  const g = await onlineGame(server);
  const { page: north } = await openAs(browser, server, g.id, g.N);
  await apiMove(server, g);
  await apiMove(server, g);
  await server.post(`/api/games/${g.id}/takeback`, { token: g.S.token, offer: true });
  await north.waitForSelector('#offer-bar:not([hidden])');
  // A draw offer as well: both stand.
  await server.post(`/api/games/${g.id}/draw`, { token: g.S.token, offer: true });
  await north.waitForSelector('#offer-bar2:not([hidden])');
  const texts = [await north.textContent('#offer-text'), await north.textContent('#offer2-text')].join(' | ');
  assert.match(texts, /offers a draw/);
  assert.match(texts, /takeback/);
  // Declining the takeback in its own bar leaves the draw offer standing.
  const takebackBar = (await north.getAttribute('#offer-bar', 'data-offer')) === 'takeback' ? '#offer-decline' : '#offer2-decline';
  await north.click(takebackBar);
  await north.waitForFunction(() => document.querySelector('#offer-bar2').hidden && /offers a draw/.test(document.querySelector('#offer-text').textContent));
  const st = await server.get(`/api/games/${g.id}`);
  assert.deepEqual(st.offers, { draw: 'S', takeback: null });
  north.checkClean();
  await north.context().close();
});

test('without animation the summary tells the fours and each capture', async () => {
  const { server, browser } = env;
  const g = await onlineGame(server);
  const { page: north } = await openAs(browser, server, g.id, g.N, { speed: 'off' });
  await settle(north, 0);
  // Raja Pasu's E: fours for both and a capture.
  await apiMove(server, g, 'E');
  await settle(north, 1);
  const caption = await north.textContent('#caption');
  assert.match(caption, /Friend played E \(12 laps; took \d+: .*fours? .*from [a-gA-G]/);
  assert.match(caption, /you took \d+: (a four|\d+ fours)/);
  north.checkClean();
  await north.context().close();
});

test('the turn line names only the playable holes of a round with closed holes', async () => {
  const { server, browser } = env;
  const g = await onlineGame(server, { game: 'raja-pasu', mode: 'match' });
  let st = await server.get(`/api/games/${g.id}`);
  const own = (side, l) => (side === 'S' ? /[A-G]/ : /[a-g]/).test(l);
  for (let i = 0; i < 600 && !st.match_over && !(st.closed || []).some((c) => own(st.to_move, c)); i++) {
    st = (await server.post(`/api/games/${g.id}/moves`, { move: st.legal[(i * 7) % st.legal.length], token: g[st.to_move].token })).state;
  }
  assert.ok((st.closed || []).some((c) => own(st.to_move, c)), 'a round with a closed hole of the mover');
  const { page } = await openAs(browser, server, g.id, g[st.to_move]);
  await settle(page, st.ply);
  await closeDialog(page);
  await page.waitForFunction(() => /Your move/.test(document.querySelector('#turn').textContent));
  const text = await page.textContent('#turn');
  const letters = [...(st.to_move === 'S' ? 'ABCDEFG' : 'abcdefg')];
  const playable = letters.filter((l) => st.legal.includes(l));
  for (const l of st.closed.filter((c) => own(st.to_move, c))) assert.doesNotMatch(text, new RegExp(`\\b${l}\\b`), `${text}: closed ${l} named`);
  assert.match(text, new RegExp(`\\b${playable[playable.length - 1]}\\)`), text);
  assert.doesNotMatch(text, /A–G|a–g/);
  page.checkClean();
  await page.context().close();
});

test('a background tab\'s title says "Your move" when the friend has moved, and not once looked at', async () => {
  const { server, browser } = env;
  const g = await onlineGame(server);
  const { page: north } = await openAs(browser, server, g.id, g.N);
  await settle(north, 0);
  const base = await north.title();
  const setHidden = (hidden) =>
    north.evaluate((h) => {
      Object.defineProperty(document, 'hidden', { configurable: true, get: () => h });
      Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => (h ? 'hidden' : 'visible') });
      document.dispatchEvent(new Event('visibilitychange'));
    }, hidden);
  await setHidden(true);
  await apiMove(server, g);
  await settle(north, 1);
  await north.waitForFunction(() => /^Your move/.test(document.title));
  assert.equal(await north.title(), `Your move · ${base}`);
  await setHidden(false);
  await north.waitForFunction((b) => document.title === b, base);
  north.checkClean();
  await north.context().close();
});

test('an invite to a game that does not exist shows only "Game not found"', async () => {
  const { server, browser } = env;
  const { page } = await newPage(browser, server);
  page.expectErrors(refusedWith(404));
  await page.goto(`${server.url}/?game=nosuchgame1&invite=${'a'.repeat(32)}`);
  await page.waitForSelector('#view-missing:not([hidden])');
  await page.waitForTimeout(300);
  assert.equal(await page.locator('#notice').isVisible(), false, `notice: ${await noticeText(page)}`);
  assert.match(await page.textContent('#missing-text'), /nosuchgame1/);
  page.checkClean();
  await page.context().close();
});
