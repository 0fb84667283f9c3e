// Things a player does at awkward moments: turning the board while a move is animated, a hint
// that comes back after the position changed, skipping an answer, opening one's own invite
// link, undo before one's first move, the round dialog when the computer opens the round, and
// the move list's columns and keys.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  serverAndBrowser, newPage, settle, gameId, assertShowsServer, closeDialog, startFromForm,
  refusedWith,
} from './harness.js';

const env = serverAndBrowser();

/** Clicks a playable hole of the page (the first one, or `letter`). */
async function clickHole(page, letter) {
  const sel = letter ? `svg.board .hole.legal[data-hole="${letter}"]` : 'svg.board .hole.legal';
  await page.locator(sel).first().click();
}

test('turning the board during an animation keeps the holes locked until the move is shown', async () => {
  const { server, browser } = env;
  const { page } = await newPage(browser, server, { speed: 'slow' });
  const id = await startFromForm(page, server, { game: 'raja-pasu', opponent: 'hotseat' });
  await settle(page, 0);
  await clickHole(page, 'A');
  // The animation has begun (Skip is offered only while it runs).
  await page.waitForFunction(() => document.body.dataset.busy === '1' && !document.querySelector('#skip').disabled);
  await page.click('#flip');
  // Still busy, nothing playable, Skip still offered: the animation goes on.
  assert.equal(await page.evaluate(() => document.body.dataset.busy), '1');
  assert.equal(await page.locator('svg.board .hole.legal').count(), 0);
  assert.equal(await page.locator('#skip').isDisabled(), false);
  await page.click('#skip');
  await assertShowsServer(page, server, id, 'after the flipped animation');
  // The board did turn: North's row is nearest now.
  const near = await page.$$eval('svg.board .hole.near', (gs) => gs.map((g) => g.dataset.hole).sort().join(''));
  assert.equal(near, 'abcdefg');
  page.checkClean();
  await page.context().close();
});

test('a hint that arrives after the position changed is not shown', async () => {
  const { server, browser } = env;
  const { page } = await newPage(browser, server, { speed: 'off' });
  const id = await startFromForm(page, server, { game: 'raja-pasu', opponent: 'hotseat' });
  await settle(page, 0);
  await page.click('#hint');
  // A move before the hint comes back (a hint takes 0.7 s).
  await clickHole(page, 'B');
  await settle(page, 1);
  const st = await assertShowsServer(page, server, id, 'after the move');
  assert.equal(st.to_move, 'N');
  // Wait past the hint's answer: no hint text, no hint mark for the old position.
  await page.waitForTimeout(1500);
  assert.equal(await page.textContent('#hint-text'), '');
  assert.equal(await page.locator('svg.board .hole.hint').count(), 0);
  // A hint asked now is for North.
  await page.click('#hint');
  await page.waitForFunction(() => /^Hint: [a-g]/.test(document.querySelector('#hint-text').textContent));
  page.checkClean();
  await page.context().close();
});

test('one Skip skips the whole answer, the computer\'s reply included', async () => {
  const { server, browser } = env;
  const { page } = await newPage(browser, server, { speed: 'slow' });
  const id = await startFromForm(page, server, { game: 'raja-pasu', opponent: 'computer', level: 'beginner' });
  await settle(page, 0);
  await clickHole(page, 'G');
  await page.waitForFunction(() => document.body.dataset.busy === '1');
  // Wait for the answer (your move and the reply) to be on its way, then skip once.
  await page.waitForFunction(() => !document.querySelector('#skip').disabled);
  await page.waitForTimeout(300);
  await page.keyboard.press('Escape');
  // Both moves are shown at once, well before the slow animations could end (about a minute).
  await page.waitForFunction(() => document.body.dataset.busy === '0' && Number(document.body.dataset.ply) >= 2, null, { timeout: 10000 });
  await assertShowsServer(page, server, id, 'after skipping');
  page.checkClean();
  await page.context().close();
});

test('the creator opening their own invite link keeps their seat and the invite', async () => {
  const { server, browser } = env;
  const { page: south } = await newPage(browser, server, { speed: 'off' });
  const id = await startFromForm(south, server, { game: 'pasu-pondi', opponent: 'online', seat: 'S' });
  await settle(south, 0);
  await south.waitForSelector('#invite-box:not([hidden])');
  const invite = await south.inputValue('#invite-url');
  await south.goto(invite);
  assert.equal(await gameId(south), id);
  await settle(south, 0);
  await south.waitForSelector('#notice:not([hidden])');
  assert.match(await south.textContent('#notice'), /already play in this game/);
  assert.match(await south.textContent('#game-sub'), /you play South/);
  // The game waits for the friend: nobody moves before they join.
  assert.equal(await south.locator('svg.board .hole.legal').count(), 0);
  // The invite still works for the friend.
  const { page: north } = await newPage(browser, server, { speed: 'off' });
  await north.goto(invite);
  await settle(north, 0);
  assert.match(await north.textContent('#game-sub'), /you play North/);
  await south.waitForFunction(() => document.querySelectorAll('svg.board .hole.legal').length === 7);
  await clickHole(south);
  await settle(north, 1);
  await assertShowsServer(north, server, id, 'North after South moved');
  south.checkClean();
  north.checkClean();
  await south.context().close();
  await north.context().close();
});

