// What a QA pass on the page found, each checked as a player meets it: a mangled link, a move
// or a game page while the server is away, the friend reopening their invite, playing again
// after the result dialog, a scoreboard that follows the position shown and the animation,
// notices that do not move the board, a watcher's keys, opening a pasted link, the words of a
// single game's end, the phone layout and one game's rules page.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  serverAndBrowser, startServer, newPage, openAs, settle, gameId, assertShowsServer, closeDialog, startFromForm,
  refusedWith,
} from './harness.js';

const env = serverAndBrowser();

/** Creates a game through the API; returns its answer ({id, token, seats, state, …}). */
function create(server, body) {
  return server.post('/api/games', { first: 'S', seat: 'S', ...body });
}

/** Plays the first legal move until the game is over (through the API); returns the state. */
async function playOut(server, id, token) {
  let st = await server.get(`/api/games/${id}`);
  while (!st.match_over) {
    const r = await server.post(`/api/games/${id}/moves`, { move: st.legal[0], token, expected_ply: st.ply });
    st = r.state;
  }
  return st;
}

/** The board's top edge in the page, in CSS pixels. */
function boardTop(page) {
  return page.evaluate(() => document.querySelector('#board-host').getBoundingClientRect().top + window.scrollY);
}

test('a link with a broken %-escape says so instead of leaving a blank page', async () => {
  const { server, browser } = env;
  const { page } = await newPage(browser, server);
  page.expectErrors('This address is not a valid pussa link (a broken %-escape)');
  await page.goto(`${server.url}/#/game/%zz`);
  await page.waitForSelector('body[data-ready="1"]');
  await page.waitForSelector('#notice:not([hidden])');
  assert.match(await page.textContent('#notice'), /not a valid pussa link/);
  // The start page is offered.
  assert.equal(await page.locator('#view-home').isVisible(), true);
  page.checkClean();
  await page.context().close();
});

test('a long unknown id is cut short on the game-not-found page, which stays inside the screen', async () => {
  const { server, browser } = env;
  const { page } = await newPage(browser, server, { viewport: { width: 390, height: 844 } });
  page.expectErrors(refusedWith(404));
  const id = 'x'.repeat(3000);
  await page.goto(`${server.url}/#/game/${id}`);
  await page.waitForSelector('#view-missing:not([hidden])');
  const text = await page.textContent('#missing-text');
  assert.match(text, /^No game with id “x+…”\. /);
  assert.ok(text.length < 160, `message of ${text.length} characters`);
  const box = await page.locator('#missing-text').boundingBox();
  assert.ok(box.x >= 0 && box.x + box.width <= 390, `notice from ${box.x} to ${box.x + box.width}`);
  page.checkClean();
  await page.context().close();
});

test('a move refused because the server is gone gives the turn back, and a game opened meanwhile appears once it is back', async () => {
  const { browser } = env;
  const server = await startServer();
  try {
    const g = await create(server, { game: 'raja-pasu', mode: 'single', opponent: { kind: 'computer', level: 'beginner' } });
    const { page } = await openAs(browser, server, g.id, g);
    // The server stopped on purpose: requests fail and the page says so.
    page.expectErrors('net::ERR_CONNECTION_REFUSED', /Move [A-G] refused: cannot reach the server/, 'Cannot open the game: cannot reach the server');
    await settle(page, 0);
    assert.match(await page.textContent('#turn'), /Your move/);
    await server.stop({ keep: true });
    await page.locator('svg.board .hole.legal').first().click();
    await page.waitForSelector('#notice:not([hidden])');
    assert.match(await page.textContent('#notice'), /refused: cannot reach the server/);
    await page.waitForFunction(() => document.body.dataset.busy === '0');
    assert.match(await page.textContent('#turn'), /Your move/, 'the turn line after the refused move');
    assert.equal(await page.locator('svg.board .hole.legal').count(), 7);
    // Away from the game and back while the server is still down: the page keeps trying.
    await page.evaluate(() => (location.hash = '#/'));
    await page.evaluate((id) => (location.hash = `#/game/${id}`), g.id);
    await page.waitForFunction(() => /Trying again/.test(document.querySelector('#notice-text').textContent));
    assert.equal(await page.locator('#view-game').isVisible(), false);
    const again = await startServer({ port: server.port, data: server.data });
    try {
      await page.waitForSelector('#view-game:not([hidden])', { timeout: 30000 });
      await assertShowsServer(page, again, g.id, 'after the server came back');
      assert.match(await page.textContent('#turn'), /Your move/);
      await page.waitForFunction(() => document.querySelector('#live').textContent === 'live');
    } finally {
      await again.stop();
    }
    await page.context().close();
  } finally {
    await server.stop();
  }
});

