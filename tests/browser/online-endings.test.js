// Ending an online game from the page, as on lichess: Abort before both have moved, Resign with a
// confirm, a draw offered and declined then agreed, a takeback proposed and accepted (U), the
// series score by the names in a rematch, the watcher count, and claiming the game once the
// friend has been away for the claim time, with a countdown.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { serverAndBrowser, startServer, onlineGame as harnessOnlineGame, openAs as harnessOpenAs, settle, gameId, assertShowsServer, closeDialog, SHOTS } from './harness.js';

const env = serverAndBrowser();

/** A Walak-pussa online game unless told otherwise (harness's `onlineGame`). */
const onlineGame = (server, opts = {}) => harnessOnlineGame(server, { game: 'walak-pussa', ...opts });

/** Opens game `id` holding `seat` (or watching) and waits for its position: the page. */
async function openAs(browser, server, id, seat) {
  const { page } = await harnessOpenAs(browser, server, id, seat);
  await settle(page, 0);
  return page;
}

async function clickHole(page, server, id) {
  const st = await server.get(`/api/games/${id}`);
  await page.waitForFunction(() => document.querySelectorAll('svg.board .hole.legal').length > 0);
  await page.click(`svg.board .hole[data-hole="${st.legal[0]}"]`);
  await settle(page, st.ply + 1);
}

const turn = (p) => p.textContent('#turn');

test('Abort while both have not moved; then Resign, asked to confirm; the ending told on both pages and in the dialog', async () => {
  const { server, browser } = env;
  let g = await onlineGame(server);
  let south = await openAs(browser, server, g.id, g.S);
  let north = await openAs(browser, server, g.id, g.N);
  assert.equal(await south.locator('#abort').isVisible(), true);
  assert.equal(await south.locator('#resign').isVisible(), false);
  await south.click('#abort');
  for (const p of [south, north]) {
    await p.waitForFunction(() => /Game aborted/.test(document.querySelector('#turn').textContent));
    assert.match(await p.textContent('#round-dialog-title'), /Game aborted/);
    assert.equal(await p.locator('#online-actions').isVisible(), false);
  }
  const aborted = await server.get(`/api/games/${g.id}`);
  assert.deepEqual(aborted.ended, { kind: 'abort', by: 'S' });
  await south.context().close();
  await north.context().close();

  g = await onlineGame(server);
  south = await openAs(browser, server, g.id, g.S);
  north = await openAs(browser, server, g.id, g.N);
  const watcher = await openAs(browser, server, g.id, null);
  // The players see the watcher counted.
  await south.waitForFunction(() => /1 watching/.test(document.querySelector('#watchers').textContent) && !document.querySelector('#watchers').hidden);
  await clickHole(south, server, g.id);
  await settle(north, 1);
  await clickHole(north, server, g.id);
  await settle(south, 2);
  // Both have moved: Abort gives way to Resign (enabled once the move is in, whichever of the
  // answer and the live update came first).
  assert.equal(await north.locator('#abort').isVisible(), false);
  assert.doesNotMatch(await turn(north), /Sending/);
  await north.click('#resign');
  assert.equal(await north.locator('#resign-confirm').isVisible(), true);
  await north.click('#resign-no');
  assert.equal((await server.get(`/api/games/${g.id}`)).ended, null, 'No keeps the game going');
  await north.click('#resign');
  await north.click('#resign-yes');
  // A player's page names the friend "your friend", as claims and aborts do; a watcher's the
  // seats.
  await south.waitForFunction(() => /resigned/.test(document.querySelector('#turn').textContent));
  assert.match(await turn(south), /Your friend resigned: you win/);
  assert.doesNotMatch(await turn(south), /North/);
  await north.waitForFunction(() => /resigned/.test(document.querySelector('#turn').textContent));
  assert.match(await turn(north), /You resigned: your friend wins/);
  await watcher.waitForFunction(() => /North resigned: South wins/.test(document.querySelector('#turn').textContent));
  assert.match(await south.textContent('#round-dialog'), /Your friend resigned: you win/);
  await south.screenshot({ path: join(SHOTS, 'online-resigned.png') });

  // A rematch: the series score stands by the names (the old South, the winner, is now North).
  await closeDialog(south);
  await closeDialog(north);
  await south.click('#again');
  // The rematch is created by a request: wait for the page to go to it.
  await south.waitForFunction((old) => !location.hash.endsWith(old), g.id);
  const rid = await gameId(south);
  assert.notEqual(rid, g.id);
  await north.waitForFunction(() => document.querySelector('#again').textContent === 'Join the rematch');
  await north.click('#again');
  await north.waitForFunction((id) => location.hash === `#/game/${id}`, rid);
  await settle(north, 0);
  const st = await server.get(`/api/games/${rid}`);
  assert.deepEqual(st.series, { game: 2, score: { S: 0, N: 1 } });
  await north.waitForFunction(() => document.querySelectorAll('#scoreboard .series').length === 2);
  const series = await north.$$eval('#scoreboard tbody tr', (trs) => Object.fromEntries(trs.map((tr) => [tr.dataset.side, tr.querySelector('.series').textContent.trim()])));
  assert.deepEqual(series, { S: '0', N: '1' });
  assert.match(await north.textContent('#round-line'), /Game 2/);
  for (const p of [south, north, watcher]) p.checkClean();
  for (const p of [south, north, watcher]) await p.context().close();
});