test('undo waits for a move of yours; the round dialog tells the layout and starter of the round the computer opened', async () => {
  const { server, browser } = env;
  const { page } = await newPage(browser, server, { speed: 'off' });
  // North against the computer, South first: the computer opens.
  const id = await startFromForm(page, server, { game: 'raja-pasu', mode: 'match', opponent: 'computer', level: 'beginner', seat: 'N', first: 'S' });
  await settle(page, 1);
  assert.equal(await page.locator('#undo').isDisabled(), true, 'nothing of yours to take back');
  let st = await server.get(`/api/games/${id}`);
  // Play until round 1 ends, checking the dialog against the server's record of the layout.
  for (let k = 0; k < 200 && st.round === 1 && !st.match_over; k++) {
    await closeDialog(page);
    const before = await page.evaluate(() => Number(document.body.dataset.ply));
    await clickHole(page);
    // The whole answer shown (your move and the reply), then the server's state: never one
    // read before the move arrived, which would close a round's dialog unseen. An answer that
    // goes on into the next round stops at the round's end with its summary open.
    await page.waitForFunction(
      (b) => (document.body.dataset.busy === '0' && Number(document.body.dataset.ply) >= b) || document.querySelector('#round-dialog').open,
      before + 1,
    );
    st = await server.get(`/api/games/${id}`);
    if (await page.evaluate(() => document.body.dataset.busy === '1')) break;
    assert.equal(await page.locator('#undo').isDisabled(), false);
  }
  assert.ok(st.round > 1, `round 1 did not end in 200 moves (or ended the match): ${st.position}`);
  await page.waitForSelector('#round-dialog[open]');
  const text = await page.textContent('#round-dialog-body');
  const end = st.moves.filter((m) => m.round === 1).pop();
  const first = st.moves.find((m) => m.round === 2);
  const starter = first ? (first.side === 'S' ? 'South' : 'North') : st.to_move === 'S' ? 'South' : 'North';
  assert.match(text, new RegExp(`Round 2 is laid out: South holds ${end.stores[0]} in store, North ${end.stores[1]}\\.`));
  assert.match(text, new RegExp(`${starter} starts\\.`));
  page.checkClean();
  await page.context().close();
});

test('the move list keeps South and North in their columns and answers the keyboard', async () => {
  const { server, browser } = env;
  const { page } = await newPage(browser, server, { speed: 'off' });
  const id = await startFromForm(page, server, { game: 'walak-pussa', opponent: 'hotseat', first: 'N' });
  await settle(page, 0);
  await clickHole(page, 'a');
  await settle(page, 1);
  await clickHole(page);
  await settle(page, 2);
  const rows = await page.$$eval('#move-list li', (lis) =>
    lis.map((li) => [...li.children].map((c) => c.textContent).filter(Boolean).join(' ')));
  assert.equal(rows[0], '1... a');
  assert.match(rows[1], /^2\. [A-G]$/);
  // Enter on the first move shows the position after it.
  await page.focus('#move-list .mv[data-ply="1"]');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.body.dataset.view === '1');
  const st = await server.get(`/api/games/${id}`);
  assert.equal(st.ply, 2);
  page.checkClean();
  await page.context().close();
});

test('on a phone the saved games fit the screen; an unknown game names itself in the title', async () => {
  const { server, browser } = env;
  const { page } = await newPage(browser, server, { viewport: { width: 375, height: 700 }, mobile: true });
  page.expectErrors(refusedWith(404)); // the unknown game
  await startFromForm(page, server, { game: 'raja-pasu', opponent: 'hotseat' });
  await page.goto(`${server.url}/#/games`);
  await page.waitForSelector('#view-games:not([hidden]) table');
  const [scroll, inner] = await page.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
  assert.ok(scroll <= inner, `the page is ${scroll} px wide on a ${inner} px screen`);
  await page.goto(`${server.url}/#/game/nosuchgame`);
  await page.waitForSelector('#view-missing:not([hidden])');
  assert.equal(await page.title(), 'pussa: no such game');
  page.checkClean();
  await page.context().close();
});