test('the friend who took a seat with the invite opens the same link again and just plays', async () => {
  const { server, browser } = env;
  const { page: south } = await newPage(browser, server);
  const id = await startFromForm(south, server, { game: 'pasu-pondi', opponent: 'online', seat: 'S' });
  await south.waitForSelector('#invite-box:not([hidden])');
  const invite = await south.inputValue('#invite-url');
  // Nobody moves before the friend is there.
  await settle(south, 0);
  assert.equal(await south.locator('svg.board .hole.legal').count(), 0);
  assert.match(await south.textContent('#turn'), /Waiting for your friend to join/);
  const southTop = await boardTop(south);
  const { page: north, ctx } = await newPage(browser, server);
  await north.goto(invite);
  assert.equal(await gameId(north), id);
  await settle(north, 0);
  assert.match(await north.textContent('#game-sub'), /you play North/);
  // The creator is told, in a notice that does not move the board, and can move now.
  await south.waitForFunction(() => /friend has joined/.test(document.querySelector('#notice').textContent));
  assert.equal(await boardTop(south), southTop, 'the board did not move when the notice came');
  await south.waitForFunction(() => document.querySelectorAll('svg.board .hole.legal').length === 7);
  await south.click('#notice-close');
  assert.equal(await south.locator('#notice').isVisible(), false);
  // The friend closes the tab and opens the invite again later.
  await north.close();
  const again = await ctx.newPage();
  await again.goto(invite);
  assert.equal(await gameId(again), id);
  await settle(again, 0);
  assert.match(await again.textContent('#game-sub'), /you play North/);
  assert.equal(await again.locator('#notice').isVisible(), false, 'no notice that the invite is for someone else');
  south.checkClean();
  await south.context().close();
  await ctx.close();
});

test('a finished game keeps "Play again" after its result dialog is closed, and says "Game over" in words of a game', async () => {
  const { server, browser } = env;
  const g = await create(server, { game: 'walak-pussa', mode: 'single', opponent: { kind: 'hotseat' } });
  const end = await playOut(server, g.id, g.token);
  const { page } = await openAs(browser, server, g.id, g);
  await page.waitForSelector('#round-dialog[open]');
  const dialog = await page.textContent('#round-dialog');
  assert.match(dialog, /Game over/);
  assert.match(dialog, /The game ended: /);
  assert.match(dialog, /Taken in the game/);
  assert.doesNotMatch(dialog, /Round 1|won the round|round is drawn/);
  assert.equal((await page.textContent('#round-dialog-ok')).trim(), 'Close');
  await closeDialog(page);
  assert.equal(await page.locator('#again').isVisible(), true);
  await page.click('#again');
  await page.waitForFunction((old) => !location.hash.endsWith(old), g.id);
  const id = await gameId(page);
  const st = await server.get(`/api/games/${id}`);
  assert.equal(st.ply, 0);
  assert.equal(st.game, end.game);
  assert.equal(st.mode, 'single');
  assert.equal(st.opponent.kind, 'hotseat');
  assert.equal(await page.locator('#again').isVisible(), false, 'no "Play again" in a game under way');
  page.checkClean();
  await page.context().close();
});

