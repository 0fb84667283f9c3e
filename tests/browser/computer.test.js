// A whole game against the computer, played by clicking holes; after every move the holes,
// stores and scoreboard on the page must equal the server's state.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import {
  serverAndBrowser, newPage, settle, gameId, assertShowsServer, closeDialog, startFromForm, SHOTS,
} from './harness.js';

// One `pussa serve` and one Chromium for the file's tests.
const env = serverAndBrowser();

test('a whole game against the computer, clicking holes, counts equal the server after every move', async () => {
  const { server, browser } = env;
  const meta = await server.get('/api/meta');
  const level = meta.levels[0].name ?? meta.levels[0]; // the fastest level
  const { page } = await newPage(browser, server, { speed: 'fast' });
  const id = await startFromForm(page, server, { game: 'walak-pussa', opponent: 'computer', level });
  let st = await assertShowsServer(page, server, id, 'start');
  assert.equal(st.opponent.kind, 'computer');
  await page.screenshot({ path: join(SHOTS, 'computer-00-start.png') });
  let moves = 0;
  while (!st.match_over) {
    assert.ok(moves < 300, 'the game should end');
    await closeDialog(page);
    // Only the legal holes respond: the page marks exactly the server's legal moves.
    const legal = await page.$$eval('svg.board .hole.legal', (gs) => gs.map((g) => g.dataset.hole).sort());
    assert.deepEqual(legal, [...st.legal].sort(), `legal holes at ply ${st.ply}`);
    const mv = legal[moves % legal.length];
    if (moves === 3) {
      // From here on, no animation: the test only needs the final counts of each move.
      await page.selectOption('#speed', 'off');
    }
    const ply = st.ply;
    await page.click(`svg.board .hole[data-hole="${mv}"]`);
    moves++;
    await settle(page, ply + 1, 120000);
    st = await assertShowsServer(page, server, id, `after move ${moves} (${mv})`);
    assert.equal(st.moves.find((m) => m.ply === ply + 1)?.move, mv, `the server played the clicked hole ${mv}`);
    await page.screenshot({ path: join(SHOTS, `computer-${String(moves).padStart(2, '0')}.png`) });
    // The move list shows every move the server has, in order.
    const listed = await page.$$eval('#move-list .mv', (els) => els.map((e) => e.textContent));
    assert.deepEqual(listed, st.moves.map((m) => m.move), 'move list');
  }
  // The game is over: the result dialog is shown and no hole responds any more.
  await page.waitForSelector('#round-dialog[open]');
  assert.match(await page.textContent('#round-dialog'), /Game over/);
  await page.screenshot({ path: join(SHOTS, 'computer-end-dialog.png') });
  await closeDialog(page);
  assert.equal(await page.locator('svg.board .hole.legal').count(), 0);
  assert.match(await page.textContent('#turn'), /Game over/);
  await page.screenshot({ path: join(SHOTS, 'computer-end.png'), fullPage: true });
  // Reopening the finished game shows its result; "Play again" starts a new game, same settings.
  await page.reload();
  await page.waitForSelector('#round-dialog[open]');
  await page.click('#rematch');
  await page.waitForFunction((old) => location.hash.startsWith('#/game/') && !location.hash.endsWith(old), id);
  const id2 = await gameId(page);
  const again = await assertShowsServer(page, server, id2, 'play again');
  assert.equal(again.game, 'walak-pussa');
  assert.deepEqual(again.opponent, st.opponent);
  assert.equal(again.match_over, false);
  page.checkClean();
});

