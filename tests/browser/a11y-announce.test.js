// What screen readers hear and where the keyboard focus goes (QA pass 16, a11y): a move taken
// said at once, refusals said, each move of an answer that ends a round said once, the claim
// countdown not live, no "friend has left" as the friend joins, and the focus kept in the game
// when the control that had it goes (stepping through the moves, the friend joining, an offer
// answered).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serverAndBrowser, startServer, newPage, settle, onlineGame, openAs, apiMove, startFromForm } from './harness.js';

const env = serverAndBrowser();

/** Records every text the polite live region `#announce` gets (`window.__said`). */
async function recordSaid(page) {
  await page.evaluate(() => {
    window.__said = [];
    const n = document.querySelector('#announce');
    new MutationObserver(() => window.__said.push(n.textContent.trim())).observe(n, { childList: true, characterData: true, subtree: true });
  });
}
const said = (page) => page.evaluate(() => window.__said);

/** What has the focus: "hole X", "mv N", "TAG#id", or "body". */
function focused(page) {
  return page.evaluate(() => {
    const a = document.activeElement;
    if (!a || a === document.body) return 'body';
    if (a.dataset && a.dataset.hole) return `hole ${a.dataset.hole}`;
    if (a.classList.contains('mv')) return `mv ${a.dataset.ply}`;
    return `${a.tagName}#${a.id}`;
  });
}

/** Waits until the focus is no longer on the page itself (a focus fix-up may come a task later). */
async function focusSettled(page) {
  await page.waitForFunction(() => document.activeElement && document.activeElement !== document.body, null, { timeout: 3000 }).catch(() => {});
  return focused(page);
}

/** A game created through the API, opened in a page holding `seats`. */
async function openCreated(browser, server, created, seats, opts = {}) {
  return openAs(browser, server, created.id, { token: created.token, seats }, opts);
}

test('a move taken is said at once, before the answer is shown at the default speed', async () => {
  const { server, browser } = env;
  const { page } = await newPage(browser, server, { speed: 'normal' });
  await startFromForm(page, server, { game: 'walak-pussa', level: 'beginner' });
  await settle(page, 0);
  await recordSaid(page);
  const first = await page.getAttribute('svg.board .hole.legal', 'data-hole');
  await page.keyboard.press(first.toLowerCase());
  await page.waitForFunction(() => window.__said.length > 0, null, { timeout: 2000 });
  assert.equal((await said(page))[0], `You play ${first}. The computer is thinking…`);
  // The animation of the answer is still running: the confirmation came before it.
  assert.equal(await page.evaluate(() => document.body.dataset.busy), '1');
  page.checkClean();
  await page.context().close();
});

test('a refused key is said to screen readers, not only written on the caption', async () => {
  const { server, browser } = env;
  const created = await server.post('/api/games', {
    game: 'walak-pussa',
    mode: 'single',
    opponent: { kind: 'hotseat' },
    position: '0,0,0,0,0,1,1/1,0,0,0,0,0,0 50 3 S 1 walak-pussa',
  });
  const { page } = await openCreated(browser, server, created, ['S', 'N']);
  await settle(page, 0);
  await recordSaid(page);
  await page.keyboard.press('a');
  await page.waitForFunction(() => window.__said.length > 0, null, { timeout: 2000 });
  assert.equal(await page.textContent('#caption'), 'A is empty.');
  assert.deepEqual(await said(page), ['A is empty.']);
  // The same key again is said again (the region changes), and the caption is not read twice.
  await page.keyboard.press('a');
  await page.waitForFunction(() => window.__said.length > 1, null, { timeout: 2000 });
  assert.equal((await said(page))[1], 'A is empty.');
  assert.equal(await page.getAttribute('#caption', 'aria-hidden'), 'true');
  page.checkClean();
  await page.context().close();
});

