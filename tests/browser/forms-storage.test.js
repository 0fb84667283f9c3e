// The start page's forms and the browser's storage (QA pass 15): an imported record played
// against the computer, a new game from a position, the New game form remembered, a game's
// dialog closed by a page change, and the page working with site data blocked or storage
// refusing writes (the seat kept for as long as the page).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serverAndBrowser, newPage, settle, gameId, startFromForm, noticeText, assertShowsServer, refusedWith } from './harness.js';

const env = serverAndBrowser();

/** Site data blocked: reading `window.localStorage` throws, as Chromium does then. */
const BLOCKED = () => {
  Object.defineProperty(window, 'localStorage', {
    configurable: true,
    get() {
      throw new DOMException("Failed to read the 'localStorage' property from 'Window': Access is denied for this document.", 'SecurityError');
    },
  });
};

/** Storage refusing writes (a full quota, a private window). */
const REFUSING = () => {
  Storage.prototype.setItem = function () {
    throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
  };
};

async function home(page, server) {
  await page.goto(`${server.url}/`);
  await page.waitForSelector('body[data-ready="1"]');
}

test('an exported record against the computer is imported against the computer again, at its level and seat', async () => {
  const { server, browser } = env;
  // A game against club, the player North, exported unfinished.
  const c = await server.post('/api/games', { game: 'raja-pasu', opponent: { kind: 'computer', level: 'club' }, seat: 'N', first: 'N' });
  await server.post(`/api/games/${c.id}/moves`, { move: c.state.legal[0], token: c.token, expected_ply: 0 });
  const record = await (await fetch(`${server.url}/api/games/${c.id}/record`)).text();
  assert.match(record, /\[South "pussa level club"\]/);
  const { page } = await newPage(browser, server);
  await home(page, server);
  // Before a record: on this screen, no level or seat asked.
  assert.equal(await page.isChecked('input[name="import-opponent"][value="hotseat"]'), true);
  assert.equal(await page.isVisible('#import-level'), false);
  await page.fill('#import-text', record);
  // The record's tags chose the opponent: the computer at club, the player North.
  assert.equal(await page.isChecked('input[name="import-opponent"][value="computer"]'), true);
  assert.equal(await page.inputValue('#import-level'), 'club');
  assert.equal(await page.inputValue('#import-seat'), 'N');
  await page.click('#import-form button[type="submit"]');
  const id = await gameId(page);
  assert.notEqual(id, c.id);
  const st = await server.get(`/api/games/${id}`);
  assert.deepEqual(st.opponent, { kind: 'computer', level: 'club' });
  assert.equal(st.seats.N.kind, 'human');
  assert.equal(st.seats.S.kind, 'computer');
  // The computer answered the imported move; the page shows the game and it is North's move.
  await assertShowsServer(page, server, id, 'imported against the computer');
  assert.equal(st.to_move, 'N');
  assert.match(await page.textContent('#turn'), /Your move/);
  page.checkClean();
  await page.context().close();
});

test('a record is imported against the computer at a level and seat the player picks', async () => {
  const { server, browser } = env;
  const { page } = await newPage(browser, server);
  await home(page, server);
  await page.fill('#import-text', '[Game "walak-pussa"]\n[South "Ann"]\n[North "Bob"]\n\n1. A *\n');
  // Players' names are no level: the choice stays on this screen.
  assert.equal(await page.isChecked('input[name="import-opponent"][value="hotseat"]'), true);
  await page.check('input[name="import-opponent"][value="computer"]');
  await page.selectOption('#import-level', 'novice');
  await page.selectOption('#import-seat', 'N');
  await page.click('#import-form button[type="submit"]');
  const id = await gameId(page);
  const st = await server.get(`/api/games/${id}`);
  assert.deepEqual(st.opponent, { kind: 'computer', level: 'novice' });
  assert.equal(st.seats.N.kind, 'human');
  await settle(page, st.ply);
  page.checkClean();
  await page.context().close();
});

