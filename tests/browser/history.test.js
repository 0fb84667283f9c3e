// Stepping through the game's earlier positions: the keys ←/→/Home/End, the move list and the
// |< < > >| buttons show exactly the board, stores and closed holes the server gives for each ply;
// the board does not respond meanwhile; a new move from the server snaps back to the live game.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { serverAndBrowser, newPage, settle, assertShowsServer, shownCounts, startFromForm, closeDialog, SHOTS } from './harness.js';

// One `pussa serve` and one Chromium for the file's tests.
const env = serverAndBrowser();

/** The ply the page shows from the past, or null when it shows the live position. */
const viewed = (page) => page.evaluate(() => (document.body.dataset.view === undefined ? null : Number(document.body.dataset.view)));

/** Asserts the page shows ply `ply` of the server's state `st` (0: the start), marked as the past. */
async function assertShowsPly(page, st, ply, what) {
  await page.waitForFunction((p) => document.body.dataset.view === String(p), ply, { timeout: 5000 });
  const want = ply === 0 ? st.start : st.moves[ply - 1];
  assert.ok(want && want.board, `${what}: the server gives the position after ply ${ply}`);
  const shown = await shownCounts(page);
  assert.deepEqual(shown.board, want.board, `${what}: holes after ply ${ply}`);
  assert.deepEqual(shown.stores, want.stores, `${what}: stores after ply ${ply}`);
  assert.deepEqual([...shown.closed].sort(), [...want.closed].sort(), `${what}: closed holes after ply ${ply}`);
  // Clearly marked, and nothing on the board responds.
  assert.equal(await page.locator('#history-banner').isVisible(), true, `${what}: banner`);
  const banner = await page.locator('#history-text').textContent();
  // The move named as records number it ("R2 4. F", "3... g"), never by its ply.
  assert.match(
    banner,
    ply === 0 ? /^Viewing the start of the game — / : new RegExp(`^Viewing (R\\d+ )?\\d+\\.(\\.\\.)? ${st.moves[ply - 1].move} — `),
    `${what}: banner text`,
  );
  assert.match(banner, /End to return/);
  assert.equal(await page.locator('svg.board .hole.legal').count(), 0, `${what}: no playable hole`);
  assert.equal(await page.locator('svg.board .hole[tabindex]').count(), 0, `${what}: no focusable hole`);
  // The move list highlights the move shown.
  const cur = await page.$$eval('#move-list .mv.cur', (els) => els.map((e) => Number(e.dataset.ply)));
  assert.deepEqual(cur, ply === 0 ? [] : [ply], `${what}: highlighted move`);
}