test('the scoreboard shows the position looked at, and the banner over the turn line does not move the board', async () => {
  const { server, browser } = env;
  const g = await create(server, { game: 'raja-pasu', mode: 'match', opponent: { kind: 'hotseat' } });
  // A whole first round and a little of the second.
  let st = await server.get(`/api/games/${g.id}`);
  while (st.round === 1 || st.moves.filter((m) => m.round === 2).length < 2) {
    st = (await server.post(`/api/games/${g.id}/moves`, { move: st.legal[0], token: g.token, expected_ply: st.ply })).state;
    assert.equal(st.match_over, false, 'the match lasts two rounds');
  }
  const { page } = await openAs(browser, server, g.id, g);
  await settle(page, st.ply);
  await closeDialog(page);
  const top = await boardTop(page);
  const table = () =>
    page.evaluate(() =>
      ['S', 'N'].map((s) => {
        const tds = document.querySelectorAll(`#scoreboard tr[data-side="${s}"] td`);
        return [0, 1, 2].map((k) => Number(tds[k].textContent));
      }),
    );
  const live = await table();
  assert.deepEqual(live.map((r) => r[0]), st.stores);
  assert.deepEqual(live.map((r) => r[1]), st.taken);
  // The start: nothing held, nothing taken, no round won.
  await page.keyboard.press('Home');
  await page.waitForSelector('#history-banner:not([hidden])');
  assert.deepEqual(await table(), [[0, 0, 0], [0, 0, 0]]);
  assert.match(await page.textContent('#round-line'), /^Round 1 · 0 rounds played/);
  assert.equal(await boardTop(page), top, 'the banner did not move the board');
  // The first position of round 2: the seeds held are the layout's, one round won.
  const layout = st.moves.filter((m) => m.round === 1).pop();
  await page.locator(`#move-list .mv[data-ply="${layout.ply}"]`).click();
  const at = await table();
  assert.deepEqual(at.map((r) => r[0]), layout.stores);
  assert.deepEqual(at.map((r) => r[1]), [0, 0]);
  const winner = st.rounds[0].winner;
  assert.deepEqual(at.map((r) => r[2]), [winner === 'S' ? 1 : 0, winner === 'N' ? 1 : 0]);
  assert.match(await page.textContent('#round-line'), /^Round 2 · 1 round played/);
  await page.keyboard.press('End');
  assert.deepEqual(await table(), live);
  page.checkClean();
  await page.context().close();
});

test('while a move is animated the scoreboard keeps up with the stores on the board', async () => {
  const { server, browser } = env;
  // A first move of Raja Pasu that takes seeds on the way (a four or a capture).
  let letter = null;
  for (const l of 'ABCDEFG') {
    const t = await create(server, { game: 'raja-pasu', mode: 'single', opponent: { kind: 'hotseat' } });
    const r = await server.post(`/api/games/${t.id}/moves`, { move: l, token: t.token, expected_ply: 0 });
    if (r.played[0].trace.some((ev) => ev.type === 'four' || ev.type === 'capture')) {
      letter = l;
      break;
    }
  }
  assert.ok(letter, 'some first move takes seeds');
  const g = await create(server, { game: 'raja-pasu', mode: 'single', opponent: { kind: 'hotseat' } });
  const { page } = await openAs(browser, server, g.id, g, { speed: 'fast' });
  await settle(page, 0);
  // Samples of (board store, scoreboard store) for both sides while the move is shown.
  await page.evaluate(() => {
    window.samples = [];
    const take = () => {
      const board = ['South', 'North'].map((s) => document.querySelector(`svg.board [data-store="${s}"] .count`).textContent);
      const table = ['S', 'N'].map((s) => document.querySelector(`#scoreboard td[data-store="${s}"]`).textContent);
      window.samples.push([board.join(','), table.join(',')]);
    };
    new MutationObserver(take).observe(document.querySelector('#board-host'), { subtree: true, characterData: true, childList: true });
  });
  await page.locator(`svg.board .hole.legal[data-hole="${letter}"]`).click();
  await settle(page, 1);
  const samples = await page.evaluate(() => window.samples);
  const moved = samples.filter(([b]) => b !== '0,0');
  assert.ok(moved.length > 0, 'the stores changed during the animation');
  // Every change drawn on the board's stores is on the scoreboard before the next one.
  const boards = [...new Set(samples.map(([b]) => b))];
  const tables = new Set(samples.map(([, t]) => t));
  for (const b of boards) assert.ok(tables.has(b), `the scoreboard showed ${b} too (it showed ${[...tables].join(' | ')})`);
  await assertShowsServer(page, server, g.id, 'after the move');
  page.checkClean();
  await page.context().close();
});

