// The page's second QA pass (QA pass 17, report2-review-web defects 1–9): a held Enter or Space
// acts once (on a hole, on Undo, on Start), the takeback button never accepts the friend's
// proposal, "Continue your games" never forgets a seat on a 404 and lists a finished game
// reopened by an undo, the board does not move on a phone when stepping into the history, a
// pasted move link opens at its move, a stale undo says which way the game went, and U does
// nothing the disabled Undo button would not.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serverAndBrowser, newPage, onlineGame, openAs, settle, startFromForm, closeDialog, noticeText, apiMove, refusedWith } from './harness.js';

const env = serverAndBrowser();

/** A game on one screen opened in a new page that holds both seats; `{id, token, page, ctx}`. */
async function hotseatPage(browser, server, { game = 'walak-pussa', viewport, mobile = false, hole = null } = {}) {
  const c = await server.post('/api/games', { game, opponent: { kind: 'hotseat' } });
  const { page, ctx } = await newPage(browser, server, { viewport, mobile });
  if (hole) await hole(page);
  await ctx.addInitScript(([gid, s]) => {
    const all = JSON.parse(localStorage.getItem('pussa.seats') || '{}');
    if (!all[gid]) all[gid] = { ...s, saved: Date.now() };
    localStorage.setItem('pussa.seats', JSON.stringify(all));
  }, [c.id, { token: c.token, seats: c.seats || ['S', 'N'] }]);
  await page.goto(`${server.url}/#/game/${c.id}`);
  await page.waitForSelector('body[data-ready="1"]');
  await settle(page, 0);
  return { id: c.id, token: c.token, page, ctx };
}

/** Plays `n` moves (the first legal one each time) for whoever is to move, through the API. */
async function playApi(server, id, token, n) {
  let st = await server.get(`/api/games/${id}`);
  for (let i = 0; i < n && !st.match_over; i++) {
    st = (await server.post(`/api/games/${id}/moves`, { move: st.legal[0], token, expected_ply: st.ply })).state;
  }
  return st;
}

/**
 * Holds `key` down on what has the focus for about a second: one press, then the keyboard's
 * auto-repeat (keydowns with `repeat` set), then the release.
 */
async function holdKey(page, key) {
  await page.keyboard.down(key);
  for (let i = 0; i < 12; i++) {
    await page.waitForTimeout(i === 0 ? 400 : 50);
    await page.keyboard.down(key);
  }
  await page.keyboard.up(key);
  await page.waitForTimeout(800);
}

const ply = (page) => page.evaluate(() => Number(document.body.dataset.ply));

test('a held Enter or Space acts once: on Undo, on a hole, on Start', async () => {
  const { server, browser } = env;
  // Undo on one screen, after four moves: one move taken back, none played.
  {
    const { id, token, page, ctx } = await hotseatPage(browser, server);
    await playApi(server, id, token, 4);
    await settle(page, 4);
    await page.focus('#undo');
    await holdKey(page, 'Enter');
    await settle(page, 0);
    assert.equal(await ply(page), 3, 'one undo, no move played by the auto-repeat');
    assert.equal((await server.get(`/api/games/${id}`)).ply, 3);
    page.checkClean();
    await ctx.close();
  }
  // A hole, with Enter and then with Space: one move each.
  for (const key of ['Enter', ' ']) {
    const { id, page, ctx } = await hotseatPage(browser, server, { game: 'raja-pasu' });
    await page.waitForSelector('svg.board .hole.legal');
    await page.focus('svg.board .hole.legal');
    await holdKey(page, key);
    await settle(page, 1);
    assert.equal((await server.get(`/api/games/${id}`)).ply, 1, `held ${JSON.stringify(key)} on a hole plays one move`);
    page.checkClean();
    await ctx.close();
  }
  // Start, against the computer and on one screen: one game started, no move played for the player.
  for (const opponent of ['hotseat', 'computer']) {
    const { page, ctx } = await newPage(browser, server);
    await page.goto(`${server.url}/`);
    await page.waitForSelector('body[data-ready="1"]');
    await page.check(`input[name="opponent"][value="${opponent}"]`);
    if (opponent === 'computer') await page.selectOption('select[name="seat"]', 'S');
    await page.selectOption('select[name="first"]', 'S');
    await page.focus('#start');
    await holdKey(page, 'Enter');
    await page.waitForFunction(() => /^#\/game\/[^/]+$/.test(location.hash));
    const id = await page.evaluate(() => decodeURIComponent(location.hash.split('/')[2]));
    await settle(page, 0);
    assert.equal((await server.get(`/api/games/${id}`)).ply, 0, `${opponent}: the held Start played no move`);
    page.checkClean();
    await ctx.close();
  }
});

test('online, the takeback button never accepts the friend’s proposal: it leads to its Accept', async () => {
  const { server, browser } = env;
  const g = await onlineGame(server, { game: 'raja-pasu' });
  await apiMove(server, g);
  await apiMove(server, g);
  // The friend (North) proposes a takeback of their move.
  await server.post(`/api/games/${g.id}/takeback`, { token: g.N.token, offer: true, expected_ply: 2 });
  const { page, ctx } = await openAs(browser, server, g.id, g.S);
  await settle(page, 2);
  await page.waitForSelector('#offer-bar:not([hidden])');
  const sent = [];
  page.on('request', (r) => r.method() === 'POST' && sent.push(r.url()));
  await page.click('#offer-takeback');
  await page.waitForTimeout(800);
  assert.deepEqual(sent, [], 'nothing sent');
  const st = await server.get(`/api/games/${g.id}`);
  assert.equal(st.ply, 2, 'no move taken back');
  assert.equal(st.offers?.takeback, 'N', 'the friend’s proposal stands');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'offer-accept');
  assert.match(await page.textContent('#caption'), /Your friend proposes a takeback .*Accept or decline it/);
  page.checkClean();
  await ctx.close();
});

