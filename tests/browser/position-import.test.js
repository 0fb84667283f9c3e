// The New game form's "From a position" field and the import form's choice of opponent (QA pass
// 15, second round): a position is read as the player typed it (its errors name the position,
// not a record the page built; one whose round is over starts a game already decided, or a
// match's next round with its layout told right; its game is the one played), and an imported
// record's computer (either writer's tag), level and seat follow the text pasted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serverAndBrowser, newPage, gameId, assertShowsServer, openAs, refusedWith } from './harness.js';

const env = serverAndBrowser();

/** Walak-pussa, North to move with no seeds: round 1 is over before anyone moves. */
const OVER = '4,4,4,4,4,4,4/0,0,0,0,0,0,0 14 14 N 1 walak-pussa';

async function home(page, server) {
  await page.goto(`${server.url}/`);
  await page.waitForSelector('body[data-ready="1"]');
}

/** Fills the New game form (`opponent` computer or hotseat) and the position field, and starts. */
async function startAt(page, server, { game = 'walak-pussa', mode = 'single', opponent = 'computer', level, position }) {
  await home(page, server);
  await page.check(`input[name="game"][value="${game}"]`);
  await page.check(`input[name="mode"][value="${mode}"]`);
  await page.check(`input[name="opponent"][value="${opponent}"]`);
  if (level) await page.selectOption('#level', level);
  if (opponent !== 'hotseat') await page.selectOption('select[name="seat"]', 'S');
  await page.fill('#start-position', position);
  await page.click('#start');
}

const dialogText = (page) => page.evaluate(() => document.querySelector('#round-dialog').textContent.replace(/\s+/g, ' '));

test('a single game from a position whose round is over opens as a game already decided', async () => {
  const { server, browser } = env;
  const { page } = await newPage(browser, server);
  for (const opponent of ['computer', 'hotseat']) {
    await startAt(page, server, { opponent, level: opponent === 'computer' ? 'novice' : undefined, position: OVER });
    const id = await gameId(page);
    const st = await server.get(`/api/games/${id}`);
    // As `pussa replay --position` reads it: North cannot move, South takes the 28 left, 42 to 14.
    assert.equal(st.start_position, OVER);
    assert.equal(st.winner, 'S', opponent);
    assert.deepEqual(st.stores, [42, 14]);
    await page.waitForSelector('#round-dialog[open]');
    assert.equal(await page.textContent('#round-dialog-title'), 'Game over');
    // Against the computer the players are "you" and "Computer", as everywhere on the page.
    assert.match(await dialogText(page), opponent === 'computer' ? /Computer cannot move/ : /North cannot move/);
    assert.match(await dialogText(page), /42/);
    await assertShowsServer(page, server, id, `decided at the start (${opponent})`);
    await page.locator('#round-dialog button[value="ok"]').click();
  }
  page.checkClean();
  await page.context().close();
});

test('a bad position is refused naming the position, not a record the player never wrote', async () => {
  const { server, browser } = env;
  const { page } = await newPage(browser, server);
  page.expectErrors(refusedWith(400)); // the bad positions, refused on purpose
  const cases = [
    ['hello world', 'position: expected 6 or 7 fields (board, South\'s store, North\'s store, side to move, round, game[, round starter]); found 2'],
    ['1,19,1,2,3,3,0/2,0,1,0,0,3,19 23 22 S 1 raja-pasu', 'position: seeds add up to 99 (board 54 + stores 45); raja-pasu has 98'],
    ['1,19,1,2,3,3,0/2,0,1,0,0,3,19 23 21 S 1 raja-pasu junk', "position: round starter 'junk' must be S or N"],
  ];
  for (const [position, message] of cases) {
    await startAt(page, server, { game: 'raja-pasu', level: 'beginner', position });
    // The error sits under the field it is about (a11y-pass2.test.js).
    await page.waitForSelector('#start-position-error');
    assert.equal(await page.textContent('#start-position-error'), `Cannot start from this position: ${message}`);
    assert.equal(await page.evaluate(() => location.hash), '');
  }
  page.checkClean();
  await page.context().close();
});

test("a position of another game than the one ticked is played as the game it names", async () => {
  const { server, browser } = env;
  const { page } = await newPage(browser, server);
  const position = '1,19,1,2,3,3,0/2,0,1,0,0,3,19 23 21 S 1 raja-pasu';
  await home(page, server);
  await page.check('input[name="game"][value="walak-pussa"]');
  await page.check('input[name="opponent"][value="computer"]');
  await page.fill('#start-position', position);
  // The string names its game: it is ticked, and the levels are that game's.
  assert.equal(await page.isChecked('input[name="game"][value="raja-pasu"]'), true);
  await page.selectOption('#level', 'beginner');
  await page.click('#start');
  const id = await gameId(page);
  const st = await server.get(`/api/games/${id}`);
  assert.equal(st.game, 'raja-pasu');
  assert.equal(st.start_position, position);
  assert.deepEqual(st.opponent, { kind: 'computer', level: 'beginner' });
  await assertShowsServer(page, server, id, 'the position\'s game');
  page.checkClean();
  await page.context().close();
});