test('a watcher is shown the keys a watcher has and told why letters do nothing', async () => {
  const { server, browser } = env;
  const g = await create(server, { game: 'walak-pussa', mode: 'single', opponent: { kind: 'hotseat' } });
  const { page } = await openAs(browser, server, g.id, null);
  await settle(page, 0);
  assert.equal(await page.locator('#keys-watcher').isVisible(), true);
  assert.equal(await page.locator('#keys-player').isVisible(), false);
  await page.keyboard.press('a');
  assert.match(await page.textContent('#caption'), /watching this game: only its players move/);
  page.checkClean();
  await page.context().close();
});

test('"Open a game by id" takes a pasted watch link or an id in capitals', async () => {
  const { server, browser } = env;
  const g = await create(server, { game: 'walak-pussa', mode: 'single', opponent: { kind: 'hotseat' } });
  const { page } = await newPage(browser, server);
  for (const typed of [`${server.url}/?game=${g.id}`, `  ${g.id.toUpperCase()} `, `${server.url}/#/game/${g.id}`]) {
    await page.goto(`${server.url}/`);
    await page.waitForSelector('body[data-ready="1"]');
    await page.fill('#open-id', typed);
    await page.click('#open-form button[type="submit"]');
    assert.equal(await gameId(page), g.id, typed);
    await settle(page, 0);
    assert.match(await page.textContent('#game-sub'), /watching/);
  }
  page.checkClean();
  await page.context().close();
});

test('on a phone, undo and hint sit right under the board and the hint is read there', async () => {
  const { server, browser } = env;
  const g = await create(server, { game: 'walak-pussa', mode: 'single', opponent: { kind: 'computer', level: 'beginner' } });
  const { page } = await openAs(browser, server, g.id, g, { viewport: { width: 390, height: 844 }, mobile: true });
  await settle(page, 0);
  const board = await page.locator('#board-host').boundingBox();
  const undo = await page.locator('#undo').boundingBox();
  const hint = await page.locator('#hint').boundingBox();
  assert.ok(undo.y > board.y + board.height, 'undo below the board');
  assert.ok(undo.y + undo.height < 844, `undo on the first screen (at ${undo.y})`);
  assert.ok(hint.y + hint.height < 844, `hint on the first screen (at ${hint.y})`);
  await page.click('#hint');
  await page.waitForFunction(() => /^Hint: /.test(document.querySelector('#hint-text').textContent));
  const text = await page.locator('#hint-text').boundingBox();
  assert.ok(text.y < 844, `the hint's text on the first screen (at ${text.y})`);
  page.checkClean();
  await page.context().close();
});

test("one game's rules page is headed with that game", async () => {
  const { server, browser } = env;
  const { page } = await newPage(browser, server);
  await page.goto(`${server.url}/#/rules/raja-pasu`);
  // The text's first heading (its title; the page's own h1 is "Rules").
  await page.waitForSelector('#rules-body h2');
  assert.equal(await page.textContent('#rules-body h2'), 'The rules of Raja Pasu');
  page.checkClean();
  await page.context().close();
});