test('"Continue your games" keeps a seat the server does not know now, until the player forgets it', async () => {
  const { server, browser } = env;
  const { id, page, ctx } = await hotseatPage(browser, server);
  page.expectErrors(refusedWith(404)); // the seat of a game the server does not know
  const ghost = 'zzzzzzzzzz';
  await page.evaluate((gid) => {
    const all = JSON.parse(localStorage.getItem('pussa.seats'));
    all[gid] = { token: '0123456789abcdef0123456789abcdef', seats: ['S'], saved: Date.now() + 1000 };
    localStorage.setItem('pussa.seats', JSON.stringify(all));
  }, ghost);
  await page.goto(`${server.url}/#/`);
  await page.waitForSelector('#continue:not([hidden])');
  const stored = () => page.evaluate(() => Object.keys(JSON.parse(localStorage.getItem('pussa.seats'))).sort());
  assert.deepEqual(await stored(), [id, ghost].sort(), 'no seat forgotten by the listing');
  const missing = page.locator(`#continue-list li[data-game="${ghost}"]`);
  assert.match(await missing.textContent(), /not found on this server now/);
  assert.equal(await page.locator(`#continue-list a[href="#/game/${id}"]`).count(), 1);
  // Shown again on the next visit: the seat is still there.
  await page.reload();
  await page.waitForSelector(`#continue-list li[data-game="${ghost}"]`);
  // The player forgets it: the seat goes, the focus stays in the list.
  await page.click(`#continue-list li[data-game="${ghost}"] button`);
  assert.deepEqual(await stored(), [id]);
  assert.equal(await missing.count(), 0);
  assert.notEqual(await page.evaluate(() => document.activeElement.tagName), 'BODY');
  page.checkClean();
  await ctx.close();
});

test('a finished game reopened by an undo is listed in "Continue your games" again', async () => {
  const { server, browser } = env;
  const { id, token, page, ctx } = await hotseatPage(browser, server);
  const end = await playApi(server, id, token, 1000);
  assert.ok(end.match_over);
  await settle(page, end.ply);
  await closeDialog(page);
  await page.goto(`${server.url}/#/`);
  await page.waitForSelector('body[data-ready="1"]');
  await page.waitForFunction((gid) => JSON.parse(localStorage.getItem('pussa.seats'))[gid].over === true, id);
  assert.equal(await page.locator('#continue').isHidden(), true);
  await page.goto(`${server.url}/#/game/${id}`);
  await settle(page, end.ply);
  // The result dialog opens again with the finished game.
  await page.waitForSelector('#round-dialog[open]');
  await closeDialog(page);
  await page.click('#undo');
  await page.waitForFunction((p) => Number(document.body.dataset.ply) === p - 1 && document.body.dataset.busy === '0', end.ply);
  await page.goto(`${server.url}/#/`);
  await page.waitForSelector('#continue:not([hidden])');
  assert.equal(await page.locator(`#continue-list a[href="#/game/${id}"]`).count(), 1);
  page.checkClean();
  await ctx.close();
});