test('an answer that ends a round and opens the next: each move said once, the own move with the round', async () => {
  const { server, browser } = env;
  const created = await server.post('/api/games', {
    game: 'walak-pussa',
    mode: 'match',
    seat: 'S',
    opponent: { kind: 'computer', level: 'beginner' },
    position: '0,0,0,0,0,1,1/1,0,0,0,0,0,0 50 3 S 1 walak-pussa',
  });
  const { page } = await openCreated(browser, server, created, ['S']);
  await settle(page, 0);
  await recordSaid(page);
  // F, then G: the computer's reply ends the round and the computer opens the next one.
  await page.keyboard.press('f');
  await settle(page, 2);
  await page.keyboard.press('g');
  await page.waitForSelector('#round-dialog[open]');
  await page.keyboard.press('Escape');
  await page.waitForFunction(() => document.body.dataset.busy === '0' && /Your move/.test(document.querySelector('#turn').textContent));
  const all = await said(page);
  const count = (re) => all.filter((t) => re.test(t)).length;
  assert.equal(count(/You played G/), 1, `G said once: ${JSON.stringify(all)}`);
  assert.equal(count(/Round over/), 1, `the round's end said once: ${JSON.stringify(all)}`);
  const atEnd = all.find((t) => /Round over/.test(t));
  assert.match(atEnd, /^You played G .*Computer played [a-g] .*Round over/, "the own move is said with the round's end");
  assert.match(all[all.length - 1], /^Computer played [a-g] [^]*Your move/, 'then the opening move of round 2, once');
  page.checkClean();
  await page.context().close();
});

test('stepping through the moves keeps the focus: on the move, the step button, then a playable hole', async () => {
  const { server, browser } = env;
  const created = await server.post('/api/games', { game: 'raja-pasu', mode: 'single', seat: 'S', opponent: { kind: 'computer', level: 'beginner' } });
  const { page } = await openCreated(browser, server, created, ['S']);
  await settle(page, 0);
  await page.keyboard.press('Tab');
  await page.focus('svg.board .hole.legal');
  await page.keyboard.press('Enter');
  await settle(page, 2);
  assert.match(await focusSettled(page), /^hole [A-G]$/);
  // ←, from a hole (holes do not respond in an earlier position): the move shown.
  await page.keyboard.press('ArrowLeft');
  assert.equal(await focusSettled(page), 'mv 1');
  // Enter on a move of the list (the list is drawn again): that move keeps the focus.
  await page.keyboard.press('Enter');
  assert.equal(await focusSettled(page), 'mv 1');
  // The live position's move (the list drawn again, live): a playable hole, as End does.
  await page.focus('#move-list .mv[data-ply="2"]');
  await page.keyboard.press('Enter');
  assert.match(await focusSettled(page), /^hole [A-G]$/);
  // "Back to the game" (hidden once used): a playable hole.
  await page.keyboard.press('ArrowLeft');
  await page.focus('#hist-live');
  await page.keyboard.press('Enter');
  assert.match(await focusSettled(page), /^hole [A-G]$/);
  // "Previous move" until the start (it is disabled there): the step forward.
  await page.focus('#hist-prev');
  await page.keyboard.press('Enter');
  await page.keyboard.press('Enter');
  assert.equal(await page.evaluate(() => document.body.dataset.view), '0');
  assert.equal(await focusSettled(page), 'BUTTON#hist-next');
  page.checkClean();
  await page.context().close();
});

/**
 * An online game whose friend has not joined, opened by its creator (South, keyboard) on the
 * invite's Copy button; then the friend takes the seat through the invite link in a browser of
 * their own. `before(page)` runs once the creator waits. Returns `{ page, friend }`.
 */
async function friendJoins(browser, server, before) {
  const g = await onlineGame(server, { join: false });
  const { page } = await newPage(browser, server);
  await page.addInitScript(
    ([gid, s, url]) => {
      localStorage.setItem('pussa.seats', JSON.stringify({ [gid]: s }));
      localStorage.setItem(`pussa.invite.${gid}`, url);
    },
    [g.id, g.S, g.url],
  );
  await page.goto(`${server.url}/`);
  await page.waitForSelector('body[data-ready="1"]');
  await page.keyboard.press('Tab');
  await page.evaluate((id) => (location.hash = `#/game/${id}`), g.id);
  await page.waitForSelector('#invite-box:not([hidden])');
  await before(page);
  const { page: friend } = await newPage(browser, server);
  await friend.goto(g.url);
  await friend.waitForSelector('body[data-ready="1"]');
  await page.waitForSelector('#invite-box', { state: 'hidden' });
  return { page, friend };
}