test("a match from a position whose round is over tells round 2's layout, not the stores after the computer's move", async () => {
  const { server, browser } = env;
  const { page, ctx } = await newPage(browser, server);
  await startAt(page, server, { mode: 'match', level: 'novice', position: OVER });
  const id = await gameId(page);
  const st = await server.get(`/api/games/${id}`);
  // North keeps 14: three holes of 4, 2 in store, a b c d closed; North starts and has moved.
  assert.equal(st.ply, 1);
  assert.equal(st.moves[0].side, 'N');
  const layout = /Round 2 is laid out: South holds 14 in store, North 2\. Closed holes: a b c d\. North starts\./;
  await page.waitForSelector('#round-dialog[open]');
  assert.match(await dialogText(page), layout);
  // Opened again (a reload): the page has no trace of the computer's move until it asks.
  const seat = await page.evaluate((gid) => JSON.parse(localStorage.getItem('pussa.seats'))[gid], id);
  const again = await openAs(browser, server, id, seat);
  await again.page.waitForSelector('#round-dialog[open]');
  await again.page.waitForFunction(() => /Round 2 is laid out/.test(document.querySelector('#round-dialog').textContent));
  assert.match(await dialogText(again.page), layout);
  again.page.checkClean();
  await again.ctx.close();
  page.checkClean();
  await ctx.close();
});

const record = (game, mode, south, north, moves = '*') =>
  `[Game "${game}"]\n[Mode "${mode}"]\n[South "${south}"]\n[North "${north}"]\n[First "S"]\n[Result "*"]\n\n${moves}\n`;

/** What the import form chose. */
const importChoice = (page) =>
  page.evaluate(() => ({
    opp: document.querySelector('input[name="import-opponent"]:checked').value,
    level: document.querySelector('#import-level').value,
    seat: document.querySelector('#import-seat').value,
    note: document.querySelector('#import-note').textContent,
  }));

test('the import form says when it cannot keep the level a record names', async () => {
  const { server, browser } = env;
  const { page } = await newPage(browser, server);
  await home(page, server);
  const note = await page.textContent('#import-note');
  // Club is not on the Walak-pussa match ladder: the strongest level below it, said so.
  await page.fill('#import-text', record('walak-pussa', 'match', 'pussa level club', 'player', '1. C *'));
  let c = await importChoice(page);
  assert.equal(c.opp, 'computer');
  assert.equal(c.level, 'novice');
  assert.equal(c.note, 'The level club is not offered in Walak-pussa matches: the game is against novice, the strongest level below it there.');
  // A level pussa does not have.
  await page.fill('#import-text', record('raja-pasu', 'single', 'player', 'pussa level grandmaster', '1. A c *'));
  c = await importChoice(page);
  assert.equal(c.opp, 'computer');
  assert.match(c.note, /^The record names the level 'grandmaster', which pussa does not have: the game is against \S+/);
  assert.ok(c.note.includes(`against ${c.level} `), c.note);
  // A level kept: the usual note.
  await page.fill('#import-text', record('raja-pasu', 'single', 'player', 'pussa level club', '1. A c *'));
  c = await importChoice(page);
  assert.equal(c.level, 'club');
  assert.equal(c.note, note);
  page.checkClean();
  await page.context().close();
});

test('the import form follows each record pasted: one that names no computer goes back to this screen', async () => {
  const { server, browser } = env;
  const { page } = await newPage(browser, server);
  await home(page, server);
  await page.fill('#import-text', record('raja-pasu', 'single', 'pussa level beginner', 'player', '1. A c *'));
  assert.deepEqual((({ opp, level, seat }) => ({ opp, level, seat }))(await importChoice(page)), { opp: 'computer', level: 'beginner', seat: 'N' });
  await page.fill('#import-text', record('raja-pasu', 'single', 'player', 'player', '1. A c *'));
  assert.equal((await importChoice(page)).opp, 'hotseat');
  await page.click('#import-form button[type="submit"]');
  const id = await gameId(page);
  assert.deepEqual((await server.get(`/api/games/${id}`)).opponent, { kind: 'hotseat' });
  // The computer chosen by hand stays when the text changes to a record that names none.
  await home(page, server);
  await page.check('input[name="import-opponent"][value="computer"]');
  await page.fill('#import-text', record('raja-pasu', 'single', 'player', 'player', '1. A c *'));
  assert.equal((await importChoice(page)).opp, 'computer');
  page.checkClean();
  await page.context().close();
});

test("a record saved by the terminal game against the computer (pussa play --save) comes back against it", async () => {
  const { server, browser } = env;
  const { page } = await newPage(browser, server);
  await home(page, server);
  // As crates/cli writes it (player_name): `North (computer, club)`, the player `South (you)`.
  await page.fill('#import-text', record('raja-pasu', 'single', 'South (you)', 'North (computer, club)', '1. A c *'));
  assert.deepEqual((({ opp, level, seat }) => ({ opp, level, seat }))(await importChoice(page)), { opp: 'computer', level: 'club', seat: 'S' });
  await page.click('#import-form button[type="submit"]');
  const id = await gameId(page);
  const st = await server.get(`/api/games/${id}`);
  assert.deepEqual(st.opponent, { kind: 'computer', level: 'club' });
  assert.equal(st.seats.S.kind, 'human');
  // The player's own seat in the other writer's form, `South (computer, beginner)`: North plays.
  await home(page, server);
  await page.fill('#import-text', record('raja-pasu', 'single', 'South (computer, beginner)', 'North (you)', '1. A c *'));
  assert.deepEqual((({ opp, level, seat }) => ({ opp, level, seat }))(await importChoice(page)), { opp: 'computer', level: 'beginner', seat: 'N' });
  page.checkClean();
  await page.context().close();
});