test('stepping into the history and back never moves the board, on a phone too', async () => {
  const { server, browser } = env;
  const sizes = [
    { viewport: { width: 360, height: 800 }, mobile: true },
    { viewport: { width: 412, height: 900 }, mobile: true },
    { viewport: { width: 700, height: 900 }, mobile: false },
    { viewport: { width: 800, height: 360 }, mobile: true },
    { viewport: { width: 568, height: 320 }, mobile: true },
    { viewport: { width: 1280, height: 860 }, mobile: false },
  ];
  for (const { viewport, mobile } of sizes) {
    const { id, token, page, ctx } = await hotseatPage(browser, server, { viewport, mobile });
    await playApi(server, id, token, 12);
    await settle(page, 12);
    const top = () => page.evaluate(() => Math.round(document.querySelector('.board-area').getBoundingClientRect().top + window.scrollY));
    const live = await top();
    const seen = [];
    for (const k of ['ArrowLeft', 'Home', 'ArrowRight', 'End']) {
      await page.keyboard.press(k);
      await page.waitForTimeout(100);
      seen.push(await top());
    }
    assert.deepEqual(seen, [live, live, live, live], `${viewport.width}×${viewport.height}: the board stays at ${live}`);
    page.checkClean();
    await ctx.close();
  }
});

test('a move link pasted into "Open a game by id" opens at that move', async () => {
  const { server, browser } = env;
  const { id, token, page, ctx } = await hotseatPage(browser, server);
  await playApi(server, id, token, 6);
  await page.goto(`${server.url}/#/`);
  await page.waitForSelector('body[data-ready="1"]');
  await page.fill('#open-id', `${server.url}/#/game/${id}/3`);
  await page.press('#open-id', 'Enter');
  await page.waitForFunction((gid) => location.hash === `#/game/${gid}/3`, id);
  await page.waitForFunction(() => document.body.dataset.view === '3');
  assert.equal(await page.locator('#history-banner').isVisible(), true);
  page.checkClean();
  await ctx.close();
});

test('a stale undo after a takeback elsewhere says a move was taken back', async () => {
  const { server, browser } = env;
  const cut = { on: false };
  const { id, token, page, ctx } = await hotseatPage(browser, server, {
    hole: (p) =>
      p.routeWebSocket(/\/ws(\?.*)?$/, (ws) => {
        const s = ws.connectToServer();
        ws.onMessage((m) => !cut.on && s.send(m));
        s.onMessage((m) => !cut.on && ws.send(m));
      }),
  });
  page.expectErrors(refusedWith(409), 'Cannot undo: a move was taken back meanwhile');
  await page.waitForSelector('#live.open');
  await playApi(server, id, token, 2);
  await settle(page, 2);
  cut.on = true;
  await page.waitForSelector('#live:not(.open)', { timeout: 15000 });
  await server.post(`/api/games/${id}/undo`, { token });
  await page.click('#undo');
  await page.waitForFunction(() => /Cannot undo/.test(document.querySelector('#notice-text').textContent));
  const said = await noticeText(page);
  assert.match(said, /Cannot undo: a move was taken back meanwhile; it is shown as it is now/);
  assert.doesNotMatch(said, /a move was played/);
  cut.on = false;
  await ctx.close();
});

test('U does nothing the turned-off Undo button would not: it says why instead', async () => {
  const { server, browser } = env;
  const { page, ctx } = await newPage(browser, server);
  await startFromForm(page, server, { opponent: 'computer', seat: 'N', first: 'S' });
  await settle(page, 1);
  await page.waitForSelector('svg.board .hole.legal');
  assert.equal(await page.isDisabled('#undo'), true);
  const sent = [];
  page.on('request', (r) => r.method() === 'POST' && sent.push(r.url()));
  await page.focus('#game-title');
  await page.keyboard.press('u');
  await page.waitForTimeout(500);
  assert.deepEqual(sent, [], 'no undo sent');
  assert.equal(await noticeText(page), '');
  assert.match(await page.textContent('#caption'), /Nothing of yours to take back yet/);
  page.checkClean();
  await ctx.close();
});