test('online: the friend joining is not said as the friend leaving (their page connects after the join)', async () => {
  const { server, browser } = env;
  const { page, friend } = await friendJoins(browser, server, recordSaid);
  // The friend's page settles in (it connects a moment after taking the seat).
  await page.waitForFunction(() => /Your move/.test(document.querySelector('#turn').textContent));
  await page.waitForTimeout(3000);
  const all = await said(page);
  assert.ok(!all.some((t) => /left|back/.test(t)), `nothing says the friend left or came back: ${JSON.stringify(all)}`);
  page.checkClean();
  await page.context().close();
  await friend.context().close();
});

test("online: the friend joining moves the focus from the invite's Copy button to a playable hole", async () => {
  const { server, browser } = env;
  const { page, friend } = await friendJoins(browser, server, async (p) => {
    assert.equal(await focusSettled(p), 'BUTTON#copy-invite');
  });
  assert.match(await focusSettled(page), /^hole [A-G]$/, 'South to move: a playable hole');
  page.checkClean();
  await page.context().close();
  await friend.context().close();
});

test('online: answering the friend\'s draw offer or takeback with the keyboard keeps the focus in the game', async () => {
  const { server, browser } = env;
  const g = await onlineGame(server);
  const { page } = await openAs(browser, server, g.id, g.S);
  await settle(page, 0);
  await page.keyboard.press('Tab');
  // The friend offers a draw; South declines it from the keyboard.
  await server.post(`/api/games/${g.id}/draw`, { token: g.N.token, offer: true });
  await page.waitForSelector('#offer-bar:not([hidden])');
  await page.focus('#offer-decline');
  await page.keyboard.press('Enter');
  await page.waitForSelector('#offer-bar', { state: 'hidden' });
  assert.match(await focusSettled(page), /^hole [A-G]$/, 'South to move: a playable hole');
  // South moves, North replies, South moves; North proposes a takeback, South accepts it.
  await apiMove(server, g);
  await apiMove(server, g);
  const st = await apiMove(server, g);
  await settle(page, st.ply);
  await server.post(`/api/games/${g.id}/takeback`, { token: g.N.token, offer: true, expected_ply: st.ply });
  await page.waitForSelector('#offer-bar:not([hidden])');
  await page.focus('#offer-accept');
  await page.keyboard.press('Enter');
  await page.waitForSelector('#offer-bar', { state: 'hidden' });
  await page.waitForFunction(() => /Friend .*to move/.test(document.querySelector('#turn').textContent));
  assert.equal(await focusSettled(page), 'P#turn', "the friend's move: the turn line");
  page.checkClean();
  await page.context().close();
});

test('the claim countdown is not a live region; the claim becoming possible is said once', { timeout: 60000 }, async () => {
  const { browser } = env;
  const server = await startServer({ claimAfter: 4 });
  try {
    const g = await onlineGame(server);
    const { page } = await openAs(browser, server, g.id, g.S);
    await settle(page, 0);
    await recordSaid(page);
    await apiMove(server, g);
    await apiMove(server, g);
    await page.waitForSelector('#claim-bar:not([hidden])');
    assert.match(await page.textContent('#claim-text'), /you may claim it in \d+ s/);
    const live = await page.evaluate(() => {
      const el = document.querySelector('#claim-text');
      return el.closest('[aria-live], [role="status"], [role="alert"], [role="log"], [role="timer"]')?.id || null;
    });
    assert.equal(live, null, 'the ticking seconds are in no live region');
    await page.waitForSelector('#claim-win:not([hidden])', { timeout: 20000 });
    await page.waitForTimeout(1500);
    const all = await said(page);
    assert.equal(all.filter((t) => /claim/i.test(t)).length, 1, `said once: ${JSON.stringify(all)}`);
    assert.match(all[all.length - 1], /Claim the win, call it a draw, or wait for them/);
    page.checkClean();
    await page.context().close();
  } finally {
    await server.stop();
  }
});