test('a draw offered, declined, offered again and agreed; a takeback proposed with U and accepted', async () => {
  const { server, browser } = env;
  const g = await onlineGame(server);
  const south = await openAs(browser, server, g.id, g.S);
  const north = await openAs(browser, server, g.id, g.N);
  await clickHole(south, server, g.id);
  await settle(north, 1);
  await clickHole(north, server, g.id);
  await settle(south, 2);
  // U proposes a takeback of South's last move; North accepts: back to the start.
  await south.keyboard.press('u');
  await north.waitForSelector('#offer-bar:not([hidden])');
  assert.match(await north.textContent('#offer-text'), /takeback/);
  assert.equal(await south.textContent('#offer-takeback'), 'Cancel the takeback');
  await north.click('#offer-accept');
  for (const p of [south, north]) {
    await p.waitForFunction(() => document.body.dataset.ply === '0');
    await assertShowsServer(p, server, g.id, 'after the takeback');
  }
  assert.match(await south.textContent('#caption'), /Took back 2 moves/);
  await clickHole(south, server, g.id);
  await settle(north, 1);
  // A draw offer, declined.
  await north.click('#offer-draw');
  await south.waitForSelector('#offer-bar:not([hidden])');
  assert.match(await south.textContent('#offer-text'), /offers a draw/);
  await south.click('#offer-decline');
  await north.waitForFunction(() => document.querySelector('#offer-draw').textContent === 'Offer a draw');
  assert.equal((await server.get(`/api/games/${g.id}`)).offers.draw, null);
  // Offered again and accepted.
  await north.click('#offer-draw');
  await south.waitForSelector('#offer-bar:not([hidden])');
  await south.click('#offer-accept');
  for (const p of [south, north]) await p.waitForFunction(() => /Draw agreed/.test(document.querySelector('#turn').textContent));
  assert.match(await north.textContent('#round-dialog'), /Draw agreed/);
  for (const p of [south, north]) p.checkClean();
  for (const p of [south, north]) await p.context().close();
});