test('online, a player sees when the friend has left the game page and when they are back', async () => {
  const { server, browser } = env;
  const { page: south } = await newPage(browser, server);
  const id = await startFromForm(south, server, { game: 'raja-pasu', opponent: 'online', seat: 'S', first: 'N' });
  await south.waitForSelector('#invite-box:not([hidden])');
  const invite = await south.inputValue('#invite-url');
  const { page: north, ctx } = await newPage(browser, server);
  await north.goto(invite);
  assert.equal(await gameId(north), id);
  await settle(north, 0);
  await south.waitForFunction(() => /Friend to move/.test(document.querySelector('#turn').textContent));
  assert.doesNotMatch(await south.textContent('#turn'), /away/);
  assert.equal(await south.locator('#scoreboard .away').count(), 0);
  // North closes the tab: South is told, on the turn line and the scoreboard.
  await north.close();
  await south.waitForFunction(() => /but away/.test(document.querySelector('#turn').textContent));
  assert.equal(await south.locator('#scoreboard tr[data-side="N"] .away').count(), 1);
  // North comes back through the same link.
  const back = await ctx.newPage();
  await back.goto(invite);
  await settle(back, 0);
  await south.waitForFunction(() => !/away/.test(document.querySelector('#turn').textContent));
  assert.equal(await south.locator('#scoreboard .away').count(), 0);
  south.checkClean();
  await south.context().close();
  await ctx.close();
});

test('a finished online game offers a rematch: one player starts it, sides swapped, the other joins it, a watcher may watch it', async () => {
  const { server, browser } = env;
  const r = await create(server, { game: 'walak-pussa', mode: 'single', opponent: { kind: 'online' } });
  const invite = r.invite.token;
  const j = await server.post(`/api/games/${r.id}/join`, { invite });
  // Played to its end through the API, each side with its own token.
  let st = await server.get(`/api/games/${r.id}`);
  while (!st.match_over) {
    const token = st.to_move === 'S' ? r.token : j.token;
    st = (await server.post(`/api/games/${r.id}/moves`, { move: st.legal[0], token, expected_ply: st.ply })).state;
  }
  const { page: south } = await openAs(browser, server, r.id, r);
  const { page: north } = await openAs(browser, server, r.id, { token: j.token, seats: ['N'] });
  const { page: watcher } = await openAs(browser, server, r.id, null);
  for (const p of [south, north]) {
    await p.waitForSelector('#round-dialog[open]');
    assert.equal((await p.textContent('#rematch')).trim(), 'Rematch');
    await closeDialog(p);
    assert.equal((await p.textContent('#again')).trim(), 'Rematch');
  }
  assert.equal(await watcher.locator('#again').isVisible(), false, 'a watcher has no rematch to ask for');
  await south.click('#again');
  await south.waitForFunction((old) => !location.hash.endsWith(old), r.id);
  const id = await gameId(south);
  await settle(south, 0);
  assert.match(await south.textContent('#game-sub'), /you play North/);
  // The friend is told and joins the same game, on the other side.
  await north.waitForFunction(() => document.querySelector('#again').textContent === 'Join the rematch');
  assert.match(await north.textContent('#notice'), /asks for a rematch/);
  await north.click('#again');
  await north.waitForFunction((old) => !location.hash.endsWith(old), r.id);
  assert.equal(await gameId(north), id);
  await settle(north, 0);
  assert.match(await north.textContent('#game-sub'), /you play South/);
  // The watcher of the old game may follow.
  await closeDialog(watcher);
  await watcher.waitForSelector('#watch-rematch:not([hidden])');
  await watcher.click('#watch-rematch');
  await watcher.waitForFunction((old) => !location.hash.endsWith(old), r.id);
  assert.equal(await gameId(watcher), id);
  await settle(watcher, 0);
  assert.match(await watcher.textContent('#game-sub'), /watching/);
  // Nobody waits for anyone: the player to move has their holes.
  const newState = await server.get(`/api/games/${id}`);
  const mover = newState.to_move === 'S' ? north : south;
  await mover.waitForFunction(() => document.querySelectorAll('svg.board .hole.legal').length > 0);
  for (const p of [south, north, watcher]) {
    p.checkClean();
    await p.context().close();
  }
});
