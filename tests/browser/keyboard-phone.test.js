// Keyboard-only play, and the page on a phone-sized screen.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { serverAndBrowser, newPage, settle, gameId, assertShowsServer, closeDialog, SHOTS } from './harness.js';

// One `pussa serve` and one Chromium for the file's tests.
const env = serverAndBrowser();

test('keyboard only: start a same-screen game, Tab to a hole and press Enter, then letter keys', async () => {
  const { server, browser } = env;
  const { page } = await newPage(browser, server, { speed: 'off' });
  await page.goto(`${server.url}/`);
  await page.waitForSelector('body[data-ready="1"]');
  // Choose "a friend on this screen" and start, with keys only.
  await page.focus('input[name="opponent"][value="computer"]');
  await page.keyboard.press('ArrowRight'); // radio group: the next choice is hotseat
  assert.equal(await page.$eval('input[name="opponent"]:checked', (e) => e.value), 'hotseat');
  let guard = 0;
  while ((await page.evaluate(() => document.activeElement?.id)) !== 'start') {
    await page.keyboard.press('Tab');
    assert.ok(++guard < 30, 'Tab reaches the Start button');
  }
  await page.keyboard.press('Enter');
  const id = await gameId(page);
  let st = await assertShowsServer(page, server, id, 'start');
  assert.equal(st.opponent.kind, 'hotseat');
  // Tab moves through the playable holes, in order, with a visible focus ring.
  guard = 0;
  let focused;
  for (;;) {
    await page.keyboard.press('Tab');
    focused = await page.evaluate(() => document.activeElement?.dataset?.hole || null);
    if (focused) break;
    assert.ok(++guard < 40, 'Tab reaches a hole');
  }
  assert.ok(st.legal.includes(focused), `focused hole ${focused} is legal`);
  const ring = await page.evaluate(() => getComputedStyle(document.activeElement.querySelector('.ring')).stroke);
  assert.notEqual(ring, 'transparent');
  assert.notEqual(ring, 'none');
  await page.screenshot({ path: join(SHOTS, 'keyboard-focus.png') });
  await page.keyboard.press('Enter');
  await settle(page, 1);
  st = await assertShowsServer(page, server, id, 'after Enter');
  assert.equal(st.moves[0].move, focused);
  // The focus comes back on a playable hole of the next player (same screen: North).
  if (!(await page.locator('#round-dialog[open]').count())) {
    const back = await page.evaluate(() => document.activeElement?.dataset?.hole || null);
    assert.ok(st.legal.includes(back), `focus is on a playable hole (${back})`);
  }
  // Now North moves on the same screen: the letter keys name the mover's holes from their left.
  await closeDialog(page);
  const want = st.legal[st.legal.length - 1];
  assert.match(want, /[a-g]/);
  await page.keyboard.press(want.toUpperCase());
  await settle(page, 2);
  st = await assertShowsServer(page, server, id, 'after a letter key');
  assert.equal(st.moves[1].move, want);
  // U takes the move back (same screen).
  await closeDialog(page);
  await page.keyboard.press('u');
  await page.waitForFunction(() => document.body.dataset.ply === '1' && document.body.dataset.busy === '0');
  st = await assertShowsServer(page, server, id, 'after U');
  assert.equal(st.ply, 1);
  // Same screen: the board can turn to the player to move (North now).
  await page.focus('#turn-board');
  await page.keyboard.press('Space');
  assert.equal(await page.isChecked('#turn-board'), true);
  const nearRow = () => page.$$eval('svg.board .hole.near', (gs) => gs.map((g) => g.dataset.hole).sort().join(''));
  assert.equal(await nearRow(), 'abcdefg');
  await page.keyboard.press(st.legal[0].toUpperCase());
  await settle(page, 2);
  st = await assertShowsServer(page, server, id, 'after a turned move');
  await closeDialog(page);
  if (!st.match_over) assert.equal(await nearRow(), st.to_move === 'S' ? 'ABCDEFG' : 'abcdefg');
  page.checkClean();
});

test('phone screen 360x640: the board fits, holes can be tapped, screenshots', async () => {
  const { server, browser } = env;
  const { page } = await newPage(browser, server, { speed: 'fast', viewport: { width: 360, height: 640 }, mobile: true });
  await page.goto(`${server.url}/`);
  await page.waitForSelector('body[data-ready="1"]');
  await page.screenshot({ path: join(SHOTS, 'phone-home.png'), fullPage: true });
  const homeWidth = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(homeWidth <= 360, `the start page fits the phone (it is ${homeWidth}px wide)`);
  await page.check('input[name="game"][value="raja-pasu"]');
  await page.check('input[name="opponent"][value="hotseat"]');
  await page.click('#start');
  const id = await gameId(page);
  let st = await assertShowsServer(page, server, id, 'phone start');
  const widths = await page.evaluate(() => ({
    doc: document.documentElement.scrollWidth,
    board: document.querySelector('svg.board').getBoundingClientRect().width,
  }));
  assert.ok(widths.doc <= 360, `no sideways scrolling (page is ${widths.doc}px wide)`);
  assert.ok(widths.board >= 300, `the board uses the width (${widths.board}px)`);
  // Every hole is at least 40 px across: big enough to tap (the compact board on phones).
  const hole = await page.locator('svg.board .hole[data-hole="D"] .pit').boundingBox();
  assert.ok(hole.width >= 40, `hole is ${hole.width}px wide`);
  await page.screenshot({ path: join(SHOTS, 'phone-game.png') });
  await page.tap('svg.board .hole[data-hole="D"]');
  await settle(page, 1, 60000);
  st = await assertShowsServer(page, server, id, 'phone after a tap');
  assert.equal(st.moves[0].move, 'D');
  await closeDialog(page);
  await page.screenshot({ path: join(SHOTS, 'phone-after-move.png') });
  await page.screenshot({ path: join(SHOTS, 'phone-game-full.png'), fullPage: true });
  page.checkClean();
});