test('the friend away: a countdown, then "Claim victory" and "Call it a draw"; the win claimed', { timeout: 120000 }, async () => {
  const { browser } = env;
  // A server of its own whose claim time is 8 s (`pussa serve --claim-after 8`; 60 s by default).
  const server = await startServer({ claimAfter: 8 });
  // North joined, answered South's first move without opening the game (a claim needs the
  // friend to have moved: before that the game can only be aborted), and is away since the
  // server loaded it.
  const g = await onlineGame(server);
  const south = await openAs(browser, server, g.id, g.S);
  await clickHole(south, server, g.id);
  const afterSouth = await server.get(`/api/games/${g.id}`);
  await server.post(`/api/games/${g.id}/moves`, { move: afterSouth.legal[0], token: g.N.token, expected_ply: afterSouth.ply });
  await south.waitForSelector('#claim-bar:not([hidden])');
  assert.match(await south.textContent('#claim-text'), /you may claim it in \d+ s/);
  assert.equal(await south.locator('#claim-win').isVisible(), false);
  assert.match(await south.textContent('#claim-text'), /in [1-8] s/, 'the countdown starts from the server\'s claim time');
  await south.waitForSelector('#claim-win:not([hidden])', { timeout: 30000 });
  assert.equal(await south.locator('#claim-draw').isVisible(), true);
  await south.click('#claim-win');
  await south.waitForFunction(() => /You claimed the win: your friend left/.test(document.querySelector('#turn').textContent));
  const st = await server.get(`/api/games/${g.id}`);
  assert.deepEqual(st.ended, { kind: 'claim_win', by: 'S' });
  assert.equal(st.winner, 'S');
  south.checkClean();
  await south.context().close();
  await server.stop();
});

test('the friend away before their first move: no claim, only Abort (as the server rules, and lichess)', { timeout: 60000 }, async () => {
  const { browser } = env;
  const server = await startServer({ claimAfter: 2 });
  try {
    const g = await onlineGame(server);
    const south = await openAs(browser, server, g.id, g.S);
    await clickHole(south, server, g.id);
    // Well past the claim time, North (who joined but never opened the game) has not moved.
    await south.waitForTimeout(4000);
    assert.equal(await south.locator('#claim-bar').isVisible(), false);
    assert.equal(await south.locator('#abort').isVisible(), true);
    assert.equal((await server.get(`/api/games/${g.id}`)).ended, null);
    south.checkClean();
    await south.context().close();
  } finally {
    await server.stop();
  }
});

test('Resign is offered in every game: against the computer the player resigns, on one screen the player to move', async () => {
  const { server, browser } = env;
  // Against the computer.
  const c = await server.post('/api/games', { game: 'raja-pasu', mode: 'single', seat: 'S', opponent: { kind: 'computer', level: 'beginner' } });
  const page = await openAs(browser, server, c.id, { token: c.token, seats: c.seats || ['S'] });
  assert.equal(await page.locator('#resign').isVisible(), true);
  for (const b of ['#abort', '#offer-draw', '#offer-takeback']) assert.equal(await page.locator(b).isVisible(), false, b);
  await page.click('#resign');
  await page.click('#resign-yes');
  await page.waitForFunction(() => /You resigned/.test(document.querySelector('#turn').textContent));
  let st = await server.get(`/api/games/${c.id}`);
  assert.deepEqual(st.ended, { kind: 'resign', by: 'S' });
  assert.equal(st.winner, 'N');
  assert.equal(await page.locator('#resign').isVisible(), false, 'no Resign once the game is over');
  page.checkClean();
  await page.context().close();
  // On one screen: North to move resigns.
  const h = await server.post('/api/games', { game: 'walak-pussa', mode: 'single', first: 'N', opponent: { kind: 'hotseat' } });
  const hot = await openAs(browser, server, h.id, { token: h.token, seats: h.seats || ['S', 'N'] });
  assert.equal(await hot.getAttribute('#resign', 'title'), 'The player to move resigns');
  await hot.click('#resign');
  await hot.click('#resign-yes');
  await hot.waitForFunction(() => /North resigned: South wins/.test(document.querySelector('#turn').textContent));
  st = await server.get(`/api/games/${h.id}`);
  assert.deepEqual(st.ended, { kind: 'resign', by: 'N' });
  hot.checkClean();
  await hot.context().close();
});