test('the animation is skippable and ends on the server state; undo and hint work against the computer', async () => {
  const { server, browser } = env;
  const meta = await server.get('/api/meta');
  const { page } = await newPage(browser, server, { speed: 'slow' });
  const id = await startFromForm(page, server, { game: 'raja-pasu', opponent: 'computer', level: meta.levels[0].name ?? meta.levels[0] });
  let st = await assertShowsServer(page, server, id, 'start');
  await page.click(`svg.board .hole[data-hole="G"]`);
  // Raja Pasu G is a long move: the slow animation is running with captions when we skip it.
  await page.waitForFunction(() => !document.querySelector('#skip').disabled, null, { timeout: 60000 });
  await page.waitForFunction(() => /lifts G|Relay/.test(document.querySelector('#caption').textContent));
  await page.screenshot({ path: join(SHOTS, 'animation-raja-pasu-G.png') });
  await page.keyboard.press('Escape');
  await page.waitForFunction(() => !document.querySelector('#skip').disabled || document.body.dataset.busy === '0');
  // Skip every remaining move animation (the computer's reply).
  while ((await page.evaluate(() => document.body.dataset.busy)) === '1') {
    await page.click('#skip').catch(() => {});
    await page.waitForTimeout(50);
  }
  st = await assertShowsServer(page, server, id, 'after a skipped animation');
  assert.equal(st.moves[0].move, 'G');
  await closeDialog(page);
  // Hint: the engine's move and value.
  await page.click('#hint');
  await page.waitForFunction(() => /^Hint: [A-G], value/.test(document.querySelector('#hint-text').textContent), null, { timeout: 60000 });
  const hinted = await page.$$eval('svg.board .hole.hint', (gs) => gs.map((g) => g.dataset.hole));
  assert.equal(hinted.length, 1);
  assert.ok(st.legal.includes(hinted[0]));
  // Undo takes back the computer's reply and our move.
  await page.click('#undo');
  await page.waitForFunction(() => document.body.dataset.ply === '0' && document.body.dataset.busy === '0');
  st = await assertShowsServer(page, server, id, 'after undo');
  assert.equal(st.ply, 0);
  assert.equal(await page.locator('#move-list .mv').count(), 0);
  page.checkClean();
});

test('playing North: the computer opens (animated), North\'s row is drawn nearest, A..G keys play a..g', async () => {
  const { server, browser } = env;
  const meta = await server.get('/api/meta');
  const { page } = await newPage(browser, server, { speed: 'fast' });
  const id = await startFromForm(page, server, { game: 'pasu-pondi', opponent: 'computer', level: meta.levels[0].name ?? meta.levels[0], seat: 'N', first: 'S' });
  // The computer's opening move is replayed from the opening layout, then the server's state shown.
  await settle(page, 1, 60000);
  let st = await assertShowsServer(page, server, id, 'after the computer opened');
  assert.equal(st.moves[0].side, 'S');
  assert.equal(st.to_move, 'N');
  const near = await page.$$eval('svg.board .hole.near', (gs) =>
    gs.map((g) => [g.dataset.hole, g.getBoundingClientRect().x]).sort((x, y) => x[1] - y[1]).map((x) => x[0]).join(''));
  assert.equal(near, 'abcdefg', 'North sees a..g from its left');
  const storeX = await page.$$eval('svg.board [data-store]', (gs) => gs.map((g) => [g.dataset.store, g.getBoundingClientRect().x]));
  const right = storeX.sort((x, y) => y[1] - x[1])[0][0];
  assert.equal(right, 'North', 'the player\'s own store is at their right');
  await closeDialog(page);
  const letter = st.legal[0];
  await page.keyboard.press(letter.toUpperCase());
  await settle(page, 3, 60000);
  st = await assertShowsServer(page, server, id, 'after a key');
  assert.equal(st.moves[1].move, letter);
  await page.screenshot({ path: join(SHOTS, 'computer-as-north.png') });
  // Replay shows the last moves again (ours and the computer's), then the server's state.
  assert.equal(await page.isEnabled('#replay'), true);
  await page.click('#replay');
  await page.waitForFunction(() => document.body.dataset.busy === '1' || /lifts|Relay/.test(document.querySelector('#caption').textContent));
  await settle(page, st.ply, 60000);
  await assertShowsServer(page, server, id, 'after a replay');
  assert.match(await page.textContent('#caption'), /You played/);
  page.checkClean();
});