test('the New game form starts a game from a position string', async () => {
  const { server, browser } = env;
  const position = '1,19,1,2,3,3,0/2,0,1,0,0,3,19 23 21 S 1 raja-pasu';
  const { page } = await newPage(browser, server);
  page.expectErrors(refusedWith(400));
  await home(page, server);
  await page.check('input[name="game"][value="raja-pasu"]');
  await page.check('input[name="opponent"][value="computer"]');
  await page.selectOption('#level', 'beginner');
  await page.selectOption('select[name="seat"]', 'S');
  await page.fill('#start-position', position);
  // The position says who moves first.
  assert.equal(await page.isDisabled('select[name="first"]'), true);
  await page.click('#start');
  const id = await gameId(page);
  const st = await server.get(`/api/games/${id}`);
  assert.equal(st.start_position, position);
  assert.deepEqual(st.opponent, { kind: 'computer', level: 'beginner' });
  assert.equal(st.seats.S.kind, 'human');
  await assertShowsServer(page, server, id, 'from the position');
  assert.deepEqual(st.board, [1, 19, 1, 2, 3, 3, 0, 2, 0, 1, 0, 0, 3, 19]);
  // Play again (after resigning) starts from the same position, same level and seat.
  await page.click('#resign');
  await page.click('#resign-yes');
  await page.waitForSelector('#round-dialog[open]');
  await page.click('#rematch');
  await page.waitForFunction((old) => location.hash.startsWith('#/game/') && !location.hash.endsWith(old), id);
  const again = await server.get(`/api/games/${await gameId(page)}`);
  assert.equal(again.start_position, position);
  assert.deepEqual(again.opponent, { kind: 'computer', level: 'beginner' });
  assert.equal(again.seats.S.kind, 'human');
  // A bad position is refused in one line naming it; no game is opened.
  await home(page, server);
  await page.fill('#start-position', '1,2,3 S 1 raja-pasu');
  await page.click('#start');
  await page.waitForSelector('#start-position-error');
  assert.match(await page.textContent('#start-position-error'), /^Cannot start from this position: .*position/);
  assert.equal(await page.evaluate(() => location.hash), '');
  page.checkClean();
  await page.context().close();
});

test('the New game form remembers the game, length, opponent, seat and first mover', async () => {
  const { server, browser } = env;
  const { page } = await newPage(browser, server);
  await startFromForm(page, server, { game: 'pasu-pondi', mode: 'match', opponent: 'computer', level: 'novice', seat: 'N', first: 'N' });
  await page.reload();
  await page.goto(`${server.url}/#/`);
  await page.waitForSelector('body[data-ready="1"]');
  const shown = await page.evaluate(() => {
    const f = document.querySelector('#new-game');
    return { game: f.game.value, mode: f.mode.value, opponent: f.opponent.value, level: f.level.value, seat: f.seat.value, first: f.first.value };
  });
  assert.deepEqual(shown, { game: 'pasu-pondi', mode: 'match', opponent: 'computer', level: 'novice', seat: 'N', first: 'N' });
  // The seat field shows for the computer; the friend on this screen hides it, and that is kept too.
  await page.check('input[name="opponent"][value="hotseat"]');
  await page.reload();
  await page.waitForSelector('body[data-ready="1"]');
  assert.equal(await page.evaluate(() => document.querySelector('#new-game').opponent.value), 'hotseat');
  assert.equal(await page.isVisible('select[name="seat"]'), false);
  page.checkClean();
  await page.context().close();
});

test("Back from a finished game closes its result dialog; the rules in front of it hide it until the way back", async () => {
  const { server, browser } = env;
  const c = await server.post('/api/games', { game: 'raja-pasu', opponent: { kind: 'hotseat' } });
  await server.post(`/api/games/${c.id}/moves`, { move: 'A', token: c.token, expected_ply: 0 });
  await server.post(`/api/games/${c.id}/resign`, { token: c.token });
  const { page } = await newPage(browser, server);
  await home(page, server);
  await page.goto(`${server.url}/#/game/${c.id}`);
  await page.waitForSelector('#round-dialog[open]');
  // The rules in front of the game: no dialog over them; back to the game, it shows again.
  await page.evaluate((id) => (location.hash = `#/rules/raja-pasu`), c.id);
  await page.waitForSelector('#view-rules:not([hidden])');
  assert.equal(await page.evaluate(() => document.querySelector('#round-dialog').open), false);
  await page.goBack();
  await page.waitForSelector('#round-dialog[open]');
  // Back to the start page: the game closes and its dialog with it; Start can be used.
  await page.goBack();
  await page.waitForSelector('#view-home:not([hidden])');
  assert.equal(await page.evaluate(() => document.querySelector('#round-dialog').open), false);
  await page.click('#start', { timeout: 3000 });
  const id = await gameId(page);
  assert.notEqual(id, c.id);
  page.checkClean();
  await page.context().close();
});