test('step back through the moves with the keys, the move list and the buttons, then return', async () => {
  const { server, browser } = env;
  const meta = await server.get('/api/meta');
  const level = meta.levels[0].name ?? meta.levels[0]; // the fastest level
  const { page } = await newPage(browser, server, { speed: 'off' });
  let id;
  let st;
  // Three moves of ours, each answered by the computer, in a game that is still going (Raja
  // Pasu rounds are short: about 1 game in 70 is already over, its summary up; then a new one).
  for (let tries = 0; ; tries++) {
    await closeDialog(page);
    id = await startFromForm(page, server, { game: 'raja-pasu', opponent: 'computer', level });
    st = await assertShowsServer(page, server, id, 'start');
    for (let k = 0; k < 3 && !st.match_over; k++) {
      const mv = st.legal[k % st.legal.length];
      await page.click(`svg.board .hole[data-hole="${mv}"]`);
      await settle(page, st.ply + 1);
      st = await assertShowsServer(page, server, id, `after move ${mv}`);
    }
    if (!st.match_over) break;
    assert.ok(tries < 5, 'five games in a row over within three moves');
  }
  assert.ok(st.ply >= 4, `a few plies were played (${st.ply})`);
  assert.equal(await viewed(page), null);
  assert.equal(await page.locator('#history-banner').isVisible(), false);
  assert.equal(await page.isDisabled('#hist-next'), true, 'nothing ahead of the live position');

  // ← steps back one ply at a time, down to the start.
  await page.locator('body').focus();
  for (let ply = st.ply - 1; ply >= 0; ply--) {
    await page.keyboard.press('ArrowLeft');
    await assertShowsPly(page, st, ply, `← to ply ${ply}`);
  }
  await page.keyboard.press('ArrowLeft');
  await assertShowsPly(page, st, 0, 'no step before the start');
  assert.equal(await page.isDisabled('#hist-prev'), true);
  await page.keyboard.press('ArrowRight');
  await assertShowsPly(page, st, 1, '→');
  await page.keyboard.press('End');
  await page.waitForFunction(() => document.body.dataset.view === undefined);
  await assertShowsServer(page, server, id, 'End');
  await page.keyboard.press('Home');
  await assertShowsPly(page, st, 0, 'Home');

  // Clicking a move in the list shows the position after it.
  await page.click('#move-list .mv[data-ply="2"]');
  await assertShowsPly(page, st, 2, 'click on move 2');
  await page.screenshot({ path: join(SHOTS, 'history-viewing.png') });

  // The holes do not respond while the past is shown: neither a click nor a letter key plays.
  const before = await server.get(`/api/games/${id}`);
  const live = before.legal[0];
  await page.click(`svg.board .hole[data-hole="${live}"]`, { force: true });
  await page.keyboard.press(live.toLowerCase());
  await page.waitForTimeout(400);
  assert.equal((await server.get(`/api/games/${id}`)).ply, before.ply, 'no move was sent while viewing the past');
  await assertShowsPly(page, st, 2, 'after trying to play');

  // The buttons.
  await page.click('#hist-next');
  await assertShowsPly(page, st, 3, '>');
  await page.click('#hist-prev');
  await page.click('#hist-prev');
  await assertShowsPly(page, st, 1, '< <');
  await page.click('#hist-first');
  await assertShowsPly(page, st, 0, '|<');
  await page.click('#hist-last');
  await page.waitForFunction(() => document.body.dataset.view === undefined);
  st = await assertShowsServer(page, server, id, '>|');
  assert.equal(await page.locator('#history-banner').isVisible(), false);
  const legal = await page.$$eval('svg.board .hole.legal', (gs) => gs.map((g) => g.dataset.hole).sort());
  assert.deepEqual(legal, [...st.legal].sort(), 'the live board responds again');

  // Replaying the animation of an earlier move ends on that move's position, still in the past.
  await page.selectOption('#speed', 'fast');
  await page.click('#move-list .mv[data-ply="1"]');
  await assertShowsPly(page, st, 1, 'before the replay');
  await page.keyboard.press('r');
  await page.waitForFunction(() => document.body.dataset.busy === '1', null, { timeout: 5000 });
  await page.waitForFunction(() => document.body.dataset.busy === '0', null, { timeout: 30000 });
  await assertShowsPly(page, st, 1, 'after the replay');

  // A new move from the server (played for our seat elsewhere, then the computer's reply) snaps
  // back to the live position.
  const token = await page.evaluate((g) => JSON.parse(localStorage.getItem('pussa.seats'))[g].token, id);
  const r = await server.post(`/api/games/${id}/moves`, { move: st.legal[0], token });
  await page.waitForFunction(() => document.body.dataset.view === undefined, null, { timeout: 30000 });
  st = await assertShowsServer(page, server, id, 'snapped back after a move from elsewhere');
  assert.equal(st.ply, r.state.ply);
  assert.equal(await page.locator('#history-banner').isVisible(), false);
  page.checkClean();
});

test('a match: stepping across a round boundary shows the next round laid out, as the server gives it', async () => {
  const { server, browser } = env;
  const created = await server.post('/api/games', { game: 'pasu-pondi', mode: 'match', opponent: { kind: 'hotseat' } });
  const { id, token } = created;
  // Through the API: play until round 1 has ended and round 2 has two moves.
  let st = created.state;
  let k = 0;
  while (st.moves.filter((m) => m.round >= 2).length < 2 && !st.match_over) {
    assert.ok(++k < 1000, 'the first round ends');
    const mv = st.legal[(k * 7) % st.legal.length];
    st = (await server.post(`/api/games/${id}/moves`, { move: mv, token })).state;
  }
  const ending = st.moves.find((m, i) => st.moves[i + 1] && st.moves[i + 1].round !== m.round);
  assert.ok(ending, 'a move ended round 1');
  // A watcher's page.
  const { page } = await newPage(browser, server, { speed: 'off' });
  await page.goto(`${server.url}/#/game/${id}`);
  await settle(page, st.ply);
  st = await assertShowsServer(page, server, id, 'live');
  await page.click(`#move-list .mv[data-ply="${ending.ply}"]`);
  await assertShowsPly(page, st, ending.ply, 'the round-ending move');
  assert.match(await page.textContent('#caption'), /Round 1 ended; round 2 is laid out/);
  await page.keyboard.press('ArrowLeft');
  await assertShowsPly(page, st, ending.ply - 1, 'the last position of round 1');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  await assertShowsPly(page, st, ending.ply + 1, 'the first move of round 2');
  await page.keyboard.press('End');
  await page.waitForFunction(() => document.body.dataset.view === undefined);
  await assertShowsServer(page, server, id, 'End');
  page.checkClean();
});