test('with site data blocked the page works: a game starts and plays, the settings last the page', async () => {
  const { server, browser } = env;
  const { page, ctx } = await newPage(browser, server, { speed: null });
  await ctx.addInitScript(BLOCKED);
  await home(page, server);
  assert.equal(await page.evaluate(() => { try { return typeof localStorage; } catch (e) { return e.name; } }), 'SecurityError');
  assert.equal(await page.isVisible('#start'), true);
  const id = await startFromForm(page, server, { game: 'raja-pasu', opponent: 'computer', level: 'beginner' });
  await settle(page, 0);
  // The seat lasts the page: the player moves (the notice says a reload loses it).
  assert.match(await noticeText(page), /reload/);
  await page.selectOption('#speed', 'off');
  await page.locator('svg.board .hole.legal').first().click();
  await settle(page, 2);
  await assertShowsServer(page, server, id, 'after a move with storage blocked');
  // The board-turning box (shown on one screen) and the speed work too.
  await page.evaluate(() => {
    const box = document.querySelector('#turn-board');
    box.checked = true;
    box.dispatchEvent(new Event('change', { bubbles: true }));
  });
  assert.equal(await page.inputValue('#speed'), 'off');
  page.checkClean();
  await page.context().close();
});

test('storage refusing writes: the friend keeps the seat taken with the invite, and a new game opens', async () => {
  const { server, browser } = env;
  const c = await server.post('/api/games', { game: 'raja-pasu', opponent: { kind: 'online' }, first: 'N' });
  const { page, ctx } = await newPage(browser, server, { speed: null });
  await ctx.addInitScript(REFUSING);
  await page.goto(server.url + c.invite.url);
  await page.waitForSelector('body[data-ready="1"]');
  await page.waitForFunction(() => /Your move/.test(document.querySelector('#turn').textContent));
  assert.match(await noticeText(page), /reload/);
  assert.doesNotMatch(await noticeText(page), /watching/);
  // The friend (North) moves with the seat kept in memory.
  await page.locator('svg.board .hole.legal').first().click();
  for (let i = 0; i < 100 && (await server.get(`/api/games/${c.id}`)).ply < 1; i++) await page.waitForTimeout(100);
  assert.equal((await server.get(`/api/games/${c.id}`)).ply, 1);
  // A new game from the form: created once, and opened.
  const before = (await server.get('/api/games?limit=200')).games.length;
  const id = await startFromForm(page, server, { game: 'walak-pussa', opponent: 'computer', level: 'novice' });
  await settle(page, 0);
  assert.equal((await server.get('/api/games?limit=200')).games.length, before + 1);
  assert.match(await noticeText(page), /reload/);
  await page.locator('svg.board .hole.legal').first().click();
  await settle(page, 2);
  await assertShowsServer(page, server, id, 'a move with storage refusing writes');
  page.checkClean();
  await page.context().close();
});

test("a tournament's record names the computer as level:NAME and is imported against it (QA pass 21)", async () => {
  const { server, browser } = env;
  const { page } = await newPage(browser, server);
  await home(page, server);
  // `pussa tournament --pgn` writes `level:club`; the page read only the export's and the
  // terminal game's forms, so this record stayed a hot-seat game.
  await page.fill('#import-text', '[Game "raja-pasu"]\n[South "level:club"]\n[North "Bob"]\n\n1. G *\n');
  assert.equal(await page.isChecked('input[name="import-opponent"][value="computer"]'), true);
  assert.equal(await page.inputValue('#import-level'), 'club');
  assert.equal(await page.inputValue('#import-seat'), 'N');
  // A tournament player with endgame tables: `level:novice+tables`.
  await page.fill('#import-text', '[Game "walak-pussa"]\n[South "Ann"]\n[North "level:novice+tables"]\n\n*\n');
  assert.equal(await page.isChecked('input[name="import-opponent"][value="computer"]'), true);
  assert.equal(await page.inputValue('#import-level'), 'novice');
  assert.equal(await page.inputValue('#import-seat'), 'S');
  await page.click('#import-form button[type="submit"]');
  const id = await gameId(page);
  const st = await server.get(`/api/games/${id}`);
  assert.deepEqual(st.opponent, { kind: 'computer', level: 'novice' });
  assert.equal(st.seats.S.kind, 'human');
  page.checkClean();
  await page.context().close();
});
